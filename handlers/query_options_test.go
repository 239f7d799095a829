package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

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

// The run form's Estimate button and POST /api/extractions/estimate count
// a run's calls before any is made, storing nothing; the finished run's
// page shows the estimate against what it asked.
func TestExtractions_Estimate(t *testing.T) {
	t.Parallel()
	fake := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: "entity<|#|>Marley<|#|>person<|#|>Scrooge's partner.\n<|COMPLETE|>"}}})
	a := mustAppConfig(t, app.Providers{OpenAIBaseURL: fake.OpenAIURL(), OpenAIModel: "m"}, handlers.Config{})
	// Sentences that differ, so no two chunks share a prompt: a chunk
	// answered from the call cache would be counted as a call the model
	// did not get, or not, as the chunks' jobs happen to interleave.
	var sb strings.Builder
	for i := range 12 {
		fmt.Fprintf(&sb, "Marley was dead in year %d, to begin with. Scrooge signed register %d of his burial. ", 1800+i, i)
	}
	text := sb.String()
	d := a.MustExtract(t, "plain", "marley.txt", text, extract.DefaultConfig())
	doc := d.DocumentIDs[0]

	// The form: the estimate is shown with the form as filled; nothing runs.
	form := url.Values{"name": {"est"}, "strategy": {"tuple"}, "provider": {"openai"}, "max_gleaning": {"0"},
		"chunk_size": {"200"}, "overlap": {"0"}, "doc": {strconv.Itoa(doc)}, "op": {"estimate"}}
	resp, err := http.PostForm(a.Server.URL+"/extractions", form)
	if err != nil {
		t.Fatal(err)
	}
	page, err := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("estimate form: %d %v", resp.StatusCode, err)
	}
	chunks, _ := strconv.Atoi(strings.TrimSpace(page.Find(`[data-testid="estimate-chunks"]`).Text()))
	calls, _ := strconv.Atoi(strings.TrimSpace(page.Find(`[data-testid="estimate-calls"]`).Text()))
	if chunks < 4 || calls != chunks || fake.Count() != 0 {
		t.Fatalf("estimate shows %d chunks, %d calls; %d model calls made", chunks, calls, fake.Count())
	}
	if v, _ := page.Find(`input[name="name"]`).Attr("value"); v != "est" {
		t.Errorf("the form lost its name: %q", v)
	}
	if _, err := a.App.Versions.ByRef(context.Background(), "est@1"); err == nil {
		t.Error("an estimate made a version")
	}

	// The API gives the contract's fields.
	body := fmt.Sprintf(`{"strategy":"tuple","provider":"openai","max_gleaning":0,"chunk_size":200,"overlap":0,"document_ids":[%d]}`, doc)
	resp, err = http.Post(a.Server.URL+"/api/extractions/estimate", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var est map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&est)
	resp.Body.Close()
	for _, k := range []string{"chunks", "calls", "input_tokens", "output_tokens", "cost", "currency", "exact_tokens"} {
		if _, ok := est[k]; !ok {
			t.Errorf("estimate JSON lacks %s: %v", k, est)
		}
	}
	if est["calls"] != float64(calls) || fake.Count() != 0 {
		t.Errorf("API estimate %v calls (the form said %d); %d model calls made", est["calls"], calls, fake.Count())
	}

	// The run, then its page: estimate against actual, the calls equal.
	form.Del("op")
	resp, err = http.PostForm(a.Server.URL+"/extractions", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	v, err := a.App.Versions.ByRef(context.Background(), "est@1")
	if err != nil {
		t.Fatal(err)
	}
	waitVersion(t, a, v.ID)
	_, vp := a.Get(t, fmt.Sprintf("/versions/%d", v.ID))
	row := vp.Find(`[data-testid="estimate-actual"] tbody tr`).First()
	if got := row.Find("td").First().Text(); got != strconv.Itoa(calls) || !strings.HasPrefix(row.Find("td").Last().Text(), strconv.Itoa(fake.Count())+" ") {
		t.Errorf("estimate against actual: %q (made %d calls)", row.Text(), fake.Count())
	}
}
