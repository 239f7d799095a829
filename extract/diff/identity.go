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
	labels                               map[string]string
}

func newIdentity(opts Options) identity {
	return identity{ignoreType: opts.IgnoreType, undirected: opts.Undirected, ignoreLabels: opts.IgnoreLabels,
		labels: map[string]string{}}
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
	return src + "\x1e" + label + "\x1e" + tgt, src, tgt
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
