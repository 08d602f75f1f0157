"""Shifted-Legendre pieces of PP against mpmath references and exact identities."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.cdf import legendre
from dpcore.cdf.isotonic import isotonic

REFERENCE = Path(__file__).parents[2] / "reference"  # tests/reference
REF = json.loads((REFERENCE / "cdf_legendre_mpmath.json").read_text(encoding="utf-8"))


def _pav(y: list[float], w: list[float]) -> list[float]:
    """Textbook pool-adjacent-violators (independent of SciPy), for the comparison; the same
    function as tests/dpcore/test_conservative_verdicts.py's (imported from there before the move,
    which
    worked only when tests/ itself was on sys.path)."""
    blocks: list[list[float]] = []  # [mean, weight, count]
    for yi, wi in zip(y, w, strict=True):
        blocks.append([yi, wi, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    return [b[0] for b in blocks for _ in range(b[2])]


def test_g_matches_mpmath_definition() -> None:
    # Reference: tests/reference/cdf_legendre_mpmath.py (mpmath.quad of the definition, 50 dps).
    for k, xs, val in REF["g"]:
        got = legendre.g_matrix(np.array([float(xs)]), k)[0, k]
        assert got == pytest.approx(float(val), abs=2e-15), (k, xs)


def test_basis_matches_mpmath() -> None:
    for k, xs, val in REF["basis"]:
        got = legendre.basis(np.array([float(xs)]), k)[0, k]
        # |p_k| <= sqrt(2k+1) <= 11.4; a few ulps of that
        assert got == pytest.approx(float(val), abs=1e-13), (k, xs)


def test_sample_coefficients_match_mpmath() -> None:
    x = np.array([float(s) for s in REF["sample"]])
    c = legendre.coefficients(x, 20)
    ref = np.array([float(v) for v in REF["sample_coefficients"]])
    np.testing.assert_allclose(c, ref, rtol=0, atol=1e-15)


def test_blocked_sum_equals_matrix_mean() -> None:
    rng = np.random.default_rng(3)
    x = rng.uniform(size=70_000)  # more than one block
    np.testing.assert_allclose(
        legendre.coefficients(x, 30), legendre.g_matrix(x, 30).mean(axis=0), atol=1e-14
    )


def test_coefficients_reconstruct_the_ecdf_in_l2() -> None:
    # Parseval: sum c_k^2 -> ||F_n||^2 as K grows; partial sums never exceed it (Bessel).
    x = np.array([0.2, 0.5, 0.9])
    t = np.linspace(0, 1, 200_001)
    fn = np.searchsorted(np.sort(x), t, side="right") / x.size
    norm2 = np.trapezoid(fn**2, t)
    c = legendre.coefficients(x, 200)
    assert np.sum(c**2) <= norm2 + 1e-6
    assert np.sum(c**2) > norm2 - 2e-3


def test_worst_pair_only_moves_c0() -> None:
    g = legendre.g_matrix(np.array([0.0, 1.0]), 256)
    diff = g[0] - g[1]
    assert diff[0] == 1.0
    assert np.max(np.abs(diff[1:])) < 1e-12
    assert np.linalg.norm(diff) == pytest.approx(1.0, abs=1e-12)


def test_bad_degree() -> None:
    with pytest.raises(ValueError, match="k_max"):
        legendre.coefficients(np.array([0.5]), -1)
    with pytest.raises(ValueError, match="at least one"):
        legendre.coefficients(np.array([]), 3)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=60),
    st.data(),
)
def test_isotonic_matches_textbook_pav_and_is_monotone(y: list[float], data: st.DataObject) -> None:
    w = data.draw(st.lists(st.floats(0.1, 10.0), min_size=len(y), max_size=len(y)))
    got = isotonic(np.array(y), np.array(w))
    ref = _pav(y, w)  # independent of SciPy, which dpcore now wraps
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9)
    assert np.all(np.diff(got) >= -1e-9)
    # weighted mean is preserved (each pooled block keeps its weighted sum)
    assert np.dot(w, got) == pytest.approx(np.dot(w, y), rel=1e-9, abs=1e-6)


def test_isotonic_edge_cases() -> None:
    assert isotonic(np.array([])).size == 0
    np.testing.assert_array_equal(isotonic(np.array([2.0])), [2.0])
    np.testing.assert_allclose(isotonic(np.array([3.0, 2.0, 1.0])), [2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="weights"):
        isotonic(np.array([1.0, 2.0]), np.array([1.0, -1.0]))
