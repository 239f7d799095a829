package app

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"
	"github.com/kgstudio/kgstudio/store"
)

// reportsText is two topics, each of several people and things, so the
// graph has communities big enough for a model report.
const reportsText = `Ada Lovelace worked with Charles Babbage in London. Charles Babbage built the Analytical Engine in London.
Ada Lovelace wrote about the Analytical Engine. Charles Babbage and Ada Lovelace met Mary Somerville in London.
Mary Somerville wrote to Ada Lovelace about the Analytical Engine.

Captain Ahab hunted Moby Dick with Ishmael. Ishmael sailed with Queequeg on the Pequod. Queequeg and Captain Ahab sailed the Pequod.
Starbuck warned Captain Ahab on the Pequod. Ishmael and Starbuck watched Moby Dick from the Pequod.`

// reportRules answer the report requests with a recorded report, except
// those that name badFor (a malformed answer), and global search's map
// and reduce calls with recorded answers.
func reportRules(t *testing.T, badFor string) []fakellm.Rule {
	var rules []fakellm.Rule
	if badFor != "" {
		rules = append(rules, fakellm.Rule{Anywhere: "You describe one community", Contains: badFor, Text: fakellm.Load(t, "testdata/reports/malformed.txt")})
	}
	return append(rules,
		fakellm.Rule{Anywhere: "You describe one community", Text: fakellm.Load(t, "testdata/reports/report.json")},
		fakellm.Rule{Anywhere: "list the points that help answer it", Text: fakellm.Load(t, "testdata/reports/map.json")},
		fakellm.Rule{Anywhere: "You answer a question from key points", Text: fakellm.Load(t, "testdata/reports/reduce.txt")},
	)
}

// reportBackends runs a test on SQLite and, when it is set up,
// PostgreSQL, each with an app whose Gemini is srv.
func reportBackends(t *testing.T, srv *fakellm.Server, test func(t *testing.T, a *App, st *store.Store)) {
	backends(t, Providers{GeminiAPIKey: "k", GeminiBaseURL: srv.GeminiURL(), GeminiModel: "gemini-2.5-flash", Embedder: extract.EmbedderOffline, Concurrency: 2}, test)
}

// backends runs a test on SQLite and, when it is set up, PostgreSQL, each
// with an app with providers p.
func backends(t *testing.T, p Providers, test func(t *testing.T, a *App, st *store.Store)) {
	t.Run("SQLite", func(t *testing.T) {
		st, err := store.Open(context.Background(), store.Options{DataDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		test(t, newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), p), st)
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		if testkit.PostgresURL(t) == "" {
			t.Skip("set KGSTUDIO_TEST_POSTGRES_URL to run the PostgreSQL tests")
		}
		a := pgApps(t, 1, p)[0]
		test(t, a, a.store)
	})
}

// modelReportRun runs the reports text with nlp and model reports.
func modelReportRun(t *testing.T, a *App, st *store.Store) record.Version {
	t.Helper()
	d, err := extract.ReadDocument("topics.txt", []byte(reportsText), extract.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err = st.AddDocument(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	cfg := extract.DefaultConfig()
	cfg.Reports, cfg.Provider = extract.ReportsModel, extract.ProviderGemini
	v, _ := mustRun(t, a, RunRequest{Extraction: "topics", Config: cfg, DocumentIDs: []int{d.ID}})
	v, err = st.Version(context.Background(), v.ID)
	if err != nil || v.Status != record.StatusDone {
		t.Fatalf("version %+v (%v)", v, err)
	}
	return v
}

// modelReports lists the communities of every level with model reports.
func modelReports(t *testing.T, a *App, v record.Version) (all []CommunityJSON, fallbacks int) {
	t.Helper()
	first, err := a.Communities.List(context.Background(), v, 0)
	if err != nil {
		t.Fatal(err)
	}
	for l := range first.Levels {
		out, err := a.Communities.List(context.Background(), v, l)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, out.Communities...)
	}
	return all, first.ReportFallbacks
}

// TestReports_WrittenByTheModel: a run with model reports asks the model
// once per community of at least MinReportSize members; the reports are
// stored with their findings' passages (a ref to no fact is dropped) and
// the calls counted in the run's usage; the same run again is answered
// from the call cache.
func TestReports_WrittenByTheModel(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: reportRules(t, "")})
	reportBackends(t, srv, func(t *testing.T, a *App, st *store.Store) {
		srv.Reset()
		v := modelReportRun(t, a, st)
		calls := srv.Count()
		all, fallbacks := modelReports(t, a, v)
		byModel, eligible := 0, 0
		for _, c := range all {
			if c.Size >= extract.MinReportSize {
				eligible++
			}
			if c.ReportBy != community.ByModel {
				continue
			}
			byModel++
			if c.Title != "The engine makers of London" || c.Rating != 7.5 || len(c.Findings) != 2 {
				t.Fatalf("model report %+v", c)
			}
			for _, f := range c.Findings {
				if len(f.Chunks) == 0 {
					t.Fatalf("finding %q has no passages", f.Text)
				}
			}
		}
		t.Logf("%d calls, %d communities, %d reported by the model", calls, len(all), byModel)
		if calls == 0 || byModel != eligible || fallbacks != 0 {
			t.Fatalf("%d calls, %d model reports of %d eligible communities, %d fallbacks", calls, byModel, eligible, fallbacks)
		}
		if v.Calls != calls || v.CachedCalls != 0 || v.PromptTokens == 0 {
			t.Fatalf("usage: %d calls (%d cached), %d prompt tokens; the provider had %d", v.Calls, v.CachedCalls, v.PromptTokens, calls)
		}
		// The graph drawn by community names them by their reports.
		m, err := a.Communities.Map(context.Background(), v)
		if err != nil || len(m.Nodes) == 0 || m.Nodes[0].Name != "The engine makers of London" {
			t.Fatalf("community map %+v (%v)", m.Nodes, err)
		}
		// Again: every report from the cache.
		again := modelReportRun(t, a, st)
		if srv.Count() != calls {
			t.Fatalf("the second run made %d new calls", srv.Count()-calls)
		}
		if again.Calls != calls || again.CachedCalls != calls {
			t.Fatalf("second run: %d calls, %d cached", again.Calls, again.CachedCalls)
		}
		if all2, _ := modelReports(t, a, again); len(all2) != len(all) {
			t.Fatalf("second run: %d communities, first %d", len(all2), len(all))
		}
	})
}

