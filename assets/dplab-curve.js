// The lab's ε–δ curve, drawn by the browser from one message (app/lab/views.py CurvePlot):
// δ(ε) of the Gaussian mechanism computed on the server by dpcore on an even grid of ε (the
// values, in the chosen scale, rounded for the picture), the comparisons the student switched
// on (closed forms, drawn here from σ and Δ),
// the claimed δ as a line, the current ε as a dashed line with its point. A click (or tap) in
// the plot sends its ε back: the server sets ε there. Helpers: assets/dplab-svgplot.js.

let curveCount = 0;

export function render({ model, el }) {
  const id = `dp-curve-${++curveCount}`;
  const holder = document.createElement("div");
  holder.className = "dp-svg-plot";
  let frame = null, box = null;  // of the figure drawn last (its clicks)

  function draw() {
    const d = plotData(model);
    const look = model.look || {};
    const { svg, w, h, font } = blankSvg(holder, el, look, d.title || "", 400);
    let top = drawTitle(svg, look, font, d.title);
    const n = (d.y || []).length;
    if (!n || !(d.hi > d.lo)) { holder.replaceChildren(svg); return svg; }
    const xs = [];
    for (let i = 0; i < n; i++) xs.push(d.lo + ((d.hi - d.lo) * i) / (n - 1));
    // The comparisons in closed form (dpcore.gaussian laplace_log_delta, classic_log_delta):
    // ln δ on the grid, then the chosen scale; the classic bound is inside its proof for ε < 1.
    const sigma = Number(d.sigma), delta = Number(d.d);
    const scaled = (ln) => (ln === -Infinity || isNaN(ln) ? null
      : d.scale === "log10" ? ln / Math.LN10 : Math.exp(ln));
    const lapLn = (e) => laplaceLnDelta(e, delta, sigma);
    const clLn = (e) => classicLnDelta(e, delta, sigma);
    const on = d.lap && delta > 0 && sigma > 0, cl = d.classic && delta > 0 && sigma > 0;
    const series = [
      ["claim", d.claim === null || d.claim === undefined ? null : [d.claim, d.claim], look.claim,
       3, "6 4 2 4"],
      ["lap", on ? xs.map((e) => scaled(lapLn(e))) : null, look.laplace, 3, "2 4"],
      ["cl_in", cl ? xs.map((e) => (e < 1 ? scaled(clLn(e)) : null)) : null, look.classic, 3, "6 4"],
      ["cl_out", cl ? xs.map((e) => (e >= 1 ? scaled(clLn(e)) : null)) : null, look.classic, 2,
       "2 4"],
      ["y", d.y, look.curve, 4, null],
    ];
    // The y range: every value drawn (and the frame of an all-zero curve), 5 % padding.
    let ylo = Infinity, yhi = -Infinity;
    const seen = (v) => { if (v !== null && isFinite(v)) { ylo = Math.min(ylo, v); yhi = Math.max(yhi, v); } };
    for (const [, ys] of series) (ys || []).forEach(seen);
    (d.frame || []).forEach(seen);
    if (!(yhi > ylo)) { ylo = (isFinite(ylo) ? ylo : 0) - 1; yhi = ylo + 2; }
    const pad = (yhi - ylo) * 0.05;
    box = { w, h, top: top + font * 0.8, left: font * 4.2, bottom: font * 3.4, right: 12 };
    frame = drawFrame(svg, box, { lo: d.lo, hi: d.hi, label: d.xlabel },
                      { lo: ylo - pad, hi: yhi + pad, label: d.ylabel }, look);
    const plot = clippedGroup(svg, id, box, frame);
    const px = xs.map(frame.sx);
    for (const [name, ys, colour, width, dash] of series) {
      if (!ys) continue;
      const pts = name === "claim" ? [frame.sx(d.lo), frame.sx(d.hi)] : px;
      plot.appendChild(svgEl("path", { d: pathOf(pts, ys.map((v) => (v === null ? null : frame.sy(v)))),
        fill: "none", stroke: colour, "stroke-width": width, "stroke-dasharray": dash,
        class: `dp-curve-${name}` }));
    }
    if (d.span !== null && d.span !== undefined) {
      const sx = frame.sx(d.span);
      plot.appendChild(svgEl("line", { x1: sx, x2: sx, y1: box.top, y2: box.top + frame.ph,
        stroke: look.marker, "stroke-width": 2, "stroke-dasharray": "6 4", class: "dp-curve-eps" }));
    }
    if (d.cur) {
      const cx = frame.sx(d.cur[0]), cy = frame.sy(d.cur[1]), r = 8;
      plot.appendChild(svgEl("polygon", { points: `${cx},${cy - r} ${cx + r},${cy} ${cx},${cy + r} ${cx - r},${cy}`,
        fill: look.curve, stroke: look.bg, "stroke-width": 2, class: "dp-curve-current" }));
    }
    svg.appendChild(plot);
    holder.replaceChildren(svg);
    labelWithBox(svg, box.left + 8, box.top + frame.ph - 8, d.note, look,
                 { colour: look.note, cls: "dp-svg-note" });
    return svg;
  }

  // A click inside the plot area: its ε goes to the server (which rounds and bounds it).
  holder.addEventListener("click", (ev) => {
    // (the figure on screen: a redraw patches it, assets/dplab-svgplot.js mountPlot)
    const shown = holder.querySelector("svg.dp-svg");
    if (!frame || !shown) return;
    const r = shown.getBoundingClientRect();
    const x = ev.clientX - r.left, y = ev.clientY - r.top;
    if (x < box.left || x > box.left + frame.pw || y < box.top || y > box.top + frame.ph) return;
    const d = plotData(model);
    model.send_msg({ tap: d.lo + ((x - box.left) / frame.pw) * (d.hi - d.lo) });
  });
  return mountPlot(model, holder, draw);
}
