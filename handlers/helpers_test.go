package handlers_test

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/handlers"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// testApp is a whole application over a fresh SQLite database: tests set
// up and look at what it holds through App's services.
type testApp struct {
	Handler *handlers.Handler
	App     *app.App
	Server  *httptest.Server
}

// MustApp starts the application on a temp database and an httptest server.
func MustApp(tb testing.TB) *testApp {
	tb.Helper()
	return MustAppWith(tb, app.Providers{Concurrency: 2})
}

// MustAppWith is MustApp with model providers configured.
func MustAppWith(tb testing.TB, providers app.Providers) *testApp {
	tb.Helper()
	return mustAppConfig(tb, providers, handlers.Config{MaxUploadBytes: 1 << 20})
}

// mustAppConfig is MustAppWith with the server's settings.
func mustAppConfig(tb testing.TB, providers app.Providers, cfg handlers.Config) *testApp {
	tb.Helper()
	return mustAppOn(tb, app.Options{DataDir: tb.TempDir()}, providers, cfg)
}

// mustAppOn is mustAppConfig on the database opts names.
func mustAppOn(tb testing.TB, opts app.Options, providers app.Providers, cfg handlers.Config) *testApp {
	tb.Helper()
	if providers.Prices == nil {
		providers.Prices = app.DefaultPrices()
	}
	// Runs vectorize with the hashed embedder unless a test asks for
	// another: the sentence encoder has tests of its own.
	providers.Embedder = cmp.Or(providers.Embedder, extract.EmbedderOffline)
	runner := openApp(tb, opts, providers)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The jobs run here, as many at once as the provider takes calls.
	jobs := providers.Concurrency
	if jobs == 0 {
		jobs = 4
	}
	if _, err := runner.Runs.StartWorker(context.Background(), app.WorkerOptions{Concurrency: jobs}); err != nil {
		tb.Fatal(err)
	}
	h := handlers.New(runner, log, cfg)
	srv := httptest.NewServer(h.NewServer())
	tb.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		runner.Runs.Shutdown(ctx)
	})
	return &testApp{Handler: h, App: runner, Server: srv}
}

// MustExtract stores text as a document and runs an nlp extraction of it to
// the end, returning the finished version.
func (a *testApp) MustExtract(tb testing.TB, name, docName, text string, cfg extract.Config) record.Version {
	tb.Helper()
	ctx := context.Background()
	d, err := extract.ReadDocument(docName, []byte(text), extract.DefaultMaxBytes)
	if err != nil {
		tb.Fatal(err)
	}
	d, _, err = a.AddDocument(ctx, d)
	if err != nil {
		tb.Fatal(err)
	}
	v, _, err := a.App.Runs.NewRun(ctx, app.RunRequest{Extraction: name, Config: cfg, DocumentIDs: []int{d.ID}})
	if err != nil {
		tb.Fatal(err)
	}
	if err := a.App.Runs.Run(ctx, v, nil); err != nil {
		tb.Fatal(err)
	}
	v, err = a.App.Versions.Get(ctx, v.ID)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// waitVersion waits until a background run has ended (done, failed or
// canceled) and returns the version as it ended.
func waitVersion(tb testing.TB, a *testApp, id int) record.Version {
	tb.Helper()
	var v record.Version
	testkit.Eventually(tb, time.Minute, func() error {
		var err error
		if v, err = a.App.Versions.Get(context.Background(), id); err != nil {
			tb.Fatal(err)
		}
		if v.Active() {
			return fmt.Errorf("version %d still %s", id, v.Status)
		}
		return nil
	})
	return v
}

// waitJobsIdle waits until no job of a version runs: a run's final job
// completes just after it marks the version done, and a job canceled with
// its version runs until it has seen the cancel.
func waitJobsIdle(tb testing.TB, a *testApp, id int) {
	tb.Helper()
	testkit.Eventually(tb, 10*time.Second, func() error {
		jobs, err := a.App.Runs.Jobs(context.Background(), id)
		if err != nil {
			tb.Fatal(err)
		}
		if jobs.Counts.Running > 0 {
			return fmt.Errorf("jobs of version %d still running: %+v", id, jobs.Counts)
		}
		return nil
	})
}

// Get fetches a path and parses the HTML.
func (a *testApp) Get(tb testing.TB, path string) (*http.Response, *goquery.Document) {
	tb.Helper()
	resp, err := http.Get(a.Server.URL + path)
	return mustHTML(tb, resp, err)
}

// PostForm posts a form to a path and parses the HTML answer.
func (a *testApp) PostForm(tb testing.TB, path string, form url.Values) (*http.Response, *goquery.Document) {
	tb.Helper()
	resp, err := http.PostForm(a.Server.URL+path, form)
	return mustHTML(tb, resp, err)
}

// mustHTML parses a response's HTML and closes its body.
func mustHTML(tb testing.TB, resp *http.Response, err error) (*http.Response, *goquery.Document) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp, doc
}

