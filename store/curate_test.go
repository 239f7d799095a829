package store_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// A merged graph saved as a child version is done, names its parent, keeps
// the kept node's aliases and the moved mentions, and leaves the parent's
// graph as it was.
func TestSaveGraphVersion_Merge(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "carol.txt", "Ebenezer Scrooge knew Jacob Marley. Mr. Scrooge signed it.")
		m := func(start, end int) []extract.Mention {
			return []extract.Mention{{DocumentID: d.ID, ChunkIndex: 0, Start: start, End: end}}
		}
		g := extract.Graph{
			Nodes: []extract.Node{
				{Key: "ebenezer scrooge", Name: "Ebenezer Scrooge", Type: "person", Description: "An old sinner.", Mentions: m(0, 16)},
				{Key: "mr. scrooge", Name: "Mr. Scrooge", Type: "person", Description: "He signed it.", Mentions: m(37, 48)},
				{Key: "jacob marley", Name: "Jacob Marley", Type: "person", Mentions: m(22, 34)},
			},
			Edges: []extract.Edge{
				{Source: "ebenezer scrooge", Label: "knew", Target: "jacob marley", Weight: 1},
				{Source: "mr. scrooge", Label: "knew", Target: "jacob marley", Weight: 1, Mentions: m(37, 48)},
			},
		}
		v1, err := s.SaveGraphVersion(ctx, "carol", extract.DefaultConfig(), []int{d.ID}, "", 0, g)
		if err != nil {
			t.Fatal(err)
		}
		before, err := s.LoadGraph(ctx, v1.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		merged, err := curate.Merge(before, "ebenezer scrooge", []string{"mr. scrooge"}, curate.MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v2, err := s.SaveGraphVersion(ctx, "carol", v1.Config, v1.DocumentIDs, "merge", v1.ID, merged)
		if err != nil {
			t.Fatal(err)
		}
		if v2.Number != 2 || v2.ParentID != v1.ID || v2.Status != record.StatusDone || v2.Nodes != 2 || v2.Edges != 1 || v2.Reference {
			t.Errorf("merged version %+v", v2)
		}
		got, err := s.LoadGraph(ctx, v2.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		k, err := curate.Resolve(got, "Ebenezer Scrooge")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(curate.Aliases(k), []string{"Mr. Scrooge"}) || len(k.Mentions) != 2 || k.Description != "An old sinner.\nHe signed it." {
			t.Errorf("kept node %+v", k)
		}
		if len(got.Edges) != 1 || got.Edges[0].Weight != 2 || len(got.Edges[0].Mentions) != 1 {
			t.Errorf("edges %+v, want one of weight 2 with its mention", got.Edges)
		}
		after, err := s.LoadGraph(ctx, v1.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(before, after) {
			t.Error("the merge changed the version it came from")
		}
	})
}

// Decisions are kept per extraction; ReplaceGraph swaps a version's graph
// for another and recounts it; AppendNote adds a line.
func TestDecisionsAndReplaceGraph(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "carol.txt", "Scrooge knew Marley.")
		g := extract.Graph{
			Nodes: []extract.Node{{Key: "a", Name: "A", Mentions: []extract.Mention{{DocumentID: d.ID}}}, {Key: "b", Name: "B"}},
			Edges: []extract.Edge{{Source: "a", Label: "x", Target: "b", Weight: 1}},
		}
		v, err := s.SaveGraphVersion(ctx, "dec", extract.DefaultConfig(), []int{d.ID}, "first", 0, g)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateDecisions(ctx, v.ExtractionID, func(dd *curate.Decisions) { dd.AddDistinct("b", "a"); dd.AddMerge("a", []string{"c"}) }); err != nil {
			t.Fatal(err)
		}
		got, err := s.Decisions(ctx, v.ExtractionID)
		if err != nil || !got.IsDistinct("a", "b") || len(got.Merges) != 1 || got.Merges[0].Keep != "a" {
			t.Errorf("decisions %+v, %v", got, err)
		}
		if err := s.ReplaceGraph(ctx, v.ID, extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "A"}}}); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendNote(ctx, v.ID, "second"); err != nil {
			t.Fatal(err)
		}
		v, err = s.Version(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		after, err := s.LoadGraph(ctx, v.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		if v.Nodes != 1 || v.Edges != 0 || len(after.Nodes) != 1 || len(after.Nodes[0].Mentions) != 0 || v.Note != "first\nsecond" {
			t.Errorf("after replace: %+v, graph %+v", v, after)
		}
	})
}

