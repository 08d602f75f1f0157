"""Small helpers for Bokeh figures: fewer models per session and fewer messages per move."""

from __future__ import annotations

from typing import Any

import numpy as np
from bokeh.models import ColumnDataSource

from app.shell import assets
from app.shell.i18n import t

# Bokeh's toolbar tooltips are English ("Pan", "Box Zoom"): the page's language instead.
TOOL_KEYS = {"PanTool": "common.tool.pan", "WheelZoomTool": "common.tool.wheel_zoom",
             "BoxZoomTool": "common.tool.box_zoom", "ResetTool": "common.tool.reset",
             "SaveTool": "common.tool.save", "TapTool": "common.tool.tap",
             "HoverTool": "common.tool.hover"}


def name_tools(fig: Any, lang: str) -> None:
    """Translated tooltips (``description``) for the figure's toolbar buttons."""
    for tool in fig.toolbar.tools:
        key = TOOL_KEYS.get(type(tool).__name__)
        if key is not None:
            tool.description = t(key, lang)


PRINT_CSS = assets.text("dplab-figure-print.css")


def print_figure(fig: Any) -> Any:
    """``fig`` on paper: never cut by a page break, its toolbar left out (assets/
    dplab-figure-print.css, in the figure's and the toolbar's own shadow roots). Returns it."""
    if PRINT_CSS not in fig.stylesheets:
        fig.stylesheets = [*fig.stylesheets, PRINT_CSS]
    toolbar = fig.toolbar
    if PRINT_CSS not in toolbar.stylesheets:
        toolbar.stylesheets = [*toolbar.stylesheets, PRINT_CSS]
    return fig


def legend_below(fig: Any, ncols: int = 2) -> None:
    # Below the plot: a legend inside the frame would hide the curves' peaks.
    leg = fig.legend[0]
    fig.center = [r for r in fig.center if r is not leg]
    leg.orientation = "horizontal"
    leg.ncols = ncols
    leg.background_fill_alpha = 0.0
    leg.border_line_alpha = 0.0
    leg.click_policy = "none"
    fig.add_layout(leg, "below")


def lean(fig: Any, *, selectable: bool = False) -> None:
    # bokeh.plotting gives each renderer a muted and a non-selection copy of its glyph: two
    # more models per curve per session. Our legends never mute (click_policy "none") and
    # only a figure with a TapTool can select; without a copy BokehJS draws the glyph itself.
    for r in fig.renderers:
        r.muted_glyph = None
        if not selectable:
            r.nonselection_glyph = None


def set_data(src: ColumnDataSource, **columns: Any) -> None:
    """Send only the columns of a source whose values changed.

    Bokeh sends every column of a ColumnDataSource on a ``data`` assignment, equal or not,
    and the browser redraws it. Here an unchanged column (the same array, or equal values)
    is not sent, and when the other columns keep their lengths only the changed ones go
    (``data.update``: one ColumnDataChangedEvent naming those columns). On a σ move the
    ε–δ curve's ε grid stays; on an ε move the cached σ-only arrays (app.lab.compute) do.
    """
    old = src.data
    if old.keys() != columns.keys():
        src.data = columns
        return
    changed = {k: v for k, v in columns.items() if not _same_column(old[k], v)}
    if not changed:
        return
    if all(len(v) == len(old[k]) for k, v in changed.items()):
        old.update(changed)
    else:
        src.data = columns


def _same_column(old: Any, new: Any) -> bool:
    if new is old:
        return True
    if len(new) != len(old):
        return False
    return bool(np.array_equal(np.asarray(new, dtype=float), np.asarray(old, dtype=float),
                               equal_nan=True))


def set_props(model: Any, **props: Any) -> None:
    """Set only the properties of a Bokeh model whose value changed.

    A Bokeh assignment validates its value and walks the property machinery even when the
    value is the same, and many of a figure's properties (axis labels, a marker's visibility)
    keep theirs on a move. In a class load's profile (py-spy, 250 students), Bokeh property
    assignments were ~10 % of a move's server CPU.
    """
    changed = {k: v for k, v in props.items() if getattr(model, k) != v}
    if changed:
        model.update(**changed)
