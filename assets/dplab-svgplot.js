// Small SVG plotting helpers shared by the light views (app/shell/svgplot.py puts this file in
// front of each view's module: Panel's modules cannot import each other offline). Nothing here
// touches the page; every function returns strings or numbers.

const SVG_NS = "http://www.w3.org/2000/svg";

function svgEl(name, attrs, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

// The density of N(mu, s²) at x (for pictures; the exact probabilities come from dpcore).
function gaussPdf(x, mu, s) {
  const z = (x - mu) / s;
  return Math.exp(-0.5 * z * z) / (s * Math.sqrt(2 * Math.PI));
}

// ln δ(ε) of the Laplace mechanism with the MSE of N(0, σ²) (scale b = σ/√2, ε0 = Δ/b):
// ln(1 − e^((ε − ε0)/2)) below ε0, −∞ from there (dpcore.gaussian.laplace_log_delta).
function laplaceLnDelta(e, delta, sigma) {
  const e0 = (delta * Math.SQRT2) / sigma;
  return e < e0 ? Math.log(-Math.expm1(Math.min(e - e0, 0) / 2)) : -Infinity;
}

// ln δ the classic bound certifies for σ: ln 1.25 − (εσ/Δ)²/2, at most 0
// (dpcore.gaussian.classic_log_delta; inside its proof only for ε < 1).
function classicLnDelta(e, delta, sigma) {
  return Math.min(Math.log(1.25) - 0.5 * ((e * sigma) / delta) ** 2, 0);
}

// Φ(x), the standard normal CDF, for pictures: erfc by the Chebyshev fit of Numerical Recipes
// (2nd ed., §6.2, erfcc: relative error below 1.2e-7 everywhere); the rates a text states come
// from dpcore.
function normCdf(x) {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 +
    t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 +
    t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? 1 - r / 2 : r / 2;
}

// Φ⁻¹(p), for pictures: P. J. Acklam's rational approximation (relative error below 1.2e-9);
// ±∞ at 0 and 1.
function normPpf(p) {
  if (!(p > 0)) return -Infinity;
  if (!(p < 1)) return Infinity;
  const c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00];
  const d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
             3.754408661907416e+00];
  const tail = (q) => (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log1p(-p)));
  const a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00];
  const b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
             6.680131188771972e+01, -1.328068155288572e+01];
  const q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// The attacker's FPR grid (app/lab/compute.py _alpha_grid): 0, 12 steps from 1e-4 to 0.02 on a
// log scale where a strict attacker lives, and 121 even steps of [0, 1].
function tradeoffGrid() {
  const xs = [0];
  for (let i = 0; i < 12; i++) xs.push(1e-4 * Math.pow(200, i / 11));
  for (let i = 0; i <= 120; i++) xs.push(i / 120);
  xs.sort((x, y) => x - y);
  return xs.filter((x, i) => i === 0 || x !== xs[i - 1]);
}

// The best test's TPR at FPR a against a Gaussian release with μ = Δ/σ (μ null: infinite),
// Φ(Φ⁻¹(a) + μ) (dpcore.tradeoff.tpr_curve; Dong, Roth & Su 2022, G_μ).
function tradeoffTpr(a, mu) {
  if (a <= 0) return 0;
  if (a >= 1) return 1;
  if (mu === null || mu === undefined) return 1;
  return normCdf(normPpf(a) + mu);
}

// The largest TPR an (ε, δ)-DP release allows at FPR a: min(1, δ + e^ε·a, 1 − e^−ε·(1 − δ − a))
// (app/lab/compute.py cap_tpr).
function capTpr(a, eps, delta) {
  return Math.min(1, delta + Math.exp(Math.min(eps, 700)) * a,
                  1 - Math.exp(-eps) * (1 - delta - a));
}

// A hatch pattern (diagonal lines of `colour`) for the areas of the neighbour D′.
function hatchPattern(id, colour, angle) {
  const pat = svgEl("pattern", { id, width: 8, height: 8, patternUnits: "userSpaceOnUse",
    patternTransform: `rotate(${angle})` });
  pat.appendChild(svgEl("line", { x1: 0, y1: 0, x2: 0, y2: 8, stroke: colour,
    "stroke-width": 2, "stroke-opacity": 0.8 }));
  return pat;
}