// screenshotDir is where the browser tests keep pictures for people to
// look at (KGSTUDIO_SCREENSHOT_DIR), or "" to keep none.
func screenshotDir() string { return os.Getenv("KGSTUDIO_SCREENSHOT_DIR") }

// forPicture lets a view's zoom animation (of about d) end before a
// picture is kept for people, so that it shows where the view lands; with
// no pictures kept it waits for nothing, since no test asserts on it.
func forPicture(ctx context.Context, d time.Duration) error {
	if screenshotDir() == "" {
		return nil
	}
	return chromedp.Do(ctx, chromedp.Sleep(d))
}

// MustChrome returns a chromedp context on headless Chromium from
// KGSTUDIO_TEST_CHROME. Without it the test is skipped, except in CI
// (CI=true), where a missing browser fails the test.
func MustChrome(tb testing.TB) context.Context {
	tb.Helper()
	return mustChromeFor(tb, 90*time.Second)
}

// mustChromeFor is MustChrome with the time the browser may be used.
func mustChromeFor(tb testing.TB, timeout time.Duration) context.Context {
	tb.Helper()
	bin := os.Getenv("KGSTUDIO_TEST_CHROME")
	if bin == "" {
		if os.Getenv("CI") != "" {
			tb.Fatal("KGSTUDIO_TEST_CHROME is not set in CI")
		}
		tb.Skip("set KGSTUDIO_TEST_CHROME to a Chromium binary to run browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(1400, 900),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	tb.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// hasText reports whether the selection's text contains s.
func hasText(sel *goquery.Selection, s string) bool { return strings.Contains(sel.Text(), s) }

// openApp opens the application on the database opts names (closed when
// tb ends).
func openApp(tb testing.TB, opts app.Options, providers app.Providers) *app.App {
	tb.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	runner, err := app.Open(context.Background(), opts, log, providers)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { runner.Close() })
	return runner
}

// AddDocument stores a document through the application (Documents.Add),
// or finds the one stored with the same content (created false).
func (a *testApp) AddDocument(ctx context.Context, d extract.Document) (stored extract.Document, created bool, err error) {
	docs, made, err := a.App.Documents.Add(ctx, []extract.Document{d})
	if err != nil {
		return d, false, err
	}
	return docs[0], made[0], nil
}

// importReference stores g as a done version of the named extraction
// over docIDs, with cfg as its settings, and makes it the extraction's
// reference, as a gold import does.
func (a *testApp) importReference(tb testing.TB, name string, cfg extract.Config, docIDs []int, g extract.Graph) record.Version {
	tb.Helper()
	ctx := context.Background()
	v, err := a.App.Curation.SaveGraph(ctx, name, cfg, docIDs, "", g)
	if err != nil {
		tb.Fatal(err)
	}
	if err := a.App.Versions.SetReference(ctx, v.ID, true); err != nil {
		tb.Fatal(err)
	}
	if v, err = a.App.Versions.Get(ctx, v.ID); err != nil || !v.Reference {
		tb.Fatalf("%s is not the reference: %v", v.Label(), err)
	}
	return v
}
