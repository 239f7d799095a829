// load.js loads the scripts of the candidate named by ?candidate=, in
// order: its libraries from the application's /static, then its view.
(function () {
  "use strict";
  var scripts = {
    "force-graph": ["/static/js/safe.js", "/static/vendor/force-graph-1.52.0/force-graph.min.js", "/bench/force-graph.js"],
    "sigma": ["/static/vendor/graphology-0.26.0/graphology.umd.min.js", "/static/vendor/sigma-3.0.3/sigma.min.js", "/bench/sigma.js"],
    "cosmos": ["/bench/cosmos-gl-3.3.0/cosmos.min.js", "/bench/cosmos.js"]
  }[new URLSearchParams(location.search).get("candidate")] || [];
  (function next(i) {
    if (i >= scripts.length) return;
    var s = document.createElement("script");
    s.src = scripts[i];
    s.onload = function () { next(i + 1); };
    document.body.append(s);
  })(0);
})();
