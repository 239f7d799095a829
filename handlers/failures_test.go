package handlers_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// A run against a model server that is down (its port refuses the
// connection) fails at once: each chunk's job tries once, its client
// twice, and the chunk is settled failed (no River attempts stacked on the
// client's). The version page lists the failures in one table of plain
// rows, naming the document's file and giving each error one prefix.
func TestVersionPage_FailuresOfARefusedServer(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	a := MustAppWith(t, app.Providers{OpenAIBaseURL: "http://" + addr + "/v1", OpenAIModel: "local", Concurrency: 1, Timeout: 10 * time.Second, RetryDelay: time.Millisecond})
	ctx := context.Background()
	d, _ := extract.ReadDocument("marley.txt", []byte(marley), extract.DefaultMaxBytes)
	d, _, _ = a.AddDocument(ctx, d)
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.ChunkSize, cfg.Overlap, cfg.Concurrency, cfg.MaxGleaning = extract.StrategyTuple, "openai", 120, 0, 1, 0
	v, _, err := a.App.Runs.NewRun(ctx, app.RunRequest{Extraction: "down", Config: cfg, DocumentIDs: []int{d.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.App.Runs.Run(ctx, v, nil); err == nil {
		t.Fatal("a run against a closed port succeeded")
	}
	v, _ = a.App.Versions.Get(ctx, v.ID)
	if v.Status != record.StatusFailed || v.ChunksTotal < 2 || len(v.ChunkErrors) != v.ChunksTotal {
		t.Fatalf("run: %s, %d chunks, errors %+v", v.Status, v.ChunksTotal, v.ChunkErrors)
	}
	if !strings.Contains(v.Error, `chunk 0 of "marley.txt": unavailable: `) || strings.Count(v.Error, "marley.txt") != 1 {
		t.Errorf("version error %q", v.Error)
	}
	waitJobsIdle(t, a, v.ID)
	_, page := a.Get(t, fmt.Sprintf("/versions/%d", v.ID))
	if n := page.Find(`[data-testid="job-errors"]`).Length(); n != 0 {
		t.Errorf("the job errors are listed a second time (%d tables)", n)
	}
	rows := page.Find(`[data-testid="chunk-errors"] [data-testid="chunk-error"]`)
	if rows.Length() != v.ChunksTotal {
		t.Fatalf("%d failure rows, want %d", rows.Length(), v.ChunksTotal)
	}
	for i := range rows.Length() {
		row := rows.Eq(i)
		cell := func(id string) string { return strings.TrimSpace(row.Find(`[data-testid="` + id + `"]`).Text()) }
		msg := cell("job-error")
		if cell("chunk-document") != "marley.txt" || cell("job-error-state") != "failed" || cell("chunk-status") != "unavailable" {
			t.Errorf("row %d: document %q, state %q, status %q", i, cell("chunk-document"), cell("job-error-state"), cell("chunk-status"))
		}
		if strings.Contains(msg, "extract chunk") || !strings.Contains(msg, "connection refused") || !strings.Contains(msg, "after 2 attempts") {
			t.Errorf("row %d: error %q", i, msg)
		}
		if got := strings.TrimSpace(row.Find("td").Eq(3).Text()); got != "1" {
			t.Errorf("row %d: the chunk's job ran %s times, want once", i, got)
		}
	}

	// In the browser the rows read plainly: not struck through.
	bctx := MustChrome(t)
	if err := chromedp.Do(bctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d", a.Server.URL, v.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="chunk-errors"]`))); err != nil {
		t.Fatal(err)
	}
	struck, err := chromedp.Run(bctx, chromedp.Evaluate[int](`[...document.querySelectorAll('[data-testid="chunk-errors"] td')]
		.filter(td => getComputedStyle(td).textDecorationLine.includes('line-through')).length`))
	if err != nil {
		t.Fatal(err)
	}
	if struck != 0 {
		t.Errorf("%d cells of the failures struck through", struck)
	}
}
