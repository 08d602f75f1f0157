"""The lab's four queries on a public, fixed n with inputs in [0, B] and replace-one neighbours.

Neighbouring datasets D, D' have the same public size n and differ by replacing one record by
another value in [0, B]. Global sensitivities (proof: a worst pair below attains each bound):

    sum   -> B         (one record 0 <-> B)
    mean  -> B / n     (same pair, divided by the public n)
    count -> 1         (records with x >= B/2, a condition fixed before seeing the data)
    const -> 0         (f(D) = 0 for every D)

Units: sum and mean are in the data's units (the mean in "per record" units), count in records,
const has no unit. The noise, its errors and the sensitivity share the query's unit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dpcore import _validate as v

__all__ = [
    "COUNT_THRESHOLD_FRACTION",
    "QUERIES",
    "local_difference",
    "neighbour",
    "sensitivity",
    "unit_key",
    "value",
    "worst_pair",
]

QUERIES: tuple[str, ...] = ("sum", "mean", "count", "const")
#: The public condition of the count query: x >= COUNT_THRESHOLD_FRACTION * B.
COUNT_THRESHOLD_FRACTION = 0.5


def _query(query: str) -> str:
    if query not in QUERIES:
        raise ValueError(f"query must be one of {', '.join(QUERIES)} (got {query!r})")
    return query


def _bound(B: float) -> float:
    return v.real_scalar("B (upper input bound)", B, lo=0.0, lo_open=True)


def _data(data: Sequence[float], B: float) -> np.ndarray:
    arr = v.real("data", data, lo=0.0, hi=B)
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError("data must be a non-empty list of numbers in [0, B]")
    return arr


def sensitivity(query: str, n: int, B: float) -> float:
    """Global sensitivity of ``query`` under replace-one neighbours (n >= 1, B > 0)."""
    q = _query(query)
    nn = v.integer("n", n, lo=1)
    b = _bound(B)
    return {"sum": b, "mean": b / nn, "count": 1.0, "const": 0.0}[q]


def value(query: str, data: Sequence[float], B: float) -> float:
    """f(D) for a dataset whose length is the public n and whose values lie in [0, B]."""
    q = _query(query)
    b = _bound(B)
    arr = _data(data, b)
    if q == "sum":
        return float(np.sum(arr))
    if q == "mean":
        return float(np.mean(arr))
    if q == "count":
        return float(np.count_nonzero(arr >= COUNT_THRESHOLD_FRACTION * b))
    return 0.0


def worst_pair(query: str, n: int, B: float) -> tuple[list[float], list[float]]:
    """A neighbouring pair (D, D') with |f(D) - f(D')| equal to the global sensitivity.

    D is all zeros; D' replaces the first record by B. For const every pair is worst (Delta = 0).
    """
    _query(query)
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
        raise ValueError(f"record index must be between 0 and {arr.size - 1} (got {i!r})")
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
    return _query(query)
