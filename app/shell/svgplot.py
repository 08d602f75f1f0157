"""Figures the browser draws as SVG from one compact message (the light page, docs/light-page.md).

A Bokeh figure is ~40 models per session, all made on the server for every page and walked
for every change. An :class:`SvgPlot` is one model: ``data`` holds what the figure shows (a few
numbers, short arrays, texts already in the reader's language), ``look`` the theme's colours
and text sizes (set once per page). Its module (``assets/<name>.js``, with the shared helpers
of ``assets/dplab-svgplot.js`` in front) draws the figure and redraws it when either changes.
The save bar's PNG is drawn from the SVG in the browser (``figure_id`` "svg:<key>", see
assets/dplab-export.js).

A view is one component with all its parts (assets/dplab-svgplot.js ``mountPlot``): its
heading (``head``), the figure, its legend (``legend``; the message's ``legend_off`` hides
entries) and its text equivalent (the message's ``html_text``). Each part as a pane of its own
cost ~210 Python objects and ~1 ms of every page build; in the message, a room's channel
redraws the whole view from one text.

What a figure shows travels as ONE JSON string (``message``), not as a nested dict: Bokeh walks
a dict or list property's every element looking for models each time it is set (~0.5 ms per
figure and move on /lab: ~80,000 calls per 40 moves, a third of a follower's refresh), and
a string is one value. The string is made once per worker and figure state
(:func:`shared`), so the followers of a room set the same object, and Bokeh encodes a string
in one call.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, ClassVar

import numpy as np
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


class Picture(list[float | None]):
    """A read-only array's picture (:func:`picture`) with its JSON text, made once per array
    and ``digits``: :func:`encode` writes the text as it is. Shared by every message that
    shows the array: not to be changed."""

    __slots__ = ("json",)
    json: str


# (id(array), digits) -> (the array, its Picture): for read-only arrays only (the cached,
# frozen arrays of app/lab/compute.py: the curve's δ(ε) and the simulation's bins depend on σ,
# not ε, so half of a class's moves show arrays already drawn). The array is held, so its id
# is not reused while the entry lives.
_PICTURES: OrderedDict[tuple[int, int], tuple[np.ndarray, Picture]] = OrderedDict()
PICTURES_KEPT = 512


def picture(values: Any, digits: int = 4) -> list[float | None]:
    """Values for a picture (:func:`pictured`); a read-only numpy array's picture is made once
    (a :class:`Picture`: with its JSON text; ~15 % of a worker's CPU per /lab move went to
    these two, py-spy, classroom_load.py moves --students 300, 2026-12-07)."""
    if isinstance(values, np.ndarray) and _immutable(values):
        key = (id(values), digits)
        got = _PICTURES.get(key)
        if got is not None and got[0] is values:
            _PICTURES.move_to_end(key)
            return got[1]
        pic = Picture(pictured(values, digits))
        pic.json = json.dumps(pic, separators=(",", ":"), allow_nan=False)
        _PICTURES[key] = (values, pic)
        while len(_PICTURES) > PICTURES_KEPT:
            _PICTURES.popitem(last=False)
        return pic
    return pictured(values, digits)


def _immutable(a: np.ndarray) -> bool:
    """No one can change ``a``'s values: it and every array it views are read-only."""
    base: Any = a
    while isinstance(base, np.ndarray):
        if base.flags.writeable:
            return False
        base = base.base
    return base is None or isinstance(base, bytes)


def pictured(values: Any, digits: int = 4) -> list[float | None]:
    """Values for a picture: ``digits`` significant digits (the exact ones are in the text
    equivalents), None where a value cannot be drawn (NaN, ±inf: a gap in the line).

    Rounded with numpy (r = round(x·10^k), then r / 10^−k or r·10^k, exact powers of ten, so
    each result is the double nearest its short decimal and JSON writes it short); the value
    may differ from formatting ``f"{x:.4g}"`` by one unit in the last digit where x·10^k
    rounds on the other side of a tie. A Python loop of that formatting was ~1 ms of every
    /lab move (1,400 values)."""
    a = np.asarray(values, dtype=float).ravel()
    out = a.copy()
    fin = np.isfinite(a) & (a != 0.0)
    if fin.any():
        x = a[fin]
        with np.errstate(divide="ignore"):
            k = digits - 1 - np.floor(np.log10(np.abs(x))).astype(np.int64)
        near = np.abs(k) <= 22  # 10^|k| exact: one correctly rounded operation
        y = np.empty_like(x)
        kn, xn = k[near], x[near]
        up = kn >= 0
        p = 10.0 ** np.abs(kn)
        yn = np.empty_like(xn)
        yn[up] = np.round(xn[up] * p[up]) / p[up]
        yn[~up] = np.round(xn[~up] / p[~up]) * p[~up]
        y[near] = yn
        y[~near] = [float(f"{v:.{digits}g}") for v in x[~near]]
        out[fin] = y
    lst: list[float | None] = out.tolist()
    for i in np.flatnonzero(~np.isfinite(a)):
        lst[i] = None
    return lst


