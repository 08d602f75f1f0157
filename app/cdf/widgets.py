"""Two pieces of /cdf's sidebar (app/cdf/sidebar.py): the CSV upload's transfer and the note
on a value not yet released.

:class:`UploadBox`, a CSV upload that keeps the file in the session's memory only. Why not
``pn.widgets.FileInput``: it sends the whole file as one websocket message, and Bokeh closes
the connection when a message exceeds its 20 MiB limit (base64 makes a 15 MB file too big),
which would end the student's session.  Here the browser checks the size against
MAX_UPLOAD_BYTES *before* sending and then sends 1 MiB base64 chunks; the server checks again and
hands the bytes to a callback.  Nothing is written to disk; the bytes live in this component
(one per session) until the callback has parsed them, then they are dropped. The sidebar's
component (app/cdf/sidebar.py SidebarPanel) is an UploadBox: its file picker sends these
chunks (assets/dplab-cdf-controls.js; assets/dplab-upload.js is the box on its own).
No imports in the modules: they load nothing from anywhere (offline).

:class:`SettleNote`, a part of the sidebar (app/cdf/parts.py), not a component of its own.
"""

from __future__ import annotations

import base64
import binascii
import logging
import math
from collections.abc import Callable
from typing import Any, ClassVar

import param

from app.cdf.parts import Bar, Part, e
from app.cdf.upload import MAX_UPLOAD_BYTES
from app.shell import assets
from app.shell.plainjs import PlainJS

log = logging.getLogger(__name__)
CHUNK = 1 << 20


class UploadBox(PlainJS):
    """A labelled file picker (keyboard operable) that streams one file to the server."""

    button_text = param.String(default="CSV", doc="Text of the visible button.")
    hint_text = param.String(default="", doc="One line under the button.")
    busy_text = param.String(default="…", doc="Shown while the file is being sent.")
    max_bytes = param.Integer(default=MAX_UPLOAD_BYTES, bounds=(1, None),
                              doc="Largest file accepted, in bytes (checked in the browser too).")

    _esm = assets.path("dplab-upload.js")

    _stylesheets: ClassVar[list[str]] = [assets.text("dplab-upload.css")]

    def __init__(self, on_file: Callable[[str, bytes], None],
                 on_error: Callable[[str, dict[str, Any]], None], **params: Any) -> None:
        super().__init__(**params)
        self._on_file = on_file
        self._report_error = on_error
        self._pending: dict[str, Any] | None = None

    def _handle_msg(self, data: Any) -> None:
        try:
            self._handle(data)
        except Exception:  # a malformed message must never end the session
            log.warning("cdf upload: message rejected", exc_info=True)
            self._pending = None
            self._report_error("cdf.up.err.transfer", {})

    def _handle(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        kind = data.get("kind")
        if kind == "too_big":
            self._pending = None
            size = int(data.get("size", 0))
            self._report_error("cdf.up.err.size", {"size": f"{size / 2**20:.1f}",
                                               "limit": f"{self.max_bytes / 2**20:.1f}"})
            return
        if kind == "start":
            size = int(data.get("size", 0))
            chunks = int(data.get("chunks", 0))
            if size > self.max_bytes or chunks > self.max_bytes // CHUNK + 2 or chunks < 1:
                self._pending = None
                self._report_error("cdf.up.err.size", {"size": f"{size / 2**20:.1f}",
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


class SettleNote(Part):
    """The note on a value not yet released (a live region in the sidebar's component,
    app/cdf/sidebar.py), and the browser's word that the control has settled: pointer up or
    Enter on the ε slider, an option picked or Enter on a select.

    The server keeps the pending value and its 600 ms pause (app/cdf/controls_settle.py); this
    part only shows ``text`` and passes each "settled" message, with the value shown on the
    control (a number for a slider, the option's text as the select holds it for a select), to
    ``on_settle``. ``slider_class`` names the control it watches, ``control_kind`` says what it
    is ("slider" or "select").
    """

    kind = "note"
    SHOWN = frozenset({"text", "visible", "css_classes"})

    def __init__(self, bar: Bar, key: str, on_settle: Callable[[Any], None], *,
                 slider_class: str, control_kind: str = "slider", **attrs: Any) -> None:
        if control_kind not in ("slider", "select"):
            raise ValueError(f"control_kind {control_kind!r}")
        super().__init__(bar, key, text="", slider_class=slider_class,
                         control_kind=control_kind, **attrs)
        self.__dict__["_on_settle"] = on_settle

    def _handle_msg(self, data: Any) -> None:
        try:
            if isinstance(data, dict) and data.get("kind") == "settle":
                raw = data.get("value")
                if self.control_kind == "select":
                    if isinstance(raw, str) and 0 < len(raw) <= 1000:
                        self._on_settle(raw)
                    return
                value = float(raw)  # type: ignore[arg-type]
                if math.isfinite(value):
                    self._on_settle(value)
        except (TypeError, ValueError):
            log.warning("cdf settle: message rejected", exc_info=True)

    def html(self) -> str:
        # one class per kind: the ε slider's note stays the page's only .dp-cdf-pending
        cls = "dp-cdf-choice-pending" if self.control_kind == "select" else "dp-cdf-pending"
        on = " dp-cdf-pending-on" if self.text else ""
        return (f'<div class="{e(self.classes("dp-part"))}" data-p="{e(self.key)}"'
                f'{self.hidden()}><p class="{cls}{on}" role="status" aria-live="polite">'
                f'{e(self.text)}</p></div>')

    def state(self) -> Any:
        return self.text
