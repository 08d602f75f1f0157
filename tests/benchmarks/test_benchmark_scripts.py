"""Every benchmark script imports (its helpers resolve): a script whose helper moved elsewhere
must fail here, not on the day of a load run. Imported as a module, so nothing runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS)
def test_benchmark_script_imports(script: str) -> None:
    code = (f"import sys; sys.path.insert(0, {str(BENCH)!r}); import importlib; "
            f"m = importlib.import_module({script!r}); print(m.__name__)")
    r = subprocess.run([sys.executable, "-c", code], cwd=BENCH.parent, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split()[-1] == script
