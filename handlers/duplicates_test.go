package handlers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
)

// carolAnswer names Scrooge twice and Marley twice.
const carolAnswer = "entity<|#|>Ebenezer Scrooge<|#|>person<|#|>A squeezing old sinner.\n" +
	"entity<|#|>Mr. Scrooge<|#|>person<|#|>He signed the register.\n" +
	"entity<|#|>Jacob Marley<|#|>person<|#|>Scrooge's dead partner.\n" +
	"entity<|#|>Marley<|#|>person<|#|>Dead to begin with.\n" +
	"relation<|#|>Ebenezer Scrooge<|#|>Jacob Marley<|#|>partnership<|#|>Partners for years.\n" +
	"relation<|#|>Mr. Scrooge<|#|>Marley<|#|>register<|#|>Scrooge signed the register of Marley's burial.\n<|COMPLETE|>"

// carolTuples is an app whose model answers carolAnswer, with the tuple
// run's config and the version it made of marley.
func carolTuples(t *testing.T) (*testApp, extract.Config, record.Version) {
	t.Helper()
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: carolAnswer}}})
	a := MustAppWith(t, app.Providers{OpenAIBaseURL: srv.OpenAIURL(), OpenAIModel: "local", Concurrency: 1, Timeout: 10 * time.Second, RetryDelay: time.Millisecond})
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.MaxGleaning = extract.StrategyTuple, "openai", 0
	return a, cfg, a.MustExtract(t, "carol", "marley.txt", marley, cfg)
}

// The Duplicates page, reached from the version page, reviews the pairs:
// Skip moves on, "Not the same" keeps a pair apart, "Merge into" makes a
// new version (parent the reviewed one) whose queue no longer holds the
// pair. The next run of the extraction applies both answers and says so.
func TestDuplicates_ReviewThroughUI(t *testing.T) {
	t.Parallel()
	a, cfg, v := carolTuples(t)
	ctx := context.Background()
	if v.Nodes != 4 {
		t.Fatalf("version has %d nodes, want 4", v.Nodes)
	}

	bctx := MustChrome(t)
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	step := func(actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatal(err)
		}
	}
	step(chromedp.Navigate(fmt.Sprintf("%s/versions/%d", a.Server.URL, v.ID)),
		chromedp.Click(chromedp.CSS(`[data-testid="duplicates-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="keep-name"]`)))
	first := text(`[data-testid="keep-name"]`)
	step(chromedp.Click(chromedp.CSS(`[data-testid="skip"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="distinct"]`)))
	second := text(`[data-testid="drop-name"]`)
	step(chromedp.Click(chromedp.CSS(`[data-testid="distinct"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="duplicates-empty"]`)))
	empty := text(`[data-testid="duplicates-empty"]`)
	step(chromedp.Click(chromedp.CSS(`[data-testid="duplicates-empty"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="merge"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="merge"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`)))
	flash := text(`[data-testid="flash"]`)
	summaries, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="duplicates-summary"]').length`))
	if err != nil {
		t.Fatal(err)
	}
	if n := text(`[data-testid="duplicates-empty"]`); summaries != 0 || !strings.Contains(n, "No duplicate candidates left") {
		t.Errorf("merged version's queue: %q (%d summaries of candidates)", n, summaries)
	}
	if first != "Ebenezer Scrooge" || second != "Marley" {
		t.Errorf("queue showed %q first and %q second", first, second)
	}
	if !strings.Contains(empty, "No duplicate candidates left") {
		t.Errorf("after the last answer: %q", empty)
	}
	if !strings.Contains(flash, `carol@2: merge of carol@1: "Mr. Scrooge" into "Ebenezer Scrooge"`) {
		t.Errorf("merge page does not say what was merged: %q", flash)
	}

	merged, err := a.App.Versions.ByLabel(ctx, "carol", 2)
	if err != nil {
		t.Fatal(err)
	}
	if merged.ParentID != v.ID || merged.Nodes != 3 {
		t.Errorf("merged version: parent %d, %d nodes", merged.ParentID, merged.Nodes)
	}
	g, err := a.App.Graphs.Load(ctx, merged.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := curate.Resolve(g, "Ebenezer Scrooge"); err != nil || !reflect.DeepEqual(curate.Aliases(k), []string{"Mr. Scrooge"}) {
		t.Errorf("kept node %+v, %v", k, err)
	}
	if old, _ := a.App.Versions.Get(ctx, v.ID); old.Nodes != 4 {
		t.Errorf("the reviewed version now has %d nodes", old.Nodes)
	}

	// The next run applies the merge and keeps Marley apart.
	next := a.MustExtract(t, "carol", "marley.txt", marley, cfg)
	if next.Nodes != 3 || !strings.Contains(next.Note, "curation applied: 1 merge (1 node folded), 1 pair kept apart") {
		t.Errorf("next run: %d nodes, note %q", next.Nodes, next.Note)
	}
	_, page := a.Get(t, fmt.Sprintf("/versions/%d/duplicates", next.ID))
	if page.Find(`[data-testid="duplicates-empty"]`).Length() != 1 {
		t.Errorf("next run still has candidates: %s", page.Find(`[data-testid="duplicate-current"]`).Text())
	}
}

