package handlers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
)

// The version page shows the run's jobs: how many completed and failed,
// and the failing chunk's last error.
func TestVersionPage_Jobs(t *testing.T) {
	t.Parallel()
	good := "entity<|#|>Marley<|#|>person<|#|>Scrooge's partner.\n<|COMPLETE|>"
	a, _, v := flakyRun(t, "jobs", good)
	ctx := context.Background()
	v, _ = a.App.Versions.Get(ctx, v.ID)
	waitJobsIdle(t, a, v.ID) // the final job completes just after it marks the version
	_, page := a.Get(t, fmt.Sprintf("/versions/%d", v.ID))
	text := func(id string) string { return strings.TrimSpace(page.Find(`[data-testid="` + id + `"]`).Text()) }
	if page.Find(`[data-testid="jobs"]`).Length() != 1 {
		t.Fatal("no jobs panel")
	}
	// Every chunk but the failing one, and the final job, completed.
	if got, want := text("jobs-completed"), fmt.Sprint(v.ChunksTotal); got != want {
		t.Errorf("completed jobs %q, want %s", got, want)
	}
	if text("jobs-failed") != "1" || text("jobs-queued") != "0" || text("jobs-running") != "0" {
		t.Errorf("jobs: failed %q, queued %q, running %q", text("jobs-failed"), text("jobs-queued"), text("jobs-running"))
	}
	if got := text("chunk-status"); got != "HTTP 500" || text("job-error-state") != "failed" || !strings.Contains(text("job-error"), "HTTP 500") {
		t.Errorf("last error %s %q (%s)", got, text("job-error"), text("job-error-state"))
	}
}

// flakyRun runs a tuple extraction of marley in chunks of 80 characters
// whose first chunk fails: the model answers good, but its first five
// calls (all the client's attempts at that chunk) fail with HTTP 500.
func flakyRun(t *testing.T, name, good string) (*testApp, *fakellm.Server, record.Version) {
	t.Helper()
	srv := fakellm.New(t, fakellm.Options{FailFirst: 5, FailStatus: 500, Rules: []fakellm.Rule{{Text: good}}})
	a := MustAppWith(t, app.Providers{OpenAIBaseURL: srv.OpenAIURL(), OpenAIModel: "local", Concurrency: 1, Timeout: 10 * time.Second, RetryDelay: time.Millisecond})
	ctx := context.Background()
	d, _ := extract.ReadDocument("marley.txt", []byte(marley), extract.DefaultMaxBytes)
	d, _, _ = a.AddDocument(ctx, d)
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.ChunkSize, cfg.Overlap, cfg.Concurrency, cfg.MaxGleaning = extract.StrategyTuple, "openai", 80, 0, 1, 0
	v, _, err := a.App.Runs.NewRun(ctx, app.RunRequest{Extraction: name, Config: cfg, DocumentIDs: []int{d.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.App.Runs.Run(ctx, v, nil); err == nil {
		t.Fatal("run with a failing chunk succeeded")
	}
	return a, srv, v
}
