package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
)

// postGraph uploads a graph file to the import form or API.
func postGraph(tb testing.TB, a *testApp, path, name, fileName, format string, data []byte) (*http.Response, string) {
	tb.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("name", name)
	_ = w.WriteField("format", format)
	fw, err := w.CreateFormFile("file", fileName)
	if err != nil {
		tb.Fatal(err)
	}
	_, _ = fw.Write(data)
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, a.Server.URL+path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp, string(out)
}

// TestImport_Upload exports a version in each format through the download
// link, uploads each file back through the API or the page's form, and
// compares: zero differences. A file that is not a graph is refused with a
// message naming it, and stores nothing.
func TestImport_Upload(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	v := a.MustExtract(t, "carol", "carol.txt", "Ebenezer Scrooge met Bob Cratchit in London. Bob Cratchit works for Scrooge and Marley in London. Jacob Marley visited Scrooge in London.", extract.DefaultConfig())
	if _, doc := a.Get(t, "/extractions"); doc.Find(`[data-testid="graph-import-form"]`).Length() != 1 {
		t.Fatal("no import form on the extractions page")
	}
	for i, c := range []struct{ format, file, path string }{
		{"json", "g.json", "/api/extractions/import"},
		{"graphml", "g.graphml", "/api/extractions/import"},
		{"csv", "g.zip", "/extractions/import"},
	} {
		resp, err := http.Get(a.Server.URL + "/versions/" + strconv.Itoa(v.ID) + "/export?format=" + c.format)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		name := "imported-" + c.format
		resp, body := postGraph(t, a, c.path, name, c.file, "", data)
		var id int
		if strings.HasPrefix(c.path, "/api/") {
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("%s: status %d: %s", c.format, resp.StatusCode, body)
			}
			var got struct {
				ID    int `json:"id"`
				Nodes int `json:"nodes"`
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(err)
			}
			id = got.ID
		} else {
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("%s: status %d: %s", c.format, resp.StatusCode, body)
			}
			loc := resp.Header.Get("Location")
			if !strings.HasPrefix(loc, "/versions/") {
				t.Fatalf("%s: redirected to %q", c.format, loc)
			}
			got, err := a.App.Versions.ByLabel(ctx, name, 1)
			if err != nil {
				t.Fatalf("%s: %v", c.format, err)
			}
			id = got.ID
		}
		if _, page := a.Get(t, "/versions/"+strconv.Itoa(id)); !strings.Contains(page.Find(`[data-testid="progress-text"]`).Text(), "no chunks") {
			t.Errorf("%s: the imported version's page says %q", c.format, page.Find(`[data-testid="progress-text"]`).Text())
		}
		cmp, err := a.App.Comparisons.Compare(ctx, v.ID, id, diff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Result.IsEmpty() || len(cmp.GB.Nodes) != len(cmp.GA.Nodes) || len(cmp.GA.Nodes) == 0 {
			t.Errorf("%d %s: %d nodes -> %d, differences %+v", i, c.format, len(cmp.GA.Nodes), len(cmp.GB.Nodes), cmp.Result.Summary)
		}
	}
	resp, body := postGraph(t, a, "/api/extractions/import", "junk", "notes.txt", "", []byte("just some words"))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "notes.txt") {
		t.Fatalf("junk: %d %s", resp.StatusCode, body)
	}
	if _, err := a.App.Versions.ByLabel(ctx, "junk", 1); err == nil {
		t.Fatal("junk stored a version")
	}
}

// TestImport_GraphPageSummary: the graph page of an imported version (no
// run, no strategy) says where it came from instead of an empty
// "strategy", and counts with thousands separators as the status does.
func TestImport_GraphPageSummary(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	var b strings.Builder
	b.WriteString(`{"nodes":[`)
	for i := range 1200 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"key":"n%d","name":"Node %d","type":"T"}`, i, i)
	}
	b.WriteString(`],"edges":[]}`)
	v, err := a.App.Curation.ImportGraph(context.Background(), "big", "big.json", []byte(b.String()), "")
	if err != nil {
		t.Fatal(err)
	}
	_, doc := a.Get(t, fmt.Sprintf("/versions/%d/graph", v.ID))
	got := strings.Join(strings.Fields(doc.Find(`[data-testid="graph-summary"]`).Text()), " ")
	if want := "1,200 nodes, 0 edges · imported from big.json (json)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	// The compare page's version picker says it was imported, too.
	_, doc = a.Get(t, "/compare")
	opt := strings.Join(strings.Fields(doc.Find(fmt.Sprintf(`[data-testid="pick-a"] option[value="%d"]`, v.ID)).Text()), " ")
	if want := "big@1 · done · imported · 1200 nodes"; opt != want {
		t.Errorf("picker option %q, want %q", opt, want)
	}
}

// TestImport_FormRefusal: a file the page's import form refuses brings
// the user back to the Extractions page, the form and the reason on it,
// instead of an error page.
func TestImport_FormRefusal(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	resp, _ := postGraph(t, a, "/extractions/import", "bad", "g.json", "", []byte(`{"nodes":[{"key":"a"},{"key":"a"}]}`))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/extractions" {
		t.Fatalf("status %d, location %q: want a redirect to /extractions", resp.StatusCode, resp.Header.Get("Location"))
	}
	msg, doc := flashOf(t, a, resp)
	if !strings.Contains(msg, `g.json: node 2 has the key "a" of node 1`) || doc.Find(`[data-testid="graph-import-form"]`).Length() != 1 {
		t.Errorf("flash %q on a page with %d import forms", msg, doc.Find(`[data-testid="graph-import-form"]`).Length())
	}
}

// TestImport_ConfigShown: an imported version's settings read as
// "imported: no run" on its page and in a comparison, not as a run with
// the built-in types, chunks of 0 and default prompts.
func TestImport_ConfigShown(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	run := a.MustExtract(t, "carol", "carol.txt", "Ebenezer Scrooge met Bob Cratchit in London.", extract.DefaultConfig())
	imp, err := a.App.Curation.ImportGraph(context.Background(), "g", "g.json", []byte(`{"nodes":[{"key":"a"}]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	_, doc := a.Get(t, fmt.Sprintf("/compare?a=%d&b=%d", run.ID, imp.ID))
	rows := map[string]string{}
	doc.Find(`[data-testid="config-diff"] tbody tr`).Each(func(_ int, tr *goquery.Selection) {
		rows[strings.TrimSpace(tr.Find("td").Eq(0).Text())] = strings.TrimSpace(tr.Find("td").Eq(2).Text())
	})
	if rows["strategy"] != "imported: no run" || rows["schema"] != "" || rows["chunk size"] != "" || rows["prompts"] != "" {
		t.Errorf("imported side of the config table: %v", rows)
	}
	_, doc = a.Get(t, fmt.Sprintf("/versions/%d", imp.ID))
	if txt := doc.Find(`body`).Text(); !strings.Contains(txt, "imported: no run") || strings.Contains(txt, "0 chars, overlap 0") {
		t.Errorf("version page config does not say it was imported")
	}
}
