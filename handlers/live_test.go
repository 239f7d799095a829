package handlers_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// The version page and the compare page of a run update themselves until
// the run ends: badge, cards, tables and buttons, without a click.
func TestLivePages_Browser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	first := a.MustExtract(t, "live", "carol.txt", mustSampleText(t), extract.DefaultConfig())
	cfg := extract.DefaultConfig()
	cfg.ChunkSize, cfg.Overlap = 300, 0
	v, _, err := a.App.Runs.NewRun(context.Background(), app.RunRequest{Extraction: "live", Config: cfg, DocumentIDs: first.DocumentIDs})
	if err != nil {
		t.Fatal(err)
	}

	// wait evaluates js until it is true; the page may reload meanwhile.
	wait := func(t *testing.T, js string) {
		t.Helper()
		testkit.Eventually(t, 30*time.Second, func() error {
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
			if err != nil {
				return fmt.Errorf("waiting for %s: %v", js, err)
			}
			if !ok {
				return fmt.Errorf("%s is still false", js)
			}
			return nil
		})
	}
	t.Run("VersionPage", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d", a.Server.URL, v.ID))); err != nil {
			t.Fatal(err)
		}
		queued, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid="version"]').dataset.status === "queued" &&
			!!document.querySelector('[data-testid="cancel"]') && (window.__sameDocument = true)`))
		if err != nil || !queued {
			t.Fatalf("before the run: %v %v", queued, err)
		}
		a.App.Runs.Start(v)
		wait(t, `document.querySelector('[data-testid="version"]').dataset.status === "done"`)
		type state struct {
			Same, Cancel, Delete bool
			Badge, Nodes         string
			Rows                 int
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[state](`({
			Same: window.__sameDocument === true,
			Cancel: !!document.querySelector('[data-testid="cancel"]'),
			Delete: !!document.querySelector('[data-testid="delete-version"]'),
			Badge: document.querySelector('h1 [data-testid="status"]').textContent,
			Nodes: document.querySelector('[data-testid="stats"] .card .n').textContent,
			Rows: document.querySelectorAll('[data-testid="nodes"] tbody tr').length})`))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Same || got.Cancel || !got.Delete || got.Badge != "done" || got.Nodes == "0" || got.Rows == 0 {
			t.Fatalf("after the run, without a reload: %+v", got)
		}
	})
	t.Run("ComparePage", func(t *testing.T) {
		third, _, err := a.App.Runs.NewRun(context.Background(), app.RunRequest{Extraction: "live", Config: extract.DefaultConfig(), DocumentIDs: first.DocumentIDs})
		if err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/compare?a=%d&b=%d", a.Server.URL, first.ID, third.ID)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-running"]`))); err != nil {
			t.Fatal(err)
		}
		a.App.Runs.Start(third)
		wait(t, `!document.querySelector('[data-testid="compare-running"]') && !!document.querySelector('[data-testid="summary"]')`)
		if v := waitVersion(t, a, third.ID); v.Status != record.StatusDone {
			t.Fatalf("third run %s", v.Status)
		}
	})
}
