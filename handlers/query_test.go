package handlers_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
)

const partnerQuestion = "Who was Marley's partner?"

func mustCarol(t *testing.T, a *testApp) record.Version {
	t.Helper()
	b, err := os.ReadFile("../app/sample/christmas_carol_stave_one.txt")
	if err != nil {
		t.Fatal(err)
	}
	return a.MustExtract(t, "carol", "christmas_carol_stave_one.txt", string(b), extract.DefaultConfig())
}

func queryValues(q string, extra ...string) string {
	v := url.Values{"q": {q}}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return v.Encode()
}

func getQueryJSON(t *testing.T, a *testApp, id int, q string, extra ...string) app.QueryResult {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s/api/versions/%d/query?%s", a.Server.URL, id, queryValues(q, extra...)))
	return mustQueryJSON(t, resp, err)
}

func postQueryJSON(t *testing.T, a *testApp, id int, q string, extra ...string) app.QueryResult {
	t.Helper()
	resp, err := http.Post(fmt.Sprintf("%s/api/versions/%d/query", a.Server.URL, id), "application/x-www-form-urlencoded",
		strings.NewReader(queryValues(q, extra...)))
	return mustQueryJSON(t, resp, err)
}

// mustQueryJSON reads a 200 answer of the query API.
func mustQueryJSON(t *testing.T, resp *http.Response, err error) app.QueryResult {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("query API %s: status %d", resp.Request.Method, resp.StatusCode)
	}
	var res app.QueryResult
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

func topEntities(doc *goquery.Document, n int) map[string]bool {
	top := map[string]bool{}
	doc.Find(`[data-testid="query-entity"]`).Each(func(i int, s *goquery.Selection) {
		if i < n {
			top[s.AttrOr("data-name", "")] = true
		}
	})
	return top
}

