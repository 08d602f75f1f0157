"""Input checks shared by dpcore: one place that turns bad input into a student-readable error.

Every rejection is one :class:`dpcore.errors.DPError` (a ValueError with a message key), raised
before any arithmetic, so no numpy warning is emitted first. Rules: True/False and None are not
numbers; Python ints of any size are accepted only when they fit in a double; numeric strings
("1e-5") are accepted by the scalar checks (the command line passes text), not by array checks.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore.errors import DPError, fmt_value


def _allowed(lo: float | None, hi: float | None, lo_open: bool, hi_open: bool) -> dict[str, str]:
    if lo is not None and hi is not None:
        return {"allowed_key": "interval", "left": "(" if lo_open else "[",
                "right": ")" if hi_open else "]", "lo": f"{lo:g}", "hi": f"{hi:g}"}
    if lo is not None:
        return {"allowed_key": "lo", "op": ">" if lo_open else ">=", "lo": f"{lo:g}"}
    if hi is not None:
        return {"allowed_key": "hi", "op": "<" if hi_open else "<=", "hi": f"{hi:g}"}
    return {"allowed_key": "any"}


def _reject(kind: str, name: str, value: object, allowed: dict[str, str]) -> DPError:
    fields = dict(allowed)
    key = f"{kind}.{fields.pop('allowed_key')}"
    return DPError(key, name=name, value=fmt_value(value), **fields)


def _check_range(name: str, x: float, raw: object, lo: float | None, hi: float | None,
                 lo_open: bool, hi_open: bool) -> float:
    ok = math.isfinite(x)
    if ok and lo is not None:
        ok = x > lo if lo_open else x >= lo
    if ok and hi is not None:
        ok = x < hi if hi_open else x <= hi
    if not ok:
        shown = raw if isinstance(raw, int) and not isinstance(raw, bool) else x
        raise _reject("out_of_range", name, shown, _allowed(lo, hi, lo_open, hi_open))
    return x


def real(
    name: str,
    value: ArrayLike,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
) -> NDArray[np.float64]:
    """Return ``value`` as a float array, or raise DPError naming ``name`` and its range."""
    allowed = _allowed(lo, hi, lo_open, hi_open)
    if isinstance(value, bool) or value is None or isinstance(value, (str, bytes)):
        raise _reject("bool" if isinstance(value, bool) else "not_number", name, value, allowed)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise _reject("not_number", name, value, allowed) from None
    if raw.dtype.kind == "b":
        raise _reject("bool", name, value, allowed)
    if raw.dtype.kind == "O":
        for item in raw.ravel().tolist():
            if isinstance(item, bool) or not isinstance(item, Real):
                raise _reject("bool" if isinstance(item, bool) else "not_number", name, item,
                              allowed)
            if isinstance(item, Integral) and not _int_fits(item):
                raise _reject("too_large", name, item, allowed)
    elif raw.dtype.kind not in "iuf":
        raise _reject("not_number", name, value, allowed)
    try:
        arr = raw.astype(np.float64, copy=False)
    except (TypeError, ValueError, OverflowError):
        raise _reject("not_number", name, value, allowed) from None
    if arr.size == 0:
        return arr
    # two reductions instead of elementwise masks (NaN makes both comparisons False)
    low, high = float(arr.min()), float(arr.max())
    ok = -_MAX <= low and high <= _MAX
    if ok and lo is not None:
        ok = low > lo if lo_open else low >= lo
    if ok and hi is not None:
        ok = high < hi if hi_open else high <= hi
    if not ok:
        bad = ~np.isfinite(arr)
        if lo is not None:
            bad |= (arr <= lo) if lo_open else (arr < lo)
        if hi is not None:
            bad |= (arr >= hi) if hi_open else (arr > hi)
        first = float(arr[bad].flat[0]) if arr.ndim else float(arr)
        raise _reject("out_of_range", name, first, allowed)
    return arr


_MAX = 1.7976931348623157e308


def _int_fits(i: Integral | int) -> bool:
    return abs(int(i)) <= _MAX


def real_scalar(
    name: str,
    value: object,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
) -> float:
    """Scalar version of :func:`real` (fast path: no array allocation); text is parsed."""
    if type(value) is float:  # the common case first
        x = value
    elif isinstance(value, bool) or value is None:
        raise _reject("bool" if isinstance(value, bool) else "not_number", name, value,
                      _allowed(lo, hi, lo_open, hi_open))
    elif isinstance(value, Integral):
        if not _int_fits(value):
            raise _reject("too_large", name, value, _allowed(lo, hi, lo_open, hi_open))
        x = float(value)
    elif isinstance(value, (Real, np.floating)):
        x = float(value)
    elif isinstance(value, str):
        try:
            x = float(value.strip())
        except ValueError:
            raise _reject("not_number", name, value, _allowed(lo, hi, lo_open, hi_open)) from None
    else:
        raise _reject("not_number", name, value, _allowed(lo, hi, lo_open, hi_open))
    return _check_range(name, x, value, lo, hi, lo_open, hi_open)


def integer(name: str, value: object, *, lo: int) -> int:
    """Return ``value`` as an int >= ``lo`` or raise DPError naming ``name``.

    Python ints are kept exactly (any size); floats and text must be whole ("1e30" is the whole
    number 10^30 rounded to a double, 1000000000000000019884624838656).
    """
    allowed = {"allowed_key": "whole", "lo": str(lo)}
    if isinstance(value, bool) or value is None:
        raise _reject("bool" if isinstance(value, bool) else "not_number", name, value, allowed)
    if isinstance(value, Integral):
        i = int(value)
        if i < lo:
            raise _reject("out_of_range", name, value, allowed)
        return i
    if isinstance(value, str):
        s = value.strip()
        try:
            return integer(name, int(s), lo=lo)
        except ValueError:
            pass
        try:
            f = float(s)
        except ValueError:
            raise _reject("not_number", name, value, allowed) from None
    elif isinstance(value, (Real, np.floating)):
        f = float(value)
    else:
        raise _reject("not_number", name, value, allowed)
    if not math.isfinite(f) or f != int(f) or f < lo:
        raise _reject("out_of_range", name, value, allowed)
    return int(f)
