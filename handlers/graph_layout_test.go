package handlers_test

import (
	"context"
	"io/fs"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/static"
)

// evalScripts evaluates embedded static scripts in the browser's blank page.
func evalScripts(t *testing.T, ctx context.Context, paths ...string) {
	t.Helper()
	for _, p := range paths {
		src, err := fs.ReadFile(static.FS, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](string(src)+";0")); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
}

// TestGraphLayout_SameForcesAsForceAtlas2 runs the layout's iteration and
// graphology's ForceAtlas2 iteration (exact repulsion, the view's
// settings) side by side from the same start: the nodes must be at the same
// places, within single-precision rounding (graphology keeps float32s).
func TestGraphLayout_SameForcesAsForceAtlas2(t *testing.T) {
	ctx := MustChrome(t)
	evalScripts(t, ctx, "js/graph-fa2.js", "vendor/graphology-layout-forceatlas2-0.10.1/forceatlas2.min.js")
	type result struct{ Rel, Moved float64 }
	r, err := chromedp.Run(ctx, chromedp.Evaluate[result](`(function () {
  var n = 60, s = 3, es = [], et = [], deg = [], X = [], Y = [], i, e;
  function rnd() { s = (s * 16807) % 2147483647; return s / 2147483647; }
  for (i = 0; i < n; i++) deg.push(0);
  for (i = 1; i < n; i++) { var j = Math.floor(rnd() * i); es.push(i); et.push(j); deg[i]++; deg[j]++; }
  for (var k = 0; k < 40; k++) { var a = Math.floor(rnd() * n), b = Math.floor(rnd() * n); if (a !== b) { es.push(a); et.push(b); deg[a]++; deg[b]++; } }
  for (i = 0; i < n; i++) { X.push((rnd() - 0.5) * 100); Y.push((rnd() - 0.5) * 100); }
  var PPN = 10, PPE = 3, nodes = new Float32Array(n * PPN), edges = new Float32Array(es.length * PPE);
  for (i = 0; i < n; i++) { nodes[i * PPN] = X[i]; nodes[i * PPN + 1] = Y[i]; nodes[i * PPN + 6] = 1 + deg[i]; nodes[i * PPN + 7] = 1; nodes[i * PPN + 8] = 1; }
  for (e = 0; e < es.length; e++) { edges[e * PPE] = es[e] * PPN; edges[e * PPE + 1] = et[e] * PPN; edges[e * PPE + 2] = 1; }
  var settings = Object.assign({}, ForceAtlas2.defaults, { barnesHutOptimize: false, strongGravityMode: true,
    gravity: 0.05, scalingRatio: 10, slowDown: 1 + Math.log(n) });
  var lv = new KgLayout.forTest.Level(n, Uint32Array.from(es), Uint32Array.from(et), null, Float64Array.from(deg, function (d) { return 1 + d; }));
  lv.x.set(X); lv.y.set(Y);
  for (var it = 0; it < 10; it++) { ForceAtlas2.iterate(settings, nodes, edges); KgLayout.forTest.iterate(lv); }
  var diff = 0, extent = 0, moved = 0;
  for (i = 0; i < n; i++) {
    diff = Math.max(diff, Math.abs(nodes[i * PPN] - lv.x[i]), Math.abs(nodes[i * PPN + 1] - lv.y[i]));
    extent = Math.max(extent, Math.abs(lv.x[i]), Math.abs(lv.y[i]));
    moved = Math.max(moved, Math.hypot(lv.x[i] - X[i], lv.y[i] - Y[i]));
  }
  return { rel: diff / extent, moved: moved / extent };
})()`))
	if err != nil {
		t.Fatal(err)
	}
	// The nodes moved (a real comparison), and to the same places.
	if r.Moved < 0.01 || r.Rel > 1e-4 {
		t.Fatalf("after 10 iterations: largest difference %.2g of the extent (nodes moved up to %.2g of it)", r.Rel, r.Moved)
	}
}

