// A student's class page (/join?room=CODE, app/room/pages.py): the private poll, the number
// question and the released class CDF, refreshed from /join/state every 2 s.
//
// Randomized response happens HERE: the true answer chosen in the form never leaves this
// page. With k options and ε, the browser keeps it with probability p = e^ε / (e^ε + k − 1)
// and otherwise picks one of the k − 1 others uniformly, with crypto.getRandomValues; only
// that randomized option is sent ("sent"). A central poll (labelled as such) sends the answer
// itself. Who answers is the server's word: the class page's address gave this browser a
// signed, HttpOnly student credential (app/room/roster.py) that every answer carries, so a
// second tab is the same student and is refused. The randomized report is kept (localStorage,
// shared by this browser's tabs) before it is sent, and any retry, reload or other tab sends
// that same report (permanent randomized response, as in RAPPOR): one true answer never
// spends a second ε. The polls answered and the number sent stay in this browser for the
// privacy summary and for marking the student's own value on the released curve, which is
// computed here and never sent back. The true answer is never stored.
(function () {
  "use strict";
  var root = document.querySelector(".dp-join[data-state]");

  // ---- randomness ----------------------------------------------------------------------
  function uniform() { // in [0, 1), 53 random bits
    var w = new Uint32Array(2);
    window.crypto.getRandomValues(w);
    return (w[0] * 2097152 + (w[1] >>> 11)) / 9007199254740992;
  }
  function below(m) { // uniform whole number in [0, m), no modulo bias
    var w = new Uint32Array(1), limit = Math.floor(4294967296 / m) * m;
    do { window.crypto.getRandomValues(w); } while (w[0] >= limit);
    return w[0] % m;
  }
  function keepProbability(eps, k) { return 1 / (1 + (k - 1) * Math.exp(-eps)); }
  // The option to send for the true option `truth` (0..k-1).
  function randomize(truth, eps, k) {
    if (uniform() < keepProbability(eps, k)) { return truth; }
    var other = below(k - 1);
    return other >= truth ? other + 1 : other;
  }
  window.dplabPoll = { randomize: randomize, keepProbability: keepProbability };
  if (!root) { return; }

  var room = root.getAttribute("data-room");
  var stateUrl = root.getAttribute("data-state");
  var pollBox = root.querySelector(".dp-join-poll");
  var askBox = root.querySelector(".dp-join-ask");
  var cdfBox = root.querySelector(".dp-join-cdf-box");
  var ledgerP = root.querySelector(".dp-poll-ledger");
  var classLedger = root.querySelector(".dp-join-class-ledger");
  var ended = root.querySelector(".dp-join-ended");
  function msg(name) { return root.getAttribute("data-msg-" + name.replace(/_/g, "-")) || ""; }
  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (m, k) {
      return Object.prototype.hasOwnProperty.call(values, k) ? String(values[k]) : m;
    });
  }
  var store = window.localStorage;
  var key = "dplab-room-" + room;
  function load() {
    try { return JSON.parse(store.getItem(key) || "{}") || {}; } catch (e) { return {}; }
  }
  // Other tabs of this browser write the same entry: take what they added before writing.
  function save(s) {
    var cur = load();
    ["polls", "reports", "meta"].forEach(function (name) {
      var theirs = cur[name] || {};
      s[name] = s[name] || {};
      Object.keys(theirs).forEach(function (id) {
        if (!Object.prototype.hasOwnProperty.call(s[name], id)) { s[name][id] = theirs[id]; }
      });
    });
    if (!s.value && cur.value) { s.value = cur.value; }
    try { store.setItem(key, JSON.stringify(s)); } catch (e) { /* full */ }
  }
  var mine = load();
  mine.polls = mine.polls || {};
  mine.reports = mine.reports || {}; // poll id -> the report drawn for it (sent or to resend)
  mine.meta = mine.meta || {}; // poll id -> the ε, k and model that report was drawn for
  delete mine.sid;

  function showLedger() {
    var ids = Object.keys(mine.polls), total = 0, local = 0;
    if (!ids.length) { return; }
    ids.forEach(function (id) {
      // a poll opened again after a restart took the report already sent: no new ε
      if (mine.polls[id].model === "local" && !mine.polls[id].resent) {
        total += mine.polls[id].eps; local += 1;
      }
    });
    var central = ids.length - local;
    ledgerP.textContent = fill(msg("ledger"), {
      local: local, central: central, total: total.toFixed(3)
    });
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (d) {
        return { status: r.status, error: d.error || "", sent: d.sent };
      });
    });
  }
  function errorText(res) {
    if (res.error === "already") { return msg("already"); }
    if (res.error === "full") { return msg("full"); }
    if (res.error === "not_joined") { return msg("not_joined"); }
    if (res.status === 429) { return msg("too_many"); }
    if (res.error === "closed") { return msg("closed"); }
    if (res.error === "gone") { return msg("gone"); }
    if (res.status === 400) { return msg("bad"); }
    if (res.status === 503) { return msg("store"); }
    return msg("failed");
  }

  // ---- the poll --------------------------------------------------------------------------
  function wirePoll() {
    var form = pollBox.querySelector("form.dp-poll");
    if (!form) { return; }
    var id = form.getAttribute("data-poll");
    var status = form.querySelector(".dp-poll-status");
    var send = form.querySelector(".dp-poll-send");
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    // A kind with fixed options (app/room/kinds.py) is sent by the option's value, a kind
    // with typed options by its index; the form says which (data-sends).
    var byValue = form.getAttribute("data-sends") === "value";
    function labelOf(sent) {
      var choices = form.querySelectorAll(".dp-poll-choice");
      for (var i = 0; i < choices.length; i++) {
        var input = choices[i].querySelector("input.dp-poll-option");
        if (byValue ? (input && input.value === String(sent)) : i === Number(sent)) {
          return choices[i].textContent.trim();
        }
      }
      return String(sent);
    }
    function lockInputs() {
      form.querySelectorAll("input.dp-poll-option").forEach(function (i) {
        i.checked = false; i.disabled = true;
      });
    }
    if (mine.polls[id]) {
      var had = mine.reports[id];
      status.textContent = had === undefined ? msg("already") :
        fill(msg("already_sent"), { sent: labelOf(had) });
      send.disabled = true;
      lockInputs();
      return;
    }
    // a report drawn earlier (another tab, a reload, a failed send) is sent again as it is;
    // so is the report of the poll this one opens again after a store restart, when it was
    // drawn for the same ε, options and model (the same question: no second ε)
    var pending = Object.prototype.hasOwnProperty.call(mine.reports, id) ? mine.reports[id] :
      null;
    var lost = form.getAttribute("data-reopens");
    var resent = false;
    if (pending === null && lost && Object.prototype.hasOwnProperty.call(mine.reports, lost)) {
      var m = mine.meta[lost] || {};
      if (m.eps === parseFloat(form.getAttribute("data-eps")) &&
          m.k === parseInt(form.getAttribute("data-k"), 10) &&
          m.model === form.getAttribute("data-model")) {
        pending = mine.reports[lost];
        mine.reports[id] = pending;
        mine.meta[id] = m;
        resent = true;
        save(mine);
      }
    }
    if (pending !== null) { lockInputs(); }
    send.addEventListener("click", function () {
      var eps = parseFloat(form.getAttribute("data-eps"));
      var k = parseInt(form.getAttribute("data-k"), 10);
      var model = form.getAttribute("data-model");
      var inputs = form.querySelectorAll("input.dp-poll-option");
      var options = Array.prototype.map.call(inputs, function (i) { return i.value; });
      var now = load().reports || {};
      if (pending === null && Object.prototype.hasOwnProperty.call(now, id)) {
        pending = now[id]; // another tab of this browser drew it: send that one, never a new one
        mine.reports[id] = pending;
        lockInputs();
      }
      if (pending === null) {
        var chosen = form.querySelector("input.dp-poll-option:checked");
        if (!chosen) { status.textContent = msg("pick"); return; }
        var truth = options.indexOf(chosen.value);
        var drawn = model === "local" ? randomize(truth, eps, k) : truth;
        // the true answer is not kept past this point, nor left on the screen
        truth = null;
        chosen = null;
        lockInputs();
        pending = byValue ? options[drawn] : drawn;
        mine.reports[id] = pending; // kept before it is sent: a retry cannot draw again
        mine.meta[id] = { eps: eps, k: k, model: model };
        save(mine);
      }
      var sent = pending;
      send.disabled = true;
      post(root.getAttribute("data-answer"), { room: room, poll: id, sent: sent })
        .then(function (res) {
          if (res.status === 200 || res.error === "already") {
            if (res.error === "already" && res.sent !== undefined && res.sent !== null) {
              mine.reports[id] = res.sent; // the server's record of what this student sent
            }
            mine.polls[id] = { model: model, eps: eps, resent: resent };
            save(mine);
            showLedger();
          }
          if (res.status === 200) {
            status.textContent = fill(msg(model === "local" ? "sent_local" : "sent_central"),
                                      { sent: labelOf(sent) });
          } else if (res.error === "already") {
            status.textContent = fill(msg("already_sent"), { sent: labelOf(mine.reports[id]) });
          } else {
            status.textContent = errorText(res);
            if (res.status >= 500 || res.status === 429) { send.disabled = false; }
          }
        }).catch(function () { status.textContent = msg("failed"); send.disabled = false; });
    });
  }

  // ---- the number ------------------------------------------------------------------------
  function wireAsk() {
    var form = askBox.querySelector("form.dp-value");
    if (!form) { return; }
    var id = form.getAttribute("data-ask");
    var lo = parseFloat(form.getAttribute("data-lo")), hi = parseFloat(form.getAttribute("data-hi"));
    var input = form.querySelector(".dp-value-input");
    var err = form.querySelector(".dp-value-error");
    var status = form.querySelector(".dp-value-status");
    var send = form.querySelector(".dp-value-send");
    form.addEventListener("submit", function (ev) { ev.preventDefault(); send.click(); });
    if (mine.value && mine.value.ask === id) {
      input.value = String(mine.value.x);
      input.disabled = true; send.disabled = true;
      status.textContent = msg("value_sent");
      return;
    }
    send.addEventListener("click", function () {
      var text = input.value.trim().replace(",", ".");
      var x = Number(text);
      if (text === "" || !isFinite(x) || x < lo || x > hi) {
        err.textContent = fill(msg("value_bad"), { lo: lo, hi: hi });
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      err.textContent = "";
      input.removeAttribute("aria-invalid");
      send.disabled = true;
      post(root.getAttribute("data-value"), { room: room, ask: id, value: x })
        .then(function (res) {
          if (res.status === 200 || res.error === "already") {
            mine.value = { ask: id, x: x };
            save(mine);
          }
          status.textContent = res.status === 200 ? msg("value_sent") : errorText(res);
          if (res.status === 200) { input.disabled = true; markMine(); }
          else if (res.status >= 500) { send.disabled = false; }
        }).catch(function () { status.textContent = msg("failed"); send.disabled = false; });
    });
  }

  // ---- the released curve: the student's own value, marked here only ---------------------
  function markMine() {
    var svg = cdfBox.querySelector("svg.dp-cdf-curve");
    var out = cdfBox.querySelector(".dp-join-mine");
    if (!svg || !out || !mine.value) { return; }
    var old = svg.querySelector(".dp-plot-mine");
    if (old) { old.parentNode.removeChild(old); }
    var lo = parseFloat(svg.getAttribute("data-lo")), hi = parseFloat(svg.getAttribute("data-hi"));
    var box = svg.getAttribute("data-box").split(",").map(parseFloat);
    var xs = JSON.parse(svg.getAttribute("data-xs")), ys = JSON.parse(svg.getAttribute("data-curve"));
    var x = mine.value.x, f = ys[ys.length - 1];
    for (var i = 1; i < xs.length; i++) {
      if (x <= xs[i]) {
        var a = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
        f = ys[i - 1] + a * (ys[i] - ys[i - 1]);
        break;
      }
    }
    var cx = box[0] + box[2] * (x - lo) / (hi - lo), cy = box[1] + box[3] * (1 - f);
    var ns = "http://www.w3.org/2000/svg";
    var g = document.createElementNS(ns, "g");
    g.setAttribute("class", "dp-plot-mine");
    var line = document.createElementNS(ns, "line");
    line.setAttribute("x1", cx); line.setAttribute("x2", cx);
    line.setAttribute("y1", box[1]); line.setAttribute("y2", box[1] + box[3]);
    var dot = document.createElementNS(ns, "rect");
    dot.setAttribute("x", cx - 6); dot.setAttribute("y", cy - 6);
    dot.setAttribute("width", 12); dot.setAttribute("height", 12);
    g.appendChild(line); g.appendChild(dot);
    svg.appendChild(g);
    out.textContent = fill(msg("mine"), { x: x, share: (100 * f).toFixed(0) });
  }

  // ---- refresh ---------------------------------------------------------------------------
  var seen = { poll: null, ask: null, cdf: null };
  var delay = 2000;
  function tick() {
    // whether the class answered: assets/dplab-reconnect.js says "lost" / "back" on the page
    var said = window.dplabReconnect ? window.dplabReconnect.classState : function () {};
    fetch(stateUrl, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      said(r.status < 500);
      if (r.status === 404) { return { ended: true }; }
      return r.ok ? r.json() : null;
    }, function (e) { said(false); throw e; }).then(function (d) {
      if (!d) { delay = Math.min(10000, delay * 2); return; }
      delay = 2000;
      if (d.ended) {
        ended.hidden = false;
        delay = 0;
        return;
      }
      var pk = d.poll ? d.poll.id + (d.poll.open ? "o" : "c") : "";
      if (pk !== seen.poll) { pollBox.innerHTML = d.poll_html; seen.poll = pk; wirePoll(); }
      var ak = d.ask ? d.ask.id + (d.ask.open ? "o" : "c") : "";
      if (ak !== seen.ask) { askBox.innerHTML = d.ask_html; seen.ask = ak; wireAsk(); }
      var ck = d.cdf ? d.cdf.id : "";
      if (ck !== seen.cdf) { cdfBox.innerHTML = d.cdf_html; seen.cdf = ck; markMine(); }
      if (classLedger.textContent !== d.ledger_text) { classLedger.textContent = d.ledger_text; }
    }).catch(function () { delay = Math.min(10000, delay * 2); })
      .then(function () { if (delay) { window.setTimeout(tick, delay); } });
  }
  showLedger();
  tick();
}());
