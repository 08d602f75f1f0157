"""The ε–δ curve's legend lists exactly the curves drawn, after every overlay switch and slider
move: the view's legend holds every entry, the message names those hidden (``legend_off``,
assets/dplab-svgplot.js hides them), so a room's channel carries it with the figure."""

from __future__ import annotations

import html
import re

from app.lab.page import LabPage
from app.lab.state import LabState


def listed(page: LabPage) -> list[str]:
    items = re.findall(r'<li data-i="(\d+)">.*?<span>([^<]*)</span></li>', page.curve_plot.legend)
    off = set(page.curve_plot.data["legend_off"])
    return [html.unescape(x) for i, x in items if int(i) not in off]


def drawn(page: LabPage) -> list[str]:
    return [e.label for e in page.leg_curve if e.renderer is None or e.renderer.visible]


def test_legend_follows_the_overlays() -> None:
    page = LabPage(LabState(), "en")
    first = listed(page)
    assert first == drawn(page) and first
    seen = {tuple(first)}
    for overlays in (["laplace"], ["laplace", "classic"], [], ["classic"], ["classic"]):
        page.state.overlays = overlays
        page.refresh(None)
        assert listed(page) == drawn(page)
        seen.add(tuple(listed(page)))
        page.state.set_value("sigma", 1.5)  # a move keeps it
        page.refresh({"sigma"})
        assert listed(page) == drawn(page)
    assert len(seen) == 4  # each overlay set gave its own legend
