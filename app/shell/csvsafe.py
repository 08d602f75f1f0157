"""CSV cells a spreadsheet will not run: text that starts like a formula gets an apostrophe.

A spreadsheet opening a CSV runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in
some, a tab or carriage return first) as a formula (OWASP "CSV injection"): a poll question typed
as ``=HYPERLINK(...)`` would become a link on the instructor's machine. Such text is written as
``'=HYPERLINK(...)`` (the apostrophe marks text and is not shown). Numbers stay numbers: a negative
estimate is written as ``-0.05``, not as text.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """``value`` as a safe CSV cell: numbers (not bools) unchanged, other text neutralised."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value if not isinstance(value, float) or math.isfinite(value) else ""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def rows_text(rows: Iterable[Sequence[object]]) -> str:
    """The CSV text of ``rows``, every cell through :func:`cell`."""
    buf = io.StringIO()
    w = csv.writer(buf)
    for row in rows:
        w.writerow([cell(v) for v in row])
    return buf.getvalue()
