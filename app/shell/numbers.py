"""Numbers as text: what a page shows, and the text a number reads back from.

One module for every page, so the lab, the CDF page and the exports spell a number the same way:
:func:`fmt_input` is the shortest text that parses back to the same double (inputs, addresses,
exported files), the others are the display forms with a fixed number of digits.
"""

from __future__ import annotations

import math
import unicodedata

from app.shell.i18n import LANGUAGE_REGISTRY


# ---------------------------------------------------------------------------------------------
# number formatting (pure; unit-tested)
# ---------------------------------------------------------------------------------------------
def fmt_delta(x: float) -> str:
    """A delta with 10 significant digits; 0 only for an exact double 0.0."""
    if x == 0:
        return "0"
    return f"{x:.10g}"


def fmt_log10(x: float) -> str:
    """log10 with 4 decimals; -inf as the ASCII text ``-inf``."""
    if x == -math.inf:
        return "-inf"
    return f"{x:.4f}"


def fmt_num(x: float, digits: int = 10) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}"


def fmt_prob(p: float, log_p: float, digits: int = 8) -> str:
    """A probability, with its log10 when the double underflows or is tiny."""
    if log_p == -math.inf:
        return "0"
    if p == 0 or p < 1e-300:
        return f"10^{log_p / math.log(10):.{max(2, digits - 4)}f}"
    return f"{p:.{digits}g}"


def underflow_approx(log10_delta: float) -> str:
    """``10^−2223595.49``: an underflowed δ's size, from its exact log10 (2 decimals)."""
    return f"10^{log10_delta:.2f}".replace("-", "\u2212")


def fmt_input(x: float) -> str:
    """Shortest text that parses back to exactly ``x`` ("1" not "1.0"; "1e-06"; "1e+20").

    The one spelling of a number in an input field, an address and an exported link.
    """
    if isinstance(x, int):
        return str(x)
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") else r


def fmt_repr(x: float) -> str:
    """Round-trip text of a double as Python writes it (``repr``: "1.0"), ``inf``/``-inf``
    spelled out (exported files, where a reader expects a float)."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(float(x))


# How a percentage is spelled (lessons/terms.toml, concept "percent"): Korean puts the sign
# right after the number ("95%"), English leaves a space before it ("95 %", as the SI does);
# each language's spacing is registered with it (lessons/languages.py).
PERCENT_SPACE = {code: lang.percent_space for code, lang in LANGUAGE_REGISTRY.items()}


def pct_text(number: str, lang: str) -> str:
    """``number`` (text already formatted) with the percent sign, spaced as ``lang`` writes
    it: ``pct_text("95", "ko") == "95%"``, ``pct_text("95", "en") == "95 %"``."""
    return f"{number}{PERCENT_SPACE[lang]}%"


def fmt_pct(share: float | None, lang: str, decimals: int = 1) -> str:
    """A share (0.95) as a percentage with ``decimals`` decimals, spelled as ``lang`` writes
    it ("95.0%" in Korean, "95.0 %" in English); a dash for None or a share that is not
    finite."""
    if share is None or not math.isfinite(share):
        return "—"
    return pct_text(f"{100 * share:.{decimals}f}", lang)


def _halfwidth(c: str) -> str:
    # NFKC of the full-width forms (U+FF01-U+FF5E) and the ideographic space only: NFKC of
    # every character would also read a superscript "10²" as "102", a different number
    return unicodedata.normalize("NFKC", c) if "\uff01" <= c <= "\uff5e" or c == "\u3000" else c


def ascii_number_text(text: str) -> str:
    """User text with full-width characters in their NFKC form (the digits, signs and marks a
    Korean or Japanese input method types: "１．５", "－２", "１ｅ－６" become ASCII), every
    space removed and the Unicode minus as ``-``: the text a field shows once its number is
    accepted (/lab and /cdf)."""
    s = "".join(_halfwidth(c) for c in str(text))
    return "".join(s.split()).replace("\u2212", "-")


def clean_number_text(text: str) -> str:
    """:func:`ascii_number_text`, and a lone ``,`` as the decimal mark ``.`` (/lab)."""
    s = ascii_number_text(text)
    if s.count(",") == 1 and "." not in s:
        s = s.replace(",", ".")
    return s


def parse_number(text: str) -> float:
    """A finite float from user text; full-width characters (NFKC), ``,`` as a decimal mark
    and spaces are tolerated (:func:`clean_number_text`).

    Raises ValueError for text that is not a finite number (nan, inf, words).
    """
    s = clean_number_text(text)
    x = float(s)  # ValueError for words
    if not math.isfinite(x):
        raise ValueError("not a finite number")
    return x
