"""Shared pieces of the private CDF estimators: input checks, clipping, the result object.

Setting for every estimator (docs/math.md#dp-cdf): replace-one neighbours, public size n,
public bounds [lo, hi].  Data are clipped to [lo, hi] (the clip is part of the mechanism, so
the sensitivity analyses hold for any input) and rescaled to t = (x - lo) / (hi - lo) in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import validate as v
from dpcore.errors import DPError, fmt_value

__all__ = [
    "GRID_SIZE",
    "CDFEstimate",
    "Clipped",
    "FloatArray",
    "Release",
    "check_bounds",
    "check_privacy",
    "clip_data",
    "finish_grid",
    "fmt_eps",
    "grid_in_units",
    "make_rng",
]

FloatArray = NDArray[np.float64]

# Internal evaluation grid on [0, 1] for the smooth estimators (PP, MP, HQ, AQ share it).
GRID_SIZE = 1025


@dataclass(frozen=True)
class Clipped:
    """Data rescaled to [0, 1] after clipping to the public bounds, with the clip counts."""

    t: FloatArray
    n: int
    lo: float
    hi: float
    n_below: int
    n_above: int

    @property
    def n_clipped(self) -> int:
        return self.n_below + self.n_above


def check_bounds(bounds: object) -> tuple[float, float]:
    """Return (lo, hi) or raise DPError: two finite numbers with lo < hi whose width hi - lo
    is a finite double (the data are rescaled by it; an infinite width would give NaN)."""
    try:
        lo_raw, hi_raw = cast("Iterable[object]", bounds)
    except (TypeError, ValueError):
        raise DPError("bounds_pair", value=fmt_value(bounds)) from None
    lo = v.real_scalar("bounds[0] (lo)", lo_raw)
    hi = v.real_scalar("bounds[1] (hi)", hi_raw)
    if not lo < hi:
        raise DPError("bounds_order", lo=f"{lo:g}", hi=f"{hi:g}")
    if not math.isfinite(hi - lo):
        raise DPError("bounds_width", lo=f"{lo:g}", hi=f"{hi:g}")
    return lo, hi


def check_privacy(eps: object, delta: object) -> tuple[float, float]:
    """eps in (0, inf) finite, delta in (0, 1); ValueError naming the parameter otherwise."""
    e = v.real_scalar("eps (privacy budget epsilon)", eps, lo=0.0, lo_open=True)
    d = v.real_scalar("delta", delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    return e, d


def clip_data(data: ArrayLike, bounds: object) -> Clipped:
    """Validate data (1-D, numeric, finite, n >= 2), clip to bounds and rescale to [0, 1]."""
    lo, hi = check_bounds(bounds)
    raw = np.asarray(data)
    if raw.dtype.kind == "O":
        flat = raw.ravel().tolist()
        if not all(isinstance(v, (int, float, np.number)) for v in flat):
            bad = next(v for v in flat if not isinstance(v, (int, float, np.number)))
            raise DPError("data_not_numbers", value=fmt_value(bad))
    elif raw.dtype.kind not in "biuf":
        raise DPError("data_not_numbers",
                      value=fmt_value(str(raw.ravel()[0])) if raw.size else "''")
    x = raw.astype(np.float64)
    if x.ndim == 0:
        x = x.reshape(1)
    if x.ndim != 1:
        raise DPError("data_1d", shape=str(x.shape))
    n = x.size
    if n == 0:
        raise DPError("data_too_few", count=0)
    if n == 1:
        raise DPError("data_too_few", count=1)
    bad = ~np.isfinite(x)
    if bad.any():
        raise DPError("data_not_finite", count=int(bad.sum()))
    n_below = int(np.count_nonzero(x < lo))
    n_above = int(np.count_nonzero(x > hi))
    t = (np.clip(x, lo, hi) - lo) / (hi - lo)
    np.clip(t, 0.0, 1.0, out=t)  # guards against rounding just outside [0, 1]
    return Clipped(t=t, n=n, lo=lo, hi=hi, n_below=n_below, n_above=n_above)


def make_rng(rng: object) -> np.random.Generator:
    """None -> fresh OS entropy, int -> seeded Generator, Generator -> itself."""
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.Generator):
        return rng
    raise DPError("rng", value=fmt_value(rng))


def finish_grid(values: FloatArray) -> FloatArray:
    """Post-process CDF values on the internal grid: isotonic projection, clip to [0, 1].

    The last grid point is hi, where every clipped record lies at or below, so F(hi) = 1 is a
    public fact and is imposed.  Pure post-processing: no privacy cost (Dwork & Roth Prop. 2.1).
    """
    from dpcore.cdf.isotonic import isotonic

    out = np.clip(isotonic(values), 0.0, 1.0)
    out[-1] = 1.0
    return out


@dataclass(frozen=True)
class Release:
    """Exactly what a mechanism released, and the parameters needed to check its guarantee.

    ``values``: the noisy numbers that left the curator (everything else is post-processing).
    ``mechanism``: "gaussian", "laplace" or "exponential"; ``noise_scale``: sigma (Gaussian),
    b (Laplace) or the exponential mechanism's eps per call; ``sensitivity`` with ``norm``.
    ``n_below`` / ``n_above`` are the exact numbers of clipped records, reported to the data
    holder (docs/math.md#clipping): they are NOT privatised and are not part of the released
    values.
    """

    method: str
    mechanism: str
    values: FloatArray
    noise_scale: float
    sensitivity: float
    norm: str
    n: int
    bounds: tuple[float, float]
    n_below: int
    n_above: int
    eps: float
    delta: float
    accounting: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def n_clipped(self) -> int:
        return self.n_below + self.n_above

    @classmethod
    def of(cls, clipped: Clipped, **fields: Any) -> Release:
        """A release of ``clipped`` data: n, bounds and clip counts come from ``clipped``."""
        return cls(n=clipped.n, bounds=(clipped.lo, clipped.hi), n_below=clipped.n_below,
                   n_above=clipped.n_above, **fields)


@dataclass(frozen=True, eq=False)
class CDFEstimate:
    """A private CDF: call it on points in the original units to get values in [0, 1].

    The function is piecewise linear between the grid points ``grid_x`` (original units) with
    values ``grid_f`` (non-decreasing, in [0, 1]); 0 below lo, 1 at and above hi.
    ``eps``/``delta`` are the certified guarantee; ``release`` records what was released.
    """

    grid_x: FloatArray
    grid_f: FloatArray
    eps: float
    delta: float
    method: str
    release: Release
    info: dict[str, Any] = field(default_factory=dict)
    # Post-processing hook (PP): degree -> new estimate with no new privacy cost.
    _redegree: Callable[[int | str], CDFEstimate] | None = None

    def __call__(self, points: ArrayLike) -> FloatArray:
        p = np.asarray(points, dtype=np.float64)
        out = np.interp(p, self.grid_x, self.grid_f, left=0.0, right=1.0)
        out = np.where(p >= self.grid_x[-1], 1.0, out)
        return np.where(np.isnan(p), np.nan, out)

    @property
    def n_clipped(self) -> int:
        return self.release.n_clipped

    @property
    def degree(self) -> int | None:
        d = self.info.get("degree")
        return None if d is None else int(d)

    def with_degree(self, degree: int | str) -> CDFEstimate:
        """Same release, another degree (PP only): post-processing, so eps and delta unchanged."""
        if self._redegree is None:
            raise DPError("with_degree", method=self.method)
        return self._redegree(degree)


def grid_in_units(lo: float, hi: float, size: int = GRID_SIZE) -> tuple[FloatArray, FloatArray]:
    """The internal grid on [0, 1] and the same points in original units."""
    t = np.linspace(0.0, 1.0, size)
    return t, lo + (hi - lo) * t


def fmt_eps(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.6g}"
