// dplab: the lab's controls in one component (app/lab/controls.py ControlPanel; style: dplab-lab-controls.css).
// The server sends the markup once (labels, names, values) and then a small `values` (JSON) and
// the `errors` when they change. Each commit of the student is one message:
//   {k: "text", c, v}     Enter in a field, or leaving a field whose text changed
//   {k: "slider", c, v}   a slider's release (a key press is one; a drag sends on release)
//   {k: "query"|"scale"|"overlays"|"preset"|"resample", v}   (each with n, its number)
//   {k: "calib", v: "tpr"|"error"}   σ from a hit rate or an accepted error (its button, or
//                         Enter in one of its fields: the field's text is committed first)
// A field the student is editing is never overwritten by the server's values (it would lose
// what is being typed); a rejected text stays with its message until it is fixed.
//
// The file has two parts. The first (up to the FIRST-PAINT-END line) is also inlined, as a
// classic script, into the page's first HTML (app/lab/first_paint.py): the first paint carries
// a copy of these controls, shown before the page is live (the card paints in a few hundred
// ms, the live page comes seconds later on a busy machine; issue 39, 4). That copy says
// "connecting" (a status text, aria-busy), and what the student does with it is kept in
// window.dplabPendingControls, outside the first paint's markup: the first paint is moved
// (dplab-first-paint-move.js) and removed (-swap.js) on its own schedule. The live component
// (`render`, the second part) takes the kept values over, removes the copy and sends the last
// value of each control as one commit. So nothing in the first part may use `export`/`import`.

const pow10 = (x) => Math.pow(10, x);
const SLIDER_VALUE = {
  sigma: (x) => Number(pow10(x).toPrecision(4)),
  eps: (x) => Math.round(x * 1e4) / 1e4,
  delta: (x) => (x < 0 ? Number(pow10(x).toPrecision(3)) : 1),
};
const SLIDER_SYMBOL = { sigma: "σ", eps: "ε", delta: "δ" };
const PENDING = "dplabPendingControls";   // window property: the first paint's kept values
const EARLY_ID = "dp-first-paint-controls";

function numText(v) {
  if (v !== 0 && (Math.abs(v) < 1e-4 || Math.abs(v) >= 1e16)) {
    return v.toExponential().replace("e+", "e");
  }
  return String(v);
}

function sliderLabel(c, x) {
  return SLIDER_SYMBOL[c] + " = " + numText(SLIDER_VALUE[c](x));
}

// A slider's readout and aria-valuetext (both copies of the controls).
function showSlider(input) {
  const text = sliderLabel(input.dataset.slider, Number(input.value));
  input.setAttribute("aria-valuetext", text);
  const out = input.parentElement.querySelector(".dp-slider-value");
  if (out) out.textContent = text;
}

// A selector that finds the same control in the other copy (same ids and data attributes).
function controlSelector(el) {
  if (!el || !el.matches || !el.matches("input, select, button")) return null;
  if (el.id) return "#" + el.id;
  for (const a of ["preset", "scale", "overlay", "resample", "calib"]) {
    if (el.dataset[a] !== undefined) return `[data-${a}="${el.dataset[a]}"]`;
  }
  return null;
}

