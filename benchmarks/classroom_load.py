"""A lecture hall on one server: many protocol-level browser tabs on /lab (benchmarks/wsclient.py).

Modes (one per run; each prints a table and one JSON line, ``--json FILE`` appends it):

- ``moves``: N students open /lab (spread over ``--ramp`` seconds; 0 = all in the same second)
  and then each moves the σ or ε slider every ~``--interval`` s (uniformly 2/3 to 4/3 of it,
  open loop: a student does not wait for the previous card). For ``--duration`` seconds after
  the last tab opened: p50 / p95 / max of slider release -> new card received, lost moves (no
  card within ``--lost-after`` s), server CPU (% of one core, all processes of the server) and
  RSS. Baseline, measured in the same run on the same server just before the class: one
  student alone making 30 moves ("alone"); the class figures are also given as ratios to it.
- ``open``: N students open /lab within ``--spread`` s (default 1 s). Time to a complete page
  (HTML, scripts and style sheets unless ``--warm-cache``, document pulled, document_ready
  answered), p50 / p95 / max, failures, then one slider move per tab. Baseline in the same
  run: one student opening alone (median of 3). ``--room``: a live class opening its room's
  link (the teacher signs in first, as in ``follow``; ``room=CODE`` joins ``--path``).
- ``memory``: server RSS before any class, with N idle sessions open, and after they close and
  the server discards them (Bokeh drops a closed session after ~15-35 s), ``--cycles`` times.
- ``follow``: a live class. The teacher signs in (``POST /teach``, token ``--token`` or the
  one given to the server started here) and opens ``/lab?room=CODE``; N students open it too
  and follow; the teacher moves the σ slider ``--moves`` times, one every ``--interval`` s.
  Figures: teacher's release -> each follower's card shows the new σ, p50 / p95 / max, lost
  (no new card within ``--lost-after`` s), server CPU per move and per follower and move.
  Baseline in the same run, on the same server and room just before the class: the teacher
  and one follower ("one follower"), ``--baseline-moves`` moves.
- ``churn``: ``follow`` with tab churn (issue 37). N students follow the room; a third of them
  (``--churn-share``) leave the lab for the class page (``/join?room=CODE``, polling
  ``/join/state`` every 2 s) for ``--away`` s and come back, once every ``--churn-period`` s
  each (their phases spread over the period), as long as the teacher moves the σ slider (one
  move every ``--interval`` s for ``--duration`` s). Figures: follow latency of the students on
  the lab at each move (p50 / p95 / max, lost), the returning students' complete page, the
  class page's polls, the server's logged pauses (every "... paused the server X s" line of the
  workers: collections, page builds, the closed pages' freeing) of ``--pause-at`` s or more
  during the class and in the whole run, each worker's ``/healthz`` answer time probed beside
  HAProxy's checks, and whether HAProxy marked a worker DOWN (its log and the stats socket's
  ``chkdown``). Baseline in the same run: one follower alone, as ``follow``.

Server: by default the script starts ``python -m``-style ``app.serve.server.serve`` from
``--server-root`` (default: this checkout) on a free loopback port and stops it afterwards;
``--server-cmd CMD`` starts another command instead (``DPLAB_ADDRESS``/``DPLAB_PORT`` set, e.g.
``scripts/serve-prod``); ``--url URL --pid PID`` targets a server that is already running
(PID: the process whose process tree is the server, for CPU and RSS; optional).
``--variant panel-busy`` runs our own server with Panel's default busy indicator (the state
before issue 11) and ``--variant no-prebuild`` with every page built on demand
(``DPLAB_PREBUILT_PAGES=0``) for before/after comparisons; ``--idle S`` (open) is how long the
server sits idle between the baselines and the class opening (pages are built ahead then);
``--profile FILE`` records the server with py-spy (speedscope JSON) during the measured window.

Also printed: the machine's load average and how much CPU other processes used during the run
(the machine is shared), and the load client's own CPU and event-loop lag (if the client is
saturated, its latencies are not the server's).

Usage examples (2-core machine; keep runs short):
  .venv/bin/python benchmarks/classroom_load.py moves --students 200 --duration 60
  .venv/bin/python benchmarks/classroom_load.py open --students 50
  .venv/bin/python benchmarks/classroom_load.py memory --students 100 --cycles 2
  .venv/bin/python benchmarks/classroom_load.py follow --students 300 \
      --server-cmd scripts/serve-prod
  .venv/bin/python benchmarks/classroom_load.py churn --students 300 --duration 240 \
      --server-cmd scripts/serve-prod
This is a script, not a test: it asserts nothing about wall-clock time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import resource
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from _common import (
    APP_MODULES,
    ROOT,
    free_port,
    machine_reference_ms,
    pct,
    server_code,
    server_env,
)
from wsclient import (
    Follower,
    LabTab,
    Move,
    OpenTimes,
    Tab,
    class_page,
    follow_values,
    open_followers,
    sigma_shown,
    teacher_move,
    teacher_sign_in,
)

SIGMA_LOG = (-0.5, 0.8)  # σ from 0.32 to 6.3 on the slider: always inside the valid h range
EPS_RANGE = (0.2, 6.0)

SERVER_CODE = r"""
import os, sys
sys.path.insert(0, os.environ["DPLAB_BENCH_ROOT"])
if os.environ.get("DPLAB_BENCH_VARIANT") == "panel-busy":
    # Before issue 11: the template kept Panel's default (process-wide) busy indicator.
    import panel as pn
    _T = pn.template.FastListTemplate
    class _Busy(_T):
        def __init__(self, **kw):
            kw.pop("busy_indicator", None)
            super().__init__(**kw)
    pn.template.FastListTemplate = _Busy
import inspect
from $server import serve
kw = {}
if "max_sessions" in inspect.signature(serve).parameters:
    # One process carries the whole class here: no per-worker session cap.
    kw["max_sessions"] = int(os.environ.get("DPLAB_BENCH_MAX_SESSIONS", "2000"))
