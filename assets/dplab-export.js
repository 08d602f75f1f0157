// dplab: save a Bokeh figure as PNG in the browser (app/export.py PngExport).
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
  const btn = document.createElement("button");
  btn.type = "button";
  btn.className = "dp-export-btn";
  btn.textContent = model.label;
  model.on("label", () => { btn.textContent = model.label; });
  let asked = 0;
  btn.addEventListener("click", () => {
    asked += 1;
    btn.disabled = true;
    model.send_msg({ ticket: asked });
  });
  model.on("ticket", async () => {
    if (model.ticket !== asked) return;
    try {
      const view = findView(model.figure_id);
      if (!view) throw new Error("figure not found");
      const blob = await view.export("png").to_blob();
      const png = new Uint8Array(await blob.arrayBuffer());
      save(new Blob([withText(png, "Description", model.description)], { type: "image/png" }),
           model.filename);
    } catch (err) {
      console.warn("dplab: PNG export failed", err);
    } finally {
      btn.disabled = false;
    }
  });
  return btn;
}
