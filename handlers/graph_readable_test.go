package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// readableDocs reads n encyclopedia articles of unrelated subjects
// (Re-DocRED's first documents, in testdata) as texts.
func readableDocs(tb testing.TB, n int) []string {
	var docs []struct {
		Title string     `json:"title"`
		Sents [][]string `json:"sents"`
	}
	if err := json.Unmarshal(testkit.Read(tb, "gold/redocred_dev_first10.json"), &docs); err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, d := range docs[:n] {
		var b strings.Builder
		for _, s := range d.Sents {
			b.WriteString(strings.Join(s, " "))
			b.WriteString("\n")
		}
		out = append(out, b.String())
	}
	return out
}

// The graph of several unrelated articles, as the page first draws it:
// no two drawn labels overlap, the drawing fills the canvas's width,
// nodes without edges take little of it, and each article's own nodes
// (mentioned in it alone) sit in a region of their own: nearer their
// article's centroid than any other article's.
func TestGraphPage_Readable(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	id, docOf := runReadableArticles(t, a)
	waitLayout(t, a, id)
	s := drawReadableGraph(t, ctx, a, id)
	overlaps, labels := readableLabelOverlaps(s.Nodes)
	x0, x1 := math.Inf(1), math.Inf(-1)
	isoY0, isoY1, iso := math.Inf(1), math.Inf(-1), 0
	for _, p := range s.Nodes {
		x0, x1 = math.Min(x0, p.X), math.Max(x1, p.X)
		if p.Deg == 0 {
			iso++
			isoY0, isoY1 = math.Min(isoY0, p.Y), math.Max(isoY1, p.Y)
		}
	}
	isoShare := 0.0
	if iso > 0 {
		isoShare = (isoY1 - isoY0 + 10) / s.H
	}
	right, all := readableNearestOwnCentroid(t, s.Nodes, docOf)
	t.Logf("labels %d, overlapping pairs %d; width filled %.2f; %d isolated over %.2f of the height; %d of %d single-article nodes nearest their article's centroid",
		labels, overlaps, (x1-x0)/s.W, iso, isoShare, right, all)
	if overlaps > 0 {
		t.Errorf("%d pairs of drawn labels overlap", overlaps)
	}
	if (x1-x0)/s.W < 0.85 {
		t.Errorf("the drawing spans %.2f of the canvas's width", (x1-x0)/s.W)
	}
	if isoShare > 0.10 {
		t.Errorf("nodes without edges span %.2f of the canvas's height", isoShare)
	}
	if float64(right) < 0.9*float64(all) {
		t.Errorf("%d of %d single-article nodes lie nearest their article's centroid", right, all)
	}
}

// runReadableArticles checks ten articles are added and extracted in one run, and returns the version's id and each single-article node's document.
func runReadableArticles(t *testing.T, a *testApp) (int, map[string]int) {
	t.Helper()
	texts := readableDocs(t, 10)
	bg := context.Background()
	var ids []int
	for i, text := range texts {
		d, err := extract.ReadDocument(fmt.Sprintf("article%d.txt", i), []byte(text), extract.DefaultMaxBytes)
		if err != nil {
			t.Fatal(err)
		}
		d, _, err = a.AddDocument(bg, d)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	v, _, err := a.App.Runs.NewRun(bg, app.RunRequest{Extraction: "articles", Config: extract.DefaultConfig(), DocumentIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.App.Runs.Run(bg, v, nil); err != nil {
		t.Fatal(err)
	}
	g, err := a.App.Graphs.Load(bg, v.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	docOf := map[string]int{}
	for _, n := range g.Nodes {
		doc := -1
		for _, m := range n.Mentions {
			if doc >= 0 && m.DocumentID != doc {
				doc = -2
				break
			}
			doc = m.DocumentID
		}
		if doc >= 0 {
			docOf[n.Key] = doc
		}
	}
	return v.ID, docOf
}

// readableBox is a drawn label's bounding box.
type readableBox struct{ X0, Y0, X1, Y1 float64 }

// readableNode is a node as the graph page draws it, with its degree.
type readableNode struct {
	Key   string       `json:"key"`
	X     float64      `json:"x"`
	Y     float64      `json:"y"`
	Label *readableBox `json:"label"`
	Deg   int          `json:"deg"`
}

// readableDrawing is the canvas's size and the nodes drawn on it.
type readableDrawing struct {
	W, H  float64
	Nodes []readableNode
}

// drawReadableGraph checks the graph page of version id draws its stored layout, and returns what it drew.
func drawReadableGraph(t *testing.T, ctx context.Context, a *testApp, id int) readableDrawing {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(a.Server.URL+fmt.Sprintf("/versions/%d/graph", id))); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgstudioGraph && window.kgGraph.loaded && window.kgstudioGraph.settled`); err != nil {
		t.Fatal(err)
	}
	if stored, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`kgstudioGraph.stored`)); err != nil || !stored {
		t.Fatalf("the page did not draw the stored layout (%v)", err)
	}
	s, err := chromedp.Run(ctx, chromedp.Evaluate[readableDrawing](`(() => { const c = document.querySelector("#graph canvas, canvas");
		const deg = {}; kgGraph.nodes().forEach(n => deg[n.id] = n.degree);
		return {w: c.clientWidth, h: c.clientHeight, nodes: kgstudioGraph.nodes().map(n => Object.assign(n, {deg: deg[n.key] || 0}))}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d nodes drawn on %.0fx%.0f", len(s.Nodes), s.W, s.H)
	if dir := screenshotDir(); dir != "" {
		if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "graph-readable.png"), png, 0o644)
		}
	}
	return s
}

// readableLabelOverlaps counts the pairs of drawn labels that overlap, and the drawn labels.
func readableLabelOverlaps(nodes []readableNode) (overlaps, labels int) {
	for i, p := range nodes {
		if p.Label == nil {
			continue
		}
		labels++
		for _, q := range nodes[:i] {
			if q.Label != nil && p.Label.X0 < q.Label.X1 && q.Label.X0 < p.Label.X1 && p.Label.Y0 < q.Label.Y1 && q.Label.Y0 < p.Label.Y1 {
				overlaps++
			}
		}
	}
	return overlaps, labels
}

// readableNearestOwnCentroid counts the connected single-article nodes nearest their own article's centroid, and all of them, logging the others.
func readableNearestOwnCentroid(t *testing.T, nodes []readableNode, docOf map[string]int) (right, all int) {
	t.Helper()
	cx, cy, cn := map[int]float64{}, map[int]float64{}, map[int]float64{}
	for _, p := range nodes {
		if d, ok := docOf[p.Key]; ok && p.Deg > 0 {
			cx[d] += p.X
			cy[d] += p.Y
			cn[d]++
		}
	}
	for d := range cn {
		cx[d] /= cn[d]
		cy[d] /= cn[d]
	}
	for _, p := range nodes {
		d, ok := docOf[p.Key]
		if !ok || p.Deg == 0 {
			continue
		}
		all++
		best, bd := -1, math.Inf(1)
		for e := range cn {
			if dist := math.Hypot(p.X-cx[e], p.Y-cy[e]); dist < bd {
				best, bd = e, dist
			}
		}
		if best == d {
			right++
		} else {
			t.Logf("%q of article %d lies nearest article %d's centroid", p.Key, d, best)
		}
	}
	return right, all
}
