package handlers_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// nestedList is a list nested depth levels deep.
func nestedList(depth int) any {
	var v any = []any{}
	for range depth - 1 {
		v = []any{v}
	}
	return v
}

// mustFetch GETs a path and returns the response with its body read.
func mustFetch(tb testing.TB, a *testApp, path string) (*http.Response, []byte) {
	tb.Helper()
	resp, err := http.Get(a.Server.URL + path)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp, body
}

// A 20 KB import with one property nested 9,990 levels deep was stored,
// and its JSON export was 199.8 MB, built whole in memory (1.3 GB
// allocated, six at once peaked at 3.8 GiB). Not parallel: it counts the
// process's allocations.
func TestExportVersion_NestedProperty(t *testing.T) {
	a := MustApp(t)
	const depth = 9990
	t.Run("ImportRefused", func(t *testing.T) {
		file := `{"nodes":[{"key":"a","name":"a","properties":{"deep":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}],"edges":[]}`
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("file", "deep.json")
		fw.Write([]byte(file))
		mw.WriteField("name", "deep")
		mw.Close()
		resp, err := http.Post(a.Server.URL+"/api/extractions/import", mw.FormDataContentType(), &body)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(out.Error, `deep.json: node 1 ("a"): property "deep" nests lists or maps more than 32 levels deep`) {
			t.Fatalf("import of a property %d levels deep: %d %q, want 400 naming the node and property", depth, resp.StatusCode, out.Error)
		}
	})
	t.Run("ExportBounded", func(t *testing.T) {
		// A graph stored another way (or before imports were checked)
		// still exports in bounded memory.
		g := extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "a", Properties: map[string]any{"deep": nestedList(depth)}}, {Key: "b", Name: "b"}},
			Edges: []extract.Edge{{Source: "a", Target: "b", Label: "to", Weight: 1}}}
		v := a.MustGraphVersion(t, "deep stored", "A deep property.", g)
		for _, format := range []string{"json", "graphml", "csv", "cypher"} {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			resp, body := mustFetch(t, a, fmt.Sprintf("/versions/%d/export?format=%s", v.ID, format))
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: %d bytes, %.1f MiB allocated", format, len(body), float64(alloc)/(1<<20))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: status %d", format, resp.StatusCode)
			}
			if len(body) > 100<<10 {
				t.Errorf("%s: the export is %d bytes, want under 100 KiB", format, len(body))
			}
			if alloc > 64<<20 {
				t.Errorf("%s: the export allocated %d MiB, want under 64", format, alloc>>20)
			}
		}
	})
}

