package handlers

import (
	"fmt"
	"testing"
)

func TestCapUnion(t *testing.T) {
	u := unionGraph{A: "x@1", B: "x@2"}
	statuses := []string{statusUnchanged, statusAdded, statusUnchanged, statusRemoved, statusUnchanged, statusChanged, statusUnchanged, statusUnchanged}
	for i, st := range statuses {
		u.Nodes = append(u.Nodes, unionNode{ID: fmt.Sprint("n", i), Status: st})
	}
	// n6 is the best-connected unchanged node, then n4.
	for _, e := range [][2]string{{"n6", "n0"}, {"n6", "n2"}, {"n6", "n4"}, {"n4", "n1"}, {"n7", "n3"}} {
		u.Edges = append(u.Edges, unionEdge{ID: e[0] + e[1], Source: e[0], Target: e[1], Status: statusUnchanged})
	}
	got := capUnion(u, 5)
	ids := map[string]bool{}
	for _, n := range got.Nodes {
		ids[n.ID] = true
	}
	for _, want := range []string{"n1", "n3", "n5", "n6", "n4"} {
		if !ids[want] {
			t.Fatalf("kept %v, missing %s", ids, want)
		}
	}
	if len(got.Nodes) != 5 {
		t.Fatalf("%d nodes kept", len(got.Nodes))
	}
	for _, e := range got.Edges {
		if !ids[e.Source] || !ids[e.Target] {
			t.Fatalf("edge %s leaves the kept nodes", e.ID)
		}
	}
	if len(got.Edges) != 2 { // n6-n4 and n4-n1
		t.Fatalf("%d edges kept: %+v", len(got.Edges), got.Edges)
	}
}