serve(address="127.0.0.1", port=int(os.environ["DPLAB_BENCH_PORT"]), **kw)
"""


# ---------------------------------------------------------------------------------------------
# statistics and /proc sampling
# ---------------------------------------------------------------------------------------------
def _tree(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(d))
    out, stack = [], [pid]
    while stack:
        p = stack.pop()
        out.append(p)
        stack.extend(children.get(p, []))
    return out


def proc_sample(pid: int | None) -> tuple[float, float]:
    """(CPU seconds, RSS MB) summed over the process tree of ``pid`` (nan when unknown)."""
    if pid is None:
        return math.nan, math.nan
    tick = os.sysconf("SC_CLK_TCK")
    cpu = rss = 0.0
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / tick
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss += int(line.split()[1]) / 1024
        except (OSError, IndexError, ValueError):
            continue
    return cpu, rss


def machine_busy() -> tuple[float, float]:
    """(busy CPU seconds, total CPU seconds) of the whole machine since boot."""
    with open("/proc/stat") as f:
        parts = [int(x) for x in f.readline().split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    idle = parts[3] + parts[4]
    return (sum(parts) - idle) / tick, sum(parts) / tick


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


@dataclass
class Window:
    """CPU/RSS/load of one measured window."""

    t0: float = 0.0
    server0: tuple[float, float] = (math.nan, math.nan)
    machine0: tuple[float, float] = (0.0, 0.0)
    client0: float = 0.0
    load_start: str = ""
    rss_peak: float = math.nan

    @classmethod
    def start(cls, pid: int | None) -> Window:
        ru = resource.getrusage(resource.RUSAGE_SELF)
        return cls(time.perf_counter(), proc_sample(pid), machine_busy(), ru.ru_utime + ru.ru_stime,
                   loadavg(), proc_sample(pid)[1])

    def result(self, pid: int | None) -> dict[str, Any]:
        wall = time.perf_counter() - self.t0
        cpu, rss = proc_sample(pid)
        busy, total = machine_busy()
        ru = resource.getrusage(resource.RUSAGE_SELF)
        client = ru.ru_utime + ru.ru_stime - self.client0
        server = cpu - self.server0[0]
        machine = busy - self.machine0[0]
        others = machine - client - (0.0 if math.isnan(server) else server)
        return {
            "wall_s": wall,
            "server_cpu_pct": 100 * server / wall,
            "server_rss_mb": rss,
            "server_rss_peak_mb": max(self.rss_peak, rss),
            "client_cpu_pct": 100 * client / wall,
            "others_cpu_pct": 100 * max(0.0, others) / wall,
            "machine_cpu_pct": 100 * machine / (total - self.machine0[1]) * (os.cpu_count() or 1),
            "load_start": self.load_start,
            "load_end": loadavg(),
        }


async def sample_rss(pid: int | None, win: Window, stop: asyncio.Event) -> None:
    while not stop.is_set():
        r = proc_sample(pid)[1]
        if not math.isnan(r):
            win.rss_peak = r if math.isnan(win.rss_peak) else max(win.rss_peak, r)
        try:
            await asyncio.wait_for(stop.wait(), 1.0)
        except TimeoutError:
            pass


async def loop_lag(out: list[float], stop: asyncio.Event) -> None:
    """How late the client's event loop wakes up (a saturated client inflates latencies)."""
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.05)
        out.append(time.perf_counter() - t - 0.05)


# ---------------------------------------------------------------------------------------------
# the server under test
# ---------------------------------------------------------------------------------------------
@dataclass
class Server:
    url: str
    pid: int | None
    proc: subprocess.Popen[bytes] | None = None
    log: Path | None = None

    def stop(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=5)


def start_server(args: argparse.Namespace) -> Server:
    if args.url:
        return Server(args.url.rstrip("/"), args.pid)
    port = free_port()
    root = Path(args.server_root).resolve()
    env = server_env(root, DPLAB_BENCH_ROOT=str(root), DPLAB_BENCH_PORT=str(port),
                     DPLAB_BENCH_VARIANT=args.variant, DPLAB_ADDRESS="127.0.0.1",
                     DPLAB_PORT=str(port),
                     DPLAB_PYTHON=os.environ.get("DPLAB_PYTHON", sys.executable))
    if args.variant == "no-prebuild":  # every page built on demand (app/serve/prebuild.py)
        env["DPLAB_PREBUILT_PAGES"] = "0"
    if args.mode in ("follow", "churn"):  # the class's teacher; serve-prod's cap is per worker
        env.update(DPLAB_TEACHER_TOKEN=args.token,
                   DPLAB_MAX_SESSIONS=str(max(150, args.students + 50)))
    elif args.room:
        env["DPLAB_TEACHER_TOKEN"] = args.token
    if args.server_cmd:
        cmd = shlex.split(args.server_cmd)
    else:
        cmd = [sys.executable, "-c", server_code(SERVER_CODE)]
    log = Path(f"/tmp/classroom_load_server_{port}.log")
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    srv = Server(f"http://127.0.0.1:{port}", proc.pid, proc, log)
    deadline = time.time() + 90
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited ({proc.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"{srv.url}/lab?lang=en", timeout=10):
                return srv
        except OSError:
            time.sleep(0.3)
    srv.stop()
    raise SystemExit(f"server did not start in 90 s; see {log}")


def start_profile(args: argparse.Namespace, pid: int | None, seconds: float
                  ) -> subprocess.Popen[bytes] | None:
    if not args.profile or pid is None:
        return None
    pyspy = Path(sys.executable).parent / "py-spy"
    cmd = [str(pyspy), "record", "--pid", str(pid), "--duration", str(int(seconds)),
           "--rate", "100", "--format", args.profile_format, "--output", args.profile,
           "--nonblocking", "--subprocesses"]  # (serve-prod: the workers are its children)
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


PAUSE_RE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) \S+ (.*?) paused the server "
                      r"([0-9.]+) s(?: \(([0-9.]+) s of CPU[,)])?", re.M)


def logged_pauses(log: Path | None) -> list[tuple[datetime, str, float, float]]:
    """(when, what, seconds, CPU seconds or nan) of every pause the server logged: collections
    ("gc generation N"), page builds, pages built ahead, the walking and freeing of closed pages
    (app.serve.server tune_process and GcPolicy, app.serve.prebuild; each logs those of 0.2 s or
    more; all but the collections also say the CPU time the step took)."""
    if log is None or not log.exists():
        return []
    text = log.read_text(errors="replace")
    return [(datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f"), m.group(2), float(m.group(3)),
             float(m.group(4)) if m.group(4) else math.nan) for m in PAUSE_RE.finditer(text)]


def gc_pauses(log: Path | None) -> dict[str, Any]:
    """Long pauses the server logged (see :func:`logged_pauses`) and page-script runs."""
    if log is None or not log.exists():
        return {}
    text = log.read_text(errors="replace")
    pauses = [p for _, _, p, _ in logged_pauses(log)]
    # app.serve.hardening logs one "page-run" line each time a page script runs (all tabs of the
    # run, warm-up and baselines included): more than one per tab means sessions were rebuilt.
    return {"gc_pauses_logged": len(pauses), "gc_pause_max_s": max(pauses, default=0.0),
            "page_runs_logged": text.count(" page-run ")}