// An edit log and curation counts are stored on the version and read back
// with it; setting a count twice (a resumed run) does not add it up.
func TestSetEditsAndCurationStats(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "carol.txt", "Scrooge knew Marley.")
		g := extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "A"}}}
		v, err := s.SaveGraphVersion(ctx, "log", extract.DefaultConfig(), []int{d.ID}, "", 0, g)
		if err != nil {
			t.Fatal(err)
		}
		edits := []curate.Edit{{Op: curate.OpRename, Key: "a", Name: "Alpha"}, {Op: curate.OpSetProps, Key: "a", Properties: map[string]any{"age": 3.0, "old": nil}}}
		if err := s.SetEdits(ctx, v.ID, edits); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := s.SetInjected(ctx, v.ID, 4); err != nil {
				t.Fatal(err)
			}
			if err := s.SetDecisionsApplied(ctx, v.ID, 2, 6); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Version(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Edits, edits) {
			t.Errorf("edits %+v, want %+v", got.Edits, edits)
		}
		if got.Injected != 4 || got.MergesApplied != 2 || got.NotSameApplied != 6 {
			t.Errorf("counts %d %d %d", got.Injected, got.MergesApplied, got.NotSameApplied)
		}
	})
}

// A graph no run made (empty config) may be saved without documents; a
// run's version may not.
func TestSaveGraphVersion_NoDocuments(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		g := extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "A"}}}
		v, err := s.SaveGraphVersion(ctx, "imported", extract.Config{}, nil, "imported from a.json (json)", 0, g)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != record.StatusDone || len(v.DocumentIDs) != 0 || v.Nodes != 1 {
			t.Errorf("imported version %+v", v)
		}
		if _, err := s.SaveGraphVersion(ctx, "imported", extract.DefaultConfig(), nil, "", 0, g); err == nil || !strings.Contains(err.Error(), "pick at least one document") {
			t.Errorf("a run's version without documents: %v", err)
		}
	})
}

// ChildWithNote finds the version made from a parent with a given note,
// and no other.
func TestChildWithNote(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		g := extract.Graph{Nodes: []extract.Node{{Key: "scrooge", Name: "Scrooge"}}}
		v1, err := s.SaveGraphVersion(ctx, "carol", extract.Config{}, nil, "", 0, g)
		if err != nil {
			t.Fatal(err)
		}
		v2, err := s.SaveGraphVersion(ctx, "carol", extract.Config{}, nil, "merge of carol@1: x", v1.ID, g)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveGraphVersion(ctx, "carol", extract.Config{}, nil, "merge of carol@2: x", v2.ID, g); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.ChildWithNote(ctx, v1.ID, "merge of carol@1: x")
		if err != nil || !ok || got.ID != v2.ID || got.Label() != "carol@2" {
			t.Errorf("child of v1: %+v, %t, %v", got, ok, err)
		}
		for _, q := range []struct {
			parent int
			note   string
		}{{v1.ID, "merge of carol@1: y"}, {v2.ID, "merge of carol@1: x"}} {
			if got, ok, err := s.ChildWithNote(ctx, q.parent, q.note); err != nil || ok {
				t.Errorf("%d %q: %+v, %t, %v", q.parent, q.note, got, ok, err)
			}
		}
	})
}
