package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// isNodeLink reports whether a JSON object is networkx's node-link data
// (node_link_data, also d3's shape) rather than this program's export: it
// has "links", or networkx's "directed", "multigraph" or "graph" beside
// its nodes.
func isNodeLink(body []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return false
	}
	for _, k := range []string{"links", "directed", "multigraph", "graph"} {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}

// readNodeLink reads networkx's node-link JSON: every node's "id" (a
// string or a number) is its key; "name", else "label", else the id
// names it; "type" and "description" fill those fields; the other
// attributes are properties. Edges come from "links" (or "edges"):
// "source" and "target" are node ids; "label", else "type", else
// "relation" labels the edge; "weight" (1 when absent), "keywords" and
// "description" fill those fields; the others are properties. With
// "directed": false every edge is marked undirected
// (extract.DirectedProperty), as GraphML's are.
func readNodeLink(body []byte) (extract.Graph, error) {
	var raw struct {
		Directed *bool            `json:"directed"`
		Nodes    []map[string]any `json:"nodes"`
		Links    []map[string]any `json:"links"`
		Edges    []map[string]any `json:"edges"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a node-link JSON graph: %s", extract.JSONProblem(body, err))
	}
	links := raw.Links
	if links == nil {
		links = raw.Edges
	}
	var g extract.Graph
	for i, m := range raw.Nodes {
		id, ok := idText(m["id"])
		if !ok {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid, "node %d: want an \"id\" (a string or a number)", i+1)
		}
		n := extract.Node{Key: id}
		n.Name = firstText(m, "name", "label")
		if n.Name == "" {
			n.Name = id
		}
		n.Type, _ = m["type"].(string)
		n.Description, _ = m["description"].(string)
		for k, v := range m {
			switch k {
			case "id", "type", "description":
				continue
			case "name":
				if n.Name == v {
					continue
				}
			}
			if n.Properties == nil {
				n.Properties = map[string]any{}
			}
			n.Properties[k] = plain(v)
		}
		g.Nodes = append(g.Nodes, n)
	}
	for i, m := range links {
		src, ok1 := idText(m["source"])
		dst, ok2 := idText(m["target"])
		if !ok1 || !ok2 {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid, "link %d: want a \"source\" and a \"target\" (node ids)", i+1)
		}
		e := extract.Edge{Source: src, Target: dst, Weight: 1}
		label := ""
		for _, k := range []string{"label", "type", "relation"} {
			if s, ok := m[k].(string); ok && s != "" {
				e.Label, label = s, k
				break
			}
		}
		e.Keywords, _ = m["keywords"].(string)
		e.Description, _ = m["description"].(string)
		for k, v := range m {
			switch k {
			case "source", "target", "keywords", "description", label:
				continue
			case "weight":
				w, err := weightOf(v)
				if err != nil {
					return extract.Graph{}, extract.Errorf(extract.KindInvalid, "link %d (%s -> %s): %s", i+1, src, dst, err.Error())
				}
				e.Weight = w
				continue
			}
			if e.Properties == nil {
				e.Properties = map[string]any{}
			}
			e.Properties[k] = plain(v)
		}
		if raw.Directed != nil && !*raw.Directed {
			if e.Properties == nil {
				e.Properties = map[string]any{}
			}
			e.Properties[extract.DirectedProperty] = false
		}
		g.Edges = append(g.Edges, e)
	}
	return clean(g)
}

// idText is a node id as text: a string, or a number as written.
func idText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, x != ""
	case json.Number:
		return x.String(), true
	}
	return "", false
}

// firstText is the first of the keys whose value is a non-empty string.
func firstText(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// weightOf reads an edge weight: a number.
func weightOf(v any) (float64, error) {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil {
			return f, nil
		}
	}
	return 0, fmt.Errorf("weight %v is not a number", v)
}

// plain turns the json.Numbers of a decoded value into float64s, as
// encoding/json decodes numbers elsewhere.
func plain(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case []any:
		for i := range x {
			x[i] = plain(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = plain(x[k])
		}
	}
	return v
}
