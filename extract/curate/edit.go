package curate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/export"
)

// EditOp is an operation of an edit (Edit.Op).
type EditOp string

// Edit operations.
const (
	OpRename     EditOp = "rename"      // Key, Name: the node's new name (its key stays)
	OpRetype     EditOp = "retype"      // Key, Type: the node's new type
	OpDescribe   EditOp = "describe"    // Key, Description: the node's new description ("" clears it)
	OpSetProps   EditOp = "set_props"   // Key, Properties: set each; a null value removes the property
	OpDeleteNode EditOp = "delete_node" // Key: the node and every edge at it
	OpDeleteEdge EditOp = "delete_edge" // Source, Label, Target: the edge
	OpAddEdge    EditOp = "add_edge"    // Source, Label, Target (+ Description, Weight): a new edge
)

// EditOps lists the edit operations, in the order the docs give them.
var EditOps = []EditOp{OpRename, OpRetype, OpDescribe, OpSetProps, OpDeleteNode, OpDeleteEdge, OpAddEdge}

// Edit is one change a user makes to a graph. Which fields count depends on
// Op (see the Op constants); nodes are named by key.
type Edit struct {
	Op          EditOp         `json:"op"`
	Key         string         `json:"key,omitempty"`
	Name        string         `json:"name,omitempty"`
	Type        string         `json:"type,omitempty"`
	Description string         `json:"description,omitempty"`
	Properties  map[string]any `json:"properties,omitempty"`
	Source      string         `json:"source,omitempty"`
	Label       string         `json:"label,omitempty"`
	Target      string         `json:"target,omitempty"`
	Weight      float64        `json:"weight,omitempty"`
}

// String describes the edit in a few words, for notes and logs.
func (e Edit) String() string {
	switch e.Op {
	case OpRename:
		return fmt.Sprintf("rename %s to %q", e.Key, e.Name)
	case OpRetype:
		return fmt.Sprintf("retype %s to %q", e.Key, e.Type)
	case OpDescribe:
		return fmt.Sprintf("describe %s", e.Key)
	case OpSetProps:
		return fmt.Sprintf("set %d properties of %s", len(e.Properties), e.Key)
	case OpDeleteNode:
		return fmt.Sprintf("delete node %s", e.Key)
	case OpDeleteEdge:
		return fmt.Sprintf("delete edge %s -%s-> %s", e.Source, e.Label, e.Target)
	case OpAddEdge:
		return fmt.Sprintf("add edge %s -%s-> %s", e.Source, e.Label, e.Target)
	}
	return string(e.Op)
}

// ApplyEdits returns a copy of g with the edits applied in order, and the
// edits as applied: names, types and labels trimmed, an added edge's ends
// resolved to keys (they may be given by name, see Resolve) and its weight
// filled in. g is not changed. An edit naming a missing node or edge, an
// unknown op, an empty name, type or label or an edge that already exists
// is invalid, and the error says which edit (counted from 1) it was.
func ApplyEdits(g extract.Graph, edits []Edit) (extract.Graph, []Edit, error) {
	if len(edits) == 0 {
		return extract.Graph{}, nil, extract.Errorf(extract.KindInvalid, "no edits: give at least one operation (%s)", strings.Join(extract.Names(EditOps), ", "))
	}
	out := extract.Graph{Nodes: make([]extract.Node, len(g.Nodes)), Edges: make([]extract.Edge, len(g.Edges))}
	for i, n := range g.Nodes {
		out.Nodes[i] = cloneNode(n)
	}
	for i, e := range g.Edges {
		out.Edges[i] = cloneEdge(e)
	}
	applied := make([]Edit, len(edits))
	for i, e := range edits {
		if err := applyEdit(&out, &e); err != nil {
			return extract.Graph{}, nil, extract.Errorf(extract.KindInvalid, "edit %d (%s): %s", i+1, e.Op, extract.MessageOf(err))
		}
		applied[i] = e
	}
	return out, applied, nil
}

