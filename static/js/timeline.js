// kgstudio timeline view: draws the memory graph of a dialogue run as it
// stood after the selected turn. The graph data is the JSON script
// #timeline-graph inside #turn-detail; htmx swaps that part when the slider
// or the prev/next links move, and the graph is redrawn with the nodes that
// were already drawn kept in place; relations the turn ended are dashed.
// Arrow keys step through the turns.
// window.kgTimeline exposes the state to tests.
(function () {
  "use strict";

  var el = document.getElementById("timeline-canvas");
  var range = document.getElementById("turn-range");
  var output = document.getElementById("turn-value");
  var legendEl = document.getElementById("timeline-legend");
  if (!el || typeof ForceGraph === "undefined") return;

  var state = window.kgTimeline = { turn: -1, loaded: 0, nodes: 0, links: 0, touched: 0, settled: false };

  // The same colours as the graph view (static/js/colors.js).
  var colorOf = window.kgColors();
  var tip = window.kgText;
  function idOf(end) { return typeof end === "object" ? end.id : end; }

  var fg = new ForceGraph(el)
    .width(el.clientWidth)
    .height(el.clientHeight)
    .nodeId("id")
    .nodeRelSize(3)
    .nodeVal(function (n) { return n.structure ? 2 : 1; })
    .nodeColor(function (n) { return colorOf(n.type); })
    .nodeLabel(function (n) { return tip(n.id + (n.name ? " · " + n.name : "") + (n.description ? "\n" + n.description : "")); })
    .linkLabel(function (l) { return tip(l.retired ? l.label + " · ended by this turn" : l.label); })
    .linkColor(function (l) {
      if (l.retired) return "rgba(214,69,69,0.55)";
      if (l.touched) return "#d64545";
      return l.label === "has" ? "rgba(150,150,150,0.35)" : "rgba(40,40,40,0.7)";
    })
    .linkWidth(function (l) { return l.touched || l.retired ? 2 : (l.label === "has" ? 0.5 : 1); })
    .linkLineDash(function (l) { return l.retired ? [4, 3] : null; })
    .linkDirectionalArrowLength(function (l) { return l.label === "has" ? 0 : 3; })
    .linkDirectionalArrowRelPos(1)
    .onRenderFramePost(drawLabels)
    .cooldownTicks(200)
    .onEngineTick(function () {
      var now = performance.now();
      if (!moved && now - lastFit > 300) { lastFit = now; fit(250); }
    })
    .onEngineStop(function () {
      if (!moved) fit(300);
      state.settled = true;
    });
  fg.d3Force("charge").strength(-60).distanceMax(260);

  // pointOf returns, in page coordinates, the position of the first drawn
  // node whose id or name contains text.
  state.pointOf = function (text) {
    var n = fg.graphData().nodes.find(function (x) { return x.id.indexOf(text) >= 0 || (x.name || "").indexOf(text) >= 0; });
    if (!n || n.x === undefined) return null;
    var p = fg.graph2ScreenCoords(n.x, n.y), box = el.getBoundingClientRect();
    return { x: box.left + p.x, y: box.top + p.y };
  };
  fg.d3Force("link").distance(36);
  // The view follows the graph until the user pans or zooms.
  var moved = false, lastFit = 0;
  el.addEventListener("wheel", function () { moved = true; }, { passive: true });
  el.addEventListener("pointerdown", function () { moved = true; });

  window.addEventListener("resize", function () {
    fg.width(el.clientWidth).height(el.clientHeight);
    if (!moved) fit(0);
  });

  function radius(n) { return 3 * Math.sqrt(n.structure ? 2 : 1); }

  // fit zooms to the whole graph with room around it (more on the right
  // for the names), never closer than zoom 4.
  function fit(ms) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    fg.graphData().nodes.forEach(function (n) {
      if (n.x === undefined) return;
      x0 = Math.min(x0, n.x); x1 = Math.max(x1, n.x);
      y0 = Math.min(y0, n.y); y1 = Math.max(y1, n.y);
    });
    if (x0 === Infinity) return;
    var pad = 36, room = 70, w = el.clientWidth, h = el.clientHeight;
    var k = Math.min((w - 2 * pad - room) / Math.max(x1 - x0, 1), (h - 2 * pad) / Math.max(y1 - y0, 1), 4);
    k = Math.max(k, 0.05);
    fg.centerAt((x0 + x1) / 2 + room / 2 / k, (y0 + y1) / 2, ms);
    fg.zoom(k, ms);
  }

  // drawLabels writes names after all nodes, right of each node on a white
  // halo: the touched nodes' always, then the structure nodes', then the
  // others', skipping a name that would overlap one already written (zoom
  // in for more). The touched nodes get a red ring.
  function drawLabels(ctx, scale) {
    var nodes = fg.graphData().nodes;
    var fs = 11 / scale, pad = 1.5 / scale, boxes = [];
    var right = fg.screen2GraphCoords(el.clientWidth, 0).x; // names cut by the edge are left out
    ctx.save();
    ctx.font = fs + "px system-ui, sans-serif";
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.lineJoin = "round";
    function put(n, force) {
      var text = n.name || n.id, x = n.x + radius(n) + 3 / scale;
      var tw = ctx.measureText(text).width;
      var b = [x - pad, n.y - fs / 2 - pad, x + tw + pad, n.y + fs / 2 + pad];
      if (!force) {
        if (b[2] > right) return false;
        for (var i = 0; i < boxes.length; i++) {
          var o = boxes[i];
          if (b[0] < o[2] && b[2] > o[0] && b[1] < o[3] && b[3] > o[1]) return;
        }
      }
      boxes.push(b);
      ctx.lineWidth = 3 / scale;
      ctx.strokeStyle = "rgba(255,255,255,0.92)";
      ctx.strokeText(text, x, n.y);
      ctx.fillStyle = n.touched ? "#a32626" : "#222";
      ctx.fillText(text, x, n.y);
    }
    nodes.forEach(function (n) {
      if (!n.touched || n.x === undefined) return;
      ctx.beginPath();
      ctx.arc(n.x, n.y, radius(n) + 2 / scale, 0, 2 * Math.PI);
      ctx.strokeStyle = "#d64545";
      ctx.lineWidth = 1.5 / scale;
      ctx.stroke();
      put(n, true);
    });
    nodes.forEach(function (n) { if (n.structure && !n.touched && n.x !== undefined) put(n, false); });
    // The others while they fit (a few hundred at most, to stay fast).
    for (var i = 0, tries = 0; i < nodes.length && tries < 300; i++) {
      var n = nodes[i];
      if (n.structure || n.touched || n.x === undefined) continue;
      tries++;
      put(n, false);
    }
    ctx.restore();
  }

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
