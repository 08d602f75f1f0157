"""/cdf page objects (no browser): a slider value is a release only once it settles; a bound
being typed is never overwritten; the n field names the uploaded data; bounds that leave out
every record get a neutral note; the ledger's numbers never break inside (issue 39)."""

from __future__ import annotations

import re

import param
import pytest

from app.cdf import controls_settle, views
from app.cdf.page import CDFPage
from app.cdf.state import CDFState
from app.shell.i18n import t

LANGS = ["ko", "en"]
UPLOAD = b"age\n" + b"".join(f"{20 + i % 50}\n".encode() for i in range(400))


def slide(page: CDFPage, value: float) -> None:
    """One step of the ε slider as the browser sends it (value_throttled, one per key press)."""
    w = page.w_eps_slider
    with param.edit_constant(w):
        w.param.update(value=value, value_throttled=value)


@pytest.mark.parametrize("lang", LANGS)
def test_six_arrow_steps_are_one_release_once_settled(lang: str) -> None:
    state = CDFState(n=2000)
    page = CDFPage(state=state, lang=lang)
    assert state.ledger().releases == 1 and page.eps_note.text == ""
    for i in range(1, 7):
        slide(page, round(1 + 0.05 * i, 2))
        # each step is pending: nothing released, nothing booked, and it says so
        assert state.eps == 1.0 and state.ledger().releases == 1
        assert page.eps_note.text == t("cdf.ctl.eps_pending", lang, eps=f"{1 + 0.05 * i:g}",
                                       released="1")
    assert page.eps_pending == 1.3 and page.w_eps_slider.value == 1.3
    page.settle_eps()  # the pause after the last step (SETTLE_MS)
    assert state.eps == 1.3 and state.ledger().releases == 2
    assert page.eps_pending is None and page.eps_note.text == ""
    assert '<span class="dp-cdf-total-eps">' in page.privacy.object
    page.settle_eps()  # nothing pending: nothing more
    assert state.ledger().releases == 2


def test_pointer_up_or_enter_releases_at_once_and_a_step_back_cancels() -> None:
    state = CDFState(n=2000)
    page = CDFPage(state=state, lang="en")
    slide(page, 2.0)
    page.eps_note._handle_msg({"kind": "settle", "value": 2.0})  # Enter on the handle
    assert state.eps == 2.0 and state.ledger().releases == 2 and page.eps_note.text == ""
    # the "settled" word may come before the step itself (one websocket, two handlers)
    page.eps_note._handle_msg({"kind": "settle", "value": 2.5})
    assert state.eps == 2.5 and state.ledger().releases == 3
    slide(page, 2.5)  # the step arriving late is the released value: nothing pending
    assert page.eps_pending is None and state.ledger().releases == 3
    slide(page, 2.55)
    slide(page, 2.5)  # back where the release is: nothing to release
    assert page.eps_pending is None and page.eps_note.text == ""
    page.settle_eps()
    assert state.ledger().releases == 3
    for bad in ({"kind": "settle", "value": "x"}, {"kind": "settle"}, "junk",
                {"kind": "settle", "value": float("nan")}):
        page.eps_note._handle_msg(bad)
    assert state.eps == 2.5 and state.ledger().releases == 3


def test_a_typed_eps_replaces_the_pending_slider_value() -> None:
    state = CDFState(n=2000)
    page = CDFPage(state=state, lang="en")
    slide(page, 3.0)
    page.w_eps.value = "0.5"
    assert state.eps == 0.5 and page.eps_pending is None and page.eps_note.text == ""
    page.settle_eps()
    assert state.eps == 0.5 and state.ledger().releases == 2


def test_settle_pause_is_a_few_hundred_ms() -> None:
    assert 300 <= controls_settle.SETTLE_MS <= 1000


def _uploaded(lang: str) -> tuple[CDFState, CDFPage]:
    state = CDFState(n=2000)
    page = CDFPage(state=state, lang=lang)
    page._on_upload("class.csv", UPLOAD)
    page.w_dataset.value = "upload"
    page.w_lo.value = "0"
    page.w_hi.value = "100"
    assert state.upload_problem() is None and (state.upload_lo, state.upload_hi) == (0, 100)
    return state, page


