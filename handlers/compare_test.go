package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/extract/record"
)

// mustSampleText reads the sample document shipped with the server.
func mustSampleText(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile("../app/sample/christmas_carol_stave_one.txt")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// mustTwoVersions extracts the sample twice with different chunking.
func mustTwoVersions(tb testing.TB, a *testApp) (record.Version, record.Version) {
	tb.Helper()
	text := mustSampleText(tb)
	c1 := extract.DefaultConfig()
	c2 := extract.DefaultConfig()
	c2.ChunkSize, c2.Overlap = 300, 0
	v1 := a.MustExtract(tb, "carol", "carol.txt", text, c1)
	v2 := a.MustExtract(tb, "carol", "carol.txt", text, c2)
	if v1.Status != record.StatusDone || v2.Status != record.StatusDone || v1.Nodes == 0 || v2.Nodes == 0 {
		tb.Fatalf("extractions not done: %+v %+v", v1, v2)
	}
	return v1, v2
}

func getJSON(tb testing.TB, a *testApp, path string, out any) int {
	tb.Helper()
	resp, err := http.Get(a.Server.URL + path)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			tb.Fatal(err)
		}
	}
	return resp.StatusCode
}

func comparePath(prefix string, a, b int) string {
	return fmt.Sprintf("%s?a=%d&b=%d", prefix, a, b)
}

