"""Comparative sentences of the lessons, decided from the numbers they are about.

A lesson that says "MP is lower than PP here" must say it because the numbers printed next to it
say so. The ``values_*`` modules therefore build every such sentence from the *shown* values
(the strings a table prints, after rounding), with the helpers below: a sentence cannot disagree
with its table, and changing a number of the table changes the sentence
(tests/lessons/test_lessons_verdicts.py perturbs every input of every verdict).

Two shown numbers that are equal at the printed precision are a tie ("too close to call at this
precision"), never a win for either side.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_SUP = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
_SCI = re.compile(r"^\s*([−\-]?[\d.]+)\s*×\s*10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)\s*$")


def num(text: str) -> float:
    """The number a lesson shows: ``0.031``, ``1,024``, ``−0.17``, ``2.3 × 10⁻⁵``."""
    m = _SCI.match(text)
    if m:
        return float(m.group(1).replace("−", "-")) * 10.0 ** int(m.group(2).translate(_SUP))
    return float(text.replace(",", "").replace("−", "-").strip())


def cmp(a: str, b: str) -> int:
    """-1, 0 or 1 as the shown number ``a`` is below, equal to or above ``b``."""
    x, y = num(a), num(b)
    return (x > y) - (x < y)


def lowest(cells: Mapping[str, str]) -> list[str]:
    """The names whose shown number is the smallest (several on a tie)."""
    m = min(num(s) for s in cells.values())
    return [k for k, s in cells.items() if num(s) == m]


def highest(cells: Mapping[str, str]) -> list[str]:
    m = max(num(s) for s in cells.values())
    return [k for k, s in cells.items() if num(s) == m]


def ratio(a: str, b: str) -> float:
    return num(a) / num(b)


def join(items: Iterable[str], lang: str) -> str:
    """``a, b and c`` / ``a, b, c`` (Korean lists take no conjunction, so no particle)."""
    xs = list(items)
    if lang == "ko":
        return ", ".join(xs)
    if len(xs) <= 1:
        return "".join(xs)
    return ", ".join(xs[:-1]) + " and " + xs[-1]
