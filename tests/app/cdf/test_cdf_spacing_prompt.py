"""/cdf: an uploaded column of whole numbers gets the value spacing OFFERED (issue 40).

Off by default, one click to accept, said to be a public choice like the bounds (both languages);
the release records it; the stream section honours it.  Page objects, no browser.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.cdf import upload as up
from app.cdf.page import CDFPage
from app.cdf.state import CDFState
from app.shell.i18n import t

AGES = b"age,score\n" + b"".join(f"{20 + i % 50},{(i % 7) / 2}\n".encode() for i in range(3000))


def _column(values: list[float]) -> up.Column:
    arr = np.asarray(values, dtype=np.float64)
    return up.Column("c", arr, (), 0, arr.size)


@pytest.mark.parametrize(("values", "lo", "hi", "want"), [
    ([20.0, 21.0, 69.0], 0.0, 100.0, 1.0),  # whole numbers, whole bounds
    ([20.0, 21.5, 69.0], 0.0, 100.0, None),  # a half: not whole numbers
    ([20.0, 21.0, 69.0], 0.5, 100.0, None),  # bounds that are not whole
    ([20.0, 21.0, 69.0], None, 100.0, None),  # bounds not chosen yet
    ([20.0, 21.0, 69.0], 100.0, 0.0, None),  # bad bounds
    ([-3.0, 0.0, 2.0], -10.0, 10.0, 1.0),
])
def test_suggest_spacing(values: list[float], lo: float | None, hi: float | None,
                         want: float | None) -> None:
    assert up.suggest_spacing(_column(values), lo, hi) == want


def test_a_column_with_bad_cells_gets_no_suggestion() -> None:
    col = up.Column("c", np.asarray([1.0, 2.0]), (up.BadCell(3, "x", "text"),), 1, 3)
    assert up.suggest_spacing(col, 0.0, 10.0) is None


def _page(lang: str) -> tuple[CDFState, CDFPage]:
    state = CDFState()
    page = CDFPage(state=state, lang=lang)
    page._on_upload("class.csv", AGES)
    assert state.dataset == "upload" and state.upload_column == "age"
    return state, page


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_whole_numbers_offer_the_spacing_off_by_default_and_one_click_declares_it(
        lang: str) -> None:
    state, page = _page(lang)
    # no bounds yet: nothing to offer (the spacing is checked against the public bounds)
    assert page.spacing_suggestion() is None and not page.w_spacing.visible
    page._input("upload_lo", "0")
    page._input("upload_hi", "100")
    assert page.spacing_suggestion() == 1.0
    assert page.w_spacing.visible and page.spacing_note.visible
    assert page.w_spacing.label == t("cdf.up.spacing.accept", lang, h="1")
    note = page.spacing_note.object
    assert "age" in note and "{" not in note
    # off by default: the release does not use it
    assert not state.lattice and state.granularity() is None
    first = state.current()
    assert "granularity" not in first.release.extra
    releases = state.ledger().releases
    # one click
    page.w_spacing.clicks += 1
    assert state.lattice and state.granularity() == 1.0
    est = state.current()
    assert est.release.extra["granularity"] == 1.0  # the release records it
    assert est(30.0) == est(30.99)  # a staircase on whole numbers
    assert state.ledger().releases == releases + 1  # a new release, on the same ledger
    assert state.url_query()["gran"] == "1"
    # declared: no longer offered
    assert page.spacing_suggestion() is None and not page.w_spacing.visible
    assert not page.spacing_note.visible


def test_the_note_says_public_choice_like_the_bounds_in_both_languages() -> None:
    en = t("cdf.up.spacing.suggest", "en", column="age", h="1")
    ko = t("cdf.up.spacing.suggest", "ko", column="age", h="1")
    assert "public choice" in en and "bounds" in en and "off" in en
    assert "공개" in ko and "범위" in ko and "꺼져" in ko
    assert t("cdf.up.spacing.accept", "ko", h="1") != t("cdf.up.spacing.accept", "en", h="1")


def test_a_column_that_is_not_whole_numbers_is_not_offered() -> None:
    state, page = _page("en")
    page._input("upload_lo", "0")
    page._input("upload_hi", "100")
    page._input("upload_column", "score")  # halves
    assert state.upload_column == "score"
    assert page.spacing_suggestion() is None and not page.w_spacing.visible
    page._accept_spacing()  # nothing to accept: nothing changes
    assert not state.lattice


def test_the_stream_honours_the_declared_spacing() -> None:
    state = CDFState()
    assert state.load_upload("class.csv", AGES) is None
    assert state.set_input("upload_lo", "0") is None and state.set_input("upload_hi", "100") is None
    state.set_input("stream_parts", "3")
    state.set_input("stream_steps", "2")
    assert len(state.stream()) == 2
    assert state._stream is not None and state._stream.combiner.granularity is None
    cont = state.stream_estimates()
    assert cont is not None and "granularity" not in cont[0].release.extra
    assert state.set_input("lattice", "1") is None and state.granularity() == 1.0
    assert len(state.stream()) == 2  # a new stream on the lattice
    st = state._stream
    assert st is not None and st.combiner.granularity == 1.0
    pp_est, aq_est = state.stream_estimates() or (None, None)
    assert pp_est is not None and aq_est is not None
    assert pp_est.release.extra["granularity"] == 1.0
    assert aq_est.release.extra["granularity"] == 1.0
    assert pp_est(30.0) == pp_est(30.99) and aq_est(30.0) == aq_est(30.99)
    # an earlier step (rebuilt from the first releases) keeps the spacing too
    state.set_input("stream_steps", "1")
    early = state.stream_estimates()
    assert early is not None and early[0].release.extra["granularity"] == 1.0
