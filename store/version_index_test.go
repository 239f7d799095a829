package store_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// A version's stored index part comes back only with the stamp it was
// stored with; storing again replaces it; new vectors, a replaced graph
// and deleting the extraction drop it.
func TestStore_VersionIndex(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		doc := mustDoc(t, s, "marley.txt", "Marley was dead. Scrooge signed it.")
		v := finishedVersion(t, s, "carol", extract.DefaultConfig(), doc)
		get := func(stamp string) ([]byte, bool) {
			t.Helper()
			data, ok, err := s.VersionIndex(ctx, v.ID, store.IndexVectors, stamp)
			if err != nil {
				t.Fatal(err)
			}
			return data, ok
		}
		if _, ok := get("s1"); ok {
			t.Fatal("an index before one was stored")
		}
		big := bytes.Repeat([]byte{0, 1, 2, 0xff}, 1<<18) // 1 MiB, zero bytes too
		if err := s.SaveVersionIndex(ctx, v.ID, store.IndexVectors, "s1", big); err != nil {
			t.Fatal(err)
		}
		if data, ok := get("s1"); !ok || !bytes.Equal(data, big) {
			t.Fatalf("read back %d bytes (%t), stored %d", len(data), ok, len(big))
		}
		if _, ok := get("s2"); ok {
			t.Fatal("an index of another stamp was returned")
		}
		// A part past a row's size is stored in rows and read back whole;
		// a shorter one stored after it leaves no row of it behind, and
		// another part is apart from it.
		// (more than ten rows, each unlike the others, so their order counts)
		var bigger []byte
		for i := range 11 {
			bigger = append(bigger, bytes.Repeat([]byte{byte(i)}, 1<<20)...)
		}
		bigger = append(bigger, big[:1<<19+3]...)
		if err := s.SaveVersionIndex(ctx, v.ID, store.IndexVectors, "s5", bigger); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveVersionIndex(ctx, v.ID, store.IndexLexical, "s5", []byte("lexical")); err != nil {
			t.Fatal(err)
		}
		if data, ok := get("s5"); !ok || !bytes.Equal(data, bigger) {
			t.Fatalf("read back %d bytes (%t), stored %d", len(data), ok, len(bigger))
		}
		if n := rowCounts(t, s)["version_indexes"]; n != 13 {
			t.Fatalf("%d rows for a part of %d bytes and one of 7, want 12 + 1", n, len(bigger))
		}
		if err := s.SaveVersionIndex(ctx, v.ID, store.IndexVectors, "s2", []byte("new")); err != nil {
			t.Fatal(err)
		}
		if data, ok := get("s2"); !ok || string(data) != "new" {
			t.Fatalf("after storing again: %q, %t", data, ok)
		}
		if n := rowCounts(t, s)["version_indexes"]; n != 2 {
			t.Fatalf("%d rows after a short part replaced a long one, want 2", n)
		}
		if data, ok, err := s.VersionIndex(ctx, v.ID, store.IndexLexical, "s5"); err != nil || !ok || string(data) != "lexical" {
			t.Fatalf("the other part: %q, %t, %v", data, ok, err)
		}
		if _, ok := get("s1"); ok {
			t.Fatal("the replaced index is still there")
		}
		// New vectors drop it.
		mustSaveVectors(t, s, v.ID, 2)
		if _, ok := get("s2"); ok {
			t.Fatal("the index outlived the vectors it was built from")
		}
		// So does a replaced graph.
		if err := s.SaveVersionIndex(ctx, v.ID, store.IndexVectors, "s3", []byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceGraph(ctx, v.ID, extract.Graph{Nodes: []extract.Node{{Key: "marley", Name: "Marley", Type: "Person"}}}); err != nil {
			t.Fatal(err)
		}
		if _, ok := get("s3"); ok {
			t.Fatal("the index outlived the graph it was built from")
		}
		if err := s.SaveVersionIndex(ctx, v.ID, store.IndexVectors, "s4", []byte("x")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteExtraction(ctx, "carol"); err != nil {
			t.Fatal(err)
		}
		if counts := rowCounts(t, s); counts["version_indexes"] != 0 {
			t.Fatalf("rows left after deleting the extraction: %v", counts)
		}
	})
}
