package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The side panels of a dialogue's memory seen as of a date show the node
// or edge as it stood then: the focus's first value, the Boston home
// holding, Denver not known yet; a date they cannot read is refused.
func TestGraphPanels_AsOf(t *testing.T) {
	t.Parallel()
	a, v := movedVersion(t)
	base := fmt.Sprintf("/versions/%d", v.ID)
	const focus, profile = "/User/Status/CurrentFocus", "/User/Profile"
	node := func(key, asOf string) string { return base + "/nodes/" + url.PathEscape(key) + "?as_of=" + asOf }

	resp, march := a.Get(t, node(focus, "2023-03-01"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the focus as of March: status %d", resp.StatusCode)
	}
	if got := march.Find(`[data-testid=node-name]`).Text(); got != "Life in Boston" {
		t.Errorf("the focus as of March is %q; want the value it held then", got)
	}
	if got := march.Find(`[data-testid=node-asof]`).Text(); !strings.Contains(got, "As of 2023-03-01") {
		t.Errorf("the panel as of March says %q; want it to name the date", got)
	}
	times := march.Find(`[data-testid=node-times]`)
	if from, until := times.Find(`[data-testid=valid-from]`).Text(), times.Find(`[data-testid=valid-until]`).Text(); from != "2023-01-10" || until != "still held as of 2023-03-01" {
		t.Errorf("the focus as of March held from %q until %q", from, until)
	}
	if march.Find(`[data-testid=node-history]`).Length() != 0 {
		t.Error("the focus as of March lists earlier values; it had none then")
	}
	if march.Find(`[data-testid=node-edit]`).Length() != 0 || march.Find(`[data-testid=edit-now]`).Length() != 1 {
		t.Error("a panel as of a date offers the edit forms, which change the graph as it is now")
	}
	if _, now := a.Get(t, base+"/nodes/"+url.PathEscape(focus)); now.Find(`[data-testid=node-name]`).Text() != "Settling in Denver" ||
		now.Find(`[data-testid=node-asof]`).Length() != 0 || now.Find(`[data-testid=node-edit]`).Length() != 1 {
		t.Error("the focus's panel without a date is not the current value with its edit forms")
	}

	// The profile's edges as of March: the Boston home holds, Denver is
	// not yet there; as of July the Boston home has ended.
	edges := func(asOf string) (string, int) {
		t.Helper()
		_, doc := a.Get(t, node(profile, asOf))
		return doc.Find(`[data-testid=node-edges]`).Text(), doc.Find(`[data-testid=node-edge-ended]`).Length()
	}
	if text, ended := edges("2023-03-01"); !strings.Contains(text, "Boston") || strings.Contains(text, "Denver") || ended != 0 {
		t.Errorf("the profile's edges as of March: %q, %d ended; want the Boston home, holding", text, ended)
	}
	if text, ended := edges("2023-07-01"); !strings.Contains(text, "Denver") || ended != 1 {
		t.Errorf("the profile's edges as of July: %q, %d ended; want Denver and the ended Boston home", text, ended)
	}

	// The node API reads the same date and echoes it as given.
	var d struct {
		Name string `json:"name"`
		AsOf string `json:"as_of"`
	}
	a.MustGetJSON(t, "/api"+node(focus, "2023-03-01"), http.StatusOK, &d)
	if d.Name != "Life in Boston" || d.AsOf != "2023-03-01" {
		t.Errorf("the node API as of March: %+v", d)
	}

	// The Boston home as of March held, not yet ended; the Denver home
	// was not known yet.
	q := url.Values{"source": {profile}, "label": {"LIVES_IN"}, "target": {"/Knowledge/Place/City/Boston"}, "as_of": {"2023-03-01"}}
	resp, edge := a.Get(t, base+"/edge?"+q.Encode())
	if resp.StatusCode != http.StatusOK || edge.Find(`[data-testid=edge-expired]`).Length() != 0 ||
		edge.Find(`[data-testid=edge-times] [data-testid=valid-until]`).Text() != "still held as of 2023-03-01" ||
		!hasText(edge.Find(`[data-testid=edge-asof]`), "2023-03-01") || edge.Find(`[data-testid=edit-delete-edge]`).Length() != 0 {
		t.Errorf("the Boston home as of March (%d): %q", resp.StatusCode, edge.Find(`[data-testid=edge-panel]`).Text())
	}
	q.Set("as_of", "2023-07-01")
	if _, edge := a.Get(t, base+"/edge?"+q.Encode()); edge.Find(`[data-testid=edge-expired]`).Length() != 1 {
		t.Error("the Boston home as of July is not shown as ended")
	}

	for _, c := range []struct {
		path   string
		status int
	}{
		{node("/Knowledge/Place/City/Denver", "2023-03-01"), http.StatusNotFound},
		{base + "/edge?" + url.Values{"source": {profile}, "label": {"LIVES_IN"}, "target": {"/Knowledge/Place/City/Denver"}, "as_of": {"2023-03-01"}}.Encode(), http.StatusNotFound},
		{node(focus, "bad"), http.StatusBadRequest},
		{"/api" + node(focus, "bad"), http.StatusBadRequest},
		{base + "/edge?" + url.Values{"source": {profile}, "label": {"LIVES_IN"}, "target": {"/Knowledge/Place/City/Boston"}, "as_of": {"bad"}}.Encode(), http.StatusBadRequest},
	} {
		resp, err := http.Get(a.Server.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.path, resp.StatusCode, c.status)
		}
	}
}