// applyEdit applies one edit to g and leaves e as applied (see ApplyEdits).
func applyEdit(g *extract.Graph, e *Edit) error {
	switch e.Op {
	case OpRename, OpRetype, OpDescribe, OpSetProps:
		i, err := findNode(g, e.Key)
		if err != nil {
			return err
		}
		return editNode(g, &g.Nodes[i], e)
	case OpDeleteNode:
		return deleteNode(g, e.Key)
	case OpDeleteEdge:
		i := edgeIndex(g, e.Source, e.Label, e.Target)
		if i < 0 {
			return extract.Errorf(extract.KindInvalid, "no edge %s -%s-> %s", e.Source, e.Label, e.Target)
		}
		g.Edges = append(g.Edges[:i], g.Edges[i+1:]...)
		return nil
	case OpAddEdge:
		return addEdge(g, e)
	}
	return extract.Errorf(extract.KindInvalid, "unknown operation %q (want one of %s)", e.Op, strings.Join(extract.Names(EditOps), ", "))
}

// editNode applies a rename, retype, describe or set_props edit to n, a
// node of g.
func editNode(g *extract.Graph, n *extract.Node, e *Edit) error {
	switch e.Op {
	case OpRename:
		return renameNode(g, n, e)
	case OpRetype:
		if e.Type = strings.TrimSpace(e.Type); e.Type == "" {
			return extract.Errorf(extract.KindInvalid, "a node needs a type")
		}
		n.Type = e.Type
	case OpDescribe:
		e.Description = strings.TrimSpace(e.Description)
		n.Description = e.Description
	case OpSetProps:
		return setProps(n, e.Properties)
	case OpDeleteNode, OpDeleteEdge, OpAddEdge:
		// Not edits of a node's own fields (see applyEdit).
	}
	return nil
}

// renameNode gives n, a node of g, the edit's name, unless another node
// has that name or key.
func renameNode(g *extract.Graph, n *extract.Node, e *Edit) error {
	if e.Name = strings.TrimSpace(e.Name); e.Name == "" {
		return extract.Errorf(extract.KindInvalid, "a node needs a name")
	}
	want := extract.NodeKey(e.Name)
	for _, other := range g.Nodes {
		if other.Key != n.Key && (other.Key == want || extract.NodeKey(other.Name) == want) {
			return extract.Errorf(extract.KindInvalid, "another node (%s) is called %q: merge the two instead", other.Key, other.Name)
		}
	}
	n.Name = e.Name
	return nil
}

// setProps sets each of props on n; a nil value removes the property.
func setProps(n *extract.Node, props map[string]any) error {
	if len(props) == 0 {
		return extract.Errorf(extract.KindInvalid, "give the properties to set (null removes one)")
	}
	// What an import would refuse, an edit does not store.
	if k, deep := export.DeepProperty(props); deep {
		return extract.Errorf(extract.KindInvalid, "property %q nests lists or maps more than %d levels deep: flatten it, or give it as text", k, export.MaxPropertyDepth)
	}
	for k, v := range props {
		if strings.TrimSpace(k) == "" {
			return extract.Errorf(extract.KindInvalid, "a property needs a name")
		}
		if v == nil {
			delete(n.Properties, k)
			continue
		}
		if n.Properties == nil {
			n.Properties = map[string]any{}
		}
		n.Properties[k] = v
	}
	if len(n.Properties) == 0 {
		n.Properties = nil
	}
	return nil
}

// deleteNode removes the node keyed key from g, with every edge at it.
func deleteNode(g *extract.Graph, key string) error {
	if _, err := findNode(g, key); err != nil {
		return err
	}
	nodes := g.Nodes[:0]
	for _, n := range g.Nodes {
		if n.Key != key {
			nodes = append(nodes, n)
		}
	}
	g.Nodes = nodes
	edges := g.Edges[:0]
	for _, x := range g.Edges {
		if x.Source != key && x.Target != key {
			edges = append(edges, x)
		}
	}
	g.Edges = edges
	return nil
}

