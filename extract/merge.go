package extract

import (
	"sort"
	"strings"
)

// Property keys maintained by the merge functions.
const (
	// PropFragmentsDropped counts description fragments that did not fit in
	// the bounded description (an int).
	PropFragmentsDropped = "fragments_dropped"
	// PropTypeCounts counts how often each type was seen for a node
	// (map[string]int, or map[string]any after a JSON round trip).
	PropTypeCounts = "type_counts"
	// PropAliases holds the other names of a node (a list of strings):
	// the surface names the schema strategy's standardisation replaced by
	// an official name, and the names of merged nodes. Merging nodes
	// keeps the aliases of both.
	PropAliases = "aliases"
)

// MergeNode merges src into dst, which describe the same entity.
//
//   - Key and Name: dst keeps its own; when empty it takes src's.
//   - Type: the most frequent type wins; counts are kept in
//     Properties["type_counts"]. On a tie the type seen first stays.
//   - Description: fragments are the "\n"-separated lines; src's new
//     fragments (exact duplicates skipped) are appended while fewer than
//     maxFragments are held. A fragment that repeats text of one held
//     (overlapping chunks cut one sentence in two places) joins it: one
//     held inside the other keeps the longer, and where one ends as the
//     other begins they become one fragment. The rest are counted in
//     Properties["fragments_dropped"]. maxFragments <= 0 means
//     DefaultConfig().MaxFragments.
//   - Mentions: appended, identical mentions skipped.
//   - Other properties: dst's values win, src adds missing keys.
//
// MergeNode is deterministic, and merging the same src twice changes nothing
// but the type counts (see MergeGraph for an idempotent whole-chunk merge).
func MergeNode(dst *Node, src Node, maxFragments int) {
	if dst.Key == "" {
		dst.Key = src.Key
	}
	if dst.Name == "" {
		dst.Name = src.Name
	}
	mergeType(dst, src)
	dst.Description = mergeFragments(dst.Description, src.Description, maxFragments, &dst.Properties)
	dst.Mentions = mergeMentions(dst.Mentions, src.Mentions)
	dst.Properties = mergeProps(dst.Properties, src.Properties)
}

// mergeType updates dst's type counts with src's type (or src's own counts)
// and picks the most frequent type.
func mergeType(dst *Node, src Node) {
	if src.Type == "" {
		return
	}
	if dst.Type == "" {
		dst.Type = src.Type
		if c := typeCounts(src.Properties); len(c) > 0 {
			setProp(&dst.Properties, PropTypeCounts, c)
		}
		return
	}
	counts := typeCounts(dst.Properties)
	if len(counts) == 0 {
		counts = map[string]int{dst.Type: 1}
	}
	if sc := typeCounts(src.Properties); len(sc) > 0 {
		for t, n := range sc {
			counts[t] += n
		}
	} else {
		counts[src.Type]++
	}
	best := dst.Type
	for _, t := range sortedKeys(counts) {
		if counts[t] > counts[best] {
			best = t
		}
	}
	dst.Type = best
	setProp(&dst.Properties, PropTypeCounts, counts)
}

// typeCounts reads Properties["type_counts"] in either its Go or its JSON
// decoded form.
func typeCounts(p map[string]any) map[string]int {
	out := map[string]int{}
	switch v := p[PropTypeCounts].(type) {
	case map[string]int:
		for k, n := range v {
			out[k] = n
		}
	case map[string]any:
		for k, n := range v {
			if f, ok := n.(float64); ok {
				out[k] = int(f)
			} else if i, ok := n.(int); ok {
				out[k] = i
			}
		}
	}
	return out
}

// MergeEdge merges src into dst, which have the same (Source, Label,
// Target). Weights add up; keywords (comma-separated) are united in first
// seen order; descriptions, mentions and properties merge as in MergeNode.
func MergeEdge(dst *Edge, src Edge, maxFragments int) {
	if dst.Source == "" {
		dst.Source = src.Source
	}
	if dst.Target == "" {
		dst.Target = src.Target
	}
	if dst.Label == "" {
		dst.Label = src.Label
	}
	dst.Weight += src.Weight
	dst.Keywords = mergeKeywords(dst.Keywords, src.Keywords)
	dst.Description = mergeFragments(dst.Description, src.Description, maxFragments, &dst.Properties)
	dst.Mentions = mergeMentions(dst.Mentions, src.Mentions)
	dst.Properties = mergeProps(dst.Properties, src.Properties)
}

// MergeGraph merges a chunk's graph into an accumulated graph g: nodes by
// Key, edges by EdgeKey, new ones appended in src order. A node or edge of
// src whose mentions are all already present in g (the same chunk merged a
// second time) is skipped entirely, so merging is idempotent for identical
// mentions. Nodes and edges without mentions are always merged.
func MergeGraph(g *Graph, src Graph, maxFragments int) {
	nodeAt := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		nodeAt[n.Key] = i
	}
	for _, n := range src.Nodes {
		if i, ok := nodeAt[n.Key]; ok {
			if len(n.Mentions) > 0 && containsAll(g.Nodes[i].Mentions, n.Mentions) {
				continue
			}
			MergeNode(&g.Nodes[i], n, maxFragments)
			continue
		}
		nodeAt[n.Key] = len(g.Nodes)
		g.Nodes = append(g.Nodes, cloneNode(n))
	}
	edgeAt := make(map[string]int, len(g.Edges))
	for i, e := range g.Edges {
		edgeAt[e.Key()] = i
	}
	for _, e := range src.Edges {
		k := e.Key()
		if i, ok := edgeAt[k]; ok {
			if len(e.Mentions) > 0 && containsAll(g.Edges[i].Mentions, e.Mentions) {
				continue
			}
			MergeEdge(&g.Edges[i], e, maxFragments)
			continue
		}
		edgeAt[k] = len(g.Edges)
		g.Edges = append(g.Edges, cloneEdge(e))
	}
}

