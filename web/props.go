package web

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// AlsoSeenAs reads a type_counts property (a map of type to count, in its
// Go or JSON form) and lists the types other than typ, most seen first:
// "Location ×5, Organization ×1". It is empty when there are none.
func AlsoSeenAs(typ string, v any) string {
	counts := map[string]int{}
	switch m := v.(type) {
	case map[string]int:
		maps.Copy(counts, m)
	case map[string]any:
		for t, n := range m {
			switch x := n.(type) {
			case float64:
				counts[t] = int(x)
			case int:
				counts[t] = x
			}
		}
	}
	var others []string
	for t, n := range counts {
		if t != typ && t != "" && n > 0 {
			others = append(others, t)
		}
	}
	slices.SortFunc(others, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(others))
	for i, t := range others {
		parts[i] = t + " ×" + strconv.Itoa(counts[t])
	}
	return strings.Join(parts, ", ")
}

// PropString formats a property value for display: lists item by item
// (records one per line), records as "key: value" pairs without the empty
// ones, other values as JSON.
func PropString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		sep := ", "
		for i, e := range x {
			if _, rec := e.(map[string]any); rec {
				sep = "\n"
			}
			parts[i] = PropString(e)
		}
		return strings.Join(parts, sep)
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		var parts []string
		for _, k := range keys {
			if s := PropString(x[k]); s != "" && s != "null" {
				parts = append(parts, k+": "+s)
			}
		}
		return strings.Join(parts, "; ")
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}
