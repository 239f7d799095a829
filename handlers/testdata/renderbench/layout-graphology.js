// The graph view's layout worker as it was before the multilevel layout
// (static/js/graph-fa2.js): graphology-layout-forceatlas2's iteration at one
// level from the page's random start. Kept for BenchmarkGraphRender, which
// measures the page with it ("page-graphology") and the sigma candidate.
// kgstudio graph layout worker: runs ForceAtlas2 (the vendored
// graphology-layout-forceatlas2 iteration) off the main thread until the
// layout has converged, and posts the positions back as it goes.
//
// Converged means the mean distance a node moves in one iteration has
// stayed below TOLERANCE times the layout's extent (the diagonal of its
// bounding box) for CALM iterations in a row: the layout stops because it
// no longer moves, not because time ran out. MAX_ITERATIONS only guards
// against a layout that never calms down; it then stops unconverged and
// says so.
//
// Given draw, it also draws each posted step of a big graph, fitted whole,
// on an OffscreenCanvas (static/js/graph-draw.js) and posts the frame, so
// that the page's main thread only shows it.
//
// In:  {type: "start", gen, x, y (Float32Array), mass (Float32Array),
//       edges (Uint32Array of source, target index pairs), libURL,
//       draw: null or {url, W, H, PR, palette, colorIndex, radius}}
//      {type: "frames", on: false}: stop drawing
//      {type: "stop"}
// Out: {type: "tick", gen, xy (Float32Array x0,y0,x1,y1,…), iterations,
//       energy, converged, done, and with draw: bitmap, cam}
/* global ForceAtlas2, kgDrawGraph, kgFitCamera */
"use strict";

var TOLERANCE = 5e-4;    // mean step per iteration, as a share of the extent
var CALM = 5;            // iterations in a row below TOLERANCE
var MAX_ITERATIONS = 3000;
var SLICE_MS = 40;       // iterate this long before posting positions
var PPN = 10, PPE = 3;   // the library's matrix strides (per node, per edge)

var run = null; // the layout in progress

self.onmessage = function (ev) {
  var m = ev.data;
  if (m.type === "stop") { run = null; return; }
  if (m.type === "frames") { if (run) run.draw = null; return; }
  if (m.type !== "start") return;
  if (typeof ForceAtlas2 === "undefined") importScripts(m.libURL);
  if (m.draw && typeof kgDrawGraph === "undefined") importScripts(m.draw.url);
  run = setup(m);
  run.draw = m.draw;
  if (m.draw) {
    run.canvas = new OffscreenCanvas(Math.max(1, Math.round(m.draw.W * m.draw.PR)), Math.max(1, Math.round(m.draw.H * m.draw.PR)));
    run.es = new Uint32Array(run.edges.length / PPE);
    run.et = new Uint32Array(run.edges.length / PPE);
    for (var i = 0; i < run.es.length; i++) {
      run.es[i] = run.edges[i * PPE] / PPN;
      run.et[i] = run.edges[i * PPE + 1] / PPN;
    }
  }
  setTimeout(step, 0);
};

// setup builds the library's node and edge matrices and its settings
// (those it infers for a graph of this order).
function setup(m) {
  var n = m.x.length, e = m.edges.length / 2;
  var nodes = new Float32Array(n * PPN), edges = new Float32Array(e * PPE);
  for (var i = 0; i < n; i++) {
    var j = i * PPN;
    nodes[j] = m.x[i];
    nodes[j + 1] = m.y[i];
    nodes[j + 6] = 1 + (m.mass ? m.mass[i] : 0); // mass: 1 + degree
    nodes[j + 7] = 1;                            // convergence
    nodes[j + 8] = 1;                            // size
  }
  for (i = 0; i < e; i++) {
    edges[i * PPE] = m.edges[2 * i] * PPN;
    edges[i * PPE + 1] = m.edges[2 * i + 1] * PPN;
    edges[i * PPE + 2] = 1;
  }
  var settings = Object.assign({}, ForceAtlas2.defaults, {
    barnesHutOptimize: n > 2000,
    barnesHutTheta: n > 5000 ? 1 : 0.5,
    strongGravityMode: true,
    gravity: 0.05,
    scalingRatio: 10,
    slowDown: 1 + Math.log(Math.max(n, 1))
  });
  return { gen: m.gen, n: n, nodes: nodes, edges: edges, settings: settings,
    prev: new Float32Array(2 * n), iterations: 0, calm: 0, energy: Infinity };
}

// step iterates for SLICE_MS, then posts the positions and yields so that
// a stop or a new start is read.
function step() {
  var r = run;
  if (!r) return;
  var t0 = performance.now(), converged = false;
  do {
    r.energy = iterate(r);
    r.iterations++;
    r.calm = r.energy < TOLERANCE ? r.calm + 1 : 0;
    converged = r.calm >= CALM;
  } while (!converged && r.iterations < MAX_ITERATIONS && performance.now() - t0 < SLICE_MS);
  var done = converged || r.iterations >= MAX_ITERATIONS || r.n === 0;
  var xy = new Float32Array(2 * r.n);
  for (var i = 0; i < r.n; i++) {
    xy[2 * i] = r.nodes[i * PPN];
    xy[2 * i + 1] = r.nodes[i * PPN + 1];
  }
  var msg = { type: "tick", gen: r.gen, xy: xy, iterations: r.iterations, energy: r.energy,
    converged: converged, done: done }, transfer = [xy.buffer];
  if (r.draw) {
    msg.cam = drawFrame(r);
    if (msg.cam) {
      msg.bitmap = r.canvas.transferToImageBitmap();
      transfer.push(msg.bitmap);
    }
  }
  self.postMessage(msg, transfer);
  if (done) { run = null; return; }
  setTimeout(step, 0);
}

// iterate runs one iteration and returns its energy: the mean distance a
// node moved, over the diagonal of the layout's bounding box.
function iterate(r) {
  var n = r.n, nodes = r.nodes, prev = r.prev, i, j;
  for (i = 0; i < n; i++) {
    prev[2 * i] = nodes[i * PPN];
    prev[2 * i + 1] = nodes[i * PPN + 1];
  }
  ForceAtlas2.iterate(r.settings, nodes, r.edges);
  var moved = 0, x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (i = 0; i < n; i++) {
    j = i * PPN;
    var x = nodes[j], y = nodes[j + 1];
    moved += Math.hypot(x - prev[2 * i], y - prev[2 * i + 1]);
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  var extent = Math.hypot(x1 - x0, y1 - y0);
  return n && extent > 0 ? moved / n / extent : 0;
}

// drawFrame draws the layout, fitted whole, and returns the camera used.
function drawFrame(r) {
  var d = r.draw, n = r.n, xs = new Float32Array(n), ys = new Float32Array(n);
  for (var i = 0; i < n; i++) {
    xs[i] = r.nodes[i * PPN];
    ys[i] = r.nodes[i * PPN + 1];
  }
  var cam = kgFitCamera(xs, ys, n, function () { return true; }, d.W, d.H);
  if (!cam) return null;
  kgDrawGraph(r.canvas.getContext("2d"), { xs: xs, ys: ys, es: r.es, et: r.et, cam: cam, W: d.W, H: d.H, PR: d.PR,
    shown: function () { return true; }, radius: function (i) { return d.radius[i]; },
    color: function (i) { return d.palette[d.colorIndex[i]]; }, arrows: false, selectedLink: -1 });
  return cam;
}
