package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/store"
)

// rowCounts counts the rows a deletion must leave nothing of.
func rowCounts(t *testing.T, s *store.Store) map[string]int {
	t.Helper()
	ctx := context.Background()
	c := store.EntClient(s)
	out := map[string]int{}
	for name, count := range map[string]func(context.Context) (int, error){
		"documents":       c.Document.Query().Count,
		"chunks":          c.Chunk.Query().Count,
		"extractions":     c.Extraction.Query().Count,
		"versions":        c.ExtractionVersion.Query().Count,
		"nodes":           c.Node.Query().Count,
		"edges":           c.Edge.Query().Count,
		"chunk_runs":      c.ChunkRun.Query().Count,
		"schemas":         c.KGSchema.Query().Count,
		"entities":        c.EntityType.Query().Count,
		"vectors":         c.Vector.Query().Count,
		"vector_sets":     c.VectorSet.Query().Count,
		"version_indexes": c.VersionIndex.Query().Count,
	} {
		n, err := count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = n
	}
	return out
}

// finishedVersion makes a done version over doc with a small graph written
// through the sink.
func finishedVersion(t *testing.T, s *store.Store, name string, cfg extract.Config, doc extract.Document) record.Version {
	t.Helper()
	ctx := context.Background()
	if err := s.SaveChunks(ctx, doc.ID, "t", extract.Split(doc, 200, 0, false)); err != nil {
		t.Fatal(err)
	}
	v, err := s.NewVersion(ctx, name, cfg, []int{doc.ID}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartVersion(ctx, v.ID, 1); err != nil {
		t.Fatal(err)
	}
	m := []extract.Mention{{DocumentID: doc.ID, ChunkIndex: 0, Start: 0, End: 6}}
	res := extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: doc.ID}, Graph: extract.Graph{
		Nodes: []extract.Node{{Key: "marley", Name: "Marley", Type: "Person", Mentions: m}, {Key: "scrooge", Name: "Scrooge", Type: "Person", Mentions: m}},
		Edges: []extract.Edge{{Source: "marley", Target: "scrooge", Label: "partner_of", Weight: 1, Mentions: m}},
	}}
	if err := s.Sink(v.ID, 8).WriteChunk(ctx, res); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishVersion(ctx, v.ID, record.StatusDone, time.Second, ""); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestStore_Delete(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if err := s.EnsureDefaultSchema(ctx); err != nil {
			t.Fatal(err)
		}
		empty := rowCounts(t, s)
		doc := mustDoc(t, s, "marley.txt", "Marley was dead. Scrooge signed it.")
		if _, _, err := s.SaveSchema(ctx, "people", 0, schema.Default(), ""); err != nil {
			t.Fatal(err)
		}
		cfg := extract.DefaultConfig()
		cfg.SchemaName, cfg.SchemaVersion = "people", 1
		v1 := finishedVersion(t, s, "carol", cfg, doc)
		v2 := finishedVersion(t, s, "carol", extract.DefaultConfig(), doc)
		for _, v := range []record.Version{v1, v2} {
			mustSaveVectors(t, s, v.ID, 3)
		}
		running, err := s.NewVersion(ctx, "other", extract.DefaultConfig(), []int{doc.ID}, "")
		if err != nil {
			t.Fatal(err)
		}

		conflict := func(err error, want ...string) {
			t.Helper()
			if extract.KindOf(err) != extract.KindConflict {
				t.Fatalf("got %v, want a conflict", err)
			}
			for _, w := range want {
				if !strings.Contains(extract.MessageOf(err), w) {
					t.Fatalf("message %q does not name %q", extract.MessageOf(err), w)
				}
			}
		}
		t.Run("UsedDocumentStays", func(t *testing.T) {
			conflict(s.DeleteDocument(ctx, doc.ID), "carol@1", "carol@2", "other@1")
		})
		t.Run("UsedSchemaStays", func(t *testing.T) {
			conflict(s.DeleteSchema(ctx, "people"), "carol@1")
		})
		t.Run("ActiveVersionStays", func(t *testing.T) {
			conflict(s.DeleteVersion(ctx, running.ID), "other@1", "cancel")
			_, err := s.DeleteExtraction(ctx, "other")
			conflict(err, "other@1")
		})
		t.Run("DefaultSchemaStays", func(t *testing.T) {
			if err := s.DeleteSchema(ctx, store.DefaultSchemaName); extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("deleting the default schema: %v", err)
			}
		})
		t.Run("Unknown", func(t *testing.T) {
			for _, err := range []error{s.DeleteVersion(ctx, 99999), s.DeleteDocument(ctx, 99999), s.DeleteSchema(ctx, "nope")} {
				if extract.KindOf(err) != extract.KindNotFound {
					t.Fatalf("got %v, want not found", err)
				}
			}
		})
		t.Run("ReferenceStays", func(t *testing.T) {
			rc := extract.DefaultConfig()
			rc.Reference = "carol@2"
			inj := finishedVersion(t, s, "injected", rc, doc)
			conflict(s.DeleteVersion(ctx, v2.ID), "carol@2 is the reference graph of injected@1")
			_, err := s.DeleteExtraction(ctx, "carol")
			conflict(err, "injected@1")
			if err := s.DeleteVersion(ctx, inj.ID); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("VersionThenExtraction", func(t *testing.T) {
			if err := s.DeleteVersion(ctx, v1.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Version(ctx, v1.ID); extract.KindOf(err) != extract.KindNotFound {
				t.Fatalf("deleted version still loads: %v", err)
			}
			if _, ok, err := s.VectorStatsOf(ctx, v1.ID); ok || err != nil {
				t.Fatalf("deleted version keeps its vector stats (%v)", err)
			}
			if items, err := s.Vectors(ctx, v2.ID); err != nil || len(items) != 9 {
				t.Fatalf("the other version lost its vectors: %d, %v", len(items), err)
			}
			if g, err := s.LoadGraph(ctx, v2.ID, true); err != nil || len(g.Nodes) != 2 || len(g.Edges) != 1 {
				t.Fatalf("the other version lost its graph: %+v %v", g, err)
			}
			if err := s.DeleteSchema(ctx, "people"); err != nil {
				t.Fatalf("schema no longer used: %v", err)
			}
			// The last version takes its extraction with it.
			if err := s.DeleteVersion(ctx, v2.ID); err != nil {
				t.Fatal(err)
			}
			if err := s.FinishVersion(ctx, running.ID, record.StatusCanceled, 0, ""); err != nil {
				t.Fatal(err)
			}
			if n, err := s.DeleteExtraction(ctx, "other"); err != nil || n != 1 {
				t.Fatalf("delete extraction: %d versions, %v", n, err)
			}
			if err := s.DeleteDocument(ctx, doc.ID); err != nil {
				t.Fatal(err)
			}
			if got := rowCounts(t, s); !equalCounts(got, empty) {
				t.Fatalf("rows left behind: %v, want %v", got, empty)
			}
		})
	})
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
