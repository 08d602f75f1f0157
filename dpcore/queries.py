"""The lab's four queries on a public, fixed n with inputs in [0, B] and replace-one neighbours.

Neighbouring datasets D, D' have the same public size n and differ by replacing one record by
another value in [0, B]. Global sensitivities (proof: a worst pair below attains each bound):

    sum   -> B         (one record 0 <-> B)
    mean  -> B / n     (same pair, divided by the public n)
    count -> 1         (records with x >= B/2, a condition fixed before seeing the data)
    const -> 0         (f(D) = 0 for every D)

Units: sum and mean are in the data's units (the mean in "per record" units), count in records,
const has no unit. The noise, its errors and the sensitivity share the query's unit.

Each query is registered once (:data:`REGISTRY`, a :class:`Query` each): its sensitivity rule,
its value and its unit. A new query is one entry there plus its texts in app/i18n
(``common.query.<name>``, ``lab.card.sens_why.<name>``, ``common.unit.<unit>``,
``cli.unit.<unit>``; tests/app/lab/test_lab_query_texts.py checks them).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

import numpy as np

from dpcore import validate as v
from dpcore.errors import DPError, fmt_value

__all__ = [
    "COUNT_THRESHOLD_FRACTION",
    "QUERIES",
    "REGISTRY",
    "Query",
    "check_query",
    "local_difference",
    "log10_sensitivity",
    "lookup",
    "neighbour",
    "sensitivity",
    "sensitivity_exact",
    "unit_key",
    "value",
    "worst_pair",
]

#: The public condition of the count query: x >= COUNT_THRESHOLD_FRACTION * B.
COUNT_THRESHOLD_FRACTION = 0.5


@dataclass(frozen=True)
class Query:
    """One query the lab releases as f(D) + N(0, sigma^2) (public n, inputs in [0, B])."""

    name: str
    #: The global sensitivity, exactly, from the public n (>= 1) and B (> 0, a double: exact).
    sensitivity: Callable[[int, Fraction], Fraction]
    #: f(D) for values already checked to lie in [0, B] (B the second argument).
    value: Callable[[np.ndarray, float], float]
    #: The sensitivity rule in symbols, ``{B}`` and ``{n}`` its fields ("{B} / {n}"): the lab
    #: writes it with the symbols, then with the numbers.
    formula: str
    #: Message-catalogue key of the output's unit (sum units, mean units, records, none).
    unit: str


def _count(arr: np.ndarray, b: float) -> float:
    return float(np.count_nonzero(arr >= COUNT_THRESHOLD_FRACTION * b))


def _register(*items: Query) -> Mapping[str, Query]:
    out = {q.name: q for q in items}
    if len(out) != len(items):
        raise ValueError("a query is registered twice")
    return MappingProxyType(out)


#: Every query, by name, in the order the lab lists them.
REGISTRY: Mapping[str, Query] = _register(
    Query("sum", lambda n, b: b, lambda arr, b: float(np.sum(arr)), "{B}", "sum"),
    Query("mean", lambda n, b: b / n, lambda arr, b: float(np.mean(arr)), "{B} / {n}", "mean"),
    Query("count", lambda n, b: Fraction(1), _count, "1", "count"),
    Query("const", lambda n, b: Fraction(0), lambda arr, b: 0.0, "0", "const"),
)
QUERIES: tuple[str, ...] = tuple(REGISTRY)


def check_query(query: object) -> str:
    """``query`` itself when it is one of :data:`QUERIES`; DPError ``query`` otherwise."""
    return lookup(query).name


def lookup(query: object) -> Query:
    """The registered query named ``query``; DPError ``query`` (naming every one) otherwise."""
    if not isinstance(query, str) or query not in REGISTRY:
        raise DPError("query", choices=", ".join(QUERIES), value=fmt_value(query))
    return REGISTRY[query]


def _bound(B: float) -> float:
    return v.real_scalar("B", B, lo=0.0, lo_open=True)


def _data(data: Sequence[float], B: float) -> np.ndarray:
    arr = v.real("data", data, lo=0.0, hi=B)
    if arr.ndim != 1 or arr.size < 1:
        raise DPError("data_list")
    return arr


def sensitivity(query: str, n: int, B: float) -> float:
    """Global sensitivity of ``query`` under replace-one neighbours (n >= 1, B > 0), as the
    nearest double. For the mean B/n is rounded once, exactly, for any n (a Python int of any
    size); where it is below the double range this is 0.0 or subnormal: use
    :func:`sensitivity_exact` or :func:`log10_sensitivity` there (dpcore.certify does)."""
    return float(sensitivity_exact(query, n, B))


def sensitivity_exact(query: str, n: int, B: float) -> Fraction:
    """The global sensitivity as an exact rational (B and n are exact; B/n is not rounded)."""
    q = lookup(query)
    nn = v.integer("n", n, lo=1)
    b = _bound(B)
    return q.sensitivity(nn, Fraction(b))


def log10_sensitivity(query: str, n: int, B: float) -> float:
    """log10 of the global sensitivity (finite for every positive one, -inf for const)."""
    f = sensitivity_exact(query, n, B)
    if f == 0:
        return -math.inf
    return math.log10(f.numerator) - math.log10(f.denominator)


def value(query: str, data: Sequence[float], B: float) -> float:
    """f(D) for a dataset whose length is the public n and whose values lie in [0, B]."""
    q = lookup(query)
    b = _bound(B)
    arr = _data(data, b)
    return q.value(arr, b)


def worst_pair(query: str, n: int, B: float) -> tuple[list[float], list[float]]:
    """A neighbouring pair (D, D') with |f(D) - f(D')| equal to the global sensitivity.

    D is all zeros; D' replaces the first record by B. For const every pair is worst (Delta = 0).
    """
    check_query(query)
    nn = v.integer("n", n, lo=1)
    b = _bound(B)
    d = [0.0] * nn
    d2 = list(d)
    d2[0] = b
    return d, d2


def neighbour(data: Sequence[float], i: int, new_value: float, B: float) -> list[float]:
    """D' = D with record i (0-based) replaced by ``new_value`` in [0, B]."""
    b = _bound(B)
    arr = _data(data, b)
    idx = v.integer("record index", i, lo=0)
    if idx >= arr.size:
        raise DPError("record_index", hi=arr.size - 1, value=fmt_value(i))
    nv = v.real_scalar("replacement value", new_value, lo=0.0, hi=b)
    out = [float(x) for x in arr]
    out[idx] = nv
    return out


def local_difference(
    query: str, data: Sequence[float], i: int, new_value: float, B: float
) -> float:
    """|f(D) - f(D')| for the neighbour that replaces record i by ``new_value``.

    Never larger than :func:`sensitivity`; the certification still uses the global value, because
    the guarantee must hold for every neighbouring pair, not only the one a student picked.
    """
    d2 = neighbour(data, i, new_value, B)
    return abs(value(query, data, B) - value(query, d2, B))


def unit_key(query: str) -> str:
    """Message-catalogue key of the query's unit (sum units, mean units, records, none)."""
    return lookup(query).unit
