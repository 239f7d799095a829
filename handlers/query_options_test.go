package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/handlers"
	"github.com/kgstudio/kgstudio/web"
)

// response_type reaches the model's answer prompt from the query API, the
// chat API and MCP's query tool, as LightRAG's does; an overlong one is
// refused with the reason.
func TestQuery_ResponseTypeReachesThePrompt(t *testing.T) {
	t.Parallel()
	fake := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: "- Marley was Scrooge's partner [1]."}}})
	a := mustAppConfig(t, app.Providers{OpenAIBaseURL: fake.OpenAIURL(), OpenAIModel: "m"}, handlers.Config{})
	v := mustCarol(t, a)
	for i, shape := range []string{"Bullet Points", "Single Paragraph", "Three Haiku"} {
		q := fmt.Sprintf("%s (%d)", partnerQuestion, i) // a question of its own: no cached answer
		switch i {
		case 0: // the query API
			resp, err := http.PostForm(a.Server.URL+fmt.Sprintf("/api/versions/%d/query", v.ID), url.Values{"q": {q}, "provider": {"openai"}, "response_type": {shape}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("query API: %s", resp.Status)
			}
		case 1: // the chat API
			body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":%q}],"response_type":%q}`, v.Label(), q, shape)
			resp, err := http.Post(a.Server.URL+"/v1/chat/completions", "application/json", bytes.NewBufferString(body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("chat API: %s", resp.Status)
			}
		case 2: // MCP
			cs, err := mcpSession(t, a.Server.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out struct{ Answer string }
			callTool(t, cs, "query", map[string]any{"question": q, "version": v.Label(), "response_type": shape}, &out)
		}
		if p := fake.LastPrompt(); !strings.Contains(p, shape) {
			t.Errorf("%s: the answer prompt does not ask for %q", []string{"query API", "chat API", "MCP"}[i], shape)
		}
	}
	resp, err := http.PostForm(a.Server.URL+fmt.Sprintf("/api/versions/%d/query", v.ID), url.Values{"q": {partnerQuestion}, "response_type": {strings.Repeat("x", app.MaxResponseType+1)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("an overlong response_type: %s", resp.Status)
	}
}

// no_cache on the run API (and the form's checkbox) asks the model anew:
// the same run again answers from the call cache without it, and makes
// its calls again with it.
func TestExtractions_NoCache(t *testing.T) {
	t.Parallel()
	fake := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: "entity<|#|>Marley<|#|>person<|#|>Scrooge's partner.\n<|COMPLETE|>"}}})
	a := mustAppConfig(t, app.Providers{OpenAIBaseURL: fake.OpenAIURL(), OpenAIModel: "m"}, handlers.Config{})
	d := a.MustExtract(t, "plain", "marley.txt", "Marley was dead, to begin with. Scrooge signed the register of his burial.", extract.DefaultConfig())
	run := func(noCache bool) int {
		t.Helper()
		before := fake.Count()
		body := fmt.Sprintf(`{"name":"tuple","strategy":"tuple","provider":"openai","max_gleaning":0,"document_ids":[%d],"no_cache":%t}`, d.DocumentIDs[0], noCache)
		resp, err := http.Post(a.Server.URL+"/api/extractions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		id, ok := out["id"].(float64)
		if !ok {
			t.Fatalf("run: %s %v", resp.Status, out)
		}
		if v := waitVersion(t, a, int(id)); v.Status != "done" || v.Config.NoCache != noCache {
			t.Fatalf("run: %s, no_cache %t", v.Status, v.Config.NoCache)
		}
		return fake.Count() - before
	}
	if n := run(false); n == 0 {
		t.Fatal("the first run called no model")
	}
	if n := run(false); n != 0 {
		t.Fatalf("the same run again made %d calls, want them answered from the cache", n)
	}
	if n := run(true); n == 0 {
		t.Fatal("no_cache answered from the cache")
	}
}

// A version page lists a short version's chunks open, folds a long
// version's, and lists at most MaxChunkRows of them, saying how many more
// there are.
func TestVersionPage_ChunksFold(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	small := a.MustExtract(t, "small", "s.txt", "Marley was dead. Scrooge signed the register.", extract.DefaultConfig())
	var b strings.Builder
	for i := range web.MaxChunkRows + 20 {
		fmt.Fprintf(&b, "Person%04d met Person%04d in Town%04d.\n", i, i+1, i)
	}
	cfg := extract.DefaultConfig()
	cfg.ChunkSize, cfg.Overlap = 50, 0
	big := a.MustExtract(t, "big", "b.txt", b.String(), cfg)
	_, page := a.Get(t, fmt.Sprintf("/versions/%d", small.ID))
	if _, open := page.Find(`[data-testid="chunks-fold"]`).Attr("open"); !open || page.Find(`[data-testid="chunks-more"]`).Length() != 0 {
		t.Fatal("a short version's chunks are folded, or said to be more")
	}
	_, page = a.Get(t, fmt.Sprintf("/versions/%d", big.ID))
	if _, open := page.Find(`[data-testid="chunks-fold"]`).Attr("open"); open {
		t.Fatal("a long version's chunks are not folded")
	}
	if n := page.Find(`[data-testid="chunks"] tbody tr`).Length(); n != web.MaxChunkRows || big.ChunksTotal <= web.MaxChunkRows {
		t.Fatalf("%d chunk rows listed of %d", n, big.ChunksTotal)
	}
	if more := page.Find(`[data-testid="chunks-more"]`).Text(); !strings.Contains(more, fmt.Sprint(big.ChunksTotal-web.MaxChunkRows)) {
		t.Fatalf("the note on the others: %q", more)
	}
}
