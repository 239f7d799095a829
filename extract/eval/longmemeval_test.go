package eval

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/internal/testkit"
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
	rep, err := LongMemEval(context.Background(), qs, embed.Offline{}, LongMemOptions{Distractors: 3, Modes: query.ModeNames()})
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
	if cf := rep.Knowledge.CurrentFirst[string(query.ModeMix)]; cf != 1 {
		t.Errorf("mix ranked the five goldfish above the seven (current_first %v)", cf)
	}
	if _, err := LongMemEval(context.Background(), qs, embed.Offline{}, LongMemOptions{Distractors: -1}); extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("negative distractors: %v", err)
	}
	if !strings.Contains(rep.Embedder, "offline") {
		t.Errorf("embedder %q", rep.Embedder)
	}
}

// devQuestions reads the shared LongMemEval half, keeping the questions
// keep accepts.
func devQuestions(tb testing.TB, keep func(i int, q LongMemQuestion) bool) []LongMemQuestion {
	tb.Helper()
	qs, err := ReadLongMemEval(testkit.Read(tb, "dialogues/longmemeval_oracle_dev.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []LongMemQuestion
	for i, q := range qs {
		if keep(i, q) {
			out = append(out, q)
		}
	}
	return out
}

// TestLongMemEval_CurrentValueFirst checks the knowledge-update goal on
// every such question of the shared half, with the offline embedder: the
// turn that holds the current value ranks above the superseded one in at
// least 90% of them in mix (BM25, which knows no time, does so about
// half the time). With the hashed embedder mix finds about as much of
// the evidence as BM25 (0.949 against 0.963); the sentence encoder, the
// default, is measured by BenchmarkLongMemEval and the README.
func TestLongMemEval_CurrentValueFirst(t *testing.T) {
	t.Parallel()
	qs := devQuestions(t, func(_ int, q LongMemQuestion) bool { return q.Type == "knowledge-update" })
	rep, err := LongMemEval(context.Background(), qs, embed.Offline{}, LongMemOptions{Distractors: DefaultDistractors, Modes: []string{string(query.ModeMix)}})
	if err != nil {
		t.Fatal(err)
	}
	ku := rep.Knowledge
	t.Logf("%d questions, %d with the value changing across sessions: current first %v; turn recall %v", rep.Questions, ku.Questions, ku.CurrentFirst, rep.Overall.TurnRecall)
	if ku.Questions < 20 {
		t.Fatalf("only %d knowledge updates across sessions", ku.Questions)
	}
	if cf := ku.CurrentFirst[string(query.ModeMix)]; cf < 0.9 {
		t.Errorf("mix ranks the current value first in %.3f of knowledge updates; want at least 0.9", cf)
	}
	if m, b := rep.Overall.TurnRecall[string(query.ModeMix)], rep.Overall.TurnRecall[BM25Baseline]; m < b-0.03 {
		t.Errorf("mix turn recall %.3f < BM25 %.3f - 0.03", m, b)
	}
}

// BenchmarkLongMemEval reports the per-type table on a tenth of the
// shared half (every tenth question) with the sentence encoder; run with
// -benchtime 1x. `kgstudio eval --format longmemeval FILE` scores it whole.
func BenchmarkLongMemEval(b *testing.B) {
	qs := devQuestions(b, func(i int, _ LongMemQuestion) bool { return i%10 == 0 })
	var rep LongMemReport
	for b.Loop() {
		var err error
		if rep, err = LongMemEval(context.Background(), qs, embed.USELite{}, LongMemOptions{Distractors: DefaultDistractors, Modes: query.ModeNames()}); err != nil {
			b.Fatal(err)
		}
	}
	for _, m := range rep.Methods {
		b.ReportMetric(rep.Overall.TurnRecall[m], "turn@10/"+m)
		b.ReportMetric(rep.Knowledge.CurrentFirst[m], "current/"+m)
	}
}

// TestLongMemEval_QuestionDate: a question asked on its date ("two weeks
// ago") finds the round said then in mix, among a dozen rounds that
// match its words better but were said months before; BM25, which knows
// no time, ranks those first.
func TestLongMemEval_QuestionDate(t *testing.T) {
	q := LongMemQuestion{ID: "q", Type: "temporal-reasoning", Question: "What dish did I cook for the dinner party two weeks ago?",
		Date: "2023/05/30 (Tue) 10:00", Answer: []string{"now"}}
	dishes := []string{"lasagna", "paella", "ramen", "risotto", "tacos", "gumbo", "moussaka", "pho", "biryani", "goulash", "ratatouille", "chili"}
	for i, d := range dishes {
		q.Sessions = append(q.Sessions, []LongMemTurn{
			{Role: "user", Content: "Which dish should I cook for a dinner party: " + d + "?"},
			{Role: "assistant", Content: "The " + d + " suits a dinner party."},
		})
		q.Dates = append(q.Dates, fmt.Sprintf("2023/01/%02d (Mon) 10:00", i+1))
		q.IDs = append(q.IDs, "old"+d)
	}
	q.Sessions = append(q.Sessions, []LongMemTurn{
		{Role: "user", Content: "Yesterday I made a big pot of curry for our dinner party; everyone loved it.", HasAnswer: true},
		{Role: "assistant", Content: "Curry is a great choice for a crowd."},
	})
	q.Dates = append(q.Dates, "2023/05/16 (Tue) 20:00")
	q.IDs = append(q.IDs, "now")
	rep, err := LongMemEval(context.Background(), []LongMemQuestion{q}, embed.Offline{}, LongMemOptions{Modes: []string{string(query.ModeMix)}})
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Overall.TurnRecall
	if tr[BM25Baseline] != 0 {
		t.Fatalf("BM25 found the curry (turn recall %v): the test no longer needs the date", tr[BM25Baseline])
	}
	if tr[string(query.ModeMix)] != 1 {
		t.Errorf("mix missed the round said two weeks before the question (turn recall %v)", tr[string(query.ModeMix)])
	}
}
