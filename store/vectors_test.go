package store_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// vectorItems makes n items of every kind with distinct vectors.
func vectorItems(n int) []store.VectorItem {
	var out []store.VectorItem
	for i := range n {
		f := float32(i)
		out = append(out,
			store.VectorItem{Kind: store.VectorChunk, Key: fmt.Sprintf("1:%d", i), Vector: []float32{f, 0.5, -1}},
			store.VectorItem{Kind: store.VectorNode, Key: fmt.Sprintf("node%d", i), Vector: []float32{0.25, f, 2}},
			store.VectorItem{Kind: store.VectorEdge, Key: fmt.Sprintf("a\x1frel\x1fb%d", i), Vector: []float32{-f, 1e-3, 3}})
	}
	return out
}

// mustSaveVectors stores n vectors of every kind for a version.
func mustSaveVectors(t *testing.T, s *store.Store, versionID, n int) []store.VectorItem {
	t.Helper()
	items := vectorItems(n)
	st := record.VectorStats{Embedder: "openai", Model: "m1", Dimensions: 3, Calls: 2, Tokens: 40, Cached: 1}
	if err := s.SaveVectors(context.Background(), versionID, st, items); err != nil {
		t.Fatal(err)
	}
	return items
}

// equalItems compares vectors as stored: float16, each component within
// 1/2048 of its own size.
func equalItems(a, b []store.VectorItem) bool {
	return slices.EqualFunc(a, b, func(x, y store.VectorItem) bool {
		return x.Kind == y.Kind && x.Key == y.Key && slices.EqualFunc(x.Vector, y.Vector, func(p, q float32) bool {
			return math.Abs(float64(p-q)) <= math.Abs(float64(p))/2048+1e-7
		})
	})
}

func TestStore_Vectors(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		doc := mustDoc(t, s, "marley.txt", "Marley was dead. Scrooge signed it.")
		v := finishedVersion(t, s, "carol", extract.DefaultConfig(), doc)
		other := finishedVersion(t, s, "carol", extract.DefaultConfig(), doc)

		if _, ok, err := s.VectorStatsOf(ctx, v.ID); ok || err != nil {
			t.Fatalf("a version without vectors has stats (%v)", err)
		}
		if items, err := s.Vectors(ctx, v.ID); err != nil || len(items) != 0 {
			t.Fatalf("vectors before the vectorizer: %d, %v", len(items), err)
		}

		// More than one insert batch; every vector comes back (as float16).
		items := mustSaveVectors(t, s, v.ID, 400)
		got, err := s.Vectors(ctx, v.ID)
		if err != nil || !equalItems(got, items) {
			t.Fatalf("Vectors returned %d items (%v), want the %d saved", len(got), err, len(items))
		}
		st, ok, err := s.VectorStatsOf(ctx, v.ID)
		want := record.VectorStats{Embedder: "openai", Model: "m1", Dimensions: 3, Vectors: len(items), Calls: 2, Tokens: 40, Cached: 1}
		if !ok || err != nil || st != want {
			t.Fatalf("stats %+v (%v, %v), want %+v", st, ok, err, want)
		}

		// Saving again replaces the vectors and the stats.
		mustSaveVectors(t, s, other.ID, 2)
		small := vectorItems(1)
		if err := s.SaveVectors(ctx, v.ID, record.VectorStats{Embedder: "offline", Model: "m2", Dimensions: 3}, small); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Vectors(ctx, v.ID); err != nil || !equalItems(got, small) {
			t.Fatalf("after a re-save: %d items, %v", len(got), err)
		}
		if st, _, _ := s.VectorStatsOf(ctx, v.ID); st.Model != "m2" || st.Vectors != 3 || st.Calls != 0 {
			t.Fatalf("stats after a re-save %+v", st)
		}
		if got, err := s.Vectors(ctx, other.ID); err != nil || len(got) != 6 {
			t.Fatalf("the other version's vectors: %d, %v", len(got), err)
		}

		// Deleting the extraction takes every version's vectors with it.
		if _, err := s.DeleteExtraction(ctx, "carol"); err != nil {
			t.Fatal(err)
		}
		counts := rowCounts(t, s)
		if counts["vectors"] != 0 || counts["vector_sets"] != 0 {
			t.Fatalf("rows left after deleting the extraction: %v", counts)
		}
	})
}

// TestStore_KindVectors: community reports' vectors are stored beside the
// others and read back by kind.
func TestStore_KindVectors(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		doc := mustDoc(t, s, "marley.txt", "Marley was dead. Scrooge signed it.")
		v := finishedVersion(t, s, "carol", extract.DefaultConfig(), doc)
		reports := []store.VectorItem{{Kind: store.VectorReport, Key: "3", Vector: []float32{0.5, 0.25, -1}},
			{Kind: store.VectorReport, Key: "7", Vector: []float32{1, 0, 0}}}
		items := append(vectorItems(2), reports...)
		if err := s.SaveVectors(ctx, v.ID, record.VectorStats{Embedder: "openai", Model: "m1", Dimensions: 3}, items); err != nil {
			t.Fatal(err)
		}
		if got, err := s.KindVectors(ctx, v.ID, store.VectorReport); err != nil || !equalItems(got, reports) {
			t.Fatalf("report vectors %+v (%v)", got, err)
		}
		if got, err := s.KindVectors(ctx, v.ID, store.VectorChunk); err != nil || len(got) != 2 {
			t.Fatalf("chunk vectors: %d (%v)", len(got), err)
		}
	})
}

func TestStore_EmbeddingCache(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if err := s.PutVectors(ctx, "m1", nil); err != nil {
			t.Fatal(err)
		}
		// More hashes than one query batch.
		put := map[string][]float32{}
		var hashes []string
		for i := range 700 {
			h := fmt.Sprintf("h%04d", i)
			put[h] = []float32{float32(i), 1}
			hashes = append(hashes, h)
		}
		if err := s.PutVectors(ctx, "m1", put); err != nil {
			t.Fatal(err)
		}
		// A (model, hash) stored before keeps its first vector; another
		// model is apart.
		if err := s.PutVectors(ctx, "m1", map[string][]float32{"h0001": {9, 9}, "new": {7}}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutVectors(ctx, "m2", map[string][]float32{"h0002": {5}}); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetVectors(ctx, "m1", append(hashes, "new", "missing"))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 701 || !slices.Equal(got["h0001"], []float32{1, 1}) || !slices.Equal(got["h0699"], []float32{699, 1}) || !slices.Equal(got["new"], []float32{7}) {
			t.Fatalf("m1: %d vectors, h0001 %v, new %v", len(got), got["h0001"], got["new"])
		}
		if _, ok := got["missing"]; ok {
			t.Fatal("an unknown hash has a vector")
		}
		got, err = s.GetVectors(ctx, "m2", []string{"h0001", "h0002"})
		if err != nil || len(got) != 1 || !slices.Equal(got["h0002"], []float32{5}) {
			t.Fatalf("m2: %v, %v", got, err)
		}
	})
}