func TestCompare_API(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v1, v2 := mustTwoVersions(t, a)

	t.Run("TwoRuns", func(t *testing.T) {
		var res diff.Result
		if code := getJSON(t, a, comparePath("/api/compare", v1.ID, v2.ID), &res); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		n, e := res.Summary.Nodes, res.Summary.Edges
		if n.Added+n.Removed+n.Changed == 0 {
			t.Fatalf("different chunk sizes made no difference: %+v", n)
		}
		if n.Added-n.Removed != n.After-n.Before || e.Added-e.Removed != e.After-e.Before {
			t.Errorf("added - removed != after - before: nodes %+v edges %+v", n, e)
		}
		if n.Added != len(res.Nodes.Added) || n.Removed != len(res.Nodes.Removed) || n.Changed != len(res.Nodes.Changed) {
			t.Errorf("totals disagree with the lists: %+v", n)
		}
		if res.Score != nil {
			t.Errorf("score without a reference: %+v", res.Score)
		}
		// The API gives what extract/diff gives on the stored graphs.
		ga, _ := a.App.Graphs.Load(context.Background(), v1.ID, false)
		gb, _ := a.App.Graphs.Load(context.Background(), v2.ID, false)
		want := diff.Compare(ga, gb, diff.Options{})
		if want.Summary.Nodes != n || want.Summary.Edges != e {
			t.Errorf("API summary %+v/%+v, diff.Compare %+v/%+v", n, e, want.Summary.Nodes, want.Summary.Edges)
		}
	})

	t.Run("SameVersionIsEmpty", func(t *testing.T) {
		var res diff.Result
		if code := getJSON(t, a, comparePath("/api/compare", v1.ID, v1.ID)+"&undirected=1", &res); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		n, e := res.Summary.Nodes, res.Summary.Edges
		if len(res.Nodes.Added)+len(res.Nodes.Removed)+len(res.Nodes.Changed)+len(res.Edges.Added)+len(res.Edges.Removed)+len(res.Edges.Changed) != 0 {
			t.Errorf("diff(a, a) is not empty: %+v %+v", n, e)
		}
		if n.Unchanged != n.Before || n.Before == 0 || e.Unchanged != e.Before {
			t.Errorf("diff(a, a) totals: %+v %+v", n, e)
		}
	})

	t.Run("SwapSwapsAddedAndRemoved", func(t *testing.T) {
		var ab, ba diff.Result
		getJSON(t, a, comparePath("/api/compare", v1.ID, v2.ID)+"&ignore_type=1", &ab)
		getJSON(t, a, comparePath("/api/compare", v2.ID, v1.ID)+"&ignore_type=1", &ba)
		if ab.Summary.Nodes.Added != ba.Summary.Nodes.Removed || ab.Summary.Edges.Removed != ba.Summary.Edges.Added {
			t.Errorf("swap: %+v vs %+v", ab.Summary.Nodes, ba.Summary.Nodes)
		}
	})

	t.Run("Reference", func(t *testing.T) {
		resp := postForm(t, a, fmt.Sprintf("/versions/%d/reference", v1.ID), url.Values{"back": {comparePath("/compare", v1.ID, v2.ID)}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != comparePath("/compare", v1.ID, v2.ID) {
			t.Fatalf("toggle: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		var res diff.Result
		getJSON(t, a, comparePath("/api/compare", v1.ID, v2.ID), &res)
		if res.Score == nil || res.Score.Nodes.F1 <= 0 || res.Score.Nodes.F1 >= 1 {
			t.Fatalf("score against the reference: %+v", res.Score)
		}
		_, doc := a.Get(t, comparePath("/compare", v1.ID, v2.ID))
		if doc.Find(`[data-testid="score"]`).Length() != 1 || doc.Find(`[data-testid="reference-a"]`).Length() != 1 {
			t.Error("the page shows no score or no reference badge")
		}
		// Toggle back.
		postForm(t, a, fmt.Sprintf("/versions/%d/reference", v1.ID), nil)
		getJSON(t, a, comparePath("/api/compare", v1.ID, v2.ID), &res)
		if v, _ := a.App.Versions.Get(context.Background(), v1.ID); v.Reference {
			t.Error("the reference was not unset")
		}
	})

	t.Run("Errors", func(t *testing.T) {
		for path, want := range map[string]int{
			"/api/compare?a=x&b=1":                     http.StatusBadRequest,
			"/api/compare":                             http.StatusBadRequest,
			comparePath("/api/compare", v1.ID, 999999): http.StatusNotFound,
		} {
			if got := getJSON(t, a, path, nil); got != want {
				t.Errorf("%s: %d, want %d", path, got, want)
			}
		}
	})
}

// postForm posts a form without following the redirect.
func postForm(tb testing.TB, a *testApp, path string, form url.Values) *http.Response {
	tb.Helper()
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.PostForm(a.Server.URL+path, form)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestCompare_Page(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v1, v2 := mustTwoVersions(t, a)
	var res diff.Result
	getJSON(t, a, comparePath("/api/compare", v1.ID, v2.ID), &res)

	t.Run("Pickers", func(t *testing.T) {
		resp, doc := a.Get(t, "/compare")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		for _, side := range []string{"a", "b"} {
			opts := doc.Find(`[data-testid="pick-` + side + `"] optgroup[label="carol"] option`)
			if opts.Length() != 2 {
				t.Errorf("picker %s lists %d versions of carol, want 2", side, opts.Length())
			}
		}
		if doc.Find(`[data-testid="compare-empty"]`).Length() != 1 || doc.Find(`[data-testid="gold-form"]`).Length() != 1 {
			t.Error("no empty state or no gold form")
		}
		if doc.Find(`[data-testid="nav"] a.active`).Text() != "Compare" {
			t.Error("compare is not the active nav entry")
		}
	})

	t.Run("Comparison", func(t *testing.T) {
		resp, doc := a.Get(t, comparePath("/compare", v1.ID, v2.ID))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		cards := map[string]int{
			"nodes-added": res.Summary.Nodes.Added, "nodes-removed": res.Summary.Nodes.Removed,
			"nodes-changed": res.Summary.Nodes.Changed, "nodes-unchanged": res.Summary.Nodes.Unchanged,
			"edges-added": res.Summary.Edges.Added, "edges-removed": res.Summary.Edges.Removed,
			"edges-changed": res.Summary.Edges.Changed, "edges-unchanged": res.Summary.Edges.Unchanged,
		}
		for id, want := range cards {
			got, err := strconv.Atoi(strings.TrimSpace(doc.Find(`[data-testid="` + id + `"] .n`).Text()))
			if err != nil || got != want {
				t.Errorf("card %s = %d (%v), want %d", id, got, err, want)
			}
		}
		if doc.Find(`[data-testid="pick-a"] option[selected]`).AttrOr("value", "") != strconv.Itoa(v1.ID) {
			t.Error("picker a does not show version a")
		}
		// Tables: one row per union node, statuses as counted.
		status := map[string]int{}
		doc.Find(`[data-testid="node-items"] tr.item`).Each(func(_ int, s *goquery.Selection) {
			status[s.AttrOr("data-status", "")]++
		})
		if status["added"] != res.Summary.Nodes.Added || status["removed"] != res.Summary.Nodes.Removed ||
			status["changed"] != res.Summary.Nodes.Changed || status["unchanged"] != res.Summary.Nodes.Unchanged {
			t.Errorf("node table statuses %v, diff %+v", status, res.Summary.Nodes)
		}
		if doc.Find(`[data-testid="edge-items"] tr.item`).Length() == 0 {
			t.Error("no edge rows")
		}
		if doc.Find(`[data-testid="runs"] tbody tr`).Length() != 2 || !hasText(doc.Find(`[data-testid="cost-a"]`), "$0") {
			t.Error("runs table missing or no cost")
		}
		if doc.Find(`[data-testid="node-types"] tbody tr`).Length() == 0 {
			t.Error("no type table")
		}
		if th := doc.Find(`[data-testid="edge-labels"] th`).First().Text(); th != "Label" {
			t.Errorf("the edge label table's first column is headed %q", th)
		}
		chunk := doc.Find(`[data-testid="config-diff"] tr`).FilterFunction(func(_ int, s *goquery.Selection) bool {
			return strings.HasPrefix(strings.TrimSpace(s.Find("td").First().Text()), "chunk size")
		})
		if chunk.AttrOr("data-differs", "") != "true" || !hasText(chunk, "1200") || !hasText(chunk, "300") {
			t.Errorf("config diff row for chunk size: %q", chunk.Text())
		}
		var union struct {
			Nodes []struct{ Status string } `json:"nodes"`
		}
		if err := json.Unmarshal([]byte(doc.Find(`script#cmp-data`).Text()), &union); err != nil {
			t.Fatalf("union data: %v", err)
		}
		if len(union.Nodes) != res.Summary.Nodes.Added+res.Summary.Nodes.Removed+res.Summary.Nodes.Changed+res.Summary.Nodes.Unchanged {
			t.Errorf("union has %d nodes", len(union.Nodes))
		}
		if doc.Find(`[data-testid="raw-outputs"]`).Length() != 0 {
			t.Error("raw outputs shown for nlp runs")
		}
	})

	t.Run("PromptDiff", func(t *testing.T) {
		// Two stored LLM-style configs that differ in one prompt line.
		cfg := extract.Config{Strategy: extract.StrategyTuple, Provider: "openai", Model: "gpt-4o-mini", ChunkSize: 1200,
			Prompts: map[string]string{"system": "first line\nsecond line\nthird line", "same": "x"}}
		g := extract.Graph{Nodes: []extract.Node{{Key: "scrooge", Name: "Scrooge", Type: "Person"}}}
		p1 := a.importReference(t, "prompts", cfg, v1.DocumentIDs, g)
		cfg.Prompts = map[string]string{"system": "first line\nsecond line changed\nthird line", "same": "x"}
		p2 := a.importReference(t, "prompts", cfg, v1.DocumentIDs, g)
		_, doc := a.Get(t, comparePath("/compare", p1.ID, p2.ID))
		pd := doc.Find(`[data-testid="prompt-diff"]`)
		if pd.Length() != 1 || pd.Find(".diff-del").Text() != "- second line\n" || pd.Find(".diff-add").Text() != "+ second line changed\n" {
			t.Errorf("prompt line diff (%d): del %q add %q", pd.Length(), pd.Find(".diff-del").Text(), pd.Find(".diff-add").Text())
		}
		if !hasText(doc.Find(`[data-testid="cost-a"]`), "$0.0000") {
			t.Errorf("cost of a priced model: %q", doc.Find(`[data-testid="cost-a"]`).Text())
		}
	})

	t.Run("BadVersion", func(t *testing.T) {
		resp, doc := a.Get(t, comparePath("/compare", v1.ID, 424242))
		if resp.StatusCode != http.StatusNotFound || doc.Find(`[data-testid="error"]`).Length() != 1 {
			t.Errorf("status %d", resp.StatusCode)
		}
	})
}

// TestCompare_Browser checks in Chromium that the union graph draws as
// many nodes of each colour as the diff counts.
func TestCompare_Browser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	v1, v2 := mustTwoVersions(t, a)
	var res diff.Result
	getJSON(t, a, comparePath("/api/compare", v1.ID, v2.ID), &res)

	err := chromedp.Do(ctx,
		chromedp.Navigate(a.Server.URL+comparePath("/compare", v1.ID, v2.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="union-graph"] canvas`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.kgCompare && window.kgCompare.counts().settled`,
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("the graph did not settle: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[compareCounts](`window.kgCompare.counts()`))
	if err != nil {
		t.Fatal(err)
	}
	n := res.Summary.Nodes
	want := compareCounts{Added: n.Added, Removed: n.Removed, Changed: n.Changed, Unchanged: n.Unchanged, Settled: true}
	if got != want {
		t.Errorf("drawn colours %+v, diff %+v", got, want)
	}

	dir := screenshotDir()
	if dir == "" {
		dir = t.TempDir()
	}
	shoot := func(name string) {
		t.Helper()
		shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`[data-testid="compare-graph"]`)))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (%d bytes)", path, len(shot))
	}
	shoot("compare-union.png")

	checkCompareSideBySide(t, ctx)
	shoot("compare-split.png")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById('cmp-layout').click(), true`)); err != nil {
		t.Fatal(err)
	}

	// Selecting a changed node shows both sides and the description diff.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){
		var tr = document.querySelector('[data-testid="node-items"] tr.item[data-status="changed"]');
		if (!tr) return false; tr.click(); return true; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if n.Changed > 0 {
		title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#cmp-detail [data-testid="detail-title"]`)))
		if err != nil || title == "" {
			t.Errorf("no detail after clicking a changed node: %q %v", title, err)
		}
	}

	checkCompareNamedAndSearch(t, ctx)

	// Differences only hides the unchanged nodes.
	diffOnly, err := chromedp.Run(ctx, chromedp.Evaluate[compareCounts](`(function(){
		var c = document.getElementById('cmp-diff-only'); c.click(); return window.kgCompare.counts(); })()`))
	if err != nil {
		t.Fatal(err)
	}
	if diffOnly.Unchanged != 0 || diffOnly.Added != n.Added {
		t.Errorf("differences only draws %+v", diffOnly)
	}

	shoot("compare-diff-only.png")
}

