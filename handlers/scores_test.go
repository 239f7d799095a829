package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// scoredApp is an app with the extraction "bio": version 1 over the
// three biographies of app/testdata/scores, version 2 over Ada's alone.
func scoredApp(t *testing.T) *testApp {
	t.Helper()
	a := MustApp(t)
	ctx := context.Background()
	var ids []int
	for _, f := range []string{"ada.txt", "curie.txt", "turing.txt"} {
		b, err := os.ReadFile(filepath.Join("..", "app", "testdata", "scores", f))
		if err != nil {
			t.Fatal(err)
		}
		d, err := extract.ReadDocument(f, b, extract.DefaultMaxBytes)
		if err != nil {
			t.Fatal(err)
		}
		if d, _, err = a.AddDocument(ctx, d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	for _, docs := range [][]int{ids, ids[:1]} {
		cfg := extract.DefaultConfig()
		cfg.Embedder = extract.EmbedderOffline
		v, _, err := a.App.Runs.NewRun(ctx, app.RunRequest{Extraction: "bio", Config: cfg, DocumentIDs: docs})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.App.Runs.Run(ctx, v, nil); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// postQuestions uploads a question set through the scoreboard's form.
func postQuestions(t *testing.T, a *testApp, name string, data []byte) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, a.Server.URL+"/extractions/bio/questions", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := schemaClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// The scoreboard: questions attached through its form, every version a
// row, the best of a column marked, the rows sorted by a column, the same
// board as JSON; a broken question file is refused with the reason.
func TestScores_Page(t *testing.T) {
	t.Parallel()
	a := scoredApp(t)
	q, err := os.ReadFile(filepath.Join("..", "app", "testdata", "scores", "q.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if resp := postQuestions(t, a, "q.csv", []byte("question,answers\nWho?,\n")); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a question with nothing to score by: %d", resp.StatusCode)
	}
	if set, _ := a.App.Scores.Questions(context.Background(), "bio"); len(set.Questions) != 0 {
		t.Fatalf("a refused set was stored: %+v", set)
	}
	// A browser following the redirect reads why on the scoreboard.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "q.csv")
	fw.Write([]byte("text,answers\nWho?,x\n"))
	mw.Close()
	resp, err := browser.Post(a.Server.URL+"/extractions/bio/questions", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Request.URL.Path != "/extractions/bio/scores" || !strings.Contains(string(page), "Questions refused") {
		t.Errorf("after a refused upload: %s, the page does not say why", resp.Request.URL.Path)
	}
	if resp := postQuestions(t, a, "q.csv", q); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/extractions/bio/scores" {
		t.Fatalf("questions upload: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, doc := a.Get(t, "/extractions/bio/scores")
	rows := doc.Find(`[data-testid="score-row"]`)
	if rows.Length() != 2 || doc.Find(`[data-testid="chart"]`).Length() < 4 || doc.Find(`[data-testid="bar"]`).Length() == 0 {
		t.Fatalf("%d rows, %d charts, %d bars", rows.Length(), doc.Find(`[data-testid="chart"]`).Length(), doc.Find(`[data-testid="bar"]`).Length())
	}
	if n := doc.Find(`[data-testid="curve"] polyline`).Length(); n != 2*6 {
		t.Errorf("%d recall curves; want one per version in each of six modes", n)
	}
	if !strings.Contains(doc.Find("p.muted").First().Text(), "5 questions") {
		t.Errorf("header: %q", doc.Find("p.muted").First().Text())
	}
	col := -1
	doc.Find(`[data-testid="scoreboard"] thead th`).Each(func(i int, s *goquery.Selection) {
		if strings.TrimSpace(s.Text()) == "recall@10 mix" {
			col = i
		}
	})
	if col < 0 {
		t.Fatal("no recall@10 mix column")
	}
	cell := func(row int) (string, bool) {
		c := doc.Find(`[data-testid="score-row"]`).Eq(row).Find("td").Eq(col)
		_, best := c.Attr("data-best")
		return c.Text(), best
	}
	if _, best := cell(0); !best {
		t.Error("the version over every biography is not marked best on recall@10 mix")
	}
	if _, best := cell(1); best {
		t.Error("the version over Ada's alone is marked best on recall@10 mix")
	}
	_, doc = a.Get(t, "/extractions/bio/scores?sort=recall@10.mix&dir=asc")
	if first := doc.Find(`[data-testid="score-row"]`).First().AttrOr("data-version", ""); first != "bio@2" {
		t.Errorf("sorted by recall@10 mix, lowest first: %q first", first)
	}
	resp, err = http.Get(a.Server.URL + "/api/extractions/bio/scores")
	if err != nil {
		t.Fatal(err)
	}
	var b app.Board
	err = json.NewDecoder(resp.Body).Decode(&b)
	resp.Body.Close()
	if err != nil || b.Questions != 5 || len(b.Versions) != 2 || b.Best["recall@10.mix"] != "bio@1" {
		t.Fatalf("API: %v, %d questions, %d versions, best %v", err, b.Questions, len(b.Versions), b.Best["recall@10.mix"])
	}
	req, _ := http.NewRequest(http.MethodPost, a.Server.URL+"/extractions/bio/scores", nil)
	if resp, err := schemaClient.Do(req); err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Errorf("score again: %v %v", resp, err)
	}
	if resp, _ := http.Get(a.Server.URL + "/api/extractions/nobody/scores"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown extraction: %d", resp.StatusCode)
	}
}

// The scoreboard and its charts render in Chromium with no console error
// or uncaught exception.
func TestScores_Browser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := scoredApp(t)
	q, err := os.ReadFile(filepath.Join("..", "app", "testdata", "scores", "q.csv"))
	if err != nil {
		t.Fatal(err)
	}
	postQuestions(t, a, "q.csv", q)
	var mu sync.Mutex
	var problems []string
	go func() {
		for ev, err := range chromedp.Events(ctx, runtime.ConsoleAPICalled) {
			if err != nil {
				return
			}
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("console error: %v", ev.Args))
				mu.Unlock()
			}
		}
	}()
	go func() {
		for ev, err := range chromedp.Events(ctx, runtime.ExceptionThrown) {
			if err != nil {
				return
			}
			mu.Lock()
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
			mu.Unlock()
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate(a.Server.URL+"/extractions/bio/scores")); err != nil {
		t.Fatal(err)
	}
	type shown struct {
		Rows, Charts, Bars int
		Width              float64
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[shown](`({
		Rows: document.querySelectorAll('[data-testid="score-row"]').length,
		Charts: document.querySelectorAll('[data-testid="chart"] svg').length,
		Bars: document.querySelectorAll('[data-testid="bar"]').length,
		Width: document.querySelector('[data-testid="chart"] svg').getBoundingClientRect().width})`))
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != 2 || got.Charts < 4 || got.Bars == 0 || got.Width < 100 {
		t.Errorf("in the browser: %+v", got)
	}
	mu.Lock()
	if len(problems) > 0 {
		t.Errorf("the page logged: %v", problems)
	}
	mu.Unlock()
	// The listeners hear an error when there is one.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`console.error("probe"), true`)); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 5*time.Second, func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) == 0 {
			return fmt.Errorf("the probe's console error was not heard")
		}
		return nil
	})
}

