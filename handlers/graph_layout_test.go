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

// TestGraphLayout_PackedComponents lays out 1,800 nodes in 171 components
// (one of 600 nodes, 20 of 40, 100 of 4, 50 alone) with pack: each
// component is laid out alone, no two components' boxes overlap and they
// lie apart (rows, not a disc of components pushed against one another);
// the whole is about as wide as high.
func TestGraphLayout_PackedComponents(t *testing.T) {
	ctx := MustChrome(t)
	evalScripts(t, ctx, "js/graph-fa2.js")
	type result struct {
		Components, Overlaps int
		Converged, Finite    bool
		Aspect, Fill, MS     float64
		Apart                float64 // the closest two components' boxes, in mean edge lengths
	}
	r, err := chromedp.Run(ctx, chromedp.Evaluate[result](`(function () {
  var sizes = [600], s = 5, edges = [], comp = [], i, c;
  for (i = 0; i < 20; i++) sizes.push(40);
  for (i = 0; i < 100; i++) sizes.push(4);
  for (i = 0; i < 50; i++) sizes.push(1);
  function rnd() { s = (s * 16807) % 2147483647; return s / 2147483647; }
  var n = 0;
  sizes.forEach(function (size, c) {
    for (i = 0; i < size; i++) comp.push(c);
    for (i = 1; i < size; i++) edges.push(n + i, n + Math.floor(rnd() * i));
    for (i = 0; i < size; i++) { var a = n + Math.floor(rnd() * size), b = n + Math.floor(rnd() * size); if (a !== b) edges.push(a, b); }
    n += size;
  });
  var x = new Float32Array(n), y = new Float32Array(n), mass = new Float32Array(n), spread = Math.sqrt(n) * 10;
  for (i = 0; i < n; i++) { x[i] = (rnd() - 0.5) * spread; y[i] = (rnd() - 0.5) * spread; }
  for (i = 0; i < edges.length; i++) mass[edges[i]]++;
  var t0 = performance.now();
  var L = KgLayout.create({ x: x, y: y, mass: mass, edges: Uint32Array.from(edges), multilevel: true, pack: true });
  while (!L.done) L.step();
  var xy = new Float32Array(2 * n);
  L.positions(xy);
  var ms = performance.now() - t0;
  var box = sizes.map(function () { return [Infinity, Infinity, -Infinity, -Infinity]; });
  for (i = 0; i < n; i++) {
    var b = box[comp[i]];
    b[0] = Math.min(b[0], xy[2 * i]); b[1] = Math.min(b[1], xy[2 * i + 1]);
    b[2] = Math.max(b[2], xy[2 * i]); b[3] = Math.max(b[3], xy[2 * i + 1]);
  }
  var overlaps = 0, all = [Infinity, Infinity, -Infinity, -Infinity], area = 0, apart = Infinity, len = 0;
  for (i = 0; i < edges.length; i += 2) len += Math.hypot(xy[2 * edges[i]] - xy[2 * edges[i + 1]], xy[2 * edges[i] + 1] - xy[2 * edges[i + 1] + 1]);
  len /= edges.length / 2;
  for (c = 0; c < box.length; c++) {
    var p = box[c];
    area += (p[2] - p[0]) * (p[3] - p[1]);
    all = [Math.min(all[0], p[0]), Math.min(all[1], p[1]), Math.max(all[2], p[2]), Math.max(all[3], p[3])];
    for (var o = 0; o < c; o++) {
      var q = box[o];
      if (p[0] <= q[2] && p[2] >= q[0] && p[1] <= q[3] && p[3] >= q[1]) overlaps++;
      apart = Math.min(apart, Math.max(q[0] - p[2], p[0] - q[2], q[1] - p[3], p[1] - q[3]));
    }
  }
  return { components: L.components, overlaps: overlaps, converged: L.converged, finite: xy.every(isFinite),
    aspect: (all[2] - all[0]) / (all[3] - all[1]), fill: area / ((all[2] - all[0]) * (all[3] - all[1])), apart: apart / len, ms: ms };
})()`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d components laid out and packed in %.0f ms, width/height %.2f, their boxes fill %.2f of the whole and are %.2f mean edge lengths apart at least",
		r.Components, r.MS, r.Aspect, r.Fill, r.Apart)
	if r.Components != 171 || !r.Converged || !r.Finite {
		t.Fatalf("components %d, converged %v, finite %v", r.Components, r.Converged, r.Finite)
	}
	if r.Overlaps > 0 {
		t.Fatalf("%d pairs of components overlap", r.Overlaps)
	}
	// Left to repel one another, the components lie in a disc 0.23 mean
	// edge lengths apart at the closest; packed, 2.
	if r.Apart < 1.5 {
		t.Fatalf("two components are %.2f mean edge lengths apart", r.Apart)
	}
	if r.Aspect < 0.5 || r.Aspect > 3 {
		t.Fatalf("the packed components are %.2f times as wide as high", r.Aspect)
	}
}
