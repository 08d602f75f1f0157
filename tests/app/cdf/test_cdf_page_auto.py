"""/cdf page objects (no browser) for the automatic method: what it chose, the degree slider."""

from __future__ import annotations

import pytest

from app.cdf.page import CDFPage
from app.cdf.state import CDFState
from app.shell.i18n import t


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_auto_tree_disables_the_slider_with_the_reason_at_it(lang: str) -> None:
    state = CDFState()
    state.apply_url({"data": "bimodal", "n": "10000", "eps": "1", "method": "auto"})
    page = CDFPage(state=state, lang=lang)
    assert page.w_degree.disabled and page.w_auto.disabled
    assert page.w_degree.name == t("cdf.ctl.degree_na", lang)
    assert t("cdf.degree.side_tree", lang) in page.degree_side.object
    assert "dp-cdf-auto-tree" in page.auto_box.object and page.w_pp_view.visible
    assert not page.plot_deg.visible  # no error-against-degree plot without a degree
    # the PP view is a new release; its slider is live again and free
    page._input("method", "pp")
    assert not page.w_degree.disabled and page.w_degree.name == t("cdf.ctl.degree", lang)
    assert page.auto_box.object == "" and not page.w_pp_view.visible
    before = state.ledger().releases
    page._on_degree(7)
    assert state.degree == 7 and not state.auto_degree
    assert state.ledger().releases == before == 2
    assert page.degree_side.object.count('class="dp-cdf-degree">7<') == 1


def test_auto_histogram_below_the_threshold_says_bins() -> None:
    state = CDFState()
    state.apply_url({"data": "bimodal", "n": "1000", "eps": "0.1", "method": "auto"})
    page = CDFPage(state=state, lang="en")
    plan = state.auto_plan()
    assert plan is not None and plan.method == "hq"
    assert f"{plan.k_max} bars" in page.auto_box.object
    assert t("cdf.degree.side_hist", "en") in page.degree_side.object
    assert page.w_degree.disabled


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_rejected_input_marks_the_plot_stale_in_words(lang: str) -> None:
    state = CDFState(n=2000)
    page = CDFPage(state=state, lang=lang)
    assert page.stale_note.object == "" and "dp-cdf-stale" not in page.plot_col.css_classes
    shown = list(page.curves["priv"])
    page._input("eps", "abc")
    assert state.eps == 1.0 and list(page.curves["priv"]) == shown  # the last valid state
    note = page.stale_note.object
    assert t("cdf.stale", lang, fields="ε") in note and "dp-stale-note" in note
    assert "dp-cdf-stale" in page.plot_col.css_classes
    assert page.plot_col.styles["outline"].endswith("dashed #d55e00")
    assert page.plot.styles["opacity"] == "0.6"
    page._input("n", "5")  # a second rejected input: both named
    assert t("cdf.stale", lang, fields="n, ε") in page.stale_note.object
    page._input("eps", "2")
    page._input("n", "3000")
    assert page.stale_note.object == "" and "dp-cdf-stale" not in page.plot_col.css_classes
    assert page.plot.styles["opacity"] == "1" and page.plot_col.styles["outline"] == "none"
    assert state.eps == 2.0
    assert list(page.curves["priv"]) != shown


def test_a_bad_value_spacing_marks_the_plot_stale() -> None:
    state = CDFState()
    state.apply_url({"data": "anes96_age", "gran": "1"})
    page = CDFPage(state=state, lang="en")
    page._input("lattice_h", "5")
    assert state.lattice_h == 1.0
    assert "Value spacing h" in page.stale_note.object
    assert "16.4" in page.err["lattice_h"].object


def test_dark_text_colours_are_the_dark_palettes() -> None:
    import re

    from app.shell import assets, theme

    css = assets.text("dplab-cdf-dark.css")
    dark = theme.PALETTES["dark"]
    m = re.search(r"\.dp-error \{ color: (#[0-9a-f]{6}); \}", css)
    assert m is not None and m.group(1) == dark.failed
    assert dark.claim in css


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_one_level_tree_on_a_lattice_is_called_a_histogram(lang: str) -> None:
    # ANES ages, whole years, n·ε = 944: auto's tree on the 83 lattice points has one level,
    # which is a histogram; the first line says so (a "tree" with one level confused readers)
    state = CDFState()
    state.apply_url({"data": "anes96_age", "method": "auto", "gran": "1", "eps": "1"})
    page = CDFPage(state=state, lang=lang)
    shape = page.auto_box.object
    assert "dp-cdf-auto-lattice" in shape
    summary = shape.split('class="dp-cdf-auto-summary">', 1)[1].split("</p>", 1)[0]
    head = t("cdf.auto.summary_lattice_flat", lang, h="1", size="83", leaves="@",
             neps="944").split("@", 1)[0]
    assert summary.startswith(head), summary
    # a finer lattice or a larger n·ε gives a real tree and keeps the tree wording
    state.apply_url({"data": "anes96_age", "method": "auto", "gran": "1", "eps": "10"})
    page = CDFPage(state=state, lang=lang)
    deep = page.auto_box.object.split('class="dp-cdf-auto-summary">', 1)[1]
    tree_head = t("cdf.auto.summary_lattice", lang, h="1", size="83", leaves="@",
                  neps="9,440").split("@", 1)[0]
    assert deep.startswith(tree_head) and not deep.startswith(head), deep[:200]
