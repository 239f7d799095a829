// kgstudio graph view: draws one extraction version on a 2D canvas, laid
// out by a multilevel ForceAtlas2 (static/js/graph-fa2.js) in a web worker
// (static/js/graph-layout.js) until the layout converges. Measured against force-graph and sigma.js (WebGL) by
// BenchmarkGraphRender, this draws the most frames per second and keeps
// the main thread free. Colour by type or by community (the legend
// toggles types or communities), size by degree, the names of the
// best-connected nodes (more as you zoom in), search, a side panel for
// nodes and edges, neighbourhood expansion, and a "load all" switch for
// graphs past the threshold. A graph that keeps fact times (a dialogue's
// memory) is read as of a date (an input and a slider over the days its
// facts changed), without the facts that ended unless asked; those are
// drawn dashed and pale. The view fits the graph while the layout
// moves, until the user pans, zooms or picks a node. Nodes start at places
// seeded by their keys, so a reload draws the same picture; connected
// components are laid out apart and packed side by side; a dragged node
// stays where it is put until unpinned; edge labels appear closer in, and
// a small graph names every node.
// window.kgGraph exposes the state to tests and benchmarks.
(function () {
  "use strict";

  var cfg = JSON.parse(document.getElementById("graph-config").textContent);
  var el = document.getElementById("graph");
  var side = document.getElementById("graph-side");
  var statusEl = document.getElementById("graph-status");
  var legendEl = document.getElementById("graph-legend");
  var allBtn = document.getElementById("graph-all");
  var WORKER_URL = cfg.layout_url;
  var DRAW_URL = cfg.draw_url;
  var FA2_URL = cfg.fa2_url;

  // colorOf gives a type its colour (static/js/colors.js): the common
  // types their own, any other one no other type of the view holds.
  var colorOf = window.kgColors();
  var EDGE_SELECTED = "#d64545";
  var hidden = {};      // type -> true when toggled off in the legend
  // Colouring by community: the communities of the coarsest level and
  // each node key's (the communities API, fetched when first asked),
  // their colours from the same rule (a view of their own), and the
  // communities toggled off in the legend.
  var colorBy = cfg.color_by === "community" ? "community" : "type";
  var comm = null;      // {communities: [{id, title, size}], members: {key: id}, byId: {id: info}}
  var groupOf = new Int32Array(0); // node index -> community id, -1 for none
  var commColorOf = window.kgColors();
  var hiddenComm = {};  // community id -> true when toggled off
  // Nodes with no drawn edge: unlinked[i] is 1 for such a node, and
  // hideUnlinked hides them all (their count is on the toolbar's button).
  var unlinked = new Uint8Array(0), unlinkedCount = 0, hideUnlinked = false, unlinkedChosen = false;
  var unlinkedBtn = document.getElementById("graph-unlinked");
  var colorSel = document.getElementById("graph-color");
  var legendNote = document.getElementById("graph-legend-note");
  var byId = new Map(); // node key -> index into nodes
  var nodes = [];       // nodes from the API, in drawing order
  var links = [];       // edges from the API
  var linkKeys = null;  // keys of links, made when an answer is merged
  var dashed = null;    // 1 per link a later fact retired, null when none
  var es = new Uint32Array(0), et = new Uint32Array(0); // edge ends, node indices
  var xs = new Float32Array(0), ys = new Float32Array(0); // positions, layout units
  var types = [];
  var selected = -1;    // index of the selected node
  var selectedLink = -1; // index of the selected edge
  var hovered = -1;
  var panelSeq = 0;
  var panelURL = null; // the open side panel's address, as of the current date
  var byDegree = [];    // node indices, best-connected first (label order)
  var view = "";        // what the status line says is drawn
  var follow = true;    // fit the view to the graph while the layout moves
  var fitFilter = null; // the nodes to fit (a Set of indices), null for all visible ones
  var drawGen = 0;      // counts setData calls; the worker's answers carry it
  var LABELS = 30;      // names always drawn, best-connected first
  var MAX_LABELS = 300; // names drawn at most per frame
  var ALL_LABELS = 50;  // a graph of at most this many nodes has every name drawn
  var EDGE_ZOOM = 1.5;  // edge labels are drawn from this many times the fit's zoom,
  var EDGE_LABELS = 200; // at most this many per frame
  var FAST_MS = 12;     // a frame slower than this is reused while the view moves

  // The camera: the layout point at the centre of the canvas and the
  // zoom (pixels per layout unit); fitK is the zoom of the last fit, which
  // node sizes grow from as the user zooms in.
  var cam = { x: 0, y: 0, k: 1 }, fitK = 1, anim = null;
  var canvas = document.createElement("canvas");
  canvas.className = "graph-draw";
  var ctx = canvas.getContext("2d");
  // The last full frame, reused (moved and scaled) while the view moves
  // when a full frame is slow.
  var cache = document.createElement("canvas"), cacheCtx = cache.getContext("2d"), cacheCam = null;
  var tipEl = document.createElement("div");
  tipEl.className = "graph-tip";
  tipEl.hidden = true;
  el.append(canvas, tipEl);
  var W = 0, H = 0, PR = 1;
  function resize() {
    PR = window.devicePixelRatio || 1;
    W = el.clientWidth;
    H = el.clientHeight;
    canvas.width = cache.width = Math.max(1, Math.round(W * PR));
    canvas.height = cache.height = Math.max(1, Math.round(H * PR));
    canvas.style.width = W + "px";
    canvas.style.height = H + "px";
    cacheCam = null;
    redraw();
  }

  // window.kgstudioGraph is what tests and tools read of the drawing:
  // settled (the layout has stopped), and nodes(): each drawn node's
  // key, place and label box ({x0, y0, x1, y1}, or null when its label
  // is not drawn) in CSS pixels relative to the canvas.
  window.kgstudioGraph = {
    get settled() { return kg.settled; },
    get stored() { return !!kg.stored; },
    nodes: function () {
      var out = [];
      for (var i = 0; i < nodes.length; i++) {
        if (!shown(i)) continue;
        var b = labelBoxes.get(i);
        out.push({ key: nodes[i].id, x: sx(xs[i]), y: sy(ys[i]), label: b ? { x0: b[0], y0: b[1], x1: b[2], y1: b[3] } : null });
      }
      return out;
    }
  };
  var kg = window.kgGraph = {
    settled: false,   // the layout has stopped moving
    loaded: false,    // the first data set is drawn
    converged: false, // the layout stopped because it converged
    drawnAt: 0,       // performance.now() of the first frame with data
    convergedAt: 0,   // performance.now() when the layout converged
    energy: 0,        // the layout's last energy (see graph-layout.js)
    iterations: 0,    // layout iterations run for the current data (the finest level)
    coarseIterations: 0, // and on its coarser graphs
    frames: 0,        // frames drawn
    hovered: null,    // key of the node under the pointer
    labels: 0,        // names drawn in the last frame
    edgeLabels: 0,    // edge labels drawn in the last frame
    nodeCount: function () { return nodes.length; },
    nodes: function () { return nodes.slice(); },
    colorOf: colorOf,
    colorBy: function () { return colorBy; },
    // nodeColor is a drawn node's colour as drawn now; communityOf the
    // community it is coloured by (-1 for none, undefined before the
    // communities are loaded).
    nodeColor: function (key) { var i = byId.get(key); return i === undefined ? null : nodeColor(i); },
    communityOf: function (key) { var i = byId.get(key); return i === undefined || !comm ? undefined : groupOf[i]; },
    setColorBy: setColorBy,
    edgeCount: function () { return links.length; },
    // expiredCount counts the drawn edges a later fact retired.
    expiredCount: function () { return links.filter(function (l) { return l.expired; }).length; },
    links: function () { return links.slice(); },
    time: function () { return { as_of: timeView.as_of || "", expired: !!timeView.expired, dates: dates.slice() }; },
    select: select,
    // layoutOf returns a drawn node's position in layout units.
    layoutOf: function (key) { var i = byId.get(key); return i === undefined ? null : { x: xs[i], y: ys[i] }; },
    // pointOf returns a drawn node's position in page coordinates.
    pointOf: function (key) {
      var i = byId.get(key);
      if (i === undefined) return null;
      var box = el.getBoundingClientRect();
      return { x: box.left + sx(xs[i]), y: box.top + sy(ys[i]) };
    },
    // moveView pans by dx, dy pixels and zooms by factor at once, without
    // animation (benchmarks drive the camera with it).
    moveView: function (dx, dy, factor) {
      takeOver();
      cam.x += dx / cam.k;
      cam.y += dy / cam.k;
      cam.k *= factor;
      redraw(true);
    }
  };

  // fmt writes a count with thousands separators (toLocaleString's first
  // call costs tens of milliseconds on the main thread).
  function fmt(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function status(text) { statusEl.textContent = text; }
  function linkKey(l) { return l.source + "\x1f" + l.label + "\x1f" + l.target; }
  function sx(x) { return (x - cam.x) * cam.k + W / 2; }
  function sy(y) { return (y - cam.y) * cam.k + H / 2; }
  // radius is a node's radius in pixels: by degree, growing (slower than
  // the zoom) as the user zooms in past the fit.
  var baseR = 3;
  function radius(i) {
    var grow = Math.min(Math.max(Math.sqrt(cam.k / fitK), 0.6), 6);
    return baseR * Math.sqrt(1 + Math.sqrt(nodes[i].degree)) * grow;
  }
  function shown(i) {
    if (hideUnlinked && unlinked[i]) return false;
    return colorBy === "community" && comm ? !hiddenComm[groupOf[i]] : !hidden[nodes[i].type];
  }
  // countUnlinked marks the nodes no drawn edge touches. Unless the user
  // chose, they are hidden when they are more than a sixth of what is
  // drawn beside linked ones (a grid of them would take the canvas).
  function countUnlinked() {
    unlinked = new Uint8Array(nodes.length).fill(1);
    for (var i = 0; i < es.length; i++) { unlinked[es[i]] = 0; unlinked[et[i]] = 0; }
    unlinkedCount = 0;
    for (var j = 0; j < unlinked.length; j++) unlinkedCount += unlinked[j];
    if (!unlinkedChosen) hideUnlinked = unlinkedCount > 0 && unlinkedCount < nodes.length && unlinkedCount * 6 > nodes.length;
    syncUnlinked();
  }
  function syncUnlinked() {
    if (!unlinkedBtn) return;
    unlinkedBtn.hidden = unlinkedCount === 0;
    unlinkedBtn.textContent = (hideUnlinked ? "Show " : "Hide ") + fmt(unlinkedCount) + " unlinked";
    unlinkedBtn.setAttribute("aria-pressed", hideUnlinked ? "true" : "false");
  }
  if (unlinkedBtn) unlinkedBtn.addEventListener("click", function () {
    hideUnlinked = !hideUnlinked;
    unlinkedChosen = true;
    syncUnlinked();
    legendToggled();
    fitFilter = null;
    fit(400);
  });
  // nodeColor is a node's colour: its type's, or its community's (grey
  // for a node alone in its community, or in none).
  function nodeColor(i) {
    if (colorBy !== "community" || !comm) return colorOf(nodes[i].type);
    var c = groupOf[i], info = comm.byId[c];
    return !info || info.size < 2 ? commColorOf("") : commColorOf("community " + c);
  }
  // assignGroups finds every drawn node's community: a node of the
  // community view is one; any other, the one its key is in.
  function assignGroups() {
    if (!comm) return;
    groupOf = new Int32Array(nodes.length);
    nodes.forEach(function (n, i) {
      var c = n.id.indexOf("community:") === 0 ? +n.id.slice(10) : comm.members[n.id];
      groupOf[i] = c === undefined ? -1 : c;
    });
  }

  // redraw asks for a frame; moving says the camera moved (a reused frame
  // may do), else the graph changed.
  var frameAsked = false, moving = false, fullAfter = 0, lastFull = 0;
  function redraw(cameraOnly) {
    if (!cameraOnly) cacheCam = null;
    moving = moving || !!cameraOnly;
    if (frameAsked) return;
    frameAsked = true;
    requestAnimationFrame(frame);
  }
  function frame(now) {
    frameAsked = false;
    if (anim) stepAnimation(now);
    var reuse = moving && cacheCam && lastFull > FAST_MS;
    moving = false;
    if (workerPending && !bitmap) {
      // A big graph's first frame comes from the layout worker: drawing
      // the whole graph here first would block the page for over 100 ms.
      if (anim) redraw(true);
      return;
    }
    if (bitmap) {
      // A frame the layout worker drew.
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(bitmap, 0, 0);
      keep(bitmap);
      bitmap.close();
      bitmap = null;
      lastFull = Math.max(FAST_MS + 1, bitmapMS);
    } else if (reuse) {
      drawReused();
      // A full frame once the view rests: 150 ms, or as long as the last
      // full frame took (a frame of a very big graph blocks the page, so
      // a short pause between moves should not start one).
      clearTimeout(fullAfter);
      fullAfter = setTimeout(function () { cacheCam = null; redraw(); }, Math.max(150, lastFull));
    } else drawFull();
    drawLabels();
    kg.frames++;
    if (kg.loaded && !kg.drawnAt && nodes.length) kg.drawnAt = performance.now();
    if (settleGen === drawGen && !anim) { kg.settled = true; settleGen = -1; }
    if (anim) redraw(true);
  }

  // drawFull draws every visible edge and node (static/js/graph-draw.js)
  // and keeps the frame for reuse while the view moves.
  function drawFull() {
    var t0 = performance.now();
    kgDrawGraph(ctx, { xs: xs, ys: ys, es: es, et: et, cam: cam, W: W, H: H, PR: PR, shown: shown, radius: radius,
      color: nodeColor, arrows: nodes.length <= 1500, selectedLink: selectedLink,
      dashed: dashed });
    keep(canvas);
    lastFull = performance.now() - t0;
  }
  function keep(img) {
    cacheCtx.setTransform(1, 0, 0, 1, 0, 0);
    cacheCtx.clearRect(0, 0, cache.width, cache.height);
    cacheCtx.drawImage(img, 0, 0);
    cacheCam = { x: cam.x, y: cam.y, k: cam.k };
  }

  // drawReused moves and scales the last full frame to the camera.
  function drawReused() {
    var s = cam.k / cacheCam.k;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    // A layout point p sits at (p - cacheCam) * cacheCam.k + W/2 in the
    // cache and at (p - cam) * cam.k + W/2 now.
    var ox = (W / 2 - (cacheCam.x - cam.x) * cam.k - W / 2 * s) * PR,
      oy = (H / 2 - (cacheCam.y - cam.y) * cam.k - H / 2 * s) * PR;
    ctx.setTransform(s, 0, 0, s, ox, oy);
    ctx.drawImage(cache, 0, 0);
  }

  // drawLabels writes names over the frame: right of the node, on a white
  // halo. The best-connected nodes inside the view come first; a name that
  // would overlap one already written is skipped. Zoomed out, LABELS names
  // are written; zoomed in, all the names in view, up to MAX_LABELS; a
  // graph of up to ALL_LABELS nodes has all its names. The selected and
  // hovered nodes always get theirs, and a red ring marks the selected
  // one. Closer in (or on a small graph), edges long enough to hold their
  // label get it at their middle.
  var labelBoxes = new Map(); // node index -> its drawn label's box [x0, y0, x1, y1], CSS pixels
  function drawLabels() {
    ctx.setTransform(PR, 0, 0, PR, 0, 0);
    if (!nodes.length) { kg.labels = 0; kg.edgeLabels = 0; return; }
    drawEdgeLabels();
    ctx.font = "12px system-ui, sans-serif";
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.lineJoin = "round";
    ctx.lineWidth = 3;
    ctx.strokeStyle = "rgba(255,255,255,0.92)";
    ctx.fillStyle = "#1d1d1f";
    var boxes = [];
    labelBoxes = new Map();
    function put(i, force) {
      var x = sx(xs[i]) + radius(i) + 3, y = sy(ys[i]), name = nodes[i].name;
      var tw = ctx.measureText(name).width;
      var b = [x - 2, y - 8, x + tw + 2, y + 8];
      if (!force) {
        if (b[2] > W) return false;
        for (var j = 0; j < boxes.length; j++) {
          var o = boxes[j];
          if (b[0] < o[2] && b[2] > o[0] && b[1] < o[3] && b[3] > o[1]) return false;
        }
      }
      boxes.push(b);
      labelBoxes.set(i, b);
      ctx.strokeText(name, x, y);
      ctx.fillText(name, x, y);
      return true;
    }
    function inView(i) { var x = sx(xs[i]), y = sy(ys[i]); return x >= 0 && x <= W && y >= 0 && y <= H; }
    var special = [];
    if (selected >= 0 && shown(selected)) special.push(selected);
    if (hovered >= 0 && hovered !== selected && shown(hovered)) special.push(hovered);
    special.forEach(function (i) { put(i, true); });
    // Count the nodes in view (cheap) to know whether all names fit.
    var count = 0, i;
    for (i = 0; i < byDegree.length && count <= MAX_LABELS; i++) if (shown(byDegree[i]) && inView(byDegree[i])) count++;
    var budget = count <= MAX_LABELS && cam.k >= 1.2 * fitK ? MAX_LABELS : LABELS;
    var all = nodes.length <= ALL_LABELS;
    if (all) budget = ALL_LABELS;
    var drawn = 0, tries = 0;
    for (i = 0; i < byDegree.length && drawn < budget && tries < 4 * budget; i++) {
      var n = byDegree[i];
      if (n === selected || n === hovered || !shown(n) || !inView(n)) continue;
      tries++;
      if (put(n, all)) drawn++;
    }
    kg.labels = drawn + special.length;
    if (selected >= 0 && shown(selected)) {
      ctx.beginPath();
      ctx.arc(sx(xs[selected]), sy(ys[selected]), radius(selected) + 2, 0, 2 * Math.PI);
      ctx.strokeStyle = EDGE_SELECTED;
      ctx.lineWidth = 2;
      ctx.stroke();
    }
  }

  // drawEdgeLabels writes the labels of the edges in view whose drawn
  // length holds them, small and grey, at the edge's middle, none over
  // another; from EDGE_ZOOM times the fit's zoom, or at any zoom on a graph
  // of up to ALL_LABELS nodes.
  var GENERIC_LABEL = "related_to";
  function drawEdgeLabels() {
    var drawn = 0;
    if (cam.k >= EDGE_ZOOM * fitK || nodes.length <= ALL_LABELS) {
      ctx.font = "10px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.lineJoin = "round";
      ctx.lineWidth = 3;
      ctx.strokeStyle = "rgba(255,255,255,0.92)";
      ctx.fillStyle = "#6b6b70";
      var boxes = [];
      for (var i = 0; i < es.length && drawn < EDGE_LABELS; i++) {
        var s = es[i], t = et[i], label = links[i].label;
        // The generic "related_to" says nothing a line does not: left
        // unwritten, so the labels that say what an edge is stand out.
        if (!label || label === GENERIC_LABEL || !shown(s) || !shown(t)) continue;
        var ax = sx(xs[s]), ay = sy(ys[s]), bx = sx(xs[t]), by = sy(ys[t]), mx = (ax + bx) / 2, my = (ay + by) / 2;
        if (mx < 0 || mx > W || my < 0 || my > H) continue;
        var tw = ctx.measureText(label).width;
        if (Math.hypot(bx - ax, by - ay) < tw + radius(s) + radius(t) + 12) continue;
        var b = [mx - tw / 2 - 2, my - 7, mx + tw / 2 + 2, my + 7], free = true;
        for (var j = 0; j < boxes.length && free; j++) {
          var o = boxes[j];
          if (b[0] < o[2] && b[2] > o[0] && b[1] < o[3] && b[3] > o[1]) free = false;
        }
        if (!free) continue;
        boxes.push(b);
        ctx.strokeText(label, mx, my);
        ctx.fillText(label, mx, my);
        drawn++;
      }
    }
    kg.edgeLabels = drawn;
  }

  // The camera moves to a state over ms milliseconds (ease in and out).
  function moveTo(x, y, k, ms) {
    if (!ms) { anim = null; cam.x = x; cam.y = y; cam.k = k; redraw(true); return; }
    anim = { from: { x: cam.x, y: cam.y, k: cam.k }, to: { x: x, y: y, k: k }, t0: performance.now(), ms: ms };
    redraw(true);
  }
  function stepAnimation(now) {
    var p = Math.min(1, (now - anim.t0) / anim.ms), e = p < 0.5 ? 2 * p * p : 1 - Math.pow(-2 * p + 2, 2) / 2;
    cam.x = anim.from.x + (anim.to.x - anim.from.x) * e;
    cam.y = anim.from.y + (anim.to.y - anim.from.y) * e;
    cam.k = anim.from.k * Math.pow(anim.to.k / anim.from.k, e);
    moving = true;
    if (p >= 1) anim = null;
  }

  // fit zooms to the visible nodes (or those fitFilter keeps), with room
  // for the names on the right.
  function fit(ms) {
    var c = kgFitCamera(xs, ys, nodes.length, function (i) { return shown(i) && (!fitFilter || fitFilter.has(i)); }, W, H);
    if (!c) return;
    if (fitFilter && fitFilter.size === 1) c.k = fitK * 3;
    if (!fitFilter) fitK = c.k;
    moveTo(c.x, c.y, c.k, ms);
  }

  // The user takes the view over by panning, zooming or dragging; from then
  // on the view only moves when asked (Fit, a search, Load all, Expand).
  function takeOver() { follow = false; anim = null; framesOff(); }

  // nodeAt is the node under a canvas point, the nearest within its
  // radius and 3 pixels; edgeAt the edge within 4 pixels.
  function nodeAt(px, py) {
    var best = -1, bestD = Infinity;
    for (var i = 0; i < nodes.length; i++) {
      if (!shown(i)) continue;
      var d = Math.hypot(sx(xs[i]) - px, sy(ys[i]) - py);
      if (d <= radius(i) + 3 && d < bestD) { best = i; bestD = d; }
    }
    return best;
  }
  function edgeAt(px, py) {
    var best = -1, bestD = 4;
    for (var i = 0; i < es.length; i++) {
      var s = es[i], t = et[i];
      if (!shown(s) || !shown(t)) continue;
      var ax = sx(xs[s]), ay = sy(ys[s]), bx = sx(xs[t]), by = sy(ys[t]);
      if (Math.min(ax, bx) - 4 > px || Math.max(ax, bx) + 4 < px || Math.min(ay, by) - 4 > py || Math.max(ay, by) + 4 < py) continue;
      var dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
      var u = l2 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / l2)) : 0;
      var d = Math.hypot(ax + u * dx - px, ay + u * dy - py);
      if (d < bestD) { best = i; bestD = d; }
    }
    return best;
  }

  // Pointer: a drag from a node moves the node and pins it there (the
  // layout no longer moves it; a double-click or Unpin all lets it go back
  // to the layout's place); a drag elsewhere pans; the wheel zooms at the
  // pointer; a click without a drag picks a node, else an edge, else
  // clears the selection.
  var drag = null;
  function local(ev) { var b = canvas.getBoundingClientRect(); return { x: ev.clientX - b.left, y: ev.clientY - b.top }; }
  canvas.addEventListener("pointerdown", function (ev) {
    takeOver();
    var p = local(ev);
    drag = { x: p.x, y: p.y, moved: false, node: nodeAt(p.x, p.y) };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener("pointermove", function (ev) {
    var p = local(ev);
    if (drag && drag.node >= 0 && (drag.moved || Math.hypot(p.x - drag.x, p.y - drag.y) > 3)) {
      drag.moved = true;
      pinAt(drag.node, cam.x + (p.x - W / 2) / cam.k, cam.y + (p.y - H / 2) / cam.k);
      tip(null);
      return;
    }
    if (drag && (drag.moved || Math.hypot(p.x - drag.x, p.y - drag.y) > 3)) {
      drag.moved = true;
      cam.x -= (p.x - drag.x) / cam.k;
      cam.y -= (p.y - drag.y) / cam.k;
      drag.x = p.x;
      drag.y = p.y;
      tip(null);
      redraw(true);
      return;
    }
    hover(p, ev);
  });
  canvas.addEventListener("pointerup", function (ev) {
    var d = drag;
    drag = null;
    if (!d || d.moved) return;
    var p = local(ev), i = nodeAt(p.x, p.y);
    if (i >= 0) { select(nodes[i].id); return; }
    var e = edgeAt(p.x, p.y);
    if (e >= 0) { showEdge(e); return; }
    selected = -1;
    selectedLink = -1;
    redraw();
  });
  canvas.addEventListener("dblclick", function (ev) {
    var p = local(ev), i = nodeAt(p.x, p.y);
    if (i >= 0 && pins[nodes[i].id]) unpin(nodes[i].id);
  });
  canvas.addEventListener("pointerleave", function () { if (hovered >= 0) { hovered = -1; kg.hovered = null; redraw(true); } tip(null); });
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    takeOver();
    var p = local(ev), f = Math.exp(-ev.deltaY * (ev.deltaMode ? 0.05 : 0.002));
    // Keep the layout point under the pointer where it is.
    var gx = cam.x + (p.x - W / 2) / cam.k, gy = cam.y + (p.y - H / 2) / cam.k;
    cam.k = Math.min(Math.max(cam.k * f, fitK / 20), fitK * 200);
    cam.x = gx - (p.x - W / 2) / cam.k;
    cam.y = gy - (p.y - H / 2) / cam.k;
    redraw(true);
  }, { passive: false });
  function hover(p, ev) {
    var i = nodeAt(p.x, p.y);
    if (i !== hovered) { hovered = i; kg.hovered = i >= 0 ? nodes[i].id : null; redraw(true); }
    if (i >= 0) {
      var n = nodes[i];
      canvas.style.cursor = "pointer";
      tip(n.name + " · " + (n.type || "untyped") + " · " + n.degree + " edges", p);
      return;
    }
    var e = nodes.length <= 20000 ? edgeAt(p.x, p.y) : -1;
    canvas.style.cursor = e >= 0 ? "pointer" : "";
    tip(e >= 0 ? edgeTip(links[e]) : null, p);
  }
  // edgeTip is an edge's label and, for a fact that ended, when and why.
  function edgeTip(l) {
    if (!l.expired) return l.label;
    return l.label + " · ended" + (l.invalid_at ? " " + l.invalid_at : "") + (l.reason ? ": " + l.reason : "");
  }

  // tip shows text (as text) beside the pointer, or hides the tooltip.
  function tip(text, p) {
    if (text === null || text === undefined) { tipEl.hidden = true; return; }
    tipEl.textContent = text;
    tipEl.hidden = false;
    tipEl.style.left = (p.x + 12) + "px";
    tipEl.style.top = (p.y + 12) + "px";
  }

  // pins holds the nodes the user dragged, by key: where they were put
  // (x, y) and where the layout has them (lx, ly), which they go back to
  // when unpinned. They are kept in the browser's storage per version, so
  // a reload puts them back where they were put.
  var pins = {}, pinCount = 0;
  var pinStore = "kgstudio.pins:" + cfg.api;
  var unpinBtn = document.getElementById("graph-unpin");
  function loadPins() {
    var saved = null;
    try { saved = JSON.parse(window.localStorage.getItem(pinStore) || "null"); } catch (e) { saved = null; }
    if (!saved || typeof saved !== "object") return;
    Object.keys(saved).forEach(function (key) {
      var p = saved[key];
      if (!p || !isFinite(p.x) || !isFinite(p.y)) return;
      pins[key] = { x: +p.x, y: +p.y, lx: +p.x, ly: +p.y };
      pinCount++;
    });
  }
  function savePins() {
    var out = {};
    Object.keys(pins).forEach(function (key) { out[key] = { x: pins[key].x, y: pins[key].y }; });
    try {
      if (pinCount) window.localStorage.setItem(pinStore, JSON.stringify(out));
      else window.localStorage.removeItem(pinStore);
    } catch (e) { /* storage full or disabled: pins last until the page goes */ }
  }
  function pinAt(i, x, y) {
    var key = nodes[i].id, pin = pins[key];
    if (!pin) { pin = pins[key] = { lx: xs[i], ly: ys[i] }; pinCount++; syncPins(); }
    pin.x = xs[i] = x;
    pin.y = ys[i] = y;
    savePins();
    redraw();
  }
  function unpin(key) {
    var pin = pins[key];
    if (!pin) return;
    delete pins[key];
    pinCount--;
    var i = byId.get(key);
    if (i !== undefined) { xs[i] = pin.lx; ys[i] = pin.ly; }
    savePins();
    syncPins();
    redraw();
  }
  function syncPins() {
    if (unpinBtn) unpinBtn.hidden = pinCount === 0;
  }
  loadPins();
  syncPins();
  if (unpinBtn) unpinBtn.addEventListener("click", function () { Object.keys(pins).forEach(unpin); });
  kg.pinned = function () { return Object.keys(pins).sort(); };
  // relayout runs the layout again over what is drawn, as a merge that
  // adds nodes does (tests check that pins hold through it).
  kg.relayout = function () { drawGen++; layout(false); };
  kg.unpin = unpin;

  // The layout runs in a worker; each answer moves the nodes. An answer
  // for older data (drawGen) is dropped.
  // A fresh graph is laid out from coarse to fine (multilevel); after an
  // expansion the layout goes on from where the nodes are.
  var worker = null, settleGen = -1;
  // startWorker starts the worker and has it load its scripts, while the
  // graph is still being fetched.
  function startWorker() {
    if (worker) return;
    worker = new Worker(WORKER_URL);
    worker.onmessage = onLayout;
    worker.onerror = function () { status("The layout could not run in this browser."); kg.settled = true; workerPending = false; redraw(); };
    worker.postMessage({ type: "load", libURL: FA2_URL, drawURL: DRAW_URL });
  }
  // layout runs the layout in the worker (multilevel when fresh); still
  // has the worker only draw the nodes where they are (a stored layout).
  function layout(fresh, still) {
    startWorker();
    var n = nodes.length, x = xs.slice(), y = ys.slice(), mass = new Float32Array(n), edges = new Uint32Array(2 * es.length);
    for (var i = 0; i < es.length; i++) {
      edges[2 * i] = es[i];
      edges[2 * i + 1] = et[i];
      mass[es[i]]++;
      mass[et[i]]++;
    }
    kg.settled = false;
    kg.converged = false;
    kg.convergedAt = 0;
    // A big graph fitted whole is drawn by the worker while it moves.
    workerFrames = n > 3000 && follow && !fitFilter && !anyHidden();
    workerPending = workerFrames;
    var draw = null;
    if (workerFrames) {
      var palette = [], index = {}, colorIndex = new Uint16Array(n), rad = new Float32Array(n);
      for (i = 0; i < n; i++) {
        var c = nodeColor(i);
        if (index[c] === undefined) { index[c] = palette.length; palette.push(c); }
        colorIndex[i] = index[c];
        rad[i] = baseR * Math.sqrt(1 + Math.sqrt(nodes[i].degree));
      }
      draw = { url: DRAW_URL, W: W, H: H, PR: PR, palette: palette, colorIndex: colorIndex, radius: rad, dashed: dashed };
    }
    worker.postMessage({ type: "start", gen: drawGen, x: x, y: y, mass: mass, edges: edges, multilevel: fresh, still: !!still, libURL: FA2_URL, draw: draw },
      [x.buffer, y.buffer, mass.buffer, edges.buffer]);
  }
  // pollLayout asks for the version's stored layout every LAYOUT_POLL_MS
  // (at most LAYOUT_POLLS times) while the page lays the same graph out
  // itself, and draws it once it places every node: the version's own
  // layout, the one every other view shows, also after the page's own
  // has settled, unless the person has taken the view over (moved it,
  // searched, expanded).
  var LAYOUT_POLL_MIN = 3000, LAYOUT_POLL_MS = 2000, LAYOUT_POLLS = 90;
  function pollLayout(gen, wait, left) {
    if (left === undefined) left = LAYOUT_POLLS;
    setTimeout(function () {
      if (gen !== drawGen || !follow || left <= 0) return;
      fetch(cfg.api.replace(/\/graph$/, "/layout")).then(function (r) {
        if (gen !== drawGen || !follow) return;
        if (r.status === 202) { pollLayout(gen, LAYOUT_POLL_MS, left - 1); return; }
        if (!r.ok) return;
        return r.json().then(function (body) {
          if (gen !== drawGen || !follow) return;
          var keys = body.keys || [], xy = body.xy || [], nx = new Float32Array(nodes.length), ny = new Float32Array(nodes.length),
            found = 0, i;
          for (var k = 0; k < keys.length; k++) {
            i = byId.get(keys[k]);
            if (i === undefined) continue;
            nx[i] = xy[2 * k];
            ny[i] = xy[2 * k + 1];
            found++;
          }
          if (found < nodes.length) return;
          for (i = 0; i < nodes.length; i++) {
            var pin = pins[nodes[i].id];
            xs[i] = pin ? pin.x : nx[i];
            ys[i] = pin ? pin.y : ny[i];
          }
          drawGen++; // the page's own layout's ticks are dropped
          kg.stored = true;
          fit(0);
          placed();
        });
      }).catch(function () { /* the page's own layout goes on */ });
    }, wait);
  }

  // placed draws a graph the stored layout placed: nothing moves, so the
  // layout is done as soon as it is drawn.
  function placed() {
    kg.iterations = kg.coarseIterations = 0;
    if (nodes.length > 3000 && follow && !fitFilter && !anyHidden()) {
      // A big graph's frame is drawn by the worker, as while a layout
      // moves (drawn here it would block the page for half a second).
      layout(false, true);
      return;
    }
    if (worker) worker.postMessage({ type: "stop" });
    workerFrames = workerPending = false;
    kg.energy = 0;
    kg.converged = true;
    kg.convergedAt = performance.now();
    settleGen = drawGen;
    redraw();
  }
  // framesOff has the main thread draw again: the user moves the view, a
  // type is hidden or the canvas changes size.
  // workerPending: the worker draws and its first frame has not come yet.
  // bitmapMS: what the worker took to draw bitmap.
  var workerFrames = false, workerPending = false, bitmap = null, bitmapMS = 0;
  function framesOff() {
    workerPending = false;
    if (!workerFrames) return;
    workerFrames = false;
    worker.postMessage({ type: "frames", on: false });
  }

  // While the layout moves, a big graph is drawn at most every
  // LAYOUT_FRAME_MS, so that drawing leaves the worker the processor.
  var LAYOUT_FRAME_MS = 150;
  var pending = null, lastApplied = 0; // the latest positions, applied at the next frame
  function onLayout(ev) {
    var m = ev.data;
    if (m.gen !== drawGen) return;
    kg.energy = m.energy;
    kg.iterations = m.iterations;
    kg.coarseIterations = m.coarseIterations;
    var wait = nodes.length > 3000 && !m.done ? LAYOUT_FRAME_MS - (performance.now() - lastApplied) : 0;
    if (!pending) setTimeout(function () { requestAnimationFrame(applyLayout); }, Math.max(0, wait));
    else if (pending.bitmap) pending.bitmap.close();
    pending = m;
  }
  function applyLayout() {
    var m = pending;
    pending = null;
    lastApplied = performance.now();
    if (!m || m.gen !== drawGen) { if (m && m.bitmap) m.bitmap.close(); return; }
    workerPending = false;
    for (var i = 0; i < nodes.length; i++) {
      xs[i] = m.xy[2 * i];
      ys[i] = m.xy[2 * i + 1];
      var pin = pinCount ? pins[nodes[i].id] : null;
      if (pin) { pin.lx = xs[i]; pin.ly = ys[i]; xs[i] = pin.x; ys[i] = pin.y; }
    }
    if (m.bitmap && workerFrames && follow) {
      cam.x = m.cam.x;
      cam.y = m.cam.y;
      cam.k = fitK = m.cam.k;
      if (bitmap) bitmap.close();
      bitmap = m.bitmap;
      bitmapMS = m.drawMS || 0;
      redraw(true);
    } else {
      if (m.bitmap) m.bitmap.close();
      if (follow) fit(0);
      redraw();
    }
    if (!m.done) return;
    if (m.converged) { kg.converged = true; kg.convergedAt = performance.now(); }
    var g = drawGen;
    if (follow) { fit(fitFilter ? 300 : 0); }
    settleGen = g;
  }

  // fetchGraph answers the API's JSON in a task of its own after the one
  // that parsed it, so that parsing a big answer and drawing it do not
  // block the page as one. Every request asks for the time view.
  function fetchGraph(params) {
    var q = new URLSearchParams(params);
    if (cfg.layout === "live") q.set("layout", "live");
    if (timeView.as_of) q.set("as_of", timeView.as_of);
    if (timeView.expired) q.set("expired", "1");
    return fetch(cfg.api + "?" + q).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) { var err = new Error(body.error || r.statusText); err.status = r.status; throw err; }
        return new Promise(function (done) { setTimeout(function () { done(body); }, 0); });
      });
    });
  }

  // seeded returns two numbers in [-0.5, 0.5) made from a node's key
  // (FNV-1a, then mulberry32), so that a node starts at the same place on
  // every load and the layout, deterministic from its start, draws the
  // same picture on a reload.
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

  // setData draws an API answer, replacing the graph or merging into it.
  // New nodes start in a square that grows with the graph, at a place
  // seeded by their key; merged nodes start next to the anchor node so
  // they do not fly in.
  function setData(res, merge, anchorKey, what) {
    types = res.types || [];
    if (!merge) { byId = new Map(); nodes = []; links = []; linkKeys = null; selected = selectedLink = hovered = -1; }
    var anchor = anchorKey !== undefined && anchorKey !== null ? byId.get(anchorKey) : undefined;
    var fresh = new Set();
    var add = res.nodes.filter(function (n) { return !byId.has(n.id); });
    var n0 = nodes.length, count = n0 + add.length;
    var nx = new Float32Array(count), ny = new Float32Array(count);
    nx.set(xs.subarray(0, n0));
    ny.set(ys.subarray(0, n0));
    var spread = Math.sqrt(Math.max(count, 1)) * 10;
    // A fresh answer whose every node the version's stored layout places
    // is drawn there: the layout ran once, on the server (app/layout.go).
    var stored = !merge && add.length > 0 && add.every(function (n) { return n.pos && isFinite(n.pos[0]) && isFinite(n.pos[1]); });
    add.forEach(function (n, j) {
      var i = n0 + j;
      byId.set(n.id, i);
      nodes.push(n);
      if (stored) {
        nx[i] = n.pos[0];
        ny[i] = n.pos[1];
      } else {
        var r = seeded(n.id);
        nx[i] = anchor !== undefined ? nx[anchor] + r[0] * 10 : r[0] * spread;
        ny[i] = anchor !== undefined ? ny[anchor] + r[1] * 10 : r[1] * spread;
      }
      var pin = pins[n.id];
      if (pin) { nx[i] = pin.x; ny[i] = pin.y; }
    });
    res.nodes.forEach(function (n) { fresh.add(byId.get(n.id)); });
    xs = nx;
    ys = ny;
    // One answer holds an edge once (a version identifies an edge by its
    // source, label and target); merging an answer into the graph drops the
    // edges it already has, by keys made the first time it is needed.
    if (merge && !linkKeys) {
      linkKeys = new Set();
      links.forEach(function (l) { linkKeys.add(linkKey(l)); });
    }
    var m0 = links.length, ns = new Uint32Array(m0 + res.edges.length), nt = new Uint32Array(m0 + res.edges.length);
    ns.set(es.subarray(0, m0));
    nt.set(et.subarray(0, m0));
    res.edges.forEach(function (e) {
      var s = byId.get(e.source), t = byId.get(e.target);
      if (s === undefined || t === undefined) return;
      if (merge) {
        var k = linkKey(e);
        if (linkKeys.has(k)) return;
        linkKeys.add(k);
      }
      ns[links.length] = s;
      nt[links.length] = t;
      links.push(e);
    });
    es = ns.slice(0, links.length);
    et = nt.slice(0, links.length);
    dashed = null;
    links.forEach(function (l, i) {
      if (!l.expired) return;
      if (!dashed) dashed = new Uint8Array(links.length);
      dashed[i] = 1;
    });
    if (res.dates) setDates(res.dates);
    countUnlinked();
    baseR = count > 3000 ? 1.5 : count > 400 ? 3 : 5;
    byDegree = nodes.map(function (n, i) { return i; }).sort(function (a, b) { return nodes[b].degree - nodes[a].degree; });
    assignGroups();
    buildLegend();
    // An answer merged in that adds nothing (the neighbourhood of a node
    // whose neighbours are all drawn) leaves the drawing, the view and the
    // status as they were, and says so.
    var grew = !merge || add.length > 0 || links.length > m0;
    if (grew) drawGen++;
    kg.loaded = true;
    if (grew) {
      // Follow the layout again: the whole graph, or after an expansion
      // the neighbourhood that was fetched.
      follow = true;
      fitFilter = merge ? fresh : null;
      fit(0);
      kg.stored = stored;
      if (stored) placed();
      else {
        layout(!merge);
        // A big graph the server has not laid out yet is being laid out
        // there (faster than here): take its layout when it comes.
        if (!merge && nodes.length > LAYOUT_POLL_MIN && cfg.layout !== "live" && !timeView.as_of) pollLayout(drawGen, LAYOUT_POLL_MS / 2);
      }
    }
    if (!merge) view = what || "";
    else if (what && grew) view = view ? view + "; " + what : what;
    lastRes = res;
    lastMerge = merge;
    updateStatus();
    if (!grew && what) status(statusEl.textContent + " · nothing to add: " + what.replace(/^with /, "") + " are all shown");
  }

  // updateStatus says what is drawn: nodes and edges loaded, less those of
  // the types hidden in the legend.
  var lastRes = null, lastMerge = false;
  function updateStatus() {
    var res = lastRes;
    if (!res) return;
    var all = nodes.length >= res.total_nodes;
    var count = nodes.length, edges = es.length, off = hiddenNames();
    if (off.length) {
      count = edges = 0;
      for (var j = 0; j < nodes.length; j++) if (shown(j)) count++;
      for (var i = 0; i < es.length; i++) if (shown(es[i]) && shown(et[i])) edges++;
    }
    var line = "Showing " + (all && !off.length ? "all " + fmt(count) : fmt(count) + " of " + fmt(res.total_nodes)) +
      " nodes, " + fmt(edges) + " edges";
    if (res.total_nodes === 0) line = "This version has no nodes yet.";
    else {
      if (view && !(all && !lastMerge && !cfg.focus)) line += ": " + view;
      if (off.length) line += " (hidden: " + off.join(", ") + ")";
    }
    if (cfg.times) {
      line += timeView.as_of ? " · as of " + timeView.as_of : " · now";
      // The header counts the whole graph, the facts that ended or came
      // later included; this says how many nodes there were at the time.
      var sum = document.getElementById("graph-summary-time");
      if (sum && "expired_hidden" in res) {
        sum.textContent = "; " + fmt(res.total_nodes) + " " + (res.total_nodes === 1 ? "node" : "nodes") +
          (timeView.as_of ? " as of " + timeView.as_of : " now");
      }
      var ended = kg.expiredCount();
      if (timeView.expired) line += " · " + fmt(ended) + " expired " + (ended === 1 ? "fact" : "facts") + " dashed";
      else if (res.expired_hidden) line += " · " + fmt(res.expired_hidden) + " expired " + (res.expired_hidden === 1 ? "fact" : "facts") + " hidden";
    }
    status(line);
    kg.status = line;
    allBtn.hidden = all;
  }

  function nameOf(key, res) {
    var i = byId.get(key);
    if (i !== undefined) return nodes[i].name;
    for (var i = 0; i < res.nodes.length; i++) if (res.nodes[i].id === key) return res.nodes[i].name;
    return key;
  }

  // byCommunity says the legend and colours follow the communities.
  function byCommunity() { return colorBy === "community" && !!comm; }
  function anyHidden() {
    if (hideUnlinked && unlinkedCount) return true;
    var h = byCommunity() ? hiddenComm : hidden;
    return Object.keys(h).some(function (k) { return h[k]; });
  }
  // hiddenNames names what the legend has hidden.
  function hiddenNames() {
    var off = [];
    if (byCommunity()) {
      Object.keys(hiddenComm).forEach(function (k) {
        if (!hiddenComm[k]) return;
        var info = comm.byId[k];
        off.push(info && info.size > 1 ? info.title : "nodes alone");
      });
    } else Object.keys(hidden).forEach(function (k) { if (hidden[k]) off.push(k || "untyped"); });
    if (hideUnlinked && unlinkedCount) off.push(fmt(unlinkedCount) + " unlinked");
    return off;
  }
  function legendToggled() {
    framesOff();
    redraw();
    updateStatus();
  }

  // LEGEND_COMMUNITIES bounds the communities the legend lists.
  var LEGEND_COMMUNITIES = 40;
  // LEGEND_FOLD is how many entries the legend shows before "more": a
  // long legend would push the canvas below the fold.
  var LEGEND_FOLD = 10, legendOpen = false;
  // foldLegend hides the entries past LEGEND_FOLD behind a button that
  // shows them (and folds them again).
  function foldLegend() {
    var entries = legendEl.querySelectorAll('button[data-type], button[data-community]:not([data-community="alone"])');
    if (entries.length <= LEGEND_FOLD) return;
    for (var i = LEGEND_FOLD; i < entries.length; i++) entries[i].hidden = !legendOpen;
    var b = document.createElement("button");
    b.type = "button";
    b.className = "secondary legend-more";
    b.dataset.testid = "legend-more";
    b.textContent = legendOpen ? "fewer" : "+" + fmt(entries.length - LEGEND_FOLD) + " more";
    b.addEventListener("click", function () { legendOpen = !legendOpen; buildLegend(); });
    legendEl.append(b);
  }

  function buildLegend() {
    buildLegendEntries();
    foldLegend();
  }

  function buildLegendEntries() {
    legendEl.textContent = "";
    if (legendNote) legendNote.textContent = byCommunity() ? "Colour: community (click to hide) · size: number of edges" :
      "Colour: type (click to hide) · size: number of edges";
    if (byCommunity()) { buildCommunityLegend(); return; }
    types.forEach(function (t) {
      var b = document.createElement("button");
      b.type = "button";
      b.dataset.type = t.type;
      b.classList.toggle("off", !!hidden[t.type]);
      var sw = document.createElement("span");
      sw.className = "sw";
      sw.style.background = colorOf(t.type);
      b.append(sw, document.createTextNode((t.type || "untyped") + " " + fmt(t.count)));
      b.addEventListener("click", function () {
        hidden[t.type] = !hidden[t.type];
        b.classList.toggle("off", hidden[t.type]);
        legendToggled();
      });
      legendEl.append(b);
    });
  }

  // buildCommunityLegend lists the communities of the drawn nodes, largest
  // first (up to LEGEND_COMMUNITIES), then the nodes alone in theirs,
  // each in its colour; a click hides or shows a community.
  function buildCommunityLegend() {
    var drawn = {}, alone = 0;
    for (var i = 0; i < nodes.length; i++) {
      var info = comm.byId[groupOf[i]];
      if (info && info.size > 1) drawn[info.id] = info;
      else alone++;
    }
    var list = Object.keys(drawn).map(function (k) { return drawn[k]; })
      .sort(function (a, b) { return b.size - a.size || a.id - b.id; });
    // Colours in order of size, so that the largest take the palette's.
    list.forEach(function (c) { commColorOf("community " + c.id); });
    function entry(key, color, text, testid) {
      var b = document.createElement("button");
      b.type = "button";
      b.dataset.community = key;
      b.dataset.testid = testid;
      b.classList.toggle("off", !!hiddenComm[key]);
      var sw = document.createElement("span");
      sw.className = "sw";
      sw.style.background = color;
      b.append(sw, document.createTextNode(text));
      b.addEventListener("click", function () {
        // The nodes alone share one entry: it toggles every one of them.
        var keys = key === "alone" ? aloneKeys() : [key];
        var off = !hiddenComm[keys[0]];
        keys.forEach(function (k) { hiddenComm[k] = off; });
        b.classList.toggle("off", off);
        legendToggled();
      });
      legendEl.append(b);
    }
    function aloneKeys() {
      var ks = {};
      for (var i = 0; i < nodes.length; i++) {
        var info = comm.byId[groupOf[i]];
        if (!info || info.size < 2) ks[groupOf[i]] = true;
      }
      return Object.keys(ks);
    }
    list.slice(0, LEGEND_COMMUNITIES).forEach(function (c) {
      entry(String(c.id), commColorOf("community " + c.id), c.title + " " + fmt(c.size), "legend-community");
    });
    if (list.length > LEGEND_COMMUNITIES) {
      var more = document.createElement("span");
      more.className = "muted small";
      more.textContent = "and " + fmt(list.length - LEGEND_COMMUNITIES) + " smaller communities";
      legendEl.append(more);
    }
    if (alone) entry("alone", commColorOf(""), "alone in their community " + fmt(alone), "legend-alone");
  }

  // setColorBy colours the nodes by "type" or "community", fetching the
  // communities the first time; the legend follows.
  function setColorBy(mode) {
    colorBy = mode === "community" ? "community" : "type";
    if (colorSel) colorSel.value = colorBy;
    if (colorBy === "community" && !comm) {
      status("Loading the communities…");
      return fetch(cfg.communities_api).then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) throw new Error(body.error || r.statusText);
          comm = { communities: body.communities, members: body.members, byId: {} };
          body.communities.forEach(function (c) { comm.byId[c.id] = c; });
          assignGroups();
          recolor();
        });
      }).catch(function (err) {
        colorBy = "type";
        if (colorSel) colorSel.value = "type";
        status("The communities could not be loaded: " + err.message);
      });
    }
    recolor();
    return Promise.resolve();
  }
  function recolor() {
    buildLegend();
    framesOff();
    redraw();
    updateStatus();
  }
  if (colorSel) colorSel.addEventListener("change", function () { setColorBy(colorSel.value); });

  // select centres a node and shows its panel. A node not drawn yet is
  // fetched with its neighbourhood first.
  function select(key, opts) {
    // A community of the first view opens as its members.
    if (typeof key === "string" && key.indexOf("community:") === 0 && byId.has(key)) {
      var c = nodes[byId.get(key)];
      status("Opening “" + c.name + "”…");
      fetchGraph({ community: key.slice("community:".length) }).then(function (res) {
        setData(res, false, null, "the community “" + c.name + "” (" + res.nodes.length + " nodes; Load all for the whole graph)");
      }).catch(function (err) { status(err.message); });
      return true;
    }
    var i = byId.get(key);
    if (i === undefined) {
      expand(key).then(function () { if (byId.has(key)) select(key); });
      return false;
    }
    selected = i;
    selectedLink = -1;
    if (opts !== "nomove") {
      takeOver();
      // Closer in, as far as a graph of this size needs to part its nodes.
      moveTo(xs[i], ys[i], Math.max(cam.k, fitK * Math.min(3, Math.sqrt(nodes.length) / 4)), 500);
    }
    redraw();
    panelURL = function () { return atTime(cfg.node_url + encodeURIComponent(key), new URLSearchParams()); };
    showPanel(panelURL());
    return true;
  }

  function showEdge(i) {
    selectedLink = i;
    selected = -1;
    redraw();
    var l = links[i];
    var q = new URLSearchParams({ source: l.source, label: l.label, target: l.target });
    panelURL = function () { return atTime(cfg.edge_url, new URLSearchParams(q)); };
    showPanel(panelURL());
  }

  // atTime adds the date the graph is seen at to a side panel's query, so
  // that the panel shows the node or edge as it stood then.
  function atTime(url, q) {
    if (timeView.as_of) q.set("as_of", timeView.as_of);
    var s = q.toString();
    return s ? url + "?" + s : url;
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
        if (r.ok) { side.innerHTML = html; linkCommunity(); }
        else if (r.status === 404 && timeView.as_of) side.textContent = "Not in the graph as of " + timeView.as_of + ".";
        else side.textContent = "Could not load the details (" + r.status + ").";
      });
    }).catch(function () { side.textContent = "Could not load the details."; });
  }

  // linkCommunity adds to a node's panel, when the graph is coloured by
  // community, the node's community with a link to its report.
  function linkCommunity() {
    if (!byCommunity() || selected < 0 || !cfg.communities_page) return;
    var id = groupOf[selected], info = comm.byId[id];
    if (!info || info.size < 2) return;
    var p = document.createElement("p");
    p.className = "small";
    p.dataset.testid = "node-community";
    var a = document.createElement("a");
    a.href = cfg.communities_page + "#community-" + id;
    a.textContent = info.title;
    p.append(document.createTextNode("Community: "), a, document.createTextNode(" (" + fmt(info.size) + " members; its report)"));
    side.prepend(p);
  }

  function expand(key) {
    status("Loading the neighbourhood…");
    return fetchGraph({ focus: key, depth: 1 })
      .then(function (res) { setData(res, true, key, "with the neighbours of “" + nameOf(key, res) + "”"); })
      .catch(function (err) { status(err.message); });
  }

  // find centres the best match among drawn nodes (exact, prefix, then
  // substring; ties by degree). Short of an exact match among them it asks
  // the server for a node of exactly that name first (a graph drawn in
  // part may hold it), then for any name containing the text.
  function find(text) {
    // A search starts from what is drawn: a failed search's message goes.
    updateStatus();
    var t = text.toLowerCase();
    var best = null, bestScore = 0;
    nodes.forEach(function (n) {
      var name = n.name.toLowerCase();
      var s = name === t ? 3 : name.indexOf(t) === 0 ? 2 : name.indexOf(t) >= 0 ? 1 : 0;
      if (s > bestScore || (s && s === bestScore && n.degree > best.degree)) { best = n; bestScore = s; }
    });
    if (best && bestScore === 3) { select(best.id); return; }
    fetchGraph({ name: text, limit: 1 }).then(function (res) {
      if (res.nodes.length) { select(res.nodes[0].id); return; }
      if (best) { select(best.id); return; }
      return fetchGraph({ q: text, limit: 1 }).then(function (res) {
        if (!res.nodes.length) { status("No node matches “" + text + "”."); return; }
        select(res.nodes[0].id);
      });
    }).catch(function (err) { status(err.message); });
  }

  document.getElementById("graph-search").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var q = document.getElementById("graph-q").value.trim();
    if (q) find(q);
  });
  document.getElementById("graph-fit").addEventListener("click", function () { fitFilter = null; fit(400); });
  allBtn.addEventListener("click", function () {
    status("Loading all nodes…");
    base = {};
    fetchGraph({}).then(function (res) { setData(res, false, null, ""); }).catch(function (err) { status(err.message); });
  });
  window.addEventListener("resize", function () {
    if (worker) framesOff();
    resize();
    if (follow) fit(0);
  });
  resize();
  side.addEventListener("click", function (ev) {
    var a = ev.target.closest("[data-select],[data-expand]");
    if (!a) return;
    ev.preventDefault();
    if (a.dataset.expand) expand(a.dataset.expand);
    else select(a.dataset.select);
  });

  // The time view: as of a date (empty for now) and whether the facts that
  // ended are drawn. Changing it reloads what is drawn (base: the first
  // view's request, or all nodes after Load all).
  var timeView = { as_of: cfg.as_of || "", expired: !!cfg.expired };
  var dates = [];
  var asofEl = document.getElementById("graph-asof"), rangeEl = document.getElementById("graph-asof-range");
  var expiredEl = document.getElementById("graph-expired"), nowBtn = document.getElementById("graph-now");
  var reloadTimer = 0;
  function reload() {
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(function () {
      status("Loading " + (timeView.as_of ? "the graph as of " + timeView.as_of : "the current graph") + "…");
      fetchGraph(base).then(function (res) {
        setData(res, false, null, res.truncated ? "the best-connected nodes and their neighbours" : "");
        // The open side panel follows the date.
        if (panelURL) showPanel(panelURL());
      }).catch(function (err) { status(err.message); });
    }, 150);
  }
  // setDates takes the days the facts changed on: the slider steps through
  // them, its last step being now.
  function setDates(ds) {
    dates = ds;
    if (!rangeEl) return;
    rangeEl.max = String(dates.length);
    rangeEl.hidden = dates.length === 0;
    syncRange();
  }
  function syncRange() {
    if (!rangeEl) return;
    // Now is the last step; a date, the last day of change up to it.
    var i = dates.length;
    if (timeView.as_of) {
      var d = timeView.as_of.slice(0, 10);
      i = 0;
      while (i + 1 < dates.length && dates[i + 1] <= d) i++;
    }
    rangeEl.value = String(i);
  }
  function setAsOf(v) {
    timeView.as_of = v;
    if (asofEl) asofEl.value = /^\d{4}-\d{2}-\d{2}$/.test(v.slice(0, 10)) ? v.slice(0, 10) : "";
    syncRange();
    reload();
  }
  if (asofEl) asofEl.addEventListener("change", function () { setAsOf(asofEl.value); });
  if (rangeEl) rangeEl.addEventListener("input", function () {
    var i = +rangeEl.value;
    timeView.as_of = i < dates.length ? dates[i] : "";
    if (asofEl) asofEl.value = timeView.as_of;
    reload();
  });
  if (nowBtn) nowBtn.addEventListener("click", function () { setAsOf(""); });
  if (expiredEl) expiredEl.addEventListener("change", function () { timeView.expired = expiredEl.checked; reload(); });

  // First view: a focus from the URL, everything, or past the threshold the
  // neighbourhoods of the best-connected nodes.
  var first = {};
  if (cfg.focus) { first = { focus: cfg.focus, depth: 2 }; }
  else if (cfg.community != null) { first = { community: cfg.community }; }
  else if (!cfg.load_all && cfg.communities && cfg.total > cfg.communities) { first = { view: "communities" }; }
  else if (!cfg.load_all && cfg.total > cfg.threshold) { first = { limit: cfg.threshold }; }
  var base = !cfg.load_all && cfg.total > cfg.threshold ? { limit: cfg.threshold } : {};
  startWorker();
  var missing = false; // the focus names no node of this version
  fetchGraph(first).catch(function (err) {
    // A link to a node this version lacks (deleted by an edit, renamed)
    // opens the graph as it would open without one, and says so.
    if (!cfg.focus || err.status !== 404) throw err;
    missing = true;
    return fetchGraph(!cfg.load_all && cfg.total > cfg.threshold ? { limit: cfg.threshold } : {});
  }).then(function (res) {
    var what = "";
    if (missing) what = "No node “" + cfg.focus + "” in this version" + (res.truncated ? "; the best-connected nodes and their neighbours" : "");
    else if (cfg.focus) what = "the neighbourhood of “" + nameOf(cfg.focus, res) + "” (2 steps)";
    else if (cfg.community != null) what = "community " + cfg.community + " (" + res.nodes.length + " nodes; Load all for the whole graph)";
    else if (first.view === "communities") what = "its " + res.nodes.length + " communities, a node each sized by its members (click one to open it)";
    else if (res.truncated) what = "the best-connected nodes and their neighbours";
    setData(res, false, null, what);
    if (colorBy === "community") setColorBy("community");
    // The focus is marked and its panel shown; the view fits the whole
    // neighbourhood around it.
    if (cfg.focus && !missing) select(cfg.focus, "nomove");
  }).catch(function (err) { status(err.message); });
})();
