"""A CSV upload control for the /cdf page that keeps the file in the session's memory only.

Why not ``pn.widgets.FileInput``: it sends the whole file as one websocket message, and Bokeh
closes the connection when a message exceeds its 20 MiB limit (base64 makes a 15 MB file too
big), which would end the student's session.  Here the browser checks the size against
MAX_UPLOAD_BYTES *before* sending and then sends 1 MiB base64 chunks; the server checks again and
hands the bytes to a callback.  Nothing is written to disk; the bytes live in this component
(one per session) until the callback has parsed them, then they are dropped.
No imports in the module below: it loads nothing from anywhere (offline).
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Callable
from typing import Any, ClassVar

import param
from panel.custom import JSComponent

from app.cdf_upload import MAX_UPLOAD_BYTES

log = logging.getLogger(__name__)
CHUNK = 1 << 20


class UploadBox(JSComponent):
    """A labelled file picker (keyboard operable) that streams one file to the server."""

    button_text = param.String(default="CSV", doc="Text of the visible button.")
    hint_text = param.String(default="", doc="One line under the button.")
    busy_text = param.String(default="…", doc="Shown while the file is being sent.")
    max_bytes = param.Integer(default=MAX_UPLOAD_BYTES, bounds=(1, None),
                              doc="Largest file accepted, in bytes (checked in the browser too).")

    _esm = """
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
"""

    _stylesheets: ClassVar[list[str]] = ["""
.dp-upload { display: flex; flex-direction: column; gap: .3em; margin: 4px 10px;
  box-sizing: border-box; max-width: calc(100% - 20px); overflow: hidden; }
.dp-upload-button { display: inline-block; padding: .45em .9em; border: 2px solid #0b4f6c;
  border-radius: 6px; cursor: pointer; font-weight: 600; color: #0b4f6c; background: #fff;
  width: fit-content; }
.dp-upload:focus-within .dp-upload-button { outline: 3px solid #ffd166; outline-offset: 2px; }
.dp-cdf-upload-input { position: absolute; width: 1px; height: 1px; opacity: 0;
  overflow: hidden; }
.dp-upload-hint { font-size: .9em; opacity: .8; }
.dp-upload-progress { font-size: .9em; }
"""]

    def __init__(self, on_file: Callable[[str, bytes], None],
                 on_error: Callable[[str, dict[str, Any]], None], **params: Any) -> None:
        super().__init__(**params)
        self._on_file = on_file
        self._on_error = on_error
        self._pending: dict[str, Any] | None = None

    def _handle_msg(self, data: Any) -> None:
        try:
            self._handle(data)
        except Exception:  # a malformed message must never end the session
            log.warning("cdf upload: message rejected", exc_info=True)
            self._pending = None
            self._on_error("cdf.up.err.transfer", {})

    def _handle(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        kind = data.get("kind")
        if kind == "too_big":
            self._pending = None
            size = int(data.get("size", 0))
            self._on_error("cdf.up.err.size", {"size": f"{size / 2**20:.1f}",
                                               "limit": f"{self.max_bytes / 2**20:.1f}"})
            return
        if kind == "start":
            size = int(data.get("size", 0))
            chunks = int(data.get("chunks", 0))
            if size > self.max_bytes or chunks > self.max_bytes // CHUNK + 2 or chunks < 1:
                self._pending = None
                self._on_error("cdf.up.err.size", {"size": f"{size / 2**20:.1f}",
                                                   "limit": f"{self.max_bytes / 2**20:.1f}"})
                return
            self._pending = {"id": data.get("id"), "name": str(data.get("name", ""))[:200],
                             "size": size, "chunks": chunks, "parts": {}}
            return
        p = self._pending
        if p is None or data.get("id") != p["id"]:
            return
        if kind == "chunk":
            i = int(data.get("i", -1))
            if not 0 <= i < p["chunks"]:
                raise ValueError("chunk index out of range")
            try:
                p["parts"][i] = base64.b64decode(str(data.get("data", "")), validate=True)
            except binascii.Error:
                raise ValueError("bad base64") from None
            if sum(len(b) for b in p["parts"].values()) > self.max_bytes:
                raise ValueError("more bytes than announced")
            return
        if kind == "end":
            self._pending = None
            if len(p["parts"]) != p["chunks"]:
                raise ValueError("missing chunks")
            payload = b"".join(p["parts"][i] for i in range(p["chunks"]))
            if len(payload) != p["size"]:
                raise ValueError("size mismatch")
            self._on_file(p["name"], payload)
