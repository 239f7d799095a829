package curate

import (
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// MergeOptions tune Merge.
type MergeOptions struct {
	// MaxFragments bounds the description fragments of a merged node or
	// edge (see extract.MergeNode).
	MaxFragments int
	// Undirected says the graph's edges are undirected, stored with
	// Source <= Target (the tuple strategy's graphs).
	Undirected bool
}

// Resolve finds the node a reference names: its key, else the key its
// name normalises to, else the one node of that name. An unknown or
// ambiguous reference is invalid.
func Resolve(g extract.Graph, ref string) (extract.Node, error) {
	for _, k := range []string{ref, extract.NodeKey(ref)} {
		for _, n := range g.Nodes {
			if n.Key == k {
				return n, nil
			}
		}
	}
	want := extract.NormalizeName(ref)
	var found []extract.Node
	for _, n := range g.Nodes {
		if extract.NormalizeName(n.Name) == want {
			found = append(found, n)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return extract.Node{}, extract.Errorf(extract.KindInvalid, "no node named %q", ref)
	default:
		keys := make([]string, len(found))
		for i, n := range found {
			keys[i] = n.Key
		}
		return extract.Node{}, extract.Errorf(extract.KindInvalid, "%q names %d nodes (keys %s): give a key", ref, len(found), strings.Join(keys, ", "))
	}
}

// Merge returns a copy of g in which the drop nodes are folded into keep:
// the drop nodes are gone; their edges point at keep instead (parallel
// edges fold, weights added; self-loops are dropped); their names and
// aliases become aliases of keep (Properties["aliases"]); their
// descriptions, mentions and other properties merge into keep's (see
// extract.MergeNode), while keep keeps its key, name and type. In an
// undirected graph (edges stored with Source <= Target) moved edges are
// turned to keep that order. g is not changed. Keys that are missing, or a
// keep that is also dropped, are invalid.
func Merge(g extract.Graph, keep string, drop []string, opts MergeOptions) (extract.Graph, error) {
	maxFragments := opts.MaxFragments
	if len(drop) == 0 {
		return extract.Graph{}, extract.Errorf(extract.KindInvalid, "name at least one node to merge into %q", keep)
	}
	at := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		at[n.Key] = i
	}
	ki, ok := at[keep]
	if !ok {
		return extract.Graph{}, extract.Errorf(extract.KindInvalid, "no node with key %q", keep)
	}
	dropped := map[string]bool{}
	for _, d := range drop {
		if _, ok := at[d]; !ok {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid, "no node with key %q", d)
		}
		if d == keep {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid, "%q cannot be merged into itself", d)
		}
		dropped[d] = true
	}
	k := cloneNode(g.Nodes[ki])
	name, typ := k.Name, k.Type
	aliases := Aliases(k)
	for _, d := range drop {
		n := g.Nodes[at[d]]
		aliases = append(aliases, n.Name)
		aliases = append(aliases, Aliases(n)...)
		n.Properties = without(n.Properties, PropAliases)
		extract.MergeNode(&k, n, maxFragments)
	}
	k.Name, k.Type = name, typ
	setAliases(&k, aliases)

	out := extract.Graph{Nodes: make([]extract.Node, 0, len(g.Nodes)-len(dropped))}
	for i, n := range g.Nodes {
		switch {
		case i == ki:
			out.Nodes = append(out.Nodes, k)
		case !dropped[n.Key]:
			out.Nodes = append(out.Nodes, cloneNode(n))
		}
	}
	rename := make(map[string]string, len(dropped))
	for d := range dropped {
		rename[d] = keep
	}
	out.Edges = moveEdges(g.Edges, rename, opts)
	return out, nil
}

// moveEdges returns copies of the edges with the ends that rename maps
// renamed: self-loops at a renamed-to node are dropped, parallel edges
// fold (weights added, see extract.MergeEdge), and in an undirected graph
// the ends are put back in Source <= Target order.
func moveEdges(edges []extract.Edge, rename map[string]string, opts MergeOptions) []extract.Edge {
	to := make(map[string]bool, len(rename))
	for _, k := range rename {
		to[k] = true
	}
	var out []extract.Edge
	edgeAt := map[string]int{}
	for _, e := range edges {
		e = cloneEdge(e)
		if k, ok := rename[e.Source]; ok {
			e.Source = k
		}
		if k, ok := rename[e.Target]; ok {
			e.Target = k
		}
		if e.Source == e.Target && to[e.Source] {
			continue
		}
		if opts.Undirected && e.Source > e.Target {
			e.Source, e.Target = e.Target, e.Source
		}
		if i, ok := edgeAt[e.Key()]; ok {
			extract.MergeEdge(&out[i], e, opts.MaxFragments)
			continue
		}
		edgeAt[e.Key()] = len(out)
		out = append(out, e)
	}
	return out
}

// setAliases stores a node's aliases once each, in first-seen order,
// leaving out its own name.
func setAliases(n *extract.Node, aliases []string) {
	own := extract.NormalizeName(n.Name)
	seen := map[string]bool{own: true}
	var list []string
	for _, a := range aliases {
		k := extract.NormalizeName(a)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		list = append(list, a)
	}
	if len(list) == 0 {
		return
	}
	if n.Properties == nil {
		n.Properties = map[string]any{}
	}
	n.Properties[PropAliases] = list
}

func without(p map[string]any, key string) map[string]any {
	if _, ok := p[key]; !ok {
		return p
	}
	out := make(map[string]any, len(p))
	for k, v := range p {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func cloneNode(n extract.Node) extract.Node {
	n.Mentions = append([]extract.Mention(nil), n.Mentions...)
	n.Properties = cloneProps(n.Properties)
	return n
}

func cloneEdge(e extract.Edge) extract.Edge {
	e.Mentions = append([]extract.Mention(nil), e.Mentions...)
	e.Properties = cloneProps(e.Properties)
	return e
}

func cloneProps(p map[string]any) map[string]any {
	if p == nil {
		return nil
	}
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}
