package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
)

// movedDialogue is a user who lives in Boston in a January session and
// has moved to Denver by a June one; movedRules answers each turn as a
// model would: the home (LIVES_IN, which holds one place at a time) and
// the user's focus (a slot whose value changes).
const movedDialogue = `{"title": "Moves", "sessions": [
 {"id": "s1", "start": "2023-01-10", "turns": [
  {"role": "user", "text": "I live in Boston now."},
  {"role": "assistant", "text": "Boston is lovely in spring."}]},
 {"id": "s2", "start": "2023-06-01", "turns": [
  {"role": "user", "text": "I moved to Denver last week."},
  {"role": "assistant", "text": "Denver has great hiking."}]}]}`

func movedRules() []fakellm.Rule {
	home := func(city, focus string) string {
		return `{"add_node": [{"node_id": "/Knowledge/Place/City/` + city + `", "node_details": {"label": "` + city + `", "description": "A city."}}],
 "update_node": [{"node_id": "/User/Status/CurrentFocus", "node_details": {"label": "` + focus + `", "description": "` + focus + ` is on the user's mind."}}],
 "add_relation": [{"source_node_id": "/User/Profile", "target_node_id": "/Knowledge/Place/City/` + city + `", "relation_details": {"label": "LIVES_IN"}}]}`
	}
	return []fakellm.Rule{
		{Contains: "moved to Denver", Text: home("Denver", "Settling in Denver")},
		{Contains: "live in Boston", Text: home("Boston", "Life in Boston")},
	}
}

// movedVersion runs movedDialogue through the app with a fake model.
func movedVersion(t *testing.T) (*testApp, record.Version) {
	t.Helper()
	fake := fakellm.New(t, fakellm.Options{Rules: movedRules()})
	a := MustAppWith(t, geminiProviders(fake))
	d := dlgDoc(t, a, "moves.json", []byte(movedDialogue))
	return a, dlgRun(t, a, dlgVersion(t, a, "moves", dialogueConfig(), d))
}

// timedGraphJSON mirrors the graph API's answer for a graph that keeps
// fact times.
type timedGraphJSON struct {
	extract.Subgraph
	Dates         []string `json:"dates"`
	AsOf          string   `json:"as_of"`
	ExpiredHidden int      `json:"expired_hidden"`
}

// homes lists the LIVES_IN edges of an answer by target city, "!" after
// an expired one.
func homes(res timedGraphJSON) []string {
	var out []string
	for _, e := range res.Edges {
		if e.Label == "LIVES_IN" {
			city := e.Target[strings.LastIndex(e.Target, "/")+1:]
			if e.Expired {
				city += "!"
			}
			out = append(out, city)
		}
	}
	slices.Sort(out)
	return out
}

func nodeName(res timedGraphJSON, key string) (string, bool) {
	for _, n := range res.Nodes {
		if n.ID == key {
			return n.Name, true
		}
	}
	return "", false
}

