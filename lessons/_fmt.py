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
