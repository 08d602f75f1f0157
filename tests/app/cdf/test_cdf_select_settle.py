"""/cdf page objects (no browser): a select whose every change is a release (method, data
source, uploaded column) books a choice only once it settles, as the ε slider does (issue 39):
each change is pending and restarts the pause; the browser's "settled" (an option picked,
Enter) releases at once. The pause itself is run by hand here (the page's _after_pause)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.cdf import controls_settle
from app.cdf.page import CDFPage
from app.cdf.state import CDFState
from app.shell.i18n import t

LANGS = ["ko", "en"]
UPLOAD = b"age,height\n" + b"".join(f"{20 + i % 50},{150 + i % 40}\n".encode()
                                     for i in range(400))


def paused_page(lang: str, **state: object) -> tuple[CDFPage, list[Callable[[], None]]]:
    """A page whose pauses wait until the test runs them (as a session's timer would)."""
    page = CDFPage(state=CDFState(n=2000, **state), lang=lang)
    due: list[Callable[[], None]] = []

    def later(fn: Callable[[], None]) -> bool:
        due.append(fn)
        return True

    page._after_pause = later  # type: ignore[method-assign]
    return page, due


def label(page: CDFPage, name: str, value: str) -> str:
    return next(k for k, v in page._select_options(name).items() if v == value)


def test_the_selects_that_spend_are_watched() -> None:
    assert set(controls_settle.SETTLING_SELECTS) == {"dataset", "method", "upload_column"}
    page = CDFPage(state=CDFState(n=2000), lang="en")
    for name, cls in controls_settle.SETTLING_SELECTS.items():
        note = page.select_notes[name]
        assert note.slider_class == cls and note.control_kind == "select"
        assert cls in page._select(name).css_classes
        assert note in page.sidebar()


@pytest.mark.parametrize("lang", LANGS)
def test_three_arrow_presses_on_the_method_are_one_release(lang: str) -> None:
    page, due = paused_page(lang, method="auto")
    state = page.state
    assert state.ledger().releases == 1
    for m in ("pp", "mp", "hq"):
        page.w_method.value = m  # one arrow press (the select sends each value)
        assert state.method == "auto" and state.ledger().releases == 1
        assert page.select_notes["method"].text == t(
            "cdf.ctl.select_pending", lang, choice=label(page, "method", m),
            released=label(page, "method", "auto"))
    assert len(due) == 3 and page.select_pending == {"method": "hq"}
    for fn in due[:2]:
        fn()  # an earlier press's pause: a later press restarted it
    assert state.method == "auto" and state.ledger().releases == 1
    due[2]()  # the pause after the last press
    assert state.method == "hq" and state.ledger().releases == 2
    assert page.select_pending == {} and page.select_notes["method"].text == ""
    assert page.w_method.value == "hq"


def test_an_option_picked_or_enter_releases_at_once() -> None:
    page, due = paused_page("en", method="auto")
    state, note = page.state, page.select_notes["method"]
    # the browser's word may come before the change itself (one websocket, two handlers)
    note._handle_msg({"kind": "settle", "value": label(page, "method", "mp")})
    assert state.method == "mp" and state.ledger().releases == 2 and due == []
    page.w_method.value = "mp"  # the change arriving late is the released choice
    assert page.select_pending == {} and state.ledger().releases == 2 and due == []
    page.w_method.value = "aq"
    note._handle_msg({"kind": "settle", "value": label(page, "method", "aq")})  # Enter
    assert state.method == "aq" and state.ledger().releases == 3 and note.text == ""
    for fn in due:
        fn()  # the pause of the change that Enter settled: nothing more
    assert state.ledger().releases == 3
    for bad in ({"kind": "settle", "value": "no such option"}, {"kind": "settle", "value": 2.0},
                {"kind": "settle"}, "junk", {"kind": "settle", "value": ""}):
        note._handle_msg(bad)
    assert state.method == "aq" and state.ledger().releases == 3
    assert page.error.object == ""


def test_back_at_the_released_choice_and_buttons_replace_a_pending_one() -> None:
    page, due = paused_page("en", method="pp")
    state = page.state
    page.w_method.value = "mp"
    page.w_method.value = "pp"  # back where the release is: nothing to release
    assert page.select_pending == {} and page.select_notes["method"].text == ""
    for fn in due:
        fn()
    assert state.method == "pp" and state.ledger().releases == 1
    page.w_method.value = "hq"
    page._input("method", "all")  # "compare all methods" while HQ is pending
    assert page.select_pending == {} and state.method == "all"
    for fn in due:
        fn()
    assert state.method == "all"


def test_a_pending_choice_stays_in_its_select_while_the_page_refreshes() -> None:
    page, due = paused_page("en", method="pp")
    page.w_method.value = "mp"
    page.state.new_noise()  # another release meanwhile (the page syncs its widgets)
    assert page.w_method.value == "mp" and page.select_pending == {"method": "mp"}
    due[-1]()
    assert page.state.method == "mp" and page.w_method.value == "mp"


@pytest.mark.parametrize("lang", LANGS)
def test_data_source_and_uploaded_column_wait_too(lang: str) -> None:
    page, due = paused_page(lang, dataset="beta")
    state = page.state
    for d in ("bimodal", "uniform", "anes96_age"):
        page.w_dataset.value = d
    assert state.dataset == "beta" and len(state.sources()) == 1
    due[-1]()
    assert state.dataset == "anes96_age" and len(state.sources()) == 2
    page._on_upload("class.csv", UPLOAD)  # a file: the page switches to it (no select)
    page.w_lo.value = "0"
    page.w_hi.value = "300"
    assert state.upload_column == "age" and state.upload_problem() is None
    before = state.ledger().releases
    page.w_column.value = "height"
    assert state.upload_column == "age" and state.ledger().releases == before
    assert page.select_notes["upload_column"].text == t(
        "cdf.ctl.select_pending", lang, choice="height", released="age")
    due[-1]()
    assert state.upload_column == "height" and state.ledger().releases == before + 1


def test_without_a_session_a_choice_is_released_at_once() -> None:
    """Scripts and the other page tests set a select and read the state at once."""
    page = CDFPage(state=CDFState(n=2000), lang="en")
    page.w_method.value = "mp"
    assert page.state.method == "mp" and page.select_pending == {}


def test_an_upload_drops_a_pending_data_source() -> None:
    page, due = paused_page("en", dataset="beta")
    page.w_dataset.value = "uniform"
    page._on_upload("class.csv", UPLOAD)  # the page switches to the file
    assert page.select_pending == {} and page.select_notes["dataset"].text == ""
    for fn in due:
        fn()
    assert page.state.dataset == "upload" and page.w_dataset.value == "upload"
