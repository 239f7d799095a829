package app

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// GridKeys are the settings an experiment's grid may vary.
var GridKeys = []string{"strategy", "provider", "model", "chunk_size", "overlap", "max_gleaning", "embedder", "schema", "reports"}

// GridAxis is one setting of an experiment and the values it takes.
type GridAxis struct {
	Key    string
	Values []string
}

// ParseGridAxis reads "KEY=V1,V2" (a value given twice counts once).
func ParseGridAxis(s string) (GridAxis, error) {
	key, vals, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.TrimSpace(vals) == "" {
		return GridAxis{}, extract.Errorf(extract.KindInvalid, "grid %q: write KEY=V1,V2 (keys: %s)", s, strings.Join(GridKeys, ", "))
	}
	if !slices.Contains(GridKeys, key) {
		return GridAxis{}, extract.Errorf(extract.KindInvalid, "grid %s: unknown setting (use %s)", key, strings.Join(GridKeys, ", "))
	}
	axis := GridAxis{Key: key}
	for _, v := range strings.Split(vals, ",") {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(axis.Values, v) {
			axis.Values = append(axis.Values, v)
		}
	}
	return axis, nil
}

// MaxGridPoints bounds the versions one experiment makes.
const MaxGridPoints = 64

// GridPoints is the cartesian product of the axes, the first axis
// slowest: each point a list of (key, value).
func GridPoints(axes []GridAxis) ([][][2]string, error) {
	points := [][][2]string{nil}
	for _, ax := range axes {
		var next [][][2]string
		for _, p := range points {
			for _, v := range ax.Values {
				next = append(next, append(slices.Clone(p), [2]string{ax.Key, v}))
			}
		}
		points = next
		if len(points) > MaxGridPoints {
			return nil, extract.Errorf(extract.KindInvalid, "the grid makes more than %d versions: try fewer values", MaxGridPoints)
		}
	}
	return points, nil
}

// applySetting sets one grid setting on a config (schema on the schema
// reference).
func applySetting(cfg *extract.Config, schemaRef *string, key, val string) error {
	num := func(dst *int) error {
		n, err := strconv.Atoi(val)
		if err != nil {
			return extract.Errorf(extract.KindInvalid, "grid %s=%s: not a whole number", key, val)
		}
		*dst = n
		return nil
	}
	switch key {
	case "strategy":
		cfg.Strategy = extract.Strategy(val)
	case "provider":
		cfg.Provider = extract.Provider(val)
	case "model":
		cfg.Model = val
	case "chunk_size":
		return num(&cfg.ChunkSize)
	case "overlap":
		return num(&cfg.Overlap)
	case "max_gleaning":
		return num(&cfg.MaxGleaning)
	case "embedder":
		cfg.Embedder = extract.EmbedderName(val)
	case "schema":
		*schemaRef = val
	case "reports":
		cfg.Reports = extract.ReportWriter(val)
	}
	return nil
}

// Experiment makes one version of an extraction per point of a grid over
// base, all over the same documents, each noted with its settings; every
// point is checked before any version is made. The versions are queued:
// Run or Start executes them (their model calls answered from the call
// cache where an earlier run asked the same).
func (rs *Runs) Experiment(ctx context.Context, name string, axes []GridAxis, base extract.Config, docIDs []int) ([]record.Version, error) {
	points, err := GridPoints(axes)
	if err != nil {
		return nil, err
	}
	type planned struct {
		req  RunRequest
		note string
	}
	var plan []planned
	for _, point := range points {
		c, schemaRef := base, ""
		var parts []string
		for _, kv := range point {
			if err := applySetting(&c, &schemaRef, kv[0], kv[1]); err != nil {
				return nil, err
			}
			parts = append(parts, kv[0]+"="+kv[1])
		}
		check := c
		if err := rs.Prepare(ctx, &check, schemaRef); err != nil {
			return nil, fmt.Errorf("experiment %s: %w", strings.Join(parts, " "), err)
		}
		note := "experiment: " + strings.Join(parts, " ")
		plan = append(plan, planned{RunRequest{Extraction: name, Config: c, SchemaRef: schemaRef, DocumentIDs: docIDs, Note: note}, note})
	}
	var made []record.Version
	for _, p := range plan {
		v, _, err := rs.NewRun(ctx, p.req)
		if err != nil {
			return made, fmt.Errorf("%s: %w", p.note, err)
		}
		made = append(made, v)
	}
	return made, nil
}
