package handlers_test

import (
	"math"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract"
)

// TestCompare_SharedLayout: side by side, every node of both versions is
// at the same place in its panel as in the other; and the union graph
// draws each node at the same place after a reload. A small union has
// every node named.
func TestCompare_SharedLayout(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	v1, v2 := mustTwoVersions(t, a)
	url := a.Server.URL + comparePath("/compare", v1.ID, v2.ID)

	type both struct {
		IDs    []string
		Union  map[string]*pagePoint
		A, B   map[string]*pagePoint
		Shared int
	}
	open := func() both {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
			t.Fatal(err)
		}
		if err := pollTrue(ctx, `window.kgCompare && window.kgCompare.counts().settled`); err != nil {
			t.Fatalf("the union graph did not settle: %v", err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`kgCompare.split(true), true`)); err != nil {
			t.Fatal(err)
		}
		if err := pollTrue(ctx, `kgCompare.settled()`); err != nil {
			t.Fatalf("the panels did not settle: %v", err)
		}
		b, err := chromedp.Run(ctx, chromedp.Evaluate[both](`(function () {
			var data = JSON.parse(document.getElementById("cmp-data").textContent), out = {IDs: [], Union: {}, A: {}, B: {}, Shared: 0};
			data.nodes.forEach(function (n) {
				out.IDs.push(n.id);
				out.A[n.id] = kgCompare.sidePoint("a", n.id);
				out.B[n.id] = kgCompare.sidePoint("b", n.id);
				if (out.A[n.id] && out.B[n.id]) out.Shared++;
			});
			kgCompare.split(false);
			data.nodes.forEach(function (n) { out.Union[n.id] = kgCompare.pointOf(n.id); });
			return out; })()`))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := open()
	if first.Shared == 0 || first.Shared == len(first.IDs) {
		t.Fatalf("%d of %d nodes in both panels: the test needs some in one version only", first.Shared, len(first.IDs))
	}
	for _, id := range first.IDs {
		p, q := first.A[id], first.B[id]
		if p == nil || q == nil {
			continue
		}
		if math.Hypot(p.X-q.X, p.Y-q.Y) > 0.5 {
			t.Errorf("node %q at %v in version a's panel, %v in b's", id, *p, *q)
		}
	}
	again := open()
	for _, id := range first.IDs {
		p, q := first.Union[id], again.Union[id]
		if p == nil || q == nil {
			t.Fatalf("node %q not drawn in the union graph", id)
		}
		if math.Hypot(p.X-q.X, p.Y-q.Y) > 0.5 {
			t.Errorf("node %q at %v in the union graph, after a reload at %v", id, *p, *q)
		}
	}

	t.Run("SmallAllNamed", func(t *testing.T) {
		g := smallGraph()
		s1 := a.MustGraphVersion(t, "small", "Alice knows Bob.", g)
		g.Nodes = append(g.Nodes, extract.Node{Key: "z", Name: "Zed", Type: "Person"})
		s2 := a.MustGraphVersion(t, "small", "Alice knows Bob.", g)
		if err := chromedp.Do(ctx, chromedp.Navigate(a.Server.URL+comparePath("/compare", s1.ID, s2.ID))); err != nil {
			t.Fatal(err)
		}
		if err := pollTrue(ctx, `window.kgCompare && window.kgCompare.counts().settled`); err != nil {
			t.Fatalf("the union graph did not settle: %v", err)
		}
		named, err := chromedp.Run(ctx, chromedp.Evaluate[int](`kgCompare.named().length`))
		if err != nil || named != len(g.Nodes) {
			t.Errorf("%d of %d nodes named (%v)", named, len(g.Nodes), err)
		}
	})
}
