// What δ means to an attacker (issue 41), drawn by the browser from one message
// (app/lab/views.py TradeoffPlot): the best membership test against this release, TPR = 1 − β(α)
// = Φ(Φ⁻¹(α) + μ) for each FPR α, the region the claimed (ε, δ) allows (its cap), both drawn
// here from μ = Δ/σ, ε and δ (the message's three numbers; the rates the text states and the
// attacker's point come from dpcore.tradeoff on the server), the guessing line TPR = FPR, and
// the attacker the student picks. The attacker's FPR is typed in the field above the figure
// (.dp-attack-fpr); Enter or leaving the field sends it (the server checks it and answers with the rates in
// words, in the text under the figure). Helpers: assets/dplab-svgplot.js.

let tradeoffCount = 0;

export function render({ model, el }) {
  const id = `dp-tradeoff-${++tradeoffCount}`;
  const wrap = document.createElement("div");
  wrap.className = "dp-tradeoff";
  const form = document.createElement("div");
  form.className = "dp-attack-form";
  const label = document.createElement("label");
  label.htmlFor = `${id}-fpr`;
  const input = document.createElement("input");
  input.id = `${id}-fpr`;
  input.className = "dp-attack-fpr";
  input.type = "text";
  input.inputMode = "decimal";
  input.autocomplete = "off";
  input.spellcheck = false;
  const error = document.createElement("p");
  error.id = `${id}-err`;
  error.className = "dp-attack-error";
  error.setAttribute("aria-live", "polite");
  form.append(label, input, error);
  const holder = document.createElement("div");
  holder.className = "dp-svg-plot";
  wrap.append(form, holder);

  let sent = null;  // the text last sent: the field is not overwritten while it is pending
  function send() {
    const text = input.value.trim();
    if (text === sent) return;
    sent = text;
    model.send_msg({ fpr: text });
  }
  input.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { sent = null; send(); } });
  input.addEventListener("change", send);

  function syncForm(d) {
    label.textContent = d.fpr_label || "";
    const err = d.error || "";
    error.textContent = err;
    error.hidden = !err;
    if (err) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", error.id);
    } else {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
    // The server's value, unless the student is typing another one.
    if (document.activeElement !== input && (d.fpr_text || "") !== input.value) {
      input.value = d.fpr_text || "";
    }
    sent = err ? sent : (d.fpr_text || null);
  }

  function draw() {
    const d = plotData(model);
    syncForm(d);
    const look = model.look || {};
    form.style.fontSize = `${look.font || 16}px`;  // the figure's text size (24 px on a projector)
    const { svg, w, h, font } = blankSvg(holder, el, look, d.title || "", 400);
    const top = drawTitle(svg, look, font, d.title);
    if (d.eps === undefined) { holder.replaceChildren(svg); return svg; }
    const a = tradeoffGrid();
    const tpr = a.map((x) => tradeoffTpr(x, d.mu));
    const cap = a.map((x) => capTpr(x, d.eps, d.delta));
    const box = { w, h, top: top + font * 0.8, left: font * 4.2, bottom: font * 3.4, right: 16 };
    const f = drawFrame(svg, box, { lo: 0, hi: 1, label: d.xlabel },
                        { lo: 0, hi: 1, label: d.ylabel }, look);
    const plot = clippedGroup(svg, id, box, f);
    const px = a.map(f.sx);
    // What the claim allows: the region under its cap (shaded), the cap itself dashed.
    let region = `M${f.sx(0).toFixed(1)} ${f.sy(0).toFixed(1)}`;
    a.forEach((x, i) => { region += `L${px[i].toFixed(1)} ${f.sy(cap[i]).toFixed(1)}`; });
    region += `L${f.sx(1).toFixed(1)} ${f.sy(0).toFixed(1)}Z`;
    plot.appendChild(svgEl("path", { d: region, fill: look.claim, "fill-opacity": 0.12,
      stroke: "none", class: "dp-tradeoff-allowed" }));
    plot.appendChild(svgEl("path", { d: pathOf(px, cap.map(f.sy)), fill: "none",
      stroke: look.claim, "stroke-width": 3, "stroke-dasharray": "6 4 2 4",
      class: "dp-tradeoff-cap" }));
    plot.appendChild(svgEl("path", { d: pathOf([f.sx(0), f.sx(1)], [f.sy(0), f.sy(1)]),
      fill: "none", stroke: look.text, "stroke-width": 1.5, "stroke-dasharray": "2 4",
      class: "dp-tradeoff-guess" }));
    plot.appendChild(svgEl("path", { d: pathOf(px, tpr.map(f.sy)), fill: "none",
      stroke: look.curve, "stroke-width": 4, class: "dp-tradeoff-curve" }));
    if (d.pt) {
      const cx = f.sx(d.pt[0]), cy = f.sy(d.pt[1]), r = 8;
      plot.appendChild(svgEl("line", { x1: cx, x2: cx, y1: f.sy(0), y2: cy, stroke: look.marker,
        "stroke-width": 2, "stroke-dasharray": "6 4", class: "dp-tradeoff-fpr" }));
      plot.appendChild(svgEl("polygon", {
        points: `${cx},${cy - r} ${cx + r},${cy} ${cx},${cy + r} ${cx - r},${cy}`,
        fill: look.marker, stroke: look.bg, "stroke-width": 2, class: "dp-tradeoff-point" }));
    }
    svg.appendChild(plot);
    holder.replaceChildren(svg);
    if (d.pt && d.pt_label) {
      const cx = f.sx(d.pt[0]), cy = f.sy(d.pt[1]);
      labelWithBox(svg, Math.min(cx + 12, box.left + f.pw * 0.55), Math.max(cy - 12, box.top + font),
                   d.pt_label, look, { cls: "dp-tradeoff-label" });
    }
    return svg;
  }

  return mountPlot(model, holder, draw, wrap);
}
