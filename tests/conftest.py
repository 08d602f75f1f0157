"""For every test: benchmarks/ on the import path, so the tests use the project's one Bokeh
protocol-level client, benchmarks/wsclient.py (appended: it shadows nothing)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = str(Path(__file__).resolve().parents[1] / "benchmarks")
if BENCHMARKS not in sys.path:
    sys.path.append(BENCHMARKS)
