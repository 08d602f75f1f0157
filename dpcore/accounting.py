"""Privacy accounting for compositions of releases on the same data.

Three tools, each exact for what it states:

* Gaussian differential privacy (Dong, Roth & Su 2022, "Gaussian differential privacy", JRSS-B,
  Cor. 3.3): a Gaussian release with L2 sensitivity Delta and noise sigma is mu-GDP with
  mu = Delta / sigma; composing mu_i-GDP releases gives mu = sqrt(sum mu_i^2) *exactly*, and the
  (eps, delta) profile of mu-GDP is that of one Gaussian with Delta / sigma = mu, so
  ``dpcore.gaussian`` converts it without loss.
* Zero-concentrated DP (Bun & Steinke 2016, "Concentrated differential privacy", Prop. 1.3, 1.4,
  1.6 and Lemma 2.3): a pure eps-DP step is (eps^2 / 2)-zCDP, a Gaussian step is
  (Delta^2 / (2 sigma^2))-zCDP, rho adds up under composition, and rho-zCDP implies
  (eps, delta)-DP with eps = inf_{alpha > 1} [alpha rho + log(1/delta)/(alpha - 1)
  + log(1 - 1/alpha) - log(alpha)/(alpha - 1)] (Canonne, Kamath & Steinke 2020, Prop. 12), which
  is never worse than the classic rho + 2 sqrt(rho log(1/delta)).
* Basic composition of pure steps: eps = sum eps_i (Dwork & Roth 2014, Thm 3.16).

Parallel composition (steps on disjoint records, e.g. batches of a stream or sites) costs the
maximum, not the sum (McSherry 2009, Thm 4); ``parallel`` states it.

Mixed ledgers (``Step``, ``compose``, ``Composition``): a session's releases on one data source
are a mix of Gaussian steps (mu-GDP) and others (pure eps-DP, or (eps, delta)-DP).  The Gaussian
steps are composed exactly (mu = sqrt(sum mu_i^2), DRS Cor. 3.3), the others by basic
composition (eps and delta add up, Dwork & Roth Thm 3.16), and the two parts are then composed
by basic composition: at a chosen delta_g for the Gaussian part the whole is
(eps_mu(delta_g) + sum eps_j, delta_g + sum delta_j)-DP.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import optimize

from dpcore import gaussian
from dpcore import validate as v

__all__ = [
    "Composition",
    "Guarantee",
    "Step",
    "basic_composition",
    "compose",
    "gaussian_mu",
    "gaussian_zcdp",
    "gdp_compose",
    "gdp_delta",
    "gdp_epsilon",
    "parallel",
    "parallel_worst",
    "pure_zcdp",
    "sequential",
    "zcdp_compose",
    "zcdp_delta",
    "zcdp_epsilon",
]


@dataclass(frozen=True)
class Guarantee:
    """An (eps, delta)-DP guarantee and the theorem that produced it (for the record)."""

    eps: float
    delta: float
    how: str


def gaussian_mu(sensitivity: float, sigma: float) -> float:
    """mu = Delta / sigma of a Gaussian release (mu-GDP, Dong-Roth-Su Thm 2.7).

    Domain: sensitivity >= 0, sigma > 0. sensitivity 0 gives mu = 0 (no privacy loss).
    """
    d = v.real_scalar("sensitivity", sensitivity, lo=0.0)
    s = v.real_scalar("sigma", sigma, lo=0.0, lo_open=True)
    return d / s


def gdp_compose(mus: Sequence[float]) -> float:
    """Exact composition of mu_i-GDP releases on the same data: sqrt(sum mu_i^2) (DRS Cor. 3.3).

    Domain: each mu_i >= 0 finite; an empty list gives 0.  Uses math.hypot (no overflow).
    """
    vals = [v.real_scalar("mu", m, lo=0.0) for m in mus]
    return math.hypot(*vals) if vals else 0.0


def gdp_delta(eps: float, mu: float) -> float:
    """delta(eps) of mu-GDP: the exact Gaussian profile with Delta / sigma = mu (DRS Cor. 2.13)."""
    m = v.real_scalar("mu", mu, lo=0.0)
    if m == 0.0:
        return 0.0
    return float(gaussian.delta(eps, m, 1.0))


def gdp_epsilon(delta: float, mu: float) -> float:
    """Smallest eps with delta_mu(eps) <= delta for mu-GDP (exact, via dpcore.gaussian)."""
    m = v.real_scalar("mu", mu, lo=0.0)
    if m == 0.0:
        return 0.0
    return float(gaussian.epsilon(delta, m, 1.0))


def pure_zcdp(eps: float) -> float:
    """rho of a pure eps-DP step: eps^2 / 2 (Bun & Steinke 2016, Prop. 1.4)."""
    e = v.real_scalar("epsilon", eps, lo=0.0)
    return 0.5 * e * e


def gaussian_zcdp(sensitivity: float, sigma: float) -> float:
    """rho of a Gaussian step: Delta^2 / (2 sigma^2) (Bun & Steinke 2016, Prop. 1.6)."""
    mu = gaussian_mu(sensitivity, sigma)
    return 0.5 * mu * mu


def zcdp_compose(rhos: Sequence[float]) -> float:
    """rho of a composition: the sum (Bun & Steinke 2016, Lemma 2.3)."""
    return math.fsum(v.real_scalar("rho", r, lo=0.0) for r in rhos)


def zcdp_epsilon(rho: float, delta: float) -> float:
    """Smallest eps certified for rho-zCDP at delta by Canonne-Kamath-Steinke 2020, Prop. 12.

    eps(alpha) = alpha rho + (log(1/delta) + (alpha - 1) log(1 - 1/alpha) - log(alpha)) / (alpha-1)
    minimised over alpha > 1 (bounded scalar search on log(alpha - 1)); the result is also capped
    by the classic rho + 2 sqrt(rho log(1/delta)) (Bun-Steinke Prop. 1.3), so it is never worse.
    Domain: rho >= 0, delta in (0, 1).  rho = 0 gives 0.
    """
    r = v.real_scalar("rho", rho, lo=0.0)
    d = v.real_scalar("delta", delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    if r == 0.0:
        return 0.0
    log_inv = -math.log(d)
    classic = r + 2.0 * math.sqrt(r * log_inv)

    def eps_at(s: float) -> float:
        am1 = math.exp(s)  # alpha - 1 > 0
        alpha = 1.0 + am1
        return alpha * r + (log_inv + am1 * math.log1p(-1.0 / alpha) - math.log(alpha)) / am1

    res = optimize.minimize_scalar(eps_at, bounds=(-20.0, 20.0), method="bounded")
    return max(0.0, min(classic, float(res.fun)))


def zcdp_delta(rho: float, eps: float) -> float:
    """delta certified for rho-zCDP at eps (CKS20 Prop. 12, minimised over alpha > 1)."""
    r = v.real_scalar("rho", rho, lo=0.0)
    e = v.real_scalar("epsilon", eps, lo=0.0)
    if r == 0.0:
        return 0.0

    def log_d(s: float) -> float:
        am1 = math.exp(s)
        alpha = 1.0 + am1
        return am1 * (alpha * r - e) - math.log(am1) + alpha * math.log1p(-1.0 / alpha)

    res = optimize.minimize_scalar(log_d, bounds=(-20.0, 20.0), method="bounded")
    return min(1.0, math.exp(float(res.fun)))


def basic_composition(eps_list: Sequence[float]) -> float:
    """Total eps of pure eps_i-DP steps on the same data: the sum (Dwork & Roth Thm 3.16)."""
    return math.fsum(v.real_scalar("epsilon", e, lo=0.0) for e in eps_list)


def parallel(guarantees: Sequence[Guarantee]) -> Guarantee:
    """Steps on disjoint sets of records: the guarantee is the worst single step (McSherry 2009).

    Holds for replace-one neighbours because the replaced record lies in exactly one part.
    """
    if not guarantees:
        raise ValueError("guarantees must contain at least one step")
    eps = max(g.eps for g in guarantees)
    delta = max(g.delta for g in guarantees)
    return Guarantee(eps, delta, "parallel composition over disjoint records (McSherry 2009)")


# ---------------------------------------------------------------------------------------------
# mixed ledgers: exact GDP for the Gaussian steps, basic composition for the rest
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One release in a ledger: its own (eps, delta) guarantee and, if Gaussian, its mu.

    ``mu`` (Delta / sigma, mu-GDP) is set only for Gaussian releases; they are then composed
    exactly.  Steps with ``mu=None`` are composed by adding eps and delta.
    """

    eps: float
    delta: float
    mu: float | None = None

    def __post_init__(self) -> None:
        v.real_scalar("eps", self.eps, lo=0.0)
        v.real_scalar("delta", self.delta, lo=0.0, hi=1.0)
        if self.mu is not None:
            v.real_scalar("mu", self.mu, lo=0.0)

    @classmethod
    def gaussian(cls, sensitivity: float, sigma: float, eps: float, delta: float) -> Step:
        """A Gaussian release with L2 ``sensitivity`` and noise ``sigma`` certified (eps, delta)."""
        return cls(eps, delta, gaussian_mu(sensitivity, sigma))


