// dplab: the lab's controls in one component (app/lab/controls.py ControlPanel; style: dplab-lab-controls.css).
// The server sends the markup once (labels, names, values) and then a small `values` (JSON) and
// the `errors` when they change. Each commit of the student is one message:
//   {k: "text", c, v}     Enter in a field, or leaving a field whose text changed
//   {k: "slider", c, v}   a slider's release (a key press is one; a drag sends on release)
//   {k: "query"|"scale"|"overlays"|"preset"|"resample", v}   (each with n, its number)
// A field the student is editing is never overwritten by the server's values (it would lose
// what is being typed); a rejected text stays with its message until it is fixed.

const pow10 = (x) => Math.pow(10, x);
const SLIDER_VALUE = {
  sigma: (x) => Number(pow10(x).toPrecision(4)),
  eps: (x) => Math.round(x * 1e4) / 1e4,
  delta: (x) => (x < 0 ? Number(pow10(x).toPrecision(3)) : 1),
};
const SLIDER_SYMBOL = { sigma: "σ", eps: "ε", delta: "δ" };

function numText(v) {
  if (v !== 0 && (Math.abs(v) < 1e-4 || Math.abs(v) >= 1e16)) {
    return v.toExponential().replace("e+", "e");
  }
  return String(v);
}

export function sliderText(c, x) {
  return SLIDER_SYMBOL[c] + " = " + numText(SLIDER_VALUE[c](x));
}

export function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "dp-controls";
  root.innerHTML = model.markup;
  // Each commit is numbered; the server's values carry the number of the last one it took
  // (`ack`). Values that answer an earlier commit leave the sliders alone: with a held arrow
  // key, the answer to the first press would otherwise move the handle back under the next.
  let sent = 0;
  const send = (msg) => model.send_msg({ ...msg, n: ++sent });
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
  for (const [c, input] of Object.entries(fields)) {
    input.addEventListener("input", () => dirty.add(c));
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { lastSent[c] = undefined; commit(input); }
    });
    input.addEventListener("change", () => commit(input));
  }

  // ---- sliders ----------------------------------------------------------------------------
  function readout(c) {
    const input = sliders[c];
    const text = sliderText(c, Number(input.value));
    input.setAttribute("aria-valuetext", text);
    const out = input.parentElement.querySelector(".dp-slider-value");
    if (out) out.textContent = text;
  }
  for (const [c, input] of Object.entries(sliders)) {
    input.addEventListener("input", () => readout(c));
    input.addEventListener("change", () => {
      readout(c);
      send({ k: "slider", c, v: Number(input.value) });
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

  // ---- the server's values ----------------------------------------------------------------
  function showValues() {
    const v = JSON.parse(model.values || "{}");
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
  model.on("errors", showErrors);
  el.appendChild(root);
}
