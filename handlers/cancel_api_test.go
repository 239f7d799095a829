package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
)

// POST /api/versions/ID/cancel stops a running version and answers the
// version JSON with its jobs, as GET /api/versions/ID does; a version that
// has ended is a 409.
func TestAPI_CancelVersion(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.Options{Latency: 200 * time.Millisecond, Rules: []fakellm.Rule{{Text: "entity<|#|>Marley<|#|>person<|#|>Dead.\n<|COMPLETE|>"}}})
	a := MustAppWith(t, app.Providers{OpenAIBaseURL: srv.OpenAIURL(), OpenAIModel: "local", Concurrency: 1, Timeout: 10 * time.Second, RetryDelay: time.Millisecond})
	ctx := context.Background()
	d, _ := extract.ReadDocument("marley.txt", []byte(strings.Repeat(marley, 3)), extract.DefaultMaxBytes)
	d, _, _ = a.AddDocument(ctx, d)
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.ChunkSize, cfg.Overlap, cfg.MaxGleaning = extract.StrategyTuple, "openai", 80, 0, 0
	v, _, err := a.App.Runs.NewRun(ctx, app.RunRequest{Extraction: "cancel-api", Config: cfg, DocumentIDs: []int{d.ID}})
	if err != nil {
		t.Fatal(err)
	}
	a.App.Runs.Start(v)

	type versionJobs struct {
		Status string            `json:"status"`
		Phase  *string           `json:"phase"`
		Jobs   *record.JobCounts `json:"jobs"`
	}
	call := func(method, path string) (int, versionJobs) {
		t.Helper()
		req, _ := http.NewRequest(method, a.Server.URL+path, nil)
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out versionJobs
		if resp.StatusCode == http.StatusOK {
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode, out
	}
	code, got := call("GET", fmt.Sprintf("/api/versions/%d", v.ID))
	if code != http.StatusOK || got.Jobs == nil || got.Phase == nil || (extract.Phase(*got.Phase) != extract.PhaseQueued && extract.Phase(*got.Phase) != extract.PhaseExtracting) {
		t.Fatalf("GET /api/versions/ID: %d, jobs %v, phase %v", code, got.Jobs, got.Phase)
	}
	if code, got = call("GET", fmt.Sprintf("/versions/%d/progress", v.ID)); code != http.StatusOK || got.Phase == nil || *got.Phase == "" {
		t.Fatalf("GET /versions/ID/progress: %d, phase %v", code, got.Phase)
	}
	code, got = call("POST", fmt.Sprintf("/api/versions/%d/cancel", v.ID))
	if code != http.StatusOK || got.Status != string(record.StatusCanceled) || got.Jobs == nil {
		t.Fatalf("POST /api/versions/ID/cancel: %d, status %q, jobs %v", code, got.Status, got.Jobs)
	}
	if got.Phase == nil || *got.Phase != "" {
		t.Errorf("a canceled version's phase %v", got.Phase)
	}
	if got.Jobs.Queued != 0 {
		t.Errorf("%d jobs still queued after the cancel", got.Jobs.Queued)
	}
	if cur, _ := a.App.Versions.Get(ctx, v.ID); cur.Status != record.StatusCanceled {
		t.Errorf("stored status %s", cur.Status)
	}
	if code, _ = call("POST", fmt.Sprintf("/api/versions/%d/cancel", v.ID)); code != http.StatusConflict {
		t.Errorf("second cancel: %d, want 409", code)
	}
	if code, _ = call("POST", "/api/versions/999999/cancel"); code != http.StatusNotFound {
		t.Errorf("cancel of no version: %d, want 404", code)
	}
}
