package dialogue

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// golden compares got with testdata/name, rewriting it under -update. On a
// mismatch the actual output is written next to it with a .actual suffix.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		_ = os.WriteFile(path+".actual", got, 0o644)
		t.Errorf("%s differs from the golden file; actual output in %s.actual", name, path)
	}
}

func seedOps(t *testing.T) Ops {
	t.Helper()
	ops, fails := ParseOps(string(mustRead(t, seedOpsPath)))
	if len(fails) != 0 {
		t.Fatalf("seed failures: %+v", fails)
	}
	return ops
}

func TestMemory_ApplySeed(t *testing.T) {
	ops := seedOps(t)
	m := NewMemory()
	log := m.Apply(0, ops)
	if len(log) != 44 {
		t.Fatalf("got %d log entries, want 44", len(log))
	}
	t.Run("Statuses", func(t *testing.T) {
		count := map[extract.Outcome]int{}
		for i, op := range log {
			count[op.Status]++
			if op.Seq != i || op.Turn != 0 {
				t.Errorf("entry %d has turn %d seq %d", i, op.Turn, op.Seq)
			}
		}
		want := map[extract.Outcome]int{extract.OutcomeApplied: 40, extract.OutcomeParentCreated: 4}
		if !reflect.DeepEqual(count, want) {
			t.Errorf("statuses %v, want %v", count, want)
		}
		if st := m.Stats(); st != (Stats{Applied: 44, ParentsCreated: 6, Rejected: 0}) {
			t.Errorf("stats %+v", st)
		}
	})
	t.Run("ExactlyTheseNodes", func(t *testing.T) {
		want := map[string]bool{}
		for _, id := range StructureNodes {
			want[id] = true
		}
		for _, n := range ops.AddNode {
			want[n.NodeID] = true
			got, ok := m.Node(n.NodeID)
			if !ok || got.Label != n.Details.Label || got.Description != n.Details.Description || got.Timestamp != n.Details.Timestamp {
				t.Errorf("node %s = %+v, want details %+v", n.NodeID, got, n.Details)
			}
		}
		for _, n := range ops.UpdateNode {
			want[n.NodeID] = true
			got, _ := m.Node(n.NodeID)
			if got.Label != n.Details.Label || got.Description != n.Details.Description || len(got.History) != 0 {
				t.Errorf("updated node %s = %+v", n.NodeID, got)
			}
		}
		for _, p := range []string{"/Events/PersonalOrganization", "/Knowledge/Concept", "/Knowledge/Concept/ProductivityTool",
			"/Knowledge/SoftwareApplication", "/Knowledge/SoftwareApplication/ProductivityTool", "/Knowledge/Concept/EvaluationCriteria"} {
			want[p] = true
			if n, _ := m.Node(p); !n.Implicit {
				t.Errorf("%s should be an implicit parent", p)
			}
		}
		var wantIDs []string
		for id := range want {
			wantIDs = append(wantIDs, id)
		}
		sort.Strings(wantIDs)
		if got := m.NodeIDs(); !reflect.DeepEqual(got, wantIDs) {
			t.Errorf("node ids\n got %v\nwant %v", got, wantIDs)
		}
	})
	t.Run("ExactlyTheseRelations", func(t *testing.T) {
		rels := m.Relations()
		if len(rels) != len(ops.AddRelation) {
			t.Fatalf("got %d relations, want %d", len(rels), len(ops.AddRelation))
		}
		for i, r := range ops.AddRelation {
			if rels[i].Source != r.SourceID || rels[i].Target != r.TargetID || rels[i].Label != r.Label {
				t.Errorf("relation %d = %+v, want %+v", i, rels[i], r)
			}
		}
	})
	t.Run("Graph", func(t *testing.T) {
		g := m.Graph()
		has, other := 0, 0
		keys := map[string]bool{}
		for _, n := range g.Nodes {
			keys[n.Key] = true
		}
		for _, e := range g.Edges {
			if !keys[e.Source] || !keys[e.Target] {
				t.Errorf("edge %s -> %s has a missing end", e.Source, e.Target)
			}
			if e.Label == HasLabel {
				has++
			} else {
				other++
			}
		}
		if len(g.Nodes) != 43 || has != 43-4 || other != 21 {
			t.Errorf("graph has %d nodes, %d has-edges, %d relations; want 43, 39, 21", len(g.Nodes), has, other)
		}
		b, err := json.MarshalIndent(g, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "seed_graph.golden.json", append(b, '\n'))
	})
}

