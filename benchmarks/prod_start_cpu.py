"""What a start of `scripts/serve-prod` costs its workers: CPU seconds until they are quiet.

serve-prod (``--workers`` workers, no page built ahead, a fresh run folder and temporary
directory each time, so nothing a previous start computed is found) is started on a free
loopback port; once ``/`` answers, the run waits ``--settle`` seconds and sums the CPU time of
every process serve-prod started except HAProxy and Redis (read from /proc), then stops it.
Baseline: ``--against DIR``, another source tree (e.g. a ``git worktree`` of an older commit),
started in the same run, the two alternating, ``--rounds`` times each; printed: each start's
figure, the medians and this checkout's median as a ratio of the baseline's. Linux only.
A script, not a test: it asserts nothing about time.

    git worktree add /tmp/before HEAD~1 && ln -s "$PWD/.venv" /tmp/before/.venv
    .venv/bin/python benchmarks/prod_start_cpu.py --against /tmp/before
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _common import ROOT, free_port  # noqa: E402
from classroom_load import _tree  # noqa: E402

HZ = os.sysconf("SC_CLK_TCK")


def workers_cpu(root_pid: int) -> float:
    """CPU seconds of every process ``root_pid`` started (its tree, itself apart) except HAProxy
    and Redis."""
    total = 0.0
    for pid in _tree(root_pid)[1:]:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if b"haproxy" not in cmd and b"redis" not in cmd:
            total += (int(fields[11]) + int(fields[12])) / HZ
    return total


def one_start(tree: Path, workers: int, settle: float) -> float:
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="prod-start-")
    env = {**os.environ, "DPLAB_ADDRESS": "127.0.0.1", "DPLAB_PORT": str(port),
           "DPLAB_WORKERS": str(workers), "DPLAB_PREBUILT_PAGES": "0", "TMPDIR": tmp}
    env.pop("DPLAB_CACHE_DIR", None)  # (serve-prod's own choice: its run folder)
    proc = subprocess.Popen([str(tree / "scripts" / "serve-prod")], cwd=tree, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit(f"serve-prod of {tree} did not answer") from None
                time.sleep(0.3)
        time.sleep(settle)
        return workers_cpu(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--against", type=Path, required=True, help="the baseline's source tree")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--settle", type=float, default=20.0,
                   help="seconds after the first answer before the CPU is read")
    args = p.parse_args(argv)
    got: dict[str, list[float]] = {"this": [], "baseline": []}
    for _ in range(args.rounds):
        for name, tree in (("baseline", args.against.resolve()), ("this", ROOT)):
            cpu = one_start(tree, args.workers, args.settle)
            got[name].append(cpu)
            print(f"{name} ({tree}): workers' CPU {cpu:.1f} s", flush=True)
    this, base = statistics.median(got["this"]), statistics.median(got["baseline"])
    print(f"median: this checkout {this:.1f} s, baseline {base:.1f} s: {this / base:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