// About `count` round steps (1, 2, 2.5, 5 × 10^k) covering [lo, hi].
function niceTicks(lo, hi, count) {
  if (!(hi > lo) || !isFinite(lo) || !isFinite(hi)) return { ticks: [lo], step: 1 };
  const raw = (hi - lo) / Math.max(1, count);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || 10 * mag;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  }
  return { ticks, step };
}

// A tick label: as many decimals as the step needs; powers of ten beyond 1e5 or below 1e-3.
function tickLabel(v, step) {
  if (v === 0) return "0";
  const a = Math.abs(v);
  let s;
  if (a >= 1e5 || step < 1e-3) {
    // enough significant digits to tell ticks `step` apart (2.5e−8 stays 2.5e−8)
    const es = Math.floor(Math.log10(step));
    let m = 0;
    while (m < 3 && Math.abs(Math.round(step / 10 ** (es - m)) - step / 10 ** (es - m)) > 1e-6) m++;
    const digits = Math.floor(Math.log10(a)) - es + m;
    s = v.toExponential(Math.max(0, Math.min(6, digits))).replace("e+", "e");
  } else {
    // as many decimals as the step has (2.5 → 1, 0.25 → 2, 5 → 0)
    let dec = 0;
    while (dec < 6 && Math.abs(Math.round(step * 10 ** dec) - step * 10 ** dec) > 1e-6) dec++;
    s = v.toFixed(dec);
  }
  return s.replace("-", "\u2212");
}

const SUPERSCRIPT = { "-": "\u207b", 0: "\u2070", 1: "\u00b9", 2: "\u00b2", 3: "\u00b3",
  4: "\u2074", 5: "\u2075", 6: "\u2076", 7: "\u2077", 8: "\u2078", 9: "\u2079" };

// 10^k as "10⁻³" (a tick of a log axis, whose values are log10 of the data).
function powerLabel(k) {
  return "10" + String(k).split("").map((c) => SUPERSCRIPT[c] || c).join("");
}

// Ticks of a log10 axis: whole powers of ten in [lo, hi], every second or more when many.
function powerTicks(lo, hi, count) {
  const a = Math.ceil(lo - 1e-9), b = Math.floor(hi + 1e-9);
  const step = Math.max(1, Math.ceil((b - a + 1) / Math.max(1, count)));
  const ticks = [];
  for (let k = b; k >= a; k -= step) ticks.unshift(k);
  return { ticks: ticks.length ? ticks : [lo], step };
}

// An SVG path through the points (x, y) in pixels; a NaN ends a piece.
function pathOf(xs, ys) {
  let d = "", pen = false;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i], y = ys[i];
    if (x === null || y === null || !isFinite(x) || !isFinite(y)) { pen = false; continue; }
    d += (pen ? "L" : "M") + x.toFixed(1) + " " + y.toFixed(1);
    pen = true;
  }
  return d;
}

