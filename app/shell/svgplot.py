"""Figures the browser draws as SVG from one compact message (the light page, docs/light-page.md).

A Bokeh figure is ~40 models per session, all made on the server for every page and walked
for every change. An :class:`SvgPlot` is one model: ``data`` holds what the figure shows (a few
numbers, short arrays, texts already in the reader's language), ``look`` the theme's colours
and text sizes (set once per page). Its module (``assets/<name>.js``, with the shared helpers
of ``assets/dplab-svgplot.js`` in front) draws the figure and redraws it when either changes.
The save bar's PNG is drawn from the SVG in the browser (``figure_id`` "svg:<key>", see
assets/dplab-export.js).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import param

from app.shell import assets
from app.shell.plainjs import PlainJS
from app.shell.theme import Palette


def look(pal: Palette, large: bool, height: int) -> dict[str, Any]:
    """A figure's colours and text sizes: the Bokeh figures' (12 pt text, 13 pt titles; 18 pt
    and 17 pt on the projector, app/shell/theme.py large_type), in CSS pixels."""
    font, title = (24, 23) if large else (16, 17)
    return {"bg": pal.background, "text": pal.text, "grid": pal.grid, "d0": pal.d0,
            "d1": pal.d1, "marker": pal.marker, "note": pal.note, "label_bg": pal.label_bg,
            "curve": pal.curve, "claim": pal.claim, "laplace": pal.laplace,
            "classic": pal.classic, "font": font, "title_font": title,
            "height": height}


def picture(values: Any, digits: int = 4) -> list[float | None]:
    """Values for a picture: ``digits`` significant digits (the exact ones are in the text
    equivalents), None where a value cannot be drawn (NaN, ±inf: a gap in the line)."""
    out: list[float | None] = []
    for v in values:
        f = float(v)
        out.append(float(f"{f:.{digits}g}") if math.isfinite(f) else None)
    return out


def module(name: str) -> str:
    """A view's module with the shared helpers in front (Panel's modules cannot import)."""
    return assets.text("dplab-svgplot.js") + "\n" + assets.text(name)


class SvgPlot(PlainJS):
    """One figure drawn by the browser from ``data`` and ``look``."""

    __abstract = True

    data = param.Dict(default={}, doc="What the figure shows (numbers, arrays, texts).")
    look = param.Dict(default={}, doc="Colours and text sizes of the page's theme.")
    key = param.String(default="", doc="The figure's name for the save bar (svg:<key>).")

    _stylesheets: ClassVar[list[str]] = [assets.text("dplab-svgplot.css")]
