package export

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// Property value kinds, named as GraphML's attr.type and neo4j-admin's
// header types name them.
const (
	kindString  = "string"
	kindLong    = "long"
	kindDouble  = "double"
	kindBoolean = "boolean"
)

// maxExactInt is the largest integer every float64 up to it holds exactly:
// integral floats (JSON numbers decode to float64) within it are integers.
const maxExactInt = 1 << 53

// Property names taken by the fields of nodes and edges in every format; a
// property with one of these names is written as ReservedPrefix + name.
var (
	nodeFields = map[string]bool{"key": true, "id": true, "name": true, "type": true, "description": true}
	edgeFields = map[string]bool{"label": true, "keywords": true, "description": true, "weight": true}
)

// ReservedPrefix is put before a property name that a node or edge field
// already uses ("name" -> "prop_name").
const ReservedPrefix = "prop_"

// MaxPropertyDepth bounds how deep lists and maps may nest in one
// property value of an imported graph ([[1]] nests two levels). Real
// properties nest a few levels; a value nested thousands deep fits in a
// few kilobytes yet costs every reader of it (indented JSON, the compare
// page) time and memory that grow with its depth, so an import refuses it.
const MaxPropertyDepth = 32

// nestsDeeper reports whether the lists and maps of v nest more than
// limit levels deep; it looks no deeper than limit+1 levels.
func nestsDeeper(v any, limit int) bool {
	switch x := v.(type) {
	case []any:
		if limit == 0 {
			return true
		}
		for _, e := range x {
			if nestsDeeper(e, limit-1) {
				return true
			}
		}
	case map[string]any:
		if limit == 0 {
			return true
		}
		for _, e := range x {
			if nestsDeeper(e, limit-1) {
				return true
			}
		}
	}
	return false
}

// DeepProperty names the first property of props (in name order) that
// nests deeper than MaxPropertyDepth.
func DeepProperty(props map[string]any) (string, bool) {
	var deep []string
	for k, v := range props {
		if nestsDeeper(v, MaxPropertyDepth) {
			deep = append(deep, k)
		}
	}
	if len(deep) == 0 {
		return "", false
	}
	sort.Strings(deep)
	return deep[0], true
}

// propCol is one property name of a graph's nodes or edges: Name in the
// property maps, Out as written, Kind the kind all its values fit.
type propCol struct {
	Name, Out, Kind string
}

// propColumns lists the property names of the maps, sorted, each with the
// narrowest kind all its values fit: boolean, long (integers, and floats
// with integral values), double (numbers), else string (mixed kinds,
// lists and maps as JSON). Names whose values are all null are left out.
func propColumns(maps func(yield func(map[string]any)), reserved map[string]bool) []propCol {
	kinds := map[string]string{}
	maps(func(m map[string]any) {
		for k, v := range m {
			if k == "" {
				continue
			}
			kinds[k] = mergeKind(kinds[k], kindOf(v))
		}
	})
	out := make([]propCol, 0, len(kinds))
	for k, kind := range kinds {
		if kind == "" {
			continue
		}
		name := k
		if reserved[k] {
			name = ReservedPrefix + k
			if _, clash := kinds[name]; clash {
				continue
			}
		}
		out = append(out, propCol{Name: k, Out: name, Kind: kind})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Out < out[j].Out })
	return out
}

func nodeProps(g extract.Graph) []propCol {
	return propColumns(func(yield func(map[string]any)) {
		for i := range g.Nodes {
			yield(g.Nodes[i].Properties)
		}
	}, nodeFields)
}

func edgeProps(g extract.Graph) []propCol {
	return propColumns(func(yield func(map[string]any)) {
		for i := range g.Edges {
			yield(g.Edges[i].Properties)
		}
	}, edgeFields)
}

// kindOf is the kind of one value; "" for null and non-finite numbers,
// which are written as absent.
func kindOf(v any) string {
	switch x := normalize(v).(type) {
	case nil:
		return ""
	case bool:
		return kindBoolean
	case int64:
		return kindLong
	case float64:
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			return ""
		case isIntegral(x):
			return kindLong
		}
		return kindDouble
	}
	return kindString
}

func mergeKind(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || a == b:
		return a
	case (a == kindLong && b == kindDouble) || (a == kindDouble && b == kindLong):
		return kindDouble
	}
	return kindString
}

func isIntegral(f float64) bool {
	return f == math.Trunc(f) && math.Abs(f) <= maxExactInt
}

// normalize maps a property value onto the JSON kinds: nil, bool, string,
// int64 (Go integers), float64, []any and map[string]any. Other types go
// through JSON; a value JSON cannot write becomes nil.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int64, float64, []any, map[string]any:
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case float32:
		return float64(x)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil
	}
	return out
}

// formatProp writes v as text for a column of kind; ok is false for a
// value written as absent (null, non-finite numbers, values JSON cannot
// write).
func formatProp(v any, kind string) (string, bool) {
	switch x := normalize(v).(type) {
	case nil:
		return "", false
	case bool:
		return strconv.FormatBool(x), true
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		if kind != kindDouble && isIntegral(x) {
			return strconv.FormatInt(int64(x), 10), true
		}
		return strconv.FormatFloat(x, 'g', -1, 64), true
	default:
		return jsonText(x)
	}
}

// jsonText writes a list or map as compact JSON.
func jsonText(v any) (string, bool) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}
