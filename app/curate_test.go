package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
)

// Review decisions applied together make one version holding every
// merge, in order (a later merge follows the node an earlier one folded
// away) and remember the "not the same" pairs; the same merges again, or
// a merge of what is already one node, are refused and save nothing.
func TestCuration_ApplyDecisionsAsOneVersion(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testApplyDecisions(t, sqliteApp(t, Providers{}, nil))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		testApplyDecisions(t, pgApps(t, 1, Providers{})[0])
	})
}

func testApplyDecisions(t *testing.T, a *App) {
	ctx := context.Background()
	node := func(key, name string) extract.Node { return extract.Node{Key: key, Name: name, Type: "Person"} }
	g := extract.Graph{
		Nodes: []extract.Node{node("ebenezer scrooge", "Ebenezer Scrooge"), node("mr. scrooge", "Mr. Scrooge"),
			node("scrooge", "Scrooge"), node("jacob marley", "Jacob Marley"), node("marley", "Marley"), node("fred", "Fred")},
		Edges: []extract.Edge{{Source: "mr. scrooge", Target: "marley", Label: "partner", Weight: 1},
			{Source: "scrooge", Target: "fred", Label: "uncle", Weight: 1}},
	}
	doc := addDoc(t, a.store, "carol.txt", "Ebenezer Scrooge, Mr. Scrooge and Jacob Marley.")
	v, err := a.store.SaveGraphVersion(ctx, "carol", extract.DefaultConfig(), []int{doc.ID}, "", 0, g)
	if err != nil {
		t.Fatal(err)
	}
	before := mustVersionCount(t, a, "carol")
	d := Decisions{
		Merges: []MergeRequest{
			{Keep: "Ebenezer Scrooge", Drop: []string{"Mr. Scrooge"}},
			{Keep: "Jacob Marley", Drop: []string{"marley"}},
			// Mr. Scrooge went into Ebenezer Scrooge above: this folds
			// Scrooge into that node too.
			{Keep: "Mr. Scrooge", Drop: []string{"Scrooge"}},
		},
		Distinct: [][2]string{{"Fred", "Scrooge"}},
	}
	nv, made, err := a.Curation.Apply(ctx, v, d)
	if err != nil || !made {
		t.Fatalf("apply: %v (made %t)", err, made)
	}
	if n := mustVersionCount(t, a, "carol"); n != before+1 {
		t.Errorf("%d versions after one batch of three merges, want %d", n, before+1)
	}
	if nv.ParentID != v.ID || nv.Nodes != 3 {
		t.Errorf("new version: parent %d, %d nodes, want parent %d and 3 nodes", nv.ParentID, nv.Nodes, v.ID)
	}
	for _, want := range []string{`"Mr. Scrooge" into "Ebenezer Scrooge"`, `"Marley" into "Jacob Marley"`, `"Scrooge" into "Ebenezer Scrooge"`} {
		if !strings.Contains(nv.Note, want) {
			t.Errorf("note %q lacks %s", nv.Note, want)
		}
	}
	merged, err := a.store.LoadGraph(ctx, nv.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, n := range merged.Nodes {
		keys = append(keys, n.Key)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"ebenezer scrooge", "fred", "jacob marley"}) {
		t.Errorf("merged nodes %v", keys)
	}
	if len(merged.Edges) != 2 || merged.Edges[0].Source == "scrooge" || merged.Edges[1].Source == "scrooge" {
		t.Errorf("merged edges %+v", merged.Edges)
	}
	rec, err := a.store.Decisions(ctx, v.ExtractionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Merges) != 3 || !rec.IsDistinct("fred", "scrooge") {
		t.Errorf("recorded decisions %+v", rec)
	}

	// The same batch on the same version is a no-op: refused, nothing saved.
	if _, _, err := a.Curation.Apply(ctx, v, Decisions{Merges: d.Merges}); extract.KindOf(err) != extract.KindConflict || !strings.Contains(err.Error(), nv.Label()) {
		t.Errorf("the same merges again: %v, want a conflict naming %s", err, nv.Label())
	}
	if _, err := a.Curation.Merge(ctx, v, "Jacob Marley", []string{"Marley"}); err != nil {
		t.Errorf("a different single merge: %v", err)
	}
	if _, err := a.Curation.Merge(ctx, v, "Jacob Marley", []string{"Marley"}); extract.KindOf(err) != extract.KindConflict {
		t.Errorf("the same single merge twice: %v, want a conflict", err)
	}
	// On the merged version, Ebenezer and Mr. Scrooge are one node.
	if _, err := a.Curation.Merge(ctx, nv, "Ebenezer Scrooge", []string{"ebenezer scrooge"}); extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("merging a node into itself: %v, want invalid", err)
	}
	if _, _, err := a.Curation.Apply(ctx, v, Decisions{}); extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("no decisions: %v, want invalid", err)
	}
	after := mustVersionCount(t, a, "carol")
	if after != before+2 {
		t.Errorf("%d versions, want %d (one batch, one single merge)", after, before+2)
	}

	// Only answers to remember: no version.
	same, made, err := a.Curation.Apply(ctx, nv, Decisions{Distinct: [][2]string{{"Fred", "Jacob Marley"}}})
	if err != nil || made || same.ID != nv.ID {
		t.Errorf("distinct only: version %d, made %t, %v", same.ID, made, err)
	}
	if cs, err := a.Curation.Duplicates(ctx, nv); err != nil {
		t.Fatal(err)
	} else if slices.ContainsFunc(cs, func(c curate.Candidate) bool { return c.Keep.Key == "fred" || c.Drop.Key == "fred" }) {
		t.Errorf("a pair kept apart is still a candidate: %+v", cs)
	}
	if n := mustVersionCount(t, a, "carol"); n != after {
		t.Errorf("%d versions after answers only, want %d", n, after)
	}
}

func mustVersionCount(t *testing.T, a *App, name string) int {
	t.Helper()
	vs, err := a.store.RecentVersions(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vs {
		if v.Extraction == name {
			n++
		}
	}
	return n
}
