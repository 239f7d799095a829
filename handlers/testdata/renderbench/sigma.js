// The graph view drawn with sigma.js 3.0.3 (WebGL) over graphology, kept as
// a candidate for BenchmarkGraphRender: the config comes from the URL, and
// the layout worker as it was then (graphology's ForceAtlas2 at one level,
// /bench/layout-graphology.js) with its library from /static (unhashed). Otherwise as
// the page was with sigma:
// kgstudio graph view: draws one extraction version with sigma.js (WebGL)
// over a graphology graph, laid out by ForceAtlas2 in a web worker
// (static/js/graph-layout.js) until the layout converges. Colour by type
// (the legend toggles types), size by degree, the names of the
// best-connected nodes (more as you zoom in), search, a side panel for
// nodes and edges, neighbourhood expansion, and a "load all" switch for
// graphs past the threshold. The view fits the graph while the layout
// moves, until the user pans, zooms or picks a node.
// window.kgGraph exposes the state to tests and benchmarks.
/* global Sigma, graphology */
(function () {
  "use strict";

  var cfg = JSON.parse(new URLSearchParams(location.search).get("config"));
  var el = document.getElementById("graph");
  var side = document.getElementById("graph-side");
  var statusEl = document.getElementById("graph-status");
  var legendEl = document.getElementById("graph-legend");
  var allBtn = document.getElementById("graph-all");
  var PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1", "#edc948", "#76b7b2",
    "#ff9da7", "#9c755f", "#1f77b4", "#bcbd22", "#17becf", "#8c564b", "#7f7f7f"];
  // The worker and the layout library are siblings of this script
  // (same hashed prefix).
  var here = location.origin + "/static/js/graph.js";
  var WORKER_URL = location.origin + "/bench/layout-graphology.js";
  var FA2_URL = here.replace(/js\/graph\.js(\?.*)?$/, "vendor/graphology-layout-forceatlas2-0.10.1/forceatlas2.min.js");

  // colorOf gives a type the same colour in every version: the common
  // types have their own, any other name a palette colour from its hash.
  var FIXED = { Person: "#4e79a7", Organization: "#f28e2b", Location: "#59a14f", Event: "#e15759",
    Concept: "#b07aa1", Date: "#edc948", Number: "#9c755f", Data: "#9c755f", Content: "#76b7b2",
    Creature: "#ff9da7", Artifact: "#17becf", Method: "#bcbd22", NaturalObject: "#8c564b" };
  var colors = {};      // type -> colour, memoised
  function colorOf(type) {
    if (!type) return "#999";
    if (colors[type]) return colors[type];
    var h = 0;
    for (var i = 0; i < type.length; i++) h = (h * 31 + type.charCodeAt(i)) >>> 0;
    return (colors[type] = FIXED[type] || PALETTE[h % PALETTE.length]);
  }
  var EDGE = "rgba(110,110,110,0.35)", EDGE_SELECTED = "#d64545";
  var hidden = {};      // type -> true when toggled off in the legend
  var byId = new Map(); // node key -> node from the API
  var links = [];       // edges from the API, with edge keys
  var types = [];
  var selected = null;  // key of the selected node
  var selectedLink = null; // key of the selected edge
  var panelSeq = 0;
  var byDegree = [];    // drawn nodes, best-connected first (label order)
  var view = "";        // what the status line says is drawn
  var follow = true;    // fit the view to the graph while the layout moves
  var fitFilter = null; // the nodes to fit, null for all visible ones
  var lastFit = 0;
  var drawGen = 0;      // counts setData calls; the worker's answers carry it
  var LABELS = 30;      // names always drawn, best-connected first
  var MAX_LABELS = 300; // names drawn at most per frame
  var MAX_FIT_ZOOM = 0.05; // a fit never zooms in closer than this camera ratio

  var graph = new graphology.MultiDirectedGraph();
  var renderer = new Sigma(graph, el, {
    renderLabels: false,       // drawLabels writes them, best-connected first
    renderEdgeLabels: false,
    enableEdgeEvents: true,    // an edge click opens its panel
    defaultEdgeColor: EDGE,
    defaultEdgeType: "line",
    labelFont: "system-ui, sans-serif",
    labelSize: 12,
    stagePadding: 30,
    minCameraRatio: 0.005,
    maxCameraRatio: 20,
    zIndex: true,
    nodeReducer: function (key, a) {
      if (hidden[a.kind]) return Object.assign({}, a, { hidden: true });
      return a;
    },
    edgeReducer: function (key, a) {
      if (hidden[a.sk] || hidden[a.tk]) return Object.assign({}, a, { hidden: true });
      if (key === selectedLink) return Object.assign({}, a, { color: EDGE_SELECTED, size: 2, zIndex: 1 });
      return a;
    }
  });
  renderer.createCanvasContext("kglabels", { beforeLayer: "hovers" });
  var labelCanvas = renderer.getCanvases().kglabels;
  var labelCtx = labelCanvas.getContext("2d");
  var tipEl = document.createElement("div");
  tipEl.className = "graph-tip";
  tipEl.hidden = true;
  el.append(tipEl);

  var kg = window.kgGraph = {
    settled: false,   // the layout has stopped moving
    loaded: false,    // the first data set is drawn
    converged: false, // the layout stopped because it converged
    drawnAt: 0,       // performance.now() of the first frame with data
    convergedAt: 0,   // performance.now() when the layout converged
    energy: 0,        // the layout's last energy (see graph-layout.js)
    iterations: 0,    // layout iterations run for the current data
    frames: 0,        // frames drawn
    hovered: null,    // key of the node under the pointer
    labels: 0,        // names drawn in the last frame
    nodeCount: function () { return byId.size; },
    nodes: function () { return Array.from(byId.values()); },
    colorOf: colorOf,
    edgeCount: function () { return links.length; },
    select: select,
    // pointOf returns a drawn node's position in page coordinates.
    pointOf: function (key) {
      if (!graph.hasNode(key)) return null;
      var p = renderer.graphToViewport(graph.getNodeAttributes(key)), box = el.getBoundingClientRect();
      return { x: box.left + p.x, y: box.top + p.y };
    },
    // moveView pans by dx, dy pixels and zooms by factor at once, without
    // animation (benchmarks drive the camera with it).
    moveView: function (dx, dy, factor) {
      takeOver();
      var cam = renderer.getCamera(), s = cam.getState(), d = renderer.getDimensions();
      var a = renderer.viewportToFramedGraph({ x: d.width / 2 + dx, y: d.height / 2 + dy });
      cam.setState({ x: a.x, y: a.y, ratio: s.ratio * factor });
      return s;
    }
  };

  function fmt(n) { return Number(n).toLocaleString("en"); }
  function status(text) { statusEl.textContent = text; }
  function linkKey(l) { return l.source + "\x1f" + l.label + "\x1f" + l.target; }
  function sizeOf(n, big) { return (big ? 1.5 : 3) * Math.sqrt(1 + Math.sqrt(n.degree)); }

  // settled is set by the first frame drawn after the last move, so that
  // what the page reports is what is on the screen.
  var settleGen = -1;
  renderer.on("afterRender", function () {
    kg.frames++;
    if (settleGen === drawGen) { kg.settled = true; settleGen = -1; }
    if (kg.loaded && !kg.drawnAt) kg.drawnAt = performance.now();
    drawLabels();
  });
  renderer.on("enterNode", function (e) {
    var n = byId.get(e.node);
    kg.hovered = e.node;
    el.style.cursor = "pointer";
    if (n) tip(n.name + " · " + (n.type || "untyped") + " · " + n.degree + " edges", e.event);
  });
  renderer.on("leaveNode", function () { kg.hovered = null; el.style.cursor = ""; tip(null); });
  renderer.on("enterEdge", function (e) {
    el.style.cursor = "pointer";
    tip(graph.getEdgeAttribute(e.edge, "label"), e.event);
  });
  renderer.on("leaveEdge", function () { el.style.cursor = ""; tip(null); });
  renderer.on("clickNode", function (e) { select(e.node); });
  renderer.on("clickEdge", function (e) { showEdge(e.edge); });
  renderer.on("clickStage", function () { selected = null; selectedLink = null; renderer.refresh({ skipIndexation: true }); });

  // tip shows text (as text) beside the pointer, or hides the tooltip.
  function tip(text, ev) {
    if (text === null || text === undefined) { tipEl.hidden = true; return; }
    tipEl.textContent = text;
    tipEl.hidden = false;
    if (ev) {
      tipEl.style.left = (ev.x + 12) + "px";
      tipEl.style.top = (ev.y + 12) + "px";
    }
  }

  // The user takes the view over by panning, zooming or dragging; from then
  // on the view only moves when asked (Fit, a search, Load all, Expand).
  el.addEventListener("wheel", takeOver, { passive: true });
  el.addEventListener("pointerdown", takeOver);
  function takeOver() {
    if (!follow) return;
    follow = false;
    // Freeze the frame, so that the moving layout does not shift the view.
    renderer.setCustomBBox(renderer.getBBox());
  }

  // fit shows the visible nodes (or those fitFilter keeps): the whole
  // graph is sigma's own frame; a part of it gets the camera that frames
  // its bounding box.
  function fit(ms) {
    var anim = ms ? { duration: ms } : undefined;
    var all = !fitFilter && !Object.keys(hidden).some(function (k) { return hidden[k]; });
    if (all) {
      renderer.setCustomBBox(null);
      renderer.refresh({ skipIndexation: false });
      var home = { x: 0.5, y: 0.5, ratio: 1, angle: 0 };
      if (anim) renderer.getCamera().animate(home, anim); else renderer.getCamera().setState(home);
      return;
    }
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    graph.forEachNode(function (key, a) {
      if (hidden[a.kind] || (fitFilter && !fitFilter(key))) return;
      var p = renderer.viewportToFramedGraph(renderer.graphToViewport(a));
      if (p.x < x0) x0 = p.x;
      if (p.x > x1) x1 = p.x;
      if (p.y < y0) y0 = p.y;
      if (p.y > y1) y1 = p.y;
    });
    if (x0 === Infinity) return;
    var d = renderer.getDimensions();
    // Ratio 1 shows the framed [0,1] square across the shorter side.
    var aspect = Math.max(d.width, d.height) / Math.max(Math.min(d.width, d.height), 1);
    var span = Math.max((x1 - x0) / (d.width >= d.height ? aspect : 1), (y1 - y0) / (d.height > d.width ? aspect : 1));
    var state = { x: (x0 + x1) / 2, y: (y0 + y1) / 2, ratio: Math.max(span * 1.15, MAX_FIT_ZOOM), angle: 0 };
    if (anim) renderer.getCamera().animate(state, anim); else renderer.getCamera().setState(state);
  }

  // drawLabels writes names on their own layer after each frame: right of
  // the node, on a white halo. The best-connected nodes inside the view
  // come first; a name that would overlap one already written is skipped.
  // Zoomed out, LABELS names are written; zoomed in, all the names in
  // view, up to MAX_LABELS. The selected node always gets its name, and a
  // red ring marks it; the hovered one gets sigma's hover label.
  function drawLabels() {
    var d = renderer.getDimensions(), w = d.width, h = d.height, pr = window.devicePixelRatio || 1;
    var ctx = labelCtx;
    ctx.setTransform(pr, 0, 0, pr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    if (!graph.order) { kg.labels = 0; return; }
    var c0 = renderer.viewportToGraph({ x: 0, y: 0 }), c1 = renderer.viewportToGraph({ x: w, y: h });
    var gx0 = Math.min(c0.x, c1.x), gx1 = Math.max(c0.x, c1.x), gy0 = Math.min(c0.y, c1.y), gy1 = Math.max(c0.y, c1.y);
    var ratio = renderer.getCamera().ratio;
    ctx.font = "12px system-ui, sans-serif";
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.lineJoin = "round";
    ctx.lineWidth = 3;
    ctx.strokeStyle = "rgba(255,255,255,0.92)";
    ctx.fillStyle = "#1d1d1f";
    var boxes = [];
    function put(key, force) {
      var a = graph.getNodeAttributes(key);
      var p = renderer.graphToViewport(a), r = renderer.scaleSize(a.size);
      var x = p.x + r + 3, y = p.y;
      var tw = ctx.measureText(a.label).width;
      var b = [x - 2, y - 8, x + tw + 2, y + 8];
      if (!force) {
        if (b[2] > w) return false;
        for (var i = 0; i < boxes.length; i++) {
          var o = boxes[i];
          if (b[0] < o[2] && b[2] > o[0] && b[1] < o[3] && b[3] > o[1]) return false;
        }
      }
      boxes.push(b);
      ctx.strokeText(a.label, x, y);
      ctx.fillText(a.label, x, y);
      return true;
    }
    var sel = selected && graph.hasNode(selected) && !hidden[byId.get(selected).type] ? selected : null;
    if (sel) put(sel, true);
    // Count the nodes in view (cheap) to know whether all names fit.
    var inView = 0, i, n, a;
    for (i = 0; i < byDegree.length; i++) {
      n = byDegree[i];
      a = graph.getNodeAttributes(n.id);
      if (a.x >= gx0 && a.x <= gx1 && a.y >= gy0 && a.y <= gy1 && !hidden[n.type]) inView++;
    }
    var budget = inView <= MAX_LABELS && ratio <= 0.8 ? MAX_LABELS : LABELS;
    var drawn = 0, tries = 0;
    for (i = 0; i < byDegree.length && drawn < budget && tries < 4 * budget; i++) {
      n = byDegree[i];
      if (n.id === sel || hidden[n.type]) continue;
      a = graph.getNodeAttributes(n.id);
      if (a.x < gx0 || a.x > gx1 || a.y < gy0 || a.y > gy1) continue;
      tries++;
      if (put(n.id, false)) drawn++;
    }
    kg.labels = drawn + (sel ? 1 : 0);
    if (sel) {
      var sa = graph.getNodeAttributes(sel), sp = renderer.graphToViewport(sa);
      ctx.beginPath();
      ctx.arc(sp.x, sp.y, renderer.scaleSize(sa.size) + 2, 0, 2 * Math.PI);
      ctx.strokeStyle = EDGE_SELECTED;
      ctx.lineWidth = 2;
      ctx.stroke();
    }
  }

  // The layout runs in a worker; each answer moves the nodes. An answer
  // for older data (drawGen) is dropped.
  var worker = null;
  function layout() {
    if (!worker) {
      worker = new Worker(WORKER_URL);
      worker.onmessage = onLayout;
      worker.onerror = function () { status("The layout could not run in this browser."); kg.settled = true; };
    }
    var n = graph.order, x = new Float32Array(n), y = new Float32Array(n), mass = new Float32Array(n);
    var index = new Map(), i = 0;
    graph.forEachNode(function (key, a) {
      index.set(key, i);
      x[i] = a.x;
      y[i] = a.y;
      mass[i] = graph.degree(key);
      i++;
    });
    var edges = new Uint32Array(2 * graph.size), j = 0;
    graph.forEachEdge(function (e, a, s, t) {
      edges[j++] = index.get(s);
      edges[j++] = index.get(t);
    });
    kg.settled = false;
    kg.converged = false;
    kg.convergedAt = 0;
    worker.postMessage({ type: "start", gen: drawGen, x: x, y: y, mass: mass, edges: edges, libURL: FA2_URL },
      [x.buffer, y.buffer, mass.buffer, edges.buffer]);
  }

  var pending = null; // the latest positions, applied at the next frame
  function onLayout(ev) {
    var m = ev.data;
    if (m.gen !== drawGen) return;
    kg.energy = m.energy;
    kg.iterations = m.iterations;
    if (!pending) requestAnimationFrame(applyLayout);
    pending = m;
  }
  function applyLayout() {
    var m = pending, i = 0;
    pending = null;
    if (!m || m.gen !== drawGen) return;
    var xy = m.xy;
    graph.updateEachNodeAttributes(function (key, a) {
      a.x = xy[2 * i];
      a.y = xy[2 * i + 1];
      i++;
      return a;
    }, { attributes: ["x", "y"] });
    var now = performance.now();
    if (follow && fitFilter && now - lastFit > 300) { lastFit = now; fit(0); }
    if (!m.done) return;
    if (m.converged) { kg.converged = true; kg.convergedAt = now; }
    var g = drawGen;
    if (follow && fitFilter) { fit(300); setTimeout(function () { if (g === drawGen) { settleGen = g; renderer.scheduleRender(); } }, 350); return; }
    settleGen = g;
    renderer.scheduleRender();
  }

  function fetchGraph(params) {
    return fetch(cfg.api + "?" + new URLSearchParams(params)).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || r.statusText);
        return body;
      });
    });
  }

  // setData draws an API answer, replacing the graph or merging into it.
  // New nodes start at random in a square that grows with the graph;
  // merged nodes start next to the anchor node so they do not fly in.
  function setData(res, merge, anchorKey, what) {
    types = res.types || [];
    buildLegend();
    if (!merge) { graph.clear(); byId = new Map(); links = []; }
    var count = byId.size + res.nodes.length, big = count > 3000;
    var spread = Math.sqrt(Math.max(count, 1)) * 10;
    var anchor = anchorKey && graph.hasNode(anchorKey) ? graph.getNodeAttributes(anchorKey) : null;
    var fresh = new Set();
    res.nodes.forEach(function (n) {
      fresh.add(n.id);
      if (byId.has(n.id)) return;
      byId.set(n.id, n);
      var x = (Math.random() - 0.5) * spread, y = (Math.random() - 0.5) * spread;
      if (anchor) { x = anchor.x + (Math.random() - 0.5) * 10; y = anchor.y + (Math.random() - 0.5) * 10; }
      graph.addNode(n.id, { x: x, y: y, size: sizeOf(n, big), color: colorOf(n.type), label: n.name, kind: n.type });
    });
    res.edges.forEach(function (e) {
      var k = linkKey(e);
      if (graph.hasEdge(k) || !graph.hasNode(e.source) || !graph.hasNode(e.target)) return;
      links.push(e);
      graph.addDirectedEdgeWithKey(k, e.source, e.target, { label: e.label,
        sk: byId.get(e.source).type, tk: byId.get(e.target).type });
    });
    renderer.setSetting("defaultEdgeType", graph.order > 1500 ? "line" : "arrow");
    byDegree = Array.from(byId.values()).sort(function (a, b) { return b.degree - a.degree; });
    drawGen++;
    kg.loaded = true;
    // Follow the layout again: the whole graph, or after an expansion the
    // neighbourhood that was fetched.
    follow = true;
    lastFit = 0;
    fitFilter = merge ? function (key) { return fresh.has(key); } : null;
    if (!fitFilter) fit(0);
    layout();
    if (!merge) view = what || "";
    else if (what) view = view ? view + "; " + what : what;
    lastRes = res;
    lastMerge = merge;
    updateStatus();
  }

  // The legend, the status line, the side panel, search and expansion
  // are left out of the candidate: they draw nothing.
  var lastRes = null, lastMerge = false;
  function buildLegend() {}
  function updateStatus() {}
  function select(key) {
    selected = graph.hasNode(key) ? key : null;
    return !!selected;
  }
  function showEdge(key) { selectedLink = key; }

  // First view: everything.
  fetchGraph({}).then(function (res) { setData(res, false, null, ""); });
})();