def stop_profile(prof: subprocess.Popen[bytes] | None) -> None:
    if prof is None:
        return
    if prof.poll() is None:
        prof.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
    try:
        prof.wait(timeout=60)
    except subprocess.TimeoutExpired:
        prof.kill()
    err = (prof.stderr.read() if prof.stderr else b"").decode(errors="replace").strip()
    if prof.returncode not in (0, -signal.SIGINT) and err:
        print(f"py-spy: {err[-300:]}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# students
# ---------------------------------------------------------------------------------------------
@dataclass
class Results:
    moves: list[Move] = field(default_factory=list)

    def add(self, m: Move) -> None:
        self.moves.append(m)

    def summary(self, t_from: float, t_to: float, lost_after: float) -> dict[str, Any]:
        ms = [m for m in self.moves if t_from <= m.sent < t_to]
        ok = [m.latency for m in ms if m.latency is not None and m.latency <= lost_after]
        lost = len(ms) - len(ok)
        return {"moves": len(ms), "lost": lost,
                "lost_pct": 100 * lost / len(ms) if ms else math.nan,
                "p50_ms": 1000 * pct(ok, 0.5), "p95_ms": 1000 * pct(ok, 0.95),
                "max_ms": 1000 * max(ok) if ok else math.nan}


def next_value(tab: LabTab, slider: str, rng: random.Random) -> float:
    if slider == "sigma":
        lo, hi = SIGMA_LOG
        k = round(tab.sigma_log / 0.01) + rng.choice([-7, -4, -2, 2, 4, 7])
        v = round(k * 0.01, 2)
        return v if lo <= v <= hi else round((lo + hi) / 2 + rng.uniform(-0.2, 0.2), 2)
    lo, hi = EPS_RANGE
    k = round(tab.eps / 0.05) + rng.choice([-6, -3, -1, 1, 3, 6])
    v = round(k * 0.05, 2)
    return v if lo <= v <= hi else round(round(rng.uniform(1.0, 3.0) / 0.05) * 0.05, 2)


async def student(tab: LabTab, rng: random.Random, interval: float, stop: asyncio.Event,
                  lost_after: float) -> None:
    await asyncio.sleep(rng.uniform(0, interval))
    n = rng.randrange(2)
    while not stop.is_set() and not tab.closed:
        slider = ("sigma", "eps")[n % 2]
        n += 1
        try:
            await tab.move(slider, next_value(tab, slider, rng))
        except Exception as exc:  # the connection died: the tab stops, its moves are lost
            tab.errors.append(f"move: {exc}")
            return
        tab.expire(lost_after)
        try:
            await asyncio.wait_for(stop.wait(), interval * rng.uniform(2 / 3, 4 / 3))
        except TimeoutError:
            pass


SCROLLED: list[float] = []  # seconds from "scrolled down" to the built figure, per tab
OPENED = [0]  # tabs whose page GET succeeded (warm-up and baselines included)


async def open_tab(url: str, results: Results | None, fetch_assets: bool,
                   timeout: float, scroll: bool = False
                   ) -> tuple[LabTab, OpenTimes | None, str | None]:
    tab = LabTab(url, fetch_assets=fetch_assets, timeout=timeout,
                 on_result=results.add if results else None)
    try:
        t = await asyncio.wait_for(tab.open(), timeout)
        OPENED[0] += 1
        if scroll:  # after the page is complete: the student scrolls to the bottom
            SCROLLED.append(await asyncio.wait_for(tab.scroll_down(), timeout))
        return tab, t, None
    except Exception as exc:
        await tab.close()
        return tab, None, f"{type(exc).__name__}: {exc}"[:200]


async def drain(tabs: list[LabTab], lost_after: float) -> None:
    deadline = time.perf_counter() + lost_after + 0.5
    while any(t.pending for t in tabs) and time.perf_counter() < deadline:
        await asyncio.sleep(0.1)
    for t in tabs:
        t.expire(0.0)  # whatever is still pending now is lost


async def alone(url: str, moves: int, lost_after: float) -> dict[str, Any]:
    """Baseline: one student on the otherwise idle server, a move every 0.4 s."""
    res = Results()
    tab, _, err = await open_tab(url, res, False, 60)
    if err:
        raise SystemExit(f"baseline tab failed to open: {err}")
    rng = random.Random(7)
    for i in range(moves):
        slider = ("sigma", "eps")[i % 2]
        m = await tab.move(slider, next_value(tab, slider, rng))
        t0 = time.perf_counter()
        while m.latency is None and time.perf_counter() - t0 < lost_after:
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.4)
    await drain([tab], lost_after)
    await tab.close()
    return res.summary(0, math.inf, lost_after)


# ---------------------------------------------------------------------------------------------
# modes
# ---------------------------------------------------------------------------------------------
async def warm_up(url: str) -> None:
    # The first sessions pay for imports and caches: not part of any figure.
    for _ in range(2):
        tab, _, err = await open_tab(url, None, False, 120)
        if err:
            raise SystemExit(f"warm-up failed: {err}")
        await tab.move("eps", 1.5)
        await asyncio.sleep(0.5)
        await tab.close()


async def run_moves(args: argparse.Namespace, srv: Server) -> dict[str, Any]:
    url = f"{srv.url}{args.path}"
    await warm_up(url)
    base = await alone(url, args.baseline_moves, args.lost_after)
    print(f"baseline (alone): p50 {base['p50_ms']:.0f} ms  p95 {base['p95_ms']:.0f} ms  "
          f"lost {base['lost']}/{base['moves']}", file=sys.stderr, flush=True)
    res = Results()
    rng = random.Random(args.seed)
    stop = asyncio.Event()
    tabs: list[LabTab] = []
    open_times: list[float] = []
    open_errors: list[str] = []
    runners: list[asyncio.Task[None]] = []
    lag: list[float] = []
    sampler_stop = asyncio.Event()
    lag_task = asyncio.create_task(loop_lag(lag, sampler_stop))

    async def join(i: int) -> None:
        await asyncio.sleep(args.ramp * i / max(1, args.students))
        tab, t, err = await open_tab(url, res, False, args.open_timeout,
                                     scroll=rng.random() < args.scroll)
        if err or t is None:
            open_errors.append(err or "?")
            return
        tabs.append(tab)
        open_times.append(t.complete)
        runners.append(asyncio.create_task(
            student(tab, random.Random(rng.random()), args.interval, stop, args.lost_after)))

    t_ramp = time.perf_counter()
    ramp_win = Window.start(srv.pid)
    await asyncio.gather(*(join(i) for i in range(args.students)))
    ramp = ramp_win.result(srv.pid)
    print(f"{len(tabs)} tabs open after {time.perf_counter() - t_ramp:.1f} s "
          f"({len(open_errors)} failed)", file=sys.stderr, flush=True)
    # Measured window: starts one interval after the last tab opened (every student moving).
    await asyncio.sleep(args.interval)
    win = Window.start(srv.pid)
    rss_task = asyncio.create_task(sample_rss(srv.pid, win, sampler_stop))
    prof = start_profile(args, srv.pid, args.duration)
    t_from = time.perf_counter()
    await asyncio.sleep(args.duration)
    t_to = time.perf_counter()
    w = win.result(srv.pid)
    stop.set()
    await asyncio.gather(*runners, return_exceptions=True)
    await drain(tabs, args.lost_after)
    sampler_stop.set()
    await asyncio.gather(rss_task, lag_task)
    tab_errors = sum(1 for t in tabs if t.errors)
    by_channel = sum(1 for t in tabs if t.moves_ws is not None)
    for t in tabs:
        await t.close()
    stop_profile(prof)
    s = res.summary(t_from, t_to, args.lost_after)
    return {"mode": "moves", "label": args.label, "students": args.students,
            "moves_by": f"channel ({by_channel} of {len(tabs)} tabs)" if by_channel else "bokeh",
            "open": len(tabs), "open_failed": len(open_errors), "scroll": args.scroll,
            "open_p95_s": pct(open_times, 0.95), "ramp_s": args.ramp,
            "ramp_server_cpu_pct": ramp["server_cpu_pct"], "interval_s": args.interval,
            **s, "baseline": "alone", "base_p50_ms": base["p50_ms"],
            "base_p95_ms": base["p95_ms"], "ratio_p50": s["p50_ms"] / base["p50_ms"],
            "ratio_p95": s["p95_ms"] / base["p95_ms"], "moves_per_s": s["moves"] / w["wall_s"],
            "server_cpu_ms_per_move": 10 * w["server_cpu_pct"] * w["wall_s"] / max(1, s["moves"]),
            **w, "client_lag_p99_ms": 1000 * pct(lag, 0.99), "tabs_with_errors": tab_errors,
            "errors_sample": (open_errors + [e for t in tabs for e in t.errors])[:3]}