// compareCounts is how many nodes the compare page draws in each colour, and whether its layout settled.
type compareCounts struct {
	Added, Removed, Changed, Unchanged int
	Settled                            bool
}

// checkCompareSideBySide checks the side-by-side layout draws both captioned graphs and hides the union, and waits for a picture of it.
func checkCompareSideBySide(t *testing.T, ctx context.Context) {
	t.Helper()
	// Side by side: both graphs drawn, version a without the added nodes.
	split, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`(function(){
		document.getElementById('cmp-layout').click();
		return [document.querySelectorAll('#cmp-left canvas').length, document.querySelectorAll('#cmp-right canvas').length,
			document.getElementById('cmp-union').hidden ? 1 : 0]; })()`))
	if err != nil || len(split) != 3 || split[0] == 0 || split[1] == 0 || split[2] != 1 {
		t.Errorf("side by side: %v %v", split, err)
	}
	// Each panel says which version it draws.
	caps, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`['cmp-left', 'cmp-right'].map(function (id) {
		return getComputedStyle(document.getElementById(id), '::before').content; })`))
	if err != nil || len(caps) != 2 || !strings.Contains(caps[0], "A · ") || !strings.Contains(caps[1], "B · ") {
		t.Errorf("the panels are captioned %q (%v)", caps, err)
	}
	if err := forPicture(ctx, 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

// checkCompareNamedAndSearch checks nodes are named at the default zoom, and the search box selects a node by name or says none matched.
func checkCompareNamedAndSearch(t *testing.T, ctx context.Context) {
	t.Helper()
	// The best-connected nodes are named at the default zoom, and the
	// search box finds a node by name and selects it.
	named, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.kgCompare.named().length`))
	if err != nil || named == 0 {
		t.Errorf("no node named at the default zoom: %d %v", named, err)
	}
	type hit struct{ ID, Name string }
	looked, err := chromedp.Run(ctx, chromedp.Evaluate[hit](`(function(){
		var tr = document.querySelectorAll('[data-testid="node-items"] tr.item');
		tr = tr[tr.length - 1];
		return {ID: tr.dataset.id, Name: tr.children[1].textContent}; })()`))
	if err != nil || looked.ID == "" {
		t.Fatalf("a node row to look for: %+v %v", looked, err)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="compare-search-q"]`), looked.Name),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("cmp-search").requestSubmit()`))
	if err != nil {
		t.Fatal(err)
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[hit](`({ID: window.kgCompare.selected(),
		Name: (document.querySelector('#cmp-detail [data-testid="detail-title"]') || {}).textContent || ""})`))
	if err != nil || found.ID == "" || !strings.Contains(found.Name, looked.Name) {
		t.Errorf("search for %q selected %+v (%v)", looked.Name, found, err)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`[data-testid="compare-search-q"]`), "no such node anywhere"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("cmp-search").requestSubmit()`))
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="compare-search-msg"]`))); err != nil || !strings.Contains(msg, "No node named") {
		t.Errorf("a search that finds nothing says %q (%v)", msg, err)
	}
}
