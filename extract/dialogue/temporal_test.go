package dialogue

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
)

// factPair is two facts said in two turns: relations (source, label,
// target) or, with slot set, two values of node slots.
type factPair struct {
	first, second RelationOp
	slots         [2]string
}

// unrelatedPairs makes n pairs of facts that do not contradict each other:
// different subjects with one single-valued relation (Alice lives in
// Paris, Bob lives in Rome), one subject with different relations (lives
// in Paris, works at Acme), one subject with a many-valued relation (likes
// jazz, likes tennis), and values of two different slots.
func unrelatedPairs(n int, r *rand.Rand) []factPair {
	people := []string{"/User/Profile", "/Knowledge/Person/Friend/Alice", "/Knowledge/Person/Friend/Bob", "/Knowledge/Person/Family/Mother",
		"/Knowledge/Person/Colleague/Priya", "/Knowledge/Person/Family/Sister", "/Assistant/Profile"}
	places := []string{"Paris", "Rome", "Denver", "Osaka", "Lagos", "Lima", "Oslo", "Austin"}
	single := []string{"LIVES_IN", "WORKS_AT", "MARRIED_TO", "HAS_STATUS", "CURRENT_PROJECT", "STUDIES_AT"}
	many := []string{"LIKES", "VISITED", "MENTIONS", "OWNS", "PLAYS", "KNOWS", "PARTICIPATED_IN", "ENJOYS"}
	slots := []string{"/User/Status/CurrentMood", "/User/Status/CurrentFocus", "/User/Profile/Interests/Jazz", "/User/Profile/StatedGoals/Marathon",
		"/Knowledge/Person/Friend/Alice", "/Knowledge/Thing/Car/Civic"}
	target := func() string { return "/Knowledge/Place/City/" + places[r.IntN(len(places))] }
	var out []factPair
	for len(out) < n {
		var p factPair
		switch len(out) % 4 {
		case 0: // two subjects, one single-valued relation
			a, b := r.IntN(len(people)), r.IntN(len(people)-1)
			if b >= a {
				b++
			}
			l := single[r.IntN(len(single))]
			p.first = RelationOp{SourceID: people[a], TargetID: target(), Label: l}
			p.second = RelationOp{SourceID: people[b], TargetID: target(), Label: l}
		case 1: // one subject, two relations
			a := people[r.IntN(len(people))]
			l1 := single[r.IntN(len(single))]
			l2 := append(append([]string{}, single...), many...)[r.IntN(len(single)+len(many))]
			if l2 == l1 {
				l2 = many[0]
			}
			p.first = RelationOp{SourceID: a, TargetID: target(), Label: l1}
			p.second = RelationOp{SourceID: a, TargetID: target(), Label: l2}
		case 2: // one subject, a many-valued relation
			a := people[r.IntN(len(people))]
			l := many[r.IntN(len(many))]
			p.first = RelationOp{SourceID: a, TargetID: target(), Label: l}
			p.second = RelationOp{SourceID: a, TargetID: target(), Label: l}
		case 3: // two slots
			i, j := r.IntN(len(slots)), r.IntN(len(slots)-1)
			if j >= i {
				j++
			}
			p.slots = [2]string{slots[i], slots[j]}
		}
		out = append(out, p)
	}
	return out
}

// apply says the pair's facts in turns 0 and 1 (a month apart) on a new
// memory and counts the facts retired.
func (p factPair) apply() (*Memory, int) {
	m := NewMemory()
	node := func(id, label string) Ops {
		return Ops{AddNode: []NodeOp{{NodeID: id, Details: NodeDetails{Label: label, Description: label + " said"}}}}
	}
	say := func(turn int, day string, rel RelationOp, slot string) {
		ops := Ops{}
		if slot != "" {
			ops = node(slot, fmt.Sprintf("value %d", turn))
		} else {
			ops = Ops{AddNode: append(node(rel.SourceID, "s").AddNode, node(rel.TargetID, "t").AddNode...), AddRelation: []RelationOp{rel}}
		}
		m.ApplyAt(turn, day, "2024-01-01T00:00:00Z", ops)
	}
	say(0, "2023-01-01", p.first, p.slots[0])
	say(1, "2023-02-01", p.second, p.slots[1])
	return m, m.Stats().Retired
}