// The plot's frame: scales from data to pixels, grid, ticks and axis labels, drawn into `svg`.
// `box` = {w, h, top, left, bottom, right} in pixels; `x`, `y` = {lo, hi, label}.
function drawFrame(svg, box, x, y, look) {
  const pw = box.w - box.left - box.right, ph = box.h - box.top - box.bottom;
  const sx = (v) => box.left + ((v - x.lo) / (x.hi - x.lo)) * pw;
  const sy = (v) => box.top + ph - ((v - y.lo) / (y.hi - y.lo)) * ph;
  const font = look.font;
  const g = svgEl("g", { class: "dp-svg-frame", "font-size": font, fill: look.text });
  let xt = niceTicks(x.lo, x.hi, Math.max(3, Math.floor(pw / (font * 6))));
  if (look.xint && !Number.isInteger(xt.step)) {  // whole numbers only (a degree K)
    const step = xt.step < 1 ? 1 : Math.ceil(xt.step / 5) * 5;
    const ticks = [];
    for (let v = Math.ceil(x.lo / step) * step; v <= x.hi; v += step) ticks.push(v);
    xt = { ticks, step };
  }
  // (look.logy: the y values are log10 of the data, ticked at whole powers of ten)
  const yt = look.logy ? powerTicks(y.lo, y.hi, Math.max(3, Math.floor(ph / (font * 2))))
    : niceTicks(y.lo, y.hi, Math.max(3, Math.floor(ph / (font * 3))));
  for (const v of xt.ticks) {
    const px = sx(v);
    g.appendChild(svgEl("line", { x1: px, x2: px, y1: box.top, y2: box.top + ph,
      stroke: look.grid, "stroke-width": 1 }));
    // a label that would cross the figure's right edge ends there (the projector's "10.0")
    const label = tickLabel(v, xt.step);
    const atEdge = px + label.length * font * 0.32 > box.w - 2;
    g.appendChild(svgEl("text", { x: atEdge ? box.w - 2 : px, y: box.top + ph + font * 1.3,
      "text-anchor": atEdge ? "end" : "middle" }, label));
  }
  for (const v of yt.ticks) {
    const py = sy(v);
    g.appendChild(svgEl("line", { x1: box.left, x2: box.left + pw, y1: py, y2: py,
      stroke: look.grid, "stroke-width": 1 }));
    g.appendChild(svgEl("text", { x: box.left - 6, y: py + font * 0.35, "text-anchor": "end" },
      look.logy ? powerLabel(v) : tickLabel(v, yt.step)));
  }
  g.appendChild(svgEl("rect", { x: box.left, y: box.top, width: pw, height: ph, fill: "none",
    stroke: look.text, "stroke-width": 1 }));
  if (x.label) {
    g.appendChild(svgEl("text", { x: box.left + pw / 2, y: box.h - font * 0.4,
      "text-anchor": "middle" }, x.label));
  }
  if (y.label) {
    const cy = box.top + ph / 2;
    g.appendChild(svgEl("text", { x: font, y: cy, "text-anchor": "middle",
      transform: `rotate(-90 ${font} ${cy})` }, y.label));
  }
  svg.appendChild(g);
  return { sx, sy, pw, ph };
}

// The figure's title, bold, at its top left; returns the baseline under which the plot starts.
function drawTitle(svg, look, font, text) {
  const size = look.title_font || font;
  const top = 6 + size * 1.25;
  const title = svgEl("text", { x: 8, y: top, fill: look.text, "font-weight": "bold",
    "font-size": size, class: "dp-svg-title" });
  // Wider than the figure (a phone): broken at spaces into lines, each a <tspan>; a line keeps
  // its trailing space, so the title's text stays the whole sentence for a screen reader.
  const lines = titleLines(svg, text || "", size, Number(svg.getAttribute("width")) - 16);
  lines.forEach((line, i) => title.appendChild(svgEl("tspan", { x: 8, dy: i ? size * 1.2 : 0 },
                                                     line)));
  svg.appendChild(title);
  return top + (lines.length - 1) * size * 1.2;
}

// `text` in lines no wider than `room` px in the bold title font (greedy at spaces; a word
// wider than the room stays whole on its line).
function titleLines(svg, text, size, room) {
  const words = text.split(" ");
  if (!(room > 0) || words.length < 2) return [text];
  const wide = (t) => textBox(svg, t, 0, 0, size, "start").width * 1.08;  // (bold: ~8 % wider)
  const lines = [];
  let line = words[0];
  for (const word of words.slice(1)) {
    if (wide(`${line} ${word}`) <= room) line = `${line} ${word}`;
    else { lines.push(`${line} `); line = word; }
  }
  lines.push(line);
  return lines;
}

// A group clipped to the plot area of `frame` (drawFrame's): what is drawn in it never crosses
// the axes. `id` must be unique in the page.
function clippedGroup(svg, id, box, frame) {
  const defs = svgEl("defs");
  const clip = svgEl("clipPath", { id: `${id}-clip` });
  clip.appendChild(svgEl("rect", { x: box.left, y: box.top, width: frame.pw, height: frame.ph }));
  defs.appendChild(clip);
  svg.appendChild(defs);
  return svgEl("g", { "clip-path": `url(#${id}-clip)` });
}

// A label's box without asking the page's layout: getBBox() on a text just appended made the
// browser lay out the whole page (~10 ms on /lab) once per label, and a following page redraws
// four figures per teacher move (benchmarks/real_followers.py --trace: 8 layouts a move). A
// canvas measures the same font's advance and ascent/descent without touching the page.
const FONT_FAMILY = 'system-ui, "Noto Sans KR", sans-serif';
let measureCtx = null;
let pageFamily = "";  // the family the page's style gives the figures' text (read once)