async def run_open(args: argparse.Namespace, srv: Server) -> dict[str, Any]:
    url = f"{srv.url}{args.path}"
    if args.room:
        _, code = await teacher_sign_in(srv.url, args.token)
        url += f"{'&' if '?' in url else '?'}room={code}"
    fetch = not args.warm_cache
    await warm_up(url)
    lone: list[float] = []
    for _ in range(3):
        tab, t, err = await open_tab(url, None, fetch, args.open_timeout)
        if err or t is None:
            raise SystemExit(f"baseline open failed: {err}")
        lone.append(t.complete)
        await tab.close()
        await asyncio.sleep(1.0)
    base = statistics.median(lone)
    print(f"baseline (one student opening alone): {base:.2f} s", file=sys.stderr, flush=True)
    # The server sits idle before the class opens the lab (the instructor says "open it now"):
    # that is when pages are built ahead (app/serve/prebuild.py).
    await asyncio.sleep(args.idle)
    res = Results()
    rng = random.Random(args.seed)
    lag: list[float] = []
    stop = asyncio.Event()
    lag_task = asyncio.create_task(loop_lag(lag, stop))
    win = Window.start(srv.pid)
    rss_task = asyncio.create_task(sample_rss(srv.pid, win, stop))
    prof = start_profile(args, srv.pid, args.open_timeout)
    starts = sorted(rng.uniform(0, args.spread) for _ in range(args.students))

    async def one(delay: float, scroll: bool) -> tuple[LabTab, OpenTimes | None, str | None]:
        await asyncio.sleep(delay)
        return await open_tab(url, res, fetch, args.open_timeout, scroll)

    scrolls = [rng.random() < args.scroll for _ in starts]
    SCROLLED.clear()
    opened = await asyncio.gather(*(one(d, sc) for d, sc in zip(starts, scrolls, strict=True)))
    w = win.result(srv.pid)
    tabs = [tab for tab, t, _ in opened if t is not None]
    times = [t for _, t, _ in opened if t is not None]
    errs = [e for _, _, e in opened if e]
    # Each complete page must also be live: one slider move per tab.
    for tab in tabs:
        await tab.move("eps", 2.5)
        await asyncio.sleep(0.02)
    await drain(tabs, args.lost_after)
    stop.set()
    await asyncio.gather(lag_task, rss_task)
    for tab in tabs:
        await tab.close()
    stop_profile(prof)
    complete = [t.complete for t in times]
    s = res.summary(0, math.inf, args.lost_after)
    return {"mode": "open", "label": args.label, "students": args.students,
            "spread_s": args.spread, "idle_s": args.idle, "room": bool(args.room),
            "assets": "warm" if args.warm_cache else "cold",
            "complete": len(times), "failed": len(errs),
            "card_p50_s": pct([t.card for t in times], 0.5),
            "card_p95_s": pct([t.card for t in times], 0.95),
            "html_p50_s": pct([t.html for t in times], 0.5),
            "html_p95_s": pct([t.html for t in times], 0.95),
            "complete_p50_s": pct(complete, 0.5), "complete_p95_s": pct(complete, 0.95),
            "complete_max_s": max(complete) if complete else math.nan,
            "baseline": "one student opening alone", "base_complete_s": base,
            "ratio_p95": pct(complete, 0.95) / base,
            "first_move_p95_ms": s["p95_ms"], "first_move_lost": s["lost"],
            "scroll": args.scroll, "scrolled": len(SCROLLED),
            "scroll_built_p95_s": pct(SCROLLED, 0.95),
            "server_cpu_s_per_open": w["server_cpu_pct"] * w["wall_s"] / 100 / max(1, len(times)),
            "html_kb": times[0].html_bytes / 1024 if times else math.nan,
            "assets_mb": times[0].asset_bytes / 2**20 if times else math.nan,
            "doc_kb": times[0].doc_bytes / 1024 if times else math.nan,
            **w, "client_lag_p99_ms": 1000 * pct(lag, 0.99), "errors_sample": errs[:3]}


async def run_memory(args: argparse.Namespace, srv: Server) -> dict[str, Any]:
    url = f"{srv.url}{args.path}"
    await warm_up(url)
    await asyncio.sleep(args.linger)
    rss0 = proc_sample(srv.pid)[1]
    print(f"baseline RSS {rss0:.1f} MB (after warm-up, sessions discarded)", file=sys.stderr)
    cycles = []
    win = Window.start(srv.pid)
    for c in range(args.cycles):
        res = Results()
        tabs: list[LabTab] = []
        for i in range(0, args.students, 10):
            opened = await asyncio.gather(*(open_tab(url, res, False, args.open_timeout)
                                            for _ in range(min(10, args.students - i))))
            tabs += [tab for tab, t, _ in opened if t is not None]
        for tab in tabs:
            await tab.move("eps", 2.0)
        await drain(tabs, args.lost_after)
        await asyncio.sleep(5)
        rss_open = proc_sample(srv.pid)[1]
        for tab in tabs:
            await tab.close()
        await asyncio.sleep(args.linger)
        rss_closed = proc_sample(srv.pid)[1]
        cycles.append({"open": len(tabs), "rss_open_mb": rss_open,
                       "mb_per_session": (rss_open - rss0) / max(1, len(tabs)),
                       "rss_closed_mb": rss_closed, "lost": res.summary(0, math.inf, 99)["lost"]})
        print(f"cycle {c + 1}: {cycles[-1]}", file=sys.stderr, flush=True)
    w = win.result(srv.pid)
    return {"mode": "memory", "label": args.label, "students": args.students,
            "baseline": "RSS after warm-up", "rss_base_mb": rss0, "cycles": cycles,
            "rss_final_mb": cycles[-1]["rss_closed_mb"],
            "final_minus_base_mb": cycles[-1]["rss_closed_mb"] - rss0,
            "mb_per_session": max(c["mb_per_session"] for c in cycles), **w}


