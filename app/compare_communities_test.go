package app

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/diff"
)

// A community is named by its model report's title when it has one, in
// the comparison and in the graph's colouring by community; a node
// renamed by an edit (the diff pairs its keys) stays in its community.
func TestCompareCommunities_TitlesAndRenames(t *testing.T) {
	node := func(key, name string) extract.Node { return extract.Node{Key: key, Name: name, Type: "Person"} }
	ga := extract.Graph{Nodes: []extract.Node{node("a", "Ann"), node("b", "Bo"), node("c", "Cy"), node("d", "Di")}}
	gb := extract.Graph{Nodes: []extract.Node{node("a", "Ann"), node("b", "Bo"), node("c", "Cyrus"), node("e", "Ed")}}
	res := diff.Result{Nodes: diff.NodeDiff{Changed: []diff.NodeChange{{KeyA: "c", KeyB: "c"}}}}
	ra := community.Result{Levels: 1, Communities: []community.Community{
		{ID: 0, Parent: -1, Size: 3, Title: "Ann, Bo and Cy", Members: []string{"a", "b", "c"}},
		{ID: 1, Parent: -1, Size: 1, Title: "Di", Members: []string{"d"}}}}
	rb := community.Result{Levels: 1, Communities: []community.Community{
		{ID: 0, Parent: -1, Size: 4, Title: "Ann, Bo and Cyrus", Members: []string{"a", "b", "c", "e"}}},
		Reports: []community.Report{{Community: 0, Title: "The reading circle"}}}
	c := compareCommunities(ra, rb, ga, gb, res, diff.Options{})
	if c.Before != 1 || c.After != 1 || len(c.Changed) != 1 || len(c.New)+len(c.Gone) != 0 {
		t.Fatalf("%+v", c)
	}
	ch := c.Changed[0]
	if ch.Title != "The reading circle" || ch.TitleA != "Ann, Bo and Cy" || ch.AddedCount != 1 || ch.Added[0] != "Ed" || ch.RemovedCount != 0 {
		t.Fatalf("changed: %+v", ch)
	}
	if got := titlesOf(rb)(rb.Communities[0]); got != "The reading circle" {
		t.Errorf("colouring title %q", got)
	}
}
