package extract

import (
	"slices"
	"testing"
	"time"
)

// timeline is a small memory graph: a home that moved (one expired edge
// and one current), a mood whose value changed (history), a node said
// only later, and a node without times.
func timeline() Graph {
	return Graph{
		Nodes: []Node{
			{Key: "/User", Name: "User"},
			{Key: "/Knowledge/Place/Boston", Name: "Boston", Properties: map[string]any{PropValidAt: "2023-01-10"}},
			{Key: "/Knowledge/Place/Denver", Name: "Denver", Properties: map[string]any{PropValidAt: "2023-06-01T10:00:00Z"}},
			{Key: "/User/Status/CurrentMood", Name: "Calm", Description: "Settled in Denver",
				Properties: map[string]any{PropValidAt: "2023-06-01T10:00:00Z", PropHistory: []any{
					map[string]any{"since": 0, "until": 2, "label": "Anxious", "description": "Before the move", PropValidAt: "2023-01-10", PropInvalidAt: "2023-03-05"},
					map[string]any{"since": 2, "until": 5, "label": "Busy", "description": "Packing boxes", PropValidAt: "2023-03-05", PropInvalidAt: "2023-06-01T10:00:00Z"},
				}}},
		},
		Edges: []Edge{
			{Source: "/User", Target: "/Knowledge/Place/Boston", Label: "LIVES_IN", Properties: map[string]any{
				PropValidAt: "2023-01-10", PropInvalidAt: "2023-06-01T10:00:00Z", PropExpired: true, "reason": "replaced by Denver"}},
			{Source: "/User", Target: "/Knowledge/Place/Denver", Label: "LIVES_IN", Properties: map[string]any{PropValidAt: "2023-06-01T10:00:00Z"}},
			{Source: "/User", Target: "/User/Status/CurrentMood", Label: "has"},
		},
	}
}

func edgeTargets(g Graph) map[string]bool {
	out := map[string]bool{}
	for _, e := range g.Edges {
		out[e.Target] = true
	}
	return out
}

func nodeOf(g Graph, key string) (Node, bool) {
	for _, n := range g.Nodes {
		if n.Key == key {
			return n, true
		}
	}
	return Node{}, false
}

func TestCurrent_DropsExpiredFacts(t *testing.T) {
	g := Current(timeline())
	if got := edgeTargets(g); got["/Knowledge/Place/Boston"] || !got["/Knowledge/Place/Denver"] || !got["/User/Status/CurrentMood"] {
		t.Errorf("current edges go to %v; want Denver and the mood, not Boston", got)
	}
	if len(g.Nodes) != 4 {
		t.Errorf("%d nodes; expired values live in history, no node is dropped", len(g.Nodes))
	}
}

func TestAsOf(t *testing.T) {
	day := func(s string) time.Time {
		tm, ok := ParseFactTime(s, true)
		if !ok {
			t.Fatalf("unreadable %q", s)
		}
		return tm
	}
	t.Run("BeforeTheMove", func(t *testing.T) {
		g := AsOf(timeline(), day("2023-02-01"))
		got := edgeTargets(g)
		if !got["/Knowledge/Place/Boston"] || got["/Knowledge/Place/Denver"] {
			t.Errorf("edges go to %v; want Boston only", got)
		}
		for _, e := range g.Edges {
			if Expired(e.Properties) {
				t.Errorf("edge %s->%s is marked expired although it held then", e.Source, e.Target)
			}
		}
		if _, ok := nodeOf(g, "/Knowledge/Place/Denver"); ok {
			t.Error("Denver was not known yet")
		}
		mood, _ := nodeOf(g, "/User/Status/CurrentMood")
		if mood.Name != "Anxious" || mood.Description != "Before the move" || mood.Properties[PropHistory] != nil {
			t.Errorf("mood as of February = %q %q (history %v); want the first value", mood.Name, mood.Description, mood.Properties[PropHistory])
		}
		if _, ok := nodeOf(g, "/User"); !ok {
			t.Error("a node without times is always kept")
		}
	})
	t.Run("DuringThePacking", func(t *testing.T) {
		g := AsOf(timeline(), day("2023-03-05")) // the whole day the value changed
		mood, _ := nodeOf(g, "/User/Status/CurrentMood")
		if h, _ := mood.Properties[PropHistory].([]any); mood.Name != "Busy" || len(h) != 1 {
			t.Errorf("mood = %q with %d earlier values; want Busy after one", mood.Name, len(h))
		}
	})
	t.Run("AfterTheMove", func(t *testing.T) {
		g := AsOf(timeline(), day("2024-01-01"))
		if got := edgeTargets(g); got["/Knowledge/Place/Boston"] || !got["/Knowledge/Place/Denver"] {
			t.Errorf("edges go to %v; want Denver only", got)
		}
		mood, _ := nodeOf(g, "/User/Status/CurrentMood")
		if mood.Name != "Calm" {
			t.Errorf("mood = %q; want the current value", mood.Name)
		}
	})
	t.Run("BeforeEverything", func(t *testing.T) {
		g := AsOf(timeline(), day("2022-12-31"))
		if len(g.Nodes) != 1 || len(g.Edges) != 0 {
			t.Errorf("%d nodes, %d edges before the first fact; want the timeless node only", len(g.Nodes), len(g.Edges))
		}
	})
}

