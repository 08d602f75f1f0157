"""What the /cdf state hands to its views: small frozen records (no Panel, no param).

Each is computed from the state on demand and cached by its inputs; the views only read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpcore import accounting
from dpcore.cdf import REGISTRY, CDFEstimate, Release
from dpcore.cdf.metrics import METRIC_POINTS as METRIC_POINTS  # re-exported for the page
from dpcore.cdf.metrics import Distances, RefGrid

FloatArray = NDArray[np.float64]
# A cache or ledger key: the public inputs that make a data set or a release (hashable).
Key = tuple[Any, ...]


Message = tuple[str, dict[str, Any]]  # (catalogue key, format fields)


def step_of(rel: Release) -> accounting.Step:
    """The ledger step of a release: Gaussian ones carry mu = sensitivity / sigma (exact GDP)."""
    if rel.mechanism in ("gaussian", "gaussian_split"):
        # gaussian_split: whitened sensitivity (1/n)/sigma with unit noise, so mu is the same
        return accounting.Step(rel.eps, rel.delta,
                               accounting.gaussian_mu(rel.sensitivity, rel.noise_scale))
    return accounting.Step(rel.eps, rel.delta)


# ---------------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DataView:
    """The records of the current data (NOT private) and what the page needs about them."""

    x: FloatArray
    bounds: tuple[float, float]
    unit: str  # "" (none), "years", "g" or the text a student typed for an upload
    source: Key  # ledger key: one per data source
    key: Key  # this data exactly (source + n / column / bounds)
    synthetic: bool
    ref: RefGrid  # population CDF (synthetic) or eCDF of the clipped records (otherwise)

    @property
    def n(self) -> int:
        return int(self.x.size)


class DataUnavailable(Exception):
    """The current choice has no usable data yet (an upload without a column or bounds)."""

    def __init__(self, key: str, fmt: dict[str, Any] | None = None) -> None:
        super().__init__(key)
        self.key, self.fmt = key, fmt or {}


@dataclass
class LedgerEntry:
    label: str  # method name, or "stream-pp" / "stream-aq"
    step: accounting.Step
    group: str | None = None  # a partition of the records (one stream); None = all records
    parts: frozenset[int] = frozenset()


@dataclass(frozen=True)
class LedgerView:
    source: Key
    releases: int  # every release on this source in this session
    exposed: int  # releases that touched the most exposed record
    composition: accounting.Composition
    total: accounting.Guarantee  # at the current delta
    rule: str  # "none", "gdp", "basic" or "mixed"


@dataclass(frozen=True)
class DegreeInfo:
    available: bool
    reason: str  # "" or why there is no degree ("method", "histogram", "tree", "no_data")
    k_max: int
    auto_k: int
    in_use: int
    capped: bool  # the requested degree was above k_max


@dataclass(frozen=True)
class ReleaseShape:
    """What one release is made of, read from its public record (``est.info``, ``est.release``):
    nothing here comes from the data (clip and off-lattice counts are not in it)."""

    kind: str  # "tree", "hq", "pp", "mp" or "aq": what was actually released
    plan: str  # "" or, for the automatic method, what it chose: "tree" or "hq"
    released: int  # numbers released
    mechanism: str
    noise_scale: float  # per released number: Gaussian sigma or Laplace scale b (CDF units)
    noise_sd: float  # standard deviation of that noise (sigma, or b * sqrt(2))
    bins: int = 0  # histogram
    branching: int = 0  # tree
    depth: int = 0
    leaves: int = 0
    k_max: int = 0  # PP / MP: highest released degree
    degree: int | None = None  # PP: degree in use
    atoms: tuple[str, ...] = ()  # MP: the chosen atoms
    dictionary: int = 0  # MP: atoms in the dictionary
    quantiles: int = 0  # AQ
    granularity: float | None = None  # the public lattice step h, if any
    lattice_size: int = 0  # values on the lattice
    group: int = 1  # tree on a lattice: consecutive values per leaf
    layout: str = ""  # the cells: "" / "edges" (equal), "centred" (tree), "chebyshev" (histogram)
    cell_min: float = 0.0  # histogram with unequal cells: narrowest and widest cell (data units)
    cell_max: float = 0.0
    top_share: float = 0.0  # two-level tree with a split budget: share of eps on the top level
    top_sd: float = 0.0  # and the noise sd of each top-level count (CDF units)


def release_shape(est: CDFEstimate, plan_method: str = "") -> ReleaseShape:
    """The public structure of ``est`` (see :class:`ReleaseShape`)."""
    rel, info = est.release, est.info
    method = REGISTRY.get(est.method)  # what the method releases; an automatic one: its plan
    kind = (method.releases if method is not None else None) or plan_method or (
        "pp" if est.degree is not None else "hq")
    if "branching" in info:
        kind = "tree"
    elif "bins" in info and kind not in ("pp", "mp"):
        kind = "hq"
    scale = float(rel.noise_scale)
    sd = scale * float(np.sqrt(2.0)) if rel.mechanism.startswith("laplace") else scale
    if kind == "tree" and "node_sd" in rel.extra:
        sd = float(rel.extra["node_sd"])
    h = info.get("granularity")
    size = 0
    if h is not None:
        lo, hi = rel.bounds
        size = round((hi - lo) / float(h)) + 1
    chosen = info.get("chosen") or ()
    cell_min = cell_max = 0.0
    edges = rel.extra.get("edges")
    if edges is not None and len(edges) > 1:  # public: a function of the bin count only
        widths = np.diff(np.asarray(edges, dtype=np.float64)) * (rel.bounds[1] - rel.bounds[0])
        cell_min, cell_max = float(widths.min()), float(widths.max())
    scales = rel.extra.get("scales")
    top_sd = float(scales[0]) * float(np.sqrt(2.0)) if scales is not None else 0.0
    k_max = int(rel.extra.get("k_max", rel.values.size - 1)) if kind in ("pp", "mp") else 0
    return ReleaseShape(
        kind=kind, plan=plan_method, released=int(rel.values.size), mechanism=rel.mechanism,
        noise_scale=scale, noise_sd=sd, bins=int(info.get("bins", 0) or 0),
        branching=int(info.get("branching", 0) or 0), depth=int(info.get("depth", 0) or 0),
        leaves=int(info.get("leaves", 0) or 0), k_max=k_max, degree=est.degree,
        atoms=tuple(str(a) for a in chosen),
        dictionary=int(rel.extra.get("dictionary_size", 0) or 0),
        quantiles=int(info.get("quantiles", 0) or 0),
        granularity=None if h is None else float(h), lattice_size=size,
        group=int(info.get("group", 1) or 1), layout=str(info.get("layout", "") or ""),
        cell_min=cell_min, cell_max=cell_max, top_share=float(info.get("top_share", 0.0) or 0.0),
        top_sd=top_sd)


@dataclass(frozen=True)
class MethodRow:
    method: str
    est: CDFEstimate
    seconds: float
    metrics: Distances


@dataclass(frozen=True)
class StreamStep:
    batch: int  # 1-based
    seen: int  # records seen so far
    batch_size: int
    pp: Distances
    aq: Distances
    pp_seconds: float
    aq_seconds: float
    pp_cost: accounting.Guarantee  # per record, all PP batch releases so far (parallel)
    aq_cost: accounting.Guarantee  # per record, all AQ re-runs so far (sequential)


def compose_entries(entries: list[LedgerEntry]) -> accounting.Composition:
    """Sequential composition over all records, parallel within each stream's parts."""
    main = accounting.compose([e.step for e in entries if e.group is None])
    groups: dict[str, list[LedgerEntry]] = {}
    for e in entries:
        if e.group is not None:
            groups.setdefault(e.group, []).append(e)
    worst = []
    for es in groups.values():
        parts = sorted(set().union(*(e.parts for e in es)))
        worst.append(accounting.parallel_worst(
            [accounting.compose([e.step for e in es if p in e.parts]) for p in parts]))
    return accounting.sequential([main, *worst]) if worst else main