// fillHeavy takes every slot of the process's heavy gate and fills its
// line, so that the next heavy request is refused at once; the returned
// function gives everything back.
func fillHeavy(t *testing.T, g *app.Gate) func() {
	t.Helper()
	var releases []func()
	for range g.Slots() {
		_, r, err := g.Enter(context.Background())
		if err != nil {
			t.Fatalf("filling the gate: %v", err)
		}
		releases = append(releases, r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	for range g.Line() {
		go func() {
			if _, r, err := g.Enter(ctx); err == nil {
				r()
			}
			done <- struct{}{}
		}()
	}
	testkit.Eventually(t, 10*time.Second, func() error {
		if n := g.Waiting(); n < g.Line() {
			return fmt.Errorf("%d of %d requests in the heavy gate's line", n, g.Line())
		}
		return nil
	})
	return func() {
		cancel()
		for range g.Line() {
			<-done
		}
		for _, r := range releases {
			r()
		}
	}
}

// Heavy requests (exports, comparisons, imports) are admitted a few at a
// time; beyond the gate's slots and line they get 503 with Retry-After.
// Not parallel: it fills the process's gate.
func TestHeavyRequests_Busy(t *testing.T) {
	a := MustApp(t)
	v1 := a.MustGraphVersion(t, "busy one", "Alice and Bob live in Cairo.", smallGraph())
	v2 := a.MustGraphVersion(t, "busy two", "Alice and Bob live in Cairo.", smallGraph())
	gate := a.App.Heavy()
	paths := []string{
		fmt.Sprintf("/versions/%d/export?format=json", v1.ID),
		fmt.Sprintf("/versions/%d/export?format=csv", v1.ID),
		fmt.Sprintf("/compare?a=%d&b=%d", v1.ID, v2.ID),
		fmt.Sprintf("/api/compare?a=%d&b=%d&undirected=1", v1.ID, v2.ID),
	}
	t.Run("Full", func(t *testing.T) {
		free := fillHeavy(t, gate)
		defer free()
		for _, p := range paths {
			resp, body := mustFetch(t, a, p)
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "5" || !strings.Contains(string(body), "busy") {
				t.Errorf("%s with the gate full: %d, Retry-After %q, %.200s; want 503, Retry-After 5, busy", p, resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
		}
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("file", "small.json")
		fw.Write([]byte(`{"nodes":[{"key":"a"}],"edges":[]}`))
		mw.Close()
		resp, err := http.Post(a.Server.URL+"/api/extractions/import", mw.FormDataContentType(), &body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("an import with the gate full: %d, want 503", resp.StatusCode)
		}
		// Pages that hold no graph are not heavy.
		if resp, _ := mustFetch(t, a, "/compare"); resp.StatusCode != http.StatusOK {
			t.Errorf("the compare pickers with the gate full: %d", resp.StatusCode)
		}
	})
	t.Run("LastSlot", func(t *testing.T) {
		// A request admitted by its handler does not take a second slot
		// in the app: with one slot free, a comparison goes through at
		// once instead of waiting in line for a slot it holds.
		var releases []func()
		for range gate.Slots() - 1 {
			_, r, err := gate.Enter(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			releases = append(releases, r)
		}
		defer func() {
			for _, r := range releases {
				r()
			}
		}()
		for _, p := range []string{paths[2] + "&ignore_type=1", paths[0]} {
			if resp, body := mustFetch(t, a, p); resp.StatusCode != http.StatusOK {
				t.Errorf("%s with one slot free: %d %.200s", p, resp.StatusCode, body)
			}
		}
	})
	t.Run("Free", func(t *testing.T) {
		for _, p := range paths {
			if resp, body := mustFetch(t, a, p); resp.StatusCode != http.StatusOK {
				t.Errorf("%s: %d %.200s", p, resp.StatusCode, body)
			}
		}
	})
}

func TestExportVersion_Spreadsheet(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	g := extract.Graph{Nodes: []extract.Node{
		{Key: "=HYPERLINK(\"http://example.com\")", Name: "@handle", Type: "Person", Properties: map[string]any{"phone": "+44 20 7946 0000"}},
		{Key: "b", Name: "Bob", Type: "Person"},
	}, Edges: []extract.Edge{{Source: "=HYPERLINK(\"http://example.com\")", Target: "b", Label: "knows", Weight: 1}}}
	v := a.MustGraphVersion(t, "formulas", "Formulas.", g)
	nodesOf := func(t *testing.T, query string) (*http.Response, [][]string) {
		t.Helper()
		resp, body := mustFetch(t, a, fmt.Sprintf("/versions/%d/export?format=csv%s", v.ID, query))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil {
			t.Fatal(err)
		}
		f, err := zr.Open("nodes.csv")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return resp, rows
	}
	t.Run("Neo4jAdmin", func(t *testing.T) {
		resp, rows := nodesOf(t, "")
		if got := resp.Header.Get("Content-Disposition"); got != `attachment; filename="formulas-v1.zip"` {
			t.Errorf("content disposition %q", got)
		}
		if rows[1][0] != `=HYPERLINK("http://example.com")` || rows[1][1] != "@handle" || rows[1][5] != "+44 20 7946 0000" {
			t.Errorf("neo4j-admin row %q: want the values exactly", rows[1])
		}
	})
	t.Run("Spreadsheet", func(t *testing.T) {
		resp, rows := nodesOf(t, "&spreadsheet=1")
		if got := resp.Header.Get("Content-Disposition"); got != `attachment; filename="formulas-v1-spreadsheet.zip"` {
			t.Errorf("content disposition %q", got)
		}
		if rows[1][0] != `'=HYPERLINK("http://example.com")` || rows[1][1] != "'@handle" || rows[1][5] != "'+44 20 7946 0000" {
			t.Errorf("spreadsheet row %q: want formula-like text quoted", rows[1])
		}
	})
}
