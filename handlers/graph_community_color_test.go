package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
)

// TestGraphPage_ColourByCommunity: three cliques of one type are drawn in
// one colour by type; coloured by community, each clique takes a colour
// of its own, the same for all its members, and the legend lists the
// three communities by title and hides one on a click.
func TestGraphPage_ColourByCommunity(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	groups := [][]string{{"Ada", "Alan", "Grace", "Edsger"}, {"Marie", "Pierre", "Irene", "Frederic"}, {"Sappho", "Homer", "Hesiod", "Pindar"}}
	v := a.MustGraphVersion(t, "cliques", "communities", cliques(groups...))

	var members app.CommunityMembersJSON
	a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d/communities/members", v.ID), http.StatusOK, &members)
	if len(members.Communities) != 3 || len(members.Members) != 12 {
		t.Fatalf("members API: %+v", members)
	}
	if code := getJSON(t, a, fmt.Sprintf("/api/versions/%d/communities/members?level=9", v.ID), nil); code != http.StatusBadRequest {
		t.Errorf("level 9: status %d", code)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph", a.Server.URL, v.ID))); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgGraph && window.kgGraph.loaded && window.kgGraph.nodeCount() === 12`); err != nil {
		t.Fatal(err)
	}
	colours := func() [][]string {
		t.Helper()
		out := make([][]string, len(groups))
		for i, g := range groups {
			for _, name := range g {
				c, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.kgGraph.nodeColor(`+mustJSON(strings.ToLower(name))+`)`))
				if err != nil {
					t.Fatal(err)
				}
				out[i] = append(out[i], c)
			}
		}
		return out
	}
	byType := colours()
	if byType[0][0] != byType[1][0] || byType[1][0] != byType[2][0] {
		t.Fatalf("by type, the cliques of one type differ: %v", byType)
	}
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`[data-testid="graph-color"]`), "community"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("graph-color").dispatchEvent(new Event("change"))`)); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgGraph.colorBy() === "community" && window.kgGraph.communityOf("ada") !== undefined`); err != nil {
		t.Fatal(err)
	}
	byComm := colours()
	seen := map[string]int{}
	for i, cs := range byComm {
		for _, c := range cs {
			if c != cs[0] {
				t.Errorf("clique %d in several colours: %v", i, cs)
			}
		}
		if j, ok := seen[cs[0]]; ok {
			t.Errorf("cliques %d and %d share the colour %s", j, i, cs[0])
		}
		seen[cs[0]] = i
	}
	legend, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('[data-testid="legend-community"]')].map(b => b.textContent)`))
	if err != nil || len(legend) != 3 {
		t.Fatalf("legend %q (%v)", legend, err)
	}
	for _, g := range groups {
		found := false
		for _, l := range legend {
			for _, name := range g {
				found = found || strings.Contains(l, name)
			}
		}
		if !found {
			t.Errorf("no legend entry names a member of %v: %q", g, legend)
		}
	}
	note, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="graph-legend-note"]`)))
	if err != nil || !strings.Contains(note, "community") {
		t.Errorf("legend note %q (%v)", note, err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="legend-community"]`), chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `document.getElementById("graph-status").textContent.indexOf("Showing 8 of 12 nodes") >= 0`); err != nil {
		st, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="graph-status"]`)))
		t.Fatalf("after hiding a community: %q (%v)", st, err)
	}
}

// TestGraphPage_ColourByCommunityView: a big graph opened on its
// communities with ?color=community draws each community node in a
// colour of its own, and the members of one it opens in its colour.
func TestGraphPage_ColourByCommunityView(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	v := a.MustGraphVersion(t, "mid", "synthetic", synthetic(1800, 3600))
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph?color=community", a.Server.URL, v.ID))); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgGraph && window.kgGraph.loaded && window.kgGraph.nodes().length > 1 &&
		window.kgGraph.communityOf(window.kgGraph.nodes()[0].id) !== undefined`); err != nil {
		t.Fatal(err)
	}
	type drawn struct {
		IDs     []string
		Colours []string
		Legend  int
	}
	d, err := chromedp.Run(ctx, chromedp.Evaluate[drawn](`(function(){ var ns = window.kgGraph.nodes();
		return {IDs: ns.map(n => n.id), Colours: ns.map(n => window.kgGraph.nodeColor(n.id)),
			Legend: document.querySelectorAll('[data-testid="legend-community"]').length}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for i, c := range d.Colours {
		if !strings.HasPrefix(d.IDs[i], "community:") {
			t.Fatalf("not the community view: %s", d.IDs[i])
		}
		if other, ok := seen[c]; ok {
			t.Fatalf("%s and %s share the colour %s", other, d.IDs[i], c)
		}
		seen[c] = d.IDs[i]
	}
	if d.Legend != min(len(d.IDs), 40) {
		t.Errorf("legend lists %d communities of %d drawn", d.Legend, len(d.IDs))
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.kgGraph.select(`+mustJSON(d.IDs[0])+`)`)); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgGraph.nodes().length > 0 && window.kgGraph.nodes()[0].id.indexOf("community:") < 0`); err != nil {
		t.Fatal(err)
	}
	members, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.kgGraph.nodes().map(n => window.kgGraph.nodeColor(n.id))`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range members {
		if c != d.Colours[0] {
			t.Fatalf("a member of %s in %s, the community in %s", d.IDs[0], c, d.Colours[0])
		}
	}
}
