package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// deriveRules runs the `rule: [[...]]` blocks of the schema a version pins
// over its whole graph and adds the relations they derive (see
// schema.DeriveRules for the forms run). The final job runs it once every
// track (text, CSV tables, dialogues), the reference injection and the
// merge decisions have written the graph, so a rule joins edges of every
// source, and a run of CSV tables alone derives relations too; the rule is
// part of the schema, so it runs whatever the strategy. Each rule runs
// within schema's default Budget; a rule over it, or of a form not run, is
// logged and named in the version's note with the reason. The end of ctx
// (a cancel, a shutdown) stops it. Derived edges carry
// Properties["rule"]. Running it again adds nothing.
func (pl *pipeline) deriveRules(ctx context.Context, v record.Version) error {
	if v.Config.SchemaName == "" {
		return nil
	}
	sc, _, err := pl.store.SchemaVersion(ctx, v.Config.SchemaName, v.Config.SchemaVersion)
	if err != nil {
		return err
	}
	if !sc.HasRules() {
		return nil
	}
	g, err := pl.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		return err
	}
	d, err := schema.DeriveRules(ctx, sc, g, schema.Budget{})
	if err != nil {
		return fmt.Errorf("schema rules: %w", err)
	}
	var notes []string
	for _, set := range []struct {
		problems  []schema.Problem
		log, note string
	}{
		{d.Skipped, "schema rule not run", "schema rules not run: "},
		{d.Idle, "schema rule derived nothing", "schema rules that derived nothing: "},
	} {
		if len(set.problems) == 0 {
			continue
		}
		why := make([]string, len(set.problems))
		for i, p := range set.problems {
			pl.log.Info(set.log, "version_id", v.ID, "field", p.Field, "reason", p.Message)
			why[i] = p.Message
		}
		notes = append(notes, set.note+strings.Join(why, "; "))
	}
	if n := len(d.Graph.Edges); n > 0 {
		pl.log.Info("schema rules derived relations", "version_id", v.ID, "edges", n, "concept_nodes", len(d.Graph.Nodes))
		if err := pl.store.WriteGraph(ctx, v.ID, d.Graph); err != nil {
			return err
		}
		notes = append(notes, fmt.Sprintf("schema rules derived %d relation%s", n, plural(n)))
	}
	return pl.noteOnce(ctx, v.ID, notes...)
}

// noteOnce appends each line to a version's note unless the note holds it
// already (a final job that runs again notes nothing twice).
func (pl *pipeline) noteOnce(ctx context.Context, id int, lines ...string) error {
	if len(lines) == 0 {
		return nil
	}
	cur, err := pl.store.Version(ctx, id)
	if err != nil {
		return err
	}
	have := strings.Split(cur.Note, "\n")
	for _, line := range lines {
		if !slices.Contains(have, line) {
			if err := pl.store.AppendNote(ctx, id, line); err != nil {
				return err
			}
		}
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