// The first paint's copy (app/lab/first_paint.py calls this right after its markup). Every
// change is kept, in order, as the message the live component would send for it; a control
// changed again keeps only its last value, at its new place in the order.
function firstPaintControls(block) {
  if (!block) return;
  const keep = window[PENDING] = { msgs: new Map(), focus: null };
  const put = (key, msg) => { keep.msgs.delete(key); keep.msgs.set(key, msg); };
  const keepSlider = (el) => {
    showSlider(el);
    put("slider:" + el.dataset.slider, { k: "slider", c: el.dataset.slider, v: Number(el.value) });
  };
  const set = block.querySelector("fieldset.dp-fp-set");
  if (set) set.disabled = false;  // disabled in the HTML: inert without JavaScript
  block.addEventListener("input", (e) => {
    const el = e.target;
    if (el.dataset.slider) keepSlider(el);
  });
  block.addEventListener("change", (e) => {
    const el = e.target;
    if (el.dataset.slider) {
      keepSlider(el);
    } else if (el.dataset.control === "query") {
      put("query", { k: "query", v: el.value });
    } else if (el.dataset.control) {
      put("text:" + el.dataset.control, { k: "text", c: el.dataset.control, v: el.value });
    } else if (el.dataset.overlay) {
      const on = [...block.querySelectorAll("input[data-overlay]")].filter((b) => b.checked);
      put("overlays", { k: "overlays", v: on.map((b) => b.dataset.overlay) });
    }
  });
  block.addEventListener("keydown", (e) => {
    const el = e.target;
    if (e.key === "Enter" && el.dataset.control && el.tagName === "INPUT") {
      put("text:" + el.dataset.control, { k: "text", c: el.dataset.control, v: el.value });
      const group = el.closest(".dp-calib");
      const b = group ? group.querySelector("button[data-calib]") : null;
      if (b) put("calib:" + b.dataset.calib, { k: "calib", v: b.dataset.calib });
    }
  });
  block.addEventListener("click", (e) => {
    const b = e.target.closest ? e.target.closest("button") : null;
    if (!b) return;
    if (b.dataset.scale) {
      for (const o of block.querySelectorAll("button[data-scale]")) {
        o.setAttribute("aria-pressed", o === b ? "true" : "false");
      }
      put("scale", { k: "scale", v: b.dataset.scale });
    } else if (b.dataset.preset) {
      put("preset", { k: "preset", v: b.dataset.preset });
    } else if (b.dataset.resample) {
      put("resample", { k: "resample" });
    } else if (b.dataset.calib) {
      put("calib:" + b.dataset.calib, { k: "calib", v: b.dataset.calib });
    }
  });
  // The control with the focus (moving an element takes its focus away: given back below).
  block.addEventListener("focusin", (e) => { keep.focus = e.target; });
  block.addEventListener("focusout", (e) => {
    const was = e.target;
    setTimeout(() => {
      if (keep.focus === was && document.activeElement !== was) keep.focus = null;
    });
  });
  // Where the live controls will be: the sidebar, once its HTML has come (at once when the page
  // comes whole; a streamed page sends it after the card). Until then the first paint's CSS
  // puts the copy at the sidebar's place.
  const place = () => {
    const side = document.getElementById("sidebar");
    if (!side) return false;
    const focused = block.contains(document.activeElement) ? document.activeElement : keep.focus;
    side.insertBefore(block, side.firstChild);
    if (focused && focused.isConnected && document.activeElement !== focused) {
      focused.focus({ preventScroll: true });
    }
    return true;
  };
  if (!place()) {
    const mo = new MutationObserver(() => { if (!block.isConnected || place()) mo.disconnect(); });
    mo.observe(document.documentElement, { childList: true, subtree: true });
  }
  // A page that never comes live (as the first card's note, after 60 s): say so, and stop.
  setTimeout(() => {
    if (!block.isConnected) return;
    const note = block.querySelector(".dp-connecting");
    if (note) note.textContent = note.dataset.failed || note.textContent;
    block.classList.add("dp-fp-failed");
    if (set) { set.disabled = true; set.setAttribute("aria-busy", "false"); }
  }, 60000);
}
// ---- FIRST-PAINT-END (app/lab/first_paint.py inlines the file up to this line) ----------------

export function sliderText(c, x) {
  return sliderLabel(c, x);
}

