/* dplab lessons and index: maths, step-by-step answers, the quiz and progress.
 * Quiz answers and "learned" marks live only in this browser (localStorage, keys "dplab.*");
 * nothing is sent to the server. Served from /assets by our own server (no CDN). */
(function () {
  "use strict";
  var PREFIX = "dplab.";
  var ls = null;
  try {
    ls = window.localStorage;
    ls.getItem(PREFIX + "probe");
  } catch (e) {
    ls = null; /* storage blocked: the quiz still works, it just is not kept */
  }
  function get(k) { return ls ? ls.getItem(PREFIX + k) : null; }
  function put(k, v) { if (ls) { ls.setItem(PREFIX + k, v); } }
  function drop(k) { if (ls) { ls.removeItem(PREFIX + k); } }
  function quizKey(lesson, qid) { return "quiz." + lesson + "." + qid; }
  function learnedKey(lesson, qid) { return "learned." + lesson + "." + qid; }
  var stringsEl = document.getElementById("dp-strings");
  var S = stringsEl ? JSON.parse(stringsEl.textContent) : {};

  function fill(template, vals) {
    return template.replace(/\{(\w+)\}/g, function (m, k) {
      return Object.prototype.hasOwnProperty.call(vals, k) ? String(vals[k]) : m;
    });
  }

  function progress(lesson, ids) {
    var answered = 0, learned = 0;
    ids.forEach(function (id) {
      if (get(quizKey(lesson, id)) !== null) { answered += 1; }
      if (get(learnedKey(lesson, id)) === "1") { learned += 1; }
    });
    return { answered: answered, learned: learned, total: ids.length };
  }

  /* ---- maths ---------------------------------------------------------------------------- */
  /* Formulas in a hidden block (an exercise's steps, a quiz's explanation, a solution, a
     sketch's answer: a third of a lesson's) are typeset when the block is shown: KaTeX makes
     ~23 elements per formula, and those blocks held 9,700 of /lesson's 28,100 elements. */
  function typeset(root) {
    if (!window.katex) { return; }
    root.querySelectorAll(".dp-math").forEach(function (el) {
      if (el.getAttribute("data-tex") !== null || el.closest("[hidden]")) { return; }
      var tex = el.textContent;
      el.setAttribute("data-tex", tex);
      try {
        window.katex.render(tex, el, {
          displayMode: el.classList.contains("dp-display"),
          throwOnError: false, output: "htmlAndMathml"
        });
      } catch (e) {
        el.textContent = tex;
      }
    });
    nameFormulaOptions(root);
  }

  /* An element's text as a reader hears it, each formula read from its MathML ("δ=0.126"). */
  function spokenText(el) {
    var copy = el.cloneNode(true);
    copy.querySelectorAll(".katex").forEach(function (k) {
      var math = k.querySelector("math");
      var text = "";
      if (math) {
        var m = math.cloneNode(true);
        m.querySelectorAll("annotation").forEach(function (a) { a.remove(); });
        text = m.textContent;
      }
      k.replaceWith(document.createTextNode(" " + text + " "));
    });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  /* A quiz option or a table header whose text is a formula: KaTeX's visible layer is
     aria-hidden, and not every reader (nor axe) takes a name from MathML, so the option gets
     its text as aria-label and the header a reader-only copy of it. */
  function nameFormulaOptions(root) {
    root.querySelectorAll("label.dp-option").forEach(function (lab) {
      var input = lab.querySelector("input");
      if (!input || input.hasAttribute("aria-label") || !lab.querySelector(".katex")) { return; }
      var name = spokenText(lab);
      if (name) { input.setAttribute("aria-label", name); }
    });
    root.querySelectorAll("th").forEach(function (th) {
      if (!th.querySelector(".katex") || th.querySelector(".dp-reader-only")) { return; }
      var name = spokenText(th);
      if (!name) { return; }
      th.querySelectorAll(".katex").forEach(function (k) { k.setAttribute("aria-hidden", "true"); });
      var said = document.createElement("span");
      said.className = "dp-reader-only";
      said.textContent = name;
      th.appendChild(said);
    });
  }

  /* ---- exercises: reveal the answer one step at a time --------------------------------- */
  function initExercise(ex) {
    var answer = ex.querySelector(".dp-exercise-answer");
    var steps = Array.prototype.slice.call(ex.querySelectorAll(".dp-exercise-step"));
    var next = ex.querySelector(".dp-next-step");
    var hide = ex.querySelector(".dp-hide-steps");
    function shown() { return steps.filter(function (s) { return !s.hidden; }).length; }
    function update() {
      var k = shown();
      answer.hidden = k === 0;
      hide.hidden = k === 0;
      next.setAttribute("aria-expanded", k > 0 ? "true" : "false");
      if (k === 0) { next.textContent = next.dataset.first; next.disabled = false; }
      else if (k < steps.length) { next.textContent = next.dataset.next; next.disabled = false; }
      else { next.textContent = next.dataset.done; next.disabled = true; }
    }
    next.addEventListener("click", function () {
      var k = shown();
      if (k < steps.length) {
        steps[k].hidden = false;
        update();
        if (k + 1 === steps.length) { hide.focus(); }
      }
    });
    hide.addEventListener("click", function () {
      steps.forEach(function (s) { s.hidden = true; });
      update();
      next.focus();
    });
    update();
  }

  /* ---- quiz ---------------------------------------------------------------------------- */
  function initQuiz(section) {
    var lesson = section.dataset.lesson;
    var questions = Array.prototype.slice.call(section.querySelectorAll(".dp-quiz-question"));
    var summary = section.querySelector(".dp-quiz-summary");
    var ids = questions.map(function (q) { return q.dataset.qid; });

    function refreshSummary() {
      if (summary) { summary.textContent = fill(summary.dataset.template, progress(lesson, ids)); }
    }

    function show(q, choice) {
      var radios = q.querySelectorAll("input[type=radio]");
      var expl = q.querySelector(".dp-quiz-explanation");
      var right = q.querySelector(".dp-whys .dp-right");
      var ok = right && right.dataset.option === String(choice);
      radios.forEach(function (r) {
        r.checked = r.value === String(choice);
        r.disabled = true;
      });
      q.querySelectorAll(".dp-whys li").forEach(function (li) {
        var mine = li.dataset.option === String(choice);
        li.classList.toggle("dp-chosen", mine);
        li.querySelector(".dp-yours").hidden = !mine;
      });
      q.querySelector(".dp-quiz-verdict").textContent = ok ? S.right : S.wrong;
      q.classList.toggle("dp-answered-right", !!ok);
      q.classList.toggle("dp-answered-wrong", !ok);
      q.querySelector(".dp-check").hidden = true;
      expl.hidden = false;
      q.querySelector(".dp-learned").checked = get(learnedKey(lesson, q.dataset.qid)) === "1";
    }

    function clear(q) {
      q.querySelectorAll("input[type=radio]").forEach(function (r) {
        r.checked = false;
        r.disabled = false;
      });
      q.querySelector(".dp-quiz-explanation").hidden = true;
      q.querySelector(".dp-check").hidden = false;
      q.querySelector(".dp-quiz-status").textContent = "";
      q.querySelector(".dp-learned").checked = false;
      q.classList.remove("dp-answered-right", "dp-answered-wrong");
    }

    questions.forEach(function (q) {
      var qid = q.dataset.qid;
      q.querySelector(".dp-check").addEventListener("click", function () {
        var picked = q.querySelector("input[type=radio]:checked");
        var status = q.querySelector(".dp-quiz-status");
        if (!picked) { status.textContent = S.choose; return; }
        put(quizKey(lesson, qid), picked.value);
        show(q, picked.value);
        status.textContent = ls ? S.saved : "";
        refreshSummary();
        q.querySelector(".dp-quiz-verdict").focus();
      });
      q.querySelector(".dp-learned").addEventListener("change", function (ev) {
        if (ev.target.checked) { put(learnedKey(lesson, qid), "1"); }
        else { drop(learnedKey(lesson, qid)); }
        refreshSummary();
      });
      q.querySelector(".dp-redo").addEventListener("click", function () {
        drop(quizKey(lesson, qid));
        drop(learnedKey(lesson, qid));
        clear(q);
        refreshSummary();
        var first = q.querySelector("input[type=radio]");
        if (first) { first.focus(); }
      });
      q.querySelector(".dp-quiz-verdict").setAttribute("tabindex", "-1");
      var saved = get(quizKey(lesson, qid));
      if (saved !== null && q.querySelector('input[type=radio][value="' + saved + '"]')) {
        show(q, saved);
      }
    });

    var reset = section.querySelector(".dp-reset-all");
    if (reset) {
      reset.addEventListener("click", function () {
        questions.forEach(function (q) {
          drop(quizKey(lesson, q.dataset.qid));
          drop(learnedKey(lesson, q.dataset.qid));
          clear(q);
        });
        refreshSummary();
      });
    }
    refreshSummary();
  }

  /* ---- index: per-lesson progress ------------------------------------------------------ */
  function initCounts() {
    document.querySelectorAll(".dp-learned-count").forEach(function (el) {
      var ids = (el.dataset.ids || "").split(" ").filter(Boolean);
      el.textContent = fill(el.dataset.template, progress(el.dataset.lesson, ids));
    });
  }

  /* ---- glossary: Escape hides an open tooltip (WCAG 1.4.13) ---------------------------- */
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && document.activeElement &&
        document.activeElement.classList.contains("dp-term")) {
      document.activeElement.classList.add("dp-tip-dismissed");
    }
  });
  document.addEventListener("focusout", function (ev) {
    if (ev.target.classList && ev.target.classList.contains("dp-term")) {
      ev.target.classList.remove("dp-tip-dismissed");
    }
  });

  /* ---- wide display formulas: say that they scroll, and let the keyboard scroll them ------ */
  function markWideFormulas() {
    var article = document.querySelector(".dp-lesson");
    var hint = article ? article.dataset.scrollHint : "";
    document.querySelectorAll(".dp-math.dp-display").forEach(function (el) {
      var wide = el.scrollWidth > el.clientWidth + 1;
      var note = el.nextElementSibling;
      var has = note && note.classList.contains("dp-scroll-hint");
      el.classList.toggle("dp-scrolls", wide);
      if (wide) { el.setAttribute("tabindex", "0"); } else { el.removeAttribute("tabindex"); }
      if (wide && !has && hint) {
        note = document.createElement("p");
        note.className = "dp-scroll-hint";
        note.setAttribute("aria-hidden", "true"); /* the formula itself is read in full */
        note.textContent = hint;
        el.insertAdjacentElement("afterend", note);
      } else if (!wide && has) { note.remove(); }
    });
  }

  /* ---- glossary on a phone: the tooltip opens next to its word, inside the screen ---------- */
  var phone = window.matchMedia("(max-width: 600px)");
  function placeTip(term) {
    var tip = term.querySelector(".dp-tip");
    if (!tip) { return; }
    if (!phone.matches) { tip.style.top = ""; tip.style.bottom = ""; return; }
    var r = term.getBoundingClientRect(), h = tip.offsetHeight, vh = window.innerHeight;
    tip.style.visibility = r.bottom < 0 || r.top > vh ? "hidden" : ""; /* its word scrolled away */
    var below = r.bottom + 6, above = r.top - h - 6;
    var top = below + h <= vh - 8 || above < 8 ? Math.min(below, vh - h - 8) : above;
    tip.style.top = Math.max(8, top) + "px";
    tip.style.bottom = "auto";
  }
  function openTerm() {
    var t = document.activeElement;
    return t && t.classList && t.classList.contains("dp-term") ? t : null;
  }
  document.addEventListener("focusin", function (ev) {
    if (ev.target.classList && ev.target.classList.contains("dp-term")) { placeTip(ev.target); }
  });
  document.addEventListener("mouseover", function (ev) {
    var t = ev.target.closest ? ev.target.closest(".dp-term") : null;
    if (t) { placeTip(t); }
  });
  window.addEventListener("scroll", function () {
    var t = openTerm();
    if (t) { placeTip(t); }
  }, { passive: true });

  typeset(document);
  markWideFormulas();
  /* A block shown (by this script or lesson-teach.js): its formulas now. */
  if (window.MutationObserver) {
    new MutationObserver(function (records) {
      var shown = records.filter(function (r) {
        return !r.target.hidden && !r.target.closest("[hidden]") &&
          r.target.querySelector(".dp-math:not([data-tex])");
      });
      if (!shown.length) { return; }
      shown.forEach(function (r) { typeset(r.target); });
      markWideFormulas();
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["hidden"] });
  }
  /* KaTeX's fonts arrive after the first layout and widen the formulas */
  if (document.fonts && document.fonts.ready) { document.fonts.ready.then(markWideFormulas); }
  window.addEventListener("load", markWideFormulas);
  window.addEventListener("resize", markWideFormulas);
  document.querySelectorAll(".dp-exercise").forEach(initExercise);
  document.querySelectorAll(".dp-quiz").forEach(initQuiz);
  initCounts();
  window.addEventListener("pageshow", initCounts); /* back/forward cache: counts stay fresh */
})();
