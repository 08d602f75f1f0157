"""The private CDF as a CSV file (only the private curve: the reference CDF is not private)."""

from __future__ import annotations

from collections.abc import Sequence

from app.shell.numbers import fmt_repr


def cdf_csv(grid: Sequence[float], values: Sequence[float], *, eps: float, delta: float,
            header: Sequence[str] = ()) -> str:
    """A private CDF as CSV: ``x,cdf`` with its (ε, δ) in the first line (for /cdf)."""
    head = [f"# dplab private CDF: eps={fmt_repr(eps)} delta={fmt_repr(delta)}",
            *(f"# {h}" for h in header), "x,cdf"]
    rows = [f"{fmt_repr(x)},{fmt_repr(y)}" for x, y in zip(grid, values, strict=True)]
    return "\n".join(head + rows) + "\n"
