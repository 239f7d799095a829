package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// With a stream in the context, both providers' clients (through the
// retry policy) pass on the answer's first piece while the model is still
// answering (the fake holds the rest until the test has seen the first),
// then return the whole answer, which the pieces add up to.
func TestStream_FirstPieceBeforeTheEnd(t *testing.T) {
	const answer = "Scrooge was Marley's partner. [1]"
	for _, name := range []string{"gemini", "openai"} {
		t.Run(name, func(t *testing.T) {
			gate := make(chan struct{})
			srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: answer}}, StreamGate: gate})
			client := llm.WithPolicy(providers(t, srv)[name], llm.Policy{MaxRetries: -1})
			first := make(chan string, 1)
			var pieces strings.Builder
			ctx := llm.WithStream(t.Context(), func(p string) {
				if pieces.Len() == 0 {
					first <- p
				}
				pieces.WriteString(p)
			})
			type result struct {
				resp llm.Response
				err  error
			}
			done := make(chan result, 1)
			go func() {
				resp, err := client.Complete(ctx, chat("Who was Marley's partner?"))
				done <- result{resp, err}
			}()
			select {
			case p := <-first:
				if !strings.HasPrefix(answer, p) {
					t.Fatalf("first piece %q", p)
				}
			case r := <-done:
				t.Fatalf("the call ended (%v) before any piece arrived", r.err)
			case <-time.After(time.Minute):
				t.Fatal("no piece in a minute")
			}
			close(gate)
			r := <-done
			if r.err != nil || r.resp.Text != answer || pieces.String() != answer {
				t.Fatalf("answer %q (%v), pieces %q", r.resp.Text, r.err, pieces.String())
			}
			if calls := srv.Calls(); len(calls) != 1 || !calls[0].Stream {
				t.Fatalf("calls %+v, want one streamed", calls)
			}
		})
	}
}

// Without a stream in the context, or for JSON output, nothing streams.
func TestStream_OnlyWhenAsked(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: `{"a":1}`}}})
	for name, c := range providers(t, srv) {
		req := chat("q")
		req.JSONSchema = map[string]any{"type": "object"}
		got := false
		ctx := llm.WithStream(context.Background(), func(string) { got = true })
		if _, err := c.Complete(ctx, req); err != nil || got {
			t.Fatalf("%s: JSON output streamed (%v)", name, err)
		}
		if _, err := c.Complete(context.Background(), chat("q")); err != nil {
			t.Fatal(err)
		}
	}
	for _, call := range srv.Calls() {
		if call.Stream {
			t.Fatalf("a call streamed: %+v", call)
		}
	}
}
