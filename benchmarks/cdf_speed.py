"""Speed of private CDF estimation against the issue-4 targets and a named baseline.

Targets (issue 4): PP on n = 10^6 with K_max = 64 under 0.3 s; changing the degree
re-evaluates in under 5 ms on a 512-point grid.  Issue 22: the default method "auto" on
n = 10^6 under 0.3 s, in each of its bands (histogram, trees of depth 4 and 5, a public lattice);
baseline = PP (K_max = 64) on the same data in the same run.
Baselines measured in the same run:
* coefficients: numpy.polynomial.legendre.legvander on all n points (an n x (K+2) matrix)
  instead of the blocked in-place recurrence;
* degree change: rebuilding the basis matrix for every change instead of the cached one.
Prints medians over repeats and the ratios.  Run: python benchmarks/cdf_speed.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from dpcore.cdf import estimate, legendre, pp
from dpcore.cdf.common import finish_grid


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def legvander_coefficients(x: np.ndarray, k_max: int) -> np.ndarray:
    """Baseline: the same c_k from a full Vandermonde matrix of P_0..P_{K+1}."""
    v = np.polynomial.legendre.legvander(2 * x - 1, k_max + 1)
    s = v.sum(axis=0)
    k = np.arange(1, k_max + 1)
    c = np.empty(k_max + 1)
    c[0] = 1 - x.mean()
    c[1:] = -(s[2:] - s[:-2]) / (2 * np.sqrt(2 * k + 1)) / x.size
    return c


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.beta(2, 5, 1_000_000)
    estimate(x[:1000], bounds=(0, 1), eps=1, delta=1e-6, method="pp", rng=0)  # warm caches

    t_pp = median_time(
        lambda: estimate(x, bounds=(0, 1), eps=1, delta=1e-6, method="pp", rng=1, k_max=64), 7
    )
    t_coef = median_time(lambda: legendre.coefficients(x, 64), 7)
    t_base = median_time(lambda: legvander_coefficients(x, 64), 3)
    assert np.allclose(legendre.coefficients(x, 64), legvander_coefficients(x, 64), atol=1e-12)
    print(
        f"PP estimate, n=1e6, K_max=64: {t_pp * 1e3:.1f} ms  (target 300 ms; "
        f"ratio to target {t_pp / 0.3:.2f})"
    )
    print(
        f"  coefficients only: {t_coef * 1e3:.1f} ms; baseline legvander: {t_base * 1e3:.1f} ms"
        f"  (speed-up x{t_base / t_coef:.1f})"
    )

    est = estimate(x, bounds=(0, 1), eps=1, delta=1e-6, method="pp", rng=1, k_max=64)
    grid = np.linspace(0, 1, 512)
    degrees = [3, 10, 20, 40, 64, 7, 15]
    counter = iter(range(10**9))

    def change_degree() -> None:
        k = degrees[next(counter) % len(degrees)]
        est.with_degree(k)(grid)

    def change_degree_uncached() -> None:
        # same work (evaluate, isotonic, clip, interpolate) but the basis is rebuilt each time
        k = degrees[next(counter) % len(degrees)]
        c = est.release.values[: k + 1]
        t = np.linspace(0, 1, 1025)
        vals = legendre.basis(t, k) @ c
        np.interp(grid, t, finish_grid(vals))

    t_deg = median_time(change_degree, 50)
    t_unc = median_time(change_degree_uncached, 50)
    print(
        f"degree change + evaluation on 512 points: {t_deg * 1e3:.2f} ms  (target 5 ms; "
        f"ratio to target {t_deg / 0.005:.2f}); baseline rebuilding the basis: "
        f"{t_unc * 1e3:.2f} ms"
    )
    t_auto = median_time(lambda: pp.auto_degree(est.release.values, 1e-6), 50)
    print(f"automatic degree rule alone: {t_auto * 1e6:.0f} us")

    # the default "auto" on n = 10^6, one case per band of auto_plan_v2
    xl = np.round(x * 100) / 100  # on the lattice of step 0.01
    cases = [("histogram, n eps = 1e3", x, 0.001, None),
             ("tree depth 4, n eps = 1e5", x, 0.1, None),
             ("tree depth 5, n eps = 1e6", x, 1.0, None),
             ("tree depth 5, n eps = 8e6", x, 8.0, None),
             ("lattice h = 0.01, n eps = 1e6", xl, 1.0, 0.01)]
    worst = 0.0
    for label, data, eps, h in cases:
        def run(data: np.ndarray = data, eps: float = eps, h: float | None = h) -> object:
            return estimate(data, bounds=(0, 1), eps=eps, delta=1e-6, rng=1, granularity=h)
        run()  # warm (plans and caches of public numbers)
        t = median_time(run, 7)
        worst = max(worst, t)
        est_a = estimate(data, bounds=(0, 1), eps=eps, delta=1e-6, rng=1, granularity=h)
        plan = est_a.info["plan"]
        print(f"auto, n=1e6, {label} ({plan.method}, {plan.k_max} cells): {t * 1e3:.1f} ms"
              f"  (target 300 ms; ratio {t / 0.3:.2f}; PP baseline ratio {t / t_pp:.2f})")
    print(f"auto, n=1e6, slowest band: {worst * 1e3:.1f} ms (target 300 ms)")


if __name__ == "__main__":
    main()
