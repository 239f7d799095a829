// kgstudio graph layout worker: runs the layout (static/js/graph-fa2.js:
// ForceAtlas2, multilevel for a fresh graph) off the main thread until it
// has converged, and posts the positions back as it goes. The layout stops
// because it no longer moves, not because time ran out (see graph-fa2.js).
//
// Given draw, it also draws each posted step of a big graph, fitted whole,
// on an OffscreenCanvas (static/js/graph-draw.js) and posts the frame, so
// that the page's main thread only shows it.
//
// In:  {type: "load", libURL, drawURL}: load the scripts ahead of a start
//      {type: "start", gen, x, y (Float32Array), mass (Float32Array),
//       edges (Uint32Array of source, target index pairs), multilevel,
//       still (draw the nodes where they are and run no layout),
//       libURL (graph-fa2.js), draw: null or {url, W, H, PR, palette,
//       colorIndex, radius, dashed (null or 1 per retired edge)}}
//      {type: "frames", on: false}: stop drawing
//      {type: "stop"}
// Out: {type: "tick", gen, xy (Float32Array x0,y0,x1,y1,…), iterations
//       (at the finest level), coarseIterations, energy, converged, done,
//       and with draw: bitmap, cam, drawMS (what drawing it took)}
/* global KgLayout, kgDrawGraph, kgFitCamera */
"use strict";

var SLICE_MS = 40;  // iterate this long before posting positions
var FRAME_MS = 150; // while drawing, post a frame at most this often,
var DRAW_SHARE = 5; // and after DRAW_SHARE times the last frame's drawing time

var run = null; // the layout in progress

self.onmessage = function (ev) {
  var m = ev.data;
  if (m.type === "stop") { run = null; return; }
  if (m.type === "frames") { if (run) run.draw = null; return; }
  if (m.type === "load") {
    load(m.libURL, m.drawURL);
    return;
  }
  if (m.type !== "start") return;
  load(m.libURL, m.draw && m.draw.url);
  var r = run = { gen: m.gen, n: m.x.length, draw: m.draw, layout: null };
  var xy = new Float32Array(2 * r.n);
  for (var i = 0; i < r.n; i++) {
    xy[2 * i] = m.x[i];
    xy[2 * i + 1] = m.y[i];
  }
  if (m.draw) {
    r.canvas = new OffscreenCanvas(Math.max(1, Math.round(m.draw.W * m.draw.PR)), Math.max(1, Math.round(m.draw.H * m.draw.PR)));
    r.es = new Uint32Array(m.edges.length / 2);
    r.et = new Uint32Array(m.edges.length / 2);
    for (i = 0; i < r.es.length; i++) {
      r.es[i] = m.edges[2 * i];
      r.et[i] = m.edges[2 * i + 1];
    }
    // The first frame shows the nodes where they start, before the layout
    // is built (coarsening a big graph takes a while); with still, where
    // they stay.
    post(r, xy, { iterations: 0, coarseIterations: 0, energy: m.still ? 0 : Infinity, converged: !!m.still, done: !!m.still });
    r.posted = performance.now();
  }
  if (m.still) {
    run = null;
    return;
  }
  setTimeout(function () {
    if (run !== r) return;
    r.layout = KgLayout.create({ x: m.x, y: m.y, mass: m.mass, edges: m.edges, multilevel: !!m.multilevel, pack: true });
    step();
  }, 0);
};

// load imports the layout and, given drawURL, the drawing code, once.
function load(libURL, drawURL) {
  if (typeof KgLayout === "undefined") importScripts(libURL);
  if (drawURL && typeof kgDrawGraph === "undefined") importScripts(drawURL);
}

// step iterates for SLICE_MS, then posts the positions and yields so that
// a stop or a new start is read.
function step() {
  var r = run;
  if (!r) return;
  var L = r.layout, t0 = performance.now();
  do L.step();
  while (!L.done && performance.now() - t0 < SLICE_MS);
  // Drawing a big graph costs as much as several iterations: draw a frame
  // only as often as the page shows one, and never spend more than a
  // DRAW_SHARE-th of the time drawing (a busy processor draws less often).
  if (r.draw && !L.done && r.posted && performance.now() - r.posted < Math.max(FRAME_MS, DRAW_SHARE * r.drawMS)) {
    setTimeout(step, 0);
    return;
  }
  r.posted = performance.now();
  var xy = new Float32Array(2 * r.n);
  L.positions(xy);
  post(r, xy, L);
  if (L.done) { run = null; return; }
  setTimeout(step, 0);
}

// post sends positions (and with draw, the frame drawn from them) and
// where the layout stands.
function post(r, xy, L) {
  var msg = { type: "tick", gen: r.gen, xy: xy, iterations: L.iterations, coarseIterations: L.coarseIterations,
    energy: L.energy, converged: L.converged, done: L.done }, transfer = [xy.buffer];
  if (r.draw) {
    var d0 = performance.now();
    msg.cam = drawFrame(r, xy);
    r.drawMS = msg.drawMS = performance.now() - d0;
    if (msg.cam) {
      msg.bitmap = r.canvas.transferToImageBitmap();
      transfer.push(msg.bitmap);
    }
  }
  self.postMessage(msg, transfer);
}

// drawFrame draws the layout, fitted whole, and returns the camera used.
function drawFrame(r, xy) {
  var d = r.draw, n = r.n, xs = new Float32Array(n), ys = new Float32Array(n);
  for (var i = 0; i < n; i++) {
    xs[i] = xy[2 * i];
    ys[i] = xy[2 * i + 1];
  }
  var cam = kgFitCamera(xs, ys, n, function () { return true; }, d.W, d.H);
  if (!cam) return null;
  kgDrawGraph(r.canvas.getContext("2d"), { xs: xs, ys: ys, es: r.es, et: r.et, cam: cam, W: d.W, H: d.H, PR: d.PR,
    shown: function () { return true; }, radius: function (i) { return d.radius[i]; },
    color: function (i) { return d.palette[d.colorIndex[i]]; }, arrows: false, selectedLink: -1, dashed: d.dashed });
  return cam;
}