// The graph API of a dialogue's memory shows the facts that hold now by
// default, the ones that ended on demand (marked, with when and why), and
// the graph as it stood at a date; a date it cannot read is refused.
func TestGraphAPI_FactTimes(t *testing.T) {
	t.Parallel()
	a, v := movedVersion(t)
	api := fmt.Sprintf("/api/versions/%d/graph", v.ID)
	get := func(query string) timedGraphJSON {
		t.Helper()
		var res timedGraphJSON
		a.MustGetJSON(t, api+query, http.StatusOK, &res)
		return res
	}
	const focus = "/User/Status/CurrentFocus"

	now := get("")
	if got := homes(now); !slices.Equal(got, []string{"Denver"}) || now.ExpiredHidden != 1 {
		t.Errorf("now: homes %v, %d expired hidden; want Denver only, the Boston home hidden", got, now.ExpiredHidden)
	}
	if name, _ := nodeName(now, focus); name != "Settling in Denver" {
		t.Errorf("now the focus is %q", name)
	}
	if !slices.Equal(now.Dates, []string{"2023-01-10", "2023-06-01"}) {
		t.Errorf("dates %v; want the two sessions' days", now.Dates)
	}

	all := get("?expired=1")
	if got := homes(all); !slices.Equal(got, []string{"Boston!", "Denver"}) {
		t.Errorf("expired=1: homes %v; want Boston marked expired beside Denver", got)
	}
	for _, e := range all.Edges {
		if e.Expired && (e.InvalidAt != "2023-06-01" || !strings.Contains(e.Reason, "Denver")) {
			t.Errorf("the expired edge says it ended %q because %q", e.InvalidAt, e.Reason)
		}
	}

	march := get("?as_of=2023-03-01")
	if got := homes(march); !slices.Equal(got, []string{"Boston"}) {
		t.Errorf("as of March: homes %v; want Boston, holding then", got)
	}
	if name, _ := nodeName(march, focus); name != "Life in Boston" {
		t.Errorf("as of March the focus is %q; want its first value", name)
	}
	if _, ok := nodeName(march, "/Knowledge/Place/City/Denver"); ok {
		t.Error("as of March Denver was not known yet")
	}
	if march.AsOf == "" || march.ExpiredHidden != 0 {
		t.Errorf("as of March: as_of %q, %d expired hidden", march.AsOf, march.ExpiredHidden)
	}
	if got := homes(get("?as_of=2023-07-01&expired=1")); !slices.Equal(got, []string{"Boston!", "Denver"}) {
		t.Errorf("as of July with expired: homes %v; want the ended Boston home marked", got)
	}
	if got := homes(get("?as_of=2023-06-01")); !slices.Equal(got, []string{"Denver"}) {
		t.Errorf("as of the day of the move: homes %v; a date covers the whole day", got)
	}
	// Filters apply to the graph as it stood: a search, a focus.
	if res := get("?as_of=2023-03-01&q=life"); len(res.Nodes) != 1 || res.Nodes[0].Name != "Life in Boston" {
		t.Errorf("searching life as of March: %+v; want the focus's first value", res.Nodes)
	}
	if res := get("?q=life"); len(res.Nodes) != 0 {
		t.Errorf("searching life now: %+v; the focus has another value now", res.Nodes)
	}
	if res := get("?focus=" + url.QueryEscape("/User/Profile") + "&depth=1"); !slices.Equal(homes(res), []string{"Denver"}) {
		t.Errorf("the profile's neighbourhood now: homes %v", homes(res))
	}

	for _, bad := range []string{"?as_of=last+spring", "?as_of=2023-13-45", "?expired=maybe"} {
		resp, err := http.Get(a.Server.URL + api + bad)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || body.Error == "" {
			t.Errorf("%s: status %d, error %q; want 400 with a message", bad, resp.StatusCode, body.Error)
		}
	}
	resp, err := http.Get(a.Server.URL + api + "?as_of=soon")
	if err == nil {
		var body struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if !strings.Contains(body.Error, `"soon"`) || !strings.Contains(body.Error, "YYYY-MM-DD") {
			t.Errorf("a bad as_of says %q; want it to name the date and the format", body.Error)
		}
	}
}

// The side panels of a dialogue's memory say when facts held: an ended
// edge when and why it ended, a node its earlier values.
func TestGraphPanels_FactTimes(t *testing.T) {
	t.Parallel()
	a, v := movedVersion(t)
	base := fmt.Sprintf("/versions/%d", v.ID)

	_, page := a.Get(t, base+"/graph")
	if page.Find(`[data-testid=graph-asof]`).Length() != 1 || page.Find(`[data-testid=graph-expired]`).Length() != 1 {
		t.Error("the graph page of a dialogue has no As of date or expired switch")
	}
	var cfg struct {
		Times bool `json:"times"`
	}
	if err := json.Unmarshal([]byte(page.Find("#graph-config").Text()), &cfg); err != nil || !cfg.Times {
		t.Errorf("graph config times=%v (%v)", cfg.Times, err)
	}

	q := url.Values{"source": {"/User/Profile"}, "label": {"LIVES_IN"}, "target": {"/Knowledge/Place/City/Boston"}}
	_, edge := a.Get(t, base+"/edge?"+q.Encode())
	if edge.Find(`[data-testid=edge-expired]`).Length() != 1 {
		t.Error("the Boston home's panel does not say it expired")
	}
	times := edge.Find(`[data-testid=edge-times]`)
	if got := times.Find(`[data-testid=valid-from]`).Text(); got != "2023-01-10" {
		t.Errorf("the Boston home held from %q", got)
	}
	if got := times.Find(`[data-testid=valid-until]`).Text(); got != "2023-06-01" {
		t.Errorf("the Boston home ended %q", got)
	}
	if got := times.Find(`[data-testid=ended-reason]`).Text(); !strings.Contains(got, "Denver") {
		t.Errorf("the Boston home ended because %q", got)
	}
	q.Set("target", "/Knowledge/Place/City/Denver")
	_, cur := a.Get(t, base+"/edge?"+q.Encode())
	if cur.Find(`[data-testid=edge-expired]`).Length() != 0 || cur.Find(`[data-testid=edge-times] [data-testid=valid-until]`).Text() != "still holds" {
		t.Error("the Denver home is shown as ended")
	}

	_, node := a.Get(t, base+"/nodes/"+url.PathEscape("/User/Status/CurrentFocus"))
	if got := node.Find(`[data-testid=node-times] [data-testid=valid-from]`).Text(); got != "2023-06-01" {
		t.Errorf("the focus holds from %q", got)
	}
	rev := node.Find(`[data-testid=node-history] [data-testid=node-revision]`)
	if rev.Length() != 1 || !hasText(rev, "Life in Boston") || rev.Find(`[data-testid=revision-span]`).Text() != "2023-01-10 → 2023-06-01" ||
		!hasText(rev.Find(`[data-testid=revision-reason]`), "update_node") {
		t.Errorf("the focus's earlier values: %q", rev.Text())
	}
	if hasText(node.Find(`[data-testid=node-detail-properties]`), "Life in Boston") {
		t.Error("the history is listed twice (also among the details)")
	}
	_, profile := a.Get(t, base+"/nodes/"+url.PathEscape("/User/Profile"))
	ended := profile.Find(`[data-testid=node-edge-ended]`)
	if ended.Length() != 1 || !hasText(ended, "2023-06-01") {
		t.Errorf("the profile's edges mark %d as ended: %q", ended.Length(), ended.Text())
	}

	// A graph that keeps no times shows no time controls and answers as
	// it always did.
	plain := a.MustGraphVersion(t, "plain", "Alice knows Bob.", smallGraph())
	if _, page := a.Get(t, fmt.Sprintf("/versions/%d/graph", plain.ID)); page.Find(`[data-testid=graph-time]`).Length() != 0 {
		t.Error("a graph without times shows the time controls")
	}
	var res timedGraphJSON
	a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d/graph", plain.ID), http.StatusOK, &res)
	if len(res.Nodes) != len(smallGraph().Nodes) || res.Dates != nil {
		t.Errorf("a graph without times: %d nodes, dates %v", len(res.Nodes), res.Dates)
	}
}