// cloneNode copies the slices and maps of n so later merges do not write
// into the caller's values.
func cloneNode(n Node) Node {
	n.Mentions = append([]Mention(nil), n.Mentions...)
	n.Properties = mergeProps(nil, n.Properties)
	return n
}

// cloneEdge is cloneNode for edges.
func cloneEdge(e Edge) Edge {
	e.Mentions = append([]Mention(nil), e.Mentions...)
	e.Properties = mergeProps(nil, e.Properties)
	return e
}

// containsAll reports whether every mention of sub is in set.
func containsAll(set, sub []Mention) bool {
	have := make(map[Mention]bool, len(set))
	for _, m := range set {
		have[m] = true
	}
	for _, m := range sub {
		if !have[m] {
			return false
		}
	}
	return true
}

// mergeFragments appends src's fragments to dst's, skipping duplicates and
// counting what does not fit.
func mergeFragments(dst, src string, maxFragments int, props *map[string]any) string {
	if maxFragments <= 0 {
		maxFragments = DefaultConfig().MaxFragments
	}
	frags := splitFragments(dst)
	seen := make(map[string]bool, len(frags))
	for _, f := range frags {
		seen[f] = true
	}
	dropped := 0
	for _, f := range splitFragments(src) {
		if seen[f] {
			continue
		}
		seen[f] = true
		if joined := joinOverlap(frags, f); joined >= 0 {
			seen[frags[joined]] = true
			continue
		}
		if len(frags) >= maxFragments {
			dropped++
			continue
		}
		frags = append(frags, f)
	}
	if dropped > 0 {
		prev := 0
		switch v := (*props)[PropFragmentsDropped].(type) {
		case int:
			prev = v
		case float64:
			prev = int(v)
		}
		setProp(props, PropFragmentsDropped, prev+dropped)
	}
	return strings.Join(frags, "\n")
}

// minOverlap is the least text two fragments share for joinOverlap to
// take them for pieces of one sentence: a few words, more than a phrase
// such as "said Scrooge." repeats by chance.
const minOverlap = 24

// joinOverlap joins f into the fragment of frags whose text it repeats
// (see MergeNode) and returns that fragment's index, or -1 when f repeats
// none and stays a fragment of its own.
func joinOverlap(frags []string, f string) int {
	if len(f) < minOverlap {
		return -1
	}
	for i, e := range frags {
		switch {
		case len(e) < minOverlap:
			continue
		case strings.Contains(e, f):
			return i
		case strings.Contains(f, e):
			frags[i] = f
			return i
		}
		if k := overlap(e, f); k > 0 {
			frags[i] = e + f[k:]
			return i
		} else if k := overlap(f, e); k > 0 {
			frags[i] = f + e[k:]
			return i
		}
	}
	return -1
}

// overlap is the length of the longest end of a that begins b, at a word
// boundary of a and at least minOverlap long, or 0.
func overlap(a, b string) int {
	head := b[:minOverlap]
	for i := 0; i+minOverlap <= len(a); {
		j := strings.Index(a[i:], head)
		if j < 0 {
			return 0
		}
		i += j
		if (i == 0 || a[i-1] == ' ') && strings.HasPrefix(b, a[i:]) {
			return len(a) - i
		}
		i++
	}
	return 0
}

// splitFragments returns the non-empty trimmed lines of a description.
func splitFragments(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// mergeMentions appends src's mentions that dst does not hold yet.
func mergeMentions(dst, src []Mention) []Mention {
	if len(src) == 0 {
		return dst
	}
	have := make(map[Mention]bool, len(dst))
	for _, m := range dst {
		have[m] = true
	}
	for _, m := range src {
		if !have[m] {
			have[m] = true
			dst = append(dst, m)
		}
	}
	return dst
}

// mergeKeywords unites two comma-separated keyword lists, case-insensitively,
// in first-seen order.
func mergeKeywords(a, b string) string {
	var out []string
	seen := map[string]bool{}
	for _, list := range []string{a, b} {
		for _, k := range strings.Split(list, ",") {
			k = strings.TrimSpace(k)
			lk := strings.ToLower(k)
			if k == "" || seen[lk] {
				continue
			}
			seen[lk] = true
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// mergeProps adds src's keys missing from dst (dst wins); the merge
// bookkeeping keys are left to their own functions.
func mergeProps(dst, src map[string]any) map[string]any {
	// A nil dst is a copy (cloneNode): the bookkeeping keys come along.
	// Deciding by dst while filling it would drop them whenever another
	// key came first in map order.
	clone := dst == nil
	for k, v := range src {
		if (k == PropTypeCounts || k == PropFragmentsDropped) && !clone {
			continue
		}
		if d, ok := dst[k]; ok {
			if k == PropAliases {
				dst[k] = unionNames(d, v)
			}
			continue
		}
		if dst == nil {
			dst = make(map[string]any, len(src))
		}
		dst[k] = v
	}
	return dst
}

// unionNames joins two alias lists ([]string, or []any after a JSON round
// trip), each name once, in first-seen order.
func unionNames(a, b any) any {
	var out []string
	seen := map[string]bool{}
	for _, l := range []any{a, b} {
		var names []string
		switch x := l.(type) {
		case []string:
			names = x
		case []any:
			for _, v := range x {
				if s, ok := v.(string); ok {
					names = append(names, s)
				}
			}
		default:
			return a // not a list: leave dst's value
		}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// setProp sets a property, creating the map when needed.
func setProp(p *map[string]any, k string, v any) {
	if *p == nil {
		*p = map[string]any{}
	}
	(*p)[k] = v
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
