// The /cdf slider whose every release is a privacy release (app/cdf/widgets.py SettleNote).
// The server books a slider value once it settles: 600 ms after the last key press, or at
// once when the pointer is let go or Enter is pressed on the handle. This module only says
// "settled now" (with the value shown on the handle) on pointer up and Enter, and shows the
// server's note on a value not yet released in a live region (read by screen readers).
function sliderHost(ev, cls) {
  for (const el of ev.composedPath()) {
    if (el && el.classList && el.classList.contains(cls)) return el;
  }
  return null;
}
function shownValue(host) {
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
  note.className = "dp-cdf-pending";
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
    if (isFinite(v)) model.send_msg({ kind: "settle", value: v });
  };
  const onKey = (ev) => {
    if (ev.key !== "Enter") return;
    const host = sliderHost(ev, model.slider_class);
    if (host) settle(host);
  };
  const onUp = (ev) => {
    const host = sliderHost(ev, model.slider_class);
    // after noUiSlider's own pointer-up handler has set the released value
    if (host) setTimeout(() => settle(findHost(model.slider_class) || host), 0);
  };
  document.addEventListener("keydown", onKey, true);
  document.addEventListener("pointerup", onUp, true);
  model.on("remove", () => {
    document.removeEventListener("keydown", onKey, true);
    document.removeEventListener("pointerup", onUp, true);
  });
  return note;
}
