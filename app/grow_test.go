package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// A finished extraction of ten documents grows by an eleventh: the new
// version runs a chunk job for the new document's chunks only, and its
// graph has the same nodes and edges as one extraction of all eleven.
func TestGrow_ExtractsOnlyNewChunks(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testGrow(t, sqliteApp(t, Providers{}, nil))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		testGrow(t, pgApps(t, 1, Providers{})[0])
	})
}

var growNames = []string{"Ada Lovelace", "Charles Babbage", "Mary Somerville", "Michael Faraday", "Caroline Herschel",
	"John Herschel", "Augustus De Morgan", "George Boole", "Florence Nightingale", "Charles Dickens", "Isambard Brunel"}

func growDoc(i int) string {
	var b strings.Builder
	for j := range 6 {
		fmt.Fprintf(&b, "%s wrote to %s from London in %d. ", growNames[i], growNames[(i+j+1)%len(growNames)], 1830+i+j)
	}
	return b.String()
}

func testGrow(t *testing.T, a *App) {
	ctx := context.Background()
	cfg := extract.DefaultConfig()
	cfg.ChunkSize, cfg.Overlap = 200, 0
	var ids []int
	for i := range 11 {
		ids = append(ids, addDoc(t, a.store, fmt.Sprintf("letters%02d.txt", i), growDoc(i)).ID)
	}
	v, _ := mustRun(t, a, RunRequest{Extraction: "letters", Config: cfg, DocumentIDs: ids[:10]})
	whole, wg := mustRun(t, a, RunRequest{Extraction: "whole", Config: cfg, DocumentIDs: ids})
	var err error
	if v, err = a.store.Version(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	if whole, err = a.store.Version(ctx, whole.ID); err != nil {
		t.Fatal(err)
	}

	if _, err := a.Runs.Grow(ctx, v, ids[:3]); extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("growing by documents it has: %v, want invalid", err)
	}
	nv, err := a.Runs.Grow(ctx, v, ids[9:])
	if err != nil {
		t.Fatal(err)
	}
	if nv.ParentID != v.ID || !slices.Equal(nv.DocumentIDs, ids) || !strings.Contains(nv.Note, "1 new documents") {
		t.Errorf("grown version: parent %d, documents %v, note %q", nv.ParentID, nv.DocumentIDs, nv.Note)
	}
	if err := a.Runs.Run(ctx, nv, nil); err != nil {
		t.Fatal(err)
	}
	newChunks, err := a.Versions.Chunks(ctx, nv, ids[10])
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := a.Runs.Jobs(ctx, nv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ran := jobs.Counts.Completed - 1; ran < 1 || ran > len(newChunks) {
		t.Errorf("the grown version ran %d chunk jobs; the new document has %d chunks", ran, len(newChunks))
	}
	if nv, err = a.store.Version(ctx, nv.ID); err != nil {
		t.Fatal(err)
	}
	if nv.Status != record.StatusDone || nv.ChunksDone != whole.ChunksTotal || nv.ChunksTotal != whole.ChunksTotal {
		t.Errorf("grown: %s, %d of %d chunks; one run of all: %d", nv.Status, nv.ChunksDone, nv.ChunksTotal, whole.ChunksTotal)
	}
	g, err := a.store.LoadGraph(ctx, nv.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(g extract.Graph) []string {
		m := map[string]bool{}
		for _, n := range g.Nodes {
			m[n.Key] = true
		}
		for _, e := range g.Edges {
			m[e.Source+" -"+e.Label+"-> "+e.Target] = true
		}
		return slices.Sorted(maps.Keys(m))
	}
	if got, want := keys(g), keys(wg); !slices.Equal(got, want) {
		t.Errorf("grown graph differs from one run of all eleven documents:\n got %d %v\nwant %d %v", len(got), got, len(want), want)
	}
	if !slices.ContainsFunc(g.Nodes, func(n extract.Node) bool { return n.Name == "Isambard Brunel" }) {
		t.Error("the new document's Isambard Brunel is not in the grown graph")
	}
	if _, err := a.Runs.Grow(ctx, record.Version{ID: nv.ID, Status: record.StatusFailed, ChunksTotal: 3}, ids[10:]); extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("growing a failed run: %v, want invalid", err)
	}
}

// Taking a document out of a finished extraction: what only it named is
// gone, and a node it shared keeps only what the other documents say of
// it; the graph is the one a run of the others makes.
func TestWithout_TakesADocumentOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := sqliteApp(t, Providers{}, nil)
	cfg := extract.DefaultConfig()
	docs := []string{
		"Ada Lovelace wrote to Charles Babbage from London. Charles Babbage answered Ada Lovelace.",
		"Mary Somerville met Michael Faraday in London. Michael Faraday thanked Mary Somerville.",
		"Isambard Brunel built a bridge in Bristol with Charles Babbage. Charles Babbage admired the bridge in Bristol.",
	}
	var ids []int
	for i, text := range docs {
		ids = append(ids, addDoc(t, a.store, fmt.Sprintf("d%d.txt", i), text).ID)
	}
	v, all := mustRun(t, a, RunRequest{Extraction: "science", Config: cfg, DocumentIDs: ids})
	if !slices.ContainsFunc(all.Nodes, func(n extract.Node) bool { return strings.Contains(n.Name, "Brunel") }) {
		t.Fatal("the run of all three documents has no Brunel")
	}
	_, rest := mustRun(t, a, RunRequest{Extraction: "rest", Config: cfg, DocumentIDs: ids[:2]})
	var err error
	if v, err = a.store.Version(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Runs.Without(ctx, v, []string{"nope.txt"}); extract.KindOf(err) != extract.KindNotFound {
		t.Errorf("a document the version lacks: %v", err)
	}
	if _, err := a.Runs.Without(ctx, v, []string{"d0.txt", "d1.txt", fmt.Sprint(ids[2])}); extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("taking every document out: %v", err)
	}
	nv, err := a.Runs.Without(ctx, v, []string{"d2.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Runs.Run(ctx, nv, nil); err != nil {
		t.Fatal(err)
	}
	g, err := a.store.LoadGraph(ctx, nv.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	names := func(g extract.Graph) []string {
		var out []string
		for _, n := range g.Nodes {
			out = append(out, n.Name+": "+n.Description)
		}
		slices.Sort(out)
		return out
	}
	if got, want := names(g), names(rest); !slices.Equal(got, want) {
		t.Errorf("without d2.txt:\n got %q\nwant %q", got, want)
	}
	for _, n := range g.Nodes {
		if strings.Contains(n.Name, "Brunel") || strings.Contains(n.Description, "Bristol") {
			t.Errorf("node %q (%q) still holds what only d2.txt said", n.Name, n.Description)
		}
	}
	if nv.ParentID != v.ID || !strings.Contains(nv.Note, "without 1 document") {
		t.Errorf("parent %d, note %q", nv.ParentID, nv.Note)
	}
}
