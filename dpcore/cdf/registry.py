"""The record each CDF method is registered with (``dpcore.cdf.REGISTRY``, one per method).

Everything that differs between methods and that code elsewhere decides by is a field here, so
a new method is its estimator plus one :class:`Method` entry in ``dpcore/cdf/__init__.py``;
if it is ``listed`` (on the /cdf page), also its look in ``app/cdf/methods.py`` and its texts
(``cdf.method.<name>`` and ``cdf.method.<name>.short`` in app/i18n/cdf.*.json). The tests
tests/dpcore/cdf/test_method_registry.py and tests/app/cdf/test_cdf_methods.py say what is
missing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from dpcore.cdf.common import CDFEstimate

#: A release's guarantee under the method's default options: "pure" (eps, 0); "approx"
#: (eps, delta) with delta > 0 (Gaussian noise); "chosen": one or the other, chosen from
#: public numbers (n, eps, delta: the noise option "auto", or an automatic plan).
Guarantee = Literal["pure", "approx", "chosen"]
#: What a release is made of (the app describes it by this): PP's Legendre coefficients, MP's
#: inner products, a histogram, adaptive quantiles, a hierarchical histogram (tree).
Releases = Literal["pp", "mp", "hq", "aq", "tree"]


@dataclass(frozen=True)
class Method:
    """One private CDF method of ``dpcore.cdf.estimate``."""

    name: str
    #: ``estimate(data, *, bounds, eps, delta, rng=None, **options) -> CDFEstimate``.
    estimate: Callable[..., CDFEstimate]
    guarantee: Guarantee
    #: The keyword options it takes (``estimate`` rejects any other).
    options: tuple[str, ...] = ()
    #: One of ``METHODS``, the methods a user chooses between (the /cdf page's list); False for
    #: the former defaults and the variants kept for comparison.
    listed: bool = False
    #: What it releases; None for an automatic method (its plan, ``est.info["plan"]``, says).
    releases: Releases | None = None
    #: An automatic method: the planner of this package (looked up by name when called, so a
    #: test may replace it) that the default's path takes (for "auto_v1": on a lattice only).
    rule: str = ""
    #: Takes a public granularity itself (the tree; the automatic rules, which plan a tree on
    #: the lattice). The others see the values snapped to the lattice, read as a step CDF.
    lattice: bool = False
    #: Its release may carry a degree that post-processing changes (``est.with_degree``): PP,
    #: and the automatic methods, whose path releases PP when a plan says so (auto_v1's does).
    degree: bool = False

    @property
    def automatic(self) -> bool:
        return bool(self.rule)

    @property
    def defaults(self) -> dict[str, object]:
        """Each option's default, read from the estimator's signature (one place for them)."""
        params = inspect.signature(self.estimate).parameters
        return {o: params[o].default for o in self.options}


def register(*methods: Method) -> Mapping[str, Method]:
    """The methods by name, in the order given (the order the page and ``ALL_METHODS`` list
    them); read-only."""
    out = {m.name: m for m in methods}
    if len(out) != len(methods):
        raise ValueError("a CDF method is registered twice")
    return MappingProxyType(out)