async def follow_round(teacher: Tab, followers: list[Follower], moves: int, interval: float,
                       lost_after: float) -> tuple[list[float], int]:
    lat: list[float] = []
    lost = 0
    for v in follow_values(moves):
        sent = time.perf_counter()
        got, missed = await teacher_move(teacher, followers, v, lost_after)
        lat += got
        lost += missed
        await asyncio.sleep(max(0.0, interval - (time.perf_counter() - sent)))
    return lat, lost


async def run_follow(args: argparse.Namespace, srv: Server) -> dict[str, Any]:
    await warm_up(f"{srv.url}{args.path}")
    cookie, code = await teacher_sign_in(srv.url, args.token)
    teacher = await Tab.open(f"{srv.url}/lab?room={code}&lang=en",
                             extra_cookies={"dplab_teacher": cookie})
    # baseline: the same room with one follower
    one, errs = await open_followers(srv.url, code, 1)
    if not one:
        raise SystemExit(f"baseline follower failed to open: {errs}")
    b_lat, b_lost = await follow_round(teacher, one, args.baseline_moves, 0.5, args.lost_after)
    await one[0].close()
    base = {"p50_ms": 1000 * pct(b_lat, 0.5), "p95_ms": 1000 * pct(b_lat, 0.95)}
    print(f"baseline (one follower): p50 {base['p50_ms']:.0f} ms  p95 {base['p95_ms']:.0f} ms  "
          f"lost {b_lost}/{args.baseline_moves}", file=sys.stderr, flush=True)
    t_open = time.perf_counter()
    followers, open_errors = await open_followers(srv.url, code, args.students,
                                                  args.concurrency, args.open_timeout)
    opened_s = time.perf_counter() - t_open
    workers: dict[str, int] = {}
    for f in followers:
        workers[f.worker or "-"] = workers.get(f.worker or "-", 0) + 1
    print(f"{len(followers)} followers open after {opened_s:.1f} s ({len(open_errors)} failed); "
          f"per worker {workers}", file=sys.stderr, flush=True)
    await asyncio.sleep(3.0)
    lag: list[float] = []
    stop = asyncio.Event()
    lag_task = asyncio.create_task(loop_lag(lag, stop))
    win = Window.start(srv.pid)
    rss_task = asyncio.create_task(sample_rss(srv.pid, win, stop))
    prof = start_profile(args, srv.pid, args.moves * args.interval + 5)
    lat, lost = await follow_round(teacher, followers, args.moves, args.interval,
                                   args.lost_after)
    w = win.result(srv.pid)
    stop.set()
    await asyncio.gather(lag_task, rss_task)
    stop_profile(prof)
    for t in [teacher, *followers]:
        await t.close()
    deliveries = len(lat) + lost
    cpu_s = w["server_cpu_pct"] * w["wall_s"] / 100
    return {"mode": "follow", "label": args.label, "students": args.students,
            "open": len(followers), "open_failed": len(open_errors), "open_s": opened_s,
            "per_worker": workers, "teacher_moves": args.moves, "interval_s": args.interval,
            "deliveries": deliveries, "lost": lost,
            "p50_ms": 1000 * pct(lat, 0.5), "p95_ms": 1000 * pct(lat, 0.95),
            "max_ms": 1000 * max(lat) if lat else math.nan,
            "baseline": "one follower", "base_p50_ms": base["p50_ms"],
            "base_p95_ms": base["p95_ms"], "base_lost": b_lost,
            "ratio_p50": 1000 * pct(lat, 0.5) / base["p50_ms"],
            "ratio_p95": 1000 * pct(lat, 0.95) / base["p95_ms"],
            "server_cpu_ms_per_move": 1000 * cpu_s / max(1, args.moves),
            "server_cpu_ms_per_delivery": 1000 * cpu_s / max(1, deliveries),
            **w, "client_lag_p99_ms": 1000 * pct(lag, 0.99),
            "errors_sample": open_errors[:3]}


def worker_ports(log: Path | None) -> dict[str, int]:
    """serve-prod's workers (name -> loopback port), from its log."""
    if log is None or not log.exists():
        return {}
    text = log.read_text(errors="replace")
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"serve-prod: worker (w\d+) pid \d+ on [0-9.]+:(\d+)", text)}


def haproxy_down(log: Path | None) -> dict[str, Any]:
    """Whether serve-prod's HAProxy marked a worker DOWN: its log lines and, while it runs, the
    stats socket's ``chkdown`` (UP -> DOWN transitions) per worker."""
    if log is None or not log.exists():
        return {}
    text = log.read_text(errors="replace")
    lines = [ln.strip()[:160] for ln in text.splitlines() if " is DOWN" in ln]
    out: dict[str, Any] = {"haproxy_down_lines": len(lines), "haproxy_down_sample": lines[:3]}
    sock = re.search(r"stats: (\S+haproxy\.sock)", text)
    if sock:
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(5)
                s.connect(sock.group(1))
                s.sendall(b"show stat\n")
                data = b""
                while chunk := s.recv(65536):
                    data += chunk
            rows = data.decode().splitlines()
            head = rows[0].lstrip("# ").split(",")
            stat = [dict(zip(head, r.split(","), strict=False)) for r in rows[1:] if r]
            out["haproxy_chkdown"] = {r["svname"]: int(r.get("chkdown") or 0) for r in stat
                                      if r.get("pxname") == "workers"
                                      and r["svname"] not in ("BACKEND", "FRONTEND")}
        except (OSError, ValueError, KeyError, IndexError) as exc:
            out["haproxy_stats_error"] = str(exc)[:120]
    return out


async def probe_health(ports: dict[str, int], out: dict[str, list[float]],
                       stop: asyncio.Event, every: float = 0.5) -> None:
    """Each worker's ``/healthz`` answer time, straight to the worker (as HAProxy checks it:
    timeout 2 s, deploy/haproxy.cfg.in); a probe without an answer in 10 s counts as 10 s."""
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest

    async def one(name: str, port: int) -> None:
        t0 = time.perf_counter()
        try:
            await AsyncHTTPClient().fetch(HTTPRequest(f"http://127.0.0.1:{port}/healthz",
                                                      request_timeout=10))
            dt = time.perf_counter() - t0
        except Exception:
            dt = 10.0
        out.setdefault(name, []).append(dt)

    while not stop.is_set():
        await asyncio.gather(*(one(n, p) for n, p in ports.items()))
        try:
            await asyncio.wait_for(stop.wait(), every)
        except TimeoutError:
            pass


async def churn_move(teacher: Tab, followers: list[Follower], log10_sigma: float,
                     lost_after: float) -> tuple[list[float], int]:
    """:func:`wsclient.teacher_move` over the students on the lab when the teacher moves; one
    who leaves for the class page meanwhile counts neither as seen nor as lost."""
    want = sigma_shown(log10_sigma)
    for f in followers:
        f.seen.clear()
    sent = time.perf_counter()
    await teacher.slide("sigma", log10_sigma)
    deadline = sent + lost_after
    while time.perf_counter() < deadline:
        if all(f.closed or f.seen_at(want) is not None for f in followers):
            break
        await asyncio.sleep(0.005)
    lat: list[float] = []
    lost = 0
    for f in followers:
        at = f.seen_at(want)
        if at is not None:
            lat.append(at - sent)
        elif not f.closed:
            lost += 1
    return lat, lost


