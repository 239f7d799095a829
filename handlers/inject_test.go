package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// The run form and API take a reference version: an unknown one is
// refused; with a known one the run's nodes matching its names become its
// nodes, counted on the version page and in the API.
func TestRun_Reference(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ref := []byte(`{"nodes":[{"key":"wd:Q91","name":"Abraham Lincoln","type":"President","properties":{"aliases":["Lincoln"],"wikidata":"Q91"}},
		{"key":"wd:Q1261","name":"Illinois","type":"State"}]}`)
	rv, err := a.App.Curation.ImportGraph(t.Context(), "domain", "domain.json", ref, "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := extract.ReadDocument("lincoln.txt", []byte(lincolnText), extract.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err = a.AddDocument(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	post := func(reference string) (*http.Response, map[string]any) {
		form := url.Values{"name": {"lincoln"}, "doc": {fmt.Sprint(d.ID)}, "strategy": {"nlp"}, "reference": {reference}}
		req, _ := http.NewRequest(http.MethodPost, a.Server.URL+"/api/extractions", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp, body
	}
	if resp, body := post("nobody@2"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(fmt.Sprint(body["error"]), `reference "nobody@2": no such version`) {
		t.Errorf("unknown reference: %d %v", resp.StatusCode, body)
	}
	resp, body := post(rv.Label())
	if resp.StatusCode >= 300 {
		t.Fatalf("run with a reference: %d %v", resp.StatusCode, body)
	}
	v, err := a.App.Versions.ByLabel(t.Context(), "lincoln", 1)
	if err != nil {
		t.Fatal(err)
	}
	v = waitVersion(t, a, v.ID)
	if v.Config.Reference != "domain@1" || v.Injected == 0 {
		t.Fatalf("version %+v: reference %q, %d injected", v.Label(), v.Config.Reference, v.Injected)
	}
	g, err := a.App.Graphs.Load(t.Context(), v.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	var lincoln *extract.Node
	for i := range g.Nodes {
		if g.Nodes[i].Key == "wd:Q91" {
			lincoln = &g.Nodes[i]
		}
		if g.Nodes[i].Name == "Lincoln" {
			t.Errorf("Lincoln is still a node of its own: %+v", g.Nodes[i])
		}
	}
	if lincoln == nil || lincoln.Type != "President" || lincoln.Properties["wikidata"] != "Q91" {
		t.Errorf("reference node %+v", lincoln)
	}
	_, page := a.Get(t, fmt.Sprintf("/versions/%d", v.ID))
	if s := page.Find(`[data-testid="curation-stats"]`).Text(); !strings.Contains(s, fmt.Sprintf("%d nodes injected", v.Injected)) {
		t.Errorf("version page curation stats %q", s)
	}
}