// TestGraphLayout_MultilevelConverges lays out four communities of 700
// nodes (dense inside, a few edges between): the multilevel layout
// coarsens the graph, converges rather than running out of iterations, and
// draws each community apart from the others. The small cases: no nodes,
// one node, nodes without edges.
func TestGraphLayout_MultilevelConverges(t *testing.T) {
	ctx := MustChrome(t)
	evalScripts(t, ctx, "js/graph-fa2.js")
	type result struct {
		Levels, Iterations, Coarse int
		Converged, Finite          bool
		Spread                     float64 // the widest community's mean distance to its centre, over the closest two centres' distance
		Small                      []bool
	}
	r, err := chromedp.Run(ctx, chromedp.Evaluate[result](`(function () {
  var C = 4, size = 700, n = C * size, s = 11, edges = [], i, c;
  function rnd() { s = (s * 16807) % 2147483647; return s / 2147483647; }
  for (c = 0; c < C; c++) for (i = 0; i < size * 4; i++) {
    var a = c * size + Math.floor(rnd() * size), b = c * size + Math.floor(rnd() * size);
    if (a !== b) edges.push(a, b);
  }
  for (i = 0; i < 6; i++) edges.push(Math.floor(rnd() * n), Math.floor(rnd() * n));
  var x = new Float32Array(n), y = new Float32Array(n), mass = new Float32Array(n), spread = Math.sqrt(n) * 10;
  for (i = 0; i < n; i++) { x[i] = (rnd() - 0.5) * spread; y[i] = (rnd() - 0.5) * spread; }
  for (i = 0; i < edges.length; i++) mass[edges[i]]++;
  var L = KgLayout.create({ x: x, y: y, mass: mass, edges: Uint32Array.from(edges), multilevel: true });
  var xy = new Float32Array(2 * n), finite = true;
  while (!L.done) {
    L.step();
    L.positions(xy);
    for (i = 0; i < 2 * n; i += 97) finite = finite && isFinite(xy[i]);
  }
  L.positions(xy);
  var cx = [], cy = [], d = [];
  for (c = 0; c < C; c++) {
    var sx = 0, sy = 0;
    for (i = c * size; i < (c + 1) * size; i++) { sx += xy[2 * i]; sy += xy[2 * i + 1]; }
    cx.push(sx / size); cy.push(sy / size);
  }
  var widest = 0, closest = Infinity;
  for (c = 0; c < C; c++) {
    var m = 0;
    for (i = c * size; i < (c + 1) * size; i++) m += Math.hypot(xy[2 * i] - cx[c], xy[2 * i + 1] - cy[c]);
    widest = Math.max(widest, m / size);
    for (var o = 0; o < c; o++) closest = Math.min(closest, Math.hypot(cx[c] - cx[o], cy[c] - cy[o]));
  }
  function small(n, edges) {
    var x = new Float32Array(n), y = new Float32Array(n);
    for (var i = 0; i < n; i++) { x[i] = i % 7; y[i] = Math.floor(i / 7); }
    var L = KgLayout.create({ x: x, y: y, mass: new Float32Array(n), edges: new Uint32Array(edges), multilevel: true });
    for (var k = 0; k < 5000 && !L.done; k++) L.step();
    var xy = new Float32Array(2 * n); L.positions(xy);
    return L.done && (n < 2 || L.converged) && xy.every(isFinite);
  }
  return { levels: L.levels.length, iterations: L.iterations, coarse: L.coarseIterations, converged: L.converged,
    finite: finite && xy.every(isFinite), spread: widest / closest,
    small: [small(0, []), small(1, []), small(300, []), small(2, [0, 1])] };
})()`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d levels, %d iterations at the finest, %d on coarser graphs, spread %.2f", r.Levels, r.Iterations, r.Coarse, r.Spread)
	if r.Levels < 2 || r.Coarse == 0 {
		t.Fatalf("not multilevel: %+v", r)
	}
	if !r.Converged || !r.Finite {
		t.Fatalf("converged %v, positions finite %v", r.Converged, r.Finite)
	}
	if r.Spread > 0.5 {
		t.Fatalf("communities not drawn apart: the widest spreads %.2f of the distance between the closest two", r.Spread)
	}
	for i, ok := range r.Small {
		if !ok {
			t.Errorf("small case %d (no nodes, one node, 300 without edges, one edge) did not converge to finite places", i)
		}
	}
}
