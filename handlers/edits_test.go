package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// carolGraph is a small graph to edit.
func carolGraph() extract.Graph {
	return extract.Graph{
		Nodes: []extract.Node{
			{Key: "scrooge", Name: "Scrooge", Type: "person", Description: "A squeezing old sinner."},
			{Key: "marley", Name: "Marley", Type: "person"},
			{Key: "london", Name: "London", Type: "place"},
		},
		Edges: []extract.Edge{
			{Source: "scrooge", Label: "partner", Target: "marley", Weight: 1},
			{Source: "scrooge", Label: "lives in", Target: "london", Weight: 1},
		},
	}
}

// POST /api/versions/:id/edits makes a new version (parent the edited
// one) with the edit log, answers its JSON, and leaves the edited version
// as it was; compare shows exactly the edits; a bad edit saves nothing.
func TestEdits_API(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustGraphVersion(t, "carol", "Scrooge and Marley.", carolGraph())
	body := `[{"op":"rename","key":"scrooge","name":"Ebenezer Scrooge"},
		{"op":"delete_edge","source":"scrooge","label":"lives in","target":"london"},
		{"op":"add_edge","source":"marley","label":"haunts","target":"scrooge"},
		{"op":"set_props","key":"london","properties":{"population":1000000}},
		{"op":"retype","key":"marley","type":"ghost"}]`
	resp, err := http.Post(fmt.Sprintf("%s/api/versions/%d/edits", a.Server.URL, v.ID), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var nv app.VersionJSON
	if err := json.NewDecoder(resp.Body).Decode(&nv); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	if nv.Version != 2 || nv.ParentID != v.ID || nv.Status != "done" || nv.Nodes != 3 || nv.Edges != 2 || len(nv.Edits) != 5 ||
		!reflect.DeepEqual(nv.Edits[0], curate.Edit{Op: "rename", Key: "scrooge", Name: "Ebenezer Scrooge"}) {
		t.Errorf("new version %+v", nv)
	}
	// The lists say the edit is curated, not a run of its strategy.
	_, home := a.Get(t, "/")
	kinds := map[string]string{}
	home.Find(`[data-testid="versions"] tbody tr`).Each(func(_ int, r *goquery.Selection) {
		kinds[strings.TrimSpace(r.Find("td a").First().Text())] = strings.TrimSpace(r.Find("td").Eq(2).Text())
	})
	if kinds["carol@2"] != "curated" || kinds["carol@1"] == "curated" {
		t.Errorf("the versions list shows kinds %v", kinds)
	}
	var shown app.VersionJSON
	a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d", nv.ID), http.StatusOK, &shown)
	if !reflect.DeepEqual(shown.Edits, nv.Edits) {
		t.Errorf("GET shows edits %+v", shown.Edits)
	}
	old, err := a.App.Graphs.Load(t.Context(), v.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(old, carolGraph()) {
		t.Errorf("the edited version changed: %+v", old)
	}
	g, err := a.App.Graphs.Load(t.Context(), nv.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := curate.Resolve(g, "scrooge"); n.Name != "Ebenezer Scrooge" || g.Nodes[2].Properties["population"] != 1e6 {
		t.Errorf("edited graph %+v", g)
	}

	// Compare shows the rename and the retype as changed nodes (the keys
	// were kept, and the edges at them stay matched), the removed and the
	// added edge, and the changed property.
	var cmp struct {
		Nodes struct {
			Added, Removed []struct{ Name string }
			Changed        []struct {
				NameA  string   `json:"name_a"`
				NameB  string   `json:"name_b"`
				Fields []string `json:"fields"`
			}
		}
		Edges struct{ Added, Removed []struct{ Label string } }
	}
	a.MustGetJSON(t, fmt.Sprintf("/api/compare?a=%d&b=%d", v.ID, nv.ID), http.StatusOK, &cmp)
	renamed, retyped := false, false
	for _, c := range cmp.Nodes.Changed {
		renamed = renamed || c.NameA == "Scrooge" && c.NameB == "Ebenezer Scrooge" && slices.Contains(c.Fields, "name")
		retyped = retyped || c.NameB == "Marley" && slices.Equal(c.Fields, []string{"type"})
	}
	if len(cmp.Nodes.Added)+len(cmp.Nodes.Removed) != 0 || len(cmp.Nodes.Changed) != 3 || !renamed || !retyped ||
		len(cmp.Edges.Added) != 1 || len(cmp.Edges.Removed) != 1 {
		t.Errorf("compare %+v", cmp)
	}
	// The compare page's table says what the type was and became.
	_, cmpPage := a.Get(t, fmt.Sprintf("/compare?a=%d&b=%d", v.ID, nv.ID))
	if !strings.Contains(cmpPage.Find(`tr.item[data-status="changed"]`).Text(), "type person → ghost") {
		t.Errorf("compare page rows: %q", cmpPage.Find(`tr.item`).Text())
	}

	// The version page lists the edit log.
	_, page := a.Get(t, fmt.Sprintf("/versions/%d", nv.ID))
	if log := page.Find(`[data-testid="edit-log"] li`); log.Length() != 5 || !strings.Contains(log.First().Text(), `rename scrooge to "Ebenezer Scrooge"`) {
		t.Errorf("edit log on the page: %q", page.Find(`[data-testid="edit-log"]`).Text())
	}

	// Bad edits are refused with the reason, and no version is made.
	for _, bad := range []string{`[{"op":"rename","key":"nobody","name":"X"}]`, `[{"op":"rename","kee":"scrooge"}]`, `[]`} {
		resp, err := http.Post(fmt.Sprintf("%s/api/versions/%d/edits", a.Server.URL, v.ID), "application/json", bytes.NewReader([]byte(bad)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d", bad, resp.StatusCode)
		}
	}
	if latest, _ := a.App.Versions.ByLabel(t.Context(), "carol", 0); latest.Number != 2 {
		t.Errorf("a refused edit made version %d", latest.Number)
	}
}

// The side panels carry plain edit forms; posting one makes a new version
// and redirects to its graph focused on the node.
func TestEdits_PanelForms(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustGraphVersion(t, "carol", "Scrooge and Marley.", carolGraph())
	_, panel := a.Get(t, fmt.Sprintf("/versions/%d/nodes/scrooge", v.ID))
	if panel.Find(`[data-testid="node-edit"] form[method="post"]`).Length() != 6 || panel.Find(`[data-testid="edit-name"]`).AttrOr("value", "") != "Scrooge" {
		t.Errorf("node panel edit forms: %d", panel.Find(`[data-testid="node-edit"] form`).Length())
	}
	_, edge := a.Get(t, fmt.Sprintf("/versions/%d/edge?source=scrooge&label=partner&target=marley", v.ID))
	if edge.Find(`[data-testid="edit-delete-edge"]`).Length() != 1 {
		t.Error("edge panel has no delete form")
	}

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(form url.Values) *http.Response {
		t.Helper()
		resp, err := client.PostForm(fmt.Sprintf("%s/versions/%d/edits", a.Server.URL, v.ID), form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := post(url.Values{"op": {"set_props"}, "key": {"scrooge"}, "prop": {"age"}, "value": {"70"}})
	nv, err := a.App.Versions.ByLabel(t.Context(), "carol", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("/versions/%d/graph?focus=scrooge", nv.ID); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
		t.Errorf("status %d to %q, want %q", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	g, err := a.App.Graphs.Load(t.Context(), nv.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := curate.Resolve(g, "scrooge"); n.Properties["age"] != 70.0 {
		t.Errorf("property not set: %+v", n)
	}
	// An edge added by the target's name is logged with its key.
	if resp := post(url.Values{"op": {"add_edge"}, "source": {"marley"}, "label": {"haunts"}, "target": {"Scrooge"}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("add edge: status %d", resp.StatusCode)
	}
	if nv, _ := a.App.Versions.ByLabel(t.Context(), "carol", 0); len(nv.Edits) != 1 || nv.Edits[0].Target != "scrooge" || nv.Edges != 3 {
		t.Errorf("edge added by name: %+v, %d edges", nv.Edits, nv.Edges)
	}
	// A bad form edit goes back to the same version's graph with the
	// reason, and saves nothing.
	before, _ := a.App.Versions.ByLabel(t.Context(), "carol", 0)
	resp = post(url.Values{"op": {"rename"}, "key": {"scrooge"}, "name": {"  "}})
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Location"), fmt.Sprintf("/versions/%d/graph", v.ID)) {
		t.Fatalf("a bad form edit: status %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if msg, _ := flashOf(t, a, resp); !strings.Contains(msg, "Not saved: edit 1 (rename): a node needs a name") {
		t.Errorf("a bad form edit says %q", msg)
	}
	if after, _ := a.App.Versions.ByLabel(t.Context(), "carol", 0); after.ID != before.ID {
		t.Errorf("a bad form edit made %s", after.Label())
	}
}

// In the browser, a curator works through the Duplicates page (merges the
// first pair, marks the next not the same), then renames a node in the
// merged version's side panel: the new version's graph opens focused on
// it with the new name, and the version it came from still shows the old.
func TestCuration_Browser(t *testing.T) {
	t.Parallel()
	bctx := MustChrome(t)
	a := MustApp(t)
	v := a.MustGraphVersion(t, "carol", "Ebenezer Scrooge and Jacob Marley.", extract.Graph{
		Nodes: []extract.Node{
			{Key: "ebenezer scrooge", Name: "Ebenezer Scrooge", Type: "person"},
			{Key: "mr. scrooge", Name: "Mr. Scrooge", Type: "person"},
			{Key: "jacob marley", Name: "Jacob Marley", Type: "person"},
			{Key: "marley", Name: "Marley", Type: "person"},
		},
		Edges: []extract.Edge{
			{Source: "ebenezer scrooge", Label: "partner", Target: "jacob marley", Weight: 1},
			{Source: "mr. scrooge", Label: "mourns", Target: "marley", Weight: 1},
		},
	})
	step := func(actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	// pollAcross polls expr through a navigation that may cut a poll short.
	pollAcross := func(expr string) {
		t.Helper()
		testkit.Eventually(t, 10*time.Second, func() error {
			err := pollTrue(bctx, expr)
			if err != nil && !strings.Contains(err.Error(), "navigated") && !strings.Contains(err.Error(), "context with specified id") {
				t.Fatal(err)
			}
			return err
		})
	}

	// Duplicates: merge the first pair, keep the next apart.
	step(chromedp.Navigate(fmt.Sprintf("%s/versions/%d/duplicates", a.Server.URL, v.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="merge"]`)))
	if k, d := text(`[data-testid="keep-name"]`), text(`[data-testid="drop-name"]`); k != "Ebenezer Scrooge" || d != "Mr. Scrooge" {
		t.Fatalf("first pair %q and %q", k, d)
	}
	step(chromedp.Click(chromedp.CSS(`[data-testid="merge"]`)))
	pollAcross(`location.pathname !== "/versions/` + fmt.Sprint(v.ID) + `/duplicates" && !!document.querySelector('[data-testid=distinct]')`)
	if k, d := text(`[data-testid="keep-name"]`), text(`[data-testid="drop-name"]`); k != "Jacob Marley" || d != "Marley" {
		t.Fatalf("pair after the merge %q and %q", k, d)
	}
	step(chromedp.Click(chromedp.CSS(`[data-testid="distinct"]`)))
	pollAcross(`!!document.querySelector('[data-testid=duplicates-empty]')`)
	merged, err := a.App.Versions.ByLabel(t.Context(), "carol", 2)
	if err != nil || merged.ParentID != v.ID || merged.Nodes != 3 {
		t.Fatalf("merged version %+v, %v", merged, err)
	}
	if d, err := a.App.Curation.DecisionsOf(t.Context(), v); err != nil || !d.IsDistinct("jacob marley", "marley") || len(d.Merges) != 1 {
		t.Errorf("decisions %+v, %v", d, err)
	}

	// Edit: rename the kept node in the side panel of the merged version.
	panelName := `(document.querySelector('[data-testid=node-panel] [data-testid=node-name]')||{}).textContent`
	step(chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph?focus=%s", a.Server.URL, merged.ID, url.QueryEscape("ebenezer scrooge"))))
	pollAcross(panelName + ` === "Ebenezer Scrooge"`)
	// The edit forms come first in the panel, above its edges and mentions.
	editFirst, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`(() => {
		const q = id => document.querySelector('[data-testid=node-panel] [data-testid=' + id + ']');
		const e = q('node-edit'), d = q('node-description'), m = q('node-mentions');
		return !!e && !!m && e.getBoundingClientRect().bottom <= m.getBoundingClientRect().top &&
			(!d || e.getBoundingClientRect().top < d.getBoundingClientRect().top);
	})()`))
	if err != nil || !editFirst {
		t.Errorf("the edit forms are not first in the node panel (%v)", err)
	}
	step(chromedp.Click(chromedp.CSS(`[data-testid="node-edit"] summary`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="edit-name"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="edit-name"]`), "Scrooge"),
		chromedp.Click(chromedp.CSS(`[data-testid="edit-rename"]`)))
	pollAcross(`location.pathname !== "/versions/` + fmt.Sprint(merged.ID) + `/graph" && ` + panelName + ` === "Scrooge"`)
	if flash := text(`[data-testid="flash"]`); !strings.Contains(flash, `carol@3: edit of carol@2: rename ebenezer scrooge to "Scrooge"`) {
		t.Errorf("flash %q", flash)
	}
	edited, err := a.App.Versions.ByLabel(t.Context(), "carol", 3)
	if err != nil || edited.ParentID != merged.ID || len(edited.Edits) != 1 || edited.Nodes != 3 {
		t.Fatalf("edited version %+v, %v", edited, err)
	}
	// The merged version still shows the old name.
	step(chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph?focus=%s", a.Server.URL, merged.ID, url.QueryEscape("ebenezer scrooge"))))
	pollAcross(panelName + ` === "Ebenezer Scrooge"`)
}

// An imported version (no documents, no strategy) shows its page and graph
// and can be edited like any other.
func TestEdits_ImportedVersion(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	data := []byte(`{"nodes":[{"key":"scrooge","name":"Scrooge","type":"person"},{"key":"marley","name":"Marley","type":"person"}],
		"edges":[{"source":"scrooge","target":"marley","label":"partner","weight":1}]}`)
	v, err := a.App.Curation.ImportGraph(t.Context(), "imp", "carol.json", data, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", "/graph", "/nodes/scrooge", "/duplicates"} {
		resp, _ := a.Get(t, fmt.Sprintf("/versions/%d%s", v.ID, p))
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /versions/%d%s: %d", v.ID, p, resp.StatusCode)
		}
	}
	nv, err := a.App.Curation.Edit(t.Context(), v, []curate.Edit{{Op: curate.OpDeleteNode, Key: "marley"}})
	if err != nil {
		t.Fatal(err)
	}
	if nv.Nodes != 1 || nv.Edges != 0 || len(nv.DocumentIDs) != 0 {
		t.Errorf("edited import %+v", nv)
	}
}

// TestEdits_Vectors: an edit of a version with vectors makes the new
// version's own, so the renamed node is found by meaning there too; the
// edited version keeps its vectors.
func TestEdits_Vectors(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustExtract(t, "ada", "ada.txt", "Ada Lovelace worked with Charles Babbage in London. Babbage built the Analytical Engine.", extract.DefaultConfig())
	if e, err := a.App.Queries.Embedding(t.Context(), v.ID); e == nil || err != nil {
		t.Fatalf("the run made no vectors: %v", err)
	}
	body := `[{"op":"rename","key":"charles babbage","name":"Charles Babbage, inventor"}]`
	resp, err := http.Post(fmt.Sprintf("%s/api/versions/%d/edits", a.Server.URL, v.ID), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var nv app.VersionJSON
	if err := json.NewDecoder(resp.Body).Decode(&nv); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	st, err := a.App.Queries.Embedding(t.Context(), nv.ID)
	if st == nil || err != nil || st.Vectors == 0 {
		t.Fatalf("the edited version has no vectors: %+v %v", st, err)
	}
	if nv.Embedding == nil || nv.Embedding.Vectors != st.Vectors {
		t.Errorf("version JSON embedding %+v, stats %+v", nv.Embedding, st)
	}
	if e, _ := a.App.Queries.Embedding(t.Context(), v.ID); e == nil {
		t.Error("the edited version lost its vectors")
	}
}
