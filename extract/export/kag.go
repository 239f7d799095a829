package export

import (
	"bytes"
	"cmp"
	"encoding/json"

	"github.com/kgstudio/kgstudio/extract"
)

// kagNode and kagEdge are the items of KAG's domain KG files
// (kag/examples/domain_kg: nodes.json and edges.json).
type kagNode struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Label      string         `json:"label"`
	Properties map[string]any `json:"properties"`
}

type kagEdge struct {
	From       string         `json:"from"`
	FromType   string         `json:"fromType"`
	To         string         `json:"to"`
	ToType     string         `json:"toType"`
	Label      string         `json:"label"`
	Properties map[string]any `json:"properties"`
}

// isJSONArray reports whether data holds a JSON array (after a byte-order
// mark and white space).
func isJSONArray(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))), []byte("["))
}

// ReadKAG reads a domain KG as KAG's builder takes it: nodes, a JSON array
// of {id, name, label, properties}, and edges (nil for none), a JSON array
// of {from, fromType, to, toType, label, properties}. A node's key is its
// id, its type its label; an id listed again adds the properties it lacks
// (KAG's example lists some nodes twice). An edge end that no node lists
// becomes a node named by its id, typed by fromType or toType. Edges weigh 1.
func ReadKAG(nodes, edges []byte) (extract.Graph, error) {
	var ns []kagNode
	if err := json.Unmarshal(bytes.TrimPrefix(nodes, []byte("\xef\xbb\xbf")), &ns); err != nil {
		return extract.Graph{}, extract.Wrap(extract.KindInvalid, err, "not a KAG nodes file: want a JSON array of {\"id\", \"name\", \"label\"}")
	}
	var g extract.Graph
	at := map[string]int{}
	add := func(n extract.Node) {
		if i, ok := at[n.Key]; ok {
			g.Nodes[i].Properties = mergePropsMissing(g.Nodes[i].Properties, n.Properties)
			return
		}
		at[n.Key] = len(g.Nodes)
		g.Nodes = append(g.Nodes, n)
	}
	for i, n := range ns {
		if n.ID == "" {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid, "KAG node %d has no id", i+1)
		}
		add(extract.Node{Key: n.ID, Name: cmp.Or(n.Name, n.ID), Type: n.Label, Properties: nonEmpty(n.Properties)})
	}
	if len(edges) > 0 {
		var es []kagEdge
		if err := json.Unmarshal(bytes.TrimPrefix(edges, []byte("\xef\xbb\xbf")), &es); err != nil {
			return extract.Graph{}, extract.Wrap(extract.KindInvalid, err, "not a KAG edges file: want a JSON array of {\"from\", \"to\", \"label\"}")
		}
		for i, e := range es {
			if e.From == "" || e.To == "" {
				return extract.Graph{}, extract.Errorf(extract.KindInvalid, "KAG edge %d lacks from or to", i+1)
			}
			add(extract.Node{Key: e.From, Name: e.From, Type: e.FromType})
			add(extract.Node{Key: e.To, Name: e.To, Type: e.ToType})
			g.Edges = append(g.Edges, extract.Edge{Source: e.From, Target: e.To, Label: e.Label, Weight: 1, Properties: nonEmpty(e.Properties)})
		}
	}
	return clean(g)
}

func nonEmpty(p map[string]any) map[string]any {
	if len(p) == 0 {
		return nil
	}
	return p
}

// mergePropsMissing adds to dst the properties of src it lacks.
func mergePropsMissing(dst, src map[string]any) map[string]any {
	for k, v := range src {
		if _, ok := dst[k]; ok {
			continue
		}
		if dst == nil {
			dst = map[string]any{}
		}
		dst[k] = v
	}
	return dst
}
