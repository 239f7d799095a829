package handlers_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
)

// xss is planted as a name, a type, a label and a description. Were it
// parsed as HTML anywhere, an img[src=x] element would appear (and, without
// the CSP, set window.__xss).
const xss = `<img src=x onerror="window.__xss=1">`

// TestXSS_Browser plants markup through a CSV table, a dialogue (speaker
// and the model's memory operations) and a model's tuple output, then
// opens the graph, compare, timeline, query and node pages in Chromium,
// hovers the planted nodes so their tooltips show, and checks the markup
// is shown as text and nothing ran.
func TestXSS_Browser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	s := newXSSSite(t)
	recordCSP(t, ctx)
	p := xssPage{ctx: ctx, a: s.a}

	for _, v := range []record.Version{s.v1, s.vt} {
		key := plantedKey(t, s.a, v)
		t.Run("Graph-"+v.Extraction, func(t *testing.T) { p.checkGraph(t, v, key) })
		t.Run("NodePage-"+v.Extraction, func(t *testing.T) {
			p.nav(t, fmt.Sprintf("/versions/%d/nodes/%s", v.ID, url.PathEscape(key)))
			p.safe(t, "node page", true)
		})
	}

	t.Run("Compare", func(t *testing.T) { p.checkCompare(t, s.v1, s.v2) })

	t.Run("Timeline", func(t *testing.T) {
		p.nav(t, fmt.Sprintf("/versions/%d/timeline", s.vd.ID))
		if err := pollTrue(ctx, `window.kgTimeline && kgTimeline.settled`); err != nil {
			t.Fatal(err)
		}
		p.safe(t, "timeline", true)
		p.hover(t, `kgTimeline.pointOf("Mallory")`)
		p.safe(t, "timeline tooltip", true)
	})

	t.Run("OtherPages", func(t *testing.T) {
		// The pages without planted text run under the policy too.
		for _, path := range []string{"/", "/documents", "/extractions", "/extractions/new", "/schemas", "/schemas/new",
			fmt.Sprintf("/versions/%d", s.v1.ID), fmt.Sprintf("/documents/%d", s.v1.DocumentIDs[0])} {
			p.nav(t, path)
			p.safe(t, path, false)
		}
	})

	t.Run("Query", func(t *testing.T) { p.checkQuery(t, s.fake, s.vt) })
}

// xssSite is an application with markup planted through each way in, and
// the model server that answers it.
type xssSite struct {
	a    *testApp
	fake *fakellm.Server
	// v1 and v2 are CSV versions, vt a tuple-strategy version and vd a
	// dialogue version.
	v1, v2, vt, vd record.Version
}

// newXSSSite plants the markup through CSV, tuple and dialogue runs and checks every run finished.
func newXSSSite(t *testing.T) xssSite {
	t.Helper()
	ops := `{"add_node": [{"node_id": "/Knowledge/Person/Friends/Mallory", "node_details": {"label": ` + mustJSON(xss+" Mallory") +
		`, "description": ` + mustJSON(xss) + `}}], "update_node": [], "add_relation": [{"source_node_id": "/User", "target_node_id": "/Knowledge/Person/Friends/Mallory", "relation_details": {"label": ` + mustJSON(xss) + `}}]}`
	fake := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "Question:", Text: "The answer is " + xss + " [E1]."},
		{Contains: "Ada met Mallory", Text: "entity<|#|>" + xss + " Mallory<|#|>person<|#|>" + xss + "\nentity<|#|>Ada<|#|>person<|#|>A mathematician.\n" +
			"relation<|#|>Ada<|#|>" + xss + " Mallory<|#|>met<|#|>" + xss + "\n<|COMPLETE|>"},
		{Text: ops},
	}})
	providers := geminiProviders(fake)
	providers.Timeout = 10 * time.Second
	a := MustAppWith(t, providers)

	// CSV: two versions for the compare page.
	csvCfg := extract.DefaultConfig()
	v1 := a.MustExtract(t, "xss-csv", "People.csv", "id,name\n1,"+`"`+strings.ReplaceAll(xss, `"`, `""`)+` Mallory"`+"\n2,Ada Lovelace\n", csvCfg)
	v2 := a.MustExtract(t, "xss-csv", "People2.csv", "id,name\n1,"+`"`+strings.ReplaceAll(xss, `"`, `""`)+` Mallory"`+"\n3,Charles Babbage\n", csvCfg)
	// Model output through the tuple strategy.
	tupleCfg := extract.DefaultConfig()
	tupleCfg.Strategy, tupleCfg.Provider = extract.StrategyTuple, "gemini"
	vt := a.MustExtract(t, "xss-tuple", "ada.txt", "Ada met Mallory in London.", tupleCfg)
	// A dialogue whose speaker is markup, through the dialogue strategy.
	dlg := `{"title": "t", "sessions": [{"id": "s1", "start": "2024-01-02", "turns": [` +
		`{"speaker": ` + mustJSON(xss) + `, "role": "user", "text": "I met Mallory at the club."},` +
		`{"speaker": "Assistant", "role": "assistant", "text": "Nice."}]}]}`
	vd := dlgRun(t, a, dlgVersion(t, a, "xss-dialogue", dialogueConfig(), dlgDoc(t, a, "chat.json", []byte(dlg))))
	for _, v := range []record.Version{v1, v2, vt, vd} {
		if v.Status != record.StatusDone {
			t.Fatalf("%s: %s %s", v.Label(), v.Status, v.Error)
		}
	}
	return xssSite{a: a, fake: fake, v1: v1, v2: v2, vt: vt, vd: vd}
}

