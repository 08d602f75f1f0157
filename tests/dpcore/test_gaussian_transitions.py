"""dpcore.gaussian at every point where its formula switches (docs/math.md#switch-points).

Each test evaluates just below, at and just above one switch (relative steps of 1e-9) and checks
that the code really takes different branches on the two sides, that every value is within the
evaluation's proven error bound of the mpmath reference (and within 1e-13 relative), that the
jump across the switch is the true change of ln delta, and that the vectorised path agrees.
References: tests/reference/transition_reference.json, made by
tests/reference/make_transition_reference.py.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

from dpcore import gaussian as g

REFERENCE = Path(__file__).parents[1] / "reference"  # tests/reference
_DATA = json.loads((REFERENCE / "transition_reference.json").read_text())
SIDES = ("below", "at", "above")
U = 2.0**-53

Point = tuple[float, float, str]  # eps, h, ln delta (45 digits)
POINTS: dict[str, dict[str, Point]] = {}
for _row in _DATA["rows"]:
    POINTS.setdefault(_row["switch"], {})[_row["side"]] = (
        float.fromhex(_row["eps"]), float.fromhex(_row["h"]), _row["ln_delta"])


def _check(switch: str) -> dict[str, g.Evaluation]:
    """Evaluate the three points of ``switch``; accuracy, bound, continuity, vector path."""
    pts = POINTS[switch]
    evs = {side: g.evaluate(pts[side][0], pts[side][1]) for side in SIDES}
    for side in SIDES:
        ev, ref = evs[side], float(mp.mpf(pts[side][2]))
        err = abs(ev.log_delta - ref)
        assert err <= ev.error, (switch, side, err, ev.error)
        assert err <= 1e-13 * max(1.0, abs(ref)), (switch, side, err)
        assert ev.lo <= ref <= ev.hi
    with mp.workdps(50):
        true_jump = float(mp.mpf(pts["above"][2]) - mp.mpf(pts["below"][2]))
    jump = evs["above"].log_delta - evs["below"].log_delta
    slack = 2.0 * U * max(abs(evs["above"].log_delta), abs(evs["below"].log_delta))
    assert abs(jump - true_jump) <= evs["above"].error + evs["below"].error + slack, switch
    eps = np.array([pts[s][0] for s in SIDES])
    h = np.array([pts[s][1] for s in SIDES])
    vec = g.log_delta(eps, h, 1.0)  # h = sensitivity / 1.0 exactly
    for i, side in enumerate(SIDES):
        ref = float(mp.mpf(pts[side][2]))
        assert abs(vec[i] - ref) <= 1e-13 * max(1.0, abs(ref)), (switch, side, "vector")
    return evs


def _branch(ev: g.Evaluation) -> tuple[str, int, int]:
    return ev.path, ev.nodes, ev.cf_depth


def test_reference_covers_every_switch_with_three_sides() -> None:
    assert len(POINTS) == 27
    assert all(set(p) == set(SIDES) for p in POINTS.values())


def test_path_transition_at_a_zero() -> None:
    """a = h/2 - eps/h = 0 (h = 1): path B (a > 0, 1 - delta as a sum) / path A (a <= 0)."""
    evs = _check("a_zero")
    assert evs["below"].path == "B" and evs["below"].a > 0.0
    assert evs["above"].path == "A" and evs["above"].a < 0.0


@pytest.mark.parametrize("x", [1.0, 3.0])
def test_direct_difference_transition_at_q_0_8(x: float) -> None:
    """q = R(x+h)/R(x) = Q_DIRECT = 0.8 for x < 4: the integral below h0, path A above."""
    evs = _check(f"q_0_8_x{x:g}")
    assert g.Q_DIRECT == 0.8
    assert evs["below"].path == "C" and evs["above"].path == "A"
    assert evs["above"].q <= g.Q_DIRECT


def test_continued_fraction_transition_at_x_4() -> None:
    """x = CF_FROM = 4 with h = 0.01: m directly below, from its continued fraction above."""
    evs = _check("x_4_small_h")
    assert g.CF_FROM == 4.0
    assert _branch(evs["below"])[::2] == ("C", 0)
    assert evs["above"].path == "C" and evs["above"].cf_depth > 0


def test_split_rule_transition_at_x_4() -> None:
    """x = 4 with h = 0.2: the A/C rule changes from q <= 0.8 (q = 0.92 here: path C) to
    h >= 0.034 x (0.2 >= 0.136: path A)."""
    evs = _check("x_4_split_rule")
    assert evs["below"].path == "C" and evs["above"].path == "A"


@pytest.mark.parametrize("x", [10.0, 1000.0])
def test_direct_difference_transition_at_h_0_034x(x: float) -> None:
    """h = H_OVER_X x = 0.034 x for x >= 4: the integral below, path A above."""
    evs = _check(f"h_0_034x_x{x:g}")
    assert g.H_OVER_X == 0.034
    assert evs["below"].path == "C" and evs["above"].path == "A"
    assert evs["above"].q <= 0.9704  # the proven cancellation limit of path A there


def test_complement_transition_at_s_0_8() -> None:
    """s = 1 - delta = 0.8 for a > 0 (h = 0.6): path B below, the integral above."""
    evs = _check("s_0_8")
    assert evs["below"].path == "B" and evs["below"].q <= g.Q_DIRECT
    assert evs["above"].path == "C" and evs["above"].a > 0.0


@pytest.mark.parametrize(("tau", "nodes"), [("5e-5", (2, 3)), ("1.3e-3", (3, 4)),
                                            ("6e-3", (4, 8))])
def test_gauss_legendre_transition_at_tau(tau: str, nodes: tuple[int, int]) -> None:
    """tau = (h/2)/d at 5e-5, 1.3e-3 and 6e-3 (x = 1 < 4): 2 -> 3 -> 4 -> 8 points."""
    evs = _check(f"tau_{tau}")
    assert (evs["below"].nodes, evs["above"].nodes) == nodes
    assert evs["below"].path == evs["above"].path == "C"


@pytest.mark.parametrize(("limit", "nodes"), [("lv_4_5e-10_x2", (1, 2)),
                                              ("lv_3_5e-5_x", (2, 3)), ("lv_0_0075", (3, 4))])
def test_log_rule_transition_at_lv(limit: str, nodes: tuple[int, int]) -> None:
    """Lv = ln(1 + h/x) at 4.5e-10 x^2, 3.5e-5 x and 0.0075 (x = 10): 1 -> 2 -> 3 -> 4 points
    of the rule in v = ln u."""
    evs = _check(limit)
    assert (evs["below"].nodes, evs["above"].nodes) == nodes
    assert evs["below"].cf_depth == evs["above"].cf_depth > 0


@pytest.mark.parametrize("x", [5, 6, 7, 9, 13, 17, 26, 36, 56, 100, 240, 1200])
def test_continued_fraction_depth_transition_at_x(x: int) -> None:
    """The continued fraction's depth falls at each of its range limits (h = 0.01 x)."""
    evs = _check(f"cf_depth_x{x}")
    assert evs["below"].path == evs["above"].path == "C"
    assert evs["below"].cf_depth > evs["above"].cf_depth > 0


