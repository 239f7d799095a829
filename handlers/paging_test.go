package handlers_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// The node and edge tables page through every row, keeping the filter and
// sort in their links.
func TestVersion_TablesPage(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	d, err := extract.ReadDocument("many.txt", []byte("Many names."), 0)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err = a.AddDocument(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	var g extract.Graph
	for i := 0; i < 650; i++ {
		typ := "Person"
		if i%2 == 1 {
			typ = "Location"
		}
		g.Nodes = append(g.Nodes, extract.Node{Key: fmt.Sprintf("n%03d", i), Name: fmt.Sprintf("Name %03d", i), Type: typ})
		if i > 0 {
			g.Edges = append(g.Edges, extract.Edge{Source: fmt.Sprintf("n%03d", i-1), Target: fmt.Sprintf("n%03d", i), Label: "next", Weight: 1})
		}
	}
	v := a.importReference(t, "many", extract.Config{Strategy: "gold", Provider: "none"}, []int{d.ID}, g)
	base := fmt.Sprintf("/versions/%d", v.ID)
	_, doc := a.Get(t, base+"?sort=name")
	if n := doc.Find(`[data-testid="nodes"] tbody tr`).Length(); n != 300 {
		t.Fatalf("first page has %d node rows", n)
	}
	next, ok := doc.Find(`[data-testid="node-pager-next"]`).Attr("href")
	if !ok {
		t.Fatal("no link to the next page of nodes")
	}
	u, _ := url.Parse(next)
	if u.Query().Get("sort") != "name" || u.Query().Get("page") != "2" {
		t.Fatalf("next link %q loses the sort", next)
	}
	_, last := a.Get(t, base+"?sort=name&page=3")
	rows := last.Find(`[data-testid="nodes"] tbody tr`)
	if rows.Length() != 50 || !strings.Contains(rows.Last().Text(), "Name 649") {
		t.Fatalf("last page: %d rows, last %q", rows.Length(), rows.Last().Text())
	}
	// A filter pages within what it keeps.
	_, people := a.Get(t, base+"?type=Person&page=2")
	if n := people.Find(`[data-testid="nodes"] tbody tr`).Length(); n != 25 {
		t.Fatalf("people page 2: %d rows, want 25 of 325", n)
	}
	_, edges := a.Get(t, base+"?epage=3")
	if n := edges.Find(`[data-testid="edges"] tbody tr`).Length(); n != 49 {
		t.Fatalf("edges page 3: %d rows, want 49 of 649", n)
	}
}
