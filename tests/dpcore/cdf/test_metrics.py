"""dpcore.cdf.metrics: the shared evaluation grid and RefGrid (moved from the page)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.cdf import estimate
from dpcore.cdf.datasets import population_cdf, sample
from dpcore.cdf.metrics import METRIC_POINTS, RefGrid, distances, ecdf, evaluation_points
from dpcore.errors import DPError


def test_evaluation_points_merge_the_jumps_and_their_left_limits() -> None:
    ref = ecdf([0.25, 0.5, 0.5, 2.0])
    pts = evaluation_points(ref, 0.0, 1.0, 5)
    assert np.all(np.diff(pts) > 0)  # sorted, no repeats
    assert {0.0, 0.25, 0.5, 0.75, 1.0} <= set(pts.tolist())
    assert np.nextafter(0.25, 0) in pts and np.nextafter(0.5, 0) in pts
    assert 2.0 not in pts  # jumps outside [lo, hi] are left out
    smooth = evaluation_points(population_cdf("beta"), 0.0, 1.0)
    assert smooth.tolist() == np.linspace(0, 1, METRIC_POINTS).tolist()


def test_left_limit_below_lo_is_dropped() -> None:
    pts = evaluation_points(ecdf([0.0, 0.5]), 0.0, 1.0, 3)
    assert pts.min() == 0.0


@pytest.mark.parametrize(("lo", "hi", "size", "key"),
                         [(1.0, 0.0, 10, "bounds_order"), (0.0, 0.0, 10, "bounds_order"),
                          (0.0, float("inf"), 10, "out_of_range.any"),
                          (0.0, 1.0, 0, "out_of_range.whole")])
def test_evaluation_points_domain(lo: float, hi: float, size: int, key: str) -> None:
    with pytest.raises(DPError) as exc:
        evaluation_points(population_cdf("beta"), lo, hi, size)
    assert exc.value.key == key


def test_distances_keeps_its_message_for_bad_bounds() -> None:
    with pytest.raises(ValueError, match="lo must be < hi"):
        distances(population_cdf("beta"), population_cdf("beta"), 1.0, 0.0)


def test_refgrid_equals_distances_exactly() -> None:
    x = sample("bimodal", 3000, np.random.default_rng(1))
    est = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, method="pp", rng=2)
    for ref in (population_cdf("bimodal"), ecdf(x)):
        grid = RefGrid(ref, 0.0, 1.0)
        assert grid.distances(est) == distances(est, ref, 0.0, 1.0)
        assert grid.distances(est.with_degree(3)) == distances(est.with_degree(3), ref, 0.0, 1.0)
    assert RefGrid(ecdf(x), 0.0, 1.0).distances(ecdf(x)).ks == 0.0


def test_refgrid_rejects_a_reference_with_nan() -> None:
    with pytest.raises(DPError) as exc:
        RefGrid(lambda t: np.full(np.shape(t), np.nan), 0.0, 1.0)
    assert exc.value.key == "data_not_finite"
