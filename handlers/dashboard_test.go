package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

func TestDashboard_EmptyAndFilled(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	t.Run("Empty", func(t *testing.T) {
		resp, doc := a.Get(t, "/")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if doc.Find(`[data-testid="empty-documents"]`).Length() != 1 || doc.Find(`[data-testid="empty-extractions"]`).Length() != 1 {
			t.Fatal("empty states missing")
		}
		if doc.Find(`[data-testid="nav"] a`).Length() != 6 || doc.Find(`[data-testid="nav"] a[href="/ask"]`).Length() != 1 {
			t.Fatal("navigation incomplete")
		}
		if doc.Find(`[data-testid="upload"]`).Length() != 1 || doc.Find(`[data-testid="dashboard-new-extraction"]`).Length() != 1 {
			t.Fatal("the dashboard has no Upload or New extraction button")
		}
		// Ask with nothing finished says so.
		resp, err := noRedirect.Get(a.Server.URL + "/ask")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/extractions" {
			t.Fatalf("ask before any run: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
	t.Run("AfterExtraction", func(t *testing.T) {
		v := a.MustExtract(t, "people", "a.txt", "Abraham Lincoln was born in Kentucky. Lincoln later moved to Illinois.", extract.DefaultConfig())
		if v.Status != "done" || v.Nodes == 0 {
			t.Fatalf("extraction: %+v", v)
		}
		resp, err := noRedirect.Get(a.Server.URL + "/ask")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := fmt.Sprintf("/versions/%d/query", v.ID); resp.Header.Get("Location") != want {
			t.Fatalf("ask goes to %q, want %q", resp.Header.Get("Location"), want)
		}
		// With two finished versions the query page offers the other,
		// and picking it goes there.
		w := a.MustExtract(t, "places", "b.txt", "Paris is the capital of France.", extract.DefaultConfig())
		_, q := a.Get(t, fmt.Sprintf("/versions/%d/query", v.ID))
		if opts := q.Find(`[data-testid="query-version"] option`); opts.Length() != 2 || q.Find(`[data-testid="query-version"] option[selected]`).Text() != v.Label() {
			t.Fatalf("the version picker offers %q", opts.Text())
		}
		resp, err = noRedirect.Get(a.Server.URL + fmt.Sprintf("/ask?v=%d", w.ID))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := fmt.Sprintf("/versions/%d/query", w.ID); resp.Header.Get("Location") != want {
			t.Fatalf("the picker goes to %q, want %q", resp.Header.Get("Location"), want)
		}
		_, doc := a.Get(t, "/")
		if doc.Find(`[data-testid="upload"]`).Length() != 1 || doc.Find(`[data-testid="dashboard-new-extraction"]`).Length() != 1 {
			t.Fatal("with data, the dashboard lost its Upload or New extraction button")
		}
		if !hasText(doc.Find(`[data-testid="versions"]`), "people@1") {
			t.Fatal("recent version not listed")
		}
		if !hasText(doc.Find(`[data-testid="documents"]`), "a.txt") {
			t.Fatal("recent document not listed")
		}
		// A newer imported graph has no text to answer from: Ask still
		// opens the newest version that has.
		graph := `{"nodes":[{"key":"paris","name":"Paris","type":"Location"}],"edges":[]}`
		if _, err := a.App.Curation.ImportGraph(t.Context(), "imported", "g.json", []byte(graph), ""); err != nil {
			t.Fatal(err)
		}
		resp, err = noRedirect.Get(a.Server.URL + "/ask")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := fmt.Sprintf("/versions/%d/query", w.ID); resp.Header.Get("Location") != want {
			t.Fatalf("ask after an import goes to %q, want %q", resp.Header.Get("Location"), want)
		}
	})
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	get := func() (int, map[string]any) {
		resp, err := http.Get(a.Server.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	if code, body := get(); code != 200 || body["status"] != "ok" || body["database"] != "sqlite3" || body["workers"] != 1.0 {
		t.Fatalf("healthz: %d %v, want ok on sqlite3 with the one worker", code, body)
	}
	a.App.Close()
	if code, body := get(); code != http.StatusServiceUnavailable || body["status"] != "unavailable" || body["workers"] != 0.0 {
		t.Fatalf("healthz after close: %d %v, want unavailable and no worker", code, body)
	}
}

func TestSeedSample(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	seeded, err := a.App.SeedSample(context.Background())
	if err != nil || !seeded {
		t.Fatalf("seed: %v %v", seeded, err)
	}
	again, err := a.App.SeedSample(context.Background())
	if err != nil || again {
		t.Fatalf("second seed: %v %v", again, err)
	}
	// Both sample versions finish, and the dashboard links to them.
	vs, err := a.App.Versions.Recent(context.Background(), 10)
	if err != nil || len(vs) != 2 {
		t.Fatalf("sample versions: %+v %v", vs, err)
	}
	for _, v := range vs {
		if v = waitVersion(t, a, v.ID); v.Status != record.StatusDone || v.Nodes == 0 {
			t.Fatalf("sample run ended %s with %d nodes: %s", v.Status, v.Nodes, v.Error)
		}
	}
	_, doc := a.Get(t, "/")
	if doc.Find(`[data-testid="sample-graph"]`).Length() != 1 || doc.Find(`[data-testid="sample-compare"]`).Length() != 1 {
		t.Fatal("dashboard does not link to the sample graph and comparison")
	}
	// Its questions score both versions: every answer's passage is in
	// the sample, so recall@10 in mix is high in both.
	b, err := a.App.Scores.Board(context.Background(), "sample")
	if err != nil || b.Questions != 10 || len(b.Versions) != 2 {
		t.Fatalf("sample scoreboard: %v, %d questions, %d versions", err, b.Questions, len(b.Versions))
	}
	for _, v := range b.Versions {
		if r := v.Measures["recall@10.mix"]; r < 0.5 {
			t.Errorf("%s: recall@10 mix %v on the sample's own questions", v.Version, r)
		}
	}
}