def test_bounds_typed_quickly_end_with_fields_state_and_errors_agreeing() -> None:
    state, page = _uploaded("en")
    before = state.ledger().releases
    page.w_lo.value = "200"  # above the old upper bound: rejected, the field keeps "200"
    assert "upload_lo" in page._errors and page.w_lo.value == "200"
    page.w_hi.value = "300"  # now the pair is good: both are used, none overwritten
    assert (state.upload_lo, state.upload_hi) == (200.0, 300.0)
    assert (page.w_lo.value, page.w_hi.value) == ("200", "300") and not page._errors
    assert page.err["upload_lo"].object == page.err["upload_hi"].object == ""
    assert state.ledger().releases == before + 1  # one release for the pair


def test_a_bound_being_typed_is_never_overwritten() -> None:
    state, page = _uploaded("en")
    page.w_hi.value = "abc"  # rejected: the field keeps the text, with its message
    assert "upload_hi" in page._errors and page.w_hi.value == "abc"
    page.w_hi.value_input = "5"  # the student is typing a new upper bound ...
    page.w_lo.value = "10"  # ... when the lower one, committed, arrives
    assert state.upload_lo == 10.0
    assert page.w_hi.value == "abc" and page.w_hi.value_input == "5"
    page.w_hi.value = "50"  # committed: checked as usual, and the server may write again
    assert state.upload_hi == 50.0 and "upload_hi" not in page._errors
    assert "upload_hi" not in page._editing
    page._use_range()  # a button: both fields take the data's range
    lo, hi = state.data_range() or (None, None)
    assert page.w_lo.value == f"{lo:g}" and page.w_hi.value == f"{hi:g}"


@pytest.mark.parametrize("lang", LANGS)
def test_n_field_names_the_uploaded_data(lang: str) -> None:
    state = CDFState(n=2000)
    page = CDFPage(state=state, lang=lang)
    assert page.w_n.name == t("cdf.ctl.n", lang)
    _state, page = _uploaded(lang)
    assert page.w_n.name == t("cdf.ctl.n_upload", lang) != t("cdf.ctl.n", lang)
    assert page.w_n.value == "400" and page.w_n.disabled
    page.w_dataset.value = "penguins_mass"
    assert page.w_n.name == t("cdf.ctl.n_real", lang)
    page.w_dataset.value = "bimodal"
    assert page.w_n.name == t("cdf.ctl.n", lang)


@pytest.mark.parametrize("lang", LANGS)
def test_bounds_that_leave_out_every_record_say_so(lang: str) -> None:
    state, page = _uploaded(lang)
    assert "dp-cdf-none-inside" not in page.upload_status.object
    page.w_hi.value = "300"
    page.w_lo.value = "200"
    assert (state.upload_lo, state.upload_hi) == (200, 300) and state.upload_problem() is None
    note = page.upload_status.object
    assert "dp-cdf-none-inside" in note and 'role="note"' in note
    assert views.e(t("cdf.up.none_inside", lang, lo="200", hi="300")) in note
    page.w_lo.value = "60"  # one record inside again: no note
    assert "dp-cdf-none-inside" not in page.upload_status.object


@pytest.mark.parametrize("lang", LANGS)
def test_ledger_numbers_are_in_nowrap_spans(lang: str) -> None:
    state = CDFState(n=2000)
    html = views.privacy_html(state, lang)
    assert '<span class="dp-cdf-total-delta">' in html and state.ledger().rule == "gdp"
    basic = re.search(r'dp-cdf-basic">(.*?)</div>', html, re.S)
    assert basic is not None and '<span class="dp-cdf-num">1e-06</span>' in basic.group(1)
    # the Gaussian detail line: its δ too, and no Korean particle glued to it
    assert html.count('<span class="dp-cdf-num">1e-06</span>') == 2
    assert not re.search(r"1e-06[가-힣]", html + views.sources_html(state, lang))
    css = views.CSS
    rule = re.search(r"([^}]*\.dp-cdf-total-delta[^{]*)\{([^}]*)\}", css)
    assert rule is not None and "white-space: nowrap" in rule.group(2)
    assert ".dp-cdf-num" in rule.group(1) and ".dp-cdf-delta" in rule.group(1)
    assert re.search(r"\.dp-cdf-sources td[^{]*\{\s*white-space: nowrap", css)
