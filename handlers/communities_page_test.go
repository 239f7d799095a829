package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract"
)

// The communities page lists every community of a level with its title,
// size and report, links every level, and each community's link opens
// the graph on its members.
func TestCommunities_Page(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustExtract(t, "carol", "carol.txt", mustSampleText(t), extract.DefaultConfig())
	var api struct {
		Levels      int `json:"levels"`
		Communities []struct {
			ID    int    `json:"id"`
			Size  int    `json:"size"`
			Title string `json:"title"`
		} `json:"communities"`
	}
	a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d/communities", v.ID), http.StatusOK, &api)
	if api.Levels == 0 || len(api.Communities) == 0 {
		t.Fatalf("the sample has no communities: %+v", api)
	}
	_, doc := a.Get(t, fmt.Sprintf("/versions/%d/communities", v.ID))
	sections := doc.Find(`[data-testid="community"]`)
	if sections.Length() != len(api.Communities) {
		t.Fatalf("%d communities listed, the API has %d", sections.Length(), len(api.Communities))
	}
	first := sections.First()
	if !strings.Contains(first.Find("h2").Text(), api.Communities[0].Title) || !strings.Contains(first.Find("h2").Text(), fmt.Sprint(api.Communities[0].Size)) {
		t.Errorf("first community: %q; want %q with %d members", first.Find("h2").Text(), api.Communities[0].Title, api.Communities[0].Size)
	}
	if href, _ := first.Find(`[data-testid="community-graph"]`).Attr("href"); href != fmt.Sprintf("/versions/%d/graph?community=%d", v.ID, api.Communities[0].ID) {
		t.Errorf("graph link %q", href)
	}
	if n := doc.Find(`[data-testid="community-levels"] a, [data-testid="community-levels"] strong`).Length(); n != api.Levels {
		t.Errorf("%d level links for %d levels", n, api.Levels)
	}
	if _, vp := a.Get(t, fmt.Sprintf("/versions/%d", v.ID)); vp.Find(`[data-testid="communities-link"]`).Length() != 1 {
		t.Error("no Communities link on the version page")
	}
	if resp, _ := http.Get(fmt.Sprintf("%s/versions/%d/communities?level=99", a.Server.URL, v.ID)); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a level past the last: %d", resp.StatusCode)
	}
}

// Opened from the communities page, the graph draws the community's
// members.
func TestCommunities_GraphBrowser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	v := a.MustExtract(t, "carol", "carol.txt", mustSampleText(t), extract.DefaultConfig())
	var api struct {
		Communities []struct {
			ID   int `json:"id"`
			Size int `json:"size"`
		} `json:"communities"`
	}
	a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d/communities", v.ID), http.StatusOK, &api)
	if len(api.Communities) == 0 {
		t.Fatal("no communities")
	}
	c := api.Communities[0]
	var members extract.Subgraph
	a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d/graph?community=%d", v.ID, c.ID), http.StatusOK, &members)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph?community=%d", a.Server.URL, v.ID, c.ID))); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgGraph && window.kgGraph.loaded && window.kgGraph.settled`); err != nil {
		t.Fatal(err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`kgGraph.nodeCount()`))
	if err != nil || n != len(members.Nodes) || n == 0 {
		t.Errorf("the graph draws %d nodes; the community's members are %d (%v)", n, len(members.Nodes), err)
	}
	status, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="graph-status"]`)))
	if !strings.Contains(status, fmt.Sprintf("community %d", c.ID)) {
		t.Errorf("status %q", status)
	}
}

// A legend of more entries than fit folds the rest behind "+N more",
// which shows them and folds them again.
func TestGraphPage_LegendFolds(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	var g extract.Graph
	for i := range 14 {
		key := fmt.Sprintf("n%d", i)
		g.Nodes = append(g.Nodes, extract.Node{Key: key, Name: fmt.Sprintf("Node %d", i), Type: fmt.Sprintf("Type%02d", i)})
		if i > 0 {
			g.Edges = append(g.Edges, extract.Edge{Source: "n0", Target: key, Label: "links", Weight: 1})
		}
	}
	v := a.MustGraphVersion(t, "types", "Many types.", g)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph", a.Server.URL, v.ID))); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgGraph && window.kgGraph.loaded`); err != nil {
		t.Fatal(err)
	}
	type legend struct {
		Shown int
		More  string
	}
	read := func() legend {
		t.Helper()
		l, err := chromedp.Run(ctx, chromedp.Evaluate[legend](`({
			Shown: Array.from(document.querySelectorAll('[data-testid=graph-legend] button[data-type]')).filter(function (b) { return !b.hidden; }).length,
			More: (document.querySelector('[data-testid=graph-legend] .legend-more') || {}).textContent || ""})`))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if l := read(); l.Shown != 10 || l.More != "+4 more" {
		t.Fatalf("folded legend: %+v", l)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="graph-legend"] .legend-more`))); err != nil {
		t.Fatal(err)
	}
	if l := read(); l.Shown != 14 || l.More != "fewer" {
		t.Fatalf("unfolded legend: %+v", l)
	}
}

// Edge labels say what an edge is: the generic related_to is not
// written, the specific labels are.
func TestGraphPage_NoGenericEdgeLabels(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	g := extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "Ada", Type: "Person"}, {Key: "b", Name: "Babbage", Type: "Person"}, {Key: "c", Name: "London", Type: "Location"}},
		Edges: []extract.Edge{{Source: "a", Target: "b", Label: "related_to", Weight: 1}, {Source: "a", Target: "c", Label: "lived_in", Weight: 1}}}
	v := a.MustGraphVersion(t, "labels", "Ada.", g)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph", a.Server.URL, v.ID))); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgGraph && window.kgGraph.settled`); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`kgGraph.moveView(0, 0, 2)`)); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `kgGraph.edgeLabels === 1`); err != nil {
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`kgGraph.edgeLabels`))
		t.Fatalf("%d edge labels drawn; want lived_in alone", n)
	}
}

// Coloured by community, a node's panel names its community with a link
// to its report on the communities page.
func TestGraphPage_NodeCommunityLink(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	v := a.MustExtract(t, "carol", "carol.txt", mustSampleText(t), extract.DefaultConfig())
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph?color=community", a.Server.URL, v.ID))); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgGraph && kgGraph.loaded && kgGraph.colorBy() === "community" && kgGraph.nodes().some(function (n) { return kgGraph.communityOf(n.id) >= 0; })`); err != nil {
		t.Fatal(err)
	}
	// The best-connected node.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`kgGraph.select(kgGraph.nodes().slice().sort(function (a, b) { return b.degree - a.degree; })[0].id, "nomove")`)); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `!!document.querySelector('[data-testid=node-community] a')`); err != nil {
		t.Fatal(err)
	}
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=node-community] a').getAttribute('href')`))
	if err != nil {
		t.Fatal(err)
	}
	path, anchor, ok := strings.Cut(href, "#")
	if !ok || path != fmt.Sprintf("/versions/%d/communities", v.ID) || !strings.HasPrefix(anchor, "community-") {
		t.Fatalf("community link %q", href)
	}
	_, doc := a.Get(t, path)
	if doc.Find("#"+anchor).Length() != 1 {
		t.Errorf("the communities page has no #%s", anchor)
	}
}
