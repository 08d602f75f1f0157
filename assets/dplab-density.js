// The lab's worst-neighbour densities, drawn by the browser from one compact message
// (app/lab/views.py DensityPlot): N(0, σ²) and N(Δ, σ²) on [lo, hi], the region y < t shaded
// under both, the threshold t as a dashed line. The server sends σ, Δ, t, the window and the
// texts (already in the reader's language); the exact probabilities are in the texts, from
// dpcore. Helpers: assets/dplab-svgplot.js (put in front of this module).

const POINTS = 241;
let plotCount = 0;

export function render({ model, el }) {
  const id = `dp-dens-${++plotCount}`;
  const holder = document.createElement("div");
  holder.className = "dp-svg-plot";

  function draw() {
    const d = plotData(model);
    const look = model.look || {};
    const { svg, w, h, font } = blankSvg(holder, el, look, d.aria || d.title || "", 400);
    const defs = svgEl("defs");
    defs.appendChild(hatchPattern(`${id}-hatch`, look.d1, 45));
    svg.appendChild(defs);
    // Titles: the figure's title, then the event and its probabilities (one line each, so a
    // phone's width does not cut them).
    const lines = [[d.title, look.title_font || font * 1.1, "bold"], [d.sub, font, "normal"],
                   [d.sub2, font, "normal"]].filter((l) => l[0]);
    let top = 6;
    for (const [text, size, weight] of lines) {
      top += size * 1.25;
      svg.appendChild(svgEl("text", { x: 8, y: top, fill: look.text, "font-size": size,
        "font-weight": weight, class: "dp-svg-title" }, text));
    }
    const sigma = Number(d.sigma), delta = Number(d.d);
    if (!(sigma > 0) || !(d.hi > d.lo)) { holder.replaceChildren(svg); return svg; }
    const peak = 1 / (sigma * Math.sqrt(2 * Math.PI));
    const box = { w, h, top: top + font * 0.8, left: font * 4.2, bottom: font * 3.4, right: 12 };
    const f = drawFrame(svg, box, { lo: d.lo, hi: d.hi, label: d.xlabel },
                        { lo: 0, hi: peak * 1.08, label: d.ylabel }, look);
    const xs = [], ps = [], qs = [];
    for (let i = 0; i < POINTS; i++) {
      const x = d.lo + ((d.hi - d.lo) * i) / (POINTS - 1);
      xs.push(x); ps.push(gaussPdf(x, 0, sigma)); qs.push(gaussPdf(x, delta, sigma));
    }
    const px = xs.map(f.sx);
    const clip = svgEl("clipPath", { id: `${id}-clip` });
    clip.appendChild(svgEl("rect", { x: box.left, y: box.top, width: f.pw, height: f.ph }));
    defs.appendChild(clip);
    const plot = svgEl("g", { "clip-path": `url(#${id}-clip)` });
    const inside = d.t !== null && d.t !== undefined && isFinite(d.t);
    if (inside && d.t > d.lo) {
      // The event y < t, shaded under both densities up to t exactly.
      const ex = xs.filter((x) => x < d.t).concat([Math.min(d.t, d.hi)]);
      const area = (mu) => {
        const ys = ex.map((x) => f.sy(gaussPdf(x, mu, sigma)));
        const pxs = ex.map(f.sx);
        return pathOf(pxs, ys) + `L${pxs[pxs.length - 1].toFixed(1)} ${f.sy(0).toFixed(1)}` +
          `L${pxs[0].toFixed(1)} ${f.sy(0).toFixed(1)}Z`;
      };
      plot.appendChild(svgEl("path", { d: area(0), fill: look.d0, "fill-opacity": 0.25,
        class: "dp-dens-event-p0" }));
      plot.appendChild(svgEl("path", { d: area(delta), fill: `url(#${id}-hatch)`,
        class: "dp-dens-event-p1" }));
    }
    plot.appendChild(svgEl("path", { d: pathOf(px, ps.map(f.sy)), fill: "none",
      stroke: look.d0, "stroke-width": 4, class: "dp-dens-d0" }));
    plot.appendChild(svgEl("path", { d: pathOf(px, qs.map(f.sy)), fill: "none",
      stroke: look.d1, "stroke-width": 4, "stroke-dasharray": "6 4", class: "dp-dens-d1" }));
    svg.appendChild(plot);
    holder.replaceChildren(svg);  // attached: the labels take the page's font
    if (inside && d.t >= d.lo && d.t <= d.hi) {
      const tx = f.sx(d.t);
      svg.appendChild(svgEl("line", { x1: tx, x2: tx, y1: box.top, y2: box.top + f.ph,
        stroke: look.marker, "stroke-width": 3, "stroke-dasharray": "2 4 6 4",
        class: "dp-dens-threshold" }));
      const right = tx > box.left + f.pw * 0.7;
      labelWithBox(svg, tx + (right ? -6 : 6), box.top + font * 1.3, d.tlabel, look,
                   { anchor: right ? "end" : "start" });
    }
    labelWithBox(svg, box.left + 8, box.top + f.ph - 8, d.note, look,
                 { colour: look.note, cls: "dp-svg-note" });
    return svg;
  }

  return mountPlot(model, holder, draw);
}
