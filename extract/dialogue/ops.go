package dialogue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// NodeDetails are the attributes of a memory node. Empty fields of an
// update leave the node's value unchanged.
type NodeDetails struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Timestamp   string `json:"timestamp,omitempty"`
	// Attributes are the other scalar attributes a model gave (a
	// "status": "revised", say), kept as the node's properties. They are
	// read from node_details' other keys, not written back as JSON.
	Attributes map[string]string `json:"-"`
}

// NodeOp adds or updates the node at NodeID.
type NodeOp struct {
	NodeID  string      `json:"node_id"`
	Details NodeDetails `json:"node_details"`
}

// RelationOp adds a labelled relation between two existing nodes.
type RelationOp struct {
	SourceID string `json:"source_node_id"`
	TargetID string `json:"target_node_id"`
	Label    string `json:"label"`
}

// MarshalJSON writes the model's shape, with the label under
// relation_details.
func (r RelationOp) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		SourceID string            `json:"source_node_id"`
		TargetID string            `json:"target_node_id"`
		Details  map[string]string `json:"relation_details"`
	}{r.SourceID, r.TargetID, map[string]string{"label": r.Label}})
}

// Ops is the set of operations proposed for one segment. They apply in the
// order add_node, update_node, add_relation, each list in order.
type Ops struct {
	AddNode     []NodeOp     `json:"add_node"`
	UpdateNode  []NodeOp     `json:"update_node"`
	AddRelation []RelationOp `json:"add_relation"`
}

// Len returns the number of operations.
func (o Ops) Len() int { return len(o.AddNode) + len(o.UpdateNode) + len(o.AddRelation) }

// ParseOps reads a model answer holding the operations object. It accepts
// markdown fences and prose around the JSON, missing or null lists, numbers
// for strings, and the relation label either under relation_details or at
// the top of the relation. Items it cannot use are returned as failures
// with the reason; it never panics.
func ParseOps(output string) (Ops, []extract.ParseFailure) {
	ops, _, fails := ParseOpsRepaired(output)
	return ops, fails
}

// ParseOpsRepaired is ParseOps that first repairs the JSON (code fences,
// trailing commas, single quotes, comments, unquoted keys, truncation:
// see extract.RepairJSON) and also returns the repairs it needed. When the
// repaired JSON holds no operation object, the answer is scanned for one
// as it is.
func ParseOpsRepaired(output string) (Ops, []extract.Repair, []extract.ParseFailure) {
	var ops Ops
	var fails []extract.ParseFailure
	fail := func(line, format string, args ...any) {
		line = extract.Clip(line, 500)
		fails = append(fails, extract.ParseFailure{Line: line, Reason: fmt.Sprintf(format, args...)})
	}
	var repairs []extract.Repair
	obj, ok := map[string]json.RawMessage(nil), false
	if fixed, kinds, err := extract.RepairJSON(output); err == nil {
		if obj, ok = findOpsObject(fixed); ok {
			repairs = kinds
		}
	}
	if !ok {
		obj, ok = findOpsObject(extract.StripReasoning(output))
	}
	if !ok {
		fail(output, "no JSON object with add_node, update_node or add_relation found")
		return ops, nil, fails
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(extract.OpKinds, extract.OpKind(k)) {
			fail(string(obj[k]), "unknown key %q ignored", k)
		}
	}
	for _, name := range extract.OpKinds {
		raw, ok := obj[string(name)]
		if !ok || isNull(raw) {
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			fail(string(raw), "%s is not a list", name)
			continue
		}
		for i, item := range items {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(item, &m); err != nil {
				fail(string(item), "%s[%d] is not an object", name, i)
				continue
			}
			if name == extract.OpAddRelation {
				r, err := relationFrom(m)
				if err != nil {
					fail(string(item), "%s[%d]: %s", name, i, err)
					continue
				}
				ops.AddRelation = append(ops.AddRelation, r)
				continue
			}
			n, extra, err := nodeFrom(m)
			if err != nil {
				fail(string(item), "%s[%d]: %s", name, i, err)
				continue
			}
			if len(extra) > 0 {
				fail(string(item), "%s[%d]: attributes %s not kept (an attribute is a string, number or boolean, at most %d of them, not a reserved name)", name, i, strings.Join(extra, ", "), maxAttributes)
			}
			if name == extract.OpAddNode {
				ops.AddNode = append(ops.AddNode, n)
			} else {
				ops.UpdateNode = append(ops.UpdateNode, n)
			}
		}
	}
	return ops, repairs, fails
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// findOpsObject scans output for the first JSON object that has at least
// one of the three operation keys.
func findOpsObject(output string) (map[string]json.RawMessage, bool) {
	for i := 0; i < len(output); i++ {
		j := strings.IndexByte(output[i:], '{')
		if j < 0 {
			return nil, false
		}
		i += j
		dec := json.NewDecoder(strings.NewReader(output[i:]))
		var m map[string]json.RawMessage
		if err := dec.Decode(&m); err != nil {
			continue
		}
		_, a := m[string(extract.OpAddNode)]
		_, u := m[string(extract.OpUpdateNode)]
		_, r := m[string(extract.OpAddRelation)]
		if a || u || r {
			return m, true
		}
	}
	return nil, false
}

// scalar reads a JSON string, number or boolean as text.
func scalar(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return strings.TrimSpace(s), true
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), true
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err == nil {
		return fmt.Sprint(b), true
	}
	return "", false
}

