package eval

import (
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/internal/testdata"
	"github.com/kgstudio/kgstudio/extract/query"
)

// TestLoCoMo checks the retrieval goal on the LoCoMo conversations: naive
// and mix find the evidence turn in the top 10 at least as often as BM25
// over the same chunks, mix the most, and every mode finds some.
func TestLoCoMo(t *testing.T) {
	for _, file := range []string{"locomo10_conv26.json", "locomo10_conv30.json"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			rep, err := LoCoMo(context.Background(), testdata.Read(t, "dialogues/"+file), embed.Offline{}, query.Modes, 10)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d questions, %d chunks, %d nodes, %d edges; recall@10 %v", rep.Questions, rep.Chunks, rep.Nodes, rep.Edges, rep.Recall)
			if rep.Questions < 50 {
				t.Fatalf("only %d questions with evidence", rep.Questions)
			}
			bm := rep.Recall[BM25Baseline]
			for _, m := range []string{query.ModeNaive, query.ModeMix} {
				if rep.Recall[m] < bm {
					t.Errorf("%s recall %.3f < BM25 %.3f", m, rep.Recall[m], bm)
				}
			}
			for _, m := range query.Modes {
				if rep.Recall[m] > rep.Recall[query.ModeMix] {
					t.Errorf("%s recall %.3f beats mix %.3f", m, rep.Recall[m], rep.Recall[query.ModeMix])
				}
				if rep.Found[m] == 0 {
					t.Errorf("%s found nothing", m)
				}
			}
		})
	}
}