func TestParseFactTime(t *testing.T) {
	for _, s := range []string{"2023-05-08", "2023-05-08T13:56:00Z", " 2023-05-08 "} {
		if _, ok := ParseFactTime(s, false); !ok {
			t.Errorf("%q unreadable", s)
		}
	}
	for _, s := range []string{"", "yesterday", "2023/05/08", "8 May 2023"} {
		if _, ok := ParseFactTime(s, false); ok {
			t.Errorf("%q read as a time", s)
		}
	}
	end, _ := ParseFactTime("2023-05-08", true)
	if end.Format("15:04") != "23:59" {
		t.Errorf("a date as-of ends at %s; want the end of the day", end)
	}
}

func TestExpiredBy(t *testing.T) {
	day := func(s string) time.Time { tm, _ := ParseFactTime(s, true); return tm }
	if got := ExpiredBy(timeline(), day("2023-02-01")); len(got) != 0 {
		t.Errorf("before the move %d edges had ended; want none", len(got))
	}
	got := ExpiredBy(timeline(), day("2023-07-01"))
	if len(got) != 1 || got[0].Target != "/Knowledge/Place/Boston" || got[0].Properties["reason"] != "replaced by Denver" {
		t.Errorf("after the move the ended edges are %+v; want the Boston home with its reason", got)
	}
}

func TestFactDays(t *testing.T) {
	got := FactDays(timeline())
	want := []string{"2023-01-10", "2023-03-05", "2023-06-01"}
	if !slices.Equal(got, want) {
		t.Errorf("days %v; want %v (node, history and edge times, once each)", got, want)
	}
	if got := FactDays(Graph{Nodes: []Node{{Key: "a"}}}); len(got) != 0 {
		t.Errorf("a graph without times has days %v", got)
	}
}

// A node that ended only after the as-of time held then: AsOf drops its
// end marks, as it does an edge's.
func TestAsOf_NodeEndedLater(t *testing.T) {
	g := Graph{Nodes: []Node{{Key: "job", Name: "Acme", Properties: map[string]any{
		PropValidAt: "2023-01-01", PropInvalidAt: "2023-06-01", PropExpired: true, "reason": "left"}}}}
	mar, _ := ParseFactTime("2023-03-01", true)
	then := AsOf(g, mar)
	if len(then.Nodes) != 1 || Expired(then.Nodes[0].Properties) || then.Nodes[0].Properties["reason"] != nil {
		t.Errorf("as of March: %+v; want the node without its later end", then.Nodes)
	}
	if !Expired(g.Nodes[0].Properties) {
		t.Error("the input was changed")
	}
	jul, _ := ParseFactTime("2023-07-01", true)
	if len(AsOf(g, jul).Nodes) != 0 {
		t.Error("as of July the ended node is still there")
	}
}
