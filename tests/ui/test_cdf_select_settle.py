"""Browser tests of /cdf (issue 39): a native select whose every change is a release (the
method, the data source) releases once its value settles, as the ε slider does: arrow presses
on the focused select are one release after the pause (or at once on Enter), an option picked
from the list is released at once, and the choice not yet released is said in a live region.
Both languages; polling with expect() (no fixed sleeps)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from app.cdf.inputs import DATASETS, METHOD_CHOICES
from app.shell.i18n import t
from ui.conftest import Server
from ui.test_cdf_settle_ui import open_cdf, releases


def press_and_wait(page: Any, note: Any, label: str, booked: Any) -> None:
    """One arrow press on the focused select, then wait until the server has had it: its
    note names the choice as not yet released, or (as before the fix) ``booked`` shows it
    was released at once. The presses come as a student's do, each one seen by the server."""
    page.keyboard.press("ArrowDown")
    expect(note.filter(has_text=label).or_(booked).first).to_be_visible()


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_arrow_presses_on_the_method_select_are_one_release(page: Any, server: Server,
                                                           lang: str) -> None:
    open_cdf(page, server, f"lang={lang}&n=2000&eps=1&method=auto")
    expect(releases(page)).to_have_text("1")
    select = page.get_by_label(t("cdf.ctl.method", lang), exact=True)
    note = page.locator(".dp-cdf-method-note .dp-cdf-choice-pending")
    label = {m: t(f"cdf.method.{m}", lang) for m in METHOD_CHOICES}
    order = list(METHOD_CHOICES)
    assert order[:5] == ["auto", "pp", "mp", "hq", "aq"]
    select.focus()
    for i, m in enumerate(order[1:4], start=1):
        booked = releases(page).filter(has_text=re.compile(rf"^{i + 1}$"))
        press_and_wait(page, note, label[m], booked)
        if i < 3:  # not released yet: the ledger has not moved, the live region says so
            expect(releases(page)).to_have_text("1")
            expect(note).to_have_text(t("cdf.ctl.select_pending", lang, choice=label[m],
                                        released=label["auto"]))
    # the pause after the last press: one release (HQ), not three (PP, MP, HQ)
    expect(page).to_have_url(re.compile(r"[?&]method=hq(&|$)"))
    expect(note).to_have_text("")
    expect(releases(page)).to_have_text("2")
    expect(note).to_have_attribute("role", "status")
    expect(select).to_have_value(label["hq"])
    # Enter on the select releases the choice shown (one more release)
    page.keyboard.press("ArrowDown")
    expect(note).to_have_text(t("cdf.ctl.select_pending", lang, choice=label["aq"],
                                released=label["hq"]))
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]method=aq(&|$)"))
    expect(releases(page)).to_have_text("3")
    expect(note).to_have_text("")
    # an option picked from the list is released at once (as before)
    select.select_option(label=label["pp"])
    expect(page).to_have_url(re.compile(r"[?&]method=pp(&|$)"))
    expect(releases(page)).to_have_text("4")
    expect(page.locator(".dp-cdf-degree")).to_have_count(1)
    expect(note).to_have_text("")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_arrow_presses_on_the_data_select_open_one_data_source(page: Any, server: Server,
                                                               lang: str) -> None:
    assert DATASETS[:4] == ("beta", "bimodal", "uniform", "anes96_age")
    open_cdf(page, server, f"lang={lang}&data=beta&n=2000&eps=1&method=pp")
    rows = page.locator(".dp-cdf-sources tbody tr")
    expect(rows).to_have_count(1)
    select = page.get_by_label(t("cdf.ctl.dataset", lang), exact=True)
    note = page.locator(".dp-cdf-dataset-note .dp-cdf-choice-pending")
    select.focus()
    for i, d in enumerate(DATASETS[1:4], start=1):
        # before the fix each press released on a data source of its own (a row each)
        press_and_wait(page, note, t(f"cdf.data.{d}", lang), rows.nth(i))
    expect(page).to_have_url(re.compile(r"[?&]data=anes96_age(&|$)"))
    # two data sources with releases: the first and the one the presses settled on
    expect(rows).to_have_count(2)
    expect(releases(page)).to_have_text("1")
    expect(note).to_have_text("")
