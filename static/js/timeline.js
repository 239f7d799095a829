// kgstudio timeline view: draws the memory graph of a dialogue run as it
// stood after the selected turn. The graph data is the JSON script
// #timeline-graph inside #turn-detail; htmx swaps that part when the slider
// or the prev/next links move, and the graph is redrawn with the nodes that
// were already drawn kept in place. Arrow keys step through the turns.
// window.kgTimeline exposes the state to tests.
(function () {
  "use strict";

  var el = document.getElementById("timeline-canvas");
  var range = document.getElementById("turn-range");
  var output = document.getElementById("turn-value");
  var legendEl = document.getElementById("timeline-legend");
  if (!el || typeof ForceGraph === "undefined") return;

  var COLORS = { User: "#4e79a7", Assistant: "#59a14f", Event: "#f28e2b", Knowledge: "#b07aa1" };
  var EXTRA = ["#e15759", "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#17becf", "#bcbd22", "#8c564b"];
  var colors = {};
  var state = window.kgTimeline = { turn: -1, loaded: 0, nodes: 0, links: 0, touched: 0, settled: false };

  function colorOf(type) {
    if (colors[type]) return colors[type];
    var root = (type || "").split("/")[0];
    if (root === "Knowledge" && type !== "Knowledge") {
      colors[type] = EXTRA[Object.keys(colors).length % EXTRA.length];
    } else {
      colors[type] = COLORS[root] || "#999";
    }
    return colors[type];
  }
  function tip(text) { var d = document.createElement("div"); d.textContent = text; return d; }
  function idOf(end) { return typeof end === "object" ? end.id : end; }

  var fg = new ForceGraph(el)
    .width(el.clientWidth)
    .height(el.clientHeight)
    .nodeId("id")
    .nodeRelSize(3)
    .nodeVal(function (n) { return n.structure ? 2 : 1; })
    .nodeColor(function (n) { return colorOf(n.type); })
    .nodeLabel(function (n) { return tip(n.id + (n.name ? " · " + n.name : "") + (n.description ? "\n" + n.description : "")); })
    .linkLabel(function (l) { return tip(l.label); })
    .linkColor(function (l) {
      if (l.touched) return "#d64545";
      return l.label === "has" ? "rgba(150,150,150,0.35)" : "rgba(40,40,40,0.7)";
    })
    .linkWidth(function (l) { return l.touched ? 2 : (l.label === "has" ? 0.5 : 1); })
    .linkDirectionalArrowLength(function (l) { return l.label === "has" ? 0 : 3; })
    .linkDirectionalArrowRelPos(1)
    .nodeCanvasObjectMode(function () { return "after"; })
    .nodeCanvasObject(function (n, ctx, scale) {
      if (n.touched) {
        ctx.beginPath();
        ctx.arc(n.x, n.y, 5 + 1 / scale, 0, 2 * Math.PI);
        ctx.strokeStyle = "#d64545";
        ctx.lineWidth = 1.5 / scale;
        ctx.stroke();
      }
      if (scale < 1.6 && !n.touched) return;
      var fs = 10 / scale;
      ctx.font = fs + "px sans-serif";
      ctx.fillStyle = "#222";
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      ctx.fillText(n.name || n.id, n.x, n.y + 5);
    })
    .cooldownTicks(200)
    .onEngineStop(function () {
      if (!moved) fg.zoomToFit(300, 30);
      state.settled = true;
    });
  // The view follows the graph until the user pans or zooms.
  var moved = false;
  el.addEventListener("wheel", function () { moved = true; }, { passive: true });
  el.addEventListener("mousedown", function () { moved = true; });

  window.addEventListener("resize", function () { fg.width(el.clientWidth).height(el.clientHeight); });

  function legend(nodes) {
    var types = {};
    nodes.forEach(function (n) { types[n.type] = true; });
    legendEl.textContent = "";
    Object.keys(types).sort().forEach(function (t) {
      var s = document.createElement("span");
      s.className = "badge";
      var sw = document.createElement("span");
      sw.className = "sw";
      sw.style.background = colorOf(t);
      s.appendChild(sw);
      s.appendChild(document.createTextNode(t));
      legendEl.appendChild(s);
    });
  }

  // load draws the graph of the turn now in the page, keeping the
  // positions of nodes already drawn.
  function load() {
    var script = document.getElementById("timeline-graph");
    if (!script) return;
    var data = JSON.parse(script.textContent);
    if (data.turn === state.turn) return;
    var old = new Map();
    fg.graphData().nodes.forEach(function (n) { old.set(n.id, n); });
    var nodes = data.nodes.map(function (n) {
      var o = old.get(n.id);
      if (o) { n.x = o.x; n.y = o.y; n.vx = o.vx; n.vy = o.vy; }
      return n;
    });
    var links = data.links.map(function (l) {
      return { source: idOf(l.source), target: idOf(l.target), label: l.label, touched: l.touched };
    });
    fg.graphData({ nodes: nodes, links: links });
    state.settled = false;
    legend(nodes);
    state.turn = data.turn;
    state.nodes = nodes.length;
    state.links = links.length;
    state.touched = data.stats.touched;
    state.loaded++;
    if (range && String(range.value) !== String(data.turn)) range.value = data.turn;
    if (output) output.textContent = data.turn;
  }

  if (range) {
    range.addEventListener("input", function () { if (output) output.textContent = range.value; });
  }
  document.addEventListener("keydown", function (e) {
    if (e.target && /INPUT|TEXTAREA|SELECT/.test(e.target.tagName) && e.target !== range) return;
    var id = e.key === "ArrowLeft" ? "turn-prev" : e.key === "ArrowRight" ? "turn-next" : "";
    if (!id || e.target === range) return;
    var a = document.querySelector("[data-testid=" + id + "]");
    if (a) { e.preventDefault(); a.click(); }
  });
  document.body.addEventListener("htmx:afterSettle", load);
  load();
})();
