// The lab's simulation, drawn by the browser from one message (app/lab/views.py SimPlot):
// the histograms of N releases of the worst pair (made on the server with numpy's seeded
// generator: synthetic noise, nothing private), density-normalised, on the bins `edges`;
// the two exact densities over them (derived here from σ and Δ) and the threshold t.
// Helpers: assets/dplab-svgplot.js.

let simCount = 0;

export function render({ model, el }) {
  const id = `dp-sim-${++simCount}`;
  const holder = document.createElement("div");
  holder.className = "dp-svg-plot";

  function draw() {
    const d = plotData(model);
    const look = model.look || {};
    const { svg, w, h, font } = blankSvg(holder, el, look, d.title || "", 360);
    const defs = svgEl("defs");
    defs.appendChild(hatchPattern(`${id}-hatch`, look.d1, -45));
    svg.appendChild(defs);
    const top = drawTitle(svg, look, font, d.title);
    const h0 = d.h0 || [], h1 = d.h1 || [], bins = h0.length;
    const sigma = Number(d.sigma), delta = Number(d.d);
    if (!bins || !(d.hi > d.lo) || !(sigma > 0)) { holder.replaceChildren(svg); return svg; }
    const peak = 1 / (sigma * Math.sqrt(2 * Math.PI));
    const ymax = Math.max(peak, ...h0.filter(isFinite), ...h1.filter(isFinite)) * 1.08;
    const box = { w, h, top: top + font * 0.8, left: font * 4.2, bottom: font * 3.4, right: 12 };
    const f = drawFrame(svg, box, { lo: d.lo, hi: d.hi, label: d.xlabel },
                        { lo: 0, hi: ymax, label: d.ylabel }, look);
    const clip = svgEl("clipPath", { id: `${id}-clip` });
    clip.appendChild(svgEl("rect", { x: box.left, y: box.top, width: f.pw, height: f.ph }));
    defs.appendChild(clip);
    const plot = svgEl("g", { "clip-path": `url(#${id}-clip)` });
    const edges = d.edges || [];
    const bars = (hs, attrs, cls) => {
      let path = "";
      hs.forEach((v, i) => {
        if (!(v > 0) || i + 1 >= edges.length) return;
        const x0 = f.sx(edges[i]), x1 = f.sx(edges[i + 1]), y = f.sy(v);
        path += `M${x0.toFixed(1)} ${f.sy(0).toFixed(1)}V${y.toFixed(1)}H${x1.toFixed(1)}` +
          `V${f.sy(0).toFixed(1)}Z`;
      });
      plot.appendChild(svgEl("path", { d: path, class: cls, ...attrs }));
    };
    bars(h0, { fill: look.d0, "fill-opacity": 0.35, stroke: look.d0, "stroke-width": 1 },
         "dp-sim-h0");
    bars(h1, { fill: `url(#${id}-hatch)`, stroke: look.d1, "stroke-width": 1 }, "dp-sim-h1");
    const xs = [], ps = [], qs = [];
    for (let i = 0; i <= 200; i++) {
      const x = d.lo + ((d.hi - d.lo) * i) / 200;
      xs.push(f.sx(x)); ps.push(f.sy(gaussPdf(x, 0, sigma))); qs.push(f.sy(gaussPdf(x, delta, sigma)));
    }
    plot.appendChild(svgEl("path", { d: pathOf(xs, ps), fill: "none", stroke: look.d0,
      "stroke-width": 3, class: "dp-sim-d0" }));
    plot.appendChild(svgEl("path", { d: pathOf(xs, qs), fill: "none", stroke: look.d1,
      "stroke-width": 3, "stroke-dasharray": "6 4", class: "dp-sim-d1" }));
    if (d.t !== null && d.t !== undefined && d.t >= d.lo && d.t <= d.hi) {
      const tx = f.sx(d.t);
      plot.appendChild(svgEl("line", { x1: tx, x2: tx, y1: box.top, y2: box.top + f.ph,
        stroke: look.marker, "stroke-width": 3, "stroke-dasharray": "2 4 6 4",
        class: "dp-sim-threshold" }));
    }
    svg.appendChild(plot);
    holder.replaceChildren(svg);
    return svg;
  }

  return mountPlot(model, holder, draw);
}
