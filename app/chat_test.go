package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/store"
)

// TestChatMode: a leading /MODE picks the mode (any case) and is cut off
// the question; an unknown one stays part of the question.
func TestChatMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		mode query.Mode
		q    string
	}{
		{"/mix Who was Marley's partner?", query.ModeMix, "Who was Marley's partner?"},
		{"  /NAIVE  Who?", query.ModeNaive, "Who?"},
		{"/ppr", query.ModePPR, ""},
		{"Who was it?", "", "Who was it?"},
		{"/sideways Who?", "", "/sideways Who?"},
		{"/ Who?", "", "/ Who?"},
	} {
		if mode, q := ChatMode(tc.in); mode != tc.mode || q != tc.q {
			t.Errorf("ChatMode(%q) = %q, %q; want %q, %q", tc.in, mode, q, tc.mode, tc.q)
		}
	}
}

// TestChat_ModeHistoryAndModel: a chat turn asks the version its model
// names (an Ollama tag ignored) in the mode its prefix picks, mix without
// one; a version not finished, an unknown one and a turn without a user
// message are refused.
func TestChat_ModeHistoryAndModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, d := testApp(t, "marley.txt", "Marley was dead. Scrooge signed it. Scrooge and Marley were partners in London.")
	v, _ := mustRun(t, a, RunRequest{Extraction: "m", Config: extract.DefaultConfig(), DocumentIDs: []int{d.ID}})
	history := []llm.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Who is Scrooge?"}, {Role: "assistant", Content: "A miser."}}
	for _, tc := range []struct {
		model, question string
		mode            query.Mode
	}{
		{"m@1", "/mix Who was Marley's partner?", query.ModeMix},
		{"m:latest", "/local Who was Marley's partner?", query.ModeLocal},
		{"m", "Who was Marley's partner?", query.ModeMix},
	} {
		msgs := append(append([]llm.Message{}, history...), llm.Message{Role: "user", Content: tc.question})
		ans, err := a.Queries.Chat(ctx, ChatRequest{Model: tc.model, Messages: msgs})
		if err != nil {
			t.Fatalf("%s %q: %v", tc.model, tc.question, err)
		}
		if ans.Mode != tc.mode || ans.Model != v.Label() || !ans.Extractive || !strings.Contains(ans.Text, "Scrooge and Marley were partners") {
			t.Errorf("%s %q: mode %q model %q extractive %v:\n%s", tc.model, tc.question, ans.Mode, ans.Model, ans.Extractive, ans.Text)
		}
	}
	// A message over the question's limit (a client's own request for a
	// title) is read up to it.
	long := strings.Repeat("Marley partner ", 300)
	if ans, err := a.Queries.Chat(ctx, ChatRequest{Model: "m", Messages: []llm.Message{{Role: "user", Content: long}}}); err != nil || ans.Text == "" {
		t.Fatalf("a %d-byte message: %v", len(long), err)
	}
	for _, tc := range []struct {
		req  ChatRequest
		kind extract.ErrorKind
	}{
		{ChatRequest{Model: "nosuch", Messages: []llm.Message{{Role: "user", Content: "q"}}}, extract.KindNotFound},
		{ChatRequest{Model: "", Messages: []llm.Message{{Role: "user", Content: "q"}}}, extract.KindInvalid},
		{ChatRequest{Model: "m", Messages: history[:1]}, extract.KindInvalid},
		{ChatRequest{Model: "m", Messages: []llm.Message{{Role: "user", Content: "/mix "}}}, extract.KindInvalid},
	} {
		if _, err := a.Queries.Chat(ctx, tc.req); extract.KindOf(err) != tc.kind {
			t.Errorf("%+v: %v, want %s", tc.req, err, tc.kind)
		}
	}
}

