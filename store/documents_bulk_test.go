package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// AddDocuments stores documents in order, each content once: a content
// stored before, or given twice, answers with the stored document; two
// writers adding the same documents at once get the same ones.
func TestAddDocuments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	read := func(name, content string) extract.Document {
		d, err := extract.ReadDocument(name, []byte(content), 0)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	forEachDB(t, func(t *testing.T, s *store.Store) {
		old := mustDoc(t, s, "old.txt", "Ada Lovelace met Charles Babbage.")
		var docs []extract.Document
		for i := range 1200 {
			docs = append(docs, read(fmt.Sprintf("p%d", i), fmt.Sprintf("Passage %d names Person%d.", i, i)))
		}
		docs[3] = read("again", "Ada Lovelace met Charles Babbage.") // stored before
		docs[700] = read("twice", "Passage 5 names Person5.")        // given before, in another batch
		docs[6].Kind = "unknown"
		got, created, err := s.AddDocuments(ctx, docs)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(docs) || got[3].ID != old.ID || got[3].Name != "old.txt" || created[3] ||
			got[700].ID != got[5].ID || got[700].Name != "p5" || created[700] || !created[5] || got[6].Kind != extract.DocText {
			t.Fatalf("documents 3, 5, 6, 700: %+v %+v %+v %+v", got[3], got[5], got[6], got[700])
		}
		for i := 1; i < len(got); i++ {
			if i != 3 && i != 4 && i != 700 && i != 701 && got[i].ID <= got[i-1].ID {
				t.Fatalf("document %d has id %d after %d", i, got[i].ID, got[i-1].ID)
			}
		}
		d, err := s.Document(ctx, got[1199].ID)
		if err != nil || d.Name != "p1199" || d.Content != "Passage 1199 names Person1199." {
			t.Fatalf("document 1199: %v %+v", err, d)
		}
		list, _ := s.ListDocuments(ctx, 0)
		if len(list) != 1+1200-2 {
			t.Fatalf("%d documents stored, want %d", len(list), 1+1200-2)
		}

		// Two writers at once.
		var more []extract.Document
		for i := range 600 {
			more = append(more, read(fmt.Sprintf("m%d", i), fmt.Sprintf("More text %d.", i)))
		}
		var wg sync.WaitGroup
		var answers [2][]extract.Document
		var errs [2]error
		for w := range 2 {
			wg.Go(func() { answers[w], _, errs[w] = s.AddDocuments(ctx, more) })
		}
		wg.Wait()
		for w := range 2 {
			if errs[w] != nil {
				t.Fatal(errs[w])
			}
		}
		for i := range more {
			if answers[0][i].ID != answers[1][i].ID || answers[0][i].ID == 0 {
				t.Fatalf("document %d: ids %d and %d", i, answers[0][i].ID, answers[1][i].ID)
			}
		}

		if _, _, err := s.AddDocuments(ctx, []extract.Document{{Name: "x", Content: "x"}}); extract.KindOf(err) != extract.KindInvalid {
			t.Fatalf("a document without a hash: %v", err)
		}
		if got, _, err := s.AddDocuments(ctx, nil); err != nil || len(got) != 0 {
			t.Fatalf("no documents: %v %v", got, err)
		}
	})
}