async def run_churn(args: argparse.Namespace, srv: Server) -> dict[str, Any]:
    await warm_up(f"{srv.url}{args.path}")
    # The server before the lecture: idle, building pages ahead (none while a class follows).
    await asyncio.sleep(args.before)
    cookie, code = await teacher_sign_in(srv.url, args.token)
    teacher = await Tab.open(f"{srv.url}/lab?room={code}&lang=en",
                             extra_cookies={"dplab_teacher": cookie})
    one, errs = await open_followers(srv.url, code, 1)
    if not one:
        raise SystemExit(f"baseline follower failed to open: {errs}")
    b_lat, b_lost = await follow_round(teacher, one, args.baseline_moves, 0.5, args.lost_after)
    await one[0].close()
    base = {"p50_ms": 1000 * pct(b_lat, 0.5), "p95_ms": 1000 * pct(b_lat, 0.95)}
    print(f"baseline (one follower): p50 {base['p50_ms']:.0f} ms  p95 {base['p95_ms']:.0f} ms  "
          f"lost {b_lost}/{args.baseline_moves}", file=sys.stderr, flush=True)
    t_open = time.perf_counter()
    followers, open_errors = await open_followers(srv.url, code, args.students,
                                                  args.concurrency, args.open_timeout)
    opened_s = time.perf_counter() - t_open
    print(f"{len(followers)} followers open after {opened_s:.1f} s ({len(open_errors)} failed)",
          file=sys.stderr, flush=True)
    # The lecture before the tab churn: the workers build pages ahead meanwhile (a hall of
    # returning students takes them).
    await asyncio.sleep(max(3.0, args.idle))
    active: set[Follower] = set(followers)
    since: dict[Follower, float] = {f: 0.0 for f in followers}
    stop = asyncio.Event()
    returns: list[float] = []
    polls: list[float] = []
    churn_errors: list[str] = []
    cycles = [0]
    rng = random.Random(args.seed)
    churners = followers[::max(1, round(1 / args.churn_share))] if args.churn_share > 0 else []

    async def churner(f: Follower, i: int, offset: float) -> None:
        lang = "en" if i % 2 else "ko"
        jar: dict[str, str] = dict(f.page.cookies)
        try:
            await asyncio.wait_for(stop.wait(), offset)
            return
        except TimeoutError:
            pass
        while not stop.is_set():
            t_cycle = time.perf_counter()
            active.discard(f)
            await f.close()
            try:
                polls.extend(await class_page(srv.url, code, lang, jar, args.away))
                t0 = time.perf_counter()
                back = await Follower.open(f"{srv.url}/lab?room={code}&lang={lang}",
                                           cookie=jar.get("dplab_w"),
                                           timeout=args.open_timeout,
                                           extra_cookies={k: v for k, v in jar.items()
                                                          if k != "dplab_w"})
                returns.append(time.perf_counter() - t0)
            except Exception as exc:  # this student is gone for the rest of the run
                churn_errors.append(f"{type(exc).__name__}: {exc}"[:160])
                return
            assert isinstance(back, Follower)
            f = back
            since[f] = time.perf_counter()
            active.add(f)
            cycles[0] += 1
            left = args.churn_period - (time.perf_counter() - t_cycle)
            try:
                await asyncio.wait_for(stop.wait(), max(0.0, left))
            except TimeoutError:
                pass
        if not f.closed:
            await f.close()

    lag: list[float] = []
    samplers_stop = asyncio.Event()
    lag_task = asyncio.create_task(loop_lag(lag, samplers_stop))
    health: dict[str, list[float]] = {}
    health_task = asyncio.create_task(probe_health(worker_ports(srv.log), health, samplers_stop))
    win = Window.start(srv.pid)
    rss_task = asyncio.create_task(sample_rss(srv.pid, win, samplers_stop))
    t_class = datetime.now()
    period = args.churn_period
    tasks = [asyncio.create_task(churner(f, i, period * k / max(1, len(churners))
                                         + rng.uniform(0, 0.5)))
             for k, (i, f) in enumerate((followers.index(f), f) for f in churners)]
    lat: list[float] = []
    lost = deliveries = moves = 0
    end = time.perf_counter() + args.duration
    values = follow_values(10_000)
    while time.perf_counter() < end:
        sent = time.perf_counter()
        now = sent
        snapshot = [f for f in active if now - since[f] >= 1.0]
        got, missed = await churn_move(teacher, snapshot, values[moves], args.lost_after)
        lat += got
        lost += missed
        deliveries += len(got) + missed
        moves += 1
        await asyncio.sleep(max(0.0, args.interval - (time.perf_counter() - sent)))
    t_class_end = datetime.now()
    w = win.result(srv.pid)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    samplers_stop.set()
    await asyncio.gather(lag_task, health_task, rss_task)
    down = haproxy_down(srv.log)
    for t in [teacher, *active]:
        await t.close()
    pauses = logged_pauses(srv.log)
    at = args.pause_at
    in_class = [p for when, _, p, _ in pauses if t_class <= when <= t_class_end]
    cpu_in_class = [c for when, _, _, c in pauses
                    if t_class <= when <= t_class_end and not math.isnan(c)]
    kinds: dict[str, int] = {}
    for _, what, p, _ in pauses:
        if p >= at:
            kinds[what] = kinds.get(what, 0) + 1
    text = srv.log.read_text(errors="replace") if srv.log and srv.log.exists() else ""
    reclaim_lines = re.findall(r"dplab\.server\.gc (\d+ closed pages walked.*)", text)
    idle_lines = re.findall(r"dplab\.server\.gc (idle full collection.*)", text)
    all_health = [x for v in health.values() for x in v]
    return {"mode": "churn", "label": args.label, "students": args.students,
            "open": len(followers), "open_failed": len(open_errors), "open_s": opened_s,
            "churners": len(churners), "churn_period_s": period, "away_s": args.away,
            "churn_cycles": cycles[0], "churn_errors": len(churn_errors),
            "return_p50_s": pct(returns, 0.5), "return_p95_s": pct(returns, 0.95),
            "class_poll_p95_ms": 1000 * pct(polls, 0.95), "class_polls": len(polls),
            "teacher_moves": moves, "interval_s": args.interval, "duration_s": args.duration,
            "deliveries": deliveries, "lost": lost,
            "p50_ms": 1000 * pct(lat, 0.5), "p95_ms": 1000 * pct(lat, 0.95),
            "max_ms": 1000 * max(lat) if lat else math.nan,
            "baseline": "one follower", "base_p50_ms": base["p50_ms"],
            "base_p95_ms": base["p95_ms"], "base_lost": b_lost,
            "ratio_p95": 1000 * pct(lat, 0.95) / base["p95_ms"],
            "pause_at_s": at,
            "pauses_in_class": sum(1 for p in in_class if p >= at),
            "pause_max_in_class_s": max(in_class, default=0.0),
            "pauses_cpu_in_class": sum(1 for c in cpu_in_class if c >= at),
            "pause_cpu_max_in_class_s": max(cpu_in_class, default=0.0),
            "pauses_in_run": sum(1 for _, _, p, _ in pauses if p >= at),
            "pause_max_in_run_s": max((p for _, _, p, _ in pauses), default=0.0),
            "pause_kinds": kinds,
            "health_max_s": max(all_health, default=math.nan),
            "health_p99_s": pct(all_health, 0.99),
            "health_over_2s": sum(1 for x in all_health if x > 2.0),
            **down, "reclaim": reclaim_lines[-1] if reclaim_lines else "",
            "idle_collections": idle_lines,
            **w, "client_lag_p99_ms": 1000 * pct(lag, 0.99),
            "errors_sample": (open_errors + churn_errors)[:3]}


