"""Streaming batches and multiple sites: PP merges released coefficients, AQ must re-run.

PP (``PPCombiner``): each batch (or site) j with public size n_j releases its own noisy
coefficient vector y_j = c_j + Z_j once (``pp.release`` on that batch only).  Because the eCDF
of the union is F_n = sum_j (n_j / n) F_{n_j} and coefficients are linear, y = sum_j (n_j/n) y_j
is an unbiased release of the union's coefficients with per-coefficient noise variance
sum_j (n_j/n)^2 s_{j,k}^2.  Old data are never touched again.
  Privacy: every record lies in exactly one batch, so the combination is (eps, delta)-DP by
  parallel composition (``accounting.parallel``); merging is post-processing.
  Accuracy cost: with equal per-batch budgets s_{j,k} = s_k n / n_j (sigma scales as 1/n_j),
  so the merged noise variance is J times that of one release on all n records (J equal
  batches); the sd grows like sqrt(J).
AQ (``aq_rerun``): quantiles are not linear in the data, so AQ re-runs on all data seen so far
after every batch.  A record of the first batch takes part in all T runs, so the guarantee is
the composition of the T runs: T eps_run by basic composition (pure DP), or, if the total
must stay eps, each run gets eps / T.  A multi-site AQ needs the raw data in one place (or an
interactive protocol); PP needs one message per site.
Declared spacing (``granularity`` h, public like the bounds; ``dpcore.cdf.lattice``): each
batch is rounded to the lattice lo + k h before its release (part of the mechanism, like
clipping, so every sensitivity holds), the records off the lattice are counted per batch
(exact, not private, like the clip counts), and the merged estimate is read as a step CDF on
the lattice (post-processing, as ``estimate(..., granularity=h)`` does for PP).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

from dpcore import accounting
from dpcore.cdf import pp
from dpcore.cdf.common import (
    CDFEstimate,
    FloatArray,
    Release,
    check_bounds,
    check_privacy,
    clip_data,
    make_rng,
)
from dpcore.cdf.lattice import Lattice, check_granularity, snapped_values
from dpcore.cdf.quantiles import estimate_aq


@dataclass
class PPCombiner:
    """Accumulates per-batch (or per-site) PP releases and merges them with weights n_j / n."""

    bounds: tuple[float, float]
    eps: float
    delta: float
    k_max: int = 64
    noise: str = "gaussian_split"
    releases: list[Release] = field(default_factory=list)
    #: The declared public spacing h (None: continuous); checked against the bounds.
    granularity: float | None = None
    #: Records off the lattice, per batch (exact counts for the data holder, not released).
    n_off_lattice: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.bounds = check_bounds(self.bounds)
        self.eps, self.delta = check_privacy(self.eps, self.delta)
        if self.noise not in pp.NOISES:
            raise ValueError(f"noise must be one of {pp.NOISES} (got {self.noise!r})")
        self._lattice: Lattice | None = None
        if self.granularity is not None:
            self._lattice = check_granularity(self.bounds, self.granularity)
            self.granularity = self._lattice.h

    def add_batch(self, data: ArrayLike, rng: object = None) -> Release:
        """Release this batch's noisy coefficients once (its records are never used again)."""
        clipped = clip_data(data, self.bounds)
        if self._lattice is not None:
            xs, off = snapped_values(clipped, self._lattice)
            clipped = replace(clip_data(xs, self.bounds), n_below=clipped.n_below,
                              n_above=clipped.n_above)
            self.n_off_lattice.append(off)
        rel = pp.release(
            clipped, self.eps, self.delta, k_max=self.k_max, noise=self.noise, rng=make_rng(rng)
        )
        self.releases.append(rel)
        return rel

    @property
    def n(self) -> int:
        return sum(r.n for r in self.releases)

    def merged(self) -> tuple[FloatArray, FloatArray]:
        """(y, noise_sd) of the weighted merge; post-processing of the batch releases."""
        if not self.releases:
            raise ValueError("add at least one batch before asking for an estimate")
        n = self.n
        w = np.array([r.n / n for r in self.releases])
        ys = np.array([r.values for r in self.releases])
        sds = np.array(
            [np.broadcast_to(r.extra["noise_sd"], r.values.shape) for r in self.releases]
        )
        return w @ ys, np.sqrt((w**2) @ (sds**2))

    def guarantee(self) -> accounting.Guarantee:
        """Parallel composition over disjoint batches: the worst single batch."""
        return accounting.parallel(
            [accounting.Guarantee(r.eps, r.delta, r.accounting) for r in self.releases]
        )

    def estimate(self, degree: int | str = "auto") -> CDFEstimate:
        """The merged private CDF (automatic degree by default)."""
        y, sd = self.merged()
        g = self.guarantee()
        rel = Release(
            method="pp-merged",
            mechanism=self.releases[0].mechanism,
            values=y,
            noise_scale=float(sd[0]),
            sensitivity=self.releases[0].sensitivity,
            norm=self.releases[0].norm,
            n=self.n,
            bounds=self.bounds,
            n_below=sum(r.n_below for r in self.releases),
            n_above=sum(r.n_above for r in self.releases),
            eps=g.eps,
            delta=g.delta,
            accounting=f"{len(self.releases)} batch releases on disjoint records; {g.how}",
            extra={
                "k_max": self.k_max,
                "noise_sd": sd,
                "batch_sizes": [r.n for r in self.releases],
            },
        )
        est = pp.from_release(rel, degree, method="pp-merged")
        if self._lattice is None:
            return est
        from dpcore.cdf import lattice_estimate  # the package imports this module's peers

        return lattice_estimate(est, self._lattice, sum(self.n_off_lattice))


@dataclass(frozen=True)
class AQRerun:
    """Result of re-running AQ after every batch: the last estimate and the composed privacy."""

    estimate: CDFEstimate
    runs: int
    eps_per_run: float
    eps_total: float
    how: str


def aq_rerun(
    batches: Sequence[ArrayLike],
    *,
    bounds: object,
    eps_per_run: float,
    delta: float,
    rng: object = None,
    quantiles: int = 31,
) -> AQRerun:
    """Run AQ on the union of batches 1..t for t = 1..T; return the last run and the total eps.

    Total eps = T * eps_per_run (basic composition of pure runs on overlapping data).
    """
    if not batches:
        raise ValueError("batches must contain at least one batch")
    gen = make_rng(rng)
    seen: list[FloatArray] = []
    est: CDFEstimate | None = None
    for b in batches:
        seen.append(np.asarray(b, dtype=np.float64))
        est = estimate_aq(
            np.concatenate(seen),
            bounds=bounds,
            eps=eps_per_run,
            delta=delta,
            rng=gen,
            quantiles=quantiles,
        )
    assert est is not None
    runs = len(batches)
    total = accounting.basic_composition([eps_per_run] * runs)
    return AQRerun(
        est, runs, eps_per_run, total, "basic composition over re-runs (Dwork-Roth 3.16)"
    )
