"""For every test: benchmarks/ on the import path, so the tests use the project's one Bokeh
protocol-level client, benchmarks/wsclient.py (appended: it shadows nothing)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = str(Path(__file__).resolve().parents[1] / "benchmarks")
if BENCHMARKS not in sys.path:
    sys.path.append(BENCHMARKS)


# Checked last: the browser tests' shared server log holds no app traceback once every other
# browser test has run (tests/ui/test_server_log.py).
RUN_LAST = "tests/ui/test_server_log.py"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    last = [i for i in items if i.nodeid.startswith(RUN_LAST)]
    if last:
        items[:] = [i for i in items if not i.nodeid.startswith(RUN_LAST)] + last
