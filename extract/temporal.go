package extract

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// Property names of a fact's times. A fact (a node's value or an edge) is
// valid from PropValidAt until PropInvalidAt (event time: when it was
// true in the world the text describes) and was recorded at
// PropRecordedAt and ended in the record at PropExpiredAt (when the run
// wrote it and when it wrote what replaced it). PropExpired marks an edge
// a later fact retired; PropHistory lists a node's earlier values, each a
// map with the same time keys and "since"/"until" turns.
const (
	PropValidAt    = "valid_at"
	PropInvalidAt  = "invalid_at"
	PropRecordedAt = "recorded_at"
	PropExpiredAt  = "expired_at"
	PropExpired    = "expired"
	PropHistory    = "history"
	// PropUpdatedTurn is the turn that said a memory node's current value.
	PropUpdatedTurn = "updated_turn"
	// PropAttributes holds a memory node's other attributes (a map), in
	// its properties and in each history entry.
	PropAttributes = "attributes"
)

// ParseFactTime reads a fact time or an as-of date: RFC 3339, or a date
// (YYYY-MM-DD, read as the end of that day in UTC when end is set, its
// start otherwise). A date-only as-of thus includes what happened that day.
func ParseFactTime(s string, end bool) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		if end {
			t = t.Add(24*time.Hour - time.Nanosecond)
		}
		return t, true
	}
	return time.Time{}, false
}

// Expired reports whether a fact's properties say a later fact retired it.
func Expired(props map[string]any) bool {
	if b, _ := props[PropExpired].(bool); b {
		return true
	}
	s, _ := props[PropInvalidAt].(string)
	return s != ""
}

// Current returns g without its expired edges and nodes (and the edges
// of an expired node): the facts that hold now. A graph in which nothing
// expired is returned as it is, with no copy.
func Current(g Graph) Graph {
	if !slices.ContainsFunc(g.Nodes, func(n Node) bool { return Expired(n.Properties) }) &&
		!slices.ContainsFunc(g.Edges, func(e Edge) bool { return Expired(e.Properties) }) {
		return g // nothing retired: no copy of a 100k-node graph per question
	}
	out := Graph{Nodes: make([]Node, 0, len(g.Nodes)), Edges: make([]Edge, 0, len(g.Edges))}
	keep := make(map[string]bool, len(g.Nodes))
	for _, n := range g.Nodes {
		if Expired(n.Properties) {
			continue
		}
		keep[n.Key] = true
		out.Nodes = append(out.Nodes, n)
	}
	for _, e := range g.Edges {
		if keep[e.Source] && keep[e.Target] && !Expired(e.Properties) {
			out.Edges = append(out.Edges, e)
		}
	}
	return out
}

// AsOf returns g as it stood at t: nodes and edges not yet valid are
// left out, so are edges already invalid, and a node whose value changed
// later shows the value it held at t (from its history), with only the
// earlier history kept. Facts without a valid time (structure nodes,
// graphs that keep no times) are kept as they are.
func AsOf(g Graph, t time.Time) Graph {
	out := Graph{Nodes: make([]Node, 0, len(g.Nodes)), Edges: make([]Edge, 0, len(g.Edges))}
	keep := make(map[string]bool, len(g.Nodes))
	for _, n := range g.Nodes {
		n, ok := nodeAsOf(n, t)
		if !ok {
			continue
		}
		keep[n.Key] = true
		out.Nodes = append(out.Nodes, n)
	}
	for _, e := range g.Edges {
		if !keep[e.Source] || !keep[e.Target] {
			continue
		}
		from, to, ok := span(e.Properties)
		if ok {
			if (!from.IsZero() && from.After(t)) || (!to.IsZero() && !to.After(t)) {
				continue
			}
			if !to.IsZero() {
				// Retired only after t: it held at t.
				e.Properties = without(e.Properties, endMarks...)
			}
		}
		out.Edges = append(out.Edges, e)
	}
	return out
}

