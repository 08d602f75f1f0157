"""The save bar every page shares: buttons that make a file at the click, offline.

A page gives :class:`ExportBar` a ``make(kind)`` function that returns an :class:`ExportFile`
(name, text, and for a PNG the figure's id and legend); the browser side
(assets/dplab-export.js) saves text files directly and draws a PNG from Bokeh's own canvas,
with the release's JSON in an ``iTXt`` chunk. Buttons carry the classes ``dp-export-png``,
``dp-export-json``, ``dp-export-md``, ``dp-export-csv``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import param

from app.shell import assets
from app.shell.plainjs import PlainJS

MIME = {"json": "application/json", "md": "text/markdown;charset=utf-8",
        "csv": "text/csv;charset=utf-8", "png": "image/png"}


@dataclass(frozen=True)
class ExportFile:
    """What a click saves: a text file, or (``figure_id``) a figure drawn as PNG in the browser
    with ``text`` in its iTXt chunk and ``legend`` (dicts of LegendEntry.as_dict) under it."""

    filename: str
    text: str
    figure_id: str = ""
    legend: tuple[dict[str, Any], ...] = ()


class ExportBar(PlainJS):
    """The save buttons of a page, in one component (one Bokeh model, cheap to build).

    ``items``: ``[{"kind", "label", "cls"}]``; a button's css classes are ``dp-export-btn`` and
    ``cls`` (``dp-export-png``, ``dp-export-json``, ``dp-export-md``, ``dp-export-csv``).
    A click sends ``{"kind", "ticket"}``; :meth:`_handle_msg` asks ``make(kind)`` for an
    :class:`ExportFile` at that moment and answers in ``reply``. The browser then saves the
    text, or, with a ``figure_id``, exports that Bokeh figure as PNG with its legend drawn under
    it and the text in its iTXt chunk (assets/dplab-export.js). Nothing is rendered on the
    server.
    """

    heading = param.String(default="", doc="Heading above the buttons.")
    hint = param.String(default="", doc="One sentence under the heading.")
    items = param.List(default=[], item_type=dict, doc="Buttons: kind, label, cls.")
    reply = param.Dict(default={}, doc="The server's answer to the last click.")
    colours = param.Dict(default={"background": "#ffffff", "text": "#222222"},
                         doc="Background and text colour of a PNG's legend (the theme's).")
    font_px = param.Integer(default=15, bounds=(8, 48), doc="Legend text size in a PNG.")

    _esm = assets.path("dplab-export.js")

    _stylesheets: ClassVar[list[str]] = [assets.text("dplab-export.css")]

    def __init__(self, make: Callable[[str], ExportFile] | None = None,
                 **params: Any) -> None:
        super().__init__(**params)
        self._make = make

    def _handle_msg(self, msg: Any) -> None:
        if not isinstance(msg, dict) or self._make is None:
            return
        kind = str(msg.get("kind", ""))
        if kind not in {item.get("kind") for item in self.items}:
            return
        f = self._make(kind)
        ext = f.filename.rsplit(".", 1)[-1]
        self.reply = {"ticket": int(msg.get("ticket", 0)), "kind": kind, "filename": f.filename,
                      "text": f.text, "figure_id": f.figure_id, "legend": list(f.legend),
                      "mime": MIME.get(ext, "application/octet-stream")}
