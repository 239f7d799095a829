// compare.js draws the compare page's union graph (or the two versions side
// by side), filters the graph and the item tables, and shows both versions'
// details of the selected item. Data comes from the JSON script #cmp-data
// (see handlers/compare.go, unionGraph).
(function () {
  "use strict";

  var COLORS = { added: "#1f9d55", removed: "#d64545", changed: "#d49a1a", unchanged: "#9aa0a6" };
  var dataEl = document.getElementById("cmp-data");
  if (!dataEl || typeof ForceGraph === "undefined") {
    return;
  }
  var data = JSON.parse(dataEl.textContent);
  var nodeById = {};
  data.nodes.forEach(function (n) { nodeById[n.id] = n; });
  var edgeById = {};
  data.edges.forEach(function (e) { edgeById[e.id] = e; });
  // Size follows degree; the best-connected nodes are named at any zoom.
  var degree = {};
  data.edges.forEach(function (e) {
    degree[e.source] = (degree[e.source] || 0) + 1;
    degree[e.target] = (degree[e.target] || 0) + 1;
  });
  var NAMED = 15;
  var named = {};
  data.nodes.slice().sort(function (a, b) { return (degree[b.id] || 0) - (degree[a.id] || 0); })
    .slice(0, NAMED).forEach(function (n) { if (degree[n.id]) named[n.id] = true; });
  function radius(n) { return 4 * Math.sqrt(1 + Math.sqrt(degree[n.id] || 0)); }

  var state = { diffOnly: false, type: "", label: "", selected: "", split: false };
  var views = {}; // name -> {fg, el, side, objs, settled}

  function nodeVisible(n) {
    if (state.diffOnly && n.status === "unchanged") return false;
    if (state.type && n.type !== state.type) return false;
    return true;
  }

  function edgeVisible(e) {
    if (state.diffOnly && e.status === "unchanged") return false;
    if (state.label && e.label !== state.label) return false;
    return true;
  }

  // onSide reports whether an item exists in the view's version: the union
  // view shows everything, "a" what version a has, "b" what b has.
  function onSide(item, side) {
    if (side === "a") return !!item.a;
    if (side === "b") return !!item.b;
    return true;
  }

  function graphFor(view) {
    var nodes = [];
    var shown = {};
    data.nodes.forEach(function (n) {
      if (!onSide(n, view.side) || !nodeVisible(n)) return;
      var o = view.objs[n.id];
      if (!o) {
        o = view.objs[n.id] = { id: n.id, name: n.name, type: n.type, status: n.status };
      }
      shown[n.id] = true;
      nodes.push(o);
    });
    var links = [];
    data.edges.forEach(function (e) {
      if (!e.source || !e.target || !shown[e.source] || !shown[e.target]) return;
      if (!onSide(e, view.side) || !edgeVisible(e)) return;
      links.push({ id: e.id, source: e.source, target: e.target, label: e.label, status: e.status });
    });
    return { nodes: nodes, links: links };
  }

  function makeView(name, elId, side) {
    var el = document.getElementById(elId);
    var view = { el: el, side: side, objs: {}, settled: false };
    var fg = new ForceGraph(el)
      .width(Math.max(el.clientWidth, 100))
      .height(Math.max(el.clientHeight, 100))
      .nodeId("id")
      .nodeLabel(function (n) { return window.kgText(n.name + " (" + n.type + ") · " + n.status); })
      .nodeColor(function (n) { return COLORS[n.status]; })
      .nodeRelSize(4)
      .nodeVal(function (n) { return 1 + Math.sqrt(degree[n.id] || 0); })
      .linkColor(function (l) { return COLORS[l.status]; })
      .linkLabel(function (l) { return window.kgText(l.label + " · " + l.status); })
      .linkDirectionalArrowLength(3)
      .linkDirectionalArrowRelPos(1)
      .cooldownTicks(300)
      .nodeCanvasObjectMode(function () { return "after"; })
      .nodeCanvasObject(function (n, ctx, scale) {
        var r = radius(n);
        if (n.id === state.selected) {
          ctx.beginPath();
          ctx.arc(n.x, n.y, r + 3, 0, 2 * Math.PI);
          ctx.strokeStyle = "#2f6fed";
          ctx.lineWidth = 2 / scale;
          ctx.stroke();
        }
        if (scale > 2.2 || n.id === state.selected || named[n.id]) {
          ctx.font = (11 / scale) + "px system-ui, sans-serif";
          ctx.textAlign = "center";
          ctx.lineWidth = 3 / scale;
          ctx.strokeStyle = "rgba(255,255,255,0.9)";
          ctx.strokeText(n.name, n.x, n.y + r + 10 / scale);
          ctx.fillStyle = "#1d1d1f";
          ctx.fillText(n.name, n.x, n.y + r + 10 / scale);
        }
      })
      .onNodeClick(function (n) { select(n.id); })
      .onLinkClick(function (l) { select(l.id); })
      .onEngineStop(function () {
        if (!view.settled) {
          view.settled = true;
          fg.zoomToFit(300, 20);
        }
      });
    view.fg = fg;
    views[name] = view;
    return view;
  }

  function redraw() {
    Object.keys(views).forEach(function (k) {
      var v = views[k];
      v.settled = false;
      v.fg.graphData(graphFor(v));
    });
    filterTables();
  }

  function resize() {
    Object.keys(views).forEach(function (k) {
      var v = views[k];
      if (!v.el.hidden) {
        v.fg.width(Math.max(v.el.clientWidth, 100)).height(Math.max(v.el.clientHeight, 100));
      }
    });
  }

  function filterTables() {
    document.querySelectorAll('[data-testid="node-items"] tr.item').forEach(function (tr) {
      var n = nodeById[tr.dataset.id];
      tr.hidden = !(n && nodeVisible(n));
    });
    document.querySelectorAll('[data-testid="edge-items"] tr.item').forEach(function (tr) {
      var e = edgeById[tr.dataset.id];
      tr.hidden = !(e && edgeVisible(e));
    });
  }

  // Detail panel --------------------------------------------------------

  function el(tag, text, cls) {
    var x = document.createElement(tag);
    if (text !== undefined && text !== null) x.textContent = text;
    if (cls) x.className = cls;
    return x;
  }

  function sideBlock(title, item, isEdge) {
    var box = el("div");
    box.appendChild(el("h4", title));
    if (!item) {
      box.appendChild(el("p", "absent", "muted"));
      return box;
    }
    var dl = el("div", null, "small");
    var rows = isEdge
      ? [["source", item.source], ["label", item.label], ["target", item.target], ["keywords", item.keywords], ["weight", String(item.weight)]]
      : [["key", item.key], ["name", item.name], ["type", item.type]];
    rows.forEach(function (r) {
      if (r[1] === undefined || r[1] === "") return;
      var p = el("div");
      p.appendChild(el("strong", r[0] + ": "));
      p.appendChild(document.createTextNode(r[1]));
      dl.appendChild(p);
    });
    box.appendChild(dl);
    if (item.description) box.appendChild(el("p", item.description, "small"));
    if (item.properties && Object.keys(item.properties).length) {
      box.appendChild(el("pre", JSON.stringify(item.properties, null, 1)));
    }
    return box;
  }

  function showDetail(id) {
    var panel = document.getElementById("cmp-detail");
    if (!panel) return;
    panel.textContent = "";
    var item = nodeById[id] || edgeById[id];
    if (!item) {
      panel.appendChild(el("p", "Click a node, or a row of the tables below, to see both versions' details.", "muted"));
      return;
    }
    var isEdge = !!edgeById[id];
    var head = el("div");
    head.appendChild(el("span", item.status, "badge st-" + item.status));
    head.appendChild(document.createTextNode(" "));
    var title = isEdge
      ? (nodeName(item.source) + " —" + item.label + "→ " + nodeName(item.target))
      : (item.name + " (" + item.type + ")");
    head.appendChild(el("strong", title));
    head.dataset.testid = "detail-title";
    panel.appendChild(head);
    if (item.fields && item.fields.length) {
      panel.appendChild(el("p", "changed: " + item.fields.join(", "), "small"));
    }
    if (item.desc && item.desc.length) {
      panel.appendChild(el("h4", "Description diff"));
      var p = el("p", null, "small");
      p.dataset.testid = "desc-diff";
      item.desc.forEach(function (s) {
        var cls = s.op === "+" ? "diff-add" : s.op === "-" ? "diff-del" : "";
        p.appendChild(el("span", s.text, cls));
      });
      panel.appendChild(p);
    }
    var both = el("div", null, "both");
    both.appendChild(sideBlock(data.a, item.a, isEdge));
    both.appendChild(sideBlock(data.b, item.b, isEdge));
    panel.appendChild(both);
    if (!isEdge) {
      var rel = data.edges.filter(function (e) { return e.source === id || e.target === id; }).slice(0, 40);
      if (rel.length) {
        panel.appendChild(el("h4", "Edges"));
        var ul = el("ul", null, "small");
        rel.forEach(function (e) {
          var li = el("li");
          li.appendChild(el("span", e.status, "badge st-" + e.status));
          var a = el("a", " " + nodeName(e.source) + " —" + e.label + "→ " + nodeName(e.target));
          a.href = "#";
          a.addEventListener("click", function (ev) { ev.preventDefault(); select(e.id); });
          li.appendChild(a);
          ul.appendChild(li);
        });
        panel.appendChild(ul);
      }
    }
  }

  function nodeName(id) {
    var n = nodeById[id];
    return n ? n.name : "?";
  }

  function select(id) {
    state.selected = id;
    document.querySelectorAll("tr.item.sel").forEach(function (tr) { tr.classList.remove("sel"); });
    document.querySelectorAll('tr.item[data-id="' + CSS.escape(id) + '"]').forEach(function (tr) { tr.classList.add("sel"); });
    showDetail(id);
    Object.keys(views).forEach(function (k) {
      var v = views[k];
      var o = v.objs[id];
      if (o && o.x !== undefined && !v.el.hidden) {
        v.fg.centerAt(o.x, o.y, 400);
      }
      v.fg.nodeColor(v.fg.nodeColor()); // repaint
    });
  }

  // Wiring --------------------------------------------------------------

  var union = makeView("union", "cmp-union", "");
  union.fg.graphData(graphFor(union));
  var left = null, right = null;

  function setSplit(split) {
    state.split = split;
    document.getElementById("cmp-union").hidden = split;
    document.getElementById("cmp-left").hidden = !split;
    document.getElementById("cmp-right").hidden = !split;
    var btn = document.getElementById("cmp-layout");
    if (btn) btn.textContent = split ? "Union graph" : "Side by side";
    if (split && !left) {
      left = makeView("a", "cmp-left", "a");
      right = makeView("b", "cmp-right", "b");
      left.fg.graphData(graphFor(left));
      right.fg.graphData(graphFor(right));
    }
    resize();
  }

  var diffOnly = document.getElementById("cmp-diff-only");
  if (diffOnly) diffOnly.addEventListener("change", function () { state.diffOnly = diffOnly.checked; redraw(); });
  var typeSel = document.getElementById("cmp-type");
  if (typeSel) typeSel.addEventListener("change", function () { state.type = typeSel.value; redraw(); });
  var labelSel = document.getElementById("cmp-label");
  if (labelSel) labelSel.addEventListener("change", function () { state.label = labelSel.value; redraw(); });
  // The search box finds a node by name (exact first, then the first that
  // contains the text), selects it and centres the graph on it.
  var search = document.getElementById("cmp-search");
  var searchMsg = document.getElementById("cmp-search-msg");
  function find(q) {
    q = q.trim().toLowerCase();
    if (!q) return null;
    var hit = null;
    data.nodes.forEach(function (n) {
      var name = (n.name || "").toLowerCase();
      if (name === q && (!hit || hit.exact !== true)) hit = { id: n.id, exact: true };
      else if (!hit && name.indexOf(q) >= 0) hit = { id: n.id, exact: false };
    });
    return hit && hit.id;
  }
  if (search) search.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var q = search.querySelector("input").value;
    var id = find(q);
    searchMsg.textContent = id ? "" : "No node named \u201c" + q.trim() + "\u201d in this comparison.";
    if (!id) return;
    select(id);
    Object.keys(views).forEach(function (k) {
      var v = views[k];
      if (!v.el.hidden && v.fg.zoom() < 2.5) v.fg.zoom(3, 400);
    });
  });
  var layout = document.getElementById("cmp-layout");
  if (layout) layout.addEventListener("click", function () { setSplit(!state.split); });
  document.querySelectorAll("tr.item").forEach(function (tr) {
    tr.addEventListener("click", function () { select(tr.dataset.id); });
    tr.addEventListener("keydown", function (ev) { if (ev.key === "Enter") select(tr.dataset.id); });
  });
  window.addEventListener("resize", resize);

  // kgCompare lets tests and the console read what is drawn.
  window.kgCompare = {
    // counts returns the union graph's drawn nodes by colour, and whether
    // its layout has settled.
    counts: function () {
      var out = { added: 0, removed: 0, changed: 0, unchanged: 0, settled: union.settled };
      var color = union.fg.nodeColor();
      union.fg.graphData().nodes.forEach(function (n) {
        var c = typeof color === "function" ? color(n) : color;
        Object.keys(COLORS).forEach(function (k) { if (COLORS[k] === c) out[k]++; });
      });
      return out;
    },
    select: select,
    selected: function () { return state.selected; },
    named: function () { return Object.keys(named); },
    split: setSplit,
    // pointOf returns a node's position in the union graph, in page
    // coordinates.
    pointOf: function (id) {
      var o = union.objs[id];
      if (!o || o.x === undefined) return null;
      var p = union.fg.graph2ScreenCoords(o.x, o.y), box = union.el.getBoundingClientRect();
      return { x: box.left + p.x, y: box.top + p.y };
    }
  };
})();
