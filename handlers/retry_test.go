package handlers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
)

// A provider that answers 500 on every attempt for the first chunk: the run
// goes on with the other chunks, fails with the status shown on the chunk,
// and the "Retry failed chunks" button makes a version (parent shown) that
// asks the model once, for that chunk only.
func TestRetry_FailedChunkThroughUI(t *testing.T) {
	t.Parallel()
	bctx := MustChrome(t)
	good := "entity<|#|>Marley<|#|>person<|#|>Scrooge's partner.\nentity<|#|>Scrooge<|#|>person<|#|>A miser.\n" +
		"relation<|#|>Scrooge<|#|>Marley<|#|>partnership<|#|>Partners.\n<|COMPLETE|>"
	a, srv, v := flakyRun(t, "flaky", good)
	ctx := context.Background()
	v, _ = a.App.Versions.Get(ctx, v.ID)
	if v.Status != record.StatusFailed || v.ChunksDone != v.ChunksTotal-1 || len(v.ChunkErrors) != 1 || v.ChunkErrors[0].Status != "HTTP 500" {
		t.Fatalf("failed run: %s, %d of %d chunks, errors %+v", v.Status, v.ChunksDone, v.ChunksTotal, v.ChunkErrors)
	}
	_, page := a.Get(t, fmt.Sprintf("/versions/%d", v.ID))
	if got := page.Find(`[data-testid="chunk-status"]`).Text(); got != "HTTP 500" {
		t.Errorf("chunk status on the page %q", got)
	}
	if page.Find(`[data-testid="resume"]`).Length() != 1 {
		t.Error("a failed run offers no resume button")
	}

	before := srv.Count()
	err := chromedp.Do(bctx,
		chromedp.Navigate(fmt.Sprintf("%s/versions/%d", a.Server.URL, v.ID)),
		chromedp.Click(chromedp.CSS(`[data-testid="retry"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="parent"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	parent, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="parent"]').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	url, err := chromedp.Run(bctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(parent, "flaky@1") {
		t.Errorf("parent line %q", parent)
	}
	var id int
	fmt.Sscanf(url[strings.LastIndex(url, "/versions/"):], "/versions/%d", &id)
	nv := waitVersion(t, a, id)
	if nv.Status != record.StatusDone || nv.ParentID != v.ID || nv.Number != 2 || nv.ChunksDone != nv.ChunksTotal {
		t.Fatalf("retry: %+v", nv)
	}
	if paid := srv.Count() - before; paid != 1 || nv.Calls-nv.CachedCalls != 1 {
		t.Errorf("retry asked the model %d times (%d calls, %d cached), want once", paid, nv.Calls, nv.CachedCalls)
	}
}

// A schema-strategy answer with a fence, comments, single quotes, unquoted
// keys and trailing commas keeps every entity; the inspector names the
// repairs and the version counts them.
func TestChunkInspector_Repairs(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "belongs to one of the schema types", Text: fakellm.Load(t, "testdata/marley_ner_malformed.txt")},
		{Contains: "give its official name", Text: `{"entities": []}`},
		{Contains: "Find the relations", Text: "```json\n{\"relations\": [{\"subject\": \"Scrooge\", \"predicate\": \"partnerOf\", \"object\": \"Marley\"},]}\n```"},
	}})
	a := MustAppWith(t, app.Providers{OpenAIBaseURL: srv.OpenAIURL(), OpenAIModel: "local", Concurrency: 1, Timeout: 10 * time.Second, RetryDelay: time.Millisecond})
	ctx := context.Background()
	d, _ := extract.ReadDocument("marley.txt", []byte(marley), extract.DefaultMaxBytes)
	d, _, _ = a.AddDocument(ctx, d)
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.ChunkSize, cfg.Overlap = extract.StrategySchema, "openai", 2000, 0
	v, _, err := a.App.Runs.NewRun(ctx, app.RunRequest{Extraction: "repaired", Config: cfg, DocumentIDs: []int{d.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.App.Runs.Run(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	v, _ = a.App.Versions.Get(ctx, v.ID)
	if v.Nodes < 3 || v.Edges < 1 || v.ParseFailures != 0 || v.Repairs != 7 {
		t.Fatalf("version: %d nodes, %d edges, %d failures, %d repairs", v.Nodes, v.Edges, v.ParseFailures, v.Repairs)
	}
	_, page := a.Get(t, fmt.Sprintf("/versions/%d/chunks/%d/0", v.ID, d.ID))
	got := page.Find(`[data-testid="chunk-repairs"]`).Text()
	for _, want := range []string{"code fence ×2", "trailing comma ×2", "single quotes ×1", "comment ×1", "unquoted key ×1"} {
		if !strings.Contains(got, want) {
			t.Errorf("inspector repairs %q lack %q", got, want)
		}
	}
	_, vp := a.Get(t, fmt.Sprintf("/versions/%d", v.ID))
	if got := vp.Find(`[data-testid="repairs"]`).Text(); got != "7" {
		t.Errorf("version page repairs %q", got)
	}
}