// namesPequodTopic reports whether a community's top nodes are of the
// second topic of reportsText.
func namesPequodTopic(top []string) bool {
	for _, n := range top {
		for _, w := range []string{"Ahab", "Pequod", "Ishmael", "Queequeg", "Starbuck", "Moby Dick"} {
			if strings.Contains(n, w) {
				return true
			}
		}
	}
	return false
}

// TestReports_MalformedFallsBack: a report the model answers with
// something unreadable is written offline instead and counted; the run
// ends done.
func TestReports_MalformedFallsBack(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: reportRules(t, "Captain Ahab")})
	reportBackends(t, srv, func(t *testing.T, a *App, st *store.Store) {
		v := modelReportRun(t, a, st)
		all, fallbacks := modelReports(t, a, v)
		offline := 0
		for _, c := range all {
			if c.Size < extract.MinReportSize || c.ReportBy == community.ByModel {
				continue
			}
			offline++
			// The malformed answers are to prompts that name Captain Ahab:
			// his community's, or one whose members' sentences name him
			// (the Pequod's), never the other topic's.
			if !namesPequodTopic(c.TopNodes) || c.Rating != 0 || len(c.Findings) == 0 {
				t.Fatalf("offline report %+v", c)
			}
		}
		t.Logf("%d fallbacks", fallbacks)
		if fallbacks == 0 || offline != fallbacks {
			t.Fatalf("%d fallbacks counted, %d eligible communities reported offline", fallbacks, offline)
		}
	})
}

// TestReports_GlobalMapReduce: global search with a provider maps the
// ranked reports to key points (batches of them, a call each) and
// reduces the best to an answer that cites communities and, through
// their findings, passages; a GET reads the same reports and calls no
// model.
func TestReports_GlobalMapReduce(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: reportRules(t, "")})
	reportBackends(t, srv, func(t *testing.T, a *App, st *store.Store) {
		ctx := context.Background()
		v := modelReportRun(t, a, st)
		q := "What are the main themes of these documents?"
		before := srv.Count()
		got, err := a.Queries.Ask(ctx, v, QueryInput{Question: q, Mode: query.ModeGlobal, Provider: extract.ProviderGemini, RetrievalOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if srv.Count() != before || len(got.Reports) == 0 || !got.Answer.Extractive {
			t.Fatalf("GET: %d calls, %d reports, answer %+v", srv.Count()-before, len(got.Reports), got.Answer)
		}
		res, err := a.Queries.Ask(ctx, v, QueryInput{Question: q, Mode: query.ModeGlobal, Provider: extract.ProviderGemini, Keywords: KeywordsOffline})
		if err != nil {
			t.Fatal(err)
		}
		maps := (len(res.Reports) + 3) / 4
		t.Logf("%d reports, %d chunks, %d points", len(res.Reports), len(res.Chunks), len(res.Answer.Points))
		if n := srv.Count() - before; n != maps+1 {
			t.Fatalf("%d calls for %d reports, want %d maps and a reduce", n, len(res.Reports), maps)
		}
		ans := res.Answer
		if ans == nil || !strings.HasPrefix(ans.Text, "The main theme is the building of calculating engines") || ans.Extractive {
			t.Fatalf("answer %+v (note %q)", ans, res.Note)
		}
		// The point scored 0 is dropped; the one left cites the reports'
		// communities.
		if len(ans.Points) != maps || ans.Points[0].Score != 90 || len(ans.Communities) != len(res.Reports) {
			t.Fatalf("points %+v, cited %v of %d reports", ans.Points, ans.Communities, len(res.Reports))
		}
		if len(res.Chunks) > 0 && len(ans.Cited) == 0 {
			t.Fatalf("the answer cites no passage of %d", len(res.Chunks))
		}
	})
}

// TestReports_FailedCallFallsBack: a provider that refuses every report
// request leaves every community reported offline, counted; the run ends
// done.
func TestReports_FailedCallFallsBack(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{}) // no recorded answer: every call is refused
	reportBackends(t, srv, func(t *testing.T, a *App, st *store.Store) {
		v := modelReportRun(t, a, st)
		all, fallbacks := modelReports(t, a, v)
		eligible := 0
		for _, c := range all {
			if c.ReportBy == community.ByModel {
				t.Fatalf("a model report without an answer: %+v", c)
			}
			if c.Size >= extract.MinReportSize {
				eligible++
			}
		}
		if eligible == 0 || fallbacks != eligible || srv.Count() == 0 {
			t.Fatalf("%d fallbacks of %d eligible communities, %d calls", fallbacks, eligible, srv.Count())
		}
	})
}
