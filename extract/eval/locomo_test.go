package eval

import (
	"context"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// locomoFiles are the LoCoMo conversations of the shared data.
var locomoFiles = []string{"locomo10_conv26.json", "locomo10_conv30.json"}

// checkLoCoMo checks the retrieval goal on one conversation: mix finds
// the evidence turn in the top 10 at least 0.05 more often than BM25 over
// the same chunks and naive at least as often, mix more often than the
// node and relation modes (local, hybrid), global (which reads the
// passages of the best matching communities) at least as often as BM25,
// local at least half the time, and every mode finds some.
func checkLoCoMo(tb testing.TB, file string) LoCoMoReport {
	tb.Helper()
	rep, err := LoCoMo(context.Background(), testkit.Read(tb, "dialogues/"+file), embed.Offline{}, query.ModeNames(), 10)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("%s: %d questions, %d chunks, %d nodes, %d edges; recall@10 %v", file, rep.Questions, rep.Chunks, rep.Nodes, rep.Edges, rep.Recall)
	if rep.Questions < 50 {
		tb.Fatalf("only %d questions with evidence", rep.Questions)
	}
	bm := rep.Recall[BM25Baseline]
	if rep.Recall[string(query.ModeNaive)] < bm {
		tb.Errorf("naive recall %.3f < BM25 %.3f", rep.Recall[string(query.ModeNaive)], bm)
	}
	if mix := rep.Recall[string(query.ModeMix)]; mix < bm+0.05 {
		tb.Errorf("mix recall %.3f < BM25 %.3f + 0.05", mix, bm)
	}
	// The topics of the offline memory graph link most turns to an entity.
	if rep.Recall[string(query.ModeLocal)] < 0.5 {
		tb.Errorf("local recall %.3f < 0.5", rep.Recall[string(query.ModeLocal)])
	}
	if g := rep.Recall[string(query.ModeGlobal)]; g < bm {
		tb.Errorf("global recall %.3f < BM25 %.3f", g, bm)
	}
	for _, m := range query.ModeNames() {
		if (m == string(query.ModeLocal) || m == string(query.ModeHybrid)) && rep.Recall[m] > rep.Recall[string(query.ModeMix)] {
			tb.Errorf("%s recall %.3f beats mix %.3f", m, rep.Recall[m], rep.Recall[string(query.ModeMix)])
		}
		if rep.Found[m] == 0 {
			tb.Errorf("%s found nothing", m)
		}
	}
	return rep
}

// TestLoCoMo checks the retrieval goal on the conversation with the most
// questions; BenchmarkLoCoMo checks every conversation and reports the
// recall table.
func TestLoCoMo(t *testing.T) {
	t.Parallel()
	checkLoCoMo(t, locomoFiles[0])
}

// BenchmarkLoCoMo checks the retrieval goal on every LoCoMo conversation
// and reports recall@10 per mode and BM25 as metrics (run with
// -benchtime 1x).
func BenchmarkLoCoMo(b *testing.B) {
	for _, file := range locomoFiles {
		b.Run(strings.TrimSuffix(file, ".json"), func(b *testing.B) {
			var rep LoCoMoReport
			for b.Loop() {
				rep = checkLoCoMo(b, file)
			}
			for _, m := range append([]string{BM25Baseline}, query.ModeNames()...) {
				b.ReportMetric(rep.Recall[m], m)
			}
		})
	}
}
