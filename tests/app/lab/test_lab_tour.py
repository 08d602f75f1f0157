"""The guided tour's state logic (no browser): steps set the lab, predictions conceal the card."""

from __future__ import annotations

import pytest

import lessons
from app.lab.state import LabState
from app.lab.tour import TourState
from dpcore import certify


def _step(i: int, lab: dict[str, str], predict: bool) -> lessons.TourStep:
    return lessons.TourStep(
        id=f"s{i}", title=f"Step {i}", body="Look at the card.", lab=lab,
        predict="Will it pass?" if predict else None,
        options=("yes", "no") if predict else (), answer=1 if predict else None,
        reveal="It fails: the required delta is larger." if predict else None)


STEPS = (
    _step(1, {"q": "sum", "n": "4", "B": "1", "sigma": "1", "eps": "1", "delta": "0.13"}, False),
    _step(2, {"q": "sum", "n": "4", "B": "1", "sigma": "1", "eps": "1", "delta": "0.126"}, True),
    _step(3, {"q": "mean", "n": "32", "B": "1", "sigma": "10", "eps": "10", "delta": "0"}, False),
)


def test_go_sets_the_lab_to_the_step_exactly() -> None:
    lab = LabState()
    lab.set_text("n", "17")  # something the step must undo
    tour = TourState(STEPS, lab)
    tour.go(3)
    assert (lab.query, lab.n, lab.B, lab.sigma, lab.eps, lab.delta) == ("mean", 32, 1.0, 10.0,
                                                                       10.0, 0.0)
    c = certify.certify(lab.query, lab.n, lab.B, lab.sigma, lab.eps, lab.delta)
    assert c.underflow and c.mathematically_positive and not c.passes
    assert tour.step == 3 and not tour.concealed


def test_prediction_conceals_until_answered_then_records_choice() -> None:
    lab = LabState()
    tour = TourState(STEPS, lab)
    tour.go(2)
    assert tour.concealed and tour.choice == -1
    tour.predict(5)  # out of range: ignored
    assert tour.concealed
    tour.predict(0)
    assert not tour.concealed and tour.choice == 0 and tour.revealed
    # Coming back to the step asks again.
    tour.next()
    tour.back()
    assert tour.step == 2 and tour.concealed and tour.choice == -1


def test_next_back_clamp_and_close() -> None:
    tour = TourState(STEPS, LabState())
    tour.back()
    assert tour.step == 0  # closed tour: back does nothing
    tour.go(1)
    tour.back()
    assert tour.step == 1
    for _ in range(10):
        tour.next()
    assert tour.step == len(STEPS)
    tour.go(99)
    assert tour.step == len(STEPS)
    tour.go(0)
    assert tour.step == 0 and tour.current is None and not tour.concealed


def test_reveal_without_predicting() -> None:
    tour = TourState(STEPS, LabState())
    tour.go(2)
    tour.reveal()
    assert not tour.concealed and tour.choice == -1


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_the_real_tour_loads_and_every_step_is_a_valid_lab_state(lang: str) -> None:
    steps = lessons.tour(lang)
    assert len(steps) >= 9
    assert sum(s.predict is not None for s in steps) >= 4
    tour = TourState(steps, LabState())
    for k in range(1, len(steps) + 1):
        tour.go(k)
        assert tour.lab.notices == [], (steps[k - 1].id, tour.lab.notices)
        assert tour.lab.errors == {}
        for name, value in steps[k - 1].lab.items():
            assert tour.lab.url_query()[name] == value, (steps[k - 1].id, name)
