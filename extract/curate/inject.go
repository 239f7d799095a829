package curate

import (
	"slices"

	"github.com/kgstudio/kgstudio/extract"
)

// Inject returns a copy of g in which the nodes whose names match a node
// of ref (a domain graph: its name or one of its aliases, compared as
// extract.NormalizeName does) become that node: they take its key, name,
// type and properties (theirs are kept where ref's node has none), keep
// their own description (ref's when they have none) and mentions, and
// their own names become aliases. Several nodes matching one ref node fold
// into it (see Merge); their edges follow. A name that two ref nodes share
// matches neither. injected counts the nodes of g that matched. g and ref
// are not changed.
func Inject(g, ref extract.Graph, opts MergeOptions) (out extract.Graph, injected int, err error) {
	const ambiguous = -1
	index := map[string]int{}
	add := func(name string, i int) {
		k := extract.NormalizeName(name)
		if k == "" {
			return
		}
		if j, ok := index[k]; ok && j != i {
			index[k] = ambiguous
			return
		}
		index[k] = i
	}
	for i, n := range ref.Nodes {
		add(n.Name, i)
		for _, a := range Aliases(n) {
			add(a, i)
		}
	}
	// The nodes of g per ref node, in g's order.
	groups := map[int][]string{}
	var order []int
	for _, n := range g.Nodes {
		i, ok := index[extract.NormalizeName(n.Name)]
		if !ok || i == ambiguous {
			continue
		}
		if len(groups[i]) == 0 {
			order = append(order, i)
		}
		groups[i] = append(groups[i], n.Key)
		injected++
	}
	out = g
	if injected == 0 {
		return out, 0, nil
	}
	for _, i := range order {
		r := ref.Nodes[i]
		keys := groups[i]
		// A node of g already holding the ref key (under another name)
		// folds in too, so the key stays unique.
		for _, n := range out.Nodes {
			if n.Key == r.Key && n.Key != keys[0] && !slices.Contains(keys, n.Key) {
				keys = append(keys, n.Key)
			}
		}
		if len(keys) > 1 {
			if out, err = Merge(out, keys[0], keys[1:], opts); err != nil {
				return extract.Graph{}, 0, err
			}
		}
		out = adopt(out, keys[0], r, opts)
	}
	return out, injected, nil
}

// adopt turns the node keyed key into ref node r (see Inject) and moves
// its edges to r's key.
func adopt(g extract.Graph, key string, r extract.Node, opts MergeOptions) extract.Graph {
	out := extract.Graph{Nodes: make([]extract.Node, len(g.Nodes))}
	for i, n := range g.Nodes {
		n = cloneNode(n)
		if n.Key == key {
			aliases := append(Aliases(r), n.Name)
			aliases = append(aliases, Aliases(n)...)
			props := cloneProps(n.Properties)
			if props == nil {
				props = map[string]any{}
			}
			for k, v := range r.Properties {
				props[k] = v
			}
			n.Key, n.Name, n.Type, n.Properties = r.Key, r.Name, r.Type, props
			if n.Description == "" {
				n.Description = r.Description
			}
			delete(n.Properties, PropAliases)
			setAliases(&n, aliases)
			if len(n.Properties) == 0 {
				n.Properties = nil
			}
		}
		out.Nodes[i] = n
	}
	out.Edges = moveEdges(g.Edges, map[string]string{key: r.Key}, opts)
	return out
}
