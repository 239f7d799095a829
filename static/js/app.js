// kgstudio page glue that is not graph drawing.
(function () {
  "use strict";
  // Ask before a form marked data-confirm is sent (delete buttons).
  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    if (f && f.dataset && f.dataset.confirm && !window.confirm(f.dataset.confirm)) {
      ev.preventDefault();
    }
  });
  // The run form shows the prompt templates of the picked strategy only.
  function syncPrompts() {
    var sel = document.getElementById("strategy");
    var box = document.getElementById("prompts");
    if (!sel || !box) return;
    var any = false;
    box.querySelectorAll("details[data-strategy]").forEach(function (d) {
      d.hidden = d.dataset.strategy !== sel.value;
      any = any || !d.hidden;
    });
    box.hidden = !any;
  }
  document.addEventListener("change", function (ev) {
    if (ev.target && ev.target.id === "strategy") syncPrompts();
  });
  syncPrompts();
  // Schema editor: after an action the new (or next) field takes the
  // focus; a refusal is brought to the user: a save another editor's save
  // came before (its message at the top, with the way out), else the first
  // field with a message, else the list of problems. Leaving with unsaved
  // changes asks first.
  var editorDirty = false;
  function editorSwapped() {
    var form = document.getElementById("editor");
    if (!form) return;
    if (form.hasAttribute("data-dirty")) editorDirty = true;
    var conflict = document.getElementById("editor-conflict");
    if (conflict) { bringUp(conflict); return; }
    var f = form.dataset.focus;
    if (f) {
      var el = form.querySelector('[name="' + CSS.escape(f) + '"]') ||
        form.querySelector('button[value="' + CSS.escape(f) + '"]');
      if (el) el.focus();
      return;
    }
    var err = form.querySelector('[data-testid="field-error"]');
    if (err) {
      var field = form.querySelector('[name="' + CSS.escape(err.dataset.field) + '"]:not([type=hidden])');
      bringUp(field || err);
      return;
    }
    var problems = form.querySelector('[data-testid="problems"]');
    if (problems) bringUp(problems);
  }
  // bringUp opens the folds around an element, scrolls it to the middle of
  // the window and gives it the focus.
  function bringUp(el) {
    for (var d = el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    if (!el.matches("input, select, textarea, button, a[href]") && !el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
    el.scrollIntoView({ block: "center" });
    el.focus({ preventScroll: true });
  }
  document.addEventListener("htmx:afterSettle", editorSwapped);
  editorSwapped();
  document.addEventListener("input", function (ev) {
    if (ev.target && ev.target.closest && ev.target.closest("#editor")) editorDirty = true;
  });
  document.addEventListener("submit", function (ev) {
    if (ev.target && ev.target.id === "editor" && ev.submitter && ev.submitter.value === "save") editorDirty = false;
  });
  window.addEventListener("beforeunload", function (ev) {
    if (editorDirty) { ev.preventDefault(); ev.returnValue = ""; }
  });
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