// endMarks are the properties that say a fact ended, and when and why.
var endMarks = []string{PropExpired, PropInvalidAt, PropExpiredAt, "until_turn", "reason"}

// span reads a fact's valid and invalid times; ok is false when neither
// is readable (the fact keeps no times). A zero end means still valid.
func span(props map[string]any) (from, to time.Time, ok bool) {
	vs, _ := props[PropValidAt].(string)
	is, _ := props[PropInvalidAt].(string)
	if vs != "" {
		if from, ok = ParseFactTime(vs, false); !ok {
			return time.Time{}, time.Time{}, false
		}
	}
	if is != "" {
		if to, ok = ParseFactTime(is, false); !ok {
			return time.Time{}, time.Time{}, false
		}
	}
	return from, to, vs != "" || is != ""
}

// nodeAsOf is one node as it stood at t; false when it did not exist yet.
func nodeAsOf(n Node, t time.Time) (Node, bool) {
	from, to, ok := span(n.Properties)
	switch {
	case !ok:
		return n, true
	case !to.IsZero() && !to.After(t):
		return n, false // ended before t
	case !from.After(t):
		if !to.IsZero() {
			// Ended only after t: it held at t.
			n.Properties = without(n.Properties, endMarks...)
		}
		return n, true
	}
	// Not yet valid in its current value: the revision that held at t.
	hist, _ := n.Properties[PropHistory].([]any)
	for i := len(hist) - 1; i >= 0; i-- {
		r, _ := hist[i].(map[string]any)
		rf, rt, ok := span(r)
		if !ok || rf.After(t) || (!rt.IsZero() && !rt.After(t)) {
			continue
		}
		props := without(n.Properties, PropHistory)
		for _, k := range []string{PropValidAt, PropRecordedAt, "timestamp", PropAttributes} {
			if v, ok := r[k]; ok {
				props[k] = v
			} else {
				delete(props, k)
			}
		}
		if i > 0 {
			props[PropHistory] = hist[:i]
		}
		if since, ok := r["since"]; ok {
			props[PropUpdatedTurn] = since
		}
		if l, _ := r["label"].(string); l != "" {
			n.Name = l
		}
		d, _ := r["description"].(string)
		n.Description, n.Properties = d, props
		return n, true
	}
	return n, false
}

// without copies props leaving out keys.
func without(props map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(props))
	for k, v := range props {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// ExpiredBy returns the edges of g that held before t and that a later
// fact had retired by t: what AsOf leaves out as no longer true then.
// Their times are kept, so a view can say when and why they ended.
func ExpiredBy(g Graph, t time.Time) []Edge {
	var out []Edge
	for _, e := range g.Edges {
		from, to, ok := span(e.Properties)
		if ok && !to.IsZero() && !to.After(t) && !from.After(t) {
			out = append(out, e)
		}
	}
	return out
}

// FactDays lists the days (YYYY-MM-DD, in UTC) on which a fact of g
// became or stopped being true, earliest first: the valid and invalid
// times of its nodes, of their earlier values and of its edges. A graph
// that keeps no times has none.
func FactDays(g Graph) []string {
	seen := map[string]bool{}
	add := func(props map[string]any) {
		for _, k := range []string{PropValidAt, PropInvalidAt} {
			if s, _ := props[k].(string); s != "" {
				if t, ok := ParseFactTime(s, false); ok {
					seen[t.UTC().Format(time.DateOnly)] = true
				}
			}
		}
	}
	for _, n := range g.Nodes {
		add(n.Properties)
		hist, _ := n.Properties[PropHistory].([]any)
		for _, r := range hist {
			if r, ok := r.(map[string]any); ok {
				add(r)
			}
		}
	}
	for _, e := range g.Edges {
		add(e.Properties)
	}
	return slices.Sorted(maps.Keys(seen))
}
