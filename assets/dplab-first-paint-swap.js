
(function () {
  var mark = document.getElementById("%(id)s");
  if (!mark) return;
  var done = false, live = null, observers = [], proto = Element.prototype,
      attach = proto.attachShadow, watch = {childList: true, subtree: true, attributes: true,
                                            attributeFilter: ["style", "class", "hidden"]};
  function shown(el) {
    if (!el || !el.isConnected || el.getBoundingClientRect().height <= 0) return false;
    if (el.checkVisibility) {
      return el.checkVisibility({visibilityProperty: true, opacityProperty: true});
    }
    return getComputedStyle(el).visibility === "visible";
  }
  function finish() {
    if (done) return;
    done = true;
    mark.remove();
    for (var i = 0; i < observers.length; i++) observers[i].disconnect();
    observers = [];
    if (proto.attachShadow === patched) proto.attachShadow = attach;
  }
  function check() { if (!done && shown(live)) finish(); }
  function observe(node, found) {
    var mo = new MutationObserver(function () {
      if (done) return;
      if (found) { var hit = node.querySelector(".dp-card"); if (hit) live = hit; }
      check();
    });
    mo.observe(node, watch);
    observers.push(mo);
  }
  function patched(init) {
    var root = attach.call(this, init);
    if (!done) observe(root, true);
    return root;
  }
  proto.attachShadow = patched;
  observe(document.documentElement, false);
  function search() {
    var stack = [], all = document.querySelectorAll("[data-root-id]");
    for (var i = 0; i < all.length; i++) stack.push(all[i]);
    while (stack.length) {
      var root = stack.pop();
      if (root.shadowRoot === undefined) {
        var hit = root.querySelector(".dp-card");
        if (hit) { live = hit; if (shown(hit)) return true; }
      }
      var kids = root.querySelectorAll("*");
      for (var j = 0; j < kids.length; j++) if (kids[j].shadowRoot) stack.push(kids[j].shadowRoot);
    }
    return false;
  }
  var started = 0;
  function tick(now) {
    if (done) return;
    if (!started) started = now;
    // The whole-page search only until the live card exists (the observers follow it then).
    if (shown(live) || (!(live && live.isConnected) && search())) { finish(); return; }
    if (now - started > 60000) {
      mark.classList.add("dp-first-paint-failed");
      var note = mark.querySelector(".dp-first-paint-note");
      if (note) note.textContent = note.getAttribute("data-failed");
      return;
    }
    requestAnimationFrame(tick);
  }
  function start() { requestAnimationFrame(tick); }
  if (document.readyState !== "loading") start();
  else document.addEventListener("DOMContentLoaded", start, {once: true});
})();
