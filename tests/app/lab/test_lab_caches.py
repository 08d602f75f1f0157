"""The caches added for classroom scale (issue 11) change no value and share nothing mutable."""

from __future__ import annotations

import numpy as np
import pytest

from app.lab import compute as lc


def test_curve_cache_returns_the_same_values_as_a_fresh_computation() -> None:
    a = lc.curve_view(1.0, 1.3, 0.7, 1e-5, 0.0, 10.0, "log10")
    b = lc.curve_view(1.0, 1.3, 2.5, 1e-5, 0.0, 10.0, "log10")
    assert a.y is b.y  # an eps move reuses the sigma-only arrays
    fresh = lc._curve_arrays.__wrapped__(1.0, 1.3, 0.0, 10.0, "log10", lc.CURVE_POINTS)
    np.testing.assert_array_equal(a.y, fresh[1])
    np.testing.assert_array_equal(a.laplace, fresh[2])
    assert a.current_eps == 0.7 and b.current_eps == 2.5
    assert a.current_log10 != b.current_log10
    with pytest.raises(ValueError):
        a.y[0] = 0.0  # shared between sessions: read-only


def test_density_and_simulation_caches_keep_eps_dependent_parts_fresh() -> None:
    d1 = lc.density_view(1.0, 2.0, 0.5)
    d2 = lc.density_view(1.0, 2.0, 1.5)
    assert d1.x is d2.x and d1.p is d2.p
    assert d1.t != d2.t and len(d1.event[0]) != len(d2.event[0])
    s1 = lc.simulation(1.0, 2.0, 0.5, 5000, 7, -8.0, 9.0)
    s2 = lc.simulation(1.0, 2.0, 1.5, 5000, 7, -8.0, 9.0)
    assert s1.hist0 is s2.hist0
    # Counts below t equal a direct count on freshly drawn releases.
    rng = np.random.default_rng(7)
    y0 = rng.normal(0.0, 2.0, 5000)
    y1 = 1.0 + rng.normal(0.0, 2.0, 5000)
    for s in (s1, s2):
        assert s.k0 == int(np.count_nonzero(y0 < s.t))
        assert s.k1 == int(np.count_nonzero(y1 < s.t))
    big = lc.simulation(1.0, 2.0, 0.5, lc.SIM_CACHE_MAX_N + 1, 7, -8.0, 9.0)
    assert big.n == lc.SIM_CACHE_MAX_N + 1
