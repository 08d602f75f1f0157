// A line chart drawn by the browser from one message (app/shell/svgplot.py LinePlot): the
// /cdf figures (the private and reference CDFs, the error against the degree, the stream).
// The server sends the curves' values already computed by dpcore (rounded for the picture; the
// exact numbers are in the page's tables), their colours, dashes and labels in the reader's
// language; this draws the frame (linear, or log10 on y), the lines, markers, a vertical
// marker with its label, and the legend inside the figure (so the PNG carries it).
// Message: {title, xlabel, ylabel, x, xlo, xhi, ylo, yhi, ylog, series: [{y, x?, colour, dash,
// width, label, marker, msize, cls, under}], vline: {x, label} | null, legend: "top_left" |
// "top_right" | "below", note}. Helpers: assets/dplab-svgplot.js.

let linesCount = 0;

function markerPath(shape, cx, cy, size) {
  const r = size / 2;
  if (shape === "diamond") {
    const q = r * 1.3;
    return `M${cx} ${cy - q}L${cx + q} ${cy}L${cx} ${cy + q}L${cx - q} ${cy}Z`;
  }
  // a circle as two arcs
  return `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0Z`;
}

// The legend: a sample of each line (its colour, dash and marker) and its label, in a box.
function drawLegend(svg, entries, x0, y0, look, anchorRight) {
  if (!entries.length) return 0;
  const font = Math.round(look.font * 0.85), row = font * 1.45, sample = font * 2.2;
  let width = 0;
  for (const e of entries) {
    width = Math.max(width, textBox(svg, e.label, 0, 0, font, "start").width);
  }
  width += sample + font * 1.2;
  const height = row * entries.length + font * 0.5;
  const left = anchorRight ? x0 - width : x0;
  const g = svgEl("g", { class: "dp-svg-legend", "font-size": font });
  g.appendChild(svgEl("rect", { x: left, y: y0, width, height, fill: look.bg,
    "fill-opacity": 0.88, stroke: look.grid, "stroke-width": 1 }));
  entries.forEach((e, i) => {
    const cy = y0 + font * 0.25 + row * (i + 0.5);
    const sx = left + font * 0.4;
    if (e.width > 0) {
      g.appendChild(svgEl("line", { x1: sx, x2: sx + sample, y1: cy, y2: cy, stroke: e.colour,
        "stroke-width": e.width, "stroke-dasharray": e.dash || null }));
    }
    if (e.marker) {
      g.appendChild(svgEl("path", { d: markerPath(e.marker, sx + sample / 2, cy,
        Math.min(e.msize || 6, font)), fill: e.colour, stroke: look.bg, "stroke-width": 1 }));
    }
    g.appendChild(svgEl("text", { x: sx + sample + font * 0.4, y: cy + font * 0.35,
      fill: look.text }, e.label));
  });
  svg.appendChild(g);
  return height;
}

export function render({ model, el }) {
  const id = `dp-lines-${++linesCount}`;
  const holder = document.createElement("div");
  holder.className = "dp-svg-plot";

  function draw() {
    const d = plotData(model);
    const look = model.look || {};
    const { svg, w, h, font } = blankSvg(holder, el, look, d.title || "", 380);
    const top = drawTitle(svg, look, font, d.title);
    const series = d.series || [];
    if (!series.length || !(d.xhi > d.xlo) || !(d.yhi > d.ylo)) {
      holder.replaceChildren(svg);
      return svg;
    }
    const entries = series.filter((s) => s.label);
    const legendFont = Math.round(font * 0.85);
    const below = d.legend === "below" ? entries.length * legendFont * 1.45 + legendFont : 0;
    // (a legend below takes its rows under the x axis's label: the frame ends above them)
    const box = { w, h: h - below, top: top + font * 0.8, left: font * 4.2,
      bottom: font * 3.4, right: 14 };
    const ylog = !!d.ylog;
    const ty = (v) => (v === null || v === undefined ? null : ylog ? (v > 0 ? Math.log10(v) : null) : v);
    const ylo = ylog ? Math.log10(d.ylo) : d.ylo, yhi = ylog ? Math.log10(d.yhi) : d.yhi;
    const frame = drawFrame(svg, box, { lo: d.xlo, hi: d.xhi, label: d.xlabel },
                            { lo: ylo, hi: yhi, label: d.ylabel },
                            { ...look, logy: ylog, xint: !!d.xint });
    const plot = clippedGroup(svg, id, box, frame);
    if (d.vline && d.vline.x !== null && d.vline.x !== undefined) {
      const vx = frame.sx(d.vline.x);
      plot.appendChild(svgEl("line", { x1: vx, x2: vx, y1: box.top, y2: box.top + frame.ph,
        stroke: look.marker, "stroke-width": 3, class: "dp-lines-vline" }));
    }
    // (a curve marked `under`, the reference, is drawn first: the estimates stay visible)
    for (const s of [...series.filter((c) => c.under), ...series.filter((c) => !c.under)]) {
      const xs = (s.x || d.x || []).map(frame.sx);
      const ys = (s.y || []).map((v) => { const u = ty(v); return u === null ? null : frame.sy(u); });
      if (s.width > 0) {
        plot.appendChild(svgEl("path", { d: pathOf(xs, ys), fill: "none", stroke: s.colour,
          "stroke-width": s.width, "stroke-dasharray": s.dash || null, "stroke-linejoin": "round",
          class: s.cls || null }));
      }
      if (s.marker) {
        let path = "";
        xs.forEach((px, i) => {
          const py = ys[i];
          if (py !== null && isFinite(px) && isFinite(py)) path += markerPath(s.marker, px, py, s.msize || 6);
        });
        plot.appendChild(svgEl("path", { d: path, fill: s.colour, stroke: s.edge || look.bg,
          "stroke-width": s.edge_width || 1, class: s.cls ? `${s.cls}-marks` : null }));
      }
    }
    svg.appendChild(plot);
    holder.replaceChildren(svg);
    if (d.vline && d.vline.label) {
      const vx = frame.sx(d.vline.x);
      const right = vx > box.left + frame.pw * 0.7;
      labelWithBox(svg, right ? vx - 6 : vx + 6, box.top + frame.ph - 10, d.vline.label, look,
                   { anchor: right ? "end" : "start", cls: "dp-lines-vlabel" });
    }
    if (d.legend === "below") {
      drawLegend(svg, entries, box.left, h - below, look, false);
    } else if (d.legend === "top_right") {
      drawLegend(svg, entries, box.left + frame.pw - 6, box.top + 6, look, true);
    } else {
      drawLegend(svg, entries, box.left + 6, box.top + 6, look, false);
    }
    labelWithBox(svg, box.left + 8, box.top + frame.ph - 8, d.note, look,
                 { colour: look.note, cls: "dp-svg-note" });
    return svg;
  }

  return mountPlot(model, holder, draw);
}