func TestQuery_OfflineCarol(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := mustCarol(t, a)

	resp, doc := a.Get(t, fmt.Sprintf("/versions/%d/query?%s", v.ID, queryValues(partnerQuestion)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := doc.Find(`[data-testid="query-mode"] option[value="naive"]`).Text(); !strings.HasPrefix(got, "naive — text chunks alone, without the graph") {
		t.Errorf("the naive mode's option reads %q, want what it searches", got)
	}
	if got := doc.Find(`[data-testid="query-mode"] option[selected]`).AttrOr("value", ""); got != "mix" {
		t.Fatalf("mode switch shows %q, want the default mix", got)
	}
	if got := doc.Find(`[data-testid="query-embedder"]`).Text(); !strings.Contains(got, "offline-hashed-ngrams") {
		t.Fatalf("embedder note %q: the run should have vectors", got)
	}
	if got := doc.Find(`[data-testid="kw-low"]`).First().Text(); got != "Marley" {
		t.Fatalf("first low-level keyword %q", got)
	}
	if got := doc.Find(`[data-testid="kw-high"]`).First().Text(); got != "partner" {
		t.Fatalf("first high-level keyword %q", got)
	}
	if !strings.Contains(doc.Find(`[data-testid="query-note"]`).Text(), "No model provider is configured") {
		t.Fatalf("offline note missing: %q", doc.Find(`[data-testid="query-note"]`).Text())
	}
	// Without a provider the answer is quoted from the evidence, marked
	// extractive, and cites the passages it quotes.
	// Its Markdown is drawn, not shown: the note in italics, the
	// references under a heading.
	answer := doc.Find(`[data-testid="answer-text"]`)
	if got := answer.Text(); !strings.Contains(answer.Find("em").Text(), "Extractive answer") || answer.Find("h4").Text() != "References" || strings.Contains(got, "###") || strings.Contains(got, "*Extractive") {
		t.Fatalf("extractive answer %q", got)
	}
	// The list numbers what the answer cites as the answer does: its
	// documents [n], each with its passages.
	var listed []string
	doc.Find(`[data-testid="answer-ref"]`).Each(func(_ int, s *goquery.Selection) { listed = append(listed, s.AttrOr("data-ref", "")) })
	if len(listed) == 0 {
		t.Fatal("the extractive answer lists nothing cited")
	}
	for _, m := range regexp.MustCompile(`\[(\d+)\]`).FindAllStringSubmatch(answer.Text(), -1) {
		if !slices.Contains(listed, m[1]) {
			t.Fatalf("the answer cites [%s], the list shows %v", m[1], listed)
		}
	}
	for _, ref := range listed {
		item := doc.Find(`[data-testid="answer-ref"][data-ref="` + ref + `"]`).Text()
		if _, err := strconv.Atoi(ref); err != nil || !strings.Contains(answer.Text(), "["+ref+"]") || !strings.Contains(item, "passages C") {
			t.Fatalf("cited %q (%q), not a document number the answer cites: %q", ref, item, answer.Text())
		}
	}
	// The offline strategy folds short forms into full names: "Marley" is
	// "Jacob Marley", "Scrooge" is "Ebenezer Scrooge".
	if top := topEntities(doc, 3); !top["Jacob Marley"] || !top["Ebenezer Scrooge"] {
		t.Fatalf("Scrooge and Marley not among the top 3 entities: %v", top)
	}
	if ref := doc.Find(`[data-testid="query-entity"]`).First().AttrOr("data-ref", ""); ref != "E1" {
		t.Fatalf("first entity ref %q", ref)
	}
	links := doc.Find(`[data-testid="query-chunk"] [data-testid="chunk-link"]`)
	if links.Length() == 0 {
		t.Fatal("no chunks shown")
	}
	href := links.First().AttrOr("href", "")
	if !strings.HasPrefix(href, fmt.Sprintf("/versions/%d/chunks/%d/", v.ID, v.DocumentIDs[0])) {
		t.Fatalf("chunk link %q", href)
	}
	if r, _ := a.Get(t, href); r.StatusCode != http.StatusOK {
		t.Fatalf("chunk link %s: status %d", href, r.StatusCode)
	}
	if !strings.Contains(doc.Find(`[data-testid="query-context"]`).Text(), "[C1]") {
		t.Fatal("rendered context missing")
	}

	// The API gives the same ranking, and a chunk that names both.
	res := getQueryJSON(t, a, v.ID, partnerQuestion)
	if res.Question != partnerQuestion || res.Answer == nil || !res.Answer.Extractive || len(res.Keywords.Low) == 0 {
		t.Fatalf("API result: %+v", res)
	}
	if len(res.Entities) == 0 || res.Entities[0].Name != doc.Find(`[data-testid="query-entity"]`).First().AttrOr("data-name", "") {
		t.Fatal("API and page rank differently")
	}
	both := false
	for _, ch := range res.Chunks {
		both = both || strings.Contains(ch.Text, "Scrooge") && strings.Contains(ch.Text, "Marley")
	}
	if !both {
		t.Fatal("no retrieved chunk mentions both Scrooge and Marley")
	}
}

func TestQuery_Invalid(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := mustCarol(t, a)
	for _, path := range []string{
		fmt.Sprintf("/api/versions/%d/query", v.ID),
		fmt.Sprintf("/api/versions/%d/query?%s", v.ID, queryValues("x", "provider", "bogus")),
		fmt.Sprintf("/api/versions/%d/query?q=%s", v.ID, strings.Repeat("a", 3000)),
		fmt.Sprintf("/api/versions/%d/query?%s", v.ID, queryValues("x", "mode", "sideways")),
		fmt.Sprintf("/api/versions/%d/query?%s", v.ID, queryValues("x", "top_k", "0")),
		fmt.Sprintf("/api/versions/%d/query?%s", v.ID, queryValues("x", "top_k", "many")),
		fmt.Sprintf("/api/versions/%d/query?%s", v.ID, queryValues("x", "as_of", "last spring")),
	} {
		resp, err := http.Get(a.Server.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", path[:min(len(path), 60)], resp.StatusCode)
		}
	}
	// An empty question is refused as every way of asking refuses it.
	for _, path := range []string{fmt.Sprintf("/api/versions/%d/query?q=%%20", v.ID), fmt.Sprintf("/api/versions/%d/query", v.ID)} {
		resp, err := http.Get(a.Server.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := extract.MessageOf(app.ErrEmptyQuestion); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d %s, want 400 saying %q", path, resp.StatusCode, body, want)
		}
	}
	// A readable as_of is answered and echoed.
	resp, err := http.Get(fmt.Sprintf("%s/api/versions/%d/query?%s", a.Server.URL, v.ID, queryValues("Scrooge", "as_of", "2020-01-01")))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		AsOf string `json:"as_of"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != http.StatusOK || res.AsOf != "2020-01-01" {
		t.Errorf("as_of query: status %d, as_of %q, %v", resp.StatusCode, res.AsOf, err)
	}
	resp.Body.Close()
	if resp, _ := a.Get(t, "/versions/999/query?q=x"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown version: status %d", resp.StatusCode)
	}
	// An empty question shows the form only.
	_, doc := a.Get(t, fmt.Sprintf("/versions/%d/query", v.ID))
	if doc.Find(`[data-testid="query-form"]`).Length() != 1 || doc.Find(`[data-testid="query-keywords"]`).Length() != 0 {
		t.Fatal("empty question page")
	}
}

func TestQuery_AnswerThroughGemini(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: partnerQuestion, Anywhere: "Reference Document List", Text: "Marley's partner was Scrooge [E2][C1]; the firm bore both names [C9]."},
	}})
	a := MustAppWith(t, app.Providers{GeminiAPIKey: "test-key-never-shown", GeminiBaseURL: srv.GeminiURL(),
		GeminiModel: "gemini-2.5-flash", Concurrency: 2, Timeout: 10 * time.Second})
	v := mustCarol(t, a)

	// A GET (a link, a prefetch, a crawler) retrieves but never spends a model call.
	_, doc := a.Get(t, fmt.Sprintf("/versions/%d/query?%s", v.ID, queryValues(partnerQuestion, "keywords", "model")))
	if got := doc.Find(`[data-testid="query-provider"] option[selected]`).AttrOr("value", ""); got != "gemini" {
		t.Fatalf("default provider %q, want the configured gemini", got)
	}
	if n := srv.Count(); n != 0 || !strings.Contains(doc.Find(`[data-testid="answer-text"]`).Text(), "Extractive answer") {
		t.Fatalf("GET of the query page made %d model calls, or its answer is not the extractive one", n)
	}
	if doc.Find(`[data-testid="query-entity"]`).Length() == 0 {
		t.Fatal("GET shows no retrieval")
	}
	if res := getQueryJSON(t, a, v.ID, partnerQuestion, "keywords", "model"); res.Answer == nil || !res.Answer.Extractive || srv.Count() != 0 {
		t.Fatalf("GET of the query API: answer %+v, %d model calls", res.Answer, srv.Count())
	}
	// Global mode too: a GET ranks the community reports, and maps and
	// reduces none of them.
	if res := getQueryJSON(t, a, v.ID, partnerQuestion, "mode", "global"); len(res.Reports) == 0 || res.Answer == nil || !res.Answer.Extractive || srv.Count() != 0 {
		t.Fatalf("GET of global: %d reports, answer %+v, %d model calls", len(res.Reports), res.Answer, srv.Count())
	}
	if m := doc.Find(`[data-testid="query-form"]`).AttrOr("method", ""); m != "post" {
		t.Fatalf("the Ask form uses %q, want post", m)
	}

	// Five chunks, so the answer's [C9] is a reference the context lacks.
	_, doc = a.PostForm(t, fmt.Sprintf("/versions/%d/query", v.ID), url.Values{"q": {partnerQuestion}, "top_k": {"5"}, "keywords": {"offline"}})
	calls := srv.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d provider calls, want 1", len(calls))
	}
	msgs := calls[0].Messages
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Content != partnerQuestion {
		t.Fatalf("the answer call's messages: %+v", msgs)
	}
	prompt := msgs[0].Content
	if !strings.Contains(prompt, `"entity":"Jacob Marley"`) || !strings.Contains(prompt, `"reference_id":"1"`) || !strings.Contains(prompt, "Reference Document List") {
		t.Fatalf("the prompt lacks entities, passages or references:\n%s", prompt)
	}
	if got := doc.Find(`[data-testid="answer-text"]`).Text(); !strings.Contains(got, "Marley's partner was Scrooge [E2][C1]") {
		t.Fatalf("answer %q", got)
	}
	var refs []string
	doc.Find(`[data-testid="answer-ref"]`).Each(func(_ int, s *goquery.Selection) { refs = append(refs, s.AttrOr("data-ref", "")) })
	if strings.Join(refs, ",") != "E2,C1" {
		t.Fatalf("cited references %q (an id the context lacks must not be listed)", refs)
	}
	if href := doc.Find(`[data-testid="answer-ref"][data-ref="C1"] a`).AttrOr("href", ""); !strings.Contains(href, "/chunks/") {
		t.Fatalf("C1 links to %q", href)
	}
	if strings.Contains(doc.Text(), "test-key-never-shown") {
		t.Fatal("API key rendered")
	}

	// The API answers a POST too (from the call cache), and provider none skips the model.
	res := postQueryJSON(t, a, v.ID, partnerQuestion, "top_k", "5")
	if res.Mode != "mix" || res.TopK != 5 {
		t.Fatalf("API mode %q top_k %d, want mix and 5", res.Mode, res.TopK)
	}
	if res.Answer == nil || res.Answer.Provider != "gemini" || strings.Join(res.Answer.Cited, ",") != "E2,C1" {
		t.Fatalf("API answer: %+v", res.Answer)
	}
	srv.Reset()
	res = postQueryJSON(t, a, v.ID, partnerQuestion, "provider", "none")
	if res.Answer == nil || !res.Answer.Extractive || srv.Count() != 0 || res.Note == "" {
		t.Fatalf("provider none: answer %+v, %d calls, note %q", res.Answer, srv.Count(), res.Note)
	}
}
