package eval

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/query"
)

func TestReadLongMemEval_Refuses(t *testing.T) {
	for name, data := range map[string]string{
		"not JSON":        `{"question_id":`,
		"not a list":      `{"question_id":"a"}`,
		"no question":     `[{"question_id":"a","haystack_sessions":[],"haystack_dates":[],"haystack_session_ids":[]}]`,
		"dates short":     `[{"question_id":"a","question":"q?","haystack_sessions":[[]],"haystack_dates":[],"haystack_session_ids":["s"]}]`,
		"unreadable date": `[{"question_id":"a","question":"q?","haystack_sessions":[[]],"haystack_dates":["last May"],"haystack_session_ids":["s"]}]`,
	} {
		if _, err := ReadLongMemEval([]byte(data)); extract.KindOf(err) != extract.KindInvalid {
			t.Errorf("%s: %v; want an invalid error", name, err)
		}
	}
	qs, err := ReadLongMemEval(append([]byte("\xef\xbb\xbf"), readSmall(t)...))
	if err != nil || len(qs) != 4 {
		t.Fatalf("a byte-order mark: %d questions, %v", len(qs), err)
	}
}

func readSmall(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/longmemeval_small.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The small set: a knowledge update (five goldfish, then seven), a fact
// the user said, an answer the assistant gave and an abstention; each
// haystack takes three sessions of the other questions.
func TestLongMemEval_Small(t *testing.T) {
	t.Parallel()
	qs, err := ReadLongMemEval(readSmall(t))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := LongMemEval(context.Background(), qs, embed.Offline{}, LongMemOptions{Distractors: 3, Modes: query.Modes})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rep)
	if rep.Questions != 4 || len(rep.Types) != 4 || rep.Knowledge.Questions != 1 {
		t.Fatalf("questions %d, types %d, knowledge updates %d; want 4, 4, 1", rep.Questions, len(rep.Types), rep.Knowledge.Questions)
	}
	// Own rounds: 3, 2, 1, 1; each haystack adds 3 sessions of 1-2 rounds.
	if rep.Rounds < 7+4*3 || rep.Rounds > 7+4*5 {
		t.Errorf("%d rounds in all", rep.Rounds)
	}
	for _, m := range rep.Methods {
		for typ, r := range rep.Types {
			for _, x := range []float64{r.TurnRecall[m], r.SessionRecall[m]} {
				if x < 0 || x > 1 {
					t.Errorf("%s %s: recall %v", typ, m, x)
				}
			}
		}
	}
	if r := rep.Types["single-session-user"]; r.TurnRecall[BM25Baseline] != 1 || r.SessionRecall[BM25Baseline] != 1 {
		t.Errorf("BM25 missed the sister's move: %+v", r)
	}
	// The abstention question has no evidence turn: it counts for sessions only.
	if r := rep.Types["temporal-reasoning"]; r.TurnRecall[BM25Baseline] != 0 || r.SessionRecall[BM25Baseline] != 1 {
		t.Errorf("abstention: %+v", r)
	}
	if cf := rep.Knowledge.CurrentFirst[query.ModeMix]; cf != 1 {
		t.Errorf("mix ranked the five goldfish above the seven (current_first %v)", cf)
	}
	if _, err := LongMemEval(context.Background(), qs, embed.Offline{}, LongMemOptions{Distractors: -1}); extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("negative distractors: %v", err)
	}
	if !strings.Contains(rep.Embedder, "offline") {
		t.Errorf("embedder %q", rep.Embedder)
	}
}
