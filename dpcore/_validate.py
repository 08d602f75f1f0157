"""Input checks shared by dpcore: one place that turns bad input into a student-readable error."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray


def _describe(lo: float | None, hi: float | None, lo_open: bool, hi_open: bool) -> str:
    if lo is not None and hi is not None:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        return f"a finite number in {left}{lo:g}, {hi:g}{right}"
    if lo is not None:
        return f"a finite number {'>' if lo_open else '>='} {lo:g}"
    if hi is not None:
        return f"a finite number {'<' if hi_open else '<='} {hi:g}"
    return "a finite number"


def _not_a_number(name: str, allowed: str, value: object) -> str:
    return f"{name} must be {allowed} (got {value!r}, which is not a number)"


def real(
    name: str,
    value: ArrayLike,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
) -> NDArray[np.float64]:
    """Return ``value`` as a float array, or raise ValueError naming ``name`` and its range."""
    allowed = _describe(lo, hi, lo_open, hi_open)
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(_not_a_number(name, allowed, value)) from None
    bad = ~np.isfinite(arr)
    if lo is not None:
        bad |= (arr <= lo) if lo_open else (arr < lo)
    if hi is not None:
        bad |= (arr >= hi) if hi_open else (arr > hi)
    if np.any(bad):
        first = arr[bad].flat[0] if arr.ndim else float(arr)
        raise ValueError(f"{name} must be {allowed} (got {first!r})")
    return arr


def real_scalar(
    name: str,
    value: object,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
) -> float:
    """Scalar version of :func:`real` (fast path: no array allocation)."""
    allowed = _describe(lo, hi, lo_open, hi_open)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        try:
            value = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(_not_a_number(name, allowed, value)) from None
    v = float(value)
    ok = math.isfinite(v)
    if ok and lo is not None:
        ok = v > lo if lo_open else v >= lo
    if ok and hi is not None:
        ok = v < hi if hi_open else v <= hi
    if not ok:
        raise ValueError(f"{name} must be {allowed} (got {v!r})")
    return v


def integer(name: str, value: object, *, lo: int) -> int:
    """Return ``value`` as an int >= ``lo`` or raise ValueError naming ``name``."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a whole number >= {lo} (got {value!r})")
    try:
        f = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a whole number >= {lo} (got {value!r})") from None
    if not math.isfinite(f) or f != int(f) or f < lo:
        raise ValueError(f"{name} must be a whole number >= {lo} (got {value!r})")
    return int(f)
