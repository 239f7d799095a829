package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract"
)

type pagePoint struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// graphPoints opens a version's graph page, waits for the layout to settle
// and returns every node's place on the page.
func graphPoints(t *testing.T, ctx context.Context, url string, keys []string) map[string]pagePoint {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgGraph && window.kgGraph.settled`); err != nil {
		t.Fatalf("layout never settled: %v", err)
	}
	pts, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]pagePoint](`(function (keys) {
		var out = {}; keys.forEach(function (k) { out[k] = kgGraph.pointOf(k); }); return out; })(`+mustJSON(keys)+`)`))
	if err != nil {
		t.Fatal(err)
	}
	return pts
}

// TestGraphPage_SeededPinnedLabelled: a reload draws every node at the same
// place; dragging a node moves it and not the view, and it stays where it
// was put while the layout runs again, until unpinned; on a small graph
// every node is named and the edges labelled once zoomed in; the
// components of a graph lie side by side.
func TestGraphPage_SeededPinnedLabelled(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	g := smallGraph()
	v := a.MustGraphVersion(t, "seeded", "Alice knows Bob.", g)
	var res extract.Subgraph
	a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d/graph", v.ID), http.StatusOK, &res)
	keys := ids(res)
	url := fmt.Sprintf("%s/versions/%d/graph", a.Server.URL, v.ID)

	first := graphPoints(t, ctx, url, keys)
	again := graphPoints(t, ctx, url, keys)
	for _, k := range keys {
		p, q := first[k], again[k]
		if math.Hypot(p.X-q.X, p.Y-q.Y) > 0.5 {
			t.Errorf("node %q at %v, after a reload at %v", k, p, q)
		}
	}

	t.Run("AllNamed", func(t *testing.T) {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`kgGraph.labels`))
		if err != nil || n != len(keys) {
			t.Fatalf("%d names drawn on a %d-node graph (%v)", n, len(keys), err)
		}
	})

	t.Run("EdgeLabelsCloser", func(t *testing.T) {
		// Zoomed in around the middle, the edges long enough get their label.
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`kgGraph.moveView(0, 0, 3)`)); err != nil {
			t.Fatal(err)
		}
		if err := pollTrue(ctx, `kgGraph.edgeLabels > 0`); err != nil {
			t.Fatalf("no edge label drawn zoomed in: %v", err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`kgGraph.moveView(0, 0, 1/3)`)); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("ComponentsApart", func(t *testing.T) {
		// "e" (Eve) has no edge: packed beside the rest, not inside it.
		type box struct{ X0, Y0, X1, Y1, EX, EY float64 }
		b, err := chromedp.Run(ctx, chromedp.Evaluate[box](`(function () {
			var b = {X0: 1e9, Y0: 1e9, X1: -1e9, Y1: -1e9};
			kgGraph.nodes().forEach(function (n) { if (n.id === "e") return; var p = kgGraph.layoutOf(n.id);
				b.X0 = Math.min(b.X0, p.x); b.X1 = Math.max(b.X1, p.x); b.Y0 = Math.min(b.Y0, p.y); b.Y1 = Math.max(b.Y1, p.y); });
			var e = kgGraph.layoutOf("e"); b.EX = e.x; b.EY = e.y; return b; })()`))
		if err != nil {
			t.Fatal(err)
		}
		if b.EX >= b.X0 && b.EX <= b.X1 && b.EY >= b.Y0 && b.EY <= b.Y1 {
			t.Fatalf("the lone node at (%.1f, %.1f) lies inside the other component's box %+v", b.EX, b.EY, b)
		}
	})

	t.Run("DragPins", func(t *testing.T) {
		at := checkDragPins(t, ctx, first)
		checkPinsAfterReload(t, ctx, url, keys, at)
	})
}

// checkDragPins checks dragging node c drops it where released and pins it without moving the view, and a new layout run leaves it there; it returns c's layout position.
func checkDragPins(t *testing.T, ctx context.Context, first map[string]pagePoint) pagePoint {
	t.Helper()
	from, other := first["c"], first["a"]
	to := pagePoint{from.X + 60, from.Y + 45}
	err := chromedp.Do(ctx,
		chromedp.MouseEvent(chromedp.MouseMoved, from.X, from.Y),
		chromedp.MouseEvent(chromedp.MousePressed, from.X, from.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseMoved, from.X+20, from.Y+15, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, to.X, to.Y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseReleased, to.X, to.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	if err != nil {
		t.Fatal(err)
	}
	type state struct {
		C, A   pagePoint
		Pinned []string
	}
	s, err := chromedp.Run(ctx, chromedp.Evaluate[state](`({C: kgGraph.pointOf("c"), A: kgGraph.pointOf("a"), Pinned: kgGraph.pinned()})`))
	if err != nil {
		t.Fatal(err)
	}
	if math.Hypot(s.C.X-to.X, s.C.Y-to.Y) > 1 {
		t.Errorf("the dragged node is at %v, dropped at %v", s.C, to)
	}
	if math.Hypot(s.A.X-other.X, s.A.Y-other.Y) > 0.5 {
		t.Errorf("the view moved: another node went from %v to %v", other, s.A)
	}
	if len(s.Pinned) != 1 || s.Pinned[0] != "c" {
		t.Fatalf("pinned %v, want [c]", s.Pinned)
	}
	// The layout runs again (as when a merge adds nodes): the pinned
	// node stays where it was put.
	at, err := chromedp.Run(ctx, chromedp.Evaluate[pagePoint](`kgGraph.layoutOf("c")`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`kgGraph.relayout(), kgGraph.settled`)); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `kgGraph.settled`); err != nil {
		t.Fatal(err)
	}
	after, err := chromedp.Run(ctx, chromedp.Evaluate[pagePoint](`kgGraph.layoutOf("c")`))
	if err != nil || after != at {
		t.Fatalf("the pinned node moved from %v to %v after the layout ran again (%v)", at, after, err)
	}
	return at
}

// checkPinsAfterReload checks a reload keeps c pinned at at with Unpin all shown, and Unpin all clears the pins for good.
func checkPinsAfterReload(t *testing.T, ctx context.Context, url string, keys []string, at pagePoint) {
	t.Helper()
	// A reload puts the pinned node back where it was put.
	graphPoints(t, ctx, url, keys)
	type reloaded struct {
		C      pagePoint
		Pinned []string
		Button bool
	}
	r, err := chromedp.Run(ctx, chromedp.Evaluate[reloaded](`({C: kgGraph.layoutOf("c"), Pinned: kgGraph.pinned(),
		Button: !document.getElementById("graph-unpin").hidden})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Pinned) != 1 || r.Pinned[0] != "c" || !r.Button || math.Hypot(r.C.X-at.X, r.C.Y-at.Y) > 1e-6 {
		t.Fatalf("after a reload: pinned %v (Unpin all shown: %t), c at %v, pinned at %v", r.Pinned, r.Button, r.C, at)
	}
	// Unpin all: the button empties the pins and shows no more, and a
	// reload has none.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="graph-unpin"]`))); err != nil {
		t.Fatal(err)
	}
	left, err := chromedp.Run(ctx, chromedp.Evaluate[int](`kgGraph.pinned().length + (document.getElementById("graph-unpin").hidden ? 0 : 10)`))
	if err != nil || left != 0 {
		t.Fatalf("after Unpin all: %d (%v)", left, err)
	}
	graphPoints(t, ctx, url, keys)
	if left, err := chromedp.Run(ctx, chromedp.Evaluate[int](`kgGraph.pinned().length`)); err != nil || left != 0 {
		t.Fatalf("after Unpin all and a reload: %d pinned (%v)", left, err)
	}
}
