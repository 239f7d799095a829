package handlers_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
)

// cliques builds a graph of cliques, each a list of node names (the key
// is the lower-cased name), every pair of a clique linked.
func cliques(groups ...[]string) extract.Graph {
	var g extract.Graph
	for _, names := range groups {
		for i, a := range names {
			g.Nodes = append(g.Nodes, extract.Node{Key: strings.ToLower(a), Name: a, Type: "Person"})
			for _, b := range names[i+1:] {
				g.Edges = append(g.Edges, extract.Edge{Source: strings.ToLower(a), Target: strings.ToLower(b), Label: "knows", Weight: 1})
			}
		}
	}
	return g
}

// TestCompare_Communities: from a to b one community stays, one gains a
// member, one goes and one comes; the compare JSON and page say so, with
// the communities' titles and the member who joined.
func TestCompare_Communities(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	stay := []string{"Ada", "Alan", "Grace", "Edsger"}
	grow := []string{"Marie", "Pierre", "Irene", "Frederic"}
	gone := []string{"Romulus", "Remus", "Numa", "Tullus"}
	come := []string{"Sappho", "Homer", "Hesiod", "Pindar"}
	va := a.MustGraphVersion(t, "before", "communities", cliques(stay, grow, gone))
	vb := a.MustGraphVersion(t, "after", "communities", cliques(stay, append(slices.Clone(grow), "Eve"), come))

	var res app.CompareJSON
	if code := getJSON(t, a, comparePath("/api/compare", va.ID, vb.ID), &res); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	c := res.Communities
	if c.Before != 3 || c.After != 3 || c.Unchanged != 1 || len(c.New) != 1 || len(c.Gone) != 1 || len(c.Changed) != 1 {
		t.Fatalf("communities: %+v", c)
	}
	has := func(ch app.CommunityChange, names []string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.Contains(ch.Title, n) })
	}
	if n := c.New[0]; n.A != -1 || n.SizeB != 4 || !has(n, come) {
		t.Errorf("new: %+v", n)
	}
	if g := c.Gone[0]; g.B != -1 || g.SizeA != 4 || !has(g, gone) || g.RemovedCount != 4 {
		t.Errorf("gone: %+v", g)
	}
	ch := c.Changed[0]
	if ch.SizeA != 4 || ch.SizeB != 5 || !slices.Equal(ch.Added, []string{"Eve"}) || ch.AddedCount != 1 || ch.RemovedCount != 0 || ch.Jaccard != 0.8 {
		t.Errorf("changed: %+v", ch)
	}
	// The diff's own fields are where they were.
	if res.Summary.Nodes.Added != 5 || res.Summary.Nodes.Removed != 4 {
		t.Errorf("nodes: %+v", res.Summary.Nodes)
	}

	_, doc := a.Get(t, comparePath("/compare", va.ID, vb.ID))
	rows := doc.Find(`[data-testid="community-change"]`)
	if rows.Length() != 3 {
		t.Fatalf("%d community rows, want 3", rows.Length())
	}
	want := map[string][]string{"new": come, "gone": gone, "changed": grow}
	for i := range rows.Length() {
		r := rows.Eq(i)
		status, _ := r.Attr("data-status")
		title := r.Find(`[data-testid="community-title"]`).Text()
		if !slices.ContainsFunc(want[status], func(n string) bool { return strings.Contains(title, n) }) {
			t.Errorf("row %d: %s %q", i, status, title)
		}
		if status == "changed" && strings.TrimSpace(r.Find(`[data-testid="community-joined"]`).Text()) != "Eve" {
			t.Errorf("changed row: joined %q", r.Find(`[data-testid="community-joined"]`).Text())
		}
	}
	if s := doc.Find(`[data-testid="community-summary"]`).Text(); !strings.Contains(s, "1 unchanged") {
		t.Errorf("summary %q", s)
	}
}
