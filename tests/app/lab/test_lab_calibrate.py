"""σ from what people care about (issue 41, 3), full-width digits shown normalised (issue 39) and
the tour's attacker step with its live-class question (issue 41, 4), without a browser."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import lessons
from app.lab.card import card_html
from app.lab.controls import calibration_text, control_values, up_text
from app.lab.page import LabPage
from app.lab.state import LabState
from app.lab.tour import TourState
from app.room.questions import question_text
from app.shell.i18n import t
from app.shell.numbers import fmt_input
from dpcore import gaussian, queries, tradeoff


def values(page: LabPage) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(page.controls.panel.values)
    return out


def test_sigma_from_a_hit_rate_is_dpcores_conservative_sigma() -> None:
    s = LabState()
    s.set_text("delta", "1e-5")
    assert s.set_text("calib_tpr", "10") is None and s.set_text("calib_fpr", "5 %") is None
    assert s.calibrate("tpr") is None
    cal = tradeoff.calibrate_sigma_tpr(0.10, 0.05, 1.0, 1e-5)
    assert s.sigma == cal.sigma  # the rounded-up σ itself, every digit
    assert tradeoff.tpr(0.05, 1.0 / s.sigma) <= 0.10
    assert s.attack_fpr == 0.05  # the attacker's view reads at the calibration's FPR
    now = s.calibration_now()
    assert now is not None and now["eps"] == cal.eps and now["delta"] == "1e-5"
    assert s.url_query()["sigma"] == fmt_input(cal.sigma)
    line = calibration_text(s, "en")
    assert fmt_input(cal.sigma) in line and "sum units" in line
    assert "10 %" in line and "5 %" in line and f"ε = {up_text(cal.eps or 0)}" in line
    assert "10%" in calibration_text(s, "ko") and "5%" in calibration_text(s, "ko")
    # the ε shown is never below the ε that holds
    assert float(up_text(cal.eps or 0)) >= (cal.eps or 0)
    # the line follows the claim, and goes once σ moves on
    s.set_text("delta", "0")
    assert "no finite ε" in calibration_text(s, "en")
    s.set_text("sigma", "3")
    assert s.calibration_now() is None and calibration_text(s, "en") == ""


def test_sigma_from_an_accepted_error_keeps_the_promise() -> None:
    s = LabState()
    s.set_query("mean")
    assert s.set_text("calib_error", "０.２") is None  # full-width digits
    assert s.calib_error == 0.2
    assert s.calibrate("error") is None
    d = queries.sensitivity("mean", 4, 1.0)
    cal = tradeoff.calibrate_sigma_error(0.2, d)
    assert s.sigma == cal.sigma and tradeoff.Z95 * s.sigma <= 0.2
    line = calibration_text(s, "en")
    assert "± 0.2 mean units" in line and fmt_input(cal.sigma) in line
    eps = gaussian.epsilon(0.13, d, cal.sigma)
    assert f"ε = {up_text(eps)}" in line


@pytest.mark.parametrize(("field", "text", "key"), [
    ("calib_tpr", "0", "lab.err.calib_tpr"),
    ("calib_tpr", "100", "lab.err.calib_tpr"),
    ("calib_fpr", "-5", "lab.err.calib_fpr"),
    ("calib_fpr", "abc", "lab.err.not_number"),
    ("calib_error", "0", "lab.err.calib_error"),
    ("calib_error", "", "lab.err.empty"),
])
def test_a_bad_calibration_input_changes_nothing(field: str, text: str, key: str) -> None:
    s = LabState()
    before = s.url_query()
    assert s.set_text(field, text) == (key, s.errors[field][1])
    kind = "error" if field == "calib_error" else "tpr"
    # the calibration refuses while its field holds a rejected text (no old value is used)
    assert s.calibrate(kind) is not None
    assert s.url_query() == before and s.sigma == 1.0 and s.calibrated == {}
    assert field not in control_values(s, "en")["fields"]  # the typed text stays shown
    assert "dp-stale" not in card_html(s, s.certification(), "en")  # the release is as it was


def test_whole_calibration_errors_sit_at_the_target_and_clear() -> None:
    s = LabState()
    s.set_text("calib_fpr", "20")  # above the 10 % target
    assert s.calibrate("tpr") == ("lab.err.calib_order", {})
    assert s.errors == {"calib_tpr": ("lab.err.calib_order", {})} and s.sigma == 1.0
    s.set_text("calib_fpr", "20")  # the same text again (a browser's change after Enter)
    assert s.errors == {"calib_tpr": ("lab.err.calib_order", {})}
    s.set_text("calib_fpr", "3")  # a field of the group fixed: the message goes
    assert s.errors == {}
    assert s.calibrate("tpr") is None and s.sigma > 1.0
    s.set_query("const")
    assert s.calibrate("error") == ("lab.err.calib_const", {})
    s.set_query("sum")
    s.set_text("calib_error", "1e-9")  # σ far below the lab's range
    sigma = s.sigma
    assert s.calibrate("error") is not None
    assert s.errors["calib_error"][0] == "lab.err.calib_range" and s.sigma == sigma
    for lang in ("ko", "en"):
        assert t("lab.err.calib_range", lang, lo=1e-6, hi=1e6)


def test_the_sidebar_applies_a_calibration_and_shows_its_line() -> None:
    page = LabPage(LabState(), "en")
    page.controls.receive({"k": "text", "c": "calib_tpr", "v": "２０", "n": 1})
    page.controls.receive({"k": "calib", "v": "tpr", "n": 2})
    v = values(page)
    cal = tradeoff.calibrate_sigma_tpr(0.20, 0.05, 1.0)
    assert page.state.sigma == cal.sigma
    assert v["fields"]["calib_tpr"] == "20" and v["fields"]["sigma"] == fmt_input(cal.sigma)
    assert v["calib"].startswith(f"New σ = {fmt_input(cal.sigma)} sum units")
    assert f'σ = <span class="dp-sigma">{fmt_input(cal.sigma)}</span>' in page.card.object
    page.controls.receive({"k": "calib", "v": "nonsense", "n": 3})  # ignored
    assert page.state.sigma == cal.sigma


@pytest.mark.parametrize(("control", "typed", "shown"), [
    ("sigma", "１.５", "1.5"), ("eps", "２", "2"), ("delta", "１ｅ－６", "1e-6"),
    ("calib_fpr", "２.５％", "2.5"), ("n", "８", "8")])
def test_full_width_digits_are_shown_normalised_once_accepted(control: str, typed: str,
                                                              shown: str) -> None:
    page = LabPage(LabState(), "en")
    page.controls.receive({"k": "text", "c": control, "v": typed, "n": 1})
    assert page.state.errors == {}
    assert values(page)["fields"][control] == shown
    # the same text again (nothing changes in the state): the field is still told its text
    page.controls.receive({"k": "text", "c": control, "v": typed, "n": 2})
    assert values(page)["fields"][control] == shown and values(page)["ack"] == 2


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_the_attacker_step_reveals_a_computed_tpr(lang: str) -> None:
    steps = lessons.tour(lang)
    k = next(i for i, s in enumerate(steps, 1) if s.id == "attack-tpr")
    step = steps[k - 1]
    lab = LabState()
    tour = TourState(steps, lab)
    tour.go(k)
    assert tour.concealed  # the card and the attacker's view wait for the prediction
    want = tradeoff.tpr(0.05, lab.sensitivity / lab.sigma)  # this step's σ and Δ
    shown = f"{want:.4g}"
    assert step.answer is not None and shown in step.options[step.answer]
    assert all(shown not in o for i, o in enumerate(step.options) if i != step.answer)
    assert step.reveal is not None and shown in step.reveal
    assert str(math.ceil(100 * want)) in step.reveal  # "at most 26 in 100"
    tour.predict(step.answer)
    assert not tour.concealed
    # the live class asks it as it asks every prediction step (kind "tour", its number)
    q = question_text("tour", str(k), lang)
    assert q is not None and q.answer == step.answer and shown in q.options[q.answer]


def test_both_tours_have_the_same_steps() -> None:
    ko, en = lessons.tour("ko"), lessons.tour("en")
    assert [s.id for s in ko] == [s.id for s in en]
    assert [(s.lab, s.answer) for s in ko] == [(s.lab, s.answer) for s in en]
