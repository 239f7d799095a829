// kgstudio type colours, one rule for the graph and timeline views: the
// common types keep fixed colours; any other type takes a colour from a
// palette that holds none of them, the one its name hashes to, or the next
// one no other type of the view holds, so a legend never shows two types
// in one colour. Past the palette, colours are made by turning the hue by
// the golden angle, each new. window.kgColors() returns a view's colorOf.
(function () {
  "use strict";

  var FIXED = {
    Person: "#4e79a7", Organization: "#f28e2b", Location: "#59a14f", Event: "#e15759",
    Concept: "#b07aa1", Date: "#edc948", Number: "#9c755f", Data: "#7f5539", Content: "#76b7b2",
    Creature: "#ff9da7", Artifact: "#17becf", Method: "#bcbd22", NaturalObject: "#8c564b",
    User: "#1f3b73", Assistant: "#2a9d8f", Knowledge: "#6a4c93", Events: "#c1121f"
  };
  var PALETTE = ["#d62728", "#9467bd", "#e377c2", "#7f7f7f", "#aec7e8", "#ffbb78", "#98df8a",
    "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#393b79", "#637939",
    "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d"];
  var UNTYPED = "#999999";

  window.kgColors = function () {
    var byType = {};
    var taken = {};
    Object.keys(FIXED).forEach(function (t) { taken[FIXED[t]] = true; });
    taken[UNTYPED] = true;
    var made = 0;
    return function colorOf(type) {
      if (!type) return UNTYPED;
      if (byType[type]) return byType[type];
      if (FIXED[type]) return (byType[type] = FIXED[type]);
      var h = 0;
      for (var i = 0; i < type.length; i++) h = (h * 31 + type.charCodeAt(i)) >>> 0;
      var c = null;
      for (var k = 0; k < PALETTE.length && !c; k++) {
        var p = PALETTE[(h + k) % PALETTE.length];
        if (!taken[p]) c = p;
      }
      while (!c) {
        var hue = Math.round((made++ * 137.508) % 360);
        var m = "hsl(" + hue + ", 55%, " + (made % 2 ? 42 : 62) + "%)";
        if (!taken[m]) c = m;
      }
      taken[c] = true;
      return (byType[type] = c);
    };
  };
})();