// The graph page refuses an as-of date or an expired switch it cannot
// read, as the graph API does, instead of opening on the current graph.
func TestGraphPage_BadAsOf(t *testing.T) {
	t.Parallel()
	a, v := movedVersion(t)
	page := fmt.Sprintf("/versions/%d/graph", v.ID)
	for _, bad := range []string{"?as_of=bad", "?as_of=2023-13-45", "?expired=maybe"} {
		resp, doc := a.Get(t, page+bad)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", bad, resp.StatusCode)
		}
		if bad == "?as_of=bad" && !hasText(doc.Find("body"), `"bad" is not a date`) {
			t.Errorf("%s: the page says %q; want it to say the date is not one", bad, strings.TrimSpace(doc.Find("main").Text()))
		}
	}
	resp, doc := a.Get(t, page+"?as_of=2023-02-01&expired=1")
	var cfg struct {
		AsOf    string `json:"as_of"`
		Expired bool   `json:"expired"`
	}
	if err := json.Unmarshal([]byte(doc.Find("#graph-config").Text()), &cfg); resp.StatusCode != http.StatusOK || err != nil ||
		cfg.AsOf != "2023-02-01" || !cfg.Expired {
		t.Errorf("a good date: status %d, config %+v (%v)", resp.StatusCode, cfg, err)
	}
}

// The graph API echoes the as-of date as it was given, as the query API
// does.
func TestGraphAPI_AsOfEcho(t *testing.T) {
	t.Parallel()
	a, v := movedVersion(t)
	api := fmt.Sprintf("/api/versions/%d/graph", v.ID)
	for _, asOf := range []string{"2023-02-01", "2023-03-01T10:00:00Z"} {
		var res timedGraphJSON
		a.MustGetJSON(t, api+"?as_of="+url.QueryEscape(asOf), http.StatusOK, &res)
		if res.AsOf != asOf {
			t.Errorf("as_of=%s echoed as %q", asOf, res.AsOf)
		}
	}
	var now timedGraphJSON
	if a.MustGetJSON(t, api, http.StatusOK, &now); now.AsOf != "" {
		t.Errorf("now echoed as of %q", now.AsOf)
	}
}

// The header of the graph page of a graph that keeps times says its
// counts are of the whole graph and leaves room for the count at the
// date (a graph that keeps none says nothing of it).
func TestGraphPage_SummaryCounts(t *testing.T) {
	t.Parallel()
	a, v := movedVersion(t)
	_, doc := a.Get(t, fmt.Sprintf("/versions/%d/graph?as_of=2023-02-01", v.ID))
	sum := doc.Find(`[data-testid=graph-summary]`)
	if want := fmt.Sprintf("%d nodes, %d edges in all", v.Nodes, v.Edges); !strings.Contains(strings.Join(strings.Fields(sum.Text()), " "), want) ||
		sum.Find(`[data-testid=graph-summary-time]`).Length() != 1 {
		t.Errorf("the summary says %q; want %q and the count as of the date", sum.Text(), want)
	}
	plain := a.MustGraphVersion(t, "plain", "Alice knows Bob.", smallGraph())
	if _, doc := a.Get(t, fmt.Sprintf("/versions/%d/graph", plain.ID)); hasText(doc.Find(`[data-testid=graph-summary]`), "in all") {
		t.Error("a graph without times says its counts are of all times")
	}
}

// On the graph page as of a date, the header counts the nodes then beside
// those of the whole graph, and a node's side panel shows it as it stood
// then; moving the date to now reloads the open panel.
func TestGraphPage_AsOfPanelBrowser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a, v := movedVersion(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph?as_of=2023-03-01", a.Server.URL, v.ID))); err != nil {
		t.Fatal(err)
	}
	wait := func(expr, what string) {
		t.Helper()
		if err := pollTrue(ctx, expr); err != nil {
			side, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="graph-side"]`)))
			sum, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="graph-summary"]`)))
			t.Fatalf("%s: summary %q, panel %q: %v", what, sum, side, err)
		}
	}
	wait(`window.kgGraph && kgGraph.loaded`, "loaded")
	wait(`document.getElementById("graph-summary-time").textContent === "; " + kgGraph.nodeCount() + " nodes as of 2023-03-01" &&
		kgGraph.nodeCount() < `+fmt.Sprint(v.Nodes), "the count as of March")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`kgGraph.select("/User/Status/CurrentFocus")`)); err != nil {
		t.Fatal(err)
	}
	panel := `(function () { var n = document.querySelector("[data-testid=graph-side] [data-testid=node-name]"); return n ? n.textContent : "" })()`
	wait(panel+` === "Life in Boston" && document.querySelector("[data-testid=node-asof]") !== null`, "the focus's panel as of March")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function () { document.getElementById("graph-now").click(); return true })()`)); err != nil {
		t.Fatal(err)
	}
	wait(panel+` === "Settling in Denver" && document.querySelector("[data-testid=node-asof]") === null &&
		document.getElementById("graph-summary-time").textContent === "; " + kgGraph.nodeCount() + " nodes now"`, "the focus's panel now")
}
