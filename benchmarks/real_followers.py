"""Real browsers in a following class (issue 37 item 9): Chromium pages beside protocol clients.

The teacher signs in (``POST /teach`` with the server's ``DPLAB_TEACHER_TOKEN``) and leads room
CODE from a protocol-level tab (benchmarks/wsclient.py) on ``/lab?room=CODE``; each move is a
release of the σ slider, sent as the page's script sends it for a ``dp-release-only`` slider
(one message to the lab's controls). Followers of ``/lab?room=CODE`` are of two
kinds: protocol tabs (:class:`wsclient.Follower`) and real Chromium pages (Playwright, the
system ``/usr/bin/chromium``, one browser context per student: its own cookies and worker).

Two phases on one server, one room, one run:

1. **baseline**: ONE real page (and one protocol follower) follow ``--baseline-moves`` moves;
2. **class**: ``--followers`` protocol tabs and ``--pages`` real pages (the baseline page among
   them) follow ``--moves`` moves.

A real page's latency runs from the teacher's first frame (``time.time()`` in this process) to
the moment the new σ is in the card's DOM (a MutationObserver on the card's shadow root notes
``Date.now()``; one machine, one clock). The page also notes, for the breakdown, when the card's
websocket frame reached the page's JavaScript (a ``message`` listener that runs before
BokehJS's) and the next animation frame after the DOM change (about the paint); and every long
task (> 50 ms) of its main thread. A protocol follower's latency runs to the moment its card
PATCH-DOC is fully received. Printed: both kinds' p50 / p95 / max and lost in each phase, the
ratio real p95 (class) / one-real p95 (baseline) against the issue's target (≤ 2), the stages
of the real pages' time, the server's and the browsers' CPU, the machine's load and others' CPU.

    .venv/bin/python benchmarks/real_followers.py                       # ~2 min: 100 + 4 pages
    .venv/bin/python benchmarks/real_followers.py --followers 300 --pages 6 --moves 30
    .venv/bin/python benchmarks/real_followers.py --trace /tmp/follow-trace.json  # + Chromium
        # trace of the first real page in the class phase (main-thread tasks per move)

Server: ``--server-cmd`` (default ``scripts/serve-prod``: HAProxy and one worker per CPU) started
on a free loopback port with a fresh teacher token, its output in /tmp/real_followers_PORT.log
(GC pauses the workers log are counted); or ``--url URL --token T [--pid PID]``;
``--server-root DIR`` runs another source tree (an older commit, an instrumented copy).
The real pages are pinned (the balancer's affinity cookie) to a worker other than the
teacher's (``--place``), so the one-real baseline and the class's pages sit on the same worker.
A worker builds lab pages ahead whenever it has been quiet for 1 s (app/serve/prebuild.py),
i.e. between a teacher's moves, and a build holds its event loop: ``--prebuilt 0`` turns that
off for a comparison, ``--settle S`` waits for the pools to fill first.
A script, not a test: it asserts nothing about wall-clock time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import secrets
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import wsclient  # noqa: E402
from _common import (  # noqa: E402
    CHROMIUM_FLAGS,
    DEFAULT_CHROMIUM,
    JS_DEEP,
    ROOT,
    free_port,
    pct,
    server_env,
)
from classroom_load import gc_pauses, loadavg, machine_busy, proc_sample  # noqa: E402

TARGET_RATIO = 2.0  # issue 37: real followers' p95 <= 2x their one-follower baseline
# A task of a thread's scheduler in Chromium's trace (category "toplevel"); the other toplevel
# events (e.g. "Receive mojo message") run inside one.
TRACE_TASK = "ThreadControllerImpl::RunTask"
# The teacher's release is answered (OK) within ~10 ms by a free worker; an OK later than this
# means the teacher's worker was held by something else (a page built ahead, a collection).
STALL_S = 0.25

# Before any page script: a `message` listener on every websocket, registered before BokehJS's
# own handler, notes when a frame that carries the card's σ reached the page's JavaScript;
# long tasks of the main thread are kept (PerformanceObserver).
JS_INIT = JS_DEEP + r"""
(() => {
  window.__frames = [];   // [Date.now(), σ as the frame carries it]
  window.__long = [];     // [start, duration] of long tasks, performance.now() ms
  const rx = /dp-sigma(?:&quot;|\\"|")\s*(?:&gt;|>)\s*([^<&\s]*)/;
  const Base = window.WebSocket;
  class Tapped extends Base {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (ev) => {
        const d = ev.data;
        if (typeof d === 'string' && d.indexOf('dp-sigma') >= 0) {
          const m = rx.exec(d);
          window.__frames.push([Date.now(), m ? m[1] : '']);
        }
      });
    }
  }
  window.WebSocket = Tapped;
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries())
      window.__long.push([e.startTime, e.duration]); })
      .observe({type: 'longtask', buffered: true});
  } catch (e) { /* no long-task timing: the breakdown says so */ }
})();
"""

# The card in the DOM: the host element of the card's pane and its shadow root.
JS_CARD = r"""() => {
  const host = window.__deep('.dp-card-pane');
  const root = host && host.shadowRoot;
  const s = root && root.querySelector('.dp-sigma');
  return !!(s && window.__deep('.dp-room-live'));
}"""

# Every change of the σ the card shows: [σ text, Date.now(), Date.now() at the next animation
# frame]. The observer is re-armed should the pane's view be rebuilt.
JS_ARM = r"""() => {
  window.__cards = window.__cards || [];
  const arm = () => {
    // (the deep search walks every shadow root of the page: only when the pane's view was
    // rebuilt, not every second while the card is where it was)
    const had = window.__cardRoot;
    if (had && had.host && had.host.isConnected) return;
    const host = window.__deep('.dp-card-pane');
    const root = host && host.shadowRoot;
    if (!root || root === window.__cardRoot) return;
    window.__cardRoot = root;
    const read = () => { const s = root.querySelector('.dp-sigma');
                         return s ? s.textContent.trim() : null; };
    let last = read();
    new MutationObserver(() => {
      const v = read();
      if (v === null || v === last) return;
      last = v;
      const rec = [v, Date.now(), null];
      window.__cards.push(rec);
      requestAnimationFrame(() => { rec[2] = Date.now(); });
    }).observe(root, {subtree: true, childList: true, characterData: true});
  };
  arm();
  if (!window.__rearm) window.__rearm = setInterval(arm, 1000);
  return window.__cards.length;
}"""

# Resolves with the first card change to σ = want at or after `since` (epoch ms), the first
# frame that carried it, and the long tasks meanwhile; null when none within `timeout` ms.
JS_WAIT = r"""([want, since, timeout]) => new Promise(resolve => {
  const same = (t) => { const x = parseFloat(t);
                        return isFinite(x) && Math.abs(x - want) <= 1e-9 * Math.max(1, want); };
  const t0 = Date.now();
  const tick = () => {
    const c = (window.__cards || []).find(r => r[1] >= since && same(r[0]));
    if (c && c[2] !== null) {
      const f = window.__frames.find(r => r[0] >= since && same(r[1]));
      const off = Date.now() - performance.now();
      const long = window.__long.filter(([s, d]) => s + off + d >= since && s + off <= c[1])
        .map(([s, d]) => [s + off, d]);
      resolve({dom: c[1], paint: c[2], frame: f ? f[0] : null, long});
    } else if (Date.now() - t0 > timeout) resolve(null);
    else setTimeout(tick, 25);  // (the times come from the observer, not from this poll)
  };
  tick();
})"""


# ---------------------------------------------------------------------------------------------
# pure parts (tests/benchmarks/test_real_followers.py)
# ---------------------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--followers", type=int, default=100,
                   help="protocol followers in the class phase (default 100)")
    p.add_argument("--pages", type=int, default=4,
                   help="real Chromium pages in the class phase, the baseline page among "
                        "them (default 4)")
    p.add_argument("--moves", type=int, default=15, help="teacher moves in the class phase")
    p.add_argument("--baseline-moves", type=int, default=15,
                   help="teacher moves with one real follower")
    p.add_argument("--interval", type=float, default=2.0, help="seconds between moves")
    p.add_argument("--lost-after", type=float, default=10.0,
                   help="a delivery not seen within this many seconds is lost")
    p.add_argument("--concurrency", type=int, default=8, help="protocol tabs opening at once")
    p.add_argument("--server-cmd", default="scripts/serve-prod",
                   help="the server's start command ('' = one serve() process)")
    p.add_argument("--server-root", default=str(ROOT),
                   help="source tree the server runs from (e.g. an instrumented copy)")
    p.add_argument("--url", default="", help="a running server (needs --token)")
    p.add_argument("--token", default="", help="with --url: its DPLAB_TEACHER_TOKEN")
    p.add_argument("--pid", type=int, default=None, help="with --url: the server's process")
    p.add_argument("--place", choices=["other", "teacher", "any"], default="other",
                   help="the real pages' worker: one other than the teacher's (default), the "
                        "teacher's, or as the balancer chooses")
    p.add_argument("--prebuilt", type=int, default=None,
                   help="DPLAB_PREBUILT_PAGES for the started server (default: its own)")
    p.add_argument("--settle", type=float, default=0.0,
                   help="seconds to wait at most for every worker's pages built ahead "
                        "before the baseline (the server's log says when; default 0: the "
                        "workers build them during the run, as after a start)")
    p.add_argument("--chromium", default=DEFAULT_CHROMIUM)
    p.add_argument("--no-nodelay", dest="nodelay", action="store_false",
                   help="protocol tabs without TCP_NODELAY (default: set, as Chromium does)")
    p.add_argument("--trace", default="",
                   help="write a Chromium trace of the first real page in the class phase")
    p.add_argument("--clients-nice", type=int, default=0,
                   help="niceness of this process, its protocol followers and its Chromium "
                        "pages, set after the server started (default 0: the clients compete "
                        "with the server for the cores; N > 0 models students' own devices, "
                        "whose CPUs are not the server's, on a one-machine run)")
    p.add_argument("--clients-idle", action="store_true",
                   help="run this process, its protocol followers and its Chromium pages under "
                        "SCHED_IDLE (Linux, set after the server started): they run only when "
                        "the server's processes leave a core free, the nearest a one-machine "
                        "run comes to students' devices with CPUs of their own")
    p.add_argument("--protocol-nice", type=int, default=0,
                   help="niceness of this process alone (the teacher's tab and the protocol "
                        "followers), set once Chromium runs: the real pages keep niceness 0 "
                        "and share the cores with the server as before, while the load "
                        "client that stands for the other students' devices (~0.3 ms of CPU "
                        "per card it reads) yields to them (default 0)")
    p.add_argument("--json", default="", help="append the result as one JSON line")
    args = p.parse_args(argv)
    if args.pages < 1 or args.followers < 1:
        p.error("--pages and --followers must be at least 1")
    if args.url and not args.token:
        p.error("--url needs --token (the server's teacher token)")
    return args


def stats(lat_s: Sequence[float], lost: int) -> dict[str, float]:
    """p50 / p95 / max in ms of latencies in seconds, the count and the lost deliveries."""
    xs = list(lat_s)
    return {"n": len(xs), "lost": lost, "p50_ms": 1e3 * pct(xs, 0.5),
            "p95_ms": 1e3 * pct(xs, 0.95), "max_ms": 1e3 * max(xs) if xs else math.nan}


def ratio(value: float, baseline: float) -> float:
    """value / baseline; nan when either is missing or the baseline is not positive."""
    if math.isnan(value) or math.isnan(baseline) or baseline <= 0:
        return math.nan
    return value / baseline


@dataclass
class Delivery:
    """One real page's view of one move, in seconds after the teacher's first frame."""

    frame: float | None  # the card's frame reached the page's JavaScript
    dom: float  # the new σ in the card's DOM
    paint: float  # the next animation frame after it
    proto: float | None  # median of the protocol followers on the page's worker, same move
    long_ms: float  # long tasks of the page's main thread between the send and the DOM
    worker: str = "-"


@dataclass
class Phase:
    name: str
    real: list[float] = field(default_factory=list)
    real_lost: int = 0
    proto: list[float] = field(default_factory=list)
    proto_lost: int = 0
    proto_by_worker: dict[str, list[float]] = field(default_factory=dict)
    deliveries: list[Delivery] = field(default_factory=list)
    teacher_ok: list[float] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)  # epoch s of each move (server logs)
    sent_pc: list[float] = field(default_factory=list)  # perf_counter s (Chromium's trace)


def breakdown(ds: Sequence[Delivery]) -> dict[str, float]:
    """Medians (ms) of the stages of real pages' deliveries: the server's push as a protocol
    follower sees it, the frame in the page's JavaScript, the DOM, the paint; and the share of
    deliveries whose wait held a long task of the page."""
    def med(xs: list[float]) -> float:
        return 1e3 * pct(xs, 0.5)

    framed = [d for d in ds if d.frame is not None]
    return {
        "n": len(ds),
        "proto_ms": med([d.proto for d in ds if d.proto is not None]),
        "frame_ms": med([d.frame for d in framed if d.frame is not None]),
        "frame_p95_ms": 1e3 * pct([d.frame for d in framed if d.frame is not None], 0.95),
        "frame_to_dom_ms": med([d.dom - d.frame for d in framed if d.frame is not None]),
        "dom_ms": med([d.dom for d in ds]),
        "dom_to_paint_ms": med([d.paint - d.dom for d in ds]),
        "with_long_task_pct": 100 * sum(1 for d in ds if d.long_ms > 0) / len(ds) if ds
        else math.nan,
        "long_task_ms_median": med([d.long_ms / 1e3 for d in ds if d.long_ms > 0]),
    }


def renderer_busy(trace: Any, sent_pc: Sequence[float], interval: float,
                  card_s: Sequence[float] = ()) -> dict[str, float]:
    """From a Chromium trace (``toplevel`` tasks, timestamps in µs of CLOCK_MONOTONIC, as
    ``time.perf_counter`` on Linux): how long each page's renderer main thread ran tasks per
    move (the window from the teacher's send to the next move), and how much of it came before
    the card (the median card time ``card_s`` after the send). Medians over moves and pages."""
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    mains = {(e.get("pid"), e.get("tid")) for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"
             and (e.get("args") or {}).get("name") == "CrRendererMain"}
    tasks: dict[Any, list[tuple[float, float]]] = {}
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        if e.get("ph") == "X" and key in mains and e.get("name") == TRACE_TASK:
            t = float(e["ts"]) / 1e6
            tasks.setdefault(key, []).append((t, t + float(e.get("dur", 0)) / 1e6))
    card = pct(list(card_s), 0.5) if card_s else 0.0

    def busy(spans: list[tuple[float, float]], a: float, b: float) -> float:
        return sum(max(0.0, min(e, b) - max(s, a)) for s, e in spans)

    per_move: list[float] = []
    before: list[float] = []
    for spans in tasks.values():
        for t in sent_pc:
            per_move.append(1e3 * busy(spans, t, t + interval))
            before.append(1e3 * busy(spans, t, t + (0.0 if math.isnan(card) else card)))
    return {"renderers": len(tasks), "busy_ms_per_move": pct(per_move, 0.5),
            "busy_ms_per_move_p95": pct(per_move, 0.95),
            "busy_ms_before_card": pct(before, 0.5)}


def summary(base: Phase, cls: Phase, teacher_worker: str = "-") -> dict[str, Any]:
    """The run's figures: each phase's stats, the ratio against the one-real baseline,
    whether it meets the issue's target, and the class's protocol followers on the teacher's
    worker and on the others."""
    one_real = stats(base.real, base.real_lost)
    one_proto = stats(base.proto, base.proto_lost)
    real = stats(cls.real, cls.real_lost)
    proto = stats(cls.proto, cls.proto_lost)
    r = ratio(real["p95_ms"], one_real["p95_ms"])
    return {"one_real": one_real, "one_proto": one_proto, "real": real, "proto": proto,
            "ratio_real_p95": r,
            "ratio_real_p50": ratio(real["p50_ms"], one_real["p50_ms"]),
            "ratio_proto_p95": ratio(proto["p95_ms"], one_proto["p95_ms"]),
            "real_over_proto_p95": ratio(real["p95_ms"], proto["p95_ms"]),
            "one_real_over_one_proto_p95": ratio(one_real["p95_ms"], one_proto["p95_ms"]),
            "target_ratio": TARGET_RATIO,
            "target_met": (not math.isnan(r)) and r <= TARGET_RATIO,
            "stages_baseline": breakdown(base.deliveries),
            "stages_class": breakdown(cls.deliveries),
            "teacher_ok_ms": 1e3 * pct(base.teacher_ok + cls.teacher_ok, 0.5),
            "teacher_ok_baseline_ms": 1e3 * pct(base.teacher_ok, 0.5),
            "teacher_ok_class_ms": 1e3 * pct(cls.teacher_ok, 0.5),
            "stalled_baseline": sum(1 for x in base.teacher_ok if x > STALL_S),
            "stalled_class": sum(1 for x in cls.teacher_ok if x > STALL_S),
            "moves_baseline": len(base.sent), "moves_class": len(cls.sent),
            "teacher_worker": teacher_worker,
            "proto_teacher_worker": stats(cls.proto_by_worker.get(teacher_worker, []), 0),
            "proto_other_workers": stats([x for w, xs in cls.proto_by_worker.items()
                                          if w != teacher_worker for x in xs], 0)}


def report(r: dict[str, Any]) -> str:
    """The printed table of a result (``summary`` plus the run's context)."""
    def row(name: str, s: dict[str, float]) -> str:
        return (f"| {name:<34} | {s['n']:>5} | {s['p50_ms']:>6.0f} | {s['p95_ms']:>6.0f} | "
                f"{s['max_ms']:>6.0f} | {s['lost']:>4} |")

    lines = [f"real followers: {r.get('pages', '?')} Chromium pages (workers "
             f"{r.get('real_workers', '?')}) beside {r.get('followers', '?')} protocol "
             f"followers (clients' niceness {r.get('clients_nice', 0)}"
             f"{', SCHED_IDLE' if r.get('clients_idle') else ''}"
             f"{'; this process ' + str(r['protocol_nice']) if r.get('protocol_nice') else ''}"
             f"); server "
             f"{r.get('server', '?')}; load avg {r.get('load_start', '?')} "
             f"-> {r.get('load_end', '?')}",
             "| followers (deliveries)             |     n |    p50 |    p95 |    max | lost |",
             "|---|---:|---:|---:|---:|---:|",
             row("baseline: one real page", r["one_real"]),
             row("baseline: one protocol follower", r["one_proto"]),
             row("class: real pages", r["real"]),
             row("class: protocol followers", r["proto"]),
             row(f"  of them on the teacher's worker {r['teacher_worker']}",
                 r["proto_teacher_worker"]),
             row("  of them on the other workers", r["proto_other_workers"])]
    verdict = "met" if r["target_met"] else "NOT met"
    lines.append(f"ratio real p95 (class) / one-real p95 (baseline): {r['ratio_real_p95']:.2f}x "
                 f"(target <= {r['target_ratio']:.0f}x: {verdict}); p50 "
                 f"{r['ratio_real_p50']:.2f}x; protocol p95 class/one "
                 f"{r['ratio_proto_p95']:.2f}x")
    lines.append(f"real / protocol p95: class {r['real_over_proto_p95']:.2f}x, baseline "
                 f"{r['one_real_over_one_proto_p95']:.2f}x; teacher's OK (server applied the "
                 f"move) median {r['teacher_ok_ms']:.0f} ms")
    if "stalled_baseline" in r:
        lines.append(f"teacher's OK later than {STALL_S * 1e3:.0f} ms (the teacher's worker held "
                     f"by other work): baseline {r['stalled_baseline']} of "
                     f"{r['moves_baseline']} moves (OK median "
                     f"{r['teacher_ok_baseline_ms']:.0f} ms), class {r['stalled_class']} of "
                     f"{r['moves_class']} ({r['teacher_ok_class_ms']:.0f} ms)")
        if r["stalled_baseline"] > r["moves_baseline"] // 10:
            lines.append("WARNING: the baseline was held up on the workers (pages built ahead "
                         "between the moves, or collections: see --prebuilt 0); the ratio "
                         "understates the class's cost")
    for ph in ("baseline", "class"):
        b = r[f"stages_{ph}"]
        lines.append(
            f"stages, {ph} (medians from the teacher's first frame): protocol card "
            f"{b['proto_ms']:.0f} ms; card frame in the page's JS {b['frame_ms']:.0f} ms "
            f"(p95 {b['frame_p95_ms']:.0f}); + {b['frame_to_dom_ms']:.0f} ms to the DOM "
            f"({b['dom_ms']:.0f} ms); + {b['dom_to_paint_ms']:.0f} ms to the next frame; "
            f"long tasks in {b['with_long_task_pct']:.0f} % of the waits "
            f"(median {b['long_task_ms_median']:.0f} ms)")
    tr = r.get("trace") or {}
    if tr:
        lines.append(f"Chromium trace, class phase: {tr['renderers']} renderer main threads ran "
                     f"tasks {tr['busy_ms_per_move']:.0f} ms per page and move (median; p95 "
                     f"{tr['busy_ms_per_move_p95']:.0f} ms), {tr['busy_ms_before_card']:.0f} ms "
                     f"of it before the card (median)")
    if "server_cpu_pct" in r:
        lines.append(f"class phase CPU (% of one core): server {r['server_cpu_pct']:.0f}, "
                     f"browsers {r['browser_cpu_pct']:.0f}, this client "
                     f"{r['client_cpu_pct']:.0f}, others {r['others_cpu_pct']:.0f} "
                     f"(machine {r['machine_cpu_pct']:.0f}, {r.get('cpus', '?')} CPUs)")
    if "channel_cards" in r:
        total = r["one_proto"]["n"] + r["proto"]["n"]
        lines.append(f"protocol followers' cards first seen on the card channel: "
                     f"{r['channel_cards']} of {total} deliveries")
    if "gc_pauses_logged" in r:
        lines.append(f"server GC pauses >= 0.2 s logged: {r['gc_pauses_logged']}"
                     + (f" (max {r['gc_pause_max_s']:.2f} s)" if r["gc_pauses_logged"] else ""))
    for ph, per_worker in (r.get("room_timing") or {}).items():
        for w, t in sorted(per_worker.items()):
            lines.append(
                f"server stages, {ph}, worker {w} ({t['n']} moves, {t['members']} labs; medians, "
                f"p95 in brackets): the room message reaches the worker {t['arrive_ms']:.1f} ms "
                f"({t['arrive_p95_ms']:.1f}) after the teacher's frame; every card written "
                f"{t['cards_ms']:.1f} ms ({t['cards_p95_ms']:.1f}) later, of it on a core "
                f"{t.get('cards_cpu_ms', math.nan):.1f} ms "
                f"({t.get('cards_cpu_p95_ms', math.nan):.1f}), "
                f"a collection inside in {t.get('moves_with_gc', 0)} moves; every lab's callback "
                f"queued {t['delivered_ms']:.1f} ms ({t['delivered_p95_ms']:.1f}) after arrival")
    return "\n".join(lines)


TIMING_LINE = re.compile(r"room timing: pid (\d+) seq (\S+) members (\d+) received ([\d.]+) "
                         r"cards ([\d.]+) ms delivered ([\d.]+) ms"
                         r"(?: cards_cpu ([\d.]+) ms collections (\d+))?")
WORKER_LINE = re.compile(r"worker (\w+) pid (\d+)")


def room_timing(log: Path | None, sent: dict[str, list[float]]) -> dict[str, Any]:
    """Per phase and worker, from the workers' "room timing" lines (DPLAB_ROOM_TIMING=1,
    app/room/hub.py): when each move's room message reached the worker after the teacher
    sent it, and how long writing every follower's card and queueing every lab took."""
    if log is None or not log.exists():
        return {}
    text = log.read_text(errors="replace")
    names = {pid: name for name, pid in WORKER_LINE.findall(text)}
    lines: dict[str, list[tuple[float, int, float, float, float, int]]] = {}
    for pid, _seq, members, recv, cards, delivered, cpu, gcs in TIMING_LINE.findall(text):
        lines.setdefault(names.get(pid, pid), []).append(
            (float(recv), int(members), float(cards), float(delivered), float(cpu or "nan"),
             int(gcs or 0)))
    out: dict[str, Any] = {}
    for ph, epochs in sent.items():
        per: dict[str, Any] = {}
        for w, rows in lines.items():
            got = []
            for s0 in epochs:
                hit = next((x for x in rows if s0 - 5e-4 <= x[0] < s0 + 2.0), None)
                if hit is not None:
                    got.append(((hit[0] - s0) * 1e3, *hit[1:]))
            if not got:
                continue
            arr, mem, cards, dlv, cpu, gcs = (list(c) for c in zip(*got, strict=True))
            per[w] = {"n": len(got), "members": int(pct(mem, .5)),
                      "arrive_ms": pct(arr, .5), "arrive_p95_ms": pct(arr, .95),
                      "cards_ms": pct(cards, .5), "cards_p95_ms": pct(cards, .95),
                      "delivered_ms": pct(dlv, .5), "delivered_p95_ms": pct(dlv, .95),
                      "cards_cpu_ms": pct(cpu, .5), "cards_cpu_p95_ms": pct(cpu, .95),
                      "moves_with_gc": sum(1 for g in gcs if g)}
        out[ph] = per
    return out


# ---------------------------------------------------------------------------------------------
# the server
# ---------------------------------------------------------------------------------------------
@dataclass
class Server:
    base: str
    pid: int | None
    proc: subprocess.Popen[bytes] | None = None
    log: Path | None = None

    def stop(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


def start_server(args: argparse.Namespace) -> Server:
    """``--url`` as given, else ``--server-cmd`` (or one serve() process) on a free port with
    the teacher token and a session cap that holds the class on one worker; output logged."""
    if args.url:
        return Server(args.url.rstrip("/"), args.pid)
    port = free_port()
    root = Path(args.server_root).resolve()
    env = server_env(root, DPLAB_TEACHER_TOKEN=args.token, DPLAB_PORT=str(port),
                     DPLAB_ADDRESS="127.0.0.1",
                     DPLAB_PYTHON=os.environ.get("DPLAB_PYTHON", sys.executable),
                     DPLAB_MAX_SESSIONS=str(max(150, args.followers + args.pages + 50)))
    env["DPLAB_ROOM_TIMING"] = "1"  # the workers' stage lines (room_timing)
    if args.prebuilt is not None:
        env["DPLAB_PREBUILT_PAGES"] = str(args.prebuilt)
    cmd = (shlex.split(args.server_cmd) if args.server_cmd else
           [sys.executable, "-c", f"from app.serve.server import serve; serve(port={port})"])
    if cmd and not os.path.isabs(cmd[0]) and (root / cmd[0]).exists():
        cmd[0] = str(root / cmd[0])
    log = Path(f"/tmp/real_followers_{port}.log")
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    srv = Server(f"http://127.0.0.1:{port}", proc.pid, proc, log)
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited ({proc.returncode}); see {log}")
        try:
            with urllib.request.urlopen(srv.base + "/join", timeout=5):
                time.sleep(1.0)
                return srv
        except OSError:
            time.sleep(0.3)
    srv.stop()
    raise SystemExit(f"server did not start in 120 s; see {log}")


def pools_full(log_text: str) -> bool:
    """Every worker serve-prod started has logged its pool of pages built ahead as full
    (app/serve/prebuild.py); a log without workers (one process) needs one such line."""
    workers = log_text.count("serve-prod: worker ")
    return log_text.count("lab pages built ahead:") >= max(1, workers)


def settle(srv: Server, seconds: float) -> float:
    """Wait up to ``seconds`` for the pools of pages built ahead; the seconds waited."""
    t0 = time.perf_counter()
    while srv.log is not None and time.perf_counter() - t0 < seconds:
        if pools_full(srv.log.read_text(errors="replace")):
            break
        time.sleep(1.0)
    return time.perf_counter() - t0


# ---------------------------------------------------------------------------------------------
# real pages and moves
# ---------------------------------------------------------------------------------------------
@dataclass
class RealPage:
    context: Any
    page: Any
    worker: str = "-"


async def open_real(browser: Any, url: str, worker: str | None = None,
                    timeout_s: float = 90.0) -> RealPage:
    """A student's page in a browser context of its own (pinned to ``worker`` through the
    balancer's affinity cookie when given), armed once its card follows."""
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    if worker:
        await ctx.add_cookies([{"name": "dplab_w", "value": worker, "url": url}])
    await ctx.add_init_script(JS_INIT)
    page = await ctx.new_page()
    await page.goto(url, timeout=timeout_s * 1e3)
    await page.wait_for_function(JS_CARD, timeout=timeout_s * 1e3, polling=100)
    await page.evaluate(JS_ARM)
    cookies = {c["name"]: c["value"] for c in await ctx.cookies()}
    return RealPage(ctx, page, cookies.get("dplab_w", "-"))


async def release(teacher: wsclient.Tab, log10_sigma: float) -> asyncio.Future[Any]:
    """The teacher releases the σ slider as the page does (one message to the lab's
    controls); returns the future of the server's OK."""
    return await teacher.slide_sent("sigma", log10_sigma)


async def one_move(teacher: wsclient.Tab, protos: list[wsclient.Follower],
                   reals: list[RealPage], v: float, lost_after: float, ph: Phase) -> None:
    want = wsclient.sigma_shown(v)
    for f in protos:
        f.seen.clear()
    sent_pc, sent_ep = time.perf_counter(), time.time()
    ph.sent.append(sent_ep)
    ph.sent_pc.append(sent_pc)
    ok = await release(teacher, v)

    async def wait_ok() -> None:
        try:
            await asyncio.wait_for(ok, lost_after)
            ph.teacher_ok.append(time.perf_counter() - sent_pc)
        except (TimeoutError, wsclient.TabError):
            pass

    async def wait_protos() -> dict[str, list[float]]:
        while time.perf_counter() < sent_pc + lost_after:
            if all(f.seen_at(want) is not None for f in protos):
                break
            await asyncio.sleep(0.005)
        by: dict[str, list[float]] = {}
        for f in protos:
            at = f.seen_at(want)
            if at is None:
                ph.proto_lost += 1
                continue
            by.setdefault(f.worker or "-", []).append(at - sent_pc)
            ph.proto.append(at - sent_pc)
        for w, xs in by.items():
            ph.proto_by_worker.setdefault(w, []).extend(xs)
        return by

    async def wait_real(rp: RealPage) -> Any:
        try:
            return await rp.page.evaluate(JS_WAIT, [want, sent_ep * 1e3 - 1, lost_after * 1e3])
        except Exception as exc:  # a page that crashed or closed: its deliveries are lost
            print(f"  a real page failed: {type(exc).__name__}: {exc}"[:200], file=sys.stderr)
            return None

    # The real pages are asked once the protocol followers have their cards: their times come
    # from each page's own observer (JS_ARM), and a question through Playwright's driver at the
    # move (six evaluations, the driver and Chromium's browser process woken) took CPU from the
    # workers' card passes that it was timing.
    _, by = await asyncio.gather(wait_ok(), wait_protos())
    seen = await asyncio.gather(*(wait_real(rp) for rp in reals))
    every = [x for xs in by.values() for x in xs]
    for rp, s in zip(reals, seen, strict=True):
        near = by.get(rp.worker) or every
        proto_med = pct(near, 0.5) if near else None
        if s is None:
            ph.real_lost += 1
            continue
        t0 = sent_ep * 1e3
        dom = (s["dom"] - t0) / 1e3
        ph.real.append(dom)
        ph.deliveries.append(Delivery(
            frame=None if s["frame"] is None else (s["frame"] - t0) / 1e3, dom=dom,
            paint=(s["paint"] - t0) / 1e3, proto=proto_med,
            long_ms=sum(d for _, d in s["long"]), worker=rp.worker))


async def run_phase(name: str, teacher: wsclient.Tab, protos: list[wsclient.Follower],
                    reals: list[RealPage], values: list[float], args: argparse.Namespace
                    ) -> Phase:
    ph = Phase(name)
    for k, v in enumerate(values):
        t = time.perf_counter()
        await one_move(teacher, protos, reals, v, args.lost_after, ph)
        if (k + 1) % 5 == 0:
            print(f"  {name}: {k + 1}/{len(values)} moves; real p95 "
                  f"{1e3 * pct(ph.real, .95):.0f} ms, protocol p95 "
                  f"{1e3 * pct(ph.proto, .95):.0f} ms", file=sys.stderr, flush=True)
        await asyncio.sleep(max(0.0, args.interval - (time.perf_counter() - t)))
    return ph


def cpu_window(pid: int | None) -> tuple[float, float, float, float]:
    """(server CPU s, this process's tree CPU s: client + Playwright + Chromium, this process's
    own CPU s, machine busy s)."""
    mine = proc_sample(os.getpid())[0]
    own = sum(os.times()[:2])
    return proc_sample(pid)[0], mine, own, machine_busy()[0]


async def placed_follower(base: str, code: str, teacher_worker: str, place: str
                          ) -> tuple[wsclient.Follower, str | None]:
    """The baseline's protocol follower on the worker the real pages will use, and that
    worker's name (None: the balancer chooses): ``teacher``: the teacher's; ``other``: the
    first one the balancer gives that is not the teacher's (up to 4 tries)."""
    url = f"{base}/lab?room={code}&lang=en"

    async def one(pin: str | None = None) -> wsclient.Follower:
        tab = await wsclient.Follower.open(url, cookie=pin)
        assert isinstance(tab, wsclient.Follower)
        return tab

    if place == "teacher":
        return await one(teacher_worker), teacher_worker
    if place == "any":
        return await one(), None
    spare: list[wsclient.Follower] = []
    f = await one()
    while f.worker == teacher_worker and len(spare) < 3:
        spare.append(f)
        f = await one()
    for x in spare:
        await x.close()
    return f, (f.worker if f.worker != teacher_worker else None)


async def run(args: argparse.Namespace, srv: Server) -> dict[str, Any]:
    from playwright.async_api import async_playwright
    from tornado.httpclient import AsyncHTTPClient

    AsyncHTTPClient.configure(None, max_clients=10_000)
    base = srv.base
    cookie, code = await wsclient.teacher_sign_in(base, args.token)
    teacher = await wsclient.Tab.open(f"{base}/lab?room={code}&lang=en",
                                      extra_cookies={"dplab_teacher": cookie})
    values = wsclient.follow_values(args.baseline_moves + args.moves)
    load_start = loadavg()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_FLAGS)
        if args.protocol_nice:  # (Playwright's driver and Chromium started before: not theirs)
            os.nice(args.protocol_nice)
        first, pin = await placed_follower(base, code, teacher.worker or "-", args.place)
        protos = [first]
        reals = [await open_real(browser, f"{base}/lab?room={code}&lang=ko", pin)]
        print(f"room {code}: teacher on {teacher.worker}; baseline: one real page (worker "
              f"{reals[0].worker}) and one protocol follower ({first.worker})",
              file=sys.stderr, flush=True)
        await asyncio.sleep(2.0)
        base_ph = await run_phase("baseline", teacher, protos, reals,
                                  values[:args.baseline_moves], args)
        t_open = time.perf_counter()
        more, errs = await wsclient.open_followers(base, code, args.followers - 1,
                                                   args.concurrency)
        protos += more
        for e in errs[:3]:
            print(f"  a protocol follower did not open: {e}", file=sys.stderr)
        for i in range(1, args.pages):
            lang = "en" if i % 2 else "ko"
            try:
                reals.append(await open_real(browser, f"{base}/lab?room={code}&lang={lang}",
                                             pin))
            except Exception as exc:
                print(f"  a real page did not open: {exc}"[:200], file=sys.stderr)
        open_s = time.perf_counter() - t_open
        per_worker: dict[str, int] = {}
        for f in protos:
            per_worker[f.worker or "-"] = per_worker.get(f.worker or "-", 0) + 1
        print(f"class: {len(protos)} protocol followers (per worker {per_worker}) and "
              f"{len(reals)} real pages (workers {[r.worker for r in reals]}) open after "
              f"{open_s:.0f} s", file=sys.stderr, flush=True)
        await asyncio.sleep(3.0)
        w0, wall0 = cpu_window(srv.pid), time.perf_counter()
        if args.trace:
            await browser.start_tracing(page=reals[0].page, categories=[
                "toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline",
                "blink", "v8.execute"])
        cls_ph = await run_phase("class", teacher, protos, reals,
                                 values[args.baseline_moves:], args)
        trace: dict[str, Any] = {}
        if args.trace:
            raw = await browser.stop_tracing()
            Path(args.trace).write_bytes(raw)
            trace = renderer_busy(json.loads(raw), cls_ph.sent_pc, args.interval,
                                  [d.dom for d in cls_ph.deliveries])
        w1, wall = cpu_window(srv.pid), time.perf_counter() - wall0
        for rp in reals:
            await rp.context.close()
        await browser.close()
    # cards a protocol follower first saw on the class's card channel (app/room/channel.py)
    channel_cards = sum(f.via_channel for f in protos)
    for t in [teacher, *protos]:
        await t.close()
    server, tree, own, busy = (b - a for a, b in zip(w0, w1, strict=True))
    browsers = tree - own  # Playwright's driver and Chromium: children of this process
    r = summary(base_ph, cls_ph, teacher.worker or "-")
    r.update(pages=len(reals), followers=len(protos), room=code, open_s=open_s,
             per_worker=per_worker, real_workers=[x.worker for x in reals],
             channel_cards=channel_cards,
             sent_epochs={"baseline": base_ph.sent, "class": cls_ph.sent}, trace=trace,
             load_start=load_start, load_end=loadavg(), cpus=os.cpu_count(),
             server_cpu_pct=100 * server / wall, browser_cpu_pct=100 * browsers / wall,
             client_cpu_pct=100 * own / wall,
             others_cpu_pct=100 * max(0.0, busy - (0 if math.isnan(server) else server)
                                      - tree) / wall,
             machine_cpu_pct=100 * busy / wall)
    return r


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    wsclient.NODELAY = args.nodelay
    args.token = args.token or secrets.token_urlsafe(24)
    # A run stopped with SIGTERM stops its server too (it runs in a session of its own).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    srv = start_server(args)
    try:
        waited = settle(srv, args.settle) if args.settle > 0 else 0.0
        print(f"server up; waited {waited:.0f} s for the pages built ahead "
              f"(full: {srv.log is not None and pools_full(srv.log.read_text(errors='replace'))})",
              file=sys.stderr, flush=True)
        if args.clients_nice:
            os.nice(args.clients_nice)  # (the server and its children keep theirs)
        if args.clients_idle:  # inherited by Chromium and Playwright's driver, started later
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        r = asyncio.run(run(args, srv))
        r["settled_s"] = waited
        r["clients_nice"] = args.clients_nice
        r["protocol_nice"] = args.protocol_nice
        r["clients_idle"] = args.clients_idle
    finally:
        srv.stop()
    r.update(gc_pauses(srv.log))
    r["room_timing"] = room_timing(srv.log, r.get("sent_epochs") or {})
    r["server"] = args.url or args.server_cmd or "serve() of this checkout"
    r["nodelay"] = args.nodelay
    print(report(r))
    line = json.dumps(r, default=str)
    print(line)
    if args.json:
        with open(args.json, "a") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
