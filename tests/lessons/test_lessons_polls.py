"""The Gaussian lesson's section on local vs central DP (issue 21, "Accounting, said once and
right"): its numbers are the ones the room's projector computes (app.room.poll), and it points
to the activities."""

from __future__ import annotations

import math

import pytest

import lessons
from app.room import poll as P


def _v() -> dict[str, str]:
    return lessons.values("gaussian")


def test_widths_are_the_projectors() -> None:
    v = _v()
    n, eps = int(v["rr_n"]), math.log(3.0)
    assert eps == pytest.approx(P.DEFAULT_EPS) and P.DEFAULT_DELTA == 1e-5
    cmp_ = P.comparison(eps, P.DEFAULT_DELTA, n)
    # the projector prints percentages with one decimal (poll_render.pct)
    assert v["rr_local_pp"] == f"{100 * cmp_['local']:.1f}"
    assert v["rr_central_pp"] == f"{100 * cmp_['central']:.1f}"
    assert v["rr_gauss_pp"] == f"{100 * cmp_['gaussian']:.1f}"
    assert v["rr_width_ratio"] == f"{cmp_['ratio']:.1f}"
    assert v["rr_needed"] == f"{math.ceil(cmp_['n_needed']):,}"
    big = P.comparison(eps, P.DEFAULT_DELTA, int(v["rr_n4"]))
    assert v["rr_local_pp_4n"] == f"{100 * big['local']:.1f}"
    assert v["rr_width_ratio_4n"] == f"{big['ratio']:.1f}"
    assert float(v["rr_local_sd"]) == pytest.approx(P.local_sd(eps, n), rel=0.02)
    assert float(v["rr_keep_pct"]) == pytest.approx(100 * P.keep_probability(eps))
    assert float(v["rr_lr"]) == pytest.approx(P.likelihood_ratio(eps))


def test_ledger_is_the_rooms() -> None:
    v = _v()
    eps = math.log(3.0)
    scale, sens = P.central_scale(eps, P.DEFAULT_DELTA, "gaussian")
    step = P.central_step({"mech": "gaussian", "sensitivity": sens, "scale": scale, "eps": eps,
                           "delta": P.DEFAULT_DELTA})
    led = P.ledger([{"eps": step.eps, "delta": step.delta, "mu": step.mu}] * 2, P.DEFAULT_DELTA)
    assert led["rule"] == "gdp"
    assert float(v["rr_ledger2_eps"]) == pytest.approx(led["eps"], rel=5e-3)
    assert float(v["rr_basic2_eps"]) == pytest.approx(led["basic_eps"], rel=5e-3)
    assert float(v["rr_gauss_sigma"]) == pytest.approx(scale, rel=5e-3)


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_section_points_to_the_activities(lang: str) -> None:
    les = lessons.load("gaussian", lang)
    sec = next(s for s in les.sections if s.id == "local-central")
    for needle in ("`/teach`", "`/join?room=CODE`", "#exercise-ex-sites", "#bridge"):
        assert needle in sec.body, needle
    assert any(row.sections == ("local-central",) or list(row.sections) == ["local-central"]
               for row in les.plan)
    assert "q-local-width" in {q.id for q in les.quiz}
