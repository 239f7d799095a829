// safe.js is the one path by which stored text (node names, types, labels,
// descriptions) reaches a tooltip: kgText returns an element whose text is
// set as text, never parsed as HTML. The graph library renders a string
// label as HTML, so every label function returns kgText(...).
(function () {
  "use strict";
  window.kgText = function (text) {
    var d = document.createElement("div");
    d.textContent = text === undefined || text === null ? "" : String(text);
    return d;
  };
})();
