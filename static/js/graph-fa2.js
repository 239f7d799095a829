// kgstudio graph layout: ForceAtlas2 on flat arrays, multilevel.
//
// The forces are ForceAtlas2's (Jacomy et al. 2014) as
// graphology-layout-forceatlas2 computes them with linear attraction and
// strong gravity: repulsion scalingRatio * m_i * m_j / d between every two
// nodes (Barnes-Hut past EXACT_MAX nodes), attraction w * d along each
// edge, gravity m_i * gravity * d towards the centre, and each node's
// adaptive speed from its swinging and traction. Masses are 1 + degree.
//
// A fresh layout is multilevel: the graph is coarsened by a maximal
// independent set taken in degree order (each other node joins its
// lightest neighbour in the set; masses and edge weights add up) until it
// has at most COARSEST nodes or stops shrinking. The coarsest graph is laid
// out from the given positions; each finer graph starts with its nodes
// around their cluster's place and is refined. The finest graph runs until
// it has converged: the mean distance a node moves in one iteration has
// stayed below TOLERANCE times the layout's extent (the diagonal of its
// bounding box) for CALM iterations in a row. A graph that starts from an
// earlier layout (an expansion) is refined at one level.
//
// KgLayout.create({x, y, mass, edges, multilevel, pack}) returns a layout whose
// step() runs one iteration (or moves to the next finer level);
// positions(xy) writes every node's place, interleaved, into a
// Float32Array; and whose fields say where it stands: iterations (at the
// finest level), coarseIterations, energy, converged, done. With pack,
// each connected component is laid out alone and the components are
// packed side by side (Packed, below).
/* exported KgLayout */
var KgLayout = (function () {
  "use strict";

  var TOLERANCE = 5e-4;      // mean step per iteration, as a share of the extent
  var CALM = 5;              // iterations in a row below TOLERANCE
  var MAX_ITERATIONS = 3000; // the finest level, if it never calms down
  var COARSEST = 200;        // stop coarsening at this many nodes
  var COARSEST_MAX = 300;    // iterations on the coarsest graph at most
  var LEVEL_MAX = 50;        // and on each graph between it and the finest
  var SHRINK = 0.8;          // a coarser graph must have at most this share of nodes
  var EXACT_MAX = 500;       // exact repulsion up to this many nodes (past it Barnes-Hut is faster: a 2,000-node view takes 0.3 s of CPU instead of 0.85 s, in as many iterations)
  var THETA = 1.2;           // Barnes-Hut: a region of width w at distance d counts as one body when w/d < THETA (Gephi's default)
  var SCALING = 10, GRAVITY = 0.05;
  var MAX_DEPTH = 30;        // quadtree depth; deeper points share a leaf
  var SPREAD = 0.3;          // prolonged nodes start this share of a coarse edge from their centre

  // Level is one graph of the hierarchy with its ForceAtlas2 state.
  function Level(n, es, et, w, mass) {
    this.n = n;
    this.es = es;
    this.et = et;
    this.w = w; // edge weights, or null for 1
    this.mass = mass;
    this.x = new Float64Array(n);
    this.y = new Float64Array(n);
    this.dx = new Float64Array(n);
    this.dy = new Float64Array(n);
    this.odx = new Float64Array(n);
    this.ody = new Float64Array(n);
    this.conv = new Float64Array(n).fill(1);
    this.slowDown = 1 + Math.log(Math.max(n, 1));
    this.parent = null; // index of each node's cluster in the next coarser level
    this.centre = null; // the node of this level each cluster is centred on
    this.tree = n > EXACT_MAX ? new Tree(n) : null;
  }

  // Tree is a Barnes-Hut quadtree laid out in preorder: region r's
  // subtree is r .. skip[r]-1, so a walk goes to r+1 to descend and to
  // skip[r] to pass. A leaf holds the nodes idx[lo[r]] .. idx[hi[r]-1].
  function Tree(n) {
    this.idx = new Uint32Array(n);
    this.count = 0;
    this.alloc(4 * n + 16);
  }
  Tree.prototype.alloc = function (cap) {
    var old = this.cap ? this : null;
    this.cap = cap;
    var fields = { mass: Float64Array, cx: Float64Array, cy: Float64Array, width: Float64Array,
      skip: Int32Array, lo: Int32Array, hi: Int32Array, leaf: Uint8Array };
    for (var k in fields) {
      var a = new fields[k](cap);
      if (old) a.set(old[k]);
      this[k] = a;
    }
  };

  // build sorts the level's nodes into the tree.
  Tree.prototype.build = function (lv) {
    var n = lv.n, x = lv.x, y = lv.y, idx = this.idx;
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (var i = 0; i < n; i++) {
      idx[i] = i;
      if (x[i] < x0) x0 = x[i];
      if (x[i] > x1) x1 = x[i];
      if (y[i] < y0) y0 = y[i];
      if (y[i] > y1) y1 = y[i];
    }
    this.count = 0;
    this.region(lv, 0, n, x0, y0, Math.max(x1 - x0, y1 - y0) || 1, 0);
  };

  // region adds the region of idx[lo..hi), a square at (left, bottom) of
  // the given width, and its subtree.
  Tree.prototype.region = function (lv, lo, hi, left, bottom, width, depth) {
    if (this.count >= this.cap) this.alloc(2 * this.cap);
    var r = this.count++, idx = this.idx, x = lv.x, y = lv.y, mass = lv.mass, i, k, t;
    this.width[r] = width;
    this.lo[r] = lo;
    this.hi[r] = hi;
    var m = 0, cx = 0, cy = 0;
    if (hi - lo <= 1 || depth >= MAX_DEPTH) {
      for (k = lo; k < hi; k++) {
        i = idx[k];
        m += mass[i];
        cx += x[i] * mass[i];
        cy += y[i] * mass[i];
      }
      this.leaf[r] = 1;
    } else {
      this.leaf[r] = 0;
      var h = width / 2, mx = left + h, my = bottom + h;
      // Split by x, then each half by y: quadrants in idx order.
      var a = lo, b = hi - 1;
      while (a <= b) {
        if (x[idx[a]] < mx) a++;
        else { t = idx[a]; idx[a] = idx[b]; idx[b] = t; b--; }
      }
      var split = a, cut0 = splitY(idx, y, lo, split, my), cut1 = splitY(idx, y, split, hi, my);
      var bounds = [lo, cut0, split, cut1, hi];
      for (var q = 0; q < 4; q++) {
        if (bounds[q + 1] <= bounds[q]) continue;
        var c = this.count;
        this.region(lv, bounds[q], bounds[q + 1], q < 2 ? left : mx, q % 2 ? my : bottom, h, depth + 1);
        m += this.mass[c];
        cx += this.cx[c] * this.mass[c];
        cy += this.cy[c] * this.mass[c];
      }
    }
    this.mass[r] = m;
    this.cx[r] = m > 0 ? cx / m : left + width / 2;
    this.cy[r] = m > 0 ? cy / m : bottom + width / 2;
    this.skip[r] = this.count;
  };

  // splitY partitions idx[lo..hi) into y < my, then the rest, and returns
  // where the rest starts.
  function splitY(idx, y, lo, hi, my) {
    var a = lo, b = hi - 1, t;
    while (a <= b) {
      if (y[idx[a]] < my) a++;
      else { t = idx[a]; idx[a] = idx[b]; idx[b] = t; b--; }
    }
    return a;
  }

  // iterate runs one ForceAtlas2 iteration on the level and returns its
  // energy: the mean distance a node moved over the layout's extent.
  function iterate(lv) {
    var n = lv.n, x = lv.x, y = lv.y, dx = lv.dx, dy = lv.dy, odx = lv.odx, ody = lv.ody,
      mass = lv.mass, conv = lv.conv, i, j, ddx, ddy, d2, f;
    for (i = 0; i < n; i++) {
      odx[i] = dx[i];
      ody[i] = dy[i];
      dx[i] = 0;
      dy[i] = 0;
    }
    if (lv.tree) repelTree(lv);
    else {
      for (i = 0; i < n; i++) {
        var xi = x[i], yi = y[i], mi = SCALING * mass[i];
        for (j = 0; j < i; j++) {
          ddx = xi - x[j];
          ddy = yi - y[j];
          d2 = ddx * ddx + ddy * ddy;
          if (d2 > 0) {
            f = mi * mass[j] / d2;
            dx[i] += ddx * f;
            dy[i] += ddy * f;
            dx[j] -= ddx * f;
            dy[j] -= ddy * f;
          }
        }
      }
    }
    for (i = 0; i < n; i++) {
      f = mass[i] * GRAVITY;
      dx[i] -= x[i] * f;
      dy[i] -= y[i] * f;
    }
    var es = lv.es, et = lv.et, w = lv.w;
    for (var e = 0; e < es.length; e++) {
      var s = es[e], t = et[e], we = w ? w[e] : 1;
      ddx = (x[s] - x[t]) * we;
      ddy = (y[s] - y[t]) * we;
      dx[s] -= ddx;
      dy[s] -= ddy;
      dx[t] += ddx;
      dy[t] += ddy;
    }
    var moved = 0, x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, slow = lv.slowDown;
    for (i = 0; i < n; i++) {
      var ax = odx[i] - dx[i], ay = ody[i] - dy[i], bx = odx[i] + dx[i], by = ody[i] + dy[i];
      var swing = 1 + Math.sqrt(mass[i] * Math.sqrt(ax * ax + ay * ay));
      var speed = conv[i] * Math.log(1 + Math.sqrt(bx * bx + by * by) / 2) / swing;
      conv[i] = Math.min(1, Math.sqrt(speed * (dx[i] * dx[i] + dy[i] * dy[i]) / swing));
      var sx = dx[i] * speed / slow, sy = dy[i] * speed / slow;
      x[i] += sx;
      y[i] += sy;
      moved += Math.sqrt(sx * sx + sy * sy);
      if (x[i] < x0) x0 = x[i];
      if (x[i] > x1) x1 = x[i];
      if (y[i] < y0) y0 = y[i];
      if (y[i] > y1) y1 = y[i];
    }
    var extent = Math.sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0));
    return n && extent > 0 ? moved / n / extent : 0;
  }

  // repelTree adds the repulsion, approximated by Barnes-Hut.
  function repelTree(lv) {
    var T = lv.tree;
    T.build(lv);
    var n = lv.n, x = lv.x, y = lv.y, dx = lv.dx, dy = lv.dy, mass = lv.mass, R = T.count,
      width = T.width, cx = T.cx, cy = T.cy, rm = T.mass, skip = T.skip, leaf = T.leaf,
      lo = T.lo, hi = T.hi, idx = T.idx, t2 = THETA * THETA;
    for (var i = 0; i < n; i++) {
      var xi = x[i], yi = y[i], mi = SCALING * mass[i], fx = 0, fy = 0, r = 0, ddx, ddy, d2, f;
      while (r < R) {
        if (leaf[r]) {
          for (var k = lo[r]; k < hi[r]; k++) {
            var j = idx[k];
            ddx = xi - x[j];
            ddy = yi - y[j];
            d2 = ddx * ddx + ddy * ddy;
            if (d2 > 0) {
              f = mi * mass[j] / d2;
              fx += ddx * f;
              fy += ddy * f;
            }
          }
          r++;
          continue;
        }
        ddx = xi - cx[r];
        ddy = yi - cy[r];
        d2 = ddx * ddx + ddy * ddy;
        if (width[r] * width[r] < t2 * d2) {
          f = mi * rm[r] / d2;
          fx += ddx * f;
          fy += ddy * f;
          r = skip[r];
        } else r++;
      }
      dx[i] += fx;
      dy[i] += fy;
    }
  }

  // coarsen returns the next coarser level of lv, or null when it would
  // not shrink enough.
  function coarsen(lv) {
    var n = lv.n, es = lv.es, et = lv.et, e, i, a;
    var start = new Uint32Array(n + 1);
    for (e = 0; e < es.length; e++) { start[es[e] + 1]++; start[et[e] + 1]++; }
    for (i = 0; i < n; i++) start[i + 1] += start[i];
    var adj = new Uint32Array(2 * es.length), fill = start.slice(0, n);
    for (e = 0; e < es.length; e++) { adj[fill[es[e]]++] = et[e]; adj[fill[et[e]]++] = es[e]; }
    var order = new Uint32Array(n);
    for (i = 0; i < n; i++) order[i] = i;
    order.sort(function (p, q) { return (start[q + 1] - start[q]) - (start[p + 1] - start[p]) || p - q; });
    // A maximal independent set, the best connected first.
    var parent = new Int32Array(n).fill(-1), blocked = new Uint8Array(n), centre = [], c = 0, u;
    for (i = 0; i < n; i++) {
      u = order[i];
      if (blocked[u]) continue;
      parent[u] = c++;
      centre.push(u);
      for (a = start[u]; a < start[u + 1]; a++) blocked[adj[a]] = 1;
    }
    if (c > SHRINK * n) return null;
    var cmass = new Float64Array(c);
    for (i = 0; i < c; i++) cmass[i] = lv.mass[centre[i]];
    // Every other node joins its lightest neighbouring cluster.
    for (i = 0; i < n; i++) {
      u = order[i];
      if (parent[u] >= 0 && centre[parent[u]] === u) continue;
      var best = -1;
      for (a = start[u]; a < start[u + 1]; a++) {
        var v = adj[a];
        if (centre[parent[v]] === v && (best < 0 || cmass[parent[v]] < cmass[best])) best = parent[v];
      }
      parent[u] = best;
      cmass[best] += lv.mass[u];
    }
    var index = new Map(), ces = [], cet = [], cw = [];
    for (e = 0; e < es.length; e++) {
      var p = parent[es[e]], q = parent[et[e]];
      if (p === q) continue;
      if (p > q) { var t = p; p = q; q = t; }
      var key = p * c + q, at = index.get(key), we = lv.w ? lv.w[e] : 1;
      if (at === undefined) {
        index.set(key, ces.length);
        ces.push(p);
        cet.push(q);
        cw.push(we);
      } else cw[at] += we;
    }
    lv.parent = parent;
    lv.centre = centre;
    return new Level(c, Uint32Array.from(ces), Uint32Array.from(cet), Float64Array.from(cw), cmass);
  }

  // prolong places the nodes of fine around their clusters in coarse:
  // each cluster's centre on its place, the others SPREAD of a mean coarse
  // edge away, in a direction from a fixed sequence.
  function prolong(fine, coarse) {
    var len = 0, e;
    for (e = 0; e < coarse.es.length; e++) {
      len += Math.hypot(coarse.x[coarse.es[e]] - coarse.x[coarse.et[e]], coarse.y[coarse.es[e]] - coarse.y[coarse.et[e]]);
    }
    len = coarse.es.length ? SPREAD * len / coarse.es.length : 1;
    for (var i = 0; i < fine.n; i++) {
      var p = fine.parent[i], a = i * 2.399963229728653; // the golden angle
      var r = fine.centre[p] === i ? 0 : len;
      fine.x[i] = coarse.x[p] + r * Math.cos(a);
      fine.y[i] = coarse.y[p] + r * Math.sin(a);
    }
  }

  // Layout runs the levels from the coarsest to the finest.
  function Layout(opts) {
    var n = opts.x.length, e = opts.edges.length / 2, es = new Uint32Array(e), et = new Uint32Array(e),
      mass = new Float64Array(n), i;
    for (i = 0; i < e; i++) {
      es[i] = opts.edges[2 * i];
      et[i] = opts.edges[2 * i + 1];
    }
    for (i = 0; i < n; i++) mass[i] = 1 + (opts.mass ? opts.mass[i] : 0);
    var finest = new Level(n, es, et, null, mass);
    this.levels = [finest];
    if (opts.multilevel) {
      for (var lv = finest; lv.n > COARSEST;) {
        lv = coarsen(lv);
        if (!lv) break;
        this.levels.push(lv);
      }
    }
    // The coarsest graph starts where its centres are.
    var top = this.levels[this.levels.length - 1], ids = null;
    for (i = this.levels.length - 2; i >= 0; i--) {
      var below = this.levels[i], next = new Int32Array(top.n);
      for (var c = 0; c < next.length; c++) next[c] = ids ? below.centre[ids[c]] : below.centre[c];
      ids = next;
    }
    for (i = 0; i < top.n; i++) {
      top.x[i] = opts.x[ids ? ids[i] : i];
      top.y[i] = opts.y[ids ? ids[i] : i];
    }
    this.at = this.levels.length - 1;
    this.levelIterations = 0;
    this.calm = 0;
    this.iterations = 0;
    this.coarseIterations = 0;
    this.energy = Infinity;
    this.converged = false;
    this.done = n === 0;
  }

  // step runs one iteration of the current level, then moves to the next
  // finer level once this one has calmed down or used its iterations.
  Layout.prototype.step = function () {
    if (this.done) return;
    var lv = this.levels[this.at];
    this.energy = iterate(lv);
    this.levelIterations++;
    this.calm = this.energy < TOLERANCE ? this.calm + 1 : 0;
    var settled = this.calm >= CALM;
    if (this.at === 0) {
      this.iterations++;
      this.converged = settled;
      this.done = settled || this.iterations >= MAX_ITERATIONS;
      return;
    }
    this.coarseIterations++;
    var max = this.at === this.levels.length - 1 ? COARSEST_MAX : LEVEL_MAX;
    if (!settled && this.levelIterations < max) return;
    this.at--;
    prolong(this.levels[this.at], lv);
    this.levelIterations = 0;
    this.calm = 0;
  };

  // positions writes every node's place into xy (x0, y0, x1, y1, ...):
  // while a coarser graph is laid out, its clusters' places.
  Layout.prototype.positions = function (xy) {
    var lv = this.levels[this.at], n = this.levels[0].n, i, k;
    if (this.at === 0) {
      for (i = 0; i < n; i++) {
        xy[2 * i] = lv.x[i];
        xy[2 * i + 1] = lv.y[i];
      }
      return;
    }
    for (i = 0; i < n; i++) {
      var p = i;
      for (k = 0; k < this.at; k++) p = this.levels[k].parent[p];
      xy[2 * i] = lv.x[p];
      xy[2 * i + 1] = lv.y[p];
    }
  };

  // Packed lays out each connected component of a graph on its own (a
  // Layout each, stepped in turn) and packs the components side by side
  // in rows, largest first, instead of letting them repel one another
  // into a disc. A component of one node needs no layout.
  function Packed(opts) {
    var n = opts.x.length, e = opts.edges.length / 2, up = new Int32Array(n), i;
    for (i = 0; i < n; i++) up[i] = i;
    function root(a) { while (up[a] !== a) { up[a] = up[up[a]]; a = up[a]; } return a; }
    for (i = 0; i < e; i++) {
      var a = root(opts.edges[2 * i]), b = root(opts.edges[2 * i + 1]);
      if (a !== b) up[Math.max(a, b)] = Math.min(a, b);
    }
    var byRoot = new Map(), parts = [];
    for (i = 0; i < n; i++) {
      var r = root(i), p = byRoot.get(r);
      if (!p) { p = { nodes: [], edges: [] }; byRoot.set(r, p); parts.push(p); }
      p.nodes.push(i);
    }
    var localOf = new Uint32Array(n);
    parts.forEach(function (p) { p.nodes.forEach(function (g, j) { localOf[g] = j; }); });
    for (i = 0; i < e; i++) {
      var s = opts.edges[2 * i], t = opts.edges[2 * i + 1];
      byRoot.get(root(s)).edges.push(localOf[s], localOf[t]);
    }
    // Largest first; parts are in order of their first node already.
    parts.sort(function (p, q) { return q.nodes.length - p.nodes.length; });
    this.parts = parts.map(function (p) {
      var m = p.nodes.length, x = new Float32Array(m), y = new Float32Array(m), mass = new Float32Array(m);
      p.nodes.forEach(function (g, j) { x[j] = opts.x[g]; y[j] = opts.y[g]; mass[j] = opts.mass ? opts.mass[g] : 0; });
      return { nodes: p.nodes, xy: new Float32Array(2 * m), layout: m > 1 ? new Layout({ x: x, y: y, mass: mass,
        edges: Uint32Array.from(p.edges), multilevel: opts.multilevel }) : null };
    });
    this.components = parts.length;
    this.n = n;
    this.update();
  }
  Packed.prototype.update = function () {
    var first = this.parts.length && this.parts[0].layout;
    this.iterations = first ? first.iterations : 0;
    this.coarseIterations = first ? first.coarseIterations : 0;
    var energy = 0, converged = true, done = true;
    this.parts.forEach(function (p) {
      if (!p.layout) return;
      energy = Math.max(energy, p.layout.energy);
      converged = converged && p.layout.converged;
      done = done && p.layout.done;
    });
    this.energy = first ? energy : 0;
    this.converged = converged;
    this.done = done;
  };
  // step runs one iteration of every component still moving.
  Packed.prototype.step = function () {
    this.parts.forEach(function (p) { if (p.layout && !p.layout.done) p.layout.step(); });
    this.update();
  };
  // positions packs the components in rows about as wide as a 3:2 frame
  // holding them all, GAP mean edge lengths apart.
  var GAP = 2;
  Packed.prototype.positions = function (xy) {
    var boxes = [], area = 0, widest = 0, len = 0, edges = 0;
    this.parts.forEach(function (p) {
      if (p.layout) p.layout.positions(p.xy);
      else { p.xy[0] = 0; p.xy[1] = 0; }
      var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (var j = 0; j < p.nodes.length; j++) {
        x0 = Math.min(x0, p.xy[2 * j]); x1 = Math.max(x1, p.xy[2 * j]);
        y0 = Math.min(y0, p.xy[2 * j + 1]); y1 = Math.max(y1, p.xy[2 * j + 1]);
      }
      if (p.layout) {
        var lv = p.layout.levels[p.layout.at];
        for (var k = 0; k < lv.es.length; k++) len += Math.hypot(lv.x[lv.es[k]] - lv.x[lv.et[k]], lv.y[lv.es[k]] - lv.y[lv.et[k]]);
        edges += lv.es.length;
      }
      boxes.push([x0, y0, x1, y1]);
    });
    var gap = GAP * (edges && len > 0 ? len / edges : 10);
    boxes.forEach(function (b) {
      area += (b[2] - b[0] + gap) * (b[3] - b[1] + gap);
      widest = Math.max(widest, b[2] - b[0] + gap);
    });
    var rowW = Math.max(widest, Math.sqrt(area * 1.5)), cx = 0, cy = 0, rowH = 0;
    for (var q = 0; q < this.parts.length; q++) {
      var p = this.parts[q], b = boxes[q], w = b[2] - b[0] + gap, h = b[3] - b[1] + gap;
      if (cx > 0 && cx + w > rowW) { cx = 0; cy += rowH; rowH = 0; }
      var ox = cx - b[0], oy = cy - b[1];
      for (var j = 0; j < p.nodes.length; j++) {
        xy[2 * p.nodes[j]] = p.xy[2 * j] + ox;
        xy[2 * p.nodes[j] + 1] = p.xy[2 * j + 1] + oy;
      }
      cx += w;
      rowH = Math.max(rowH, h);
    }
  };

  return {
    create: function (opts) { return opts.pack ? new Packed(opts) : new Layout(opts); },
    // forTest exposes one iteration on a single level, to compare with
    // the reference implementation.
    forTest: { Level: Level, iterate: iterate }
  };
})();
