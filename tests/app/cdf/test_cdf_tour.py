"""The guided tour of /cdf (issue 18 §4): steps from lessons/cdftour.<lang>.toml set the page,
ask a prediction, then show the change; checked without a browser."""

from __future__ import annotations

import re

import pytest

import lessons
from app.cdf.state import CDFState
from app.cdf.tour import CDFTourPanel, CDFTourState, attach
from app.shell.i18n import t

TYPED = re.compile(r"(?<![\w.{])(\d+\.\d+|\d{4,}(?:\.\d+)?)(?![\w}])")


def _significant(lit: str) -> int:  # as tests/lessons/test_lessons.py counts them
    digits = lit.replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if "." not in lit else len(digits)


def test_same_steps_in_both_languages() -> None:
    ko, en = lessons.read_source("cdftour", "ko"), lessons.read_source("cdftour", "en")
    assert [s["id"] for s in ko["step"]] == [s["id"] for s in en["step"]]
    for a, b in zip(ko["step"], en["step"], strict=True):
        assert a["start"] == b["start"] and a.get("cdf") == b.get("cdf"), a["id"]
        assert a.get("answer") == b.get("answer") and len(a["options"]) == len(b["options"])
    ids = [s["id"] for s in ko["step"]]
    assert ids == ["slider-cost", "new-seed", "auto-hist", "isotonic", "ledger-all"]


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_no_number_typed_by_hand(lang: str) -> None:
    for s in lessons.read_source("cdftour", lang)["step"]:
        for text in (s["title"], s["body"], s.get("predict", ""), s.get("reveal", ""),
                     *s.get("options", [])):
            plain = re.sub(r"\{\{[^}]*\}\}", "", text)
            hits = [m.group(1) for m in TYPED.finditer(plain) if _significant(m.group(1)) >= 4]
            assert hits == [], (s["id"], hits)


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_every_step_state_is_a_valid_page(lang: str) -> None:
    for step in lessons.cdf_tour(lang):
        for st in (step.start, step.cdf):
            assert CDFState().apply_url(st) == [], (step.id, st)


def test_predict_then_reveal_changes_the_page() -> None:
    state = CDFState()
    ts = CDFTourState(lessons.cdf_tour("en"), state)
    ts.go(1)  # slider: degree 10, then 40 at the reveal
    assert (state.degree, state.auto_degree, ts.revealed) == (10, False, False)
    before = state.ledger().releases
    ts.predict(ts.current.answer)  # type: ignore[union-attr]
    assert ts.revealed and state.degree == 40
    after = state.ledger().releases
    assert after == before  # the slider costs nothing
    ts.go(2)  # new seed: one more release on the same data
    state.release()
    n1 = state.ledger().releases
    ts.reveal()
    assert state.noise_seed == 2
    state.release()
    assert state.ledger().releases == n1 + 1
    ts.go(3)
    ts.predict(0)  # a wrong prediction still shows the change
    assert (state.n, state.eps, state.method) == (1000, 0.1, "auto")
    assert state.auto_plan() is not None and state.auto_plan().method == "hq"  # type: ignore[union-attr]
    ts.go(99)
    assert ts.step == ts.total
    ts.go(0)
    assert ts.step == 0 and ts.current is None


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_panel_text(lang: str) -> None:
    state = CDFState()
    ts = CDFTourState(lessons.cdf_tour(lang), state)
    panel = CDFTourPanel(ts, lang)
    assert not panel.panel.visible and panel.opener.visible
    ts.go(1)
    assert panel.panel.visible and "dp-tour-step" in panel.panel.css_classes
    assert t("tour.count", lang, k=1, n=ts.total) in panel.text.object
    assert len(panel.options.objects) == 3 and panel.reveal_btn.visible
    ts.predict(1)
    assert panel.options.objects == [] and "dp-tour-reveal" in panel.text.object
    panel.on_key("ArrowRight")
    assert ts.step == 2
    panel.on_key("ArrowLeft")
    assert ts.step == 1


def test_bad_tour_value_is_a_notice() -> None:
    objs, notices, ts = attach(CDFState(), "en", "seven")
    assert ts is not None and ts.step == 0 and len(objs) == 3
    assert notices == [("cdf.url.bad", {"name": "tour", "value": "seven"})]
    _, notices, ts = attach(CDFState(), "en", "2")
    assert notices == [] and ts is not None and ts.step == 2