// recordCSP makes every page opened in ctx record what the Content-Security-Policy blocked.
func recordCSP(t *testing.T, ctx context.Context) {
	t.Helper()
	// Every page records what the Content-Security-Policy blocked: a page of
	// ours must need nothing it forbids.
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		return tg.Call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]string{"source": `window.__csp = [];
			document.addEventListener("securitypolicyviolation", function (e) { window.__csp.push(e.violatedDirective + " " + e.blockedURI + " " + (e.sample || "")); });`}, nil)
	}))
	if err != nil {
		t.Fatal(err)
	}
}

// plantedKey returns the key of the node of v whose name holds the planted markup, failing if there is none.
func plantedKey(t *testing.T, a *testApp, v record.Version) string {
	t.Helper()
	var g extract.Subgraph
	a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d/graph", v.ID), 200, &g)
	key := ""
	for _, n := range g.Nodes {
		if strings.Contains(n.Name, "<img") {
			key = n.ID
		}
	}
	if key == "" {
		t.Fatalf("%s: no planted node in %+v", v.Label(), g.Nodes)
	}
	return key
}

// xssPage drives the browser in ctx over a's server.
type xssPage struct {
	ctx context.Context
	a   *testApp
}

// safe checks nothing was parsed as HTML or ran, and that the planted
// text is on the page or in the tooltip as text.
func (p xssPage) safe(t *testing.T, page string, wantText bool) {
	t.Helper()
	type result struct {
		Ran, Imgs  int
		Text, Tips bool
		CSP        []string
	}
	r, err := chromedp.Run(p.ctx, chromedp.Evaluate[result](`({
		ran: window.__xss ? 1 : 0,
		csp: window.__csp || ["no recorder"],
		imgs: document.querySelectorAll('img[src="x"]').length,
		text: document.body.innerText.indexOf('<img src=x') >= 0,
		tips: Array.from(document.querySelectorAll('.float-tooltip-kap, .graph-tip:not([hidden])')).some(function (t) { return t.textContent.indexOf('<img src=x') >= 0 })})`))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	if r.Ran != 0 || r.Imgs != 0 {
		t.Errorf("%s: planted markup became HTML (%d img elements, ran %d)", page, r.Imgs, r.Ran)
	}
	if len(r.CSP) != 0 {
		t.Errorf("%s: the CSP blocked %q", page, r.CSP)
	}
	if wantText && !r.Text && !r.Tips {
		t.Errorf("%s: the planted text is not shown as text", page)
	}
}