function textBox(svg, text, x, y, size, anchor) {
  if (!measureCtx) measureCtx = document.createElement("canvas").getContext("2d");
  if (!pageFamily && svg.isConnected) pageFamily = getComputedStyle(svg).fontFamily;
  measureCtx.font = `${size}px ${pageFamily || FONT_FAMILY}`;
  const m = measureCtx.measureText(text);
  const up = m.fontBoundingBoxAscent || size * 0.9;
  const down = m.fontBoundingBoxDescent || size * 0.25;
  const left = anchor === "end" ? x - m.width : anchor === "middle" ? x - m.width / 2 : x;
  return { x: left, y: y - up, width: m.width, height: up + down };
}

// A text with a background box, for labels inside the plot area.
function labelWithBox(svg, x, y, text, look, opts) {
  if (!text) return;
  const o = opts || {};
  const anchor = o.anchor || "start";
  const g = svgEl("g", { class: o.cls || "dp-svg-label" });
  const b = textBox(svg, text, x, y, look.font, anchor);
  g.appendChild(svgEl("rect", { x: b.x - 3, y: b.y - 1, width: b.width + 6,
    height: b.height + 2, fill: look.label_bg, "fill-opacity": 0.88 }));
  g.appendChild(svgEl("text", { x, y, fill: o.colour || look.text, "font-size": look.font,
    "text-anchor": anchor }, text));
  svg.appendChild(g);
}

// The figure as a PNG layer for the save bar (assets/dplab-export.js): {canvas, pixel_ratio,
// to_blob}, drawn from the SVG's markup with the page's background.
function svgLayer(svg, background) {
  const ratio = window.devicePixelRatio || 1;
  const w = Number(svg.getAttribute("width")), h = Number(svg.getAttribute("height"));
  const xml = new XMLSerializer().serializeToString(svg);
  const img = new Image();
  const url = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(xml);
  return new Promise((resolve, reject) => {
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(w * ratio);
      canvas.height = Math.round(h * ratio);
      const ctx = canvas.getContext("2d");
      ctx.fillStyle = background;
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
      resolve({
        canvas, pixel_ratio: ratio,
        to_blob: () => new Promise((ok, bad) =>
          canvas.toBlob((b) => (b ? ok(b) : bad(new Error("toBlob failed"))), "image/png")),
      });
    };
    img.onerror = () => reject(new Error("the figure could not be drawn"));
    img.src = url;
  });
}

// A figure's empty <svg>: the holder's width (at least 240 px), the look's height, the page's
// background; `label` is its accessible name.
function blankSvg(holder, el, look, label, height) {
  // (the width the holder's ResizeObserver last saw, mountPlot: reading clientWidth after the
  // page changed would lay it out at once; the observer redraws when the width changes)
  const w = Math.max(240, Math.floor(widths.get(holder) || holder.clientWidth || el.clientWidth
                                     || 600));
  const h = look.height || height;
  const svg = svgEl("svg", { width: w, height: h, viewBox: `0 0 ${w} ${h}`, role: "img",
    "aria-label": label || "", class: "dp-svg", "font-family": FONT_FAMILY });
  svg.appendChild(svgEl("rect", { x: 0, y: 0, width: w, height: h, fill: look.bg }));
  return { svg, w, h, font: look.font || 16 };
}

// `a`'s child nodes become `b`'s, changing in place only what differs: a text's value, an
// element's attributes, its children (the same way down); a node of another kind, or a list
// of another length, is replaced by `b`'s. Nodes are moved out of `b`. A redrawn figure is
// patched this way (mountPlot): the browser then shapes and lays out only what changed, not
// every label of every figure (the tick labels are mostly the same from one state to the
// next). Also the room channel's panes (assets/dplab-room-card.js, as window.dplabMorph).
function morphAttributes(x, y) {
  for (let i = x.attributes.length - 1; i >= 0; i--) {
    const at = x.attributes[i];
    if (!y.hasAttribute(at.name)) x.removeAttribute(at.name);
  }
  for (const at of y.attributes) {
    if (x.getAttribute(at.name) !== at.value) x.setAttribute(at.name, at.value);
  }
}

