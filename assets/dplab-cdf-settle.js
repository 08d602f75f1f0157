// The /cdf controls whose every change is a privacy release (app/cdf/widgets.py SettleNote):
// the ε slider and the native selects (data source, method, uploaded column). The server
// books a value once it settles: 600 ms after the last key press (an arrow key on a slider
// handle or on a focused select changes the value at each press), or at once when the
// pointer is let go, a select's option is picked (with the pointer or in its open list), or
// Enter is pressed on the control. This module only says "settled now" (with the value shown
// on the control) in those cases, and shows the server's note on a value not yet released in
// a live region (read by screen readers).
function controlHost(ev, cls) {
  for (const el of ev.composedPath()) {
    if (el && el.classList && el.classList.contains(cls)) return el;
  }
  return null;
}
function selectOf(host) {
  const root = host.shadowRoot || host;
  return root.querySelector("select") || host.querySelector("select");
}
function shownValue(host) {
  const sel = selectOf(host);
  if (sel) return sel.value;  // the option's value as the select holds it (Panel: its label)
  const root = host.shadowRoot || host;
  const h = root.querySelector(".noUi-handle") || host.querySelector(".noUi-handle");
  if (!h) return NaN;
  const tip = h.querySelector(".noUi-tooltip");
  const v = parseFloat(tip && tip.textContent.trim() !== "" ? tip.textContent
                                                             : h.getAttribute("aria-valuenow"));
  return v;
}
function findHost(cls) {
  const stack = [document];
  while (stack.length) {
    const root = stack.pop();
    const hit = root.querySelector("." + cls);
    if (hit) return hit;
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) stack.push(el.shadowRoot);
  }
  return null;
}
export function render({ model }) {
  const note = document.createElement("p");
  // one class per kind: the ε slider's note stays the page's only .dp-cdf-pending
  note.className = model.control_kind === "select" ? "dp-cdf-choice-pending" : "dp-cdf-pending";
  note.setAttribute("role", "status");
  note.setAttribute("aria-live", "polite");
  const show = () => {
    note.textContent = model.text;
    note.classList.toggle("dp-cdf-pending-on", model.text !== "");
  };
  show();
  model.on("text", show);
  const settle = (host) => {
    const v = shownValue(host);
    if (typeof v === "string" ? v !== "" : isFinite(v)) model.send_msg({ kind: "settle", value: v });
  };
  // A key pressed on a select changes its value in the key's default action, which fires the
  // select's "input" event before any timer runs: such a change waits for the pause.
  let keyed = false;
  const onKey = (ev) => {
    const host = controlHost(ev, model.slider_class);
    if (!host) return;
    if (ev.key === "Enter") {
      settle(host);
      return;
    }
    keyed = true;
    setTimeout(() => { keyed = false; }, 0);
  };
  const onUp = (ev) => {
    const host = controlHost(ev, model.slider_class);
    // after noUiSlider's own pointer-up handler has set the released value
    if (host && !selectOf(host)) {
      setTimeout(() => settle(findHost(model.slider_class) || host), 0);
    }
  };
  const onInput = (ev) => {
    // a select's "input" event is composed: it reaches the document from Bokeh's shadow root
    const host = controlHost(ev, model.slider_class);
    if (host && !keyed && selectOf(host)) settle(host);
  };
  document.addEventListener("keydown", onKey, true);
  document.addEventListener("pointerup", onUp, true);
  document.addEventListener("input", onInput, true);
  model.on("remove", () => {
    document.removeEventListener("keydown", onKey, true);
    document.removeEventListener("pointerup", onUp, true);
    document.removeEventListener("input", onInput, true);
  });
  return note;
}
