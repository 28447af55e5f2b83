package serve

// reloadJS is served at ScriptPath. It listens to EventsPath: "reload"
// reloads the page; "error" shows the build error in a fixed box. The
// message is set with textContent only, never parsed as HTML. The built-in
// connection "error" event of EventSource carries no data and is ignored;
// EventSource reconnects by itself. window.__dossierLive is "open" while
// the stream is connected (browser tests wait for it).
const reloadJS = `(function () {
  "use strict";
  if (window.__dossierReload || !window.EventSource) return;
  window.__dossierReload = true;
  var box = null;
  function show(msg) {
    if (!box) {
      box = document.createElement("div");
      box.id = "__dossier-error";
      box.setAttribute("role", "alert");
      box.style.cssText = [
        "position:fixed", "left:1rem", "right:1rem", "bottom:1rem", "z-index:2147483647",
        "max-height:50vh", "overflow:auto", "margin:0", "padding:0.75rem 1rem",
        "background:#fff1f0", "color:#5c0b00", "border:2px solid #c62828", "border-radius:4px",
        "box-shadow:0 2px 12px rgba(0,0,0,.35)", "font:13px/1.45 ui-monospace,Menlo,Consolas,monospace",
        "white-space:pre-wrap", "overflow-wrap:anywhere", "text-align:left"
      ].join(";");
      var title = document.createElement("strong");
      title.textContent = "dossier serve: the build failed; this page is the last good build.";
      var text = document.createElement("div");
      text.className = "__dossier-error-text";
      box.appendChild(title);
      box.appendChild(text);
      (document.body || document.documentElement).appendChild(box);
    }
    box.lastChild.textContent = "\n" + msg;
  }
  var es = new EventSource("` + EventsPath + `");
  es.addEventListener("open", function () { window.__dossierLive = "open"; });
  es.addEventListener("reload", function () {
    es.close();
    window.location.reload();
  });
  es.addEventListener("error", function (e) {
    if (typeof e.data === "string") show(e.data);
    else window.__dossierLive = "closed";
  });
})();
`
