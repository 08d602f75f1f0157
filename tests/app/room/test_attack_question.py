"""The live class can ask what δ means to an attacker (issue 41, item 4): the tour's attacker
step and the Gaussian lesson's three attacker questions are class questions in both languages,
their right option carrying the hit rate computed by dpcore (not a number typed in a text)."""

from __future__ import annotations

import pytest

import lessons
from app.room.questions import question_text, quiz_refs
from dpcore import tradeoff

ATTACK_QUIZ = ("gaussian:q-attack-hits", "gaussian:q-attack-line", "gaussian:q-attack-delta")


def _attack_step() -> int:
    ids = [s.id for s in lessons.tour("en")]
    return ids.index("attack-tpr") + 1


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_the_tour_attacker_step_is_a_class_question(lang: str) -> None:
    step = lessons.tour(lang)[_attack_step() - 1]
    lab = step.lab
    mu = float(lab["B"]) / float(lab["sigma"])  # the sum: Δ = B
    tpr = tradeoff.tpr(0.05, mu)
    qt = question_text("tour", str(_attack_step()), lang)
    assert qt is not None
    assert qt.answer is not None and len(qt.options) == 3
    # the right option names the computed rate to four digits, the others do not
    shown = f"{tpr:.4f}"
    assert shown in qt.options[qt.answer], (shown, qt.options)
    assert all(shown not in o for i, o in enumerate(qt.options) if i != qt.answer)
    assert "$" not in qt.text and "\\" not in qt.text  # plain text on a phone


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_the_attacker_quiz_questions_can_be_asked(lang: str) -> None:
    refs = quiz_refs()
    for ref in ATTACK_QUIZ:
        assert ref in refs
        qt = question_text("quiz", ref, lang)
        assert qt is not None and qt.answer is not None
        quiz = {q.id: q for q in lessons.load("gaussian", lang).quiz}
        q = quiz[ref.split(":", 1)[1]]
        assert q.options[qt.answer].correct
        assert len(qt.options) == len(q.options)
        assert all("$" not in o for o in qt.options)
