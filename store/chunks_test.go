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
