// kgstudio page glue that is not graph drawing.
(function () {
  "use strict";
  // Show the selected file name next to upload fields.
  document.addEventListener("change", function (ev) {
    var t = ev.target;
    if (t && t.type === "file" && t.dataset.show) {
      var out = document.getElementById(t.dataset.show);
      if (out) out.textContent = Array.from(t.files).map(function (f) { return f.name; }).join(", ");
    }
  });
  // Submit a form when a select marked data-autosubmit changes.
  document.addEventListener("change", function (ev) {
    var t = ev.target;
    if (t && t.form && t.hasAttribute && t.hasAttribute("data-autosubmit")) t.form.submit();
  });
})();
