package dialogue

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

const seedOpsPath = "testdata/seed_segment_ops.json"

func TestParseOps_Seed(t *testing.T) {
	raw := string(mustRead(t, seedOpsPath))
	for name, wrap := range map[string]func(string) string{
		"Plain":  func(s string) string { return s },
		"Fenced": func(s string) string { return "```json\n" + s + "\n```" },
		"Prose": func(s string) string {
			return "Here are the operations {as asked}:\n" + s + "\nLet me know if {more} is needed."
		},
	} {
		t.Run(name, func(t *testing.T) {
			ops, fails := ParseOps(wrap(raw))
			if len(fails) != 0 {
				t.Fatalf("failures: %+v", fails)
			}
			if len(ops.AddNode) != 18 || len(ops.UpdateNode) != 5 || len(ops.AddRelation) != 21 {
				t.Fatalf("got %d/%d/%d ops, want 18/5/21", len(ops.AddNode), len(ops.UpdateNode), len(ops.AddRelation))
			}
			if got := ops.AddNode[0]; got.NodeID != "/Events/PersonalOrganization/DigitalTaskManagementQuery_20230530" ||
				got.Details.Label != "Digital Task Management App Query" || got.Details.Timestamp != "2023/05/30T17:27:00Z" {
				t.Errorf("first add_node %+v", got)
			}
			if got := ops.AddRelation[20]; got.Label != "SUGGESTED_EVALUATION_CRITERIA" || got.TargetID != "/Knowledge/Concept/EvaluationCriteria/Cost" {
				t.Errorf("last relation %+v", got)
			}
		})
	}
}

func TestParseOps_Tolerance(t *testing.T) {
	tests := []struct {
		name                string
		in                  string
		add, upd, rel, fail int
		failHas             string
	}{
		{"Empty", "", 0, 0, 0, 1, "no JSON object"},
		{"NoOpsObject", `{"foo": 1}`, 0, 0, 0, 1, "no JSON object"},
		{"TruncatedFirstItem", `{"add_node": [{"node_id": "/User/Profile/Name", "node_details": {"label": "A"`, 0, 0, 0, 0, ""},
		{"TruncatedKeepsComplete", `{"add_node": [{"node_id": "/K/A", "label": "A"}, {"node_id": "/K/B", "lab`, 1, 0, 0, 0, ""},
		{"NullLists", `{"add_node": null, "update_node": [], "add_relation": null}`, 0, 0, 0, 0, ""},
		{"OnlyRelations", `{"add_relation": [{"source_node_id": "/A", "target_node_id": "/B", "relation_details": {"label": "X"}}]}`, 0, 0, 1, 0, ""},
		{"FlatLabel", `{"add_relation": [{"source_node_id": "/A", "target_node_id": "/B", "label": "X"}]}`, 0, 0, 1, 0, ""},
		{"RelationNoLabel", `{"add_relation": [{"source_node_id": "/A", "target_node_id": "/B"}]}`, 0, 0, 0, 1, "label missing"},
		{"RelationNoTarget", `{"add_relation": [{"source_node_id": "/A", "relation_details": {"label": "X"}}]}`, 0, 0, 0, 1, "required"},
		{"NodeNoID", `{"add_node": [{"node_details": {"label": "A"}}]}`, 0, 0, 0, 1, "node_id missing"},
		{"NodeNumberLabel", `{"add_node": [{"node_id": "/Knowledge/Number/Count/Three", "node_details": {"label": 3}}]}`, 1, 0, 0, 0, ""},
		{"NodeObjectLabel", `{"add_node": [{"node_id": "/K", "node_details": {"label": {"x": 1}}}]}`, 0, 0, 0, 1, "not a string"},
		{"ExtraAttribute", `{"update_node": [{"node_id": "/User/Status/CurrentMood", "node_details": {"label": "Tired", "status": "revised"}}]}`, 0, 1, 0, 0, ""},
		{"ExtraAttributeObject", `{"update_node": [{"node_id": "/User/Status/CurrentMood", "node_details": {"label": "Tired", "status": {"x": 1}, "path": "/X"}}]}`, 0, 1, 0, 1, "path, status not kept"},
		{"ListNotList", `{"add_node": {"node_id": "/K"}}`, 0, 0, 0, 1, "not a list"},
		{"ItemNotObject", `{"add_node": ["x", {"node_id": "/K/A", "node_details": {"label": "A"}}]}`, 1, 0, 0, 1, "not an object"},
		{"UnknownKey", `{"add_node": [], "delete_node": []}`, 0, 0, 0, 1, "unknown key"},
		{"DetailsFlat", `{"add_node": [{"node_id": "/K/A", "label": "A"}]}`, 1, 0, 0, 0, ""},
		{"CJK", `{"add_node": [{"node_id": "/Knowledge/Place/City/北京", "node_details": {"label": "北京"}}]}`, 1, 0, 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, fails := ParseOps(tt.in)
			if len(ops.AddNode) != tt.add || len(ops.UpdateNode) != tt.upd || len(ops.AddRelation) != tt.rel {
				t.Errorf("got %d/%d/%d ops, want %d/%d/%d", len(ops.AddNode), len(ops.UpdateNode), len(ops.AddRelation), tt.add, tt.upd, tt.rel)
			}
			if len(fails) != tt.fail {
				t.Fatalf("got %d failures %+v, want %d", len(fails), fails, tt.fail)
			}
			if tt.failHas != "" && !strings.Contains(fails[0].Reason, tt.failHas) {
				t.Errorf("reason %q, want it to contain %q", fails[0].Reason, tt.failHas)
			}
		})
	}
}

