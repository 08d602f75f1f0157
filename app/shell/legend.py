"""Figure legends drawn as HTML next to a Bokeh figure (and into its PNG export).

A Bokeh legend cannot wrap: below a plot it took a third of the figure's height and was cut off
on phones. An HTML list wraps, is read by screen readers, and costs no Bokeh models per session.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from bokeh.models import Line, Scatter

from app.shell import assets


# ---------------------------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LegendEntry:
    """One legend line, drawn in HTML next to the figure (and into its PNG export)."""

    label: str
    kind: str  # "line", "area", "hatch" or "marker"
    colour: str
    dash: tuple[int, ...]  # SVG/canvas dash pattern; () is solid
    width: float
    alpha: float
    renderer: Any = field(compare=False, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "kind": self.kind, "colour": self.colour,
                "dash": list(self.dash), "width": self.width, "alpha": self.alpha}


_DASHES = {"solid": (), "dashed": (6, 4), "dotted": (2, 4), "dotdash": (2, 4, 6, 4),
           "dashdot": (6, 4, 2, 4)}


def _dash(value: Any) -> tuple[int, ...]:
    if isinstance(value, str):
        return _DASHES.get(value, ())
    return tuple(int(v) for v in (value or ()))


def take_legend(fig: Any) -> list[LegendEntry]:
    """Move a figure's legend out of the canvas: its entries, read from the renderers' glyphs.

    A Bokeh legend cannot wrap: below a plot it took a third of the ε–δ figure's height and
    was cut off on phones. The entries are drawn as HTML (:func:`legend_html`), which wraps,
    is read by screen readers, and costs no Bokeh models per session.
    """
    entries: list[LegendEntry] = []
    for leg in list(fig.legend):
        for item in leg.items:
            label = getattr(item.label, "value", None) or str(item.label)
            r = item.renderers[0]
            g = r.glyph
            if isinstance(g, Line):
                entries.append(LegendEntry(label, "line", g.line_color, _dash(g.line_dash),
                                           float(g.line_width), float(g.line_alpha), r))
            elif isinstance(g, Scatter):
                entries.append(LegendEntry(label, "marker", g.fill_color, (), 1.0,
                                           float(g.fill_alpha), r))
            elif g.hatch_pattern:
                entries.append(LegendEntry(label, "hatch", g.hatch_color, (), 1.5,
                                           float(g.hatch_alpha), r))
            else:
                entries.append(LegendEntry(label, "area", g.fill_color, (), 1.0,
                                           float(g.fill_alpha), r))
        for area in ("center", "below", "above", "left", "right"):
            setattr(fig, area, [m for m in getattr(fig, area) if m is not leg])
    return entries


def _swatch(e: LegendEntry) -> str:
    c = html.escape(e.colour)
    dash = f' stroke-dasharray="{" ".join(map(str, e.dash))}"' if e.dash else ""
    if e.kind == "line":
        body = (f'<line x1="2" y1="8" x2="38" y2="8" stroke="{c}" stroke-width="{e.width:g}"'
                f'{dash} stroke-opacity="{e.alpha:g}"/>')
    elif e.kind == "marker":
        body = f'<polygon points="20,1 27,8 20,15 13,8" fill="{c}"/>'
    elif e.kind == "hatch":
        body = (f'<rect x="2" y="2" width="36" height="12" fill="none" stroke="{c}"/>'
                f'<path d="M2 14L14 2M10 14L22 2M18 14L30 2M26 14L38 2" stroke="{c}"'
                f' stroke-width="1.5"/>')
    else:
        body = (f'<rect x="2" y="2" width="36" height="12" fill="{c}"'
                f' fill-opacity="{max(e.alpha, 0.35):g}" stroke="{c}"/>')
    return (f'<svg class="dp-swatch" width="40" height="16" viewBox="0 0 40 16" '
            f'aria-hidden="true">{body}</svg>')


def legend_html(entries: list[LegendEntry], label: str, *, every: bool = False) -> str:
    """The legend as a wrapping HTML list: the entries whose renderer is visible, or with
    ``every`` all of them, each marked with its index (``data-i``) for a view to hide
    (:func:`hidden_entries`)."""
    items = "".join(f'<li data-i="{i}">{_swatch(e)}<span>{html.escape(e.label)}</span></li>'
                    for i, e in enumerate(entries)
                    if every or e.renderer is None or e.renderer.visible)
    return f'<ul class="dp-legend" aria-label="{html.escape(label)}">{items}</ul>'


def hidden_entries(entries: list[LegendEntry]) -> list[int]:
    """The indices of the entries whose renderer is hidden (a view's ``legend_off``)."""
    return [i for i, e in enumerate(entries)
            if e.renderer is not None and not e.renderer.visible]


LEGEND_CSS = assets.text("dplab-legend.css")
