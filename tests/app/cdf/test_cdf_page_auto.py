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
