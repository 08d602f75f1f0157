"""The simulation's draws and histograms (app.lab.compute ``_sim_draws``) are numpy's
``normal(0, sigma)`` draws of the seed and ``np.histogram``'s counts, bit for bit: the shared
sorted standard normals and the binary-search counts change the cost, not the numbers."""

from __future__ import annotations

import random

import numpy as np

from app.lab import compute


def reference(d: float, sigma: float, n: int, seed: int, lo: float, hi: float,
              bins: int) -> tuple[np.ndarray, ...]:
    # The implementation before the sharing (a sort and a histogram per sigma).
    rng = np.random.default_rng(seed)
    y0 = rng.normal(0.0, sigma, n)
    y1 = d + rng.normal(0.0, sigma, n)
    edges = np.linspace(lo, hi, bins + 1)
    width = edges[1] - edges[0]
    h0 = np.histogram(y0, edges)[0] / (n * width)
    h1 = np.histogram(y1, edges)[0] / (n * width)
    return edges, h0, h1, np.sort(y0), np.sort(y1)


def test_draws_and_histograms_equal_numpys() -> None:
    rnd = random.Random(3)
    for _ in range(120):
        sigma = 10 ** rnd.uniform(-3, 3)
        d = rnd.choice([0.0, 1.0, 0.01, 37.5, 1e-6])
        n = rnd.choice([1, 10, 100, 5000])
        seed = rnd.randrange(1000)
        lo, hi = -4 * sigma, d + 4 * sigma
        if rnd.random() < 0.3:  # a window that leaves draws outside
            lo, hi = -1.3 * sigma, d + 0.7 * sigma
        got = compute._sim_draws.__wrapped__(d, sigma, n, seed, lo, hi, 40)
        for a, b in zip(reference(d, sigma, n, seed, lo, hi, 40), got, strict=True):
            assert np.array_equal(a, b)


def test_bin_counts_on_the_edges() -> None:
    edges = np.linspace(-1.0, 1.0, 5)  # -1, -0.5, 0, 0.5, 1
    y = np.sort(np.array([-2.0, -1.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.0, 1.5]))
    assert np.array_equal(compute._bin_counts(y, edges), np.histogram(y, edges)[0])
    assert compute._bin_counts(y, edges).tolist() == [2, 1, 2, 3]
