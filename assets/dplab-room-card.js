// A following student's card, straight from the class's card channel (app/room/channel.py).
//
// The server writes one frame per room state, the same bytes to every follower of a worker:
// {"seq": n, "card": "<section class=dp-card ...>"}. The card is put into the lab's card pane
// (.dp-card-pane, its shadow root) while the room banner says the page follows
// (data-mode="follow"); the rest of the state (controls, figures, the card again) comes
// through the page's own Bokeh connection a moment later. Nothing is sent back; a closed
// channel is opened again after a pause (the Bokeh connection still brings every change).
(function () {
  "use strict";
  if (window.dplabRoomCard) { return; }
  var RETRY_MS = [1000, 3000, 10000];  // then every 10 s
  var state = { seq: -1, tries: 0, socket: null };
  window.dplabRoomCard = state;

  function deep(sel, root) {
    var stack = [root || document];
    while (stack.length) {
      var r = stack.pop();
      var hit = r.querySelector(sel);
      if (hit) { return hit; }
      var all = r.querySelectorAll("*");
      for (var i = 0; i < all.length; i++) {
        if (all[i].shadowRoot) { stack.push(all[i].shadowRoot); }
      }
    }
    return null;
  }

  var cache = {};
  function find(key, sel) {  // elements of the page's panes, looked up once while they last
    var el = cache[key];
    if (!el || !el.isConnected) { el = cache[key] = deep(sel); }
    return el;
  }

  function following() {
    var banner = find("banner", ".dp-room-banner-inner");
    return !!banner && banner.getAttribute("data-mode") === "follow";
  }

  function show(msg) {
    if (typeof msg.seq !== "number" || msg.seq <= state.seq || !following()) { return; }
    var host = find("card", ".dp-card-pane");
    var root = host && host.shadowRoot;
    var card = root && root.querySelector(".dp-card");
    if (!card || !card.parentNode) { return; }
    state.seq = msg.seq;
    card.parentNode.innerHTML = msg.card;  // the server's own HTML, as Bokeh would put it
  }

  function open(path) {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var ws = new WebSocket(scheme + location.host + path);
    state.socket = ws;
    ws.onopen = function () { state.tries = 0; };
    ws.onmessage = function (ev) {
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      show(msg);
    };
    ws.onclose = function (ev) {
      state.socket = null;
      if (ev.code === 4404) { return; }  // this worker has no such lab (the page reloads)
      var wait = RETRY_MS[Math.min(state.tries, RETRY_MS.length - 1)];
      state.tries += 1;
      setTimeout(function () { open(path); }, wait);
    };
  }

  function start() {
    var data = deep(".dp-card-channel");
    var path = data && data.getAttribute("data-url");
    if (path && "WebSocket" in window) { open(path); }
  }

  start();
})();
