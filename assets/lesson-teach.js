/* dplab lessons, the instructor's parts (app/lesson/teach.py): problem solutions shown or
 * hidden, the "sketch it before you see it" drawing pads and their reveal, present mode
 * (size=large: one section per screen, ← / → or PageUp / PageDown, Home / End; the address
 * follows by history.replaceState, so Back leaves the lesson instead of stepping through
 * slides; in the teacher view N toggles a notes panel with the plan blocks of the current
 * slide and the activities' guides), and the handout's print button. Nothing is stored or sent: the sketches live only in this page.
 * Served from /assets by our own server (no CDN). */
(function () {
  "use strict";

  /* ---- problem set: show / hide each solution, or all (teacher view) ------------------- */
  function setSolution(btn, open) {
    var sol = document.getElementById(btn.getAttribute("aria-controls"));
    if (!sol) { return; }
    sol.hidden = !open;
    btn.setAttribute("aria-expanded", open ? "true" : "false");
    btn.textContent = open ? btn.dataset.hide : btn.dataset.show;
  }
  var toggles = Array.prototype.slice.call(document.querySelectorAll(".dp-solution-toggle"));
  toggles.forEach(function (btn) {
    btn.addEventListener("click", function () {
      setSolution(btn, btn.getAttribute("aria-expanded") !== "true");
    });
  });
  document.querySelectorAll(".dp-solutions-all").forEach(function (all) {
    all.setAttribute("aria-expanded", "false");
    all.addEventListener("click", function () {
      var open = all.getAttribute("aria-expanded") !== "true";
      toggles.forEach(function (btn) { setSolution(btn, open); });
      all.setAttribute("aria-expanded", open ? "true" : "false");
      all.textContent = open ? all.dataset.hide : all.dataset.show;
    });
  });

  /* ---- sketches: draw with a pointer, then reveal the real curve ----------------------- */
  function initSketch(box) {
    var svg = box.querySelector(".dp-sketch-svg");
    var line = box.querySelector(".dp-sketch-pad-line");
    var answer = box.querySelector(".dp-sketch-answer");
    var reveal = box.querySelector(".dp-sketch-reveal");
    var clear = box.querySelector(".dp-sketch-clear");
    var text = document.getElementById(reveal.getAttribute("aria-controls"));
    var x0 = +svg.dataset.x0, x1 = +svg.dataset.x1, y0 = +svg.dataset.y0, y1 = +svg.dataset.y1;
    var pts = [], drawing = false;
    function point(ev) {
      var m = svg.getScreenCTM();
      if (!m) { return null; }
      var p = svg.createSVGPoint();
      p.x = ev.clientX; p.y = ev.clientY;
      p = p.matrixTransform(m.inverse());
      return [Math.min(Math.max(p.x, x0), x1), Math.min(Math.max(p.y, y0), y1)];
    }
    function draw() {
      line.setAttribute("points", pts.map(function (p) {
        return p[0].toFixed(1) + "," + p[1].toFixed(1);
      }).join(" "));
    }
    svg.addEventListener("pointerdown", function (ev) {
      var p = point(ev);
      if (!p) { return; }
      drawing = true;
      pts = [p];
      draw();
      if (svg.setPointerCapture) { svg.setPointerCapture(ev.pointerId); }
      ev.preventDefault();
    });
    svg.addEventListener("pointermove", function (ev) {
      if (!drawing) { return; }
      var p = point(ev);
      if (p) { pts.push(p); draw(); }
    });
    function stop() { drawing = false; }
    svg.addEventListener("pointerup", stop);
    svg.addEventListener("pointercancel", stop);
    clear.addEventListener("click", function () { pts = []; draw(); });
    reveal.addEventListener("click", function () {
      var open = reveal.getAttribute("aria-expanded") !== "true";
      if (open) { answer.removeAttribute("hidden"); } else { answer.setAttribute("hidden", ""); }
      text.hidden = !open;
      reveal.setAttribute("aria-expanded", open ? "true" : "false");
      reveal.textContent = open ? reveal.dataset.hide : reveal.dataset.show;
      box.classList.toggle("dp-revealed", open);
    });
  }
  document.querySelectorAll(".dp-activity.dp-sketch").forEach(initSketch);

  /* ---- handout: print ----------------------------------------------------------------- */
  document.querySelectorAll(".dp-print").forEach(function (b) {
    b.addEventListener("click", function () { window.print(); });
  });

  /* ---- present mode: one section per screen ------------------------------------------- */
  var root = document.documentElement;
  var lesson = document.querySelector(".dp-lesson");
  var nav = document.getElementById("dp-slide-strings");
  var channel = window.BroadcastChannel ? new BroadcastChannel("dplab-lesson-slides") : null;
  /* the teacher view on a second screen follows the projected slide: its plan rows for that
     slide are marked and scrolled to (same browser, same lesson) */
  if (channel && lesson && !root.classList.contains("dp-large")) {
    channel.onmessage = function (ev) {
      var d = ev.data || {};
      if (d.lesson !== lesson.dataset.lesson) { return; }
      var hit = null;
      document.querySelectorAll("tr.dp-plan-row").forEach(function (r) {
        var on = (r.dataset.sections || "").split(" ").indexOf(d.id) >= 0;
        r.classList.toggle("dp-plan-current", on);
        if (on && !hit) { hit = r; }
      });
      if (hit) { hit.scrollIntoView({ block: "center" }); }
    };
  }
  if (!lesson || !root.classList.contains("dp-large") || !nav) { return; }
  var S = JSON.parse(nav.textContent);
  var slides = [];
  /* the first slide: title, lead, tools and table of contents */
  var opening = document.createElement("section");
  opening.className = "dp-slide-opening";
  opening.id = "start";
  var first = lesson.querySelector(".dp-section");
  while (lesson.firstElementChild && lesson.firstElementChild !== first) {
    opening.appendChild(lesson.firstElementChild);
  }
  lesson.insertBefore(opening, first);
  slides.push(opening);
  Array.prototype.forEach.call(lesson.querySelectorAll(":scope > .dp-section"), function (s) {
    slides.push(s);
  });
  /* anything else between the slides (the table of contents after the teacher notes) belongs
     to the opening slide, not to every slide */
  Array.prototype.slice.call(lesson.children).forEach(function (el) {
    if (slides.indexOf(el) < 0) { opening.appendChild(el); }
  });
  root.classList.add("dp-present");

  var bar = document.createElement("nav");
  bar.className = "dp-slide-nav";
  bar.setAttribute("aria-label", S.nav);
  var prev = document.createElement("button");
  prev.type = "button"; prev.className = "dp-btn dp-slide-prev"; prev.textContent = "←";
  prev.setAttribute("aria-label", S.prev);
  var count = document.createElement("span");
  count.className = "dp-slide-count"; count.setAttribute("aria-live", "polite");
  var next = document.createElement("button");
  next.type = "button"; next.className = "dp-btn dp-slide-next"; next.textContent = "→";
  next.setAttribute("aria-label", S.next);
  var keys = document.createElement("span");
  keys.className = "dp-slide-keys"; keys.textContent = S.keys;
  bar.appendChild(prev); bar.appendChild(count); bar.appendChild(next); bar.appendChild(keys);
  document.body.appendChild(bar);

  /* teacher view: the instructor's notes of the current slide, hidden until toggled (N) */
  var planRows = Array.prototype.slice.call(
    document.querySelectorAll("table.dp-lesson-plan tr.dp-plan-row"));
  var notesBtn = null, notesPanel = null;
  if (planRows.length) {
    notesPanel = document.createElement("aside");
    notesPanel.className = "dp-slide-notes";
    notesPanel.id = "dp-slide-notes";
    notesPanel.hidden = true;
    notesPanel.setAttribute("aria-label", S.notes);
    document.body.appendChild(notesPanel);
    notesBtn = document.createElement("button");
    notesBtn.type = "button"; notesBtn.className = "dp-btn dp-slide-notes-toggle";
    notesBtn.textContent = S.notes; notesBtn.title = S.notes_keys;
    notesBtn.setAttribute("aria-controls", notesPanel.id);
    notesBtn.setAttribute("aria-expanded", "false");
    bar.insertBefore(notesBtn, keys);
    notesBtn.addEventListener("click", function () { toggleNotes(); });
    /* or the whole teacher view on a second screen, following the slides */
    var second = document.createElement("a");
    var u = new URL(location.href);
    u.searchParams.delete("size"); u.hash = "teacher-plan";
    second.href = u.toString(); second.target = "dplab-notes";
    second.className = "dp-slide-second"; second.textContent = S.second;
    bar.insertBefore(second, keys);
  }
  function fillNotes() {
    if (!notesPanel) { return; }
    var id = slides[current].id;
    notesPanel.textContent = "";
    var rows = planRows.filter(function (r) {
      return (r.dataset.sections || "").split(" ").indexOf(id) >= 0;
    });
    if (!rows.length) {
      var p = document.createElement("p");
      p.className = "dp-muted"; p.textContent = S.notes_none;
      notesPanel.appendChild(p);
    }
    rows.forEach(function (r) {
      var box = document.createElement("div");
      box.className = "dp-slide-note";
      var head = document.createElement("p");
      head.className = "dp-slide-note-minutes";
      head.textContent = r.querySelector(".dp-plan-minutes").textContent;
      box.appendChild(head);
      box.appendChild(r.cells[2].cloneNode(true)).className = "dp-slide-note-body";
      notesPanel.appendChild(box);
    });
  }
  function toggleNotes(open) {
    if (!notesPanel) { return; }
    if (open === undefined) { open = notesPanel.hidden; }
    notesPanel.hidden = !open;
    root.classList.toggle("dp-notes-on", open);
    notesBtn.setAttribute("aria-expanded", open ? "true" : "false");
  }

  var current = 0;
  function show(k, focus) {
    current = Math.max(0, Math.min(slides.length - 1, k));
    slides.forEach(function (s, i) { s.classList.toggle("dp-slide-hidden", i !== current); });
    count.textContent = S.count.replace("{k}", current + 1).replace("{n}", slides.length);
    prev.disabled = current === 0;
    next.disabled = current === slides.length - 1;
    var id = slides[current].id;
    if (history.replaceState) { history.replaceState(null, "", "#" + id); }
    fillNotes();
    if (channel) { channel.postMessage({ lesson: lesson.dataset.lesson, id: id }); }
    window.scrollTo(0, 0);
    var main = document.getElementById("dp-main");
    if (main) { main.scrollTop = 0; }
    if (focus) {
      var h = slides[current].querySelector("h1, h2");
      if (h) { h.setAttribute("tabindex", "-1"); h.focus({ preventScroll: true }); }
    }
  }
  function slideOf(hash) {
    var el = hash ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
    if (!el) { return 0; }
    for (var i = 0; i < slides.length; i += 1) {
      if (slides[i] === el || slides[i].contains(el)) { return i; }
    }
    return 0;
  }
  prev.addEventListener("click", function () { show(current - 1, true); });
  next.addEventListener("click", function () { show(current + 1, true); });
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var t = ev.target;
    var tag = t && t.tagName ? t.tagName.toLowerCase() : "";
    if (tag === "input" || tag === "textarea" || tag === "select" || (t && t.isContentEditable)) {
      return;
    }
    var step = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 }[ev.key];
    if (step) { ev.preventDefault(); show(current + step, true); return; }
    if (ev.key === "Home") { ev.preventDefault(); show(0, true); }
    if ((ev.key === "n" || ev.key === "N") && notesPanel) { ev.preventDefault(); toggleNotes(); }
    if (ev.key === "End") { ev.preventDefault(); show(slides.length - 1, true); }
  });
  /* in-page links (table of contents, cross references) go to their slide */
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest ? ev.target.closest("a[href^='#']") : null;
    if (!a) { return; }
    var k = slideOf(a.getAttribute("href"));
    ev.preventDefault();
    show(k, true);
  });
  /* an address typed or followed to another #section of this page opens its slide */
  window.addEventListener("hashchange", function () { show(slideOf(location.hash), true); });
  show(slideOf(location.hash), false);
  /* the browser scrolls to the address's #anchor after loading: start each slide at its top */
  window.addEventListener("load", function () { window.scrollTo(0, 0); });
})();