@dataclass(frozen=True)
class Composition:
    """The sequential composition of some steps, kept in parts so it can be re-read at any delta.

    ``mu``: exact GDP composition of the Gaussian steps (0 if none); ``eps_other`` and
    ``delta_other``: sums over the other steps; ``basic_eps`` / ``basic_delta``: what basic
    composition of every step's own (eps, delta) would give (for comparison); ``count``: steps.
    """

    count: int
    mu: float
    gaussian_count: int
    eps_other: float
    delta_other: float
    basic_eps: float
    basic_delta: float

    def at_delta(self, delta: float) -> Guarantee:
        """(eps, delta_total) with the Gaussian part read off at ``delta`` (in (0, 1)).

        eps = eps_mu(delta) + eps_other (exact GDP conversion, ``gdp_epsilon``), and
        delta_total = delta + delta_other; without Gaussian steps: (eps_other, delta_other).
        Domain: delta in (0, 1).  An empty composition is (0, 0).
        """
        d = v.real_scalar("delta", delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        if self.gaussian_count == 0:
            return Guarantee(self.eps_other, min(1.0, self.delta_other), _how(self))
        eps = gdp_epsilon(d, self.mu) + self.eps_other
        return Guarantee(eps, min(1.0, d + self.delta_other), _how(self))


def _how(c: Composition) -> str:
    if c.gaussian_count and c.count > c.gaussian_count:
        return ("Gaussian steps by exact GDP composition (Dong-Roth-Su Cor. 3.3), the others by "
                "basic composition (Dwork-Roth Thm 3.16), then the two parts added")
    if c.gaussian_count:
        return "exact GDP composition of Gaussian steps (Dong-Roth-Su Cor. 3.3)"
    return "basic composition (Dwork-Roth Thm 3.16)"


def compose(steps: Sequence[Step]) -> Composition:
    """Sequential composition of ``steps`` on the same records (see the module docstring).

    Exact for the Gaussian part (mu = sqrt(sum mu_i^2)); basic for the rest.  Sums use fsum and
    math.hypot (no overflow, no cancellation).  An empty list gives the zero composition.
    """
    mus = [s.mu for s in steps if s.mu is not None]
    others = [s for s in steps if s.mu is None]
    return Composition(
        count=len(steps),
        mu=gdp_compose(mus),
        gaussian_count=len(mus),
        eps_other=math.fsum(s.eps for s in others),
        delta_other=math.fsum(s.delta for s in others),
        basic_eps=math.fsum(s.eps for s in steps),
        basic_delta=min(1.0, math.fsum(s.delta for s in steps)),
    )


def parallel_worst(parts: Sequence[Composition]) -> Composition:
    """An upper bound for steps on disjoint parts of the records (each record in one part).

    A record's privacy loss is that of its own part (McSherry 2009, Thm 4); taking the largest
    mu, eps_other, delta_other (and counts) over the parts bounds every part at once, and is
    exact when one part is the worst in every component.  Domain: at least one part.
    """
    if not parts:
        raise ValueError("parts must contain at least one composition")
    return Composition(
        count=max(p.count for p in parts),
        mu=max(p.mu for p in parts),
        gaussian_count=max(p.gaussian_count for p in parts),
        eps_other=max(p.eps_other for p in parts),
        delta_other=max(p.delta_other for p in parts),
        basic_eps=max(p.basic_eps for p in parts),
        basic_delta=max(p.basic_delta for p in parts),
    )


def sequential(parts: Sequence[Composition]) -> Composition:
    """Sequential composition of already composed groups (all on the same records)."""
    return Composition(
        count=sum(p.count for p in parts),
        mu=gdp_compose([p.mu for p in parts]),
        gaussian_count=sum(p.gaussian_count for p in parts),
        eps_other=math.fsum(p.eps_other for p in parts),
        delta_other=math.fsum(p.delta_other for p in parts),
        basic_eps=math.fsum(p.basic_eps for p in parts),
        basic_delta=min(1.0, math.fsum(p.basic_delta for p in parts)),
    )