func TestNodeType(t *testing.T) {
	for id, want := range map[string]string{
		"/User":                         "User",
		"/User/Status/CurrentFocus":     "User",
		"/Assistant/Persona":            "Assistant",
		"/Events/Travel/Trip_20230101":  "Event",
		"/Knowledge":                    "Knowledge",
		"/Knowledge/Person/Friend/Mel":  "Knowledge/Person",
		"/Knowledge/Concept/Tool/Board": "Knowledge/Concept",
	} {
		t.Run(id, func(t *testing.T) {
			if got := NodeType(id); got != want {
				t.Errorf("NodeType(%q) = %q, want %q", id, got, want)
			}
		})
	}
}

func TestCleanID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/User/Profile", "/User/Profile"},
		{" user//Profile/ ", "/User/Profile"},
		{"Knowledge/Place/City/Paris", "/Knowledge/Place/City/Paris"},
		{"/Event/Travel/X", "/Events/Travel/X"},
		{"/Other/X", ""},
		{"", ""},
		{"///", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := CleanID(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Errorf("CleanID(%q) = %q, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("CleanID(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestMemory_Apply(t *testing.T) {
	t.Run("UpdateKeepsHistory", func(t *testing.T) {
		m := NewMemory()
		m.Apply(0, Ops{UpdateNode: []NodeOp{{NodeID: "/User/Status/CurrentMood", Details: NodeDetails{Label: "Happy", Description: "Got a new job"}}}})
		m.Apply(1, Ops{UpdateNode: []NodeOp{{NodeID: "/User/Status/CurrentMood", Details: NodeDetails{Label: "Tired"}}}})
		m.Apply(2, Ops{UpdateNode: []NodeOp{{NodeID: "/User/Status/CurrentMood", Details: NodeDetails{Label: "Tired"}}}}) // no change
		m.Apply(3, Ops{UpdateNode: []NodeOp{{NodeID: "/User/Status/CurrentMood", Details: NodeDetails{Description: "Slept badly", Timestamp: "2023-05-09"}}}})
		n, _ := m.Node("/User/Status/CurrentMood")
		want := MemoryNode{ID: "/User/Status/CurrentMood", Label: "Tired", Description: "Slept badly", Timestamp: "2023-05-09", Structure: true, Created: -1, Updated: 3,
			History: []Revision{
				{Since: 0, Until: 1, Label: "Happy", Description: "Got a new job", Reason: "replaced by update_node at turn 1"},
				{Since: 1, Until: 3, Label: "Tired", Description: "Got a new job", Reason: "replaced by update_node at turn 3"},
			}}
		if !reflect.DeepEqual(n, want) {
			t.Errorf("\n got %+v\nwant %+v", n, want)
		}
	})
	t.Run("AddExistingMerges", func(t *testing.T) {
		m := NewMemory()
		m.Apply(0, Ops{AddNode: []NodeOp{{NodeID: "/Knowledge/Place/City/Paris", Details: NodeDetails{Label: "Paris"}}}})
		log := m.Apply(1, Ops{AddNode: []NodeOp{{NodeID: "/Knowledge/Place/City/Paris", Details: NodeDetails{Description: "Capital of France"}}}})
		n, _ := m.Node("/Knowledge/Place/City/Paris")
		if log[0].Status != extract.OutcomeApplied || log[0].Reason != "node existed; attributes updated" || n.Description != "Capital of France" || len(n.History) != 1 {
			t.Errorf("log %+v node %+v", log[0], n)
		}
	})
	t.Run("UpdateMissingCreates", func(t *testing.T) {
		m := NewMemory()
		log := m.Apply(0, Ops{UpdateNode: []NodeOp{{NodeID: "/User/Profile/Pets/Dog", Details: NodeDetails{Label: "Biscuit"}}}})
		if log[0].Status != extract.OutcomeParentCreated || log[0].Reason != "created parent /User/Profile/Pets; node did not exist; created" {
			t.Errorf("log %+v", log[0])
		}
	})
	t.Run("Rejections", func(t *testing.T) {
		m := NewMemory()
		log := m.Apply(4, Ops{
			AddNode: []NodeOp{
				{NodeID: "/Events/Work/Promotion_20230101", Details: NodeDetails{Label: "Promotion"}},
				{NodeID: "/Elsewhere/X", Details: NodeDetails{Label: "X"}},
			},
			AddRelation: []RelationOp{
				{SourceID: "/User/RelatedEvents", TargetID: "/Events/Work/Promotion_20230101", Label: "EXPERIENCED"},
				{SourceID: "/User", TargetID: "/Events/Work/Promotion_20230101", Label: "EXPERIENCED"},
				{SourceID: "/Events/Work/Promotion_20230101", TargetID: "/Assistant", Label: "TOLD"},
				{SourceID: "/Events/Work/Promotion_20230101", TargetID: "/Knowledge/Org/Company/Acme", Label: "AT"},
				{SourceID: "/Knowledge/Nope", TargetID: "/User/Profile", Label: "X"},
				{SourceID: "/User/RelatedEvents", TargetID: "/Events/Work/Promotion_20230101", Label: "EXPERIENCED"},
				{SourceID: "nowhere", TargetID: "/User/Profile", Label: "X"},
			},
		})
		type sr struct {
			status extract.Outcome
			reason string
		}
		var got []sr
		for _, op := range log {
			got = append(got, sr{op.Status, op.Reason})
		}
		want := []sr{
			{extract.OutcomeParentCreated, "created parent /Events/Work"},
			{extract.OutcomeRejected, `node id "/Elsewhere/X" is outside /User, /Assistant, /Events and /Knowledge`},
			{extract.OutcomeApplied, ""},
			{extract.OutcomeRejected, "source is the bare root /User; use a sub-node such as /User/RelatedEvents"},
			{extract.OutcomeRejected, "target is the bare root /Assistant; use a sub-node such as /Assistant/RelatedEvents"},
			{extract.OutcomeRejected, "unknown target node /Knowledge/Org/Company/Acme"},
			{extract.OutcomeRejected, "unknown source node /Knowledge/Nope"},
			{extract.OutcomeApplied, "relation already present"},
			{extract.OutcomeRejected, `source: node id "nowhere" is outside /User, /Assistant, /Events and /Knowledge`},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("\n got %v\nwant %v", got, want)
		}
		if st := m.Stats(); st.Rejected != 6 || st.ParentsCreated != 1 || st.Applied != 3 {
			t.Errorf("stats %+v", st)
		}
		if len(m.Relations()) != 1 || len(m.Log()) != len(log) {
			t.Errorf("relations %v, log %d", m.Relations(), len(m.Log()))
		}
	})
}

func TestRebuild(t *testing.T) {
	m := NewMemory()
	m.Apply(0, Ops{AddNode: []NodeOp{{NodeID: "/Knowledge/Person/Friend/Mel", Details: NodeDetails{Label: "Mel", Description: "A friend"}}}})
	g0 := m.Graph()
	m.Apply(1, seedOps(t))
	g1 := m.Graph()
	m.Apply(2, Ops{
		UpdateNode:  []NodeOp{{NodeID: "/Knowledge/Person/Friend/Mel", Details: NodeDetails{Description: "A friend who paints"}}},
		AddRelation: []RelationOp{{SourceID: "/User/RelatedEvents", TargetID: "/Knowledge/Person/Friend/Mel", Label: "KNOWS"}, {SourceID: "/User", TargetID: "/Knowledge", Label: "BAD"}},
	})
	g2 := m.Graph()
	stored := m.Log()
	// A store may hand the log back in any order.
	sort.Slice(stored, func(i, j int) bool { return stored[i].Op < stored[j].Op })
	tests := []struct {
		turn int
		want extract.Graph
	}{
		{-1, NewMemory().Graph()},
		{0, g0},
		{1, g1},
		{2, g2},
		{99, g2},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("Turn%d", tt.turn), func(t *testing.T) {
			got := Rebuild(stored, tt.turn).Graph()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("graph rebuilt at turn %d differs: %d/%d nodes, %d/%d edges", tt.turn, len(got.Nodes), len(tt.want.Nodes), len(got.Edges), len(tt.want.Edges))
			}
		})
	}
	t.Run("LogMatches", func(t *testing.T) {
		if got := Rebuild(stored, 99).Log(); !reflect.DeepEqual(got, m.Log()) {
			t.Errorf("rebuilt log differs")
		}
	})
}

func TestMemory_GraphOf(t *testing.T) {
	m := NewMemory()
	m.Apply(0, seedOps(t))
	log := m.Apply(1, Ops{UpdateNode: []NodeOp{{NodeID: "/User/Status/CurrentMood", Details: NodeDetails{Label: "Calm"}}},
		AddRelation: []RelationOp{{SourceID: "/User/Status/CurrentMood", TargetID: "/Knowledge/SoftwareApplication/ProductivityTool/Todoist", Label: "LIKES"}}})
	g := m.GraphOf(log)
	var keys []string
	for _, n := range g.Nodes {
		keys = append(keys, n.Key)
	}
	want := []string{"/User", "/User/Status", "/User/Status/CurrentMood", "/Knowledge", "/Knowledge/SoftwareApplication",
		"/Knowledge/SoftwareApplication/ProductivityTool", "/Knowledge/SoftwareApplication/ProductivityTool/Todoist"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("nodes %v, want %v", keys, want)
	}
	if len(g.Edges) != 5+1 {
		t.Errorf("got %d edges, want 6", len(g.Edges))
	}
}