def report(r: dict[str, Any]) -> str:
    lines = [f"== {r['mode']} [{r['label']}] students={r['students']}  "
             f"load avg {r['load_start']} -> {r['load_end']}  "
             f"others' CPU {r['others_cpu_pct']:.0f} % of one core"]
    if r["mode"] == "moves":
        lines.append(f"moves by: {r.get('moves_by', 'bokeh')}")
        lines += [
            f"card update p50 {r['p50_ms']:.0f} ms  p95 {r['p95_ms']:.0f} ms  "
            f"max {r['max_ms']:.0f} ms  lost {r['lost']}/{r['moves']} ({r['lost_pct']:.2f} %)",
            f"baseline (one student alone): p50 {r['base_p50_ms']:.0f} ms  "
            f"p95 {r['base_p95_ms']:.0f} ms  -> ratio p50 {r['ratio_p50']:.2f}x  "
            f"p95 {r['ratio_p95']:.2f}x",
            f"server CPU {r['server_cpu_pct']:.0f} % of one core "
            f"({r['server_cpu_ms_per_move']:.1f} ms per move, {r['moves_per_s']:.1f} moves/s)  "
            f"RSS {r['server_rss_mb']:.0f} MB (peak {r['server_rss_peak_mb']:.0f})",
            f"opening: {r['open']} open ({r['scroll']:.0%} scroll down), "
            f"{r['open_failed']} failed, p95 {r['open_p95_s']:.1f} s "
            f"(ramp {r['ramp_s']:.0f} s, server CPU {r['ramp_server_cpu_pct']:.0f} %)",
        ]
    elif r["mode"] == "follow":
        lines += [
            f"teacher move -> follower's card p50 {r['p50_ms']:.0f} ms  p95 {r['p95_ms']:.0f} ms"
            f"  max {r['max_ms']:.0f} ms  lost {r['lost']}/{r['deliveries']} "
            f"({r['open']} followers x {r['teacher_moves']} moves)",
            f"baseline (one follower): p50 {r['base_p50_ms']:.0f} ms  "
            f"p95 {r['base_p95_ms']:.0f} ms  -> ratio p50 {r['ratio_p50']:.2f}x  "
            f"p95 {r['ratio_p95']:.2f}x",
            f"server CPU {r['server_cpu_pct']:.0f} % of one core "
            f"({r['server_cpu_ms_per_move']:.0f} ms per move, "
            f"{r['server_cpu_ms_per_delivery']:.2f} ms per follower and move)  "
            f"RSS {r['server_rss_mb']:.0f} MB (peak {r['server_rss_peak_mb']:.0f})",
            f"opening: {r['open']} open, {r['open_failed']} failed, in {r['open_s']:.0f} s; "
            f"per worker {r['per_worker']}",
        ]
    elif r["mode"] == "churn":
        lines += [
            f"teacher move -> follower's card p50 {r['p50_ms']:.0f} ms  p95 {r['p95_ms']:.0f} ms"
            f"  max {r['max_ms']:.0f} ms  lost {r['lost']}/{r['deliveries']} "
            f"({r['teacher_moves']} moves, one every {r['interval_s']:g} s)",
            f"baseline (one follower): p50 {r['base_p50_ms']:.0f} ms  "
            f"p95 {r['base_p95_ms']:.0f} ms  -> ratio p95 {r['ratio_p95']:.2f}x",
            f"tab churn: {r['churners']} of {r['open']} students to the class page for "
            f"{r['away_s']:g} s every {r['churn_period_s']:g} s: {r['churn_cycles']} returns "
            f"(complete page p50 {r['return_p50_s']:.2f} s, p95 {r['return_p95_s']:.2f} s), "
            f"{r['class_polls']} class-page polls (p95 {r['class_poll_p95_ms']:.0f} ms), "
            f"{r['churn_errors']} errors",
            f"server pauses >= {r['pause_at_s']:g} s: {r['pauses_in_class']} during the class "
            f"(max {r['pause_max_in_class_s']:.2f} s), {r['pauses_in_run']} in the whole run "
            f"(max {r['pause_max_in_run_s']:.2f} s) {r['pause_kinds']}; during the class "
            f"{r['pauses_cpu_in_class']} took {r['pause_at_s']:g} s of CPU or more (max "
            f"{r['pause_cpu_max_in_class_s']:.2f} s: the rest is the other processes' share)",
            f"/healthz straight to the workers: max {r['health_max_s']:.2f} s, "
            f"{r['health_over_2s']} probes over HAProxy's 2 s; HAProxy DOWN lines "
            f"{r.get('haproxy_down_lines', '?')}, chkdown {r.get('haproxy_chkdown', '?')}",
            f"closed pages: {r['reclaim'] or '-'}; idle collections: {r['idle_collections']}",
            f"server CPU {r['server_cpu_pct']:.0f} % of one core, "
            f"RSS {r['server_rss_mb']:.0f} MB (peak {r['server_rss_peak_mb']:.0f})",
        ]
    elif r["mode"] == "open":
        lines += [
            f"complete page p50 {r['complete_p50_s']:.2f} s  p95 {r['complete_p95_s']:.2f} s  "
            f"max {r['complete_max_s']:.2f} s  ({r['complete']} complete, {r['failed']} failed;"
            f" {r['assets']} cache)",
            f"card in the HTML p50 {r['card_p50_s']:.2f} s  p95 {r['card_p95_s']:.2f} s; "
            f"HTML (page built) p50 {r['html_p50_s']:.2f} s  p95 {r['html_p95_s']:.2f} s; "
            f"then one move each: p95 {r['first_move_p95_ms']:.0f} ms, "
            f"lost {r['first_move_lost']}",
            f"scrolled to the bottom: {r['scrolled']} tabs (share {r['scroll']:.2f}), figure "
            f"built p95 {r['scroll_built_p95_s']:.2f} s after the scroll",
            f"baseline (one student opening alone): {r['base_complete_s']:.2f} s -> "
            f"ratio p95 {r['ratio_p95']:.1f}x",
            f"server CPU {r['server_cpu_pct']:.0f} % of one core over {r['wall_s']:.1f} s "
            f"({r['server_cpu_s_per_open']:.2f} s per page), "
            f"RSS {r['server_rss_mb']:.0f} MB (peak {r['server_rss_peak_mb']:.0f}); per tab: "
            f"HTML {r['html_kb']:.0f} kB, assets {r['assets_mb']:.1f} MB, doc {r['doc_kb']:.0f} kB",
        ]
    else:
        lines.append(f"RSS baseline {r['rss_base_mb']:.0f} MB")
        for i, c in enumerate(r["cycles"]):
            lines.append(f"cycle {i + 1}: {c['open']} idle sessions -> {c['rss_open_mb']:.0f} MB "
                         f"({c['mb_per_session']:.2f} MB/session); closed -> "
                         f"{c['rss_closed_mb']:.0f} MB")
        lines.append(f"after the last cycle: {r['final_minus_base_mb']:+.1f} MB vs baseline")
    lines.append(f"client CPU {r['client_cpu_pct']:.0f} % of one core"
                 + (f", event-loop lag p99 {r['client_lag_p99_ms']:.0f} ms"
                    if "client_lag_p99_ms" in r else "")
                 + f"; machine busy {r['machine_cpu_pct']:.0f} % of one core")
    if r.get("machine_ref_ms"):
        a, b = r["machine_ref_ms"]
        lines.append(f"machine reference (a fixed Bokeh figure built and serialized, "
                     f"benchmarks/_common.py): {a:.1f} ms before, {b:.1f} ms after"
                     + (f"; server CPU per move = {r['cpu_per_move_over_ref']:.3f} x the "
                        f"reference" if "cpu_per_move_over_ref" in r else ""))
    if r.get("page_runs_logged"):
        lines.append(f"page scripts run (server log, incl. warm-up and baseline tabs): "
                     f"{r['page_runs_logged']} for {r['tabs_opened']} tabs opened")
    if "gc_pauses_logged" in r:
        lines.append(f"server GC pauses >= 0.2 s: {r['gc_pauses_logged']}"
                     + (f" (max {r['gc_pause_max_s']:.2f} s)" if r["gc_pauses_logged"] else ""))
    if r.get("errors_sample"):
        lines.append(f"errors (sample): {r['errors_sample']}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["moves", "open", "memory", "follow", "churn"])
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--label", default="current")
    ap.add_argument("--url", help="target a running server (e.g. the balancer)")
    ap.add_argument("--pid", type=int, help="with --url: the server's process (tree) to sample")
    ap.add_argument("--server-root", default=str(ROOT), help="source tree of our own server")
    ap.add_argument("--server-cmd", help="start this command as the server instead")
    ap.add_argument("--variant", default="", choices=["", "panel-busy", "no-prebuild"])
    ap.add_argument("--path", default="/lab?lang=en")
    ap.add_argument("--interval", type=float, default=3.0)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--ramp", type=float, default=30.0, help="moves: seconds to open all tabs")
    ap.add_argument("--spread", type=float, default=1.0, help="open: seconds to start all tabs")
    ap.add_argument("--idle", type=float, default=2.0,
                    help="open: seconds the server sits idle before the class opens the lab; "
                         "churn: seconds between the followers' opening and the churn")
    ap.add_argument("--warm-cache", action="store_true", help="open: skip scripts/styles")
    ap.add_argument("--scroll", type=float, default=1.0,
                    help="share of students who scroll to the bottom of /lab once the page is "
                         "complete (the simulation figure is built only then)")
    ap.add_argument("--lost-after", type=float, default=10.0)
    ap.add_argument("--open-timeout", type=float, default=120.0)
    ap.add_argument("--baseline-moves", type=int, default=30)
    ap.add_argument("--cycles", type=int, default=2)
    ap.add_argument("--linger", type=float, default=45.0,
                    help="memory: seconds for the server to discard closed sessions")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--moves", type=int, default=30, help="follow: the teacher's moves")
    ap.add_argument("--churn-share", type=float, default=1 / 3,
                    help="churn: share of the students who leave for the class page")
    ap.add_argument("--churn-period", type=float, default=60.0,
                    help="churn: seconds between two departures of one student")
    ap.add_argument("--away", type=float, default=30.0,
                    help="churn: seconds on the class page before coming back")
    ap.add_argument("--before", type=float, default=0.0,
                    help="churn: seconds the server sits idle before the class (pages built "
                         "ahead)")
    ap.add_argument("--pause-at", type=float, default=0.25,
                    help="churn: logged pauses counted from this long (s)")
    ap.add_argument("--concurrency", type=int, default=8,
                    help="follow: students opening at once")
    ap.add_argument("--nodelay", action="store_true",
                    help="TCP_NODELAY on the tabs' websockets, as browsers (wsclient.NODELAY)")
    ap.add_argument("--bokeh-moves", action="store_true",
                    help="moves: every slider release through Bokeh, not the page's moves "
                         "channel (app/lab/moves.py; wsclient.MOVES_CHANNEL)")
    ap.add_argument("--room", action="store_true",
                    help="open: the students open a room's link (/lab?room=CODE)")
    ap.add_argument("--token", default="",
                    help="follow: the teacher token (with --url; else one is made)")
    ap.add_argument("--profile", help="py-spy output file for the measured window")
    ap.add_argument("--profile-format", default="speedscope", choices=["speedscope", "raw"])
    ap.add_argument("--json", help="append the result as one JSON line to this file")
    args = ap.parse_args()
    import wsclient

    if args.nodelay:
        wsclient.NODELAY = True
    wsclient.MOVES_CHANNEL = not args.bokeh_moves
    if (args.mode in ("follow", "churn") or args.room) and not args.token:
        if args.url:
            raise SystemExit("follow with --url needs the server's --token")
        import secrets

        args.token = secrets.token_urlsafe(12)

    from tornado.httpclient import AsyncHTTPClient

    # Tornado's client queues beyond 10 requests by default; a class has no such queue.
    AsyncHTTPClient.configure(None, max_clients=10_000)
    ref_before = machine_reference_ms()
    srv = start_server(args)
    try:
        run = {"moves": run_moves, "open": run_open, "memory": run_memory,
               "follow": run_follow, "churn": run_churn}[args.mode]
        r = asyncio.run(run(args, srv))
    finally:
        srv.stop()
    r.update(gc_pauses(srv.log))
    r["machine_ref_ms"] = [ref_before, machine_reference_ms()]
    if "server_cpu_ms_per_move" in r:
        r["cpu_per_move_over_ref"] = r["server_cpu_ms_per_move"] / statistics.mean(
            r["machine_ref_ms"])
    r["tabs_opened"] = OPENED[0]
    r["server"] = (args.url or args.server_cmd
                   or f"{APP_MODULES['server']} from {args.server_root}")
    r["variant"] = args.variant or "as configured"
    r["nodelay"] = args.nodelay
    r["cpus"] = os.cpu_count()
    print(report(r))
    line = json.dumps(r, default=lambda o: asdict(o) if hasattr(o, "__dataclass_fields__")
                      else str(o))
    print(line)
    if args.json:
        with open(args.json, "a") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