// The compare page loads both versions' scores side by side: b−a per
// measure and, per question measure, a paired bootstrap; a version set
// against itself differs by nothing and nothing is significant.
func TestScores_Compare(t *testing.T) {
	t.Parallel()
	a := scoredApp(t)
	q, err := os.ReadFile(filepath.Join("..", "app", "testdata", "scores", "q.csv"))
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) map[string]any {
		t.Helper()
		resp, err := http.Get(a.Server.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
		}
		return out
	}
	all, _ := a.App.Versions.ByRef(context.Background(), "bio@1")
	ada, _ := a.App.Versions.ByRef(context.Background(), "bio@2")
	// Without questions: the graph measures only.
	if out := get(fmt.Sprintf("/api/compare/scores?a=%d&b=%d", ada.ID, all.ID)); out["questions"] != float64(0) {
		t.Errorf("without a question set: %v questions", out["questions"])
	}
	postQuestions(t, a, "q.csv", q)
	measure := func(out map[string]any, key string) map[string]any {
		for _, m := range out["measures"].([]any) {
			m := m.(map[string]any)
			if m["measure"].(map[string]any)["key"] == key {
				return m
			}
		}
		t.Fatalf("no %s in %v", key, out)
		return nil
	}
	out := get(fmt.Sprintf("/api/compare/scores?a=%d&b=%d", ada.ID, all.ID))
	m := measure(out, "recall@10.mix")
	paired, _ := m["paired"].(map[string]any)
	if out["questions"] != float64(5) || m["diff"].(float64) <= 0 || paired == nil || paired["n"] != float64(5) || paired["mean"].(float64) <= 0 {
		t.Errorf("every biography against Ada's alone: %v", m)
	}
	self := measure(get(fmt.Sprintf("/api/compare/scores?a=%d&b=%d", all.ID, all.ID)), "recall@10.mix")
	if sp := self["paired"].(map[string]any); self["diff"] != float64(0) || sp["significant"] != false {
		t.Errorf("a version against itself: %v", self)
	}
	_, doc := a.Get(t, fmt.Sprintf("/compare?a=%d&b=%d", ada.ID, all.ID))
	if slot, ok := doc.Find(`[data-testid="compare-scores-slot"]`).Attr("hx-get"); !ok || !strings.HasPrefix(slot, "/compare/scores?a=") {
		t.Errorf("compare page's scores slot: %q", slot)
	}
	_, part := a.Get(t, fmt.Sprintf("/compare/scores?a=%d&b=%d", ada.ID, all.ID))
	row := part.Find(`[data-testid="compare-score-row"][data-measure="recall@10.mix"]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "questions)") {
		t.Errorf("partial row: %q", row.Text())
	}
}

// The scoreboard's Experiment form starts one version per combination
// over the newest version's documents; they run in the background and
// join the board; a grid line it cannot read starts nothing.
func TestScores_ExperimentForm(t *testing.T) {
	t.Parallel()
	a := scoredApp(t)
	post := func(grid string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, a.Server.URL+"/extractions/bio/experiment",
			strings.NewReader(url.Values{"grid": {grid}, "embedder": {"offline"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := schemaClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := post("chunk_size=120\nwidth=3"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("an unknown setting: %d", resp.StatusCode)
	}
	if _, err := a.App.Versions.ByRef(context.Background(), "bio@3"); err == nil {
		t.Fatal("a refused grid made a version")
	}
	if resp := post("chunk_size=120,1200\n"); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/extractions/bio/scores" {
		t.Fatalf("experiment: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, ref := range []string{"bio@3", "bio@4"} {
		v, err := a.App.Versions.ByRef(context.Background(), ref)
		if err != nil {
			t.Fatal(err)
		}
		if v = waitVersion(t, a, v.ID); v.Status != "done" || len(v.DocumentIDs) != 1 || !strings.HasPrefix(v.Note, "experiment: chunk_size=") {
			t.Errorf("%s: %s over %v, note %q", ref, v.Status, v.DocumentIDs, v.Note)
		}
	}
	_, doc := a.Get(t, "/extractions/bio/scores")
	if n := doc.Find(`[data-testid="score-row"]`).Length(); n != 4 {
		t.Errorf("%d rows after the experiment", n)
	}
}
