package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

const lincoln = `Abraham Lincoln was born in Hodgenville, Kentucky, in 1809. Lincoln moved to Illinois and worked as a lawyer in Springfield.
He married Mary Todd in 1842. Lincoln led the United States during the Civil War.`

func TestExtractions_RunFromForm(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	d, err := extract.ReadDocument("lincoln.txt", []byte(lincoln), extract.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	d, _, _ = a.AddDocument(ctx, d)

	t.Run("FormListsDocuments", func(t *testing.T) {
		_, doc := a.Get(t, "/extractions/new")
		if doc.Find(`[data-testid="run-form"] input[name="doc"]`).Length() != 1 {
			t.Fatal("document choice missing")
		}
		if doc.Find(`select[name="strategy"] option`).Length() != 4 {
			t.Fatal("strategies missing")
		}
		// nlp is picked: no prompt template is shown.
		if _, hidden := doc.Find(`[data-testid="prompts"]`).Attr("hidden"); !hidden {
			t.Fatal("the nlp run form shows LLM prompt templates")
		}
		if doc.Find(`[data-testid="prompts"] details[data-strategy="tuple"]`).Length() == 0 {
			t.Fatal("the tuple prompt templates are not in the form for when tuple is picked")
		}
	})
	t.Run("InvalidSettingsShowForm", func(t *testing.T) {
		resp, err := noRedirect.PostForm(a.Server.URL+"/extractions", url.Values{"name": {"x"}, "doc": {fmt.Sprint(d.ID)},
			"strategy": {"nlp"}, "chunk_size": {"100"}, "overlap": {"200"}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	t.Run("SameRefusalEverywhere", func(t *testing.T) { checkSameRefusalEverywhere(t, a, d.ID) })
	var versionURL string
	t.Run("Start", func(t *testing.T) {
		resp, err := noRedirect.PostForm(a.Server.URL+"/extractions", url.Values{"name": {"lincoln"}, "doc": {fmt.Sprint(d.ID)},
			"strategy": {"nlp"}, "chunk_size": {"120"}, "overlap": {"0"}, "concurrency": {"2"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("status %d", resp.StatusCode)
		}
		versionURL = resp.Header.Get("Location")
	})
	t.Run("ProgressThenResults", func(t *testing.T) { checkProgressThenResults(t, a, versionURL) })
	t.Run("ChunkHighlightsMentions", func(t *testing.T) {
		_, doc := a.Get(t, fmt.Sprintf("%s/chunks/%d/0", versionURL, d.ID))
		marks := doc.Find(`[data-testid="mention"]`)
		if marks.Length() == 0 {
			t.Fatal("no highlighted mentions")
		}
		if !strings.Contains(marks.Text(), "Abraham Lincoln") {
			t.Fatalf("marks: %q", marks.Text())
		}
		if got := doc.Find(`[data-testid="chunk-text"]`).Text(); !strings.Contains(got, "was born in") {
			t.Fatalf("chunk text: %q", got)
		}
	})
	t.Run("NewVersionPrefilled", func(t *testing.T) {
		_, doc := a.Get(t, "/extractions/new?from="+strings.TrimPrefix(versionURL, "/versions/"))
		if v, _ := doc.Find(`input[name="chunk_size"]`).Attr("value"); v != "120" {
			t.Fatalf("chunk size not pre-filled: %q", v)
		}
		if v, _ := doc.Find(`input[name="name"]`).Attr("value"); v != "lincoln" {
			t.Fatalf("name not pre-filled: %q", v)
		}
		if _, ok := doc.Find(`input[name="doc"]`).Attr("checked"); !ok {
			t.Fatal("document not pre-checked")
		}
	})
}

// checkSameRefusalEverywhere checks the form and the JSON API refuse bad settings for document docID with Validate's message.
func checkSameRefusalEverywhere(t *testing.T, a *testApp, docID int) {
	t.Helper()
	// The form and the JSON API refuse bad settings with
	// extract.Config.Validate's message (the CLI test checks the CLI).
	cases := []struct {
		form url.Values
		cfg  func(*extract.Config)
	}{
		{url.Values{"chunk_size": {"10"}, "overlap": {"20"}, "concurrency": {"1000"}}, func(c *extract.Config) { c.ChunkSize, c.Overlap, c.Concurrency = 10, 20, 1000 }},
		{url.Values{"overlap": {"2000"}}, func(c *extract.Config) { c.Overlap = 2000 }},
		{url.Values{"concurrency": {"1000"}}, func(c *extract.Config) { c.Concurrency = 1000 }},
		{url.Values{"max_gleaning": {"9"}}, func(c *extract.Config) { c.MaxGleaning = 9 }},
		{url.Values{"strategy": {"bogus"}}, func(c *extract.Config) { c.Strategy = "bogus" }},
	}
	for _, tc := range cases {
		cfg := extract.DefaultConfig()
		tc.cfg(&cfg)
		want := extract.MessageOf(cfg.Validate())
		if want == "" {
			t.Fatalf("%v: Validate accepts it", tc.form)
		}
		form := url.Values{"name": {"bad"}, "doc": {fmt.Sprint(docID)}, "strategy": {"nlp"}}
		for k, v := range tc.form {
			form[k] = v
		}
		resp, err := noRedirect.PostForm(a.Server.URL+"/extractions", form)
		if err != nil {
			t.Fatal(err)
		}
		page, err := goquery.NewDocumentFromReader(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(page.Find(`[data-testid="form-error"]`).Text()); resp.StatusCode != http.StatusUnprocessableEntity || got != want {
			t.Errorf("form %v: %d %q, want 422 %q", tc.form, resp.StatusCode, got, want)
		}
		req, _ := http.NewRequest(http.MethodPost, a.Server.URL+"/api/extractions", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity && resp.StatusCode != http.StatusBadRequest || body.Error != want {
			t.Errorf("API %v: %d %q, want %q", tc.form, resp.StatusCode, body.Error, want)
		}
	}
}

// checkProgressThenResults checks the run at versionURL finishes, its progress says done, and its page lists merged nodes, chunks and types.
func checkProgressThenResults(t *testing.T, a *testApp, versionURL string) {
	t.Helper()
	var id int
	fmt.Sscanf(versionURL, "/versions/%d", &id)
	if v := waitVersion(t, a, id); v.Status != record.StatusDone {
		t.Fatalf("run %s: %s", v.Status, v.Error)
	}
	_, progress := a.Get(t, versionURL+"/progress")
	if status, _ := progress.Find(`[data-testid="progress"]`).Attr("data-status"); status != "done" {
		t.Fatalf("progress says %q: %s", status, progress.Text())
	}
	_, doc := a.Get(t, versionURL)
	names := doc.Find(`[data-testid="nodes"] tbody tr`).Text()
	for _, want := range []string{"Abraham Lincoln", "Illinois", "Mary Todd"} {
		if !strings.Contains(names, want) {
			t.Errorf("node %q missing from %q", want, names)
		}
	}
	if strings.Contains(names, "\nLincoln\n") {
		t.Error("Lincoln was not merged into Abraham Lincoln")
	}
	if doc.Find(`[data-testid="chunks"] tbody tr`).Length() < 2 {
		t.Fatal("chunks missing")
	}
	if doc.Find(`[data-testid="node-types"] tr`).Length() == 0 {
		t.Fatal("counts by type missing")
	}
	_, filtered := a.Get(t, versionURL+"?type=Location")
	filtered.Find(`[data-testid="nodes"] tbody tr td:nth-child(2)`).Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Text()) != "Location" {
			t.Errorf("type filter let %q through", s.Text())
		}
	})
}

func TestExtractions_API(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustExtract(t, "lincoln", "l.txt", lincoln, extract.DefaultConfig())
	var list []struct {
		Name     string `json:"name"`
		Versions []struct {
			ID      int    `json:"id"`
			Version int    `json:"version"`
			Status  string `json:"status"`
			Nodes   int    `json:"nodes"`
			Config  struct {
				Strategy string `json:"strategy"`
			} `json:"config"`
		} `json:"versions"`
	}
	mustGetJSON(t, a.Server.URL+"/api/extractions", &list)
	if len(list) != 1 || list[0].Name != "lincoln" || len(list[0].Versions) != 1 {
		t.Fatalf("list: %+v", list)
	}
	got := list[0].Versions[0]
	if got.ID != v.ID || got.Status != "done" || got.Nodes != v.Nodes || got.Config.Strategy != "nlp" {
		t.Fatalf("version: %+v", got)
	}
	var docs []struct {
		ID        int       `json:"id"`
		Name      string    `json:"name"`
		CreatedAt time.Time `json:"created_at"`
	}
	mustGetJSON(t, a.Server.URL+"/api/documents", &docs)
	if len(docs) != 1 || docs[0].Name != "l.txt" || docs[0].CreatedAt.IsZero() {
		t.Fatalf("documents: %+v", docs)
	}

	// A JSON body starts a run as the form does; a bad one is refused with
	// the reason.
	post := func(body string) (int, map[string]any) {
		resp, err := http.Post(a.Server.URL+"/api/extractions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	code, out := post(fmt.Sprintf(`{"name":"lincoln-json","strategy":"nlp","chunk_size":600,"document_ids":[%d]}`, docs[0].ID))
	if code != http.StatusCreated && code != http.StatusAccepted || out["id"] == nil {
		t.Fatalf("JSON run: %d %v", code, out)
	}
	// The answer is the new version's JSON, as GET /api/versions/{id}.
	if cfg, _ := out["config"].(map[string]any); out["extraction"] != "lincoln-json" || out["version"] != float64(1) ||
		out["status"] == nil || cfg["chunk_size"] != float64(600) || out["document_ids"] == nil {
		t.Fatalf("the run's answer is not the version's JSON: %v", out)
	}
	jv := waitVersion(t, a, int(out["id"].(float64)))
	if jv.Status != "done" || jv.Config.ChunkSize != 600 || jv.Extraction != "lincoln-json" {
		t.Fatalf("JSON run: %+v", jv)
	}
	for body, want := range map[string]string{
		`{"name":"x","document_ids":[1],"colour":"red"}`: `unknown field "colour"`,
		`{"name":"x","chunk_size":"big"}`:                "chunk_size",
		`{"name":"x",`:                                   "not valid JSON",
		// A prompt template that would build a 6 GB prompt per chunk.
		`{"name":"x","strategy":"tuple","document_ids":[1],"prompts":{"tuple_user":"{{range 6000}}{{printf \"%1000000d\" 1}}{{end}}"}}`: "prompt tuple_user is refused",
		// An assignment in a nested scope that made the number a range
		// went over: if, with and range forms.
		`{"name":"x","strategy":"tuple","document_ids":[1],"prompts":{"tuple_user":"{{$x := .InputText}}{{if true}}{{$x = 9000000000000000000}}{{end}}{{range $x}}{{end}}"}}`:         "may not assign",
		`{"name":"x","strategy":"tuple","document_ids":[1],"prompts":{"tuple_user":"{{$x := .InputText}}{{with .InputText}}{{$x = 9000000000000000000}}{{end}}{{range $x}}{{end}}"}}`: "may not assign",
		`{"name":"x","strategy":"tuple","document_ids":[1],"prompts":{"tuple_user":"{{$x := .InputText}}{{range .Known}}{{$x = 9000000000000000000}}{{end}}{{range $x}}{{end}}"}}`:    "may not assign",
	} {
		code, out := post(body)
		if msg, _ := out["error"].(string); code != http.StatusBadRequest || !strings.Contains(msg, want) {
			t.Errorf("%s: %d %v, want 400 saying %q", body, code, out, want)
		}
	}
	resp, err := http.PostForm(a.Server.URL+"/api/extractions", url.Values{"name": {"x"}, "doc": {"abc"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("doc=abc: %d, want 400", resp.StatusCode)
	}
}

func mustGetJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func TestExtractions_CancelFinished(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustExtract(t, "done", "d.txt", lincoln, extract.DefaultConfig())
	resp, err := noRedirect.PostForm(fmt.Sprintf("%s/versions/%d/cancel", a.Server.URL, v.ID), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	msg, _ := flashOf(t, a, resp)
	if !strings.Contains(msg, "already finished") {
		t.Fatalf("flash %q", msg)
	}
	if got, _ := a.App.Versions.Get(context.Background(), v.ID); got.Status != "done" {
		t.Fatalf("status changed to %s", got.Status)
	}
}

// A run given the name of an extraction that exists is a new version of
// it, and the page says so.
func TestExtractions_SameNameIsANewVersion(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustExtract(t, "people", "a.txt", "Ada Lovelace met Charles Babbage in London.", extract.DefaultConfig())
	resp, err := noRedirect.PostForm(a.Server.URL+"/extractions", url.Values{"name": {"people"}, "doc": {fmt.Sprint(v.DocumentIDs[0])}, "strategy": {"nlp"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if msg, _ := flashOf(t, a, resp); !strings.HasPrefix(msg, "Started people@2, a new version of the extraction people") {
		t.Errorf("a second run named people: %s to %s, flash %q", resp.Status, resp.Header.Get("Location"), msg)
	}
}