// TestRetire_UnrelatedFactsStay checks what Graphiti's users report it
// gets wrong: of 500 pairs of facts that do not contradict each other, at
// most 2% may retire one; and of pairs that do (a new value of the same
// single-valued relation or slot), every one must.
func TestRetire_UnrelatedFactsStay(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 1))
	wrong := 0
	for i, p := range unrelatedPairs(500, r) {
		m, retired := p.apply()
		if retired > 0 {
			wrong++
			if wrong <= 5 {
				t.Logf("pair %d retired a fact: %+v (relations %+v)", i, p, m.Relations())
			}
		}
	}
	if wrong > 10 {
		t.Errorf("%d of 500 unrelated pairs retired a fact (%.1f%%); at most 2%% may", wrong, float64(wrong)/5)
	}
	// Contradictions: same subject and single-valued relation, or the
	// same slot path.
	for i := 0; i < 100; i++ {
		var p factPair
		if i%2 == 0 {
			p.first = RelationOp{SourceID: "/User/Profile", TargetID: "/Knowledge/Place/City/Boston", Label: "LIVES_IN"}
			p.second = RelationOp{SourceID: "/User/Profile", TargetID: fmt.Sprintf("/Knowledge/Place/City/Town%d", i), Label: "lives in"}
		} else {
			p.slots = [2]string{"/User/Status/CurrentMood", "/User/Status/CurrentMood"}
		}
		if _, retired := p.apply(); retired != 1 {
			t.Fatalf("contradiction %d (%+v) retired %d facts; want 1", i, p, retired)
		}
	}
}

// TestRetire_KeepsWhenAndWhy checks the retired relation and value carry
// when they held, when they stopped and why, in the memory and its graph,
// and that the log replays to the same facts.
func TestRetire_KeepsWhenAndWhy(t *testing.T) {
	m := NewMemory()
	home := func(city string) Ops {
		id := "/Knowledge/Place/City/" + city
		return Ops{
			AddNode:     []NodeOp{{NodeID: id, Details: NodeDetails{Label: city}}},
			UpdateNode:  []NodeOp{{NodeID: "/User/Status/CurrentFocus", Details: NodeDetails{Label: "Moving to " + city}}},
			AddRelation: []RelationOp{{SourceID: "/User/Profile", TargetID: id, Label: "LIVES_IN"}, {SourceID: "/User/Profile", TargetID: id, Label: "VISITED"}},
		}
	}
	m.ApplyAt(0, "2023-01-10", "2024-01-01T00:00:00Z", home("Boston"))
	log := m.ApplyAt(3, "2023-06-01T10:00:00Z", "2024-01-02T00:00:00Z", home("Denver"))
	var old, cur Relation
	for _, r := range m.Relations() {
		if r.Label == "LIVES_IN" && r.Target == "/Knowledge/Place/City/Boston" {
			old = r
		}
		if r.Label == "LIVES_IN" && r.Target == "/Knowledge/Place/City/Denver" {
			cur = r
		}
		if r.Label == "VISITED" && !r.Current() {
			t.Errorf("a many-valued relation was retired: %+v", r)
		}
	}
	if old.Current() || old.Until != 3 || old.ValidAt != "2023-01-10" || old.InvalidAt != "2023-06-01T10:00:00Z" ||
		old.ExpiredAt != "2024-01-02T00:00:00Z" || old.Reason != "replaced by /Knowledge/Place/City/Denver at turn 3" {
		t.Errorf("retired relation %+v", old)
	}
	if !cur.Current() || cur.ValidAt != "2023-06-01T10:00:00Z" || cur.RecordedAt != "2024-01-02T00:00:00Z" {
		t.Errorf("current relation %+v", cur)
	}
	focus, _ := m.Node("/User/Status/CurrentFocus")
	if len(focus.History) != 1 || focus.History[0].Label != "Moving to Boston" || focus.History[0].InvalidAt != "2023-06-01T10:00:00Z" || focus.ValidAt != "2023-06-01T10:00:00Z" {
		t.Errorf("focus %+v", focus)
	}
	// The graph: the old edge is marked expired with its times; as of
	// February it is the home again and the focus its first value.
	g := m.Graph()
	var expired int
	for _, e := range g.Edges {
		if extract.Expired(e.Properties) {
			expired++
			if e.Target != "/Knowledge/Place/City/Boston" || e.Properties[extract.PropInvalidAt] != "2023-06-01T10:00:00Z" {
				t.Errorf("expired edge %+v", e)
			}
		}
	}
	if expired != 1 {
		t.Errorf("%d expired edges; want 1", expired)
	}
	feb, _ := extract.ParseFactTime("2023-02-01", true)
	then := extract.AsOf(g, feb)
	for _, e := range then.Edges {
		if e.Label == "LIVES_IN" && e.Target != "/Knowledge/Place/City/Boston" {
			t.Errorf("as of February the user lives in %s", e.Target)
		}
	}
	for _, n := range then.Nodes {
		if n.Key == "/User/Status/CurrentFocus" && n.Name != "Moving to Boston" {
			t.Errorf("as of February the focus is %q", n.Name)
		}
	}
	// The turn's graph carries the retired edge, so a store that merges
	// per-turn graphs learns the end too.
	turn := m.GraphOf(log)
	found := false
	for _, e := range turn.Edges {
		found = found || (e.Target == "/Knowledge/Place/City/Boston" && extract.Expired(e.Properties))
	}
	if !found {
		t.Error("the turn's graph does not carry the relation it retired")
	}
	// Replaying the log gives the same relations.
	if got := Rebuild(m.Log(), 99).Relations(); fmt.Sprint(got) != fmt.Sprint(m.Relations()) {
		t.Errorf("rebuilt relations differ:\n got %+v\nwant %+v", got, m.Relations())
	}
	// A relation said again after it was retired holds again.
	m.ApplyAt(5, "2023-09-01", time.Now().UTC().Format(time.RFC3339), home("Boston"))
	live := 0
	for _, e := range extract.Current(m.Graph()).Edges {
		if e.Label == "LIVES_IN" {
			live++
			if e.Target != "/Knowledge/Place/City/Boston" {
				t.Errorf("after moving back the user lives in %s", e.Target)
			}
		}
	}
	if live != 1 {
		t.Errorf("%d current homes; want 1", live)
	}
}

