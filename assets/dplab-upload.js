
function b64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}
export function render({ model, el }) {
  const wrap = document.createElement("div");
  wrap.className = "dp-upload";
  const input = document.createElement("input");
  input.type = "file";
  input.id = "dp-cdf-upload-" + Math.random().toString(36).slice(2);
  input.className = "dp-cdf-upload-input";
  input.accept = ".csv,.tsv,.txt,text/csv,text/plain";
  const label = document.createElement("label");
  label.htmlFor = input.id;
  label.className = "dp-upload-button";
  label.textContent = model.button_text;
  const hint = document.createElement("div");
  hint.className = "dp-upload-hint";
  hint.textContent = model.hint_text;
  const status = document.createElement("div");
  status.className = "dp-upload-progress";
  status.setAttribute("aria-live", "polite");
  model.on("button_text", () => { label.textContent = model.button_text; });
  model.on("hint_text", () => { hint.textContent = model.hint_text; });
  input.addEventListener("change", async () => {
    const f = input.files && input.files[0];
    if (!f) return;
    const id = Date.now().toString(36) + Math.random().toString(36).slice(2);
    if (f.size > model.max_bytes) {
      model.send_msg({kind: "too_big", id: id, name: f.name, size: f.size});
      input.value = "";
      return;
    }
    status.textContent = model.busy_text;
    const bytes = new Uint8Array(await f.arrayBuffer());
    const step = 1 << 20;
    const chunks = Math.max(1, Math.ceil(bytes.length / step));
    model.send_msg({kind: "start", id: id, name: f.name, size: bytes.length, chunks: chunks});
    for (let i = 0; i < chunks; i++) {
      const part = bytes.subarray(i * step, (i + 1) * step);
      model.send_msg({kind: "chunk", id: id, i: i, data: b64(part)});
    }
    model.send_msg({kind: "end", id: id});
    status.textContent = "";
    input.value = "";
  });
  wrap.append(label, input, hint, status);
  el.append(wrap);
}
