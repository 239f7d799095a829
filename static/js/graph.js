// kgstudio graph view: draws one extraction version with force-graph.
// Colour by type (the legend toggles types), size by degree, names when
// zoomed in, search, a side panel for nodes and edges, neighbourhood
// expansion, and a "load all" switch for graphs past the threshold.
// window.kgGraph exposes the state to tests.
(function () {
  "use strict";

  var cfg = JSON.parse(document.getElementById("graph-config").textContent);
  var el = document.getElementById("graph");
  var side = document.getElementById("graph-side");
  var statusEl = document.getElementById("graph-status");
  var legendEl = document.getElementById("graph-legend");
  var allBtn = document.getElementById("graph-all");
  var PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1", "#edc948", "#76b7b2",
    "#ff9da7", "#9c755f", "#1f77b4", "#bcbd22", "#17becf", "#8c564b", "#7f7f7f"];

  var colors = {};      // type -> colour, assigned once
  var hidden = {};      // type -> true when toggled off in the legend
  var byId = new Map(); // node key -> node object drawn
  var linkKeys = new Set();
  var links = [];
  var types = [];
  var selected = null;
  var selectedLink = null;
  var fitted = false;
  var panelSeq = 0;

  var kg = window.kgGraph = {
    settled: false, // the layout has stopped moving
    loaded: false,  // the first data set is drawn
    hovered: null,  // key of the node under the pointer
    nodeCount: function () { return byId.size; },
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
  function radius(n) { return 3 * Math.sqrt(1 + Math.sqrt(n.degree)); }
  function tip(text) { var d = document.createElement("div"); d.textContent = text; return d; }

  var fg = new ForceGraph(el)
    .width(el.clientWidth)
    .height(el.clientHeight)
    .nodeId("id")
    .nodeRelSize(3)
    .nodeVal(function (n) { return 1 + Math.sqrt(n.degree); })
    .nodeColor(function (n) { return colors[n.type] || "#999"; })
    .nodeLabel(function (n) { return tip(n.name + " · " + (n.type || "untyped") + " · " + n.degree + " edges"); })
    .linkLabel(function (l) { return tip(l.label); })
    .linkColor(function (l) { return l === selectedLink ? "#d64545" : "rgba(110,110,110,0.35)"; })
    .linkWidth(function (l) { return l === selectedLink ? 2 : 0.6; })
    .nodeCanvasObjectMode(function () { return "after"; })
    .nodeCanvasObject(drawLabel)
    .onNodeHover(function (n) { kg.hovered = n ? n.id : null; })
    .onNodeClick(function (n) { select(n.id); })
    .onLinkClick(showEdge)
    .onBackgroundClick(function () { selected = null; selectedLink = null; })
    .onEngineStop(function () {
      if (!fitted) { fitted = true; fg.zoomToFit(0, 30); }
      kg.settled = true;
    });
  setVisibility();

  // drawLabel writes a node's name once it is large enough on screen, and
  // rings the selected node.
  function drawLabel(n, ctx, scale) {
    var r = radius(n);
    if (n === selected) {
      ctx.beginPath();
      ctx.arc(n.x, n.y, r + 2 / scale, 0, 2 * Math.PI);
      ctx.strokeStyle = "#d64545";
      ctx.lineWidth = 2 / scale;
      ctx.stroke();
    }
    if (r * scale < 7 && n !== selected) return;
    ctx.font = (11 / scale) + "px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    ctx.fillStyle = "#1d1d1f";
    ctx.fillText(n.name, n.x, n.y + r + 1 / scale);
  }

  // tune trades layout quality for speed on large graphs: fewer, faster
  // ticks, a weaker and shorter-ranged charge, no arrows.
  function tune(count) {
    var big = count > 3000;
    fg.d3AlphaDecay(big ? 0.05 : 0.0228)
      .d3VelocityDecay(big ? 0.5 : 0.4)
      .warmupTicks(big ? 10 : 0)
      .cooldownTicks(big ? 140 : 300)
      .cooldownTime(big ? 1500 : 8000)
      .linkDirectionalArrowLength(count > 1500 ? 0 : 3)
      .linkDirectionalArrowRelPos(1);
    fg.d3Force("charge").strength(big ? -14 : -40).distanceMax(big ? 160 : 400);
    fg.d3Force("link").distance(big ? 18 : 34);
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
  function setData(res, merge, anchorKey) {
    types = res.types || [];
    types.forEach(function (t) {
      if (!(t.type in colors)) colors[t.type] = PALETTE[Object.keys(colors).length % PALETTE.length];
    });
    buildLegend();
    var nodes = merge ? fg.graphData().nodes : [];
    if (!merge) { byId = new Map(); linkKeys = new Set(); links = []; fitted = false; }
    var anchor = anchorKey && byId.get(anchorKey);
    res.nodes.forEach(function (n) {
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
    kg.settled = false;
    tune(nodes.length);
    fg.graphData({ nodes: nodes, links: links });
    kg.loaded = true;
    var shown = "Showing " + fmt(byId.size) + " of " + fmt(res.total_nodes) + " nodes, " + fmt(links.length) + " edges";
    if (res.total_nodes === 0) shown = "This version has no nodes yet.";
    else if (byId.size < res.total_nodes && !merge) shown += " (around the best-connected nodes)";
    status(shown);
    allBtn.style.display = byId.size >= res.total_nodes ? "none" : "";
  }

  function buildLegend() {
    legendEl.textContent = "";
    types.forEach(function (t) {
      var b = document.createElement("button");
      b.type = "button";
      b.dataset.type = t.type;
      b.classList.toggle("off", !!hidden[t.type]);
      var sw = document.createElement("span");
      sw.className = "sw";
      sw.style.background = colors[t.type];
      b.append(sw, document.createTextNode((t.type || "untyped") + " " + fmt(t.count)));
      b.addEventListener("click", function () {
        hidden[t.type] = !hidden[t.type];
        b.classList.toggle("off", hidden[t.type]);
        setVisibility();
      });
      legendEl.append(b);
    });
  }

  // select centres a node and shows its panel. A node not drawn yet is
  // fetched with its neighbourhood first.
  function select(key) {
    var n = byId.get(key);
    if (!n) {
      expand(key).then(function () { if (byId.has(key)) select(key); });
      return false;
    }
    selected = n;
    selectedLink = null;
    if (n.x !== undefined) {
      fg.centerAt(n.x, n.y, 500);
      if (fg.zoom() < 2.5) fg.zoom(3, 500);
    }
    showPanel(cfg.node_url + encodeURIComponent(key));
    return true;
  }

  function showEdge(l) {
    selectedLink = l;
    selected = null;
    var q = new URLSearchParams({ source: l.source.id, label: l.label, target: l.target.id });
    showPanel(cfg.edge_url + "?" + q);
  }

  // showPanel loads an HTML fragment into the side panel; only the latest
  // request wins.
  function showPanel(url) {
    var seq = ++panelSeq;
    side.setAttribute("aria-busy", "true");
    fetch(url).then(function (r) {
      return r.text().then(function (html) {
        if (seq !== panelSeq) return;
        side.removeAttribute("aria-busy");
        if (r.ok) side.innerHTML = html;
        else side.textContent = "Could not load the details (" + r.status + ").";
      });
    }).catch(function () { side.textContent = "Could not load the details."; });
  }

  function expand(key) {
    status("Loading the neighbourhood…");
    return fetchGraph({ focus: key, depth: 1 })
      .then(function (res) { setData(res, true, key); })
      .catch(function (err) { status(err.message); });
  }

  // find centres the best match among drawn nodes (exact, prefix, then
  // substring; ties by degree), else asks the server.
  function find(text) {
    var t = text.toLowerCase();
    var best = null, bestScore = 0;
    byId.forEach(function (n) {
      var name = n.name.toLowerCase();
      var s = name === t ? 3 : name.indexOf(t) === 0 ? 2 : name.indexOf(t) >= 0 ? 1 : 0;
      if (s > bestScore || (s && s === bestScore && n.degree > best.degree)) { best = n; bestScore = s; }
    });
    if (best) { select(best.id); return; }
    fetchGraph({ q: text, limit: 1 }).then(function (res) {
      if (!res.nodes.length) { status("No node matches “" + text + "”."); return; }
      select(res.nodes[0].id);
    }).catch(function (err) { status(err.message); });
  }

  document.getElementById("graph-search").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var q = document.getElementById("graph-q").value.trim();
    if (q) find(q);
  });
  document.getElementById("graph-fit").addEventListener("click", function () { fg.zoomToFit(400, 30); });
  allBtn.addEventListener("click", function () {
    status("Loading all nodes…");
    fetchGraph({}).then(function (res) { setData(res, false); }).catch(function (err) { status(err.message); });
  });
  side.addEventListener("click", function (ev) {
    var a = ev.target.closest("[data-select],[data-expand]");
    if (!a) return;
    ev.preventDefault();
    if (a.dataset.expand) expand(a.dataset.expand);
    else select(a.dataset.select);
  });
  window.addEventListener("resize", function () { fg.width(el.clientWidth).height(el.clientHeight); });

  // First view: a focus from the URL, everything, or past the threshold the
  // neighbourhoods of the best-connected nodes.
  var first = {};
  if (cfg.focus) { first = { focus: cfg.focus, depth: 2 }; }
  else if (!cfg.load_all && cfg.total > cfg.threshold) { first = { limit: cfg.threshold }; }
  fetchGraph(first).then(function (res) {
    setData(res, false);
    if (cfg.focus) select(cfg.focus);
  }).catch(function (err) { status(err.message); });
})();
