// A following student's lab, straight from the class's channel (app/room/channel.py).
//
// The server writes two frames per room state, the same bytes to every follower of a worker:
// {"seq": n, "card": html} to all first, then
// {"seq": n, "views": {"panes": {css class: html}, "plots": {key: message}, "controls": values}}.
// While the room banner says the page follows (data-mode="follow"), the page lays them over
// its own views: the card first, the rest on the next frame (an HTML pane shows the server's
// HTML in place of its own, kept aside; a figure or the controls draw from the frame's
// message through window.dplabChannelOver, assets/dplab-svgplot.js plotData and
// assets/dplab-lab-controls.js). The page's session does not take these states at once: when
// it does (the student detaches, a tour step, the channel closes), the server bumps the
// banner's data-synced and everything laid over is dropped, so the page shows its session's
// own views again. Nothing is sent back; a closed channel is opened again after a pause.
(function () {
  "use strict";
  if (window.dplabRoomCard) { return; }
  var RETRY_MS = [1000, 3000, 10000];  // then every 10 s
  var state = { seq: -1, viewsSeq: -1, tries: 0, socket: null, laid: [], synced: null,
                watching: null };
  window.dplabRoomCard = state;
  window.dplabChannelOver = window.dplabChannelOver || {};
  window.dplabRedraw = window.dplabRedraw || {};

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
  function find(sel) {  // elements of the page's panes, looked up once while they last
    var el = cache[sel];
    if (!el || !el.isConnected) { el = cache[sel] = deep(sel); }
    return el;
  }

  function bannerInner() { return find(".dp-room-banner-inner"); }

  function following() {
    var b = bannerInner();
    return !!b && b.getAttribute("data-mode") === "follow";
  }

  // ---- laying over and dropping ------------------------------------------------------------
  // An HTML pane's content is replaced (inside a marked wrapper with display: contents) and
  // its own content kept; dropping puts it back, unless BokehJS has rendered the pane again
  // meanwhile (the wrapper is gone: what the pane shows then is its session's newer value).
  function lay(host, html) {
    var root = host && host.shadowRoot;
    var box = null;  // the pane's own content box (":scope" does not apply to a shadow root)
    for (var i = 0; root && i < root.children.length && !box; i++) {
      if (root.children[i].tagName === "DIV") { box = root.children[i]; }
    }
    if (!box) { return; }
    if (window.dplabSteady) { window.dplabSteady(box); }  // (assets/dplab-svgplot.js)
    var laid = box.querySelector(":scope > .dp-chan-laid");
    if (!laid) {
      state.laid = state.laid.filter(function (i) { return i.box !== box; });
      state.laid.push({ box: box, own: box.innerHTML });
      laid = document.createElement("div");
      laid.className = "dp-chan-laid";
      laid.style.display = "contents";
      box.replaceChildren(laid);
    }
    morph(laid, html);
  }

  // `el` shows `html`: the nodes that differ are changed in place (window.dplabMorph, from
  // assets/dplab-svgplot.js, which every lab page loads with its figures; before it has
  // loaded, the text replaces the content). A room state changes a few numbers of the card:
  // replacing its whole subtree made the browser style, shape and lay out ~140 objects per
  // move, which six pages on the server's two cores did while the workers were still
  // writing the other students' cards (benchmarks/README.md, "a room state's card"). The
  // last text laid is kept, so an unchanged pane costs nothing.
  var laidText = new WeakMap();
  function morph(el, html) {
    if (laidText.get(el) === html) { return; }
    laidText.set(el, html);
    var t = document.createElement("template");
    t.innerHTML = html;
    if (window.dplabMorph) { window.dplabMorph(el, t.content); } else { el.replaceChildren(t.content); }
  }

  function drop() {
    state.laid.forEach(function (item) {
      if (item.box.isConnected && item.box.querySelector(":scope > .dp-chan-laid")) {
        item.box.innerHTML = item.own;
      }
    });
    state.laid = [];
    var keys = Object.keys(window.dplabChannelOver);
    window.dplabChannelOver = {};
    keys.forEach(function (k) {
      var again = window.dplabRedraw[k];
      if (again) { try { again(); } catch (e) { /* the view redraws on its next change */ } }
    });
  }

  // The banner: when the page stops following or its session took a state, drop.
  function checkBanner() {
    var b = bannerInner();
    if (!b) { return; }
    var synced = b.getAttribute("data-synced");
    var changed = state.synced !== null && synced !== state.synced;
    state.synced = synced;
    if ((changed || !following()) && (state.laid.length || Object.keys(window.dplabChannelOver).length)) {
      drop();
    }
  }

  function watchBanner() {
    var host = find(".dp-room-banner");
    var root = host && host.shadowRoot;
    if (!root || state.watching === root) { return; }
    state.watching = root;
    new MutationObserver(checkBanner).observe(root, { subtree: true, childList: true,
                                                      attributes: true });
    checkBanner();
  }

  function show(msg) {
    watchBanner();
    checkBanner();
    if (typeof msg.seq !== "number" || !following()) { return; }
    if (msg.card !== undefined) {  // the card's own frame comes first
      if (msg.seq <= state.seq) { return; }
      state.seq = msg.seq;
      lay(find(".dp-card-pane"), msg.card);
      return;
    }
    var views = msg.views || {};
    if (msg.seq < state.seq || msg.seq <= state.viewsSeq) { return; }
    state.seq = state.viewsSeq = msg.seq;
    var panes = views.panes || {};
    if (panes["dp-card-pane"] !== undefined) { lay(find(".dp-card-pane"), panes["dp-card-pane"]); }
    var seq = msg.seq;
    window.requestAnimationFrame(function () {  // the card paints first
      if (seq !== state.seq || !following()) { return; }
      Object.keys(panes).forEach(function (cls) {
        if (cls !== "dp-card-pane") { lay(find("." + cls), panes[cls]); }
      });
      var plots = views.plots || {};
      Object.keys(plots).forEach(function (key) { put(key, plots[key]); });
      if (views.controls) { put("controls", views.controls); }
    });
  }

  function put(key, text) {
    var over = window.dplabChannelOver[key];
    if (over && over.text === text) { return; }
    // (base: the view's own message when it first draws this; a new one from the server wins)
    window.dplabChannelOver[key] = { text: text, base: over ? over.base : undefined };
    var again = window.dplabRedraw[key];
    if (again) { again(); }
  }

  // ---- the socket ---------------------------------------------------------------------------
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
