// dplab: the save buttons (app/export.py ExportBar). Text files (JSON, Markdown, CSV) come from the
// server at the click; a figure is saved as PNG in the browser:
// Bokeh draws the figure into one canvas (PlotView.export), the PNG gets an iTXt chunk with the
// certification JSON (keyword "Description"), and the browser saves it. No server rendering,
// no network request.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// An iTXt chunk (UTF-8 text, uncompressed) inserted right after IHDR.
function withText(png, keyword, text) {
  const enc = new TextEncoder();
  const kw = enc.encode(keyword);
  const body = enc.encode(text);
  // keyword \0 compression-flag(0) method(0) language-tag \0 translated-keyword \0 text
  const data = new Uint8Array(kw.length + 5 + body.length);
  data.set(kw, 0);
  data.set([0, 0, 0, 0, 0], kw.length);
  data.set(body, kw.length + 5);
  const type = enc.encode("iTXt");
  const chunk = new Uint8Array(12 + data.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, data.length);
  chunk.set(type, 4);
  chunk.set(data, 8);
  const crcInput = new Uint8Array(4 + data.length);
  crcInput.set(type, 0);
  crcInput.set(data, 4);
  view.setUint32(8 + data.length, crc32(crcInput));
  const ihdrEnd = 8 + 12 + new DataView(png.buffer, png.byteOffset).getUint32(8);
  const out = new Uint8Array(png.length + chunk.length);
  out.set(png.subarray(0, ihdrEnd), 0);
  out.set(chunk, ihdrEnd);
  out.set(png.subarray(ihdrEnd), ihdrEnd + chunk.length);
  return out;
}

function findView(id) {
  const index = window.Bokeh && window.Bokeh.index;
  if (!index) return null;
  if (typeof index.find_one_by_id === "function") return index.find_one_by_id(id);
  return null;
}

// A figure that joins the page only when scrolled to (app/shell/widgets.py RevealSlot) is
// put in place by the same click: wait until BokehJS has built and drawn it.
async function viewWhenReady(id, timeoutMs = 5000) {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const view = findView(id);
    if (view && (typeof view.has_finished !== "function" || view.has_finished())) return view;
    if (performance.now() > until) return null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// The figure's canvas with its legend (drawn in HTML on the page) drawn underneath.
function withLegend(layer, items, colours, fontPx) {
  const src = layer.canvas;
  if (!src || !items || items.length === 0) return null;
  const ratio = layer.pixel_ratio || 1;
  const font = `${Math.round(fontPx * ratio)}px system-ui, "Noto Sans KR", sans-serif`;
  const probe = document.createElement("canvas").getContext("2d");
  probe.font = font;
  const sw = 40 * ratio, gap = 8 * ratio, colGap = 24 * ratio, pad = 10 * ratio;
  const rowH = Math.round(fontPx * 1.6 * ratio);
  const widths = items.map((it) => sw + gap + probe.measureText(it.label).width);
  const rows = [];
  let row = [], x = pad;
  items.forEach((it, i) => {
    if (row.length && x + widths[i] > src.width - pad) { rows.push(row); row = []; x = pad; }
    row.push([it, x]);
    x += widths[i] + colGap;
  });
  if (row.length) rows.push(row);
  const out = document.createElement("canvas");
  out.width = src.width;
  out.height = src.height + rows.length * rowH + pad;
  const ctx = out.getContext("2d");
  ctx.fillStyle = colours.background;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.drawImage(src, 0, 0);
  ctx.font = font;
  ctx.textBaseline = "middle";
  rows.forEach((r, k) => {
    const y = src.height + pad / 2 + k * rowH + rowH / 2;
    for (const [it, x0] of r) {
      ctx.save();
      ctx.strokeStyle = ctx.fillStyle = it.colour;
      ctx.globalAlpha = it.kind === "area" ? Math.max(it.alpha, 0.35) : it.alpha;
      if (it.kind === "line") {
        ctx.lineWidth = it.width * ratio;
        ctx.setLineDash(it.dash.map((d) => d * ratio));
        ctx.beginPath(); ctx.moveTo(x0 + 2 * ratio, y); ctx.lineTo(x0 + sw - 2 * ratio, y);
        ctx.stroke();
      } else if (it.kind === "marker") {
        const c = x0 + sw / 2, h = 7 * ratio;
        ctx.beginPath(); ctx.moveTo(c, y - h); ctx.lineTo(c + h, y); ctx.lineTo(c, y + h);
        ctx.lineTo(c - h, y); ctx.closePath(); ctx.fill();
      } else {
        const top = y - 6 * ratio, w = sw - 4 * ratio, h = 12 * ratio;
        if (it.kind === "area") ctx.fillRect(x0 + 2 * ratio, top, w, h);
        ctx.globalAlpha = 1;
        ctx.lineWidth = ratio;
        ctx.strokeRect(x0 + 2 * ratio, top, w, h);
        if (it.kind === "hatch") {
          ctx.beginPath();
          for (let hx = 0; hx < w; hx += 8 * ratio) {
            ctx.moveTo(x0 + 2 * ratio + hx, top + h);
            ctx.lineTo(x0 + 2 * ratio + Math.min(w, hx + h), top + Math.max(0, h - (w - hx)));
          }
          ctx.stroke();
        }
      }
      ctx.restore();
      ctx.fillStyle = colours.text;
      ctx.fillText(it.label, x0 + sw + gap, y);
    }
  });
  return out;
}

function canvasBlob(canvas) {
  return new Promise((resolve, reject) => {
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("toBlob failed"))), "image/png");
  });
}

function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function render({ model }) {
  const wrap = document.createElement("section");
  wrap.className = "dp-export-bar";
  const h = document.createElement("h2");
  const p = document.createElement("p");
  const row = document.createElement("div");
  row.className = "dp-export-row";
  wrap.append(h, p, row);
  const pending = new Map();
  let asked = 0;
  function build() {
    h.textContent = model.heading;
    p.textContent = model.hint;
    row.replaceChildren();
    for (const item of model.items) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "dp-export-btn " + item.cls;
      b.textContent = item.label;
      b.addEventListener("click", () => {
        asked += 1;
        pending.set(asked, b);
        b.disabled = true;
        model.send_msg({ kind: item.kind, ticket: asked });
      });
      row.appendChild(b);
    }
  }
  build();
  model.on(["heading", "hint", "items"], build);
  model.on("reply", async () => {
    const r = model.reply;
    const btn = pending.get(r.ticket);
    if (!btn) return;
    pending.delete(r.ticket);
    try {
      if (r.figure_id) {
        // "svg:<key>": a figure the browser drew as SVG (assets/dplab-svgplot.js svgLayer)
        const drawn = r.figure_id.startsWith("svg:") && window.dplabFigures
          ? window.dplabFigures[r.figure_id.slice(4)] : null;
        const view = drawn ? null : await viewWhenReady(r.figure_id);
        if (!drawn && !view) throw new Error("figure not found");
        const layer = drawn ? await drawn() : view.export("png");
        const composed = withLegend(layer, r.legend, model.colours, model.font_px);
        const blob = composed ? await canvasBlob(composed) : await layer.to_blob();
        const png = new Uint8Array(await blob.arrayBuffer());
        save(new Blob([withText(png, "Description", r.text)], { type: "image/png" }), r.filename);
      } else {
        save(new Blob([r.text], { type: r.mime }), r.filename);
      }
    } catch (err) {
      console.warn("dplab: export failed", err);
    } finally {
      btn.disabled = false;
    }
  });
  return wrap;
}
