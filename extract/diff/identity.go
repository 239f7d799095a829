package diff

import (
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// identity names nodes and edges by the matching rules of Options (see the
// package comment): two items match exactly when their identities are
// equal. Compare and NewUnion both name items with it. An identity caches
// normalised labels and is not safe for concurrent use.
type identity struct {
	ignoreType, undirected, ignoreLabels bool
	// renames matches a renamed node that kept its key (see adoptRenames);
	// off when one side is a reference, whose scoring matches by name.
	renames bool
	labels  map[string]string
	// pairs holds the identities, ends ordered, of the edges marked
	// undirected (see markUndirected); edges with one of them match
	// either way round.
	pairs map[string]bool
}

func newIdentity(opts Options) identity {
	return identity{ignoreType: opts.IgnoreType, undirected: opts.Undirected, ignoreLabels: opts.IgnoreLabels,
		renames: opts.Reference == RefNone, labels: map[string]string{}}
}

// adoptRenames gives a node of b the identity of the node of a with the
// same key when the two differ by name only or by type only, and neither
// identity is found on the other side: a rename or a retype that kept the
// key, as an edit makes, is then one changed node (and its edges stay
// matched) rather than a node removed and another added. A node renamed
// and retyped at once stays two. Nodes of separate runs have keys made
// from their names, so a rename pairs curated versions only, while a name
// that two runs type differently pairs as one node whose type changed.
// idb is changed in place.
func adoptRenames(a, b *extract.Graph, ida, idb []string, ident identity) {
	if !ident.renames {
		return
	}
	atA := make(map[string]int, len(a.Nodes))
	for i := range a.Nodes {
		if _, ok := atA[a.Nodes[i].Key]; !ok {
			atA[a.Nodes[i].Key] = i
		}
	}
	// Most pairs of versions have no candidate: the sets of identities
	// are built only when one is found.
	var cand []int
	for j := range b.Nodes {
		if i, ok := atA[b.Nodes[j].Key]; ok && ida[i] != idb[j] {
			cand = append(cand, j)
		}
	}
	if len(cand) == 0 {
		return
	}
	inA := make(map[string]bool, len(ida))
	for _, id := range ida {
		inA[id] = true
	}
	inB := make(map[string]bool, len(idb))
	for _, id := range idb {
		inB[id] = true
	}
	// Nodes of b repeating a key with the same identity follow the first.
	var adopted map[string]string
	for _, j := range cand {
		i := atA[b.Nodes[j].Key]
		was := b.Nodes[j].Key + "\x00" + idb[j]
		if id, ok := adopted[was]; ok {
			idb[j] = id
			continue
		}
		if inA[idb[j]] || inB[ida[i]] {
			continue
		}
		if !ident.ignoreType && !strings.EqualFold(a.Nodes[i].Type, b.Nodes[j].Type) &&
			!sameName(&a.Nodes[i], &b.Nodes[j]) {
			continue // renamed and retyped
		}
		if adopted == nil {
			adopted = map[string]string{}
		}
		adopted[was] = ida[i]
		idb[j] = ida[i]
		inB[ida[i]] = true
	}
}

// sameName reports whether two nodes have the same normalised name (their
// keys standing in for a missing name), as node identities compare them.
func sameName(a, b *extract.Node) bool {
	na, nb := a.Name, b.Name
	if extract.NormalizeName(na) == "" {
		na = a.Key
	}
	if extract.NormalizeName(nb) == "" {
		nb = b.Key
	}
	return extract.NormalizeName(na) == extract.NormalizeName(nb)
}

// node is the identity of a node: its normalised name (its key when it has
// no name) and, unless types are ignored, its case-folded type.
func (id identity) node(n *extract.Node) string {
	name := extract.NormalizeName(n.Name)
	if name == "" {
		name = extract.NormalizeName(n.Key)
	}
	if id.ignoreType {
		return name
	}
	return name + "\x1f" + strings.ToLower(n.Type)
}

// endpoint is the identity of the node that key names in a graph whose
// node keys map to identities in keys. A key that names no node counts as
// a name with an empty type.
func (id identity) endpoint(keys map[string]string, key string) string {
	if n, ok := keys[key]; ok {
		return n
	}
	n := extract.NormalizeName(key)
	if !id.ignoreType {
		n += "\x1f"
	}
	return n
}

// edge returns the identity of an edge of the graph whose node keys map to
// identities in keys, and the identities of its two endpoints, ordered when
// direction is ignored.
func (id identity) edge(keys map[string]string, source, label, target string) (edge, src, tgt string) {
	src, tgt = id.endpoint(keys, source), id.endpoint(keys, target)
	if id.undirected && tgt < src {
		src, tgt = tgt, src
	}
	if id.ignoreLabels {
		label = ""
	} else {
		label = id.label(label)
	}
	if len(id.pairs) > 0 && tgt < src && id.pairs[tgt+"\x1e"+label+"\x1e"+src] {
		src, tgt = tgt, src
	}
	return src + "\x1e" + label + "\x1e" + tgt, src, tgt
}

// markUndirected records the edges of g marked undirected (see
// extract.Edge.Undirected), whose node keys map to identities in keys, so
// that edge names them and every edge with their ends and label with its
// ends ordered, as Compare matches them. Off when every edge is
// undirected anyway.
func (id *identity) markUndirected(g *extract.Graph, keys map[string]string) {
	if id.undirected {
		return
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		if !e.Undirected() {
			continue
		}
		src, tgt, label := id.endpoint(keys, e.Source), id.endpoint(keys, e.Target), ""
		if !id.ignoreLabels {
			label = id.label(e.Label)
		}
		if tgt < src {
			src, tgt = tgt, src
		}
		if id.pairs == nil {
			id.pairs = map[string]bool{}
		}
		id.pairs[src+"\x1e"+label+"\x1e"+tgt] = true
	}
}

// label normalises an edge label, memoised: labels repeat a lot.
func (id identity) label(s string) string {
	if v, ok := id.labels[s]; ok {
		return v
	}
	v := extract.NormalizeName(s)
	id.labels[s] = v
	return v
}
