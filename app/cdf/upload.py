"""Reading an uploaded CSV for the /cdf page (pure Python + numpy; no Panel, no disk).

The bytes come from the browser over the session's websocket and stay in that session's memory:
nothing here opens, writes or caches a file, and nothing is kept at module level, so two
sessions never share an upload.  Every problem becomes an :class:`UploadError` whose ``key``
is a message-catalogue key (``cdf.up.err.*``) and whose ``fmt`` fills its fields, so the page
can say what went wrong in the student's language and keep working.

Accepted: text in UTF-8 (with or without a byte-order mark) or CP949 / EUC-KR (what Korean
spreadsheet programs write), separated by comma, semicolon, tab or '|', at most
MAX_UPLOAD_BYTES bytes and MAX_ROWS data rows.  The first row is a header when one of its cells
is not a number.  A column is offered when at least one of its cells is a number; it can be
used only when every cell is a finite number (empty cells, text, NaN, inf and values too large
for a double are each reported with their line numbers) and there are at least 2 values.

A column that holds whole numbers (a property of its schema, like its bounds) gets a SUGGESTED
value spacing of 1 (``suggest_spacing``): the page offers it, off by default, and it becomes part
of a release only when the student accepts it, a public choice like the bounds
(``dpcore.cdf.lattice.whole_number_spacing``; docs/math.md#granularity).
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpcore.cdf.lattice import whole_number_spacing

FloatArray = NDArray[np.float64]

MAX_UPLOAD_BYTES = 10 * 1024 * 1024  # 10 MiB; base64 over the websocket stays < Bokeh's 20 MiB
MAX_ROWS = 1_000_000
MAX_COLUMNS = 200
EXAMPLES = 3  # bad cells quoted in a message

_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_NONFINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity",
              "-infinity"}


@dataclass(frozen=True)
class UploadError(Exception):
    """A problem with an upload: catalogue ``key`` and its format fields."""

    key: str
    fmt: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.key} {self.fmt}"


@dataclass(frozen=True)
class BadCell:
    line: int  # line number in the file (the header, if any, is line 1)
    text: str
    kind: str  # "empty", "text", "nonfinite", "huge"


@dataclass(frozen=True)
class Column:
    """One column of the file: its finite values and the cells that are not finite numbers."""

    name: str
    values: FloatArray
    bad: tuple[BadCell, ...]
    bad_count: int
    cells: int

    @property
    def usable(self) -> bool:
        return self.bad_count == 0 and self.values.size >= 2

    def problem(self) -> UploadError | None:
        """Why this column cannot be used (None if it can)."""
        if self.bad_count:
            kinds = sorted({b.kind for b in self.bad})
            examples = ", ".join(f"{b.line}: '{b.text[:20]}'" for b in self.bad[:EXAMPLES])
            return UploadError(
                "cdf.up.err.cells",
                {"column": self.name, "count": self.bad_count, "examples": examples,
                 "kinds": "/".join(kinds)},
            )
        if self.values.size < 2:
            return UploadError("cdf.up.err.rows", {"column": self.name, "count": self.values.size})
        return None


@dataclass(frozen=True)
class UploadTable:
    """A parsed upload: file name, content digest (the ledger's key), numeric columns."""

    filename: str
    digest: str
    size: int
    rows: int
    columns: tuple[Column, ...]
    header: bool

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def first_usable(self) -> str:
        for c in self.columns:
            if c.usable:
                return c.name
        return self.columns[0].name


def decode(data: bytes) -> str:
    """Text of the upload: UTF-8 (BOM allowed), else CP949; UploadError otherwise."""
    if b"\x00" in data[:65536]:
        raise UploadError("cdf.up.err.encoding")  # UTF-16/32 or a binary file
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = data.decode("cp949")
        except UnicodeDecodeError:
            raise UploadError("cdf.up.err.encoding") from None
    # Control characters other than tab / newlines mean this is not a text table.
    if re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", text[:65536]):
        raise UploadError("cdf.up.err.encoding")
    return text


def _cell_kind(text: str) -> tuple[float | None, str]:
    s = text.strip()
    if not s:
        return None, "empty"
    if s.lower() in _NONFINITE:
        return None, "nonfinite"
    if not _NUMBER.match(s):
        return None, "text"
    x = float(s)
    if not math.isfinite(x):
        return None, "huge"  # e.g. 1e999: beyond the largest double
    return x, ""


def _dialect(sample: str) -> str:
    counts = {d: sample.count(d) for d in (",", ";", "\t", "|")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def parse(filename: str, data: bytes) -> UploadTable:
    """Parse an upload (see the module docstring).  Raises UploadError with a catalogue key."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise UploadError("cdf.up.err.size",
                          {"size": _mb(len(data)), "limit": _mb(MAX_UPLOAD_BYTES)})
    if not data.strip():
        raise UploadError("cdf.up.err.empty")
    text = decode(data)
    delim = _dialect(text[:65536])
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim, strict=True)
    rows: list[tuple[int, list[str]]] = []
    try:
        for row in reader:
            if not any(c.strip() for c in row):
                continue
            rows.append((reader.line_num, row))
            if len(rows) > MAX_ROWS + 1:
                raise UploadError("cdf.up.err.too_many_rows", {"limit": f"{MAX_ROWS:,}"})
    except csv.Error:
        raise UploadError("cdf.up.err.csv") from None
    if not rows:
        raise UploadError("cdf.up.err.empty")
    first = rows[0][1]
    header = any(c.strip() and _cell_kind(c)[1] in ("text",) for c in first)
    body = rows[1:] if header else rows
    width = min(MAX_COLUMNS, max(len(r) for _, r in rows))
    if header:
        names = [(first[j].strip() if j < len(first) and first[j].strip() else f"#{j + 1}")
                 for j in range(width)]
    else:
        names = [f"#{j + 1}" for j in range(width)]
    # duplicate header names get a suffix so the picker can tell them apart
    seen: dict[str, int] = {}
    for j, nm in enumerate(names):
        if nm in seen:
            seen[nm] += 1
            names[j] = f"{nm} ({seen[nm]})"
        else:
            seen[nm] = 1
    columns: list[Column] = []
    for j in range(width):
        vals: list[float] = []
        bad: list[BadCell] = []
        bad_count = 0
        for line, row in body:
            cell = row[j] if j < len(row) else ""
            x, kind = _cell_kind(cell)
            if x is None:
                bad_count += 1
                if len(bad) < EXAMPLES:
                    bad.append(BadCell(line, cell.strip(), kind))
            else:
                vals.append(x)
        if vals:  # at least one number: offered in the picker
            arr = np.asarray(vals, dtype=np.float64)
            arr.setflags(write=False)
            columns.append(Column(names[j], arr, tuple(bad), bad_count, len(body)))
    if not columns:
        raise UploadError("cdf.up.err.no_numeric")
    return UploadTable(
        filename=filename[:80] or "upload.csv",
        digest=hashlib.sha256(data).hexdigest()[:16],
        size=len(data),
        rows=len(body),
        columns=tuple(columns),
        header=header,
    )


def check_bounds(lo: float | None, hi: float | None) -> UploadError | None:
    """Public bounds chosen by the student: finite, lo < hi, hi - lo a finite double."""
    if lo is None or hi is None:
        return UploadError("cdf.up.err.bounds_missing")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return UploadError("cdf.up.err.bounds_finite")
    if not lo < hi:
        return UploadError("cdf.up.err.bounds_order", {"lo": f"{lo:g}", "hi": f"{hi:g}"})
    if not math.isfinite(hi - lo) or max(abs(lo), abs(hi)) > 1e15:
        return UploadError("cdf.up.err.bounds_huge")
    if (hi - lo) < 1e-9 * max(1.0, abs(lo), abs(hi)):
        return UploadError("cdf.up.err.bounds_narrow")
    return None


def suggest_spacing(column: Column, lo: float | None, hi: float | None) -> float | None:
    """The value spacing to OFFER for ``column`` on the public bounds [lo, hi], or None.

    1.0 when the column is usable, holds whole numbers only and the bounds are whole numbers
    that admit the lattice (``dpcore.cdf.lattice.whole_number_spacing``).  Only a suggestion:
    it reads the column, so the page never applies it by itself; the student declares it (one
    click), and from then on it is a public choice like the bounds, recorded in the release.
    """
    if not column.usable or lo is None or hi is None or check_bounds(lo, hi) is not None:
        return None
    return whole_number_spacing(column.values, (lo, hi))


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f}"