// The queue's table takes a decision per pair and applies them together:
// one new version holds every merge. The same decisions posted again (as
// through the API) are refused as a no-op and make nothing.
func TestDuplicates_QueueAppliedAsOneVersion(t *testing.T) {
	t.Parallel()
	a, _, v := carolTuples(t)
	ctx := context.Background()

	bctx := MustChrome(t)
	err := chromedp.Do(bctx,
		chromedp.Navigate(fmt.Sprintf("%s/versions/%d/duplicates", a.Server.URL, v.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="duplicates-queue"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The table lists the pairs after the one under review: choose
	// "merge into" the first node of each.
	rows, err := chromedp.Run(bctx, chromedp.Evaluate[int](`(() => {
		const sels = document.querySelectorAll('[data-testid="duplicates-next"] select');
		sels.forEach(s => { s.value = 'merge'; });
		return sels.length;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if rows != 1 {
		t.Fatalf("%d rows in the queue table, want 1 (two candidate pairs, one under review)", rows)
	}
	if err := chromedp.Do(bctx,
		chromedp.Click(chromedp.CSS(`[data-testid="apply-decisions"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`))); err != nil {
		t.Fatal(err)
	}
	flash, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(`[data-testid="flash"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(flash, "carol@2: merge of carol@1:") {
		t.Errorf("flash after applying the queue: %q", flash)
	}
	v2, err := a.App.Versions.ByLabel(ctx, "carol", 2)
	if err != nil {
		t.Fatal(err)
	}
	if v2.ParentID != v.ID || v2.Nodes != 3 {
		t.Errorf("queued merge: parent %d, %d nodes", v2.ParentID, v2.Nodes)
	}

	// Both pairs merged through the API: one version of 2 nodes.
	post := func(body string) (int, string) {
		t.Helper()
		resp, err := http.Post(fmt.Sprintf("%s/api/versions/%d/duplicates/apply", a.Server.URL, v.ID), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	both := `{"merges":[{"keep":"Ebenezer Scrooge","drop":["Mr. Scrooge"]},{"keep":"Jacob Marley","drop":["Marley"]}]}`
	code, body := post(both)
	if code != http.StatusCreated || !strings.Contains(body, `"nodes":2`) {
		t.Fatalf("apply both: %d %s", code, body)
	}
	if code, body := post(both); code != http.StatusConflict || !strings.Contains(body, "already has this merge") {
		t.Errorf("the same merges again: %d %s", code, body)
	}
	if code, body := post(`{"merges":[{"keep":"Nobody","drop":["Marley"]}]}`); code != http.StatusBadRequest && code != http.StatusUnprocessableEntity {
		t.Errorf("an unknown node: %d %s", code, body)
	}
	if _, err := a.App.Versions.ByLabel(ctx, "carol", 4); err == nil {
		t.Errorf("a refused batch made a version")
	}
}
