"""serve-prod's default session cap: what one worker measurably holds, lowered to what the
memory allows (DPLAB_MEMORY_LIMIT, else the cgroup limit, else the memory available); and the
pages each worker builds ahead: 24, more when the memory holds them beside full workers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "serve-prod"


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DPLAB_")}
    return subprocess.run([sys.executable, str(SCRIPT), *args], text=True,
                          capture_output=True, env={**clean, "DPLAB_WORKERS": "2", **env},
                          timeout=60)


def _config(**env: str) -> subprocess.CompletedProcess[str]:
    return _run("--print-config", **env)


def _cap(out: str) -> tuple[int, str]:
    m = re.search(r"^# sessions per worker: (\d+) \((.*)\)$", out, re.M)
    assert m, out[:300]
    maxconn = re.search(r"maxconn (\d+)", out)
    assert maxconn and int(maxconn.group(1)) >= 2 * int(m.group(1))  # balancer follows
    return int(m.group(1)), m.group(2)


def _measured() -> int:
    m = re.search(r"^MEASURED_SESSIONS_PER_WORKER = (\d+)", SCRIPT.read_text(), re.M)
    assert m
    return int(m.group(1))


def test_plenty_of_memory_gives_the_measured_capacity() -> None:
    cap, why = _cap(_config(DPLAB_MEMORY_LIMIT="64g").stdout)
    assert (cap, why) == (_measured(), "what one worker measurably holds")


@pytest.mark.parametrize(("limit", "expected"),
                         [("1g", 42), ("1024m", 42), ("2g", 145), ("3g", 247)])
def test_a_small_memory_limit_lowers_the_cap(limit: str, expected: int) -> None:
    # (0.8 * limit - 40 MB) / 2 workers - (140 + 78) MB, in sessions of 4 MB
    cap, why = _cap(_config(DPLAB_MEMORY_LIMIT=limit).stdout)
    assert cap == min(expected, _measured())
    if expected < _measured():
        assert "DPLAB_MEMORY_LIMIT" in why and "2 workers" in why


def test_an_empty_variable_as_the_image_and_compose_set_it_is_the_default() -> None:
    # The Dockerfile and compose.yaml leave DPLAB_MAX_SESSIONS empty, so a container follows
    # the measured capacity and its memory limit instead of a fixed number.
    assert _cap(_config(DPLAB_MAX_SESSIONS="", DPLAB_MEMORY_LIMIT="64g").stdout) == (
        _measured(), "what one worker measurably holds")
    for name in ("Dockerfile", "compose.yaml"):
        text = (ROOT / name).read_text()
        fixed = re.search(r"DPLAB_MAX_SESSIONS(?:=|: \$\{DPLAB_MAX_SESSIONS:-)(\d+)", text)
        assert fixed is None, f"{name} fixes the cap at {fixed.group(1)}"


def test_help_prints_the_configuration_and_starts_nothing() -> None:
    for flag in ("--help", "-h"):
        r = _run(flag)  # (a server would not exit: the run would time out)
        assert r.returncode == 0 and "DPLAB_MAX_SESSIONS" in r.stdout, r.stderr[:300]
        assert "serve-prod: ready:" not in r.stdout + r.stderr
    r = _run("--port=8080")
    assert r.returncode == 2 and "unknown option '--port=8080'" in r.stdout + r.stderr


def test_the_environment_wins_and_bad_sizes_are_refused() -> None:
    assert _cap(_config(DPLAB_MAX_SESSIONS="77", DPLAB_MEMORY_LIMIT="300m").stdout) == (
        77, "DPLAB_MAX_SESSIONS")
    bad = _config(DPLAB_MEMORY_LIMIT="lots")
    assert bad.returncode == 2 and "DPLAB_MEMORY_LIMIT" in bad.stderr + bad.stdout
    assert _cap(_config(DPLAB_MEMORY_LIMIT="100m").stdout)[0] == 10  # never below 10


def _prebuilt(out: str) -> tuple[int, str]:
    m = re.search(r"^# pages built ahead per worker: (\d+) \((.*)\)$", out, re.M)
    assert m, out[:300]
    return int(m.group(1)), m.group(2)


@pytest.mark.parametrize(("limit", "expected"),
                         [("64g", 100), ("3500m", 73), ("3g", 24), ("1g", 24)])
def test_pages_built_ahead_follow_the_memory_beside_full_workers(limit: str,
                                                                  expected: int) -> None:
    # 24, plus what is left per worker after (140 + 78) MB and the cap's sessions of 4 MB, in
    # pages of 3.25 MB, at most 100. 3500m: (0.8 * 3500 - 40) / 2 - 218 - 250 * 4 = 162 MB.
    n, why = _prebuilt(_config(DPLAB_MEMORY_LIMIT=limit).stdout)
    assert n == expected
    assert "DPLAB_MEMORY_LIMIT" in why


def test_pages_built_ahead_from_the_environment() -> None:
    assert _prebuilt(_config(DPLAB_PREBUILT_PAGES="0", DPLAB_MEMORY_LIMIT="64g").stdout) == (
        0, "DPLAB_PREBUILT_PAGES")
    bad = _config(DPLAB_PREBUILT_PAGES="-3")
    assert bad.returncode == 2 and "DPLAB_PREBUILT_PAGES" in bad.stderr + bad.stdout


def test_the_scripts_default_pool_is_the_apps() -> None:
    from app.serve.prebuild import DEFAULT_SIZE

    m = re.search(r"^PREBUILT_DEFAULT = (\d+)", SCRIPT.read_text(), re.M)
    assert m and int(m.group(1)) == DEFAULT_SIZE
    assert _prebuilt(_config(DPLAB_MEMORY_LIMIT="1g").stdout)[0] == DEFAULT_SIZE
