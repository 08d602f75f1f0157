// The teacher's room page (/teach?room=CODE): counts, tour step and the distribution of the
// class's answers, polled from the room API once a second. The HTML of the distribution is
// made (and escaped) by the server: app/room/render.py.
(function () {
  "use strict";
  var room = document.querySelector(".dp-room[data-api]");
  if (!room) { return; }
  var api = room.getAttribute("data-api");
  var count = room.querySelector(".dp-room-count");
  var step = room.querySelector(".dp-room-step");
  var dist = room.querySelector(".dp-room-dist-box");
  var store = room.querySelector(".dp-room-store");
  var roster = room.querySelector(".dp-room-roster-box");
  var lost = room.querySelector(".dp-room-lost-box");
  var answered = room.querySelector(".dp-room-answered");
  var last = "";
  function swap(box, html) {  // only when it changed, and never under a field being typed in
    if (!box || typeof html !== "string" || box.getAttribute("data-html") === html) { return; }
    if (box.contains(document.activeElement) && document.activeElement.tagName === "INPUT") {
      return;
    }
    box.innerHTML = html;
    box.setAttribute("data-html", html);
  }
  var delay = 1000;
  function storeMessage(text) {  // the store lost (503): say so until it answers again
    if (!store) { return; }
    if (store.textContent !== text) { store.textContent = text; }
    store.hidden = !text;
  }
  function tick() {
    fetch(api, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (r.status === 404) { window.location.reload(); return null; }
      if (r.status === 503) {
        return r.json().then(function (e) { storeMessage(e.message || ""); return null; });
      }
      return r.ok ? r.json() : null;
    }).then(function (d) {
      if (!d) { delay = Math.min(5000, delay * 2); return; }
      delay = 1000;
      storeMessage("");
      if (count && count.textContent !== d.count_text) { count.textContent = d.count_text; }
      if (step && step.textContent !== d.step_text) { step.textContent = d.step_text; }
      if (answered && answered.textContent !== d.answered_text) {
        answered.textContent = d.answered_text || "";
      }
      swap(roster, d.roster_html);
      swap(lost, d.lost_html);
      if (dist && d.dist_html !== last) { dist.innerHTML = d.dist_html; last = d.dist_html; }
    }).catch(function () { delay = Math.min(5000, delay * 2); })
      .then(function () { window.setTimeout(tick, delay); });
  }
  if (dist) { last = dist.innerHTML; }
  [roster, lost].forEach(function (b) { if (b) { b.setAttribute("data-html", b.innerHTML); } });
  window.setTimeout(tick, delay);
  var end = document.querySelector(".dp-room-end-btn");
  if (end && end.form) {
    end.form.addEventListener("submit", function (ev) {
      var msg = end.getAttribute("data-confirm");
      if (msg && !window.confirm(msg)) { ev.preventDefault(); }
    });
  }
}());

// The presenter panel keeps its place: a button posts and the page comes back (303) at the
// scroll position it was pressed at, not at the top.
(function () {
  "use strict";
  if (!document.querySelector(".dp-room[data-api]")) { return; }
  var key = "dplab.teach.scroll";
  try {
    var saved = JSON.parse(window.sessionStorage.getItem(key) || "null");
    window.sessionStorage.removeItem(key);
    if (saved && saved.path === window.location.pathname + window.location.search.replace(
      /[?&](note|ended)=[^&]*/g, "")) {
      window.scrollTo(0, saved.y);
    }
  } catch (e) { /* storage off: the page opens at the top */ }
  document.addEventListener("submit", function (ev) {
    if (!ev.target || ev.target.method !== "post") { return; }
    try {
      window.sessionStorage.setItem(key, JSON.stringify({
        path: window.location.pathname + window.location.search, y: window.scrollY
      }));
    } catch (e) { /* storage off */ }
  }, true);
}());

// The projector (/teach?room=CODE&size=large, app/room/teach_view.py): no buttons; the
// counts and the class's items come from the room API once a second (HTML made and escaped by
// the server). The class CDF's degree slider shows another degree of the same release.
(function () {
  "use strict";
  var proj = document.querySelector(".dp-proj[data-api]");
  if (!proj) { return; }
  var api = proj.getAttribute("data-api");
  var live = proj.querySelector(".dp-proj-live");
  var counts = proj.querySelector(".dp-proj-counts-box");
  var store = proj.querySelector(".dp-room-store");
  var last = { live: live.innerHTML, counts: counts.innerHTML, degree: null, release: "" };
  var delay = 1000;
  function showDegree(d) {
    Array.prototype.forEach.call(live.querySelectorAll(".dp-cdf-at[data-degree]"), function (b) {
      b.hidden = b.getAttribute("data-degree") !== String(d);
    });
    var out = live.querySelector(".dp-cdf-degree-out");
    if (out) { out.textContent = String(d); }
  }
  live.addEventListener("input", function (ev) {
    if (ev.target && ev.target.classList.contains("dp-cdf-degree")) {
      last.degree = ev.target.value;
      showDegree(ev.target.value);
    }
  });
  function storeMessage(text) {
    if (store.textContent !== text) { store.textContent = text; }
    store.hidden = !text;
  }
  function tick() {
    fetch(api, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (r.status === 404) { window.location.reload(); return null; }
      if (r.status === 503) {
        return r.json().then(function (e) { storeMessage(e.message || ""); return null; });
      }
      return r.ok ? r.json() : null;
    }).then(function (d) {
      if (!d) { delay = Math.min(5000, delay * 2); return; }
      delay = 1000;
      storeMessage("");
      if (d.counts_html !== last.counts) {
        counts.innerHTML = d.counts_html;
        last.counts = d.counts_html;
      }
      if (d.live_html !== last.live) {
        var had = document.activeElement && document.activeElement.classList &&
          document.activeElement.classList.contains("dp-cdf-degree");
        live.innerHTML = d.live_html;
        last.live = d.live_html;
        var sec = live.querySelector(".dp-proj-cdf[data-release]");
        var slider = live.querySelector(".dp-cdf-degree");
        var rid = sec ? sec.getAttribute("data-release") : "";
        if (rid !== last.release) { last.release = rid; last.degree = null; }
        if (slider && last.degree !== null) { slider.value = last.degree; showDegree(last.degree); }
        if (slider && had) { slider.focus(); }
      }
    }).catch(function () { delay = Math.min(5000, delay * 2); })
      .then(function () { window.setTimeout(tick, delay); });
  }
  window.setTimeout(tick, delay);
}());
