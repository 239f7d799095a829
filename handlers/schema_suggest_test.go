package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// suggestDocs are two short news items naming people and organizations.
var suggestDocs = []string{
	`Maria Lopez joined Acme Corporation in March. Maria Lopez now leads the research team at Acme Corporation in Boston.
Daniel Kim left Globex Industries last year. Daniel Kim founded Initech Software with Sarah Chen.`,
	`Sarah Chen works for Initech Software. Sarah Chen met Maria Lopez at a conference in Chicago.
Globex Industries hired Daniel Kim again in June. Acme Corporation and Globex Industries signed an agreement in Boston.`,
}

// mustSuggestDocs stores the sample documents.
func mustSuggestDocs(t *testing.T, a *testApp) []extract.Document {
	t.Helper()
	var out []extract.Document
	for i, text := range suggestDocs {
		d, err := extract.ReadDocument("news"+strconv.Itoa(i+1)+".txt", []byte(text), extract.DefaultMaxBytes)
		if err != nil {
			t.Fatal(err)
		}
		if d, _, err = a.AddDocument(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

func schemaCount(t *testing.T, a *testApp) int {
	t.Helper()
	list, err := a.App.Schemas.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// TestSchemaEditor_Suggest: "Suggest from documents" in the new-schema
// editor drafts Person and Organization types from two picked documents
// into the form without storing anything; Save stores the draft.
func TestSchemaEditor_Suggest(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	mustSuggestDocs(t, a)
	typeNames := func() []string {
		t.Helper()
		names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll('#editor input[name^="types["]')].filter(i => /^types\[\d+\]\.name$/.test(i.name)).map(i => i.value)`))
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(a.Server.URL+"/schemas/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="suggest"]`)),
		chromedp.Evaluate[chromedp.Void](`window.kgMarker = 1; document.querySelectorAll('[data-testid="suggest-doc"]').forEach(c => c.checked = true)`),
		chromedp.Click(chromedp.CSS(`[data-testid="suggest"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="editor-message"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="editor-message"]`)))
	names := typeNames()
	joined := strings.Join(names, " ")
	if !strings.Contains(joined, "Person") || !strings.Contains(joined, "Organization") {
		t.Fatalf("drafted types %q (message %q)", names, msg)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.kgMarker || 0`)); marker != 1 {
		t.Fatal("the suggestion reloaded the page instead of filling the form")
	}
	if n := schemaCount(t, a); n != 0 {
		t.Fatalf("%d schemas stored before Save", n)
	}
	// Leaving now would lose the draft: the page asks first (once the
	// swapped form has settled: polled, not assumed).
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(function(){ var e = new Event("beforeunload", {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented; })()`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("leaving with the unsaved draft does not ask: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`[data-testid="schema-name"]`), "News"),
		chromedp.Click(chromedp.CSS(`[data-testid="save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="history"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if n := schemaCount(t, a); n != 1 {
		t.Fatalf("%d schemas after Save, want 1", n)
	}
}

// TestSchemaEditor_SuggestForm: the suggestion is a POST of the editor
// that stores nothing: without a pick it asks for one; a draft keeps the
// types the working copy has; GET does not suggest, nor another origin.
func TestSchemaEditor_SuggestForm(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	docs := mustSuggestDocs(t, a)
	resp, doc := a.PostForm(t, "/schemas/editor", url.Values{"op": {"suggest"}, "schema": {"x"}, "from": {"0"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(doc.Find(`[data-testid="editor-message"]`).Text(), "Pick one or more documents") {
		t.Fatalf("no pick: %d %q", resp.StatusCode, doc.Find(`[data-testid="editor-message"]`).Text())
	}
	form := url.Values{"op": {"suggest"}, "schema": {"x"}, "from": {"0"}, "types[0].name": {"Person"}, "types[0].description": {"mine"},
		"suggest_doc": {strconv.Itoa(docs[0].ID), strconv.Itoa(docs[1].ID)}}
	resp, doc = a.PostForm(t, "/schemas/editor", form)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if v, _ := doc.Find(`input[name="types[0].description"]`).Attr("value"); v != "mine" {
		t.Errorf("the working copy's Person was replaced: %q", v)
	}
	persons := 0
	doc.Find(`input`).Each(func(_ int, s *goquery.Selection) {
		if n, _ := s.Attr("name"); strings.HasSuffix(n, "].name") && !strings.Contains(n, "].properties[") && !strings.Contains(n, "].relations[") {
			if v, _ := s.Attr("value"); v == "Person" {
				persons++
			}
		}
	})
	if persons != 1 || doc.Find(`input[name="types[1].name"]`).Length() != 1 {
		t.Errorf("%d Person types; a second type: %d", persons, doc.Find(`input[name="types[1].name"]`).Length())
	}
	if checked := doc.Find(`[data-testid="suggest-doc"][checked]`).Length(); checked != 2 {
		t.Errorf("%d documents still picked, want 2", checked)
	}
	if n := schemaCount(t, a); n != 0 {
		t.Fatalf("%d schemas stored by a suggestion", n)
	}
	if resp := do(t, "POST", a.Server.URL+"/schemas/editor", form.Encode(), map[string]string{"Origin": "https://evil.example"}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a suggestion from another origin: status %d", resp.StatusCode)
	}
	if code := getJSON(t, a, "/schemas/editor?op=suggest&suggest_doc="+strconv.Itoa(docs[0].ID), nil); code != http.StatusMethodNotAllowed && code != http.StatusNotFound {
		t.Errorf("GET of the editor: status %d", code)
	}
}

// draftTypes lists the type names of the editor's working copy.
func draftTypes(doc *goquery.Document) []string {
	var names []string
	doc.Find(`input`).Each(func(_ int, s *goquery.Selection) {
		if n, _ := s.Attr("name"); strings.HasPrefix(n, "types[") && strings.HasSuffix(n, "].name") && !strings.Contains(n, "].properties[") && !strings.Contains(n, "].relations[") {
			v, _ := s.Attr("value")
			names = append(names, v)
		}
	})
	return names
}

// TestSchemaEditor_SuggestByModel: the editor drafts offline unless a
// configured provider is picked beside the button; then the model's types
// fill the working copy (one call, cached: asking again makes none) and
// nothing is stored. A provider not configured, or an answer that cannot
// be read, is said in the editor, the working copy as it was.
func TestSchemaEditor_SuggestByModel(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Anywhere: "You design the schema of a knowledge graph", Contains: "Sarah Chen works for", Text: fakellm.Load(t, "../app/testdata/suggest/cutoff.json")},
		{Anywhere: "You design the schema of a knowledge graph", Text: fakellm.Load(t, "../app/testdata/suggest/schema.json")},
	}})
	a := MustAppWith(t, app.Providers{GeminiAPIKey: "k", GeminiBaseURL: srv.GeminiURL(), GeminiModel: "gemini-2.5-flash", Concurrency: 2})
	docs := mustSuggestDocs(t, a)

	// The box offers offline first, selected; Gemini with its model; OpenAI not configured.
	_, doc := a.Get(t, "/schemas/new")
	opts := doc.Find(`[data-testid="suggest-provider"] option`)
	sel, _ := opts.Filter(`[selected]`).Attr("value")
	if opts.Length() != 3 || sel != string(extract.ProviderNone) || !strings.Contains(opts.Eq(1).Text(), "gemini-2.5-flash") || !strings.Contains(opts.Eq(2).Text(), "not configured") {
		t.Fatalf("providers offered: %q, selected %q", opts.Text(), sel)
	}

	form := url.Values{"op": {"suggest"}, "schema": {"News"}, "from": {"0"}, "suggest_provider": {"gemini"}, "suggest_doc": {strconv.Itoa(docs[0].ID)}}
	for i := range 2 {
		resp, doc := a.PostForm(t, "/schemas/editor", form)
		names := strings.Join(draftTypes(doc), " ")
		msg := doc.Find(`[data-testid="editor-message"]`).Text()
		if resp.StatusCode != http.StatusOK || names != "Person Organization City ResearchTeam" || !strings.Contains(msg, "by the gemini model") {
			t.Fatalf("ask %d: %d, types %q, message %q", i+1, resp.StatusCode, names, msg)
		}
		if v, _ := doc.Find(`[data-testid="suggest-provider"] option[selected]`).Attr("value"); v != "gemini" {
			t.Errorf("ask %d: the provider picked is not kept: %q", i+1, v)
		}
		if srv.Count() != 1 {
			t.Fatalf("ask %d: %d calls, want 1", i+1, srv.Count())
		}
	}
	if n := schemaCount(t, a); n != 0 {
		t.Fatalf("%d schemas stored by a suggestion", n)
	}

	// Not configured: said, nothing drafted, no call.
	form.Set("suggest_provider", "openai")
	form.Set("types[0].name", "Mine")
	_, doc = a.PostForm(t, "/schemas/editor", form)
	if msg := doc.Find(`[data-testid="editor-message"]`).Text(); !strings.Contains(msg, "the openai provider is not configured: set OPENAI_BASE_URL") || strings.Join(draftTypes(doc), " ") != "Mine" || srv.Count() != 1 {
		t.Fatalf("openai not configured: message %q, types %v, %d calls", msg, draftTypes(doc), srv.Count())
	}

	// Unreadable: said, the working copy as it was.
	form.Set("suggest_provider", "gemini")
	form["suggest_doc"] = []string{strconv.Itoa(docs[1].ID)}
	_, doc = a.PostForm(t, "/schemas/editor", form)
	if msg := doc.Find(`[data-testid="editor-message"]`).Text(); !strings.Contains(msg, "could not be read (the answer is cut off)") || strings.Join(draftTypes(doc), " ") != "Mine" {
		t.Fatalf("cut-off answer: message %q, types %v", msg, draftTypes(doc))
	}
	if n := schemaCount(t, a); n != 0 {
		t.Fatalf("%d schemas stored", n)
	}
}

// TestSchemaEditor_SuggestByModelBrowser: in the browser, picking Gemini
// beside the button fills the editor with the model's types (ResearchTeam
// is the model's, not the offline extractor's), nothing stored.
func TestSchemaEditor_SuggestByModelBrowser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Anywhere: "You design the schema of a knowledge graph", Text: fakellm.Load(t, "../app/testdata/suggest/schema.json")},
	}})
	a := MustAppWith(t, app.Providers{GeminiAPIKey: "k", GeminiBaseURL: srv.GeminiURL(), GeminiModel: "gemini-2.5-flash", Concurrency: 2})
	mustSuggestDocs(t, a)
	err := chromedp.Do(ctx,
		chromedp.Navigate(a.Server.URL+"/schemas/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="suggest"]`)),
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('[data-testid="suggest-doc"]').forEach(c => c.checked = true)`),
		chromedp.SetValue(chromedp.CSS(`[data-testid="suggest-provider"]`), "gemini"),
		chromedp.Click(chromedp.CSS(`[data-testid="suggest"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="editor-message"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('#editor input[name^="types["]')].filter(i => /^types\[\d+\]\.name$/.test(i.name)).map(i => i.value)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, " ") != "Person Organization City ResearchTeam" || srv.Count() != 1 {
		t.Fatalf("drafted types %q, %d calls", names, srv.Count())
	}
	if n := schemaCount(t, a); n != 0 {
		t.Fatalf("%d schemas stored before Save", n)
	}
}