// The first paint's copy gives way to the live controls: its kept values are applied to
// `fields`/`sliders`/... (the live copy's controls) and sent, one commit per control, by
// `send`; the control that had the focus there has it here once the live copy can take it.
function takeOver(root, send, dirty) {
  const early = document.getElementById(EARLY_ID);
  const keep = window[PENDING];
  window[PENDING] = null;
  let focusSel = null;
  if (early) {
    const had = early.contains(document.activeElement) ? document.activeElement
      : (keep && keep.focus && early.contains(keep.focus) ? keep.focus : null);
    focusSel = controlSelector(had);
    // A text being typed (not committed yet) goes on being typed in the live field.
    for (const input of early.querySelectorAll("input[data-control]")) {
      if (input.value === input.defaultValue) continue;
      const c = input.dataset.control;
      const live = root.querySelector(`input[data-control="${c}"]`);
      const committed = keep && keep.msgs.get("text:" + c);
      if (live && !(committed && committed.v === input.value)) {
        live.value = input.value;
        dirty.add(c);
      }
    }
    early.remove();
  }
  for (const msg of keep ? keep.msgs.values() : []) {
    if (msg.k === "slider") {
      const input = root.querySelector(`input[data-slider="${msg.c}"]`);
      if (input) { input.value = String(msg.v); showSlider(input); }
    } else if (msg.k === "text") {
      const input = root.querySelector(`input[data-control="${msg.c}"]`);
      if (input) input.value = msg.v;
    } else if (msg.k === "query") {
      root.querySelector("select[data-control=query]").value = msg.v;
    } else if (msg.k === "overlays") {
      for (const box of root.querySelectorAll("input[data-overlay]")) {
        box.checked = msg.v.includes(box.dataset.overlay);
      }
    } else if (msg.k === "scale") {
      for (const b of root.querySelectorAll("button[data-scale]")) {
        b.setAttribute("aria-pressed", b.dataset.scale === msg.v ? "true" : "false");
      }
    }
    send(msg);
  }
  const target = focusSel ? root.querySelector(focusSel) : null;
  if (!target) return;
  // The live copy is drawn into a layout that may not be on the screen yet: give it the
  // focus once it can take it, unless the student has put the focus somewhere else.
  let tries = 0;
  const give = () => {
    const free = !document.activeElement || document.activeElement === document.body;
    if (!free) return;
    if (target.isConnected && target.getClientRects().length) {
      target.focus({ preventScroll: true });
    } else if (++tries < 300) {
      requestAnimationFrame(give);
    }
  };
  give();
}

// ---- the moves channel (app/lab/moves.py) --------------------------------------------------
// `path`: the page's channel ("" when every commit goes through the session). `send(msg)` is
// false when it is not open (the caller sends through the session); `onclose` is called when
// an open channel closes. A closed channel is opened again after a pause, unless the server
// said this page is not its own (4404) or refused a message (1003).
function movesChannel(path, onFrame) {
  const chan = { socket: null, onclose: null, send: (msg) => false };
  if (!path || !("WebSocket" in window)) return chan;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const open = () => {
    const ws = new WebSocket(scheme + location.host + path);
    ws.onopen = () => { chan.socket = ws; };
    ws.onmessage = (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      onFrame(m);
    };
    ws.onclose = (ev) => {
      const was = chan.socket === ws;
      if (was) chan.socket = null;
      if (was && chan.onclose) chan.onclose();
      if (ev.code !== 4404 && ev.code !== 1003) setTimeout(open, 3000);
    };
  };
  chan.send = (msg) => {
    const ws = chan.socket;
    if (!ws || ws.readyState !== 1) return false;
    ws.send(JSON.stringify(msg));
    return true;
  };
  open();
  return chan;
}

// What a move's answer lays over a view: its message until the session has taken the move
// (assets/dplab-svgplot.js plotData; the controls' showValues below).
function layOver(key, text, n) {
  const all = (window.dplabChannelOver = window.dplabChannelOver || {});
  const over = all[key];
  if (over && over.text === text && over.n === n) return;
  all[key] = { text, base: over ? over.base : undefined, n };
  const again = (window.dplabRedraw || {})[key];
  if (again) again();
}

// The card pane's content box (inside its shadow root), found once while it lasts.
let cardBox = null;
function findCard() {
  if (cardBox && cardBox.isConnected) return cardBox;
  const stack = [document];
  while (stack.length) {
    const root = stack.pop();
    const host = root.querySelector(".dp-card-pane");
    if (host && host.shadowRoot) {
      cardBox = [...host.shadowRoot.children].find((c) => c.tagName === "DIV") || null;
      return cardBox;
    }
    for (const e of root.querySelectorAll("*")) if (e.shadowRoot) stack.push(e.shadowRoot);
  }
  return null;
}

