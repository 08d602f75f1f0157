// A page of the live class that loses its server says so, and comes back by itself
// (app/room/connection.py gives it the messages and the health route in .dp-conn-data).
//
// The lab (/lab?room=CODE): BokehJS's document event "connection_lost" (the server turned
// BokehJS's own reconnection off for this page: a new worker would not know its session). The
// room banner (.dp-room-banner) then says the connection is lost (role=alert; an icon and a
// word besides the colour), /healthz is asked with backoff until a worker answers, and the
// page opens again: at the room's state for a student who followed or a teacher (the address
// keeps room, lang, size and theme), as it was plus follow=own for a student exploring on
// their own (app/room/link.py reads it; it leaves the address once the page is back).
// The class page (/join?room=CODE): assets/dplab-poll.js calls dplabReconnect.classState(ok)
// after each refresh; a failure says "lost", the next answer "back".
// Both: the browser's "offline" event says it at once.
(function () {
  "use strict";
  if (window.dplabReconnect) { return; }
  var LOST_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">' +
    '<path d="M12 1.5 0.8 21.5h22.4z" fill="currentColor"/>' +
    '<path d="M10.8 8h2.4v7h-2.4zm0 9h2.4v2.4h-2.4z" fill="#fff"/></svg>';
  var BACK_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">' +
    '<circle cx="12" cy="12" r="11" fill="currentColor"/>' +
    '<path d="m6.5 12.5 3.6 3.6 7.4-7.6" fill="none" stroke="#fff" stroke-width="2.6"/></svg>';
  var FIRST_TRY_MS = 500;   // the balancer sends the first try to a live worker at once
  var MAX_WAIT_MS = 8000;   // between tries, later on
  var TIMEOUT_MS = 5000;    // one try
  var SPREAD_MS = 1500;     // a hall's students do not all reload in the same instant
  var KEEP = ["room", "lang", "size", "theme"];  // a following page's own options
  var COUNT_KEY = "dplab-reconnect";  // reloads of this tab in the last minute (sessionStorage)

  function deepAll(sel) {
    var out = [], stack = [document];
    while (stack.length) {
      var root = stack.pop();
      Array.prototype.push.apply(out, root.querySelectorAll(sel));
      var all = root.querySelectorAll("*");
      for (var i = 0; i < all.length; i++) {
        if (all[i].shadowRoot) { stack.push(all[i].shadowRoot); }
      }
    }
    return out;
  }
  function first(sel) { var found = deepAll(sel); return found.length ? found[0] : null; }

  var data = first(".dp-conn-data");
  function msg(name) { return data ? data.getAttribute("data-msg-" + name) || "" : ""; }
  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (m, k) {
      return Object.prototype.hasOwnProperty.call(values, k) ? String(values[k]) : m;
    });
  }
  var leaving = false;
  window.addEventListener("pagehide", function () { leaving = true; });

  // The box that says it: kind "lost" (role=alert) or "back" (role=status).
  function box(kind, text, offline) {
    var el = document.createElement("div");
    el.className = "dp-conn-box dp-conn-" + kind;
    if (data && data.getAttribute("lang")) { el.setAttribute("lang", data.getAttribute("lang")); }
    var say = document.createElement("div");
    say.className = "dp-conn-say";
    say.setAttribute("role", kind === "lost" ? "alert" : "status");
    var head = document.createElement("p");
    head.className = "dp-conn-head";
    var icon = document.createElement("span");
    icon.className = "dp-conn-icon";
    icon.innerHTML = kind === "lost" ? LOST_ICON : BACK_ICON;
    var word = document.createElement("strong");
    word.className = "dp-conn-word";
    word.textContent = msg(kind === "lost" ? "word-lost" : "word-back");
    var body = document.createElement("span");
    body.className = "dp-conn-text";
    body.textContent = text;
    head.appendChild(icon);
    head.appendChild(word);
    head.appendChild(document.createTextNode(" "));
    head.appendChild(body);
    say.appendChild(head);
    if (offline) {
      var off = document.createElement("p");
      off.className = "dp-conn-offline";
      off.textContent = msg("offline");
      say.appendChild(off);
    }
    el.appendChild(say);
    return el;
  }
  function drop(el) { if (el && el.parentNode) { el.parentNode.removeChild(el); } }

  // ---- the lab ---------------------------------------------------------------------------
  var lab = { lost: false, offline: false, back: false, mode: "", el: null, attempt: 0,
              timer: 0, due: 0, checking: false, ticker: 0 };

  function bannerInner() {
    var host = first(".dp-room-banner");
    var root = host && (host.shadowRoot || host);
    return root ? root.querySelector(".dp-room-banner-inner") : null;
  }
  function lostKey(mode) {
    return mode === "lead" ? "lab-lost-lead" : mode === "alone" ? "lab-lost-alone" : "lab-lost";
  }
  function backKey(mode) {
    return mode === "follow" ? "lab-back-follow" : mode === "own" ? "lab-back-own" : "lab-back";
  }

  function showLab() {
    var inner = bannerInner();
    if (!inner) { return; }
    var mode = lab.mode || inner.getAttribute("data-mode") || "alone";
    var el = lab.back ? box("back", msg(backKey(mode)), false)
                      : box("lost", msg(lostKey(mode)), lab.offline);
    if (lab.lost && !lab.back) {
      var next = document.createElement("p");
      next.className = "dp-conn-next";
      el.appendChild(next);
      var now = document.createElement("button");
      now.type = "button";
      now.className = "dp-conn-now";
      now.textContent = msg("now");
      now.addEventListener("click", check);
      el.appendChild(now);
    }
    drop(lab.el);
    inner.parentNode.insertBefore(el, inner);
    inner.hidden = true;
    lab.el = el;
    countdown();
  }
  function restoreLab() {  // the server answers on the same connection: its banner again
    drop(lab.el);
    lab.el = null;
    var inner = bannerInner();
    if (inner) { inner.hidden = false; }
  }
  function countdown() {
    var p = lab.el && lab.el.querySelector(".dp-conn-next");
    if (!p) { return; }
    var s = Math.ceil((lab.due - Date.now()) / 1000);
    var text = lab.due && s >= 1 ? fill(msg("next"), { seconds: s }) : msg("trying");
    if (p.textContent !== text) { p.textContent = text; }
  }

  function recentReloads() {
    try {
      var c = JSON.parse(window.sessionStorage.getItem(COUNT_KEY) || "null");
      return c && Date.now() - c.t < 60000 ? c.n : 0;
    } catch (e) { return 0; }
  }
  function schedule() {
    // the first try soon (a little later after each reload of the last minute: a server
    // that drops every page at once does not make its students reload in a loop), then
    // doubling, each with some spread
    var wait = lab.attempt === 0
      ? Math.min(30000, FIRST_TRY_MS * Math.pow(2, recentReloads())) * (1 + Math.random())
      : Math.min(MAX_WAIT_MS, 1000 * Math.pow(2, lab.attempt)) * (0.75 + Math.random() / 2);
    lab.due = Date.now() + wait;
    lab.timer = window.setTimeout(check, wait);
    countdown();
  }
  function check() {
    if (lab.checking || lab.back) { return; }
    window.clearTimeout(lab.timer);
    lab.checking = true;
    lab.due = 0;
    countdown();
    var ctl = window.AbortController ? new window.AbortController() : null;
    var stop = window.setTimeout(function () { if (ctl) { ctl.abort(); } }, TIMEOUT_MS);
    fetch(data.getAttribute("data-health"), {
      cache: "no-store", credentials: "same-origin", signal: ctl ? ctl.signal : undefined
    }).then(function (r) { return r.ok; }, function () { return false; }).then(function (ok) {
      window.clearTimeout(stop);
      lab.checking = false;
      if (ok) { back(); return; }
      lab.attempt += 1;
      schedule();
    });
  }
  function back() {
    lab.back = true;
    window.clearInterval(lab.ticker);
    showLab();
    window.setTimeout(reload, Math.random() * SPREAD_MS);
  }
  function reloadUrl(mode) {
    var u = new URL(window.location.href);
    if (mode === "follow" || mode === "lead") {
      var kept = new URLSearchParams();
      KEEP.forEach(function (k) {
        var v = u.searchParams.get(k);
        if (v !== null) { kept.set(k, v); }
      });
      u.search = kept.toString();
    } else if (mode === "own") {
      u.searchParams.set("follow", "own");
    } else {
      u.searchParams.delete("follow");
    }
    u.hash = "";
    return u.href;
  }
  function reload() {
    try {
      window.sessionStorage.setItem(COUNT_KEY, JSON.stringify({ n: recentReloads() + 1,
                                                               t: Date.now() }));
    } catch (e) { /* private mode: no count */ }
    var url = reloadUrl(lab.mode);
    if (url === window.location.href) { window.location.reload(); }
    else { window.location.replace(url); }
  }
  function labLost() {
    if (leaving || lab.lost) { return; }
    var inner = bannerInner();
    lab.lost = true;
    lab.mode = (inner && inner.getAttribute("data-mode")) || "alone";
    lab.attempt = 0;
    // "Explore on my own" / "follow again" cannot reach the server now: the page comes back
    // in the mode it had (a reload at the room's state), so the switch goes until then.
    deepAll(".dp-follow").forEach(function (el) { el.style.display = "none"; });
    showLab();
    schedule();
    lab.ticker = window.setInterval(countdown, 500);
  }

  var hooked = [];
  function hook(tries) {
    var docs = (window.Bokeh && window.Bokeh.documents) || [];
    docs.forEach(function (doc) {
      if (hooked.indexOf(doc) >= 0) { return; }
      hooked.push(doc);
      doc.on_event("connection_lost", labLost);
    });
    if (!hooked.length && tries < 100) {
      window.setTimeout(function () { hook(tries + 1); }, 200);
    }
  }

  // ---- the class page --------------------------------------------------------------------
  var cls = { lost: false, offline: false, el: null, timer: 0 };
  function showClass(kind) {
    drop(cls.el);
    window.clearTimeout(cls.timer);
    cls.el = box(kind, msg(kind === "lost" ? "class-lost" : "class-back"),
                 kind === "lost" && cls.offline);
    data.parentNode.insertBefore(cls.el, data);
    if (kind === "back") {
      cls.timer = window.setTimeout(function () { drop(cls.el); cls.el = null; }, 10000);
    }
  }
  function classState(ok) {
    if (!data || data.getAttribute("data-kind") !== "class") { return; }
    if (!ok && !cls.lost) { cls.lost = true; showClass("lost"); }
    else if (ok && cls.lost) { cls.lost = false; cls.offline = false; showClass("back"); }
  }

  // ---- both: the device's own network ----------------------------------------------------
  window.addEventListener("offline", function () {
    if (!data) { return; }
    if (data.getAttribute("data-kind") === "class") {
      cls.offline = true;
      cls.lost = true;
      showClass("lost");
      return;
    }
    lab.offline = true;
    if (!lab.back) { showLab(); }
  });
  window.addEventListener("online", function () {
    if (!data) { return; }
    if (data.getAttribute("data-kind") === "class") {
      cls.offline = false;  // the next refresh says whether the class is back
      return;
    }
    lab.offline = false;
    if (!lab.lost) { restoreLab(); }  // the connection held
    else if (!lab.back) { showLab(); check(); }
  });

  window.dplabReconnect = { classState: classState, reloadUrl: reloadUrl };
  if (data && data.getAttribute("data-kind") === "lab") {
    // follow=own has done its work (app/room/link.py read it): a reload by hand follows
    var here = new URL(window.location.href);
    if (here.searchParams.get("follow") === "own") {
      here.searchParams.delete("follow");
      window.history.replaceState(window.history.state, "", here.href);
    }
    hook(0);
  }
}());
