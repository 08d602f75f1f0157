"""dpcore.cdf.degree_errors: int F_n^2 and the error-against-degree sums (moved from the page)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.cdf import estimate, legendre
from dpcore.cdf.common import clip_data
from dpcore.cdf.degree_errors import degree_errors, integral_sq_ecdf
from dpcore.errors import DPError


def test_integral_sq_ecdf_small_cases_exactly() -> None:
    # F_n = 1/2 on [0.25, 0.75), 1 on [0.75, 1]: (1/2)^2 * 0.5 + 1 * 0.25
    assert integral_sq_ecdf([0.75, 0.25]) == 0.25 * 0.5 + 0.25
    assert integral_sq_ecdf([0.0, 0.0]) == 1.0
    assert integral_sq_ecdf([1.0, 1.0]) == 0.0


def test_integral_sq_ecdf_against_a_fine_grid() -> None:
    t = np.random.default_rng(3).uniform(size=500)
    u = (np.arange(200_000) + 0.5) / 200_000
    f_n = np.searchsorted(np.sort(t), u, side="right") / t.size
    assert integral_sq_ecdf(t) == pytest.approx(np.mean(f_n**2), rel=1e-4)


@pytest.mark.parametrize(("t", "key"), [([0.5], "data_too_few"), ([], "data_too_few"),
                                        ([0.2, 1.5], "out_of_range.interval"),
                                        ([[0.1, 0.2]], "data_1d"),
                                        ([0.1, float("nan")], "out_of_range.interval")])
def test_integral_sq_ecdf_rejects_outside_its_domain(t: list[float], key: str) -> None:
    with pytest.raises(DPError) as exc:
        integral_sq_ecdf(t)
    assert exc.value.key == key


def test_degree_errors_are_the_parseval_sums() -> None:
    x = np.random.default_rng(7).beta(2, 5, 2000)
    est = estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, method="pp", rng=1, k_max=12)
    rel = est.release
    t = clip_data(x, (0, 1)).t
    c = legendre.coefficients(t, 12)
    fn2 = integral_sq_ecdf(t)
    out = degree_errors(rel.values, rel.extra["noise_sd"], c, fn2)
    y = rel.values
    s2 = np.broadcast_to(np.asarray(rel.extra["noise_sd"]) ** 2, y.shape)
    assert out.k.tolist() == list(range(13))
    for k in range(13):
        assert out.noise[k] == pytest.approx(np.sum(s2[: k + 1]), rel=1e-14)
        assert out.trunc_est[k] == pytest.approx(np.sum(y[k + 1:] ** 2 - s2[k + 1:]),
                                                 rel=1e-12, abs=1e-18)
        direct = np.sum((y[: k + 1] - c[: k + 1]) ** 2) + max(fn2 - np.sum(c[: k + 1] ** 2), 0)
        assert out.realised[k] == pytest.approx(direct, rel=1e-12)
    assert out.expected.tolist() == (np.maximum(out.trunc_est, 0) + out.noise).tolist()
    assert out.best_expected == int(np.argmin(out.expected))
    assert out.trunc_est[-1] == 0.0


def test_realised_error_is_the_l2_distance_of_the_raw_projection() -> None:
    """Parseval against a quadrature of int (F_hat_K - F_n)^2 on a fine grid."""
    t = np.random.default_rng(2).uniform(size=300)
    c = legendre.coefficients(t, 6)
    y = c + np.random.default_rng(4).normal(0, 0.01, 7)
    out = degree_errors(y, 0.01, c, integral_sq_ecdf(t))
    u = (np.arange(400_000) + 0.5) / 400_000
    f_n = np.searchsorted(np.sort(t), u, side="right") / t.size
    for k in (0, 3, 6):
        f_k = legendre.evaluate(y[: k + 1], u)
        assert out.realised[k] == pytest.approx(np.mean((f_k - f_n) ** 2), rel=2e-3)


@pytest.mark.parametrize(
    ("args", "name"),
    [(([0.1, 0.2], 0.1, [0.1], 0.5), "len(c)"),
     (([0.1, 0.2], [0.1, 0.1, 0.1], [0.1, 0.2], 0.5), "len(noise_sd)"),
     (([0.1, 0.2], -0.1, [0.1, 0.2], 0.5), "noise_sd"),
     (([0.1, float("inf")], 0.1, [0.1, 0.2], 0.5), "y (released coefficients)"),
     (([0.1, 0.2], 0.1, [0.1, 0.2], 1.5), "integral_sq"),
     (([], 0.1, [], 0.5), None)],
)
def test_degree_errors_reject_outside_the_domain(args: tuple, name: str | None) -> None:
    with pytest.raises(DPError) as exc:
        degree_errors(*args)
    if name is not None:
        assert exc.value.fields["name"] == name
