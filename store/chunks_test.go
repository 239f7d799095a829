package store_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// TestStore_ChunksStoredAsOffsets saves a document's chunks (text chunks,
// which are its content between their offsets, and one written out) and
// reads them back as they were, on both databases.
func TestStore_ChunksStoredAsOffsets(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "offsets.txt", "Marley was dead. Scrooge signed it. Bob worked for Scrooge.")
		chunks := extract.Split(d, 20, 5, false)
		chunks = append(chunks, extract.Chunk{DocumentID: d.ID, Index: len(chunks), Text: "User: written out", Start: 0, End: 5})
		if err := s.SaveChunks(ctx, d.ID, "20/5", chunks); err != nil {
			t.Fatal(err)
		}
		got, err := s.Chunks(ctx, d.ID, "20/5")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, chunks) {
			t.Errorf("chunks read back:\n%+v\nwant\n%+v", got, chunks)
		}
	})
}

// TestStore_ChunksOf reads the chunks of several documents, each under
// its own settings, as Chunks reads them one document at a time; chunks
// of other settings are left out.
func TestStore_ChunksOf(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a := mustDoc(t, s, "a.txt", "Marley was dead. Scrooge signed it. Bob worked for Scrooge.")
		b := mustDoc(t, s, "b.csv", "name,type\nAda,Person\nBob,Person\n")
		c := mustDoc(t, s, "c.txt", "A document with no chunks of the settings asked.")
		chunksA := extract.Split(a, 20, 5, false)
		chunksB := []extract.Chunk{{DocumentID: b.ID, Index: 0, Text: "name,type\nAda,Person", Start: 0, End: 20}}
		for _, save := range []struct {
			id       int
			settings string
			chunks   []extract.Chunk
		}{
			{a.ID, "20/5", chunksA},
			{a.ID, "40/0", extract.Split(a, 40, 0, false)},
			{b.ID, "rows/2", chunksB},
			{c.ID, "40/0", extract.Split(c, 40, 0, false)},
		} {
			if err := s.SaveChunks(ctx, save.id, save.settings, save.chunks); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.ChunksOf(ctx, []int{a.ID, b.ID, c.ID}, map[int]string{a.ID: "20/5", b.ID: "rows/2", c.ID: "20/5"})
		if err != nil {
			t.Fatal(err)
		}
		for id, want := range map[int]string{a.ID: "20/5", b.ID: "rows/2"} {
			one, err := s.Chunks(ctx, id, want)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got[id], one) || len(one) == 0 {
				t.Errorf("document %d:\n%+v\nwant\n%+v", id, got[id], one)
			}
		}
		if len(got[c.ID]) != 0 || len(got) != 2 {
			t.Errorf("chunks of other settings read: %+v", got[c.ID])
		}
	})
}
