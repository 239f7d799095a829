// compare.js draws the compare page's union graph (or the two versions side
// by side), filters the graph and the item tables, and shows both versions'
// details of the selected item. Data comes from the JSON script #cmp-data
// (see handlers/compare.go, unionGraph).
//
// The union is laid out once, by the graph view's layout worker
// (static/js/graph-layout.js) from places seeded by the node keys, and
// every panel draws its nodes at the union's places with the union's
// camera: a node is at the same place in the union and in both versions
// side by side, and on every reload. Panning or zooming one side moves the
// other with it.
(function () {
  "use strict";

  var script = document.currentScript;

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
  // Size follows degree; the best-connected nodes are named at any zoom,
  // every node of a union of up to ALL_NAMED nodes.
  var degree = {};
  data.edges.forEach(function (e) {
    degree[e.source] = (degree[e.source] || 0) + 1;
    degree[e.target] = (degree[e.target] || 0) + 1;
  });
  var NAMED = 15, ALL_NAMED = 50;
  var named = {};
  if (data.nodes.length <= ALL_NAMED) data.nodes.forEach(function (n) { named[n.id] = true; });
  else data.nodes.slice().sort(function (a, b) { return (degree[b.id] || 0) - (degree[a.id] || 0); })
    .slice(0, NAMED).forEach(function (n) { if (degree[n.id]) named[n.id] = true; });
  function radius(n) { return 4 * Math.sqrt(1 + Math.sqrt(degree[n.id] || 0)); }

  var state = { diffOnly: false, type: "", label: "", selected: "", split: false };
  var views = {}; // name -> {fg, el, side, objs, settled}

  // The union's layout: each node's place by id, and the box holding them.
  var place = {}, box = null;

  // seeded returns two numbers in [-0.5, 0.5) made from a key (FNV-1a,
  // then mulberry32), as the graph view seeds its layout.
  function seeded(key) {
    var h = 2166136261;
    for (var i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
    function next() {
      h = (h + 0x6D2B79F5) | 0;
      var t = Math.imul(h ^ (h >>> 15), 1 | h);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
    }
    return [next(), next()];
  }

  // layoutUnion lays the whole union out in the worker and calls done when
  // it has stopped moving.
  function layoutUnion(done) {
    var n = data.nodes.length, index = {}, x = new Float32Array(n), y = new Float32Array(n), mass = new Float32Array(n), pairs = [];
    var spread = Math.sqrt(Math.max(n, 1)) * 10;
    data.nodes.forEach(function (nd, i) {
      index[nd.id] = i;
      var r = seeded(nd.id);
      x[i] = r[0] * spread;
      y[i] = r[1] * spread;
    });
    data.edges.forEach(function (e) {
      var s = index[e.source], t = index[e.target];
      if (s === undefined || t === undefined) return;
      pairs.push(s, t);
      mass[s]++;
      mass[t]++;
    });
    var edges = Uint32Array.from(pairs);
    function finish(xy) {
      var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      data.nodes.forEach(function (nd, i) {
        var p = place[nd.id] = { x: xy ? xy[2 * i] : x[i], y: xy ? xy[2 * i + 1] : y[i] };
        x0 = Math.min(x0, p.x); x1 = Math.max(x1, p.x); y0 = Math.min(y0, p.y); y1 = Math.max(y1, p.y);
      });
      box = n ? { x0: x0, y0: y0, x1: x1, y1: y1 } : null;
      done();
    }
    var worker;
    try {
      worker = new Worker(script.dataset.layout);
    } catch (err) {
      finish(null);
      return;
    }
    worker.onmessage = function (ev) {
      if (!ev.data.done) return;
      worker.terminate();
      finish(ev.data.xy);
    };
    worker.onerror = function () { finish(null); };
    worker.postMessage({ type: "start", gen: 1, x: x, y: y, mass: mass, edges: edges, multilevel: true, libURL: script.dataset.fa2, draw: null },
      [mass.buffer, edges.buffer]);
  }

  // fitView shows the union's box in a view: every panel the same.
  function fitView(view, ms) {
    if (!box) return;
    var fg = view.fg, W = fg.width(), H = fg.height(), pad = 30;
    var k = Math.min((W - 2 * pad) / Math.max(box.x1 - box.x0, 1e-6), (H - 2 * pad) / Math.max(box.y1 - box.y0, 1e-6));
    view.syncing = true;
    fg.centerAt((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2, ms);
    fg.zoom(k, ms);
    view.syncing = false;
  }

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
        var p = place[n.id] || { x: 0, y: 0 };
        o = view.objs[n.id] = { id: n.id, name: n.name, type: n.type, status: n.status, x: p.x, y: p.y, fx: p.x, fy: p.y };
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
      .enableNodeDrag(false)
      .cooldownTicks(1)
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
          fitView(view, 0);
          view.settled = true;
        }
      })
      .onZoom(function (t) {
        // Side by side, the other version follows.
        if (view.syncing || !view.side) return;
        var other = views[view.side === "a" ? "b" : "a"];
        if (!other || !other.settled) return;
        var c = fg.screen2GraphCoords(fg.width() / 2, fg.height() / 2);
        other.syncing = true;
        other.fg.zoom(t.k, 0);
        other.fg.centerAt(c.x, c.y, 0);
        other.syncing = false;
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

  var union = null, left = null, right = null;

  function setSplit(split) {
    state.split = split;
    document.getElementById("cmp-union").hidden = split;
    document.getElementById("cmp-left").hidden = !split;
    document.getElementById("cmp-right").hidden = !split;
    var btn = document.getElementById("cmp-layout");
    if (btn) btn.textContent = split ? "Union graph" : "Side by side";
    if (split && !left && union) {
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
  var layoutBtn = document.getElementById("cmp-layout");
  if (layoutBtn) layoutBtn.addEventListener("click", function () { setSplit(!state.split); });
  document.querySelectorAll("tr.item").forEach(function (tr) {
    tr.addEventListener("click", function () { select(tr.dataset.id); });
    tr.addEventListener("keydown", function (ev) { if (ev.key === "Enter") select(tr.dataset.id); });
  });
  window.addEventListener("resize", resize);

  // The graph is drawn once the union is laid out.
  layoutUnion(function () {
    union = makeView("union", "cmp-union", "");
    union.fg.graphData(graphFor(union));
    if (state.split) {
      state.split = false;
      setSplit(true);
    }
  });

  // kgCompare lets tests and the console read what is drawn.
  window.kgCompare = {
    // counts returns the union graph's drawn nodes by colour, and whether
    // its layout has settled.
    counts: function () {
      if (!union) return { added: 0, removed: 0, changed: 0, unchanged: 0, settled: false };
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
    pointOf: function (id) { return union ? pointIn(union, id, true) : null; },
    // sidePoint returns a node's position in the panel of version "a" or
    // "b", from the panel's top left corner; settled says both panels are
    // drawn.
    sidePoint: function (side, id) { var v = views[side]; return v ? pointIn(v, id, false) : null; },
    settled: function () { return !!(left && right && left.settled && right.settled); }
  };

  // pointIn returns a node's place in a view, on the page or in the panel.
  function pointIn(view, id, onPage) {
    var o = view.objs[id];
    if (!o || o.x === undefined || !view.fg.graphData().nodes.some(function (n) { return n.id === id; })) return null;
    var p = view.fg.graph2ScreenCoords(o.x, o.y), b = view.el.getBoundingClientRect();
    return onPage ? { x: b.left + p.x, y: b.top + p.y } : { x: p.x, y: p.y };
  }
})();