func stringField(m map[string]json.RawMessage, k string) (string, error) {
	raw, ok := m[k]
	if !ok {
		return "", nil
	}
	s, ok := scalar(raw)
	if !ok {
		return "", fmt.Errorf("%s is not a string", k)
	}
	return s, nil
}

func nodeFrom(m map[string]json.RawMessage) (NodeOp, []string, error) {
	var n NodeOp
	id, err := stringField(m, "node_id")
	if err != nil {
		return n, nil, err
	}
	if id == "" {
		return n, nil, fmt.Errorf("node_id missing")
	}
	n.NodeID = id
	details := m
	if raw, ok := m["node_details"]; ok && !isNull(raw) {
		details = nil
		if err := json.Unmarshal(raw, &details); err != nil {
			return n, nil, fmt.Errorf("node_details is not an object")
		}
	}
	var extra []string
	names := make([]string, 0, len(details))
	for k := range details {
		names = append(names, k)
	}
	sort.Strings(names) // which attributes fit under maxAttributes does not depend on map order
	for _, k := range names {
		v := details[k]
		switch k {
		case "label", "description", "timestamp":
			s, ok := scalar(v)
			if !ok {
				return n, nil, fmt.Errorf("node_details.%s is not a string", k)
			}
			switch k {
			case "label":
				n.Details.Label = s
			case "description":
				n.Details.Description = s
			default:
				n.Details.Timestamp = s
			}
		case "node_id", "node_details", "operation_type":
		default:
			v, ok := scalar(v)
			if !ok || reservedAttribute[k] || len(n.Details.Attributes) >= maxAttributes || len(k) > 64 {
				extra = append(extra, k)
				continue
			}
			if n.Details.Attributes == nil {
				n.Details.Attributes = map[string]string{}
			}
			n.Details.Attributes[k] = extract.Clip(v, 2000)
		}
	}
	sort.Strings(extra)
	return n, extra, nil
}

// maxAttributes bounds the extra attributes kept per node operation.
const maxAttributes = 16

// reservedAttribute are the property names a memory node sets itself; a
// model's attribute of that name is not kept.
var reservedAttribute = map[string]bool{"path": true, "structure": true, "implicit": true, "created_turn": true,
	"updated_turn": true, "history": true, "valid_at": true, "invalid_at": true, "recorded_at": true, "expired_at": true,
	"expired": true, "reason": true, "turn": true, "until_turn": true, "label": true, "description": true, "timestamp": true,
	"attributes": true}

func relationFrom(m map[string]json.RawMessage) (RelationOp, error) {
	var r RelationOp
	var err error
	if r.SourceID, err = stringField(m, "source_node_id"); err != nil {
		return r, err
	}
	if r.TargetID, err = stringField(m, "target_node_id"); err != nil {
		return r, err
	}
	if r.SourceID == "" || r.TargetID == "" {
		return r, fmt.Errorf("source_node_id and target_node_id are required")
	}
	if raw, ok := m["relation_details"]; ok && !isNull(raw) {
		var d map[string]json.RawMessage
		if err := json.Unmarshal(raw, &d); err != nil {
			return r, fmt.Errorf("relation_details is not an object")
		}
		if r.Label, err = stringField(d, "label"); err != nil {
			return r, fmt.Errorf("relation_details.%s", err)
		}
	}
	if r.Label == "" {
		if r.Label, err = stringField(m, "label"); err != nil {
			return r, err
		}
	}
	if r.Label == "" {
		return r, fmt.Errorf("relation label missing")
	}
	return r, nil
}
