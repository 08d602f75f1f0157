"""The attacker's view (issue 41): its numbers are dpcore.tradeoff's, the claim's cap is the
(ε, δ) trade-off bound, the curve leaves the cap exactly when the card's verdict fails (the
duality δ(ε) = sup over α of 1 − e^ε α − β(α)), the sentence in words rounds in the attacker's
favour, a refused FPR keeps the last accepted one, and the figure's message is shared by pages
in the same state. No browser."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from app.lab import texts
from app.lab.compute import cap_tpr, tradeoff_view
from app.lab.page import LabPage
from app.lab.state import LabState
from app.lab.views import per_base
from dpcore import gaussian, tradeoff


def test_the_view_carries_dpcores_rates() -> None:
    tv = tradeoff_view(1.0, 1.0, 1.0, 0.13, 0.05)
    assert tv.mu == 1.0
    assert tv.tpr_at == tradeoff.tpr(0.05, 1.0)
    assert abs(tv.tpr_at - 0.2595110228414441) < 1e-15  # Φ(Φ⁻¹(0.05) + 1)
    assert tv.adv_at == tradeoff.advantage(0.05, 1.0)
    assert tv.best_adv == tradeoff.best_advantage(1.0)
    inner = (tv.alpha > 0) & (tv.alpha < 1)
    # (the picture's grid from tpr_curve: tpr's values to a few ulps)
    want = [tradeoff.tpr(float(a), 1.0) for a in tv.alpha[inner]]
    assert np.allclose(tv.tpr[inner], want, rtol=1e-14, atol=0.0)
    assert np.all(np.diff(tv.tpr) >= 0) and np.all(tv.tpr >= tv.alpha - 1e-15)


def test_the_cap_is_the_eps_delta_bound() -> None:
    a = np.array([0.0, 0.01, 0.3, 0.9, 1.0])
    eps, delta = 1.0, 0.1
    want = [min(1.0, delta + math.e * x, 1.0 - math.exp(-1.0) * (1.0 - delta - x)) for x in a]
    assert np.allclose(cap_tpr(a, eps, delta), want, rtol=0, atol=1e-15)
    assert cap_tpr(0.0, 0.0, 0.0) == 0.0 and cap_tpr(0.4, 0.0, 0.0) == pytest.approx(0.4)


@pytest.mark.parametrize(("sigma", "eps"), [(1.0, 1.0), (0.5, 2.0), (2.0, 0.3), (1.0, 3.0)])
def test_the_curve_leaves_the_cap_exactly_when_the_claim_fails(sigma: float, eps: float
                                                                ) -> None:
    need = gaussian.delta(eps, 1.0, sigma)
    for claimed, fails in ((need * 1.05, False), (need * 0.8, True)):
        tv = tradeoff_view(1.0, sigma, eps, claimed, 0.05)
        assert tv.above_cap is fails, (sigma, eps, claimed)


def test_the_sentence_rounds_for_the_attacker_and_the_text_names_its_parts() -> None:
    tv = tradeoff_view(1.0, 1.0, 1.0, 0.13, 0.05)
    en = texts.tradeoff_text(tv, 1.0, 0.13, "0.13", "pass", per_base(0.05), "en")
    assert "allowed 5 false alarms in 100 catches at most 26 in 100" in en  # 25.95 -> 26
    assert 'class="dp-attack-tpr"' in en and 'class="dp-attack-advantage"' in en
    assert "at most 21 in 100" in en  # TPR − FPR = 0.2095 -> 21
    assert "0.3829249225" in en and "claim holds" in en
    ko = texts.tradeoff_text(tv, 1.0, 0.13, "0.13", "fail", per_base(0.05), "ko")
    assert "100번 중 많아야 26번" in ko and "성립하지 않으며" in ko
    one = texts.tradeoff_text(tradeoff_view(1.0, 1.0, 1.0, 0.13, 0.01), 1.0, 0.13, "0.13",
                              "pass", per_base(0.01), "en")
    assert "allowed 1 false alarm in 100" in one
    assert per_base(0.05) == 100 and per_base(0.001) == 1000 and per_base(1e-6) == 10**6


def test_a_refused_fpr_keeps_the_last_one_and_says_why() -> None:
    s = LabState()
    assert s.set_attack_fpr("0.01") and s.attack_fpr == 0.01 and s.attack_text == ""
    for bad in ("0", "1", "1.5", "-0.1", "abc", ""):
        assert not s.set_attack_fpr(bad)
        assert s.attack_fpr == 0.01 and s.attack_text
    assert s.set_attack_fpr("１e-6") and s.attack_fpr == 1e-6  # full-width digits


def test_the_page_shows_it_and_followers_share_its_message() -> None:
    a, b = LabPage(LabState(), "en"), LabPage(LabState(), "en")
    a.refresh()
    b.refresh()
    assert a.attack_plot.message is b.attack_plot.message  # one string per worker and state
    data = json.loads(a.attack_plot.message)
    assert data["pt"] == [0.05, tradeoff.tpr(0.05, 1.0)] and data["error"] == ""
    assert "dp-attack-tpr" in data["html_text"]  # the text equivalent, in the message
    a._fpr_typed("2")
    a.refresh_plots({"attack_text"})
    data = json.loads(a.attack_plot.message)
    assert data["error"] and "2" in data["error"] and data["fpr_text"] == "0.05"
    a._fpr_typed("0.2")
    a.refresh_plots({"attack_fpr"})
    data = json.loads(a.attack_plot.message)
    assert data["error"] == "" and data["pt"][0] == 0.2
    a.state.sigma = 2.0  # it moves with the other controls
    a.refresh_plots({"sigma"})
    assert json.loads(a.attack_plot.message)["pt"][1] == tradeoff.tpr(0.2, 0.5)


def test_the_cap_at_one_fpr_is_the_grids_cap_exactly() -> None:
    """compute.cap_at (floats, the texts' table and the attacker's point) is cap_tpr's value
    bit for bit, also where a term saturates (ε beyond 700, δ = 0 or 1, α = 0 or 1)."""
    from app.lab.compute import cap_at

    for eps in (0.0, 1e-9, 0.3, 1.0, 7.5, 700.0, 800.0):
        for delta in (0.0, 1e-12, 0.13, 1.0):
            for a in (0.0, 1e-4, 0.05, 0.5, 0.999, 1.0):
                assert cap_at(a, eps, delta) == float(cap_tpr(a, eps, delta)), (a, eps, delta)