// An imported graph that carries fact times is read as the memory is: the
// edge a later fact retired is left out unless asked for.
func TestGraphAPI_ImportedFactTimes(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	g := extract.Graph{
		Nodes: []extract.Node{{Key: "ann", Name: "Ann", Type: "Person"}, {Key: "acme", Name: "Acme", Type: "Organization"},
			{Key: "initech", Name: "Initech", Type: "Organization"}},
		Edges: []extract.Edge{
			{Source: "ann", Target: "acme", Label: "WORKS_AT", Weight: 1, Properties: map[string]any{
				extract.PropValidAt: "2020-01-01", extract.PropInvalidAt: "2022-05-01", extract.PropExpired: true, "reason": "joined Initech"}},
			{Source: "ann", Target: "initech", Label: "WORKS_AT", Weight: 1, Properties: map[string]any{extract.PropValidAt: "2022-05-01"}},
		},
	}
	data, _ := json.Marshal(g)
	resp, body := postGraph(t, a, "/api/extractions/import", "jobs", "jobs.json", "", data)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("import: %d %s", resp.StatusCode, body)
	}
	var got struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	api := fmt.Sprintf("/api/versions/%d/graph", got.ID)
	targets := func(query string) []string {
		var res timedGraphJSON
		a.MustGetJSON(t, api+query, http.StatusOK, &res)
		var out []string
		for _, e := range res.Edges {
			out = append(out, e.Target+map[bool]string{true: "!"}[e.Expired])
		}
		slices.Sort(out)
		return out
	}
	if got := targets(""); !slices.Equal(got, []string{"initech"}) {
		t.Errorf("now: edges to %v; want Initech only", got)
	}
	if got := targets("?expired=1"); !slices.Equal(got, []string{"acme!", "initech"}) {
		t.Errorf("expired=1: edges to %v; want Acme marked expired", got)
	}
	if got := targets("?as_of=2021-06-30"); !slices.Equal(got, []string{"acme"}) {
		t.Errorf("as of 2021: edges to %v; want Acme, holding then", got)
	}
}

// On the graph page of a dialogue's memory, the expired switch draws the
// ended home (marked) and the date slider rolls the graph back.
func TestGraphPage_FactTimesBrowser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a, v := movedVersion(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph", a.Server.URL, v.ID))); err != nil {
		t.Fatal(err)
	}
	homes := `kgGraph.links().filter(function (l) { return l.label === "LIVES_IN"; })
		.map(function (l) { return l.target.split("/").pop() + (l.expired ? "!" : ""); }).sort().join(",")`
	wait := func(expr, what string) {
		t.Helper()
		if err := pollTrue(ctx, expr); err != nil {
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](homes))
			status, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="graph-status"]`)))
			t.Fatalf("%s: homes %q, status %q: %v", what, got, status, err)
		}
	}
	wait(`window.kgGraph && kgGraph.loaded && `+homes+` === "Denver"`, "now")
	if status, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="graph-status"]`))); !strings.Contains(status, "1 expired fact hidden") {
		t.Errorf("status %q; want it to say an expired fact is hidden", status)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="graph-expired"]`))); err != nil {
		t.Fatal(err)
	}
	wait(homes+` === "Boston!,Denver"`, "with expired facts")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function () {
		var r = document.getElementById("graph-asof-range"); r.value = 0;
		r.dispatchEvent(new Event("input", {bubbles: true})); return true })()`)); err != nil {
		t.Fatal(err)
	}
	wait(homes+` === "Boston" && document.getElementById("graph-asof").value === "2023-01-10"`, "as of the first day")
}