// A chat with a long past reaches the provider bounded: 199 history
// messages of 100 KB and a 100 KB system message send at most 1 MB, the
// newest turns kept, and the answer's note says how many were left out.
func TestChat_HistoryBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: "Marley was Scrooge's partner."}}})
	st, err := store.Open(ctx, store.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Providers{OpenAIBaseURL: srv.OpenAIURL(), OpenAIModel: "m", Embedder: extract.EmbedderOffline})
	d, err := extract.ReadDocument("marley.txt", []byte("Marley was dead. Scrooge and Marley were partners in London."), 0)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err = st.AddDocument(ctx, d); err != nil {
		t.Fatal(err)
	}
	mustRun(t, a, RunRequest{Extraction: "m", Config: extract.DefaultConfig(), DocumentIDs: []int{d.ID}})
	msgs := []llm.Message{{Role: "system", Content: strings.Repeat("Be brief. ", 10_000)}}
	for i := range 198 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, llm.Message{Role: role, Content: fmt.Sprintf("turn %d ", i) + strings.Repeat("x", 100_000)})
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: "Who was Marley's partner?"})
	srv.Reset()
	ans, err := a.Queries.Chat(ctx, ChatRequest{Model: "m", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Extractive || !strings.Contains(ans.Result.Note, "oldest messages of the conversation were left out") {
		t.Fatalf("answer %+v, note %q", ans.Text, ans.Result.Note)
	}
	calls := srv.Calls()
	if len(calls) == 0 {
		t.Fatal("the provider was not asked")
	}
	for _, c := range calls {
		size := 0
		for _, m := range c.Messages {
			size += len(m.Content)
		}
		if size > 1<<20 {
			t.Fatalf("a call of %d bytes reached the provider", size)
		}
		if last := c.Messages[len(c.Messages)-1].Content; !strings.Contains(last, "Who was Marley's partner?") && !strings.Contains(last, "Marley") {
			t.Fatalf("the question is not the last message: %.80q", last)
		}
	}
	// The newest turn is kept, the oldest left out.
	all := ""
	for _, m := range calls[len(calls)-1].Messages {
		all += m.Content
	}
	if !strings.Contains(all, "turn 197 ") || strings.Contains(all, "turn 0 ") {
		t.Fatal("the history kept is not the newest")
	}
}

// A chat model named NAME (or NAME:latest) is the newest finished
// version, while a newer run waits or after one failed; a long chat is
// answered, not refused.
func TestChat_NameIsNewestFinished(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, d := testApp(t, "marley.txt", "Marley was dead. Scrooge and Marley were partners in London.")
	v, _ := mustRun(t, a, RunRequest{Extraction: "m", Config: extract.DefaultConfig(), DocumentIDs: []int{d.ID}})
	if _, _, err := a.Runs.NewRun(ctx, RunRequest{Extraction: "m", Config: extract.DefaultConfig(), DocumentIDs: []int{d.ID}}); err != nil {
		t.Fatal(err)
	}
	var long []llm.Message
	for range 300 {
		long = append(long, llm.Message{Role: "user", Content: "Who?"}, llm.Message{Role: "assistant", Content: "Scrooge."})
	}
	for _, model := range []string{"m", "m:latest"} {
		ans, err := a.Queries.Chat(ctx, ChatRequest{Model: model, Messages: append(long, llm.Message{Role: "user", Content: "Who was Marley's partner?"})})
		if err != nil || ans.Model != v.Label() {
			t.Fatalf("%s with a queued newer run: %q, %v", model, ans.Model, err)
		}
	}
	if _, err := a.Queries.Chat(ctx, ChatRequest{Model: "m@2", Messages: []llm.Message{{Role: "user", Content: "Who?"}}}); extract.KindOf(err) != extract.KindConflict {
		t.Fatalf("the queued version named: %v", err)
	}
	if _, err := a.Queries.Chat(ctx, ChatRequest{Model: "nosuch", Messages: []llm.Message{{Role: "user", Content: "Who?"}}}); extract.KindOf(err) != extract.KindNotFound {
		t.Fatalf("an unknown extraction: %v", err)
	}
}