function morphNode(a, x, y) {
  if (x.nodeType !== y.nodeType || x.nodeName !== y.nodeName) {
    a.replaceChild(y, x);
  } else if (x.nodeType === 1) {
    morphAttributes(x, y);
    morphChildren(x, y);
  } else if (x.nodeValue !== y.nodeValue) {
    x.nodeValue = y.nodeValue;
  }
}

// Lists of another length (a note that comes or goes): the nodes of the same kind at the
// start and at the end are patched, only those between are replaced (before, the whole list
// was: a card whose note came or went was styled and laid out anew, ~140 nodes).
function morphChildren(a, b) {
  const now = Array.from(a.childNodes), want = Array.from(b.childNodes);
  const kin = (x, y) => x.nodeType === y.nodeType && x.nodeName === y.nodeName;
  let head = 0, tail = 0;
  if (now.length !== want.length) {
    const n = Math.min(now.length, want.length);
    while (head < n && kin(now[head], want[head])) head++;
    while (tail < n - head && kin(now[now.length - 1 - tail], want[want.length - 1 - tail])) tail++;
    const at = tail ? now[now.length - tail] : null;
    for (let i = head; i < now.length - tail; i++) a.removeChild(now[i]);
    for (let i = head; i < want.length - tail; i++) a.insertBefore(want[i], at);
  } else {
    head = want.length;
  }
  for (let i = 0; i < head; i++) morphNode(a, now[i], want[i]);
  for (let i = 1; i <= tail; i++) morphNode(a, now[now.length - i], want[want.length - i]);
}
if (typeof window !== "undefined") window.dplabMorph = window.dplabMorph || morphChildren;

// A steady box: a pane whose content changes by a line or two with the numbers (a note that
// comes and goes, a verdict or a text equivalent that wraps anew) keeps the height it had, so
// that nothing below it moves. A card one line taller or shorter made the browser lay out and
// paint the page below again and BokehJS measure every layout around it (its ResizeObservers):
// a following page's main thread took 47.7 ms per teacher move across the verdict's border
// against 29.8 ms for a move that changed no height (benchmarks/follower_cost.py;
// benchmarks/README.md, "steady boxes"). The box grows with its content at once; it follows a
// shrink larger than STEADY_SLACK_EM of the content's type (about four lines: another query, a
// section closed), and any height after its width changed. `box` holds one content element
// (.dp-card or .dp-view, found again when it is replaced). Called before each change of the
// box; after the first call that is one querySelector.
const STEADY_SLACK_EM = 6;
const steadyBoxes = new WeakMap();

function steadyFind(box, st) {
  const c = box.querySelector(".dp-card, .dp-view");
  if (c === st.content) return;
  if (st.content) st.ro.unobserve(st.content);
  st.content = c;
  if (!c) return;
  st.ro.observe(c);
  st.slack = STEADY_SLACK_EM * (parseFloat(getComputedStyle(c).fontSize) || 16);
  if (!st.max) {  // the first call comes before a change: hold the height it had
    const r = c.getBoundingClientRect();
    st.w = Math.round(r.width);
    st.max = st.w ? Math.ceil(r.height) : 0;
    if (st.max) box.style.minHeight = st.max + "px";
  }
}

function steady(box) {
  if (!box || typeof ResizeObserver === "undefined") return;
  let st = steadyBoxes.get(box);
  if (!st) {
    st = { w: 0, max: 0, slack: 0, content: null, ro: null };
    st.ro = new ResizeObserver(() => {
      const c = st.content;
      if (!c || !c.isConnected || !box.contains(c)) { steadyFind(box, st); return; }
      const r = c.getBoundingClientRect();  // (laid out already when observers run)
      const w = Math.round(r.width), h = Math.ceil(r.height);
      if (!w) return;  // hidden: nothing to hold
      const max = (w !== st.w || h > st.max || st.max - h > st.slack) ? h : st.max;
      st.w = w;
      if (max !== st.max) { st.max = max; box.style.minHeight = max + "px"; }
    });
    steadyBoxes.set(box, st);
  }
  steadyFind(box, st);
}
if (typeof window !== "undefined") window.dplabSteady = window.dplabSteady || steady;

