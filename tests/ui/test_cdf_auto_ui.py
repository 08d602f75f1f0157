"""Browser tests of /cdf: what the automatic method chose, the degree slider when there is no
degree, the public value spacing, and the stale-plot note; both languages.

Expected numbers come from dpcore (same data, same seeds); polling with expect() (no sleeps).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import expect

from app.cdf.views import g
from app.shell.i18n import t
from dpcore.cdf import estimate
from dpcore.cdf.datasets import sample
from ui.conftest import Server, run_axe, shot


def open_cdf(page: Any, server: Server, query: str) -> None:
    page.goto(f"{server.url}/cdf?{query}")
    expect(page.locator(".dp-cdf-plot svg.dp-svg path.dp-cdf-ref").first).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]seed="))


def set_text(page: Any, label: str, value: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_auto_tree_explained_and_the_slider_not_available(page: Any, server: Server,
                                                          lang: str) -> None:
    open_cdf(page, server, f"lang={lang}&method=auto&n=10000&eps=1")
    x = sample("bimodal", 10_000, np.random.default_rng([1, 11]))
    est = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, rng=np.random.default_rng([1, 12]))
    assert est.info["depth"] == 3 and est.info["leaves"] == 729  # the 9-ary tree of v6
    note = page.locator(".dp-cdf-auto-tree")
    expect(note).to_contain_text("729")
    expect(note).to_contain_text("10,000")
    note.locator("summary").click()
    expect(note).to_contain_text(g(float(est.release.extra["node_sd"]), 3))
    expect(note).to_contain_text("819")  # 9 + 81 + 729 noisy counts
    expect(note).to_contain_text("640")  # why 9: the centred cells its leaves hold
    # the slider: disabled, its label and the note under it say why
    expect(page.locator(".dp-cdf-degree-slider input[type=range]")).to_have_attribute(
        "disabled", re.compile(".*"))
    expect(page.locator(".dp-cdf-degree-slider")).to_contain_text(t("cdf.ctl.degree_na", lang))
    expect(page.locator(".dp-cdf-degree-na")).to_contain_text(t("cdf.degree.side_tree", lang))
    expect(page.locator(".dp-cdf-structure")).to_contain_text("729")
    shot(page, f"cdf-auto-tree-{lang}")
    # the PP view: a new release, the slider live again
    page.get_by_role("button", name=t("cdf.ctl.pp_view", lang)).click()
    expect(page).to_have_url(re.compile("method=pp"))
    expect(page.locator(".dp-cdf-degree")).to_have_count(1)
    expect(page.locator(".dp-cdf-degree-slider input[type=range]")).not_to_have_attribute(
        "disabled", re.compile(".*"))
    expect(page.locator(".dp-cdf-degree-na")).to_have_count(0)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_auto_histogram_and_band_tree_explained(page: Any, server: Server, lang: str) -> None:
    # ANES ages: n·ε = 94.4 (the histogram with Chebyshev edges), then 944 (the two-level tree)
    open_cdf(page, server, f"lang={lang}&data=anes96_age&method=auto&eps=0.1")
    note = page.locator(".dp-cdf-auto-hist")
    expect(note).to_contain_text("94.4")
    note.locator("summary").click()
    expect(note).to_contain_text(f"4.83 {t('cdf.unit.years', lang)}")  # an end bar, in years
    shot(page, f"cdf-auto-chebyshev-{lang}")
    set_text(page, t("cdf.ctl.eps", lang), "1")
    band = page.locator(".dp-cdf-auto-band")
    expect(band).to_contain_text("944")
    band.locator("summary").click()
    expect(band).to_contain_text("60%" if lang == "ko" else "60 %")
    expect(band).to_contain_text("272")  # 16 + 256 noisy counts
    shot(page, f"cdf-auto-band-tree-{lang}")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_value_spacing_bad_values_and_the_stale_plot(page: Any, server: Server,
                                                     lang: str) -> None:
    open_cdf(page, server, f"lang={lang}&data=anes96_age&method=auto")
    expect(page.locator(".dp-cdf-auto-band")).to_be_visible()
    page.get_by_label(t("cdf.ctl.lattice", lang), exact=True).check()
    expect(page).to_have_url(re.compile("[?&]gran=1(&|$)"))
    expect(page.locator(".dp-cdf-auto-lattice")).to_contain_text("83")
    expect(page.locator(".dp-cdf-total-eps")).to_have_text("2")  # a new release on ANES
    expect(page.locator(".dp-cdf-stale-note")).to_have_count(0)
    # h = 5 does not divide [18, 100]: a message at the field, the plot marked stale
    set_text(page, t("cdf.ctl.lattice_h", lang), "5")
    expect(page.locator(".dp-cdf-err-lattice_h [role=alert]")).to_contain_text("16.4")
    stale = page.get_by_role("status").filter(has_text=t("cdf.name.lattice_h", lang))
    expect(stale).to_be_visible()
    expect(page).to_have_url(re.compile("[?&]gran=1(&|$)"))  # the last valid spacing
    shot(page, f"cdf-stale-spacing-{lang}")
    set_text(page, t("cdf.ctl.lattice_h", lang), "0")
    expect(page.locator(".dp-cdf-err-lattice_h [role=alert]")).to_contain_text("0")
    set_text(page, t("cdf.ctl.lattice_h", lang), "1")
    expect(page.locator(".dp-cdf-stale-note")).to_have_count(0)
    expect(page.locator(".dp-cdf-err-lattice_h [role=alert]")).to_have_count(0)
    # the off-lattice count only in the teacher view, labelled as not private
    expect(page.locator(".dp-cdf-off-lattice")).to_have_count(0)
    page.get_by_label(t("cdf.ctl.teacher", lang), exact=True).check()
    off = page.locator(".dp-cdf-off-lattice")
    expect(off).to_contain_text(": 0")
    expect(page.locator(".dp-cdf-teacher-box")).to_contain_text(t("cdf.teacher.title", lang))


def test_bad_eps_marks_the_plot_stale_until_fixed(page: Any, server: Server) -> None:
    open_cdf(page, server, "lang=en&n=2000")
    set_text(page, t("cdf.ctl.eps", "en"), "abc")
    note = page.locator(".dp-cdf-stale-note")
    expect(note).to_contain_text(t("cdf.stale", "en", fields="ε"))
    expect(page.locator(".dp-cdf-eps")).to_have_text("1")  # still the last valid release
    set_text(page, t("cdf.ctl.eps", "en"), "2")
    expect(note).to_have_count(0)
    expect(page.locator(".dp-cdf-eps")).to_have_text("2")


@pytest.mark.parametrize(("lang", "theme"), [("ko", "default"), ("en", "dark")])
def test_axe_on_auto_with_the_disabled_slider_and_a_stale_plot(page: Any, server: Server,
                                                               lang: str, theme: str) -> None:
    open_cdf(page, server, f"lang={lang}&theme={theme}&data=anes96_age&method=auto&gran=1"
                           "&teacher=1")
    expect(page.get_by_role("slider", name=t("cdf.ctl.degree_na", lang))).to_be_attached()
    expect(page.locator(".dp-cdf-degree-na")).to_be_visible()
    assert run_axe(page) == []
    set_text(page, t("cdf.ctl.lattice_h", lang), "5")
    expect(page.locator(".dp-cdf-stale-note")).to_be_visible()
    assert run_axe(page) == []
