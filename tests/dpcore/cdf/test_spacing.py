"""Declared spacing for whole numbers (issue 40): the suggestion, the release, the stream."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.cdf import estimate
from dpcore.cdf.lattice import check_granularity, whole_number_spacing
from dpcore.cdf.metrics import RefGrid, ecdf
from dpcore.cdf.streaming import PPCombiner


@settings(max_examples=60, deadline=None)
@given(lo=st.integers(-1000, 1000), width=st.integers(1, 5000),
       draws=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=50),
       as_float=st.booleans())
def test_whole_numbers_suggest_spacing_one_that_fits_the_bounds(
        lo: int, width: int, draws: list[float], as_float: bool) -> None:
    x = np.array([lo + round(d * width) for d in draws])
    x = x.astype(np.float64) if as_float else x.astype(np.int64)
    assert whole_number_spacing(x, (lo, lo + width)) == 1.0
    assert check_granularity((float(lo), float(lo + width)), 1.0).size == width + 1


@settings(max_examples=60, deadline=None)
@given(lo=st.integers(-100, 100), width=st.integers(1, 500),
       frac=st.floats(0.01, 0.99))
def test_a_fraction_or_fractional_bounds_suggest_nothing(lo: int, width: int,
                                                         frac: float) -> None:
    x = np.array([lo, lo + frac, lo + width], dtype=np.float64)
    assert whole_number_spacing(x, (lo, lo + width)) is None
    whole = np.array([lo, lo + width])
    assert whole_number_spacing(whole, (lo + frac, lo + width)) is None
    assert whole_number_spacing(np.array(["a", "b"]), (lo, lo + width)) is None
    assert whole_number_spacing(np.array([], dtype=np.int64), (lo, lo + width)) is None


def _ages(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.round(18.0 + 82.0 * rng.beta(2.0, 3.0, n))


@pytest.mark.parametrize(("gen", "bounds"), [
    (_ages, (18.0, 100.0)),
    (lambda r, n: np.minimum(r.poisson(3.0, n), 20).astype(float), (0.0, 20.0)),
    (lambda r, n: np.round(1000.0 * r.beta(2.0, 5.0, n)), (0.0, 1000.0)),
])
def test_declared_spacing_meets_ks_001_at_n_1e4_eps_2(gen, bounds) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(40)
    x = gen(rng, 10_000)
    h = whole_number_spacing(x, bounds)
    assert h == 1.0
    ref = RefGrid(ecdf(x), *bounds)
    for seed in range(3):
        est = estimate(x, bounds=bounds, eps=2.0, delta=1e-6, granularity=h, rng=seed)
        assert est.release.extra["granularity"] == 1.0  # the release records the declaration
        assert ref.distances(est).ks <= 0.01


def test_stream_with_declared_spacing_is_a_step_cdf_and_records_it() -> None:
    rng = np.random.default_rng(3)
    x = np.minimum(rng.poisson(3.0, 8000), 20).astype(float)
    x[:5] += 0.4  # off the lattice: rounded onto it and counted, not released
    comb = PPCombiner((0.0, 20.0), 2.0, 1e-6, granularity=1.0)
    plain = PPCombiner((0.0, 20.0), 2.0, 1e-6)
    for part in np.array_split(x, 4):
        comb.add_batch(part, rng=1)
        plain.add_batch(part, rng=1)
    est = comb.estimate()
    assert est.release.extra["granularity"] == 1.0
    assert est.release.extra["n_off_lattice"] == 5 == sum(comb.n_off_lattice)
    assert (est.eps, est.delta) == (plain.estimate().eps, plain.estimate().delta)
    k = np.arange(20.0)
    # constant on [k, k + 1): no mass between whole numbers
    np.testing.assert_array_equal(est(k), est(k + 0.999))
    assert np.all(np.diff(est(k)) >= 0.0) and est(20.0) == 1.0
    ref = RefGrid(ecdf(np.round(x)), 0.0, 20.0)
    assert ref.distances(est).ks < 0.5 * ref.distances(plain.estimate()).ks


def test_stream_spacing_is_checked_against_the_bounds() -> None:
    with pytest.raises(Exception, match="granularity"):
        PPCombiner((0.0, 10.5), 1.0, 1e-6, granularity=1.0)