// Sessions listed out of date order are read in date order, so a later
// value is the one said later; one undated session leaves the file's order.
func TestParse_SessionsInDateOrder(t *testing.T) {
	const dated = `{"title":"t","sessions":[
	 {"id":"c","start":"2023-06-01","turns":[{"role":"user","text":"Rex is grown."}]},
	 {"id":"a","start":"2023-01-10T09:00:00Z","turns":[{"role":"user","text":"Rex is a puppy."}]},
	 {"id":"b","start":"2023-01-10T09:00:00Z","turns":[{"role":"user","text":"Rex chews shoes."}]}]}`
	d, err := Parse([]byte(dated))
	if err != nil {
		t.Fatal(err)
	}
	var ids string
	for _, s := range d.Sessions {
		ids += s.ID
	}
	if ids != "abc" {
		t.Errorf("sessions in order %q; want abc (by date, ties in file order)", ids)
	}
	undated := strings.Replace(dated, `"start":"2023-06-01"`, `"start":""`, 1)
	if d, err = Parse([]byte(undated)); err != nil || d.Sessions[0].ID != "c" {
		t.Errorf("with an undated session the order changed: %v %+v", err, d)
	}
}

// The system prompt's worked example is a valid answer: it parses and
// every operation applies.
func TestSystemPrompt_ExampleApplies(t *testing.T) {
	var example string
	for _, line := range strings.Split(SystemPrompt(), "\n") {
		if strings.HasPrefix(line, `{"add_node"`) {
			example = line
		}
	}
	if example == "" {
		t.Fatal("the system prompt has no example answer")
	}
	ops, _, fails := ParseOpsRepaired(example)
	if len(fails) != 0 || len(ops.AddNode) == 0 || len(ops.UpdateNode) == 0 || len(ops.AddRelation) == 0 {
		t.Fatalf("example: %+v, failures %+v", ops, fails)
	}
	for _, op := range NewMemory().Apply(0, ops) {
		if op.Status == extract.OutcomeRejected {
			t.Errorf("the example's %s %s%s was rejected: %s", op.Op, op.NodeID, op.SourceID, op.Reason)
		}
	}
}

// A model's other attributes ("status": "revised") are kept as the node's
// properties; a later value moves them to the history with the rest.
func TestMemory_KeepsOtherAttributes(t *testing.T) {
	ops, fails := ParseOps(`{"add_node": [{"node_id": "/Knowledge/Document/Draft/Plan", "node_details": {"label": "Plan", "status": "draft", "pages": 4}}]}`)
	if len(fails) != 0 {
		t.Fatal(fails)
	}
	m := NewMemory()
	m.ApplyAt(0, "2024-01-01", "", ops)
	upd, _ := ParseOps(`{"update_node": [{"node_id": "/Knowledge/Document/Draft/Plan", "node_details": {"status": "revised"}}]}`)
	log := m.ApplyAt(1, "2024-02-01", "", upd)
	if log[0].Attributes["status"] != "revised" {
		t.Errorf("the log entry lost the attribute: %+v", log[0])
	}
	n, _ := m.Node("/Knowledge/Document/Draft/Plan")
	if n.Attributes["status"] != "revised" || n.Attributes["pages"] != "4" || len(n.History) != 1 || n.History[0].Attributes["status"] != "draft" {
		t.Fatalf("node %+v", n)
	}
	var props map[string]any
	for _, gn := range m.Graph().Nodes {
		if gn.Key == n.ID {
			props = gn.Properties
		}
	}
	attrs, _ := props[extract.PropAttributes].(map[string]any)
	if attrs["status"] != "revised" || attrs["pages"] != "4" || props["path"] != n.ID {
		t.Errorf("graph properties %v", props)
	}
	if r, _ := Rebuild(m.Log(), 9).Node(n.ID); r.Attributes["status"] != "revised" || r.History[0].Attributes["status"] != "draft" {
		t.Errorf("rebuilt node %+v", r)
	}
	jan, _ := extract.ParseFactTime("2024-01-15", true)
	for _, gn := range extract.AsOf(m.Graph(), jan).Nodes {
		if a, _ := gn.Properties[extract.PropAttributes].(map[string]any); gn.Key == n.ID && a["status"] != "draft" {
			t.Errorf("as of January the status is %v; want draft", a["status"])
		}
	}
}