// A real model's answer: fenced, with trailing commas everywhere.
const fencedTrailingCommas = "Here are the operations:\n```json\n{\n" +
	`  "add_node": [
    {"node_id": "/User/Profile/Name", "node_details": {"label": "Caroline",},},
    {"node_id": "/Knowledge/Place/City/Boston", "node_details": {"label": "Boston",},},
  ],
  "update_node": [],
  "add_relation": [
    {"source_node_id": "/User/Profile/Name", "target_node_id": "/Knowledge/Place/City/Boston", "relation_details": {"label": "LIVES_IN",},},
  ],
}` + "\n```\n"

func TestParseOpsRepaired_FenceAndTrailingCommas(t *testing.T) {
	ops, repairs, fails := ParseOpsRepaired(fencedTrailingCommas)
	if len(fails) != 0 {
		t.Fatalf("failures %+v", fails)
	}
	if want := []extract.Repair{extract.RepairFence, extract.RepairTrailingComma}; !slices.Equal(repairs, want) {
		t.Errorf("repairs %q, want %q", repairs, want)
	}
	mem := NewMemory()
	applied := mem.Apply(1, ops)
	n := 0
	for _, op := range applied {
		if op.Status != "rejected" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("applied %d of %d operations: %+v", n, ops.Len(), applied)
	}
}

func TestOps_MarshalRoundTrip(t *testing.T) {
	ops, _ := ParseOps(string(mustRead(t, seedOpsPath)))
	b, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	back, fails := ParseOps(string(b))
	if len(fails) != 0 || back.Len() != ops.Len() || back.AddRelation[3] != ops.AddRelation[3] || !reflect.DeepEqual(back.AddNode[5], ops.AddNode[5]) {
		t.Errorf("round trip changed the operations: %d failures, %d vs %d ops", len(fails), back.Len(), ops.Len())
	}
}

func FuzzParseOps(f *testing.F) {
	// Small seeds keep input minimisation quick; the full seed output is
	// covered by TestParseOps_Seed.
	f.Add(`{"add_node":[{"node_id":"/Events/PersonalOrganization/Query_20230530","node_details":{"label":"Query","timestamp":"2023/05/30T17:27:00Z"}}],` +
		`"update_node":[{"node_id":"/User/Status/CurrentFocus","node_details":{"label":"Organising","description":"Better organisation"}}],` +
		`"add_relation":[{"source_node_id":"/User/RelatedEvents","target_node_id":"/Events/PersonalOrganization/Query_20230530","relation_details":{"label":"INITIATED"}}]}`)
	f.Add("```json\n{\"add_node\": [{\"node_id\": \"/User/Profile/Name\", \"node_details\": {\"label\": \"Ann\"}}]}\n```")
	f.Add(`{"add_relation": [{"source_node_id": 1, "target_node_id": null, "relation_details": []}]}`)
	f.Add(`{"update_node": [{"node_id": "/x", "node_details": {"label": true, "a": [1]}}]} {`)
	f.Add("{{{{")
	f.Fuzz(func(t *testing.T, s string) {
		ops, fails := ParseOps(s)
		for _, n := range append(ops.AddNode, ops.UpdateNode...) {
			if n.NodeID == "" {
				t.Fatalf("node op without id: %+v", n)
			}
		}
		for _, r := range ops.AddRelation {
			if r.SourceID == "" || r.TargetID == "" || r.Label == "" {
				t.Fatalf("incomplete relation: %+v", r)
			}
		}
		for _, fl := range fails {
			if fl.Reason == "" {
				t.Fatalf("failure without reason")
			}
		}
		// Whatever was parsed must apply without panicking.
		m := NewMemory()
		m.Apply(0, ops)
		_ = m.Graph()
	})
}