// holder -> its width as its ResizeObserver last measured it (mountPlot)
const widths = new WeakMap();

// What a figure shows: its message (JSON text, app/shell/svgplot.py) decoded once per text.
const decodedMessages = new WeakMap();

function plotData(model) {
  let text = model.message || "{}";
  // A following page may draw the class's state from its channel (assets/dplab-room-card.js)
  // until its own session takes it: a new message from the server then wins.
  // A student's own move answered by the page's moves channel (assets/dplab-lab-controls.js)
  // carries its commit number `n`: it stays until the session has taken that commit
  // (window.dplabAck), so an older message of the session never covers a newer move.
  const over = (window.dplabChannelOver || {})[model.key];
  if (over) {
    if (over.base === undefined) over.base = model.message;
    if (over.base === model.message || over.n > (window.dplabAck || 0)) text = over.text;
    else delete window.dplabChannelOver[model.key];
  }
  let seen = decodedMessages.get(model);
  if (!seen || seen.text !== text) {
    seen = { text, data: JSON.parse(text) };
    decodedMessages.set(model, seen);
  }
  return seen.data;
}

// A view's life: `draw()` (returning its <svg>) runs now, when `message` or `look` change and
// when the holder's width changes; the save bar's PNG of the view is registered under its key
// (assets/dplab-export.js: figure "svg:<key>"). `content` (default: the holder) sits in one
// box with the view's other parts, each shown only when it has something: the heading
// (`head`, HTML set once per page), the legend (`legend`, the page's HTML list; the message's
// `legend_off` hides entries by index) and the text equivalent (the message's `html_text`).
// One component per view: the message a room's channel carries redraws all of it.
function mountPlot(model, holder, draw, content) {
  const view = document.createElement("div");
  view.className = "dp-view";
  const head = document.createElement("div");
  head.className = "dp-view-head";
  const legend = document.createElement("div");
  legend.className = "dp-view-legend";
  const text = document.createElement("div");
  text.className = "dp-view-text";
  view.append(head, content || holder, legend, text);
  const shown = { head: null, legend: null, off: null, text: null };
  function parts() {
    const d = plotData(model);
    const h = model.head || "";
    if (h !== shown.head) { shown.head = h; head.innerHTML = h; head.hidden = !h; }
    const l = model.legend || "";
    const off = JSON.stringify(d.legend_off || []);
    if (l !== shown.legend) { shown.legend = l; shown.off = null; legend.innerHTML = l; legend.hidden = !l; }
    if (off !== shown.off) {
      shown.off = off;
      const hide = new Set(d.legend_off || []);
      legend.querySelectorAll("li[data-i]").forEach((li) => {
        li.hidden = hide.has(Number(li.getAttribute("data-i")));
      });
    }
    const t = d.html_text || "";
    if (t !== shown.text) { shown.text = t; text.innerHTML = t; text.hidden = !t; }
  }
  // A redraw makes the new figure, then patches the one on screen into it (morphChildren;
  // a draw that does not put its <svg> straight into the holder is shown as made).
  const redraw = () => {
    const old = svg, fresh = draw();
    if (!old || !fresh || old === fresh || fresh.parentNode !== holder
        || old.nodeName !== fresh.nodeName) return fresh;
    holder.replaceChild(old, fresh);
    morphAttributes(old, fresh);
    morphChildren(old, fresh);
    return old;
  };
  let svg = draw();
  parts();
  const again = () => { steady(view.parentNode); svg = redraw(); parts(); };
  model.on(["message", "look"], again);
  model.on(["head", "legend"], parts);
  let width = 0;
  const ro = new ResizeObserver(() => {
    const now = Math.floor(holder.clientWidth);  // (laid out already when observers run)
    if (now) widths.set(holder, now);
    if (now && now !== width) { width = now; svg = redraw(); }
  });
  ro.observe(holder);
  model.on("remove", () => ro.disconnect());
  if (model.key) {
    (window.dplabRedraw = window.dplabRedraw || {})[model.key] = again;
    window.dplabFigures = window.dplabFigures || {};
    window.dplabFigures[model.key] = () => svgLayer(svg, (model.look || {}).bg || "#ffffff");
  }
  return view;
}
