"""WCAG 2.1 contrast of every line and text colour of the figures, in both themes.

The colours are read from what the pages send the browser to draw (each figure's look and
message), not from a list kept next to this test: lines and glyph outlines need >= 3:1
against the plot background (non-text contrast, SC 1.4.11), text >= 4.5:1 (SC 1.4.3). A colour
drawn with an alpha below 1 is first blended over the background.
"""

from __future__ import annotations

from typing import Any

import pytest
from bokeh.colors import named

from app.lab.card import card_theme_css
from app.lab.page import LabPage
from app.lab.state import LabState
from app.shell.theme import PALETTES

LINE, TEXT = 3.0, 4.5


def rgb(colour: Any) -> tuple[float, float, float]:
    if isinstance(colour, tuple):
        return tuple(float(c) for c in colour[:3])  # type: ignore[return-value]
    c = str(colour)
    if not c.startswith("#"):
        c = getattr(named, c.lower()).to_hex()
    c = c.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    return tuple(float(int(c[i:i + 2], 16)) for i in (0, 2, 4))  # type: ignore[return-value]


def blend(fg: Any, bg: Any, alpha: float) -> tuple[float, float, float]:
    f, b = rgb(fg), rgb(bg)
    return tuple(alpha * x + (1 - alpha) * y for x, y in zip(f, b, strict=True))  # type: ignore


def luminance(c: tuple[float, float, float]) -> float:
    def lin(v: float) -> float:
        v /= 255.0
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Any, b: Any) -> float:
    la, lb = sorted((luminance(rgb(a) if not isinstance(a, tuple) else a),
                     luminance(rgb(b) if not isinstance(b, tuple) else b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_helper_matches_wcag_examples() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("white", "#ffffff") == pytest.approx(1.0)


@pytest.fixture(scope="module", params=[False, True], ids=["default", "dark"])
def lab(request: Any) -> LabPage:
    state = LabState()
    state.load_preset("sum_pass")
    return LabPage(state=state, lang="en", large=False, dark=request.param)


def test_every_figure_line_and_text_has_contrast(lab: LabPage) -> None:
    pal = lab.pal
    checked_lines = checked_texts = 0
    # The densities, drawn by the browser from the page's look (app/shell/svgplot.py): its
    # lines (both densities, the threshold) and texts (titles and ticks, the note, the label).
    look = lab.dens_plot.look
    assert look["bg"] == pal.background
    for name in ("d0", "d1", "marker"):
        ratio = contrast(look[name], look["bg"])
        assert ratio >= LINE, f"{pal.name}: density {name} {look[name]} is {ratio:.2f}:1"
        checked_lines += 1
    for name, back in (("text", "bg"), ("text", "label_bg"), ("note", "label_bg"),
                       ("note", "bg")):
        ratio = contrast(look[name], look[back])
        assert ratio >= TEXT, f"{pal.name}: density {name} on {back} is {ratio:.2f}:1"
        checked_texts += 1
    # The curve and the simulation, drawn the same way: the curve's five lines and its point,
    # the simulation's bars and density lines (d0, d1) and its threshold.
    for plot, names in ((lab.curve_plot, ("curve", "claim", "laplace", "classic", "marker")),
                        (lab.sim_plot, ("d0", "d1", "marker"))):
        look = plot.look
        assert look["bg"] == pal.background and look["text"] == pal.text
        for name in names:
            ratio = contrast(look[name], look["bg"])
            assert ratio >= LINE, f"{pal.name}: {name} {look[name]} is {ratio:.2f}:1"
            checked_lines += 1
        ratio = contrast(look["text"], look["bg"])
        assert ratio >= TEXT, f"{pal.name}: text on {look['bg']} is {ratio:.2f}:1"
        checked_texts += 1
    assert checked_lines == 11 and checked_texts == 6


def test_legend_swatches_are_the_lines(lab: LabPage) -> None:
    """The HTML legends draw each entry in the colour the browser draws its line in (the
    figure's look), so a swatch has the contrast of its line."""
    from app.shell.legend import legend_html

    look = lab.dens_plot.look  # the densities: the colours the browser draws them in
    text = legend_html(lab.leg_dens, "Legend")
    assert [e.colour for e in lab.leg_dens] == [look["d0"], look["d1"], look["d0"], look["d1"]]
    assert [e.kind for e in lab.leg_dens] == ["area", "hatch", "line", "line"]
    for e in lab.leg_dens:
        assert f'"{e.colour}"' in text and contrast(e.colour, lab.pal.background) >= LINE
    look = lab.curve_plot.look
    text = legend_html(lab.leg_curve, "Legend")
    assert [e.colour for e in lab.leg_curve] == [look[k] for k in (
        "claim", "laplace", "classic", "classic", "curve", "curve")]
    for e in lab.leg_curve:
        assert f'"{e.colour}"' in text and contrast(e.colour, lab.pal.background) >= LINE


@pytest.mark.parametrize("theme", ["default", "dark"])
def test_palette_and_card_colours(theme: str) -> None:
    pal = PALETTES[theme]
    for field in ("d0", "d1", "claim", "curve", "laplace", "classic", "marker"):
        assert contrast(getattr(pal, field), pal.background) >= LINE, field
    for field in ("text", "note", "passed", "failed"):
        assert contrast(getattr(pal, field), pal.background) >= TEXT, field
    css = card_theme_css(pal)
    assert pal.passed in css and pal.failed in css
    # The dark theme is really dark and the default really light.
    assert (luminance(rgb(pal.background)) < 0.05) == (theme == "dark")


@pytest.mark.parametrize("dark", [False, True], ids=["default", "dark"])
def test_the_cdf_figures_lines_and_texts_have_contrast(dark: bool,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """/cdf's figures (drawn by the browser from their messages, app/shell/svgplot.py
    LinePlot): every curve's colour against the figure's background, and its text, in both
    themes (the session's theme, as ``?theme=dark`` sets it)."""
    from app.cdf.page import CDFPage
    from app.cdf.state import CDFState
    from app.shell import theme

    monkeypatch.setattr(theme, "is_dark", lambda: dark)
    page = CDFPage(state=CDFState(), lang="en")
    assert page.fig.look["bg"] == PALETTES["dark" if dark else "default"].background
    page.state.stream_steps = 1  # one batch: the stream's figure is drawn too
    page._refresh_stream()
    checked = 0
    for fig in (page.fig, page.fig_deg, page.fig_stream):
        look, data = fig.look, fig.data
        assert data["series"], f"{fig.key}: nothing drawn"
        for line in data["series"]:
            ratio = contrast(line["colour"], look["bg"])
            assert ratio >= LINE, f"/cdf {fig.key}: {line['cls']} is {ratio:.2f}:1"
            checked += 1
        assert contrast(look["text"], look["bg"]) >= TEXT
        assert contrast(look["marker"], look["bg"]) >= LINE
    assert checked >= 10