// hover checks moving the pointer to the point that expr returns shows the planted node's tooltip.
func (p xssPage) hover(t *testing.T, expr string) {
	t.Helper()
	type point struct{ X, Y float64 }
	pt, err := chromedp.Run(p.ctx, chromedp.Evaluate[*point](expr))
	if err != nil || pt == nil {
		t.Fatalf("no point from %s: %v", expr, err)
	}
	if err := chromedp.Do(p.ctx, chromedp.MouseEvent(chromedp.MouseMoved, pt.X, pt.Y)); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(p.ctx, `Array.from(document.querySelectorAll('.float-tooltip-kap, .graph-tip:not([hidden])')).some(function (t) { return t.style.display !== 'none' && t.textContent.indexOf('Mallory') >= 0 })`); err != nil {
		dbg, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(function(){var e=document.elementFromPoint(`+fmt.Sprint(pt.X)+`,`+fmt.Sprint(pt.Y)+`); return (e?e.outerHTML.slice(0,200):"none")+" | "+Array.from(document.querySelectorAll('.float-tooltip-kap, .graph-tip:not([hidden])')).map(function(t){return t.outerHTML.slice(0,300)}).join(" ; ")+" | "+window.innerHeight})()`))
		t.Fatalf("no tooltip of the planted node at %+v: %v\n%s", pt, err, dbg)
	}
}

// nav checks the browser opens path on the server.
func (p xssPage) nav(t *testing.T, path string) {
	t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(p.a.Server.URL+path)); err != nil {
		t.Fatal(err)
	}
}

// checkGraph checks v's graph page, its tooltip of the planted node key and the node panel show the markup as text.
func (p xssPage) checkGraph(t *testing.T, v record.Version, key string) {
	t.Helper()
	p.nav(t, fmt.Sprintf("/versions/%d/graph", v.ID))
	if err := pollTrue(p.ctx, `window.kgGraph && kgGraph.settled`); err != nil {
		t.Fatal(err)
	}
	p.hover(t, `kgGraph.pointOf(`+mustJSON(key)+`)`)
	p.safe(t, "graph", true)
	// The node panel (clicking loads it into the side panel).
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`(kgGraph.select(`+mustJSON(key)+`), true)`)); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(p.ctx, `document.querySelector('[data-testid=node-panel]') !== null`); err != nil {
		t.Fatal(err)
	}
	p.safe(t, "node panel", true)
}

// checkCompare checks the compare page of v1 and v2, its tooltip and its detail of the planted node show the markup as text.
func (p xssPage) checkCompare(t *testing.T, v1, v2 record.Version) {
	t.Helper()
	p.nav(t, fmt.Sprintf("/compare?a=%d&b=%d", v1.ID, v2.ID))
	if err := pollTrue(p.ctx, `window.kgCompare && kgCompare.counts().settled`); err != nil {
		t.Fatal(err)
	}
	p.safe(t, "compare", true)
	id, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.parse(document.getElementById('cmp-data').textContent).nodes.find(function (n) { return n.name.indexOf('<img') >= 0 }).id`))
	if err != nil {
		t.Fatal(err)
	}
	p.hover(t, `(document.getElementById('cmp-union').scrollIntoView({block: 'center'}), kgCompare.pointOf(`+mustJSON(id)+`))`)
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`(kgCompare.select(`+mustJSON(id)+`), true)`)); err != nil {
		t.Fatal(err)
	}
	p.safe(t, "compare detail", true)
}

// checkQuery checks vt's query page and the answer the Ask button fetches from the model show the markup as text.
func (p xssPage) checkQuery(t *testing.T, fake *fakellm.Server, vt record.Version) {
	t.Helper()
	p.nav(t, fmt.Sprintf("/versions/%d/query?q=%s", vt.ID, url.QueryEscape("Who is Mallory?")))
	p.safe(t, "query (GET)", true)
	before := fake.Count()
	// Ask: the form posts from the page itself (same origin).
	// The GET page already holds the extractive answer: the page is
	// marked, and the answer waited for is the next page's.
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.body.setAttribute("data-before-ask", "1"), true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(`[data-testid="query-form"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`body:not([data-before-ask]) [data-testid="answer-text"]`))); err != nil {
		t.Fatal(err)
	}
	if fake.Count() == before {
		t.Error("the Ask button made no model call")
	}
	p.safe(t, "query answer", true)
}