// addEdge adds the edit's edge to g, its ends resolved to node keys and
// its weight 1 when it has none that counts.
func addEdge(g *extract.Graph, e *Edit) error {
	if e.Label = strings.TrimSpace(e.Label); e.Label == "" {
		return extract.Errorf(extract.KindInvalid, "an edge needs a label")
	}
	for _, end := range []*string{&e.Source, &e.Target} {
		if *end == "" {
			return extract.Errorf(extract.KindInvalid, "an edge needs a source and a target")
		}
		n, err := Resolve(*g, *end)
		if err != nil {
			return err
		}
		*end = n.Key
	}
	if e.Source == e.Target {
		return extract.Errorf(extract.KindInvalid, "an edge from %s to itself: a graph here has no self-loops (a merge drops them too)", e.Source)
	}
	if edgeIndex(g, e.Source, e.Label, e.Target) >= 0 {
		return extract.Errorf(extract.KindInvalid, "the edge %s -%s-> %s exists already", e.Source, e.Label, e.Target)
	}
	if e.Weight <= 0 || math.IsNaN(e.Weight) || math.IsInf(e.Weight, 0) {
		e.Weight = 1
	}
	e.Description = strings.TrimSpace(e.Description)
	g.Edges = append(g.Edges, extract.Edge{Source: e.Source, Target: e.Target, Label: e.Label,
		Description: e.Description, Weight: e.Weight})
	return nil
}

// edgeIndex returns the index in g of the edge source -label-> target,
// -1 when g has none.
func edgeIndex(g *extract.Graph, source, label, target string) int {
	k := extract.EdgeKey(source, label, target)
	for i := range g.Edges {
		if g.Edges[i].Key() == k {
			return i
		}
	}
	return -1
}

// findNode returns the index of the node keyed key in g.
func findNode(g *extract.Graph, key string) (int, error) {
	if key == "" {
		return -1, extract.Errorf(extract.KindInvalid, "name the node by its key")
	}
	for i := range g.Nodes {
		if g.Nodes[i].Key == key {
			return i, nil
		}
	}
	return -1, extract.Errorf(extract.KindInvalid, "no node with key %q", key)
}

// ParseEdits reads a JSON list of edits, or an object holding one under
// "edits". Unknown fields are refused, so a misspelt one is not silently
// lost; an error names the operation (counted from 1) it is in.
func ParseEdits(data []byte) ([]Edit, error) {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	const want = `edits: want a JSON list of operations like [{"op":"rename","key":"...","name":"..."}]`
	var wrapped struct {
		Edits []json.RawMessage `json:"edits"`
	}
	dst := any(&wrapped.Edits)
	if bytes.HasPrefix(data, []byte("{")) {
		dst = &wrapped
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var one struct {
			Op *string `json:"op"`
		}
		if dst == &wrapped && json.Unmarshal(data, &one) == nil && one.Op != nil {
			return nil, extract.Errorf(extract.KindInvalid, `%s: one operation given alone: put it in a list, [{"op":...}]`, want)
		}
		return nil, extract.Errorf(extract.KindInvalid, "%s: %s", want, extract.JSONProblem(data, err))
	}
	edits := make([]Edit, len(wrapped.Edits))
	for i, raw := range wrapped.Edits {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&edits[i]); err != nil {
			msg := err.Error()
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				msg = typ.Field + " must be " + jsonKindOf(typ) + ", not " + typ.Value
			}
			return nil, extract.Errorf(extract.KindInvalid, "edit %d: %s", i+1, strings.TrimPrefix(msg, "json: "))
		}
	}
	return edits, nil
}

// jsonKindOf names the JSON kind a type error wanted.
func jsonKindOf(typ *json.UnmarshalTypeError) string {
	switch typ.Type.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Float64, reflect.Float32, reflect.Int, reflect.Int64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}
