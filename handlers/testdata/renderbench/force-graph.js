// The graph view as it was with force-graph 1.52.0 (canvas, d3-force on the
// main thread), kept as a candidate for BenchmarkGraphRender. Changes from
// the page it was: the config comes from the URL; the layout is not cut off
// by a time or tick cap but stops when alpha reaches d3's alphaMin, 0.001;
// the energy of each tick, the frames drawn and the first frame and
// convergence times are recorded for the benchmark, which moves the camera
// with kgGraph.moveView; the legend, status line, side panel and search are
// left out. Original description:
// kgstudio graph view: draws one extraction version with force-graph.
// Colour by type (the legend toggles types), size by degree, the names of
// the best-connected nodes (more as you zoom in), search, a side panel for
// nodes and edges, neighbourhood expansion, and a "load all" switch for
// graphs past the threshold. The view fits the graph while the layout
// settles, until the user pans, zooms or picks a node.
// window.kgGraph exposes the state to tests.
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
  var hidden = {};      // type -> true when toggled off in the legend
  var byId = new Map(); // node key -> node object drawn
  var linkKeys = new Set();
  var links = [];
  var types = [];
  var selected = null;
  var selectedLink = null;
  var panelSeq = 0;
  var byDegree = [];    // drawn nodes, best-connected first (label order)
  var view = "";        // what the status line says is drawn
  var follow = true;    // fit the view to the graph while the layout moves
  var fitFilter = null; // the nodes to fit, null for all visible ones
  var lastFit = 0;
  var drawGen = 0;      // counts setData calls
  var bigGraph = false; // past 3000 nodes: layout and fitting trade looks for speed
  var LABELS = 30;      // names always drawn, best-connected first
  var MAX_LABELS = 300; // names drawn at most per frame
  var FIT_PAD = 40;     // pixels around a fitted graph
  var MAX_FIT_ZOOM = 4; // a fit never zooms in further than this

  var kg = window.kgGraph = {
    settled: false, // the layout has stopped moving
    loaded: false,  // the first data set is drawn
    converged: false, drawnAt: 0, convergedAt: 0, energy: 0, iterations: 0, frames: 0,
    moveView: function (dx, dy, factor) {
      follow = false;
      var c = fg.centerAt(), k = fg.zoom();
      fg.centerAt(c.x + dx / k, c.y + dy / k);
      fg.zoom(k * factor);
    },
    hovered: null,  // key of the node under the pointer
    labels: 0,      // names drawn in the last frame
    nodeCount: function () { return byId.size; },
    nodes: function () { return Array.from(byId.values()); },
    colorOf: colorOf,
    edgeCount: function () { return links.length; },
    select: select,
    // pointOf returns a drawn node's position in page coordinates.
    pointOf: function (key) {
      var n = byId.get(key);
      if (!n || n.x === undefined) return null;
      var p = fg.graph2ScreenCoords(n.x, n.y), box = el.getBoundingClientRect();
      return { x: box.left + p.x, y: box.top + p.y };
    }
  };

  function fmt(n) { return Number(n).toLocaleString("en"); }
  function status(text) { statusEl.textContent = text; }
  function linkKey(l) { return idOf(l.source) + "\x1f" + l.label + "\x1f" + idOf(l.target); }
  function idOf(end) { return typeof end === "object" ? end.id : end; }
  var REL = 4;          // node size: REL * sqrt(1 + sqrt(degree)) pixels at zoom 1
  function radius(n) { return REL * Math.sqrt(1 + Math.sqrt(n.degree)); }
  var tip = window.kgText;

  var fg = new ForceGraph(el)
    .width(el.clientWidth)
    .height(el.clientHeight)
    .nodeId("id")
    .nodeRelSize(REL)
    .nodeVal(function (n) { return 1 + Math.sqrt(n.degree); })
    .nodeColor(function (n) { return colorOf(n.type); })
    .nodeLabel(function (n) { return tip(n.name + " · " + (n.type || "untyped") + " · " + n.degree + " edges"); })
    .linkLabel(function (l) { return tip(l.label); })
    .linkColor(function (l) { return l === selectedLink ? "#d64545" : "rgba(110,110,110,0.35)"; })
    .linkWidth(function (l) { return l === selectedLink ? 2 : 0.6; })
    .onRenderFramePost(drawLabels)
    .onNodeHover(function (n) { kg.hovered = n ? n.id : null; el.style.cursor = n ? "pointer" : ""; })
    .onNodeClick(function (n) { select(n.id); })
    .onLinkClick(showEdge)
    .onBackgroundClick(function () { selected = null; selectedLink = null; })
    .onEngineTick(function () {
      measure();
      var now = performance.now();
      if (follow && now - lastFit > (bigGraph ? 700 : 300)) { lastFit = now; fit(bigGraph ? 0 : 250); }
    })
    .onEngineStop(function () {
      if (!kg.converged) { kg.converged = true; kg.convergedAt = performance.now(); } // alpha reached alphaMin
      // settled once the last fit has finished moving the view.
      // Big graphs jump to the fit (an animation costs frames there).
      var g = drawGen;
      if (follow && !bigGraph) { fit(300); setTimeout(function () { if (g === drawGen) kg.settled = true; }, 350); return; }
      if (follow) fit(0);
      kg.settled = true;
    });
  setVisibility();

  // The user takes the view over by panning, zooming or dragging; from then
  // on the view only moves when asked (Fit, a search, Load all, Expand).
  el.addEventListener("wheel", function () { follow = false; }, { passive: true });
  el.addEventListener("pointerdown", function () { follow = false; });

  // fit zooms to the visible nodes (or those fitFilter keeps), with room
  // for the names on the right, never closer than MAX_FIT_ZOOM.
  function fit(ms) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    fg.graphData().nodes.forEach(function (n) {
      if (n.x === undefined || hidden[n.type] || (fitFilter && !fitFilter(n))) return;
      var r = radius(n);
      if (n.x - r < x0) x0 = n.x - r;
      if (n.x + r > x1) x1 = n.x + r;
      if (n.y - r < y0) y0 = n.y - r;
      if (n.y + r > y1) y1 = n.y + r;
    });
    if (x0 === Infinity) return;
    var w = el.clientWidth, h = el.clientHeight, labelRoom = 80;
    var k = Math.min((w - 2 * FIT_PAD - labelRoom) / Math.max(x1 - x0, 1),
      (h - 2 * FIT_PAD - 16) / Math.max(y1 - y0, 1), MAX_FIT_ZOOM);
    k = Math.max(k, 0.02);
    // Shift the centre so the labels' room ends up on the right.
    fg.centerAt((x0 + x1) / 2 + labelRoom / 2 / k, (y0 + y1) / 2 + 8 / k, ms);
    fg.zoom(k, ms);
  }

  // drawLabels writes names after all nodes are drawn, so no node covers
  // a name: right of the node, on a white halo. The best-connected nodes
  // inside the view come first; a name that would overlap one already
  // written is skipped. Zoomed out, LABELS names are written; zoomed in,
  // all the names in view, up to MAX_LABELS. The selected and hovered
  // nodes always get theirs, and a red ring marks the selected one.
  // measure computes the tick's energy as the layout worker does (mean
  // step over the extent's diagonal), for the record: d3-force converges
  // when alpha reaches alphaMin (onEngineStop), as its velocity decay keeps
  // the steps small long before that.
  var prevPos = new Map();
  function measure() {
    var moved = 0, count = 0, x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    fg.graphData().nodes.forEach(function (n) {
      var p = prevPos.get(n);
      if (p) { moved += Math.hypot(n.x - p[0], n.y - p[1]); p[0] = n.x; p[1] = n.y; } else prevPos.set(n, [n.x, n.y]);
      count++;
      if (n.x < x0) x0 = n.x;
      if (n.x > x1) x1 = n.x;
      if (n.y < y0) y0 = n.y;
      if (n.y > y1) y1 = n.y;
    });
    var ext = Math.hypot(x1 - x0, y1 - y0);
    kg.iterations++;
    kg.energy = count && ext > 0 ? moved / count / ext : 0;
  }

  function drawLabels(ctx, scale) {
    kg.frames++;
    if (kg.loaded && !kg.drawnAt) kg.drawnAt = performance.now();
    var w = el.clientWidth, h = el.clientHeight;
    var tl = fg.screen2GraphCoords(0, 0), br = fg.screen2GraphCoords(w, h);
    var fs = 12 / scale, pad = 2 / scale;
    var right = br.x; // names cut by the edge are left out
    ctx.save();
    ctx.font = fs + "px system-ui, sans-serif";
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.lineJoin = "round";
    ctx.lineWidth = 3 / scale;
    ctx.strokeStyle = "rgba(255,255,255,0.92)";
    ctx.fillStyle = "#1d1d1f";
    var boxes = [];
    var inView = 0;
    function put(n, force) {
      var r = radius(n);
      var x = n.x + r + 3 / scale, y = n.y;
      var tw = ctx.measureText(n.name).width;
      var b = [x - pad, y - fs / 2 - pad, x + tw + pad, y + fs / 2 + pad];
      if (!force) {
        if (b[2] > right) return false;
        for (var i = 0; i < boxes.length; i++) {
          var o = boxes[i];
          if (b[0] < o[2] && b[2] > o[0] && b[1] < o[3] && b[3] > o[1]) return false;
        }
      }
      boxes.push(b);
      ctx.strokeText(n.name, x, y);
      ctx.fillText(n.name, x, y);
      return true;
    }
    var special = [];
    if (selected && selected.x !== undefined) special.push(selected);
    var hov = kg.hovered && byId.get(kg.hovered);
    if (hov && hov !== selected && hov.x !== undefined) special.push(hov);
    special.forEach(function (n) { put(n, true); });
    // Count the nodes in view (cheap) to know whether all names fit.
    for (var i = 0; i < byDegree.length; i++) {
      var n = byDegree[i];
      if (n.x >= tl.x && n.x <= br.x && n.y >= tl.y && n.y <= br.y && !hidden[n.type]) inView++;
    }
    var budget = inView <= MAX_LABELS && scale >= 1.2 ? MAX_LABELS : LABELS;
    var drawn = 0, tries = 0;
    for (i = 0; i < byDegree.length && drawn < budget && tries < 4 * budget; i++) {
      n = byDegree[i];
      if (n === selected || n === hov || hidden[n.type] || n.x === undefined) continue;
      if (n.x < tl.x || n.x > br.x || n.y < tl.y || n.y > br.y) continue;
      tries++;
      if (put(n, false)) drawn++;
    }
    kg.labels = drawn + special.length;
    if (selected && selected.x !== undefined) {
      ctx.beginPath();
      ctx.arc(selected.x, selected.y, radius(selected) + 2 / scale, 0, 2 * Math.PI);
      ctx.strokeStyle = "#d64545";
      ctx.lineWidth = 2 / scale;
      ctx.stroke();
    }
    ctx.restore();
  }

  // tune trades layout quality for speed on large graphs: fewer, faster
  // ticks, a weaker and shorter-ranged charge, no arrows.
  function tune(count) {
    var big = bigGraph = count > 3000;
    // The layout converges (alpha reaches its floor) in about 150 ticks,
    // 2.5 s at 60 frames a second, and stops at 3 s whatever the frame
    // rate; big graphs settle some ticks before drawing.
    fg.d3AlphaDecay(big ? 0.05 : 0.045)
      .d3VelocityDecay(big ? 0.5 : 0.4)
      .warmupTicks(big ? 10 : 0)
      .cooldownTicks(Infinity)
      .cooldownTime(Infinity)
      .d3AlphaMin(0.001) // d3-force's own floor (force-graph's default is 0: never)
      .linkDirectionalArrowLength(count > 1500 ? 0 : 3)
      .linkDirectionalArrowRelPos(1);
    // Small graphs get more room, so that hubs do not hide their neighbours.
    var small = count <= 400;
    fg.d3Force("charge").strength(big ? -14 : small ? -80 : -40).distanceMax(big ? 160 : small ? 260 : 400);
    fg.d3Force("link").distance(big ? 18 : small ? 40 : 34);
  }

  function setVisibility() {
    fg.nodeVisibility(function (n) { return !hidden[n.type]; })
      .linkVisibility(function (l) { return !hidden[l.source.type] && !hidden[l.target.type]; });
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
  // Merged nodes start next to the anchor node so they do not fly in.
  function setData(res, merge, anchorKey, what) {
    types = res.types || [];
    buildLegend();
    var nodes = merge ? fg.graphData().nodes : [];
    if (!merge) { byId = new Map(); linkKeys = new Set(); links = []; }
    var anchor = anchorKey && byId.get(anchorKey);
    var fresh = new Set();
    res.nodes.forEach(function (n) {
      fresh.add(n.id);
      if (byId.has(n.id)) return;
      if (anchor && anchor.x !== undefined) {
        n.x = anchor.x + (Math.random() - 0.5) * 30;
        n.y = anchor.y + (Math.random() - 0.5) * 30;
      }
      byId.set(n.id, n);
      nodes.push(n);
    });
    res.edges.forEach(function (e) {
      var k = linkKey(e);
      if (linkKeys.has(k)) return;
      linkKeys.add(k);
      links.push(e);
    });
    byDegree = nodes.slice().sort(function (a, b) { return b.degree - a.degree; });
    kg.settled = false;
    drawGen++;
    tune(nodes.length);
    fg.graphData({ nodes: nodes, links: links });
    kg.loaded = true;
    // Follow the layout again: the whole graph, or after an expansion the
    // neighbourhood that was fetched.
    follow = true;
    lastFit = 0;
    fitFilter = merge ? function (n) { return fresh.has(n.id); } : null;
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
    selected = byId.get(key) || null;
    return !!selected;
  }
  function showEdge(l) { selectedLink = l; }
  window.addEventListener("resize", function () {
    fg.width(el.clientWidth).height(el.clientHeight);
    if (follow) fit(0);
  });

  // First view: everything.
  fetchGraph({}).then(function (res) { setData(res, false, null, ""); });
})();
