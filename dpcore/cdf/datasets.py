"""Data sets for the CDF experiments: three synthetic shapes and three small real CSVs.

Synthetic (on [0, 1], population CDF known exactly, NOT private):
* beta: Beta(2, 5);
* bimodal: 0.5 N(0.3, 0.05^2) + 0.5 N(0.7, 0.08^2), clipped to [0, 1] (the clipped mass sits
  at 0 and 1, so the population CDF jumps there);
* uniform: Uniform(0, 1).
Further shapes for the comparison against histograms (``GRID_SHAPES``, issue 22; not offered on
the page): spikes = 0.3 N(0.2, 0.002^2) + 0.3 N(0.5, 0.002^2) + 0.4 N(0.8, 0.002^2) (three
narrow spikes); heavy = 0.02 |Cauchy| clipped to [0, 1] (a heavy right tail, 1.3 % of the mass
clipped at 1); arcsine = Beta(1/2, 1/2) (U-shaped, infinite density at both ends);
texp = Exponential(mean 0.1) truncated to [0, 1]; lattice = Binomial(10, 0.3) / 10 (11 values,
granularity 0.1); wide_lattice = round(80 Beta(2, 3)) / 80 (81 values, granularity 1/80, a broad
lattice like ages in whole years; added to fix auto's rule on wide lattices without the real
sets).
Real (assets/data/*.csv, sources and licences in assets/data/README.md); the reference is the
empirical CDF of the clipped data (NOT private).  Bounds are public choices made from the
variable's meaning, not from the data.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

FloatArray = NDArray[np.float64]
DATA_DIR = Path(__file__).resolve().parents[2] / "assets" / "data"

SYNTHETIC = ("beta", "bimodal", "uniform")
GRID_SHAPES = ("beta", "bimodal", "spikes", "heavy", "arcsine", "texp", "lattice",
               "wide_lattice")
#: Public granularity of a shape known to lie on a lattice (None: continuous).
SHAPE_GRANULARITY: dict[str, float | None] = {s: None for s in GRID_SHAPES} | {
    "lattice": 0.1, "wide_lattice": 1.0 / 80.0}
_SPIKES = ((0.3, 0.2), (0.3, 0.5), (0.4, 0.8))
_SPIKE_SD = 0.002
_TEXP_MEAN = 0.1


@dataclass(frozen=True)
class RealData:
    name: str
    values: FloatArray
    bounds: tuple[float, float]
    unit: str
    source: str


# file, column, public bounds, unit
_REAL = {
    "anes96_age": ("anes96_age.csv", "age", (18.0, 100.0), "years"),
    "diabetes_age": ("diabetes_age.csv", "age", (18.0, 100.0), "years"),
    "penguins_mass": ("penguins_body_mass.csv", "body_mass_g", (2000.0, 7000.0), "g"),
}
REAL = tuple(_REAL)


def sample(shape: str, n: int, rng: np.random.Generator) -> FloatArray:
    """n draws of a synthetic shape (values in [0, 1])."""
    if shape == "beta":
        return rng.beta(2.0, 5.0, n)
    if shape == "uniform":
        return rng.uniform(0.0, 1.0, n)
    if shape == "bimodal":
        first = rng.random(n) < 0.5
        x = np.where(first, rng.normal(0.3, 0.05, n), rng.normal(0.7, 0.08, n))
        return np.clip(x, 0.0, 1.0)
    if shape == "spikes":
        which = rng.choice(len(_SPIKES), size=n, p=[w for w, _ in _SPIKES])
        mu = np.array([m for _, m in _SPIKES])[which]
        return np.clip(rng.normal(mu, _SPIKE_SD), 0.0, 1.0)
    if shape == "heavy":
        return np.clip(0.02 * np.abs(rng.standard_cauchy(n)), 0.0, 1.0)
    if shape == "arcsine":
        return rng.beta(0.5, 0.5, n)
    if shape == "texp":
        u = rng.random(n)
        return -_TEXP_MEAN * np.log1p(-u * (1.0 - np.exp(-1.0 / _TEXP_MEAN)))
    if shape == "lattice":
        return rng.binomial(10, 0.3, n) / 10.0
    if shape == "wide_lattice":
        return np.round(80.0 * rng.beta(2.0, 3.0, n)) / 80.0
    raise ValueError(f"shape must be one of {(*SYNTHETIC, *GRID_SHAPES)} (got {shape!r})")


def population_cdf(shape: str) -> Callable[[FloatArray], FloatArray]:
    """The exact population CDF of a synthetic shape (NOT private: it is the truth)."""
    if shape == "beta":
        return lambda t: stats.beta.cdf(np.asarray(t, dtype=np.float64), 2.0, 5.0)
    if shape == "uniform":
        return lambda t: np.clip(np.asarray(t, dtype=np.float64), 0.0, 1.0)
    if shape == "bimodal":

        def f(t: FloatArray) -> FloatArray:
            t = np.asarray(t, dtype=np.float64)
            mix = 0.5 * special.ndtr((t - 0.3) / 0.05) + 0.5 * special.ndtr((t - 0.7) / 0.08)
            return np.where(t < 0.0, 0.0, np.where(t >= 1.0, 1.0, mix))

        return f
    if shape in GRID_SHAPES:
        return _grid_population(shape)
    raise ValueError(f"shape must be one of {(*SYNTHETIC, *GRID_SHAPES)} (got {shape!r})")


def _grid_population(shape: str) -> Callable[[FloatArray], FloatArray]:
    def f(t: FloatArray) -> FloatArray:
        t = np.asarray(t, dtype=np.float64)
        if shape == "spikes":
            mix = sum(w * special.ndtr((t - m) / _SPIKE_SD) for w, m in _SPIKES)
        elif shape == "heavy":
            mix = 2.0 / np.pi * np.arctan(np.maximum(t, 0.0) / 0.02)
        elif shape == "arcsine":
            mix = stats.beta.cdf(t, 0.5, 0.5)
        elif shape == "texp":
            mix = -np.expm1(-np.maximum(t, 0.0) / _TEXP_MEAN) / -np.expm1(-1.0 / _TEXP_MEAN)
        elif shape == "wide_lattice":
            k = np.floor(80.0 * t + 1e-9)
            mix = stats.beta.cdf(np.minimum((k + 0.5) / 80.0, 1.0), 2.0, 3.0)
        else:  # lattice
            mix = stats.binom.cdf(np.floor(10.0 * t + 1e-9), 10, 0.3)
        return np.asarray(np.where(t < 0.0, 0.0, np.where(t >= 1.0, 1.0, mix)), dtype=np.float64)

    return f


@lru_cache(maxsize=8)
def load_real(name: str) -> RealData:
    """Load one of the real data sets shipped as CSV under assets/data."""
    if name not in _REAL:
        raise ValueError(f"name must be one of {REAL} (got {name!r})")
    fname, col, bounds, unit = _REAL[name]
    path = DATA_DIR / fname
    with path.open(newline="", encoding="utf-8") as fh:
        vals = [float(row[col]) for row in csv.DictReader(fh)]
    arr = np.array(vals)
    arr.setflags(write=False)
    return RealData(name, arr, bounds, unit, str(path.name))
