// The page's websocket, watched (app/serve/origin.py). Runs before BokehJS opens it.
// Closed before the server sent anything: ask the server whether this address is the reason
// (/dplab-origin, the same decision as for the websocket) and show the "refused" alert, else
// the "could not connect" one; both name this page's own host (a proxy may have shown the
// server another one). The server answered: the address works, so any alert goes.
(function () {
  "use strict";
  var Native = window.WebSocket;
  if (!Native || Native.dplabWatched) return;
  var leaving = false;
  window.addEventListener("pagehide", function () { leaving = true; });

  function all(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }

  function shown(kind) {
    return all(".dp-origin-" + kind).some(function (el) { return !el.hidden; });
  }

  function show(kind) {
    if (leaving || shown("refused")) return;
    all(".dp-origin-alert").forEach(hide);
    all(".dp-origin-" + kind).forEach(function (el) {
      var code = el.querySelector(".dp-origin-setting");
      if (code) code.textContent = code.textContent.replace(/=.*$/, "=" + location.host);
      el.setAttribute("role", "alert");
      el.hidden = false;
    });
  }

  // Hidden alerts carry no role (app/serve/origin.py).
  function hide(el) { el.hidden = true; el.removeAttribute("role"); }

  function failed(path) {
    if (leaving || shown("refused")) return;
    // {prefix}/{page}/ws -> {prefix}/dplab-origin
    var check = path.replace(/\/[^\/]*\/ws$/, "") + "/dplab-origin?host=" +
      encodeURIComponent(location.host);
    fetch(check, {cache: "no-store"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .catch(function () { return null; })
      .then(function (answer) { show(answer && answer.refused ? "refused" : "lost"); });
  }

  function watch(ws, url) {
    var path = "";
    try { path = new URL(String(url), location.href).pathname; } catch (e) { return; }
    if (!/\/ws$/.test(path)) return;
    var heard = false;
    ws.addEventListener("message", function () {
      if (heard) return;
      heard = true;
      all(".dp-origin-alert").forEach(hide);
    });
    ws.addEventListener("close", function () { if (!heard) failed(path); });
  }

  var Watched = new Proxy(Native, {
    construct: function (target, args, newTarget) {
      var ws = Reflect.construct(target, args, newTarget === Watched ? target : newTarget);
      watch(ws, args[0]);
      return ws;
    }
  });
  Watched.dplabWatched = true;
  window.WebSocket = Watched;
})();