def module(name: str) -> str:
    """A view's module with the shared helpers in front (Panel's modules cannot import)."""
    return assets.text("dplab-svgplot.js") + "\n" + assets.text(name)


def encode(data: dict[str, Any]) -> str:
    """A figure's message: ``data`` as compact JSON (NaN and infinities are not JSON: the
    payloads carry None for them, :func:`picture`). A :class:`Picture` at the top level is
    written from its JSON text (the same text ``json.dumps`` makes of it)."""
    if not any(type(v) is Picture for v in data.values()):
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    rest = {k: v for k, v in data.items() if type(v) is not Picture}
    text = json.dumps(rest, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    tail = ",".join(json.dumps(str(k), ensure_ascii=False) + ":" + v.json
                    for k, v in data.items() if type(v) is Picture)
    return text[:-1] + ("," if rest else "") + tail + "}"


def text_html(text: str) -> str:
    """A view's text equivalent for its message: each line break's indentation dropped (HTML
    shows a line break and spaces as one space, so the page looks the same; ~20 % fewer bytes
    per move)."""
    return re.sub(r"\n[ \t]+", "\n", text)


class Message:
    """A figure's payload and its JSON text, made together once (:func:`shared`)."""

    __slots__ = ("data", "text")

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.text = encode(data)


_SHARED: OrderedDict[Hashable, Any] = OrderedDict()
SHARED_SIZE = 2048  # entries (a few kB each): every figure of ~100 room and page states


def shared(key: Hashable, make: Callable[[], Any]) -> Any:
    """``make()`` once per worker and ``key`` (least recently used entries go first): what a
    view shows is a function of a few state values, so every page in that state (a room's
    followers) takes the same object. ``key`` names the view and every input it reads,
    language and layout included."""
    try:
        _SHARED.move_to_end(key)
        return _SHARED[key]
    except KeyError:
        pass
    value = make()
    _SHARED[key] = value
    if len(_SHARED) > SHARED_SIZE:
        _SHARED.popitem(last=False)
    return value


class SvgPlot(PlainJS):
    """One figure drawn by the browser from ``message`` (its data as JSON) and ``look``."""

    __abstract = True

    message = param.String(default="{}", doc="What the figure shows, as JSON (see data).")
    look = param.Dict(default={}, doc="Colours and text sizes of the page's theme.")
    key = param.String(default="", doc="The figure's name for the save bar (svg:<key>).")
    head = param.String(default="", doc="HTML above the figure (its heading), set once.")
    legend = param.String(default="", doc=(
        "HTML list below the figure (app/shell/legend.py legend_html); the message's "
        "legend_off hides entries by index."))

    _stylesheets: ClassVar[list[str]] = [assets.text("dplab-svgplot.css")]

    @property
    def data(self) -> dict[str, Any]:
        """What the figure shows (the decoded message)."""
        text = self.message
        cached = getattr(self, "_decoded", None)
        if cached is None or cached[0] is not text:
            cached = (text, json.loads(text))
            self._decoded = cached
        return cached[1]

    def set_message(self, msg: Message | dict[str, Any]) -> None:
        """Show ``msg`` (a :class:`Message`, or a dict encoded here); nothing is sent when the
        figure already shows it."""
        text = msg.text if isinstance(msg, Message) else encode(msg)
        if text != self.message:
            if isinstance(msg, Message):
                self._decoded = (text, msg.data)
            self.message = text


# Bokeh's named dashes as SVG dash arrays (the /cdf styles are named as Bokeh names them).
DASHES: dict[str, str | None] = {"solid": None, "dashed": "6", "dotted": "2 4",
                                 "dotdash": "2 4 6 4", "dashdot": "6 4 2 4"}


def series(y: Any, *, colour: str, dash: str = "solid", width: float = 3.0,
           label: str | None = None, marker: str | None = None, msize: float = 6.0,
           cls: str | None = None, x: Any = None, digits: int = 4,
           under: bool = False) -> dict[str, Any]:
    """One curve of a :class:`LinePlot`: its values (``digits`` significant digits, None where
    it cannot be drawn), look and legend label (None: not in the legend). ``x``: its own
    abscissae (else the figure's ``x``); ``width`` 0 draws the markers only; ``under``: drawn
    before the others (the legend keeps the order given)."""
    out: dict[str, Any] = {"y": picture(y, digits), "colour": colour, "dash": DASHES[dash],
                           "width": width, "label": label, "marker": marker, "msize": msize,
                           "cls": cls}
    if under:
        out["under"] = True
    if x is not None:
        out["x"] = picture(x, 6)
    return out


class LinePlot(SvgPlot):
    """A line chart (assets/dplab-lines.js): curves on a shared abscissa, linear or log10 y,
    markers, a vertical marker with its label and a legend drawn inside the figure."""

    _esm = module("dplab-lines.js")