def test_small_dl_series_transition_at_dl_2_pow_minus_1000() -> None:
    """dl = TINY_H = 2^-1000 (x = 1): ln(1 - e^-dl) by its series below, directly above."""
    evs = _check("dl_2_pow_-1000")
    assert evs["below"].q <= g.TINY_H < evs["above"].q
    assert evs["below"].path == evs["above"].path == "C"


def test_vector_path_handover_transition_at_h_2_pow_minus_1000() -> None:
    """h = TINY_H: below it the vectorised log_delta hands elements to the scalar path."""
    hs = [g.TINY_H * (1 - 1e-9), g.TINY_H, g.TINY_H * (1 + 1e-9)]
    eps = [h * (1.0 + h / 2) for h in hs]
    for big in (False, True):  # with a large h too, the others take the mixed branch
        e = np.array(eps + ([1.0] if big else []))
        hh = np.array(hs + ([2.0] if big else []))
        vec = g.log_delta(e, hh, 1.0)
        for i in range(3):
            ev = g.evaluate(eps[i], hs[i])
            assert abs(vec[i] - ev.log_delta) <= ev.error, (i, big)
    lds = [g.evaluate(e, h).log_delta for e, h in zip(eps, hs, strict=True)]
    assert lds[0] < lds[1] < lds[2]  # delta grows with h
    assert all(math.isfinite(x) for x in lds)
