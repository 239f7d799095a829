// kgstudio graph drawing, shared by the graph view (static/js/graph.js) and
// its layout worker (static/js/graph-layout.js), which draws the frames of
// a big graph while the layout moves so that the page's main thread stays
// free: edges in one path, nodes in one path per colour, only what is in
// view.
(function (scope) {
  "use strict";

  // kgFitCamera returns the camera {x, y, k} that shows the nodes keep(i)
  // accepts inside a W x H canvas, with room for names on the right, or
  // null when none is kept.
  scope.kgFitCamera = function (xs, ys, n, keep, W, H) {
    var PAD = 20, LABEL_ROOM = 60;
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (var i = 0; i < n; i++) {
      if (!keep(i)) continue;
      if (xs[i] < x0) x0 = xs[i];
      if (xs[i] > x1) x1 = xs[i];
      if (ys[i] < y0) y0 = ys[i];
      if (ys[i] > y1) y1 = ys[i];
    }
    if (x0 === Infinity || !W) return null;
    var k = Math.min((W - 2 * PAD - LABEL_ROOM) / Math.max(x1 - x0, 1e-6), (H - 2 * PAD - 16) / Math.max(y1 - y0, 1e-6));
    // Shift the centre so the labels' room ends up on the right.
    return { x: (x0 + x1) / 2 + LABEL_ROOM / 2 / k, y: (y0 + y1) / 2 + 8 / k, k: k };
  };

  // kgDrawGraph draws g on ctx: g.xs, g.ys (layout units), g.es, g.et
  // (edge ends), g.cam, g.W, g.H, g.PR, g.shown(i), g.radius(i) (pixels),
  // g.color(i), g.arrows, g.selectedLink (an edge index or -1), and
  // g.dashed (null, or 1 per edge a later fact retired: drawn dashed and
  // paler).
  scope.kgDrawGraph = function (ctx, g) {
    var cam = g.cam, W = g.W, H = g.H, PR = g.PR, xs = g.xs, ys = g.ys, es = g.es, et = g.et, i;
    ctx.setTransform(PR, 0, 0, PR, 0, 0);
    ctx.clearRect(0, 0, W, H);
    var x0 = cam.x - W / 2 / cam.k, x1 = cam.x + W / 2 / cam.k, y0 = cam.y - H / 2 / cam.k, y1 = cam.y + H / 2 / cam.k;
    ctx.setTransform(PR * cam.k, 0, 0, PR * cam.k, PR * (W / 2 - cam.x * cam.k), PR * (H / 2 - cam.y * cam.k));
    var dashed = g.dashed || null, any = false;
    ctx.beginPath();
    for (i = 0; i < es.length; i++) {
      if (dashed && dashed[i]) { any = true; continue; }
      edgePath(i);
    }
    ctx.strokeStyle = "rgba(110,110,110,0.35)";
    ctx.lineWidth = 0.6 / cam.k;
    ctx.stroke();
    if (any) {
      ctx.beginPath();
      for (i = 0; i < es.length; i++) if (dashed[i]) edgePath(i);
      ctx.setLineDash([4 / cam.k, 3 / cam.k]);
      ctx.strokeStyle = "rgba(150,150,150,0.6)";
      ctx.stroke();
      ctx.setLineDash([]);
    }
    function edgePath(i) {
      var s = es[i], t = et[i];
      if (i === g.selectedLink || !g.shown(s) || !g.shown(t)) return;
      var ax = xs[s], ay = ys[s], bx = xs[t], by = ys[t];
      if ((ax < x0 && bx < x0) || (ax > x1 && bx > x1) || (ay < y0 && by < y0) || (ay > y1 && by > y1)) return;
      ctx.moveTo(ax, ay);
      ctx.lineTo(bx, by);
      if (g.arrows) arrowPath(ctx, ax, ay, bx, by, g.radius(t) / cam.k, cam.k);
    }
    var sl = g.selectedLink;
    if (sl >= 0 && g.shown(es[sl]) && g.shown(et[sl])) {
      ctx.beginPath();
      ctx.moveTo(xs[es[sl]], ys[es[sl]]);
      ctx.lineTo(xs[et[sl]], ys[et[sl]]);
      ctx.strokeStyle = "#d64545";
      ctx.lineWidth = 2 / cam.k;
      if (dashed && dashed[sl]) ctx.setLineDash([4 / cam.k, 3 / cam.k]);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    var byColor = {};
    for (i = 0; i < xs.length; i++) {
      if (!g.shown(i)) continue;
      var x = xs[i], y = ys[i], r = g.radius(i) / cam.k;
      if (x + r < x0 || x - r > x1 || y + r < y0 || y - r > y1) continue;
      var c = g.color(i);
      (byColor[c] || (byColor[c] = [])).push(i);
    }
    Object.keys(byColor).forEach(function (c) {
      ctx.beginPath();
      byColor[c].forEach(function (i) {
        var r = g.radius(i) / cam.k;
        ctx.moveTo(xs[i] + r, ys[i]);
        ctx.arc(xs[i], ys[i], r, 0, 2 * Math.PI);
      });
      ctx.fillStyle = c;
      ctx.fill();
    });
  };

  function arrowPath(ctx, ax, ay, bx, by, r, k) {
    var dx = bx - ax, dy = by - ay, d = Math.hypot(dx, dy);
    if (d < 1e-6) return;
    var ux = dx / d, uy = dy / d, l = 4.5 / k, tx = bx - ux * r, ty = by - uy * r;
    ctx.moveTo(tx - ux * l - uy * l * 0.5, ty - uy * l + ux * l * 0.5);
    ctx.lineTo(tx, ty);
    ctx.lineTo(tx - ux * l + uy * l * 0.5, ty - uy * l - ux * l * 0.5);
  }
})(self);
