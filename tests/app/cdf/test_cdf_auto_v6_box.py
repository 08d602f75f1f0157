"""/cdf's automatic box for every kind of release the default rule (auto_plan_v6) picks, in both
languages: the Chebyshev histogram (n·ε < 300), the two-level 16-ary tree with its split budget
(300 to 1,500), the 9-ary tree of depth 3 (1,500 to 15,000) and the 8-ary trees (from 15,000);
every number from the release's public record or dpcore's constants, with its unit."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from app.cdf import views, views_auto
from app.cdf.state import CDFState
from app.shell.i18n import LANGUAGES, t
from dpcore.cdf import TREE_BRANCHING, tree
from dpcore.cdf.auto_v5 import BAND_TOP_SHARE
from dpcore.cdf.auto_v6 import BANDS_V6, band_of


def _box(lang: str, **kw: object) -> tuple[CDFState, str, str]:
    s = CDFState(method="auto", **kw)
    html = views_auto.auto_choice_html(s, lang)
    summary = html.split('class="dp-cdf-auto-summary">', 1)[1].split("</p>", 1)[0]
    return s, html, summary


def _plain(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_text_is_filled_and_in_its_language(lang: str) -> None:
    for kw in ({"n": 1000, "eps": 0.1}, {"n": 1000, "eps": 1.0}, {"n": 10_000, "eps": 1.0},
               {"n": 10_000, "eps": 8.0}, {"dataset": "anes96_age", "eps": 0.1},
               {"dataset": "anes96_age", "eps": 1.0}):
        s, html, _ = _box(lang, **kw)
        text = _plain(html)
        assert "{" not in text and "}" not in text, kw
        assert bool(re.search("[가-힣]", text)) == (lang == "ko"), kw
        assert "을(를)" not in text and "이(가)" not in text and "은(는)" not in text
        # the whole rule, from dpcore's bands, this release's band in bold
        band = band_of(s.data_n(), s.eps)
        assert views_auto.bands_html(band, lang) in html
        assert html.count("<li>") == len(BANDS_V6) and html.count("<strong>") == 1
        assert f"<strong>{views_auto.band_text(band, lang).replace('<', '&lt;')}</strong>" in html


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_chebyshev_histogram_says_its_cells_in_the_datas_unit(lang: str) -> None:
    s, html, summary = _box(lang, dataset="anes96_age", eps=0.1)  # n·ε = 94.4
    est = s.current()
    shape = s.release_shape()
    assert shape is not None and shape.kind == "hq" and shape.layout == "chebyshev"
    assert "dp-cdf-auto-hist" in html
    w = np.diff(est.release.extra["edges"]) * (100 - 18)
    unit = t("cdf.unit.years", lang)
    for x in (w.min(), w.max(), 82 / shape.bins):
        assert f"{views.g(float(x), 3)} {unit}" in html
    assert f"{views.g(100 * w.min() / 82, 2)}{'%' if lang == 'ko' else ' %'}" in html
    assert f"b = {views.g(est.release.noise_scale, 3)}" in html
    assert str(shape.bins) in summary and "94.4" in summary and "300" in summary
    # synthetic data have no unit: the widths then come without one, with their share
    _, html, _ = _box(lang, n=1000, eps=0.1)
    assert f"{views.g(float(np.diff(s.current().release.extra['edges']).min()), 3)}" in html


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_band_tree_says_its_two_levels_and_the_budget_split(lang: str) -> None:
    s, html, summary = _box(lang, dataset="anes96_age", eps=1.0)  # n·ε = 944
    est = s.current()
    shape = s.release_shape()
    assert shape is not None and (shape.kind, shape.branching, shape.depth) == ("tree", 16, 2)
    assert shape.top_share == BAND_TOP_SHARE
    assert "dp-cdf-auto-band" in html and "dp-cdf-auto-tree" in html
    s_top, s_leaf = est.release.extra["scales"]
    assert views.g(s_top * math.sqrt(2), 3) in html and views.g(s_leaf * math.sqrt(2), 3) in html
    pct = "%" if lang == "ko" else " %"
    assert f"{100 * BAND_TOP_SHARE:.0f}{pct}" in html
    assert f"{100 * (1 - BAND_TOP_SHARE):.0f}{pct}" in html
    assert "272" in html and "256" in html  # 16 + 256 noisy counts, 256 leaves
    assert "944" in summary and "300 ≤ n·ε &lt; 1,500" in summary and "16" in summary
    assert t("cdf.auto.band_tree", lang, neps="944", range="300 ≤ n·ε < 1,500", b=16,
             leaves="256", nodes="272", top_pct=f"60{pct}", leaf_pct=f"40{pct}",
             top_sd=views.g(s_top * math.sqrt(2), 3), sd=views.g(s_leaf * math.sqrt(2), 3),
             ).replace("<", "&lt;").replace("'", "&#x27;") in html


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("n", "eps", "b", "depth"), [(10_000, 1.0, 9, 3), (10_000, 8.0, 8, 4)])
def test_the_trees_say_their_band(lang: str, n: int, eps: float, b: int, depth: int) -> None:
    s, html, summary = _box(lang, n=n, eps=eps)
    shape = s.release_shape()
    assert shape is not None and (shape.branching, shape.depth) == (b, depth)
    band = band_of(n, eps)
    assert views_auto.band_range(band, lang).replace("<", "&lt;") in summary
    note = t("cdf.auto.mid_note", lang, b=b, b8=TREE_BRANCHING, leaves=f"{b**depth:,}",
             cells=f"{tree.centred_cells(b**depth):,}", depth=depth)
    assert (note in html) == (b != TREE_BRANCHING)


def test_the_bands_text_lists_every_band() -> None:
    for lang in LANGUAGES:
        text = views_auto.bands_text(lang)
        assert text.count(";") == len(BANDS_V6) - 1
        for band in BANDS_V6[1:]:
            assert f"{band.leaves:,}" in text and f"{int(band.start):,}" in text
