"""Number formatting shared by the ``values_*`` modules (plain text and TeX variants)."""

from __future__ import annotations

import math

_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sig(x: float, digits: int = 8) -> str:
    """``x`` with ``digits`` significant digits, plain decimal when 1e-4 <= |x| < 1e6."""
    if x == 0:
        return "0"
    if 1e-4 <= abs(x) < 1e6:
        return f"{x:.{digits}g}".replace("-", "−")
    return sci(x, digits)


def fixed(x: float, decimals: int) -> str:
    return f"{x:.{decimals}f}".replace("-", "−")


def sci(x: float, digits: int = 8) -> str:
    """``2.9242721 × 10⁻⁶`` (plain text, Unicode superscripts)."""
    if x == 0:
        return "0"
    e = math.floor(math.log10(abs(x)))
    m = x / 10.0**e
    if round(abs(m), digits - 1) >= 10:
        m, e = m / 10, e + 1
    mant = f"{m:.{digits - 1}f}".rstrip("0").rstrip(".").replace("-", "−")
    return mant + " × 10" + str(e).translate(_SUP)


def sci_tex(x: float, digits: int = 8) -> str:
    """``2.9242721\\times10^{-6}`` for use inside ``$...$``."""
    if x == 0:
        return "0"
    e = math.floor(math.log10(abs(x)))
    m = x / 10.0**e
    if round(abs(m), digits - 1) >= 10:
        m, e = m / 10, e + 1
    return f"{m:.{digits - 1}f}".rstrip("0").rstrip(".") + rf"\times10^{{{e}}}"


def tex(s: str) -> str:
    """A plain value for use inside ``$...$`` (Unicode minus -> ASCII)."""
    return s.replace("−", "-")


def rounded(x: float, digits: int = 2) -> str:
    """``x`` rounded to ``digits`` significant digits, written out with thousands separators.

    For "about 43,000 times": ``rounded(43407.98) == "43,000"`` (never scientific notation).
    """
    if x == 0:
        return "0"
    e = math.floor(math.log10(abs(x)))
    r = round(x, digits - 1 - e)
    decimals = max(0, digits - 1 - e)
    return f"{r:,.{decimals}f}".replace("-", "−")


def sci_exact(x: float, digits: int = 2) -> str:
    """Like :func:`sci`, also for subnormal doubles (no ``10.0**e`` underflow)."""
    from decimal import Decimal

    if x == 0:
        return "0"
    mant, exp = f"{Decimal(x):.{digits - 1}E}".split("E")
    return mant.replace("-", "−") + " × 10" + str(int(exp)).translate(_SUP)
