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
  var last = "";
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
      if (dist && d.dist_html !== last) { dist.innerHTML = d.dist_html; last = d.dist_html; }
    }).catch(function () { delay = Math.min(5000, delay * 2); })
      .then(function () { window.setTimeout(tick, delay); });
  }
  if (dist) { last = dist.innerHTML; }
  window.setTimeout(tick, delay);
  var end = document.querySelector(".dp-room-end-btn");
  if (end && end.form) {
    end.form.addEventListener("submit", function (ev) {
      var msg = end.getAttribute("data-confirm");
      if (msg && !window.confirm(msg)) { ev.preventDefault(); }
    });
  }
}());