// The card of a move's answer, in place of the card pane's content: the session's next card
// (newer, or as new: see showValues) replaces it as BokehJS renders the pane again.
function layCard(html) {
  const box = findCard();
  if (!box) return;
  if (window.dplabSteady) window.dplabSteady(box);  // (assets/dplab-svgplot.js)
  const t = document.createElement("template");
  t.innerHTML = html;
  if (window.dplabMorph) window.dplabMorph(box, t.content);
  else box.replaceChildren(t.content);
}

export function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "dp-controls";
  root.innerHTML = model.markup;
  // Each commit is numbered; the server's values carry the number of the last one it took
  // (`ack`). Values that answer an earlier commit leave the sliders alone: with a held arrow
  // key, the answer to the first press would otherwise move the handle back under the next.
  let sent = 0;
  let lastSession = 0;  // the last commit sent through the session (Bokeh)
  const send = (msg) => { lastSession = ++sent; model.send_msg({ ...msg, n: sent }); };
  // A slider's release goes by the page's moves channel when the session has taken every
  // commit sent through it (app/lab/moves.py): the views of the new state come back from
  // there and are laid over the page's own until its session next shows them.
  const moves = movesChannel(model.moves, (m) => onMoved(m));
  const pending = new Map();  // commit -> slider message, sent by the channel, not answered
  let ackSeen = 0;            // the last commit the session said it took (values' ack)
  let laidFast = 0;           // the newest commit whose views are laid over the page's
  let lastCard = null;
  function slide(msg) {
    if (ackSeen >= lastSession) {
      const n = sent + 1;
      if (moves.send({ n, c: msg.c, v: msg.v })) {
        sent = n;
        pending.set(n, msg);
        return;
      }
    }
    send(msg);
  }
  function bySession(n, msg) {  // the session answers this commit (its number kept)
    lastSession = Math.max(lastSession, n);
    model.send_msg({ ...msg, n });
  }
  moves.onclose = () => {  // moves not answered yet go through the session
    for (const [n, msg] of pending) bySession(n, msg);
    pending.clear();
  };
  function onMoved(m) {
    if (typeof m.n !== "number") return;
    const msg = pending.get(m.n);
    pending.delete(m.n);
    if (m.session) { if (msg) bySession(m.n, msg); return; }
    // (a move the session has taken already is shown by the session's own views, which may
    // be newer: a curve click taken right after it)
    if (m.n <= laidFast || m.n <= ackSeen || !m.views) return;
    laidFast = m.n;
    if (m.addr) showAddress(m.addr);
    const views = m.views;
    const card = (views.panes || {})["dp-card-pane"];
    if (card !== undefined) { lastCard = card; layCard(card); }
    window.requestAnimationFrame(() => {  // the card paints first
      if (laidFast !== m.n) return;
      for (const [key, text] of Object.entries(views.plots || {})) layOver(key, text, m.n);
      if (views.controls) layOver("controls", views.controls, m.n);
    });
  }
  const fields = {};
  for (const input of root.querySelectorAll("input[data-control]")) {
    fields[input.dataset.control] = input;
  }
  const sliders = {};
  for (const input of root.querySelectorAll("input[data-slider]")) {
    sliders[input.dataset.slider] = input;
  }
  const dirty = new Set();   // fields edited since their last commit
  const dragging = new Set(); // sliders held by a pointer
  const lastSent = {};

  // ---- text fields ------------------------------------------------------------------------
  function commit(input) {
    const c = input.dataset.control;
    dirty.delete(c);
    if (lastSent[c] === input.value && !input.hasAttribute("aria-invalid")) return;
    lastSent[c] = input.value;
    send({ k: "text", c, v: input.value });
  }
  // The calibration a field belongs to ("tpr", "error"): Enter there applies it.
  const calibOf = (input) => {
    const group = input.closest(".dp-calib");
    const b = group ? group.querySelector("button[data-calib]") : null;
    return b ? b.dataset.calib : null;
  };
  const enter = (c, input) => {
    lastSent[c] = undefined;
    commit(input);
    const kind = calibOf(input);
    if (kind) send({ k: "calib", v: kind });
  };
  // An input method (IME) that composes full-width digits ("１.５") ends its composition on
  // Enter: the Enter's keydown comes while composing and the composition's last `input` after
  // it. Committing at that keydown and counting that `input` as an edit left the field "being
  // typed", so the server's normalised text ("1.5") never replaced it (issue 39). The commit
  // waits for the composition's end, and an `input` that leaves the committed text as it was
  // is no edit.
  const enterAfterComposing = new Set();
  for (const [c, input] of Object.entries(fields)) {
    input.addEventListener("input", () => {
      if (input.value !== lastSent[c]) dirty.add(c);
    });
    input.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      if (e.isComposing || e.keyCode === 229) { enterAfterComposing.add(c); return; }
      enter(c, input);
    });
    input.addEventListener("compositionend", () => {
      if (enterAfterComposing.delete(c)) enter(c, input);
    });
    input.addEventListener("change", () => commit(input));
  }

  // ---- sliders ----------------------------------------------------------------------------
  const readout = (c) => showSlider(sliders[c]);
  for (const [c, input] of Object.entries(sliders)) {
    input.addEventListener("input", () => readout(c));
    input.addEventListener("change", () => {
      readout(c);
      slide({ k: "slider", c, v: Number(input.value) });
    });
    input.addEventListener("pointerdown", () => dragging.add(c));
    const up = () => dragging.delete(c);
    input.addEventListener("pointerup", up);
    input.addEventListener("pointercancel", up);
    input.addEventListener("blur", up);
  }

  // ---- choices and buttons ----------------------------------------------------------------
  const query = root.querySelector("select[data-control=query]");
  query.addEventListener("change", () => send({ k: "query", v: query.value }));
  const scales = [...root.querySelectorAll("button[data-scale]")];
  for (const b of scales) {
    b.addEventListener("click", () => send({ k: "scale", v: b.dataset.scale }));
  }
  const boxes = [...root.querySelectorAll("input[data-overlay]")];
  for (const box of boxes) {
    box.addEventListener("change", () => send({
      k: "overlays", v: boxes.filter((b) => b.checked).map((b) => b.dataset.overlay) }));
  }
  for (const b of root.querySelectorAll("button[data-preset]")) {
    b.addEventListener("click", () => send({ k: "preset", v: b.dataset.preset }));
  }
  const resample = root.querySelector("button[data-resample]");
  resample.addEventListener("click", () => send({ k: "resample" }));
  for (const b of root.querySelectorAll("button[data-calib]")) {
    b.addEventListener("click", () => {
      // a text of its group not committed yet (a click does not always blur it first) goes
      // before the calibration that reads it
      for (const input of b.closest(".dp-calib").querySelectorAll("input[data-control]")) {
        if (dirty.has(input.dataset.control)) commit(input);
      }
      send({ k: "calib", v: b.dataset.calib });
    });
  }
  const calibResult = root.querySelector(".dp-calib-result");

  // ---- the server's values ----------------------------------------------------------------
  // The page's address follows its state (app/shell/address.py AddressQuery): keys set to ""
  // leave it; one history entry per page (replaced, so Back leaves the lab).
  function showAddress(query) {
    const u = new URL(window.location.href);
    for (const [k, val] of Object.entries(query)) {
      if (val === "" || val === null) u.searchParams.delete(k);
      else u.searchParams.set(k, String(val));
    }
    if (u.href !== window.location.href) {
      window.history.replaceState(window.history.state, "", u.href);
    }
  }

  function showValues() {
    let text = model.values || "{}";
    // A following page may show the class's state from its channel (assets/dplab-room-card.js)
    // until its own session takes it: new values from the server then win.
    // (the session's own values say which commits it took: window.dplabAck)
    const own = JSON.parse(text);
    ackSeen = Math.max(ackSeen, own.ack || 0);
    window.dplabAck = ackSeen;
    if (laidFast > ackSeen && lastCard !== null) {
      // the session showed an older state than the page's last move: its card is laid again
      window.requestAnimationFrame(() => { if (laidFast > ackSeen) layCard(lastCard); });
    }
    const chan = (window.dplabChannelOver || {}).controls;
    let fromChannel = false;
    if (chan) {
      if (chan.base === undefined) chan.base = model.values;
      if (chan.base === model.values || chan.n > ackSeen) { text = chan.text; fromChannel = true; }
      else delete window.dplabChannelOver.controls;
    }
    const v = fromChannel ? JSON.parse(text) : own;
    // (the channel's values know nothing of this page's commits: a move's answer is as new
    // as that move, a class's state as new as everything sent)
    if (fromChannel) v.ack = chan.n || sent;
    else if (v.addr) showAddress(v.addr);
    for (const [c, text] of Object.entries(v.fields || {})) {
      const input = fields[c];
      if (!input || dirty.has(c)) continue;
      if (input.value !== text) input.value = text;
      lastSent[c] = text;
    }
    const inFlight = (v.ack || 0) < sent;
    for (const [c, [x, value]] of Object.entries(v.sliders || {})) {
      const input = sliders[c];
      if (!input || dragging.has(c) || value < 0 || inFlight) continue;
      // a slider whose position already gives the state's value stays where it is
      if (SLIDER_VALUE[c](Number(input.value)) !== value) {
        input.value = String(x);
        readout(c);
      }
    }
    if (v.query && query.value !== v.query) query.value = v.query;
    for (const b of scales) {
      const on = b.dataset.scale === v.scale ? "true" : "false";
      if (b.getAttribute("aria-pressed") !== on) b.setAttribute("aria-pressed", on);
    }
    const over = new Set(v.overlays || []);
    for (const box of boxes) box.checked = over.has(box.dataset.overlay);
    const off = new Set(v.disabled || []);
    for (const [c, input] of Object.entries(fields)) input.disabled = off.has(c);
    for (const [c, text] of Object.entries(v.labels || {})) {
      const label = root.querySelector(`label[for="dpc-${c}"]`);
      if (label && label.textContent !== text) label.textContent = text;
    }
    if (calibResult && v.calib !== undefined && calibResult.textContent !== v.calib) {
      calibResult.textContent = v.calib;
    }
  }

  function showErrors() {
    const errs = model.errors || {};
    for (const box of root.querySelectorAll("[id$='-err']")) {
      const c = box.id.slice(4, -4);  // "dpc-<c>-err"
      const control = fields[c] || (c === "query" ? query : null);
      const msg = errs[c];
      if (msg) {
        const p = document.createElement("p");
        p.className = "dp-error";
        p.setAttribute("role", "alert");
        p.textContent = "⚠ " + msg;
        box.replaceChildren(p);
        if (control) {
          control.setAttribute("aria-invalid", "true");
          control.setAttribute("aria-describedby", box.id);
        }
      } else if (box.firstChild) {
        box.replaceChildren();
        if (control) {
          control.removeAttribute("aria-invalid");
          control.removeAttribute("aria-describedby");
        }
      }
    }
  }

  // ---- focus ------------------------------------------------------------------------------
  // A control that takes the focus (Tab, a label's click) is brought wholly into view: the
  // browser's own scroll on focus left a field or the σ handle half below a 1366×768 screen
  // (issue 39, 6b). "nearest": nothing moves when it is on the screen already.
  root.addEventListener("focusin", (e) => {
    const target = e.target;
    if (target && typeof target.scrollIntoView === "function") {
      target.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
  });

  showValues();
  showErrors();
  model.on("values", showValues);
  (window.dplabRedraw = window.dplabRedraw || {}).controls = showValues;
  model.on("errors", showErrors);
  el.appendChild(root);
  // What the student did on the first paint's copy, before the page was live (issue 39, 4).
  takeOver(root, (msg) => {
    if (msg.k === "text") lastSent[msg.c] = msg.v;
    send(msg);
  }, dirty);
  for (const c of dirty) {  // a text carried over uncommitted is committed when it is left
    fields[c].addEventListener("blur", () => { if (dirty.has(c)) commit(fields[c]); },
                               { once: true });
  }
}
