// The graph drawn by cosmos.gl 3.3.0 (its force layout runs on the GPU in
// WebGL shaders, and it draws with WebGL), a candidate for
// BenchmarkGraphRender: the config comes from the URL, the whole graph is
// fetched once, nodes get the page's colours and sizes, and cosmos.gl's own
// simulation with its default settings lays it out until it ends
// (onSimulationEnd: its alpha has decayed, as d3-force's does). The
// benchmark moves the camera with kgGraph.moveView; frames are counted as
// the animation frames the page gets while cosmos.gl draws in its own
// loop. No legend, status line, side panel, labels or search.
(function () {
  "use strict";

  var cfg = JSON.parse(new URLSearchParams(location.search).get("config"));
  var el = document.getElementById("graph");
  var PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1", "#edc948", "#76b7b2",
    "#ff9da7", "#9c755f", "#1f77b4", "#bcbd22", "#17becf", "#8c564b", "#7f7f7f"];
  var FIXED = { Person: "#4e79a7", Organization: "#f28e2b", Location: "#59a14f", Event: "#e15759",
    Concept: "#b07aa1", Date: "#edc948", Number: "#9c755f" };
  function colorOf(type) {
    if (!type) return "#999999";
    var h = 0;
    for (var i = 0; i < type.length; i++) h = (h * 31 + type.charCodeAt(i)) >>> 0;
    return FIXED[type] || PALETTE[h % PALETTE.length];
  }

  var count = 0, graph = null;
  var kg = window.kgGraph = {
    settled: false,
    loaded: false,
    converged: false,
    drawnAt: 0,
    convergedAt: 0,
    iterations: 0,
    frames: 0,
    nodeCount: function () { return count; },
    // moveView pans by dx, dy pixels and zooms by factor at once, without
    // animation and without waking the simulation (through cosmos.gl's
    // d3-zoom behaviour, which its drag and wheel handlers also drive).
    moveView: function (dx, dy, factor) {
      var k = graph.getZoomLevel();
      graph.setZoomLevel(k * factor, 0, false);
      graph.canvasD3Selection.call(graph.zoomInstance.behavior.translateBy, dx / k, dy / k);
    }
  };
  function frame() {
    kg.frames++;
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);

  fetch(cfg.api).then(function (r) { return r.json(); }).then(function (res) {
    var n = res.nodes.length, byId = new Map(), i;
    count = n;
    var pos = new Float32Array(2 * n), colors = new Float32Array(4 * n), sizes = new Float32Array(n);
    var spread = Math.sqrt(Math.max(n, 1)) * 10;
    res.nodes.forEach(function (nd, j) {
      byId.set(nd.id, j);
      pos[2 * j] = (Math.random() - 0.5) * spread;
      pos[2 * j + 1] = (Math.random() - 0.5) * spread;
      var c = colorOf(nd.type);
      colors[4 * j] = parseInt(c.slice(1, 3), 16) / 255;
      colors[4 * j + 1] = parseInt(c.slice(3, 5), 16) / 255;
      colors[4 * j + 2] = parseInt(c.slice(5, 7), 16) / 255;
      colors[4 * j + 3] = 1;
      sizes[j] = 3 * Math.sqrt(1 + Math.sqrt(nd.degree || 0));
    });
    var links = [];
    res.edges.forEach(function (e) {
      var s = byId.get(e.source), t = byId.get(e.target);
      if (s !== undefined && t !== undefined) links.push(s, t);
    });
    graph = new Cosmos.Graph(el, {
      backgroundColor: "#ffffff",
      linkDefaultColor: "#c8c8c8",
      fitViewOnInit: true,
      onSimulationTick: function () {
        kg.iterations++;
        if (!kg.drawnAt) kg.drawnAt = performance.now();
      },
      onSimulationEnd: function () {
        if (kg.converged) return;
        kg.converged = kg.settled = true;
        kg.convergedAt = performance.now();
      }
    });
    graph.setPointPositions(pos);
    graph.setPointColors(colors);
    graph.setPointSizes(sizes);
    graph.setLinks(Float32Array.from(links));
    graph.render();
    kg.loaded = true;
  });
})();
