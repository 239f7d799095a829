package handlers_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/PuerkitoBio/goquery"
)

// postGold uploads a gold file through the import form.
func postGold(tb testing.TB, a *testApp, fields map[string]string, files map[string][]byte) *http.Response {
	tb.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	for k, data := range files {
		fw, err := w.CreateFormFile(k, k+".dat")
		if err != nil {
			tb.Fatal(err)
		}
		_, _ = fw.Write(data)
	}
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, a.Server.URL+"/extractions/gold", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// checkGoldComparison checks a comparison of an nlp run against gold opened
// with GoldCompareOptions: matched nodes are not all "changed" for lack of
// gold descriptions, and the edge score is the unlabelled one, shown next
// to the labelled one.
func checkGoldComparison(t *testing.T, doc *goquery.Document) {
	t.Helper()
	count := func(id string) int {
		n, err := strconv.Atoi(strings.TrimSpace(doc.Find(`[data-testid="` + id + `"] .n`).Text()))
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		return n
	}
	if u, c := count("nodes-unchanged"), count("nodes-changed"); u == 0 || u < c {
		t.Errorf("nodes unchanged %d, changed %d: gold's empty fields count as changes", u, c)
	}
	edges := doc.Find(`[data-testid="score-edges"]`)
	if !hasText(edges, "unlabelled") {
		t.Errorf("edge score row does not say it is unlabelled: %q", edges.Text())
	}
	f1 := edges.Find("td").Last().Text()
	if f1 == "0.000" {
		t.Errorf("unlabelled edge F1 is 0: %q", edges.Text())
	}
	other := doc.Find(`[data-testid="score-edges-other"]`)
	if other.Length() != 1 || !hasText(other, "labelled") || hasText(other, "unlabelled") {
		t.Errorf("labelled edge score not shown: %q", other.Text())
	}
}

func TestGold_Import(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()

	t.Run("WebNLGWithRun", func(t *testing.T) { checkGoldWebNLGWithRun(t, a) })

	t.Run("DocREDWithRun", func(t *testing.T) {
		resp := postGold(t, a, map[string]string{"name": "docred-run", "format": "docred", "limit": "3", "run": "1"},
			map[string][]byte{"file": testkit.Read(t, "gold/redocred_dev_first10.json"),
				"relations": testkit.Read(t, "gold/docred_rel_info.json")})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("status %d", resp.StatusCode)
		}
		loc, err := url.Parse(resp.Header.Get("Location"))
		q := loc.Query()
		if err != nil || loc.Path != "/compare" || q.Get("ignore_type") != "1" || q.Get("ignore_labels") != "1" || q.Get("undirected") != "1" {
			t.Fatalf("redirect to %q", resp.Header.Get("Location"))
		}
		run, err := a.App.Versions.ByLabel(ctx, "docred-run", 2)
		if err != nil {
			t.Fatal(err)
		}
		if v := waitVersion(t, a, run.ID); v.Status != record.StatusDone {
			t.Fatalf("run %s: %s", v.Status, v.Error)
		}
		_, doc := a.Get(t, loc.String())
		checkGoldComparison(t, doc)
		if doc.Find(`[data-testid="ignore-labels"][checked]`).Length() != 1 {
			t.Error("the ignore labels box is not checked")
		}
	})

	t.Run("DocREDWithNames", func(t *testing.T) {
		resp := postGold(t, a, map[string]string{"name": "docred", "format": "docred", "limit": "3"},
			map[string][]byte{"file": testkit.Read(t, "gold/redocred_dev_first10.json"),
				"relations": testkit.Read(t, "gold/docred_rel_info.json")})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("status %d", resp.StatusCode)
		}
		ref, err := a.App.Versions.ByLabel(ctx, "docred", 0)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("Location") != "/versions/"+strconv.Itoa(ref.ID) || ref.Number != 1 || !ref.Reference {
			t.Fatalf("redirect %q, version %+v", resp.Header.Get("Location"), ref)
		}
		g, err := a.App.Graphs.Load(ctx, ref.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]int{}
		for _, n := range g.Nodes {
			types[n.Type]++
		}
		if types["Person"] == 0 || types["Location"] == 0 {
			t.Errorf("DocRED types not mapped: %v", types)
		}
		named := 0
		for _, e := range g.Edges {
			if e.Label == "country" {
				named++
			}
		}
		if named == 0 {
			t.Error("relation codes not named")
		}
	})

	t.Run("Errors", func(t *testing.T) {
		for name, c := range map[string]struct {
			fields map[string]string
			files  map[string][]byte
		}{
			"NoFile":    {map[string]string{"name": "x", "format": "webnlg"}, nil},
			"NoName":    {map[string]string{"format": "webnlg"}, map[string][]byte{"file": []byte("<benchmark/>")}},
			"BadFormat": {map[string]string{"name": "x", "format": "csv"}, map[string][]byte{"file": []byte("a,b")}},
			"BadXML":    {map[string]string{"name": "x", "format": "webnlg"}, map[string][]byte{"file": []byte("<benchmark><entries>")}},
		} {
			if resp := postGold(t, a, c.fields, c.files); resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s: status %d", name, resp.StatusCode)
			}
		}
		if _, err := a.App.Versions.ByLabel(ctx, "x", 0); err == nil {
			t.Error("a failed import left a version")
		}
	})
}

// checkGoldWebNLGWithRun checks a WebNLG import with a run stores a reference and a run over its document, and leads to their scored comparison.
func checkGoldWebNLGWithRun(t *testing.T, a *testApp) {
	t.Helper()
	ctx := context.Background()
	resp := postGold(t, a, map[string]string{"name": "webnlg", "format": "webnlg", "limit": "10", "run": "1"},
		map[string][]byte{"file": testkit.Read(t, "gold/webnlg2020_text2rdf_seen_first200.xml")})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Path != "/compare" || loc.Query().Get("ignore_type") != "1" || loc.Query().Get("ignore_labels") != "1" {
		t.Fatalf("redirect to %q", resp.Header.Get("Location"))
	}
	ref, err := a.App.Versions.ByLabel(ctx, "webnlg", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !ref.Reference || ref.Status != record.StatusDone || ref.Nodes == 0 || ref.Edges == 0 || ref.Config.Strategy != "gold" {
		t.Fatalf("reference version: %+v", ref)
	}
	run, err := a.App.Versions.ByLabel(ctx, "webnlg", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.DocumentIDs) != 1 || run.DocumentIDs[0] != ref.DocumentIDs[0] {
		t.Errorf("the run covers %v, the gold %v", run.DocumentIDs, ref.DocumentIDs)
	}
	if v := waitVersion(t, a, run.ID); v.Status != record.StatusDone {
		t.Fatalf("run %s: %s", v.Status, v.Error)
	}
	_, doc := a.Get(t, loc.String())
	if doc.Find(`[data-testid="score"]`).Length() != 1 || !hasText(doc.Find(`[data-testid="score"]`), "webnlg@1") {
		t.Error("no score against the imported reference")
	}
	if doc.Find(`[data-testid="reference-a"]`).Length() != 1 {
		t.Error("side a not shown as the reference")
	}
	checkGoldComparison(t, doc)
}
