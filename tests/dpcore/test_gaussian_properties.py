"""Property tests (hypothesis) of the Gaussian profile and its inverses."""

from __future__ import annotations

import math
import os

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import gaussian as g

eps_s = st.floats(min_value=0.0, max_value=1e4, allow_nan=False)
small_eps = st.floats(min_value=0.0, max_value=50.0, allow_nan=False)
h_s = st.floats(min_value=1e-6, max_value=1e3, allow_nan=False)
log10_delta_s = st.floats(min_value=-300.0, max_value=-0.01, allow_nan=False)
# DPLAB_HYPOTHESIS_EXAMPLES=5000 for a thorough run; the suite's default keeps it quick.
SET = settings(max_examples=int(os.environ.get("DPLAB_HYPOTHESIS_EXAMPLES", "300")), deadline=None)


@SET
@given(eps_s, h_s)
def test_delta_is_a_probability_and_log_is_finite(eps, h):
    ld = g.log_delta(eps, h, 1.0)
    assert math.isfinite(ld) and ld <= 0.0
    assert 0.0 <= g.delta(eps, h, 1.0) <= 1.0


@SET
@given(eps_s, eps_s, h_s)
def test_non_increasing_in_eps(e1, e2, h):
    lo, hi = min(e1, e2), max(e1, e2)
    assert g.log_delta(hi, h, 1.0) <= g.log_delta(lo, h, 1.0) + 1e-15 * abs(g.log_delta(lo, h, 1.0))


@SET
@given(eps_s, h_s, h_s)
def test_non_decreasing_in_sensitivity_over_sigma(eps, h1, h2):
    lo, hi = min(h1, h2), max(h1, h2)
    a, b = g.log_delta(eps, lo, 1.0), g.log_delta(eps, hi, 1.0)
    assert b >= a - 1e-15 * abs(a)


@SET
@given(small_eps, log10_delta_s, st.floats(min_value=1e-3, max_value=1e3))
def test_calibrate_then_delta_round_trip(eps, log10_target, sens):
    target = 10.0**log10_target
    sigma = g.calibrate_sigma(eps, target, sens)
    ld = g.log_delta(eps, sens, sigma)
    assert ld <= math.log(target)  # conservative
    assert ld >= math.log(target) - 1e-9 * max(1.0, abs(math.log(target)))  # and tight


@SET
@given(small_eps, h_s)
def test_epsilon_delta_round_trip(eps, h):
    ld = g.log_delta(eps, h, 1.0)
    target = math.exp(ld)
    if not 0.0 < target < 1.0:
        return
    e = g.epsilon(target, h, 1.0)
    back = g.log_delta(e, h, 1.0)
    assert back <= math.log(target)  # conservative
    if e > 0.0:  # and tight (in delta: eps itself is ill-conditioned where delta is flat)
        assert back >= math.log(target) - 1e-12 * max(1.0, abs(math.log(target)))


loguni_h = st.floats(min_value=-2.0, max_value=1.0).map(lambda x: 10.0**x)


@SET
@given(st.floats(min_value=0.0, max_value=10.0), loguni_h)
def test_vector_and_scalar_paths_agree_where_students_are(eps, h):
    """Classroom points (h log-uniform in [0.01, 10]): the vectorised integral path (blocks,
    Gauss-Legendre in ln u) gives the scalar value to ~1 ulp, inside the scalar error bound."""
    import numpy as np

    s = g.log_delta(eps, h, 1.0)
    vv = float(g.log_delta(np.array([eps]), h, 1.0)[0])
    assert abs(vv - s) <= 1e-15 * max(1.0, abs(s))
    ld, lo, hi = g.log_delta_bounds(eps, h, 1.0)
    assert lo <= ld <= hi and hi - lo <= 1e-13 * max(1.0, abs(ld))


@SET
@given(st.floats(min_value=0.0, max_value=50.0), st.floats(min_value=1.0, max_value=15.6),
       st.floats(min_value=1e-3, max_value=1e3))
def test_calibrate_near_delta_one_is_relative(eps, k, sens):
    """Targets 1 - 10^-k: the margin is relative to |ln delta| (issue 10, item 4)."""
    target = 1.0 - 10.0**-k
    if target >= 1.0:
        return
    sigma = g.calibrate_sigma(eps, target, sens)
    ld = g.log_delta(eps, sens, sigma)
    lt = math.log(target)
    assert ld <= lt
    assert ld >= lt * (1 + 1e-12)  # within 1e-12 of |ln target|, however small it is


@settings(max_examples=200, deadline=None)
@given(d=st.floats(0.0, 1e6), s=st.floats(1e-6, 1e6),
       y=st.lists(st.floats(-1e7, 1e7), min_size=1, max_size=20))
def test_densities_are_scipys_doubles(d: float, s: float, y: list[float]) -> None:
    """densities() skips scipy.stats' argument handling, not its arithmetic: same doubles."""
    from scipy.stats import norm

    p, q = g.densities(y, d, s)
    with np.errstate(over="ignore"):
        assert np.array_equal(p, norm.pdf(y, 0.0, s))
        assert np.array_equal(q, norm.pdf(y, d, s))
