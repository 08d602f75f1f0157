"""The weight of one page (issue 38, item 1): models, objects, bytes and server CPU per page.

For ``/lab`` and ``/cdf``, against a bare Panel page built and served by the same server in the
same run ("bare": one FloatSlider and one Markdown pane that the slider's release rewrites):

- models: Bokeh models in the document a session pulls (PULL-DOC-REPLY), and as the server
  counts them (``len(doc.models)`` of the sessions' documents).
- objects: the live objects the server's garbage collector tracks (``len(gc.get_objects())``
  after ``gc.unfreeze()`` and a full ``gc.collect()``, then ``gc.freeze()`` again, as the
  server does when sessions close), before and after ``--pages`` more sessions of the page are
  opened and kept open, divided by ``--pages``; after warm-up (``--warm`` sessions of every page
  opened and kept open first, one move each). Also ``sys.getallocatedblocks()`` (objects the
  collector does not track, such as strings and numbers, count there) and the server's RSS.
- page build: server CPU (``time.process_time()`` of the server process, read by the server
  itself) from the page's GET to the OK for its ``document_ready`` (HTML, websocket, pull, what
  the rendered page reports back), one page at a time, no page built ahead
  (``DPLAB_PREBUILT_PAGES=0``, app/serve/prebuild.py); also the wall time to that OK.
- move: a slider release as the page's script sends it (σ on /lab, ε on /cdf, the bare
  slider), then every PATCH-DOC the server pushes until it has been quiet for ``--quiet`` s:
  bytes (UTF-8 payload of the websocket frames) and messages to that session, server CPU per
  move. /lab twice: as opened, and after scrolling down (the simulation figure joins then).
- room: a teacher and ``--followers`` students on ``/lab?room=CODE``; per teacher σ move, the
  bytes to each follower and to all of them (what leaves the server for the room, with the
  teacher's own), server CPU per move and per follower.
- pool (``--pool N``, 0 = skipped): a second server as it runs by default, N /lab pages built
  ahead in idle time: server CPU per page built ahead, and of a request that takes one.

The server is ``app.serve.server.serve`` of this checkout (its tuning included) in a
subprocess, with the bare page and a probe (``/_page_weight``: CPU, GC counts, models per
session) added by this script. Counts (models, objects, bytes) do not depend on the machine's
load; CPU figures do: the load average and a fixed reference build (benchmarks/_common.py) are
printed beside them.

    .venv/bin/python benchmarks/page_weight.py
    .venv/bin/python benchmarks/page_weight.py --pages 4 --moves 20 --followers 10 --pool 3

A script, not a test: it asserts nothing about wall-clock time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import secrets
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import wsclient  # noqa: E402
from _common import (  # noqa: E402
    free_port,
    machine_reference_ms,
    server_code,
    start_server,
    stop_server,
)

SERVER_CODE = r"""
import gc, json, os, sys, time
import panel as pn
import tornado.web
import $server as srv
from app.serve import plain_pages, prebuild

def bare():
    s = pn.widgets.FloatSlider(label="x", start=0, end=10, step=0.05, value=1,
                               css_classes=["bare-slider"])
    out = pn.pane.Markdown("x = 1", css_classes=["bare-out"])
    s.param.watch(lambda e: setattr(out, "object", f"x = {e.new:g}"), "value_throttled")
    return pn.Column(s, out)

class Probe(tornado.web.RequestHandler):
    def get(self):
        out = {"cpu": time.process_time(), "thread": time.thread_time()}
        if self.get_argument("objects", ""):
            # everything, the frozen objects too (the server freezes each new page), as the
            # server collects when sessions close: unfreeze, collect, freeze again
            gc.unfreeze()
            gc.collect()
            out["objects"] = len(gc.get_objects())
            gc.freeze()
            out["blocks"] = sys.getallocatedblocks()
            with open("/proc/self/statm") as fh:
                out["rss"] = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        out["models"] = {path: sorted(len(s.document.models) for s in ctx.sessions)
                         for path, ctx in self.application._applications.items()}
        docs = prebuild.lab_documents()
        if docs is not None:
            p = docs.pool
            out["ahead"] = {"ready": {prebuild._label(k): len(v) for k, v in p.ready.items()},
                            "built": p.built, "taken": p.taken}
        self.set_header("Content-Type", "application/json")
        self.write(json.dumps(out))

_plain = plain_pages.routes
plain_pages.routes = lambda: [*_plain(), (r"/_page_weight", Probe)]
_routes = srv.routes
srv.routes = lambda: {**_routes(), "/bare": bare}
srv.serve(port=$port)
"""

# page -> (address, the slider's css class, its release values)
PAGES: dict[str, tuple[str, str]] = {
    "bare": ("/bare", "bare-slider"),
    "lab": ("/lab?lang=en", "dp-slider-sigma"),
    "cdf": ("/cdf?lang=en", "dp-cdf-eps-slider"),
}
BASELINE = "bare"
# /cdf's sidebar is one component (app/cdf/sidebar.py): its ε slider is a range input in it
CDF_CONTROLS = "dp-cdf-controls"


def move_values(page: str, n: int) -> list[float]:
    """``n`` release values for the page's slider, each different from the one before (log10 σ
    on /lab, ε on /cdf, x on the bare page)."""
    if page == "lab":
        return wsclient.follow_values(n)
    # 1 ± 0.05…0.9, alternately below and above 1: inside /cdf's ε slider (0.05…10)
    return [round(1.0 + 0.05 * ((k // 2) % 18 + 1) * (1 if k % 2 else -1), 2)
            for k in range(n)]


def utf8_len(frame: str | bytes) -> int:
    return len(frame.encode("utf-8")) if isinstance(frame, str) else len(frame)


class Counted:
    """Mixin for wsclient's tabs: UTF-8 bytes of the frames received, PATCH-DOC pushes
    received, and when the last one came (wsclient counts characters of text frames)."""

    wire = 0
    patch_docs = 0
    last_push = 0.0
    ws: Any
    _asm: wsclient.Assembler

    async def _read_message(self) -> wsclient.Message:
        while True:
            frame = await self.ws.read_message()
            if frame is None:
                raise wsclient.TabError("websocket closed by the server")
            self.wire += utf8_len(frame)
            msg = self._asm.feed(frame)
            if msg is not None:
                if msg.msgtype == "PATCH-DOC":
                    self.patch_docs += 1
                    self.last_push = time.perf_counter()
                return msg


class PageTab(Counted, wsclient.LabTab):
    """A tab on any page; answers the Location updates as Panel's JavaScript does."""


class RoomFollower(Counted, wsclient.Follower):
    pass


class TeacherTab(Counted, wsclient.Tab):
    pass


async def settle(tabs: Sequence[Counted], before: Sequence[int], quiet: float,
                 timeout: float) -> bool:
    """Wait until each tab got a push after ``before`` (its patch_docs then) and none came for
    ``quiet`` s; False when ``timeout`` s passed first."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        now = time.perf_counter()
        if all(t.patch_docs > b for t, b in zip(tabs, before, strict=True)) and \
                now - max(t.last_push for t in tabs) >= quiet:
            return True
        await asyncio.sleep(0.02)
    return False


async def release(tab: PageTab, css: str, value: float) -> None:
    """Release the slider with class ``css`` (``dp-slider-<name>``) at ``value`` as the
    page's script does (benchmarks/wsclient.py ``slider_patches``)."""
    ix = tab.index
    assert ix is not None
    if css == "dp-cdf-eps-slider" and CDF_CONTROLS in ix.by_class:  # /cdf's sidebar: one message
        patches = [[wsclient.data_event(ix.by_class[CDF_CONTROLS],
                                        {"k": "slide", "c": "eps_slider", "v": value})]]
    elif wsclient.LAB_CONTROLS in ix.by_class:  # the lab's controls: one message
        patches = wsclient.slider_patches(ix.by_class, ix.release_only,
                                          css.removeprefix("dp-slider-"), value)
    else:  # a Bokeh slider (the bare page): BokehJS's two messages, or one when release-only
        model = ix.by_class[css]
        both = [wsclient.model_changed(model, "value", value),
                wsclient.model_changed(model, "value_throttled", value)]
        patches = [both] if model in ix.release_only else [[e] for e in both]
    for events in patches:
        await tab._patch_quietly(events)


@dataclass
class Probe:
    """The server's own readings (``/_page_weight``)."""

    base: str
    cost: float = 0.0  # server CPU of one reading, subtracted from intervals

    async def read(self, objects: bool = False) -> dict[str, Any]:
        from tornado.httpclient import AsyncHTTPClient

        r = await AsyncHTTPClient().fetch(self.base + "/_page_weight" +
                                          ("?objects=1" if objects else ""))
        return dict(json.loads(r.body))

    async def cpu(self) -> float:
        return float((await self.read())["cpu"])

    async def calibrate(self, n: int = 9) -> None:
        deltas = []
        for _ in range(n):
            a = await self.cpu()
            deltas.append(await self.cpu() - a)
        self.cost = statistics.median(deltas)


@dataclass
class PageFigures:
    models_pulled: list[int] = field(default_factory=list)
    models_server: list[int] = field(default_factory=list)
    objects: float = math.nan
    blocks: float = math.nan  # sys.getallocatedblocks(): tracked or not (str, int, ...)
    rss: float = math.nan  # bytes
    html_bytes: list[int] = field(default_factory=list)
    doc_bytes: list[int] = field(default_factory=list)
    build_cpu: list[float] = field(default_factory=list)  # s
    build_wall: list[float] = field(default_factory=list)  # s
    get_cpu: list[float] = field(default_factory=list)  # s: the GET alone (page + HTML)
    move_bytes: list[int] = field(default_factory=list)
    move_msgs: list[int] = field(default_factory=list)
    move_cpu: float = math.nan  # s per move
    moves_unsettled: int = 0


@dataclass
class RoomFigures:
    followers: int = 0
    moves: int = 0
    follower_bytes: list[int] = field(default_factory=list)  # per follower and move
    room_bytes: list[int] = field(default_factory=list)  # all followers, per move
    teacher_bytes: list[int] = field(default_factory=list)
    cpu: float = math.nan  # s per teacher move
    lost: int = 0


async def open_tab(base: str, path: str) -> PageTab:
    tab = PageTab(base + path, timeout=120.0)
    await tab.open()
    return tab


async def measure_builds(probe: Probe, base: str, page: str, n: int,
                         fig: PageFigures) -> list[PageTab]:
    """Open ``n`` tabs of ``page`` one at a time (kept open): CPU and wall time per build,
    models, and the objects they add."""
    path, _ = PAGES[page]
    before = await probe.read(objects=True)
    tabs = []
    for _ in range(n):
        cpu0 = await probe.cpu()
        t0 = time.perf_counter()
        tab = await open_tab(base, path)
        wall = time.perf_counter() - t0
        fig.build_cpu.append(await probe.cpu() - cpu0 - probe.cost)
        fig.build_wall.append(wall)
        assert tab.index is not None
        fig.models_pulled.append(tab.index.n_models)
        fig.html_bytes.append(tab.times.html_bytes)
        fig.doc_bytes.append(tab.times.doc_bytes)
        tabs.append(tab)
    after = await probe.read(objects=True)
    fig.objects = (after["objects"] - before["objects"]) / n
    fig.blocks = (after["blocks"] - before["blocks"]) / n
    fig.rss = (after["rss"] - before["rss"]) / n
    route = path.split("?", 1)[0]
    fig.models_server = _added(before["models"].get(route, []), after["models"].get(route, []))
    return tabs


async def measure_gets(probe: Probe, base: str, page: str, n: int, fig: PageFigures) -> None:
    """Server CPU of the page's GET alone (the page built, its HTML sent; the session is
    never connected and lingers until the server drops it, so this runs last)."""
    from tornado.httpclient import AsyncHTTPClient

    path, _ = PAGES[page]
    for _ in range(n):
        cpu0 = await probe.cpu()
        await AsyncHTTPClient().fetch(base + path, request_timeout=120.0,
                                      headers={"Accept-Language": "en-US,en;q=0.9"})
        fig.get_cpu.append(await probe.cpu() - cpu0 - probe.cost)


def _added(before: list[int], after: list[int]) -> list[int]:
    """The model counts in ``after`` that are not in ``before`` (sessions opened between)."""
    rest = list(before)
    out = []
    for m in after:
        if m in rest:
            rest.remove(m)
        else:
            out.append(m)
    return out


async def measure_moves(probe: Probe, tab: PageTab, page: str, n: int, quiet: float,
                        fig: PageFigures) -> None:
    _, css = PAGES[page]
    cpu0 = await probe.cpu()
    for v in move_values(page, n):
        b0, p0 = tab.wire, tab.patch_docs
        await release(tab, css, v)
        if not await settle([tab], [p0], quiet, 20.0):
            fig.moves_unsettled += 1
        fig.move_bytes.append(tab.wire - b0)
        fig.move_msgs.append(tab.patch_docs - p0)
    fig.move_cpu = (await probe.cpu() - cpu0 - probe.cost) / n
    if page == "lab" and tab.card is not None:
        want = wsclient.sigma_shown(move_values(page, n)[-1])
        if not wsclient.same_number(tab.card["sigma"], want):
            print(f"  WARNING: the lab card shows σ={tab.card['sigma']}, expected {want}",
                  file=sys.stderr)


async def measure_room(probe: Probe, base: str, token: str, followers: int, moves: int,
                       quiet: float) -> RoomFigures:
    fig = RoomFigures()
    cookie, code = await wsclient.teacher_sign_in(base, token)
    teacher = await TeacherTab.open(f"{base}/lab?room={code}&lang=en",
                                    extra_cookies={"dplab_teacher": cookie})
    assert isinstance(teacher, TeacherTab)
    students: list[RoomFollower] = []
    for i in range(followers):
        tab = await RoomFollower.open(f"{base}/lab?room={code}&lang={'en' if i % 2 else 'ko'}",
                                      timeout=120.0)
        assert isinstance(tab, RoomFollower)
        students.append(tab)
    fig.followers = len(students)
    await asyncio.sleep(1.0)
    cpu0 = await probe.cpu()
    for v in wsclient.follow_values(moves):
        b0 = [s.wire for s in students]
        p0 = [s.patch_docs for s in students]
        tb0 = teacher.wire
        _, lost = await wsclient.teacher_move(teacher, students, v, 10.0)
        fig.lost += lost
        await settle(students, p0, quiet, 20.0)
        got = [s.wire - b for s, b in zip(students, b0, strict=True)]
        fig.follower_bytes += got
        fig.room_bytes.append(sum(got))
        fig.teacher_bytes.append(teacher.wire - tb0)
    fig.cpu = (await probe.cpu() - cpu0 - probe.cost) / moves
    fig.moves = moves
    for t in [teacher, *students]:
        await t.close()
    return fig


async def measure_pool(base: str, size: int, pages: int) -> dict[str, Any]:
    """A server with ``size`` /lab pages built ahead: warm up (two en pages move the pool's
    split to them), wait until the pool holds ``size`` of them, then CPU per page built ahead
    and per request that takes one."""
    probe = Probe(base)
    await probe.calibrate()
    tabs = [await open_tab(base, "/lab") for _ in range(2)]
    key = "en"  # /lab from an English browser (the tabs' Accept-Language)
    t_start = time.perf_counter()
    cpu0, built0 = None, 0
    while time.perf_counter() - t_start < 240:
        info = await probe.read()
        ahead = info.get("ahead")
        if ahead is None:
            return {"error": "no pool (prebuild off or not installed)"}
        if cpu0 is None:
            cpu0, built0 = info["cpu"], ahead["built"]
        if ahead["ready"].get(key, 0) >= size:
            break
        # every request is activity: the pool fills only after 1 s without any
        await asyncio.sleep(3.0)
    else:
        return {"error": f"the pool did not fill: {ahead}"}
    built = ahead["built"] - built0
    ahead_cpu = (info["cpu"] - cpu0) / built if built else math.nan
    taken_cpu, taken_wall = [], []
    for _ in range(min(pages, size)):
        before = (await probe.read())["ahead"]["taken"]
        c0 = await probe.cpu()
        t0 = time.perf_counter()
        tabs.append(await open_tab(base, "/lab"))
        wall = time.perf_counter() - t0
        c1 = await probe.cpu()
        if (await probe.read())["ahead"]["taken"] == before + 1:
            taken_cpu.append(c1 - c0 - probe.cost)
            taken_wall.append(wall)
    for t in tabs:
        await t.close()
    return {"built": built, "ahead_cpu": ahead_cpu, "taken_cpu": taken_cpu,
            "taken_wall": taken_wall}


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def med(xs: Sequence[float]) -> float:
    return statistics.median(xs) if xs else math.nan


def ratio(x: float, base: float) -> str:
    if not (base and math.isfinite(x) and math.isfinite(base)):
        return "–"
    return f"{x / base:.1f}×"


def table(figs: dict[str, PageFigures]) -> list[str]:
    """The per-page table (markdown), with each figure's ratio to the baseline page."""
    rows = [
        ("Bokeh models per page (pulled)", lambda f: med(f.models_pulled), "{:.0f}"),
        ("Python objects per page (gc-tracked)", lambda f: f.objects, "{:,.0f}"),
        ("allocated blocks per page (sys.getallocatedblocks)", lambda f: f.blocks,
         "{:,.0f}"),
        ("server RSS per page, kB", lambda f: f.rss / 1024, "{:,.0f}"),
        ("HTML + pulled document, bytes", lambda f: med([h + d for h, d in
                                                         zip(f.html_bytes, f.doc_bytes,
                                                             strict=True)]), "{:,.0f}"),
        ("server CPU per page build, ms (no page ahead)", lambda f: 1e3 * med(f.build_cpu),
         "{:.1f}"),
        ("… of which the GET (page built, HTML sent), ms", lambda f: 1e3 * med(f.get_cpu),
         "{:.1f}"),
        ("page open, GET → document_ready OK, ms", lambda f: 1e3 * med(f.build_wall), "{:.0f}"),
        ("bytes per move to the session", lambda f: med(f.move_bytes), "{:,.0f}"),
        ("PATCH-DOC messages per move", lambda f: med(f.move_msgs), "{:.0f}"),
        ("server CPU per move, ms", lambda f: 1e3 * f.move_cpu, "{:.2f}"),
    ]
    names = list(figs)
    out = ["| figure | " + " | ".join(names) + " | " +
           " | ".join(f"{n}/{BASELINE}" for n in names if n != BASELINE) + " |",
           "|---|" + "---:|" * (2 * len(names) - 1)]
    for label, get, fmt in rows:
        vals = {n: get(f) for n, f in figs.items()}
        cells = [fmt.format(v) if math.isfinite(v) else "–" for v in vals.values()]
        ratios = [ratio(vals[n], vals[BASELINE]) for n in names if n != BASELINE]
        out.append(f"| {label} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    return out


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--pages", type=int, default=4, help="sessions opened per page (measured)")
    p.add_argument("--warm", type=int, default=2, help="sessions per page opened first")
    p.add_argument("--moves", type=int, default=20, help="slider releases per page")
    p.add_argument("--quiet", type=float, default=0.6,
                   help="a move's pushes are over after this many seconds without one")
    p.add_argument("--followers", type=int, default=10, help="students following a room")
    p.add_argument("--room-moves", type=int, default=10, help="teacher σ moves")
    p.add_argument("--pool", type=int, default=0,
                   help="also a server with this many /lab pages built ahead (0: skipped)")
    p.add_argument("--json", default="", help="append the figures as one JSON line here")
    a = p.parse_args(argv)
    if min(a.pages, a.moves, a.room_moves, a.followers) < 1:
        p.error("--pages, --moves, --room-moves and --followers must be >= 1")
    if a.warm < 0 or a.pool < 0:
        p.error("--warm and --pool must be >= 0")
    return a


async def run_main(args: argparse.Namespace, base: str, token: str
                   ) -> tuple[dict[str, PageFigures], dict[str, Any]]:
    probe = Probe(base)
    await probe.calibrate()
    c0 = await probe.cpu()
    await asyncio.sleep(3.0)
    idle = (await probe.cpu() - c0 - probe.cost) / 3.0
    keep: list[PageTab] = []
    for page, (path, css) in PAGES.items():  # warm-up: every page built and moved once
        for _ in range(args.warm):
            tab = await open_tab(base, path)
            # not the first measured value: that move must change the page
            await release(tab, css, move_values(page, 2)[1])
            await settle([tab], [0], args.quiet, 20.0)
            keep.append(tab)
    figs: dict[str, PageFigures] = {}
    for page in PAGES:
        print(f"  {page}: {args.pages} pages …", file=sys.stderr, flush=True)
        figs[page] = PageFigures()
        keep += await measure_builds(probe, base, page, args.pages, figs[page])
    for page in PAGES:
        print(f"  {page}: {args.moves} moves …", file=sys.stderr, flush=True)
        tab = next(t for t in keep if t.page_url == base + PAGES[page][0])
        await measure_moves(probe, tab, page, args.moves, args.quiet, figs[page])
    lab = next(t for t in keep if t.page_url == base + PAGES["lab"][0])
    before = await probe.read(objects=True)
    await lab.scroll_down()
    await settle([lab], [lab.patch_docs - 1], args.quiet, 20.0)
    after = await probe.read(objects=True)
    scrolled = PageFigures()
    scrolled.models_server = _added(before["models"].get("/lab", []),
                                    after["models"].get("/lab", []))
    scrolled.objects = after["objects"] - before["objects"]
    scrolled.blocks = after["blocks"] - before["blocks"]
    await measure_moves(probe, lab, "lab", args.moves, args.quiet, scrolled)
    extra = {"idle_cpu_ms_per_s": 1e3 * idle, "probe_cpu_ms": 1e3 * probe.cost,
             "scrolled": scrolled}
    for t in keep:
        await t.close()
    print(f"  room: {args.followers} followers …", file=sys.stderr, flush=True)
    extra["room"] = await measure_room(probe, base, token, args.followers, args.room_moves,
                                       args.quiet)
    for page in PAGES:
        await measure_gets(probe, base, page, args.pages, figs[page])
    return figs, extra


def main() -> None:
    args = parse_args()
    token = secrets.token_urlsafe(12)
    print(f"load average before: {load_average()}", flush=True)
    ref0 = machine_reference_ms()
    port = free_port()
    env = {"DPLAB_PREBUILT_PAGES": "0", "DPLAB_TEACHER_TOKEN": token,
           "DPLAB_MAX_SESSIONS": "1000"}
    proc = start_server(server_code(SERVER_CODE, port=port), port, ready_path="/healthz",
                        env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        figs, extra = asyncio.run(run_main(args, base, token))
    finally:
        stop_server(proc)
    pool: dict[str, Any] = {}
    if args.pool:
        print(f"  pool: {args.pool} pages built ahead …", file=sys.stderr, flush=True)
        port = free_port()
        proc = start_server(server_code(SERVER_CODE, port=port), port, ready_path="/healthz",
                            env={"DPLAB_PREBUILT_PAGES": str(args.pool)})
        try:
            pool = asyncio.run(measure_pool(f"http://127.0.0.1:{port}", args.pool, args.pages))
        finally:
            stop_server(proc)
    ref1 = machine_reference_ms()
    load_after = load_average()

    print(f"\npage weight ({os.cpu_count()} CPUs; baseline: the bare page '{BASELINE}', "
          f"same server, same run)")
    print("\n".join(table(figs)))
    sc, room = extra["scrolled"], extra["room"]
    lab = figs["lab"]
    added = sum(sc.models_server) if sc.models_server else math.nan
    print(f"\n/lab scrolled down (the simulation figure joined): +{added:.0f} models, "
          f"+{sc.objects:,.0f} gc-tracked objects, +{sc.blocks:,.0f} blocks; per move "
          f"{med(sc.move_bytes):,.0f} bytes in {med(sc.move_msgs):.0f} PATCH-DOC, server CPU "
          f"{1e3 * sc.move_cpu:.2f} ms ({ratio(sc.move_cpu, figs[BASELINE].move_cpu)} bare)")
    print("models as the server counts them (len(doc.models)): "
          + ", ".join(f"{n} {sorted(set(f.models_server))}" for n, f in figs.items()))
    unsettled = {n: f.moves_unsettled for n, f in [*figs.items(), ("lab scrolled", sc)]
                 if f.moves_unsettled}
    if unsettled:
        print(f"WARNING moves whose pushes never came or never went quiet: {unsettled}")
    per_f = med(room.follower_bytes)
    print(f"\nroom: {room.followers} followers of /lab?room=CODE, {room.moves} teacher σ moves"
          f" ({room.lost} deliveries lost)")
    print(f"  bytes per move: {per_f:,.0f} to each follower "
          f"({ratio(per_f, med(lab.move_bytes))} of a /lab move to its own session), "
          f"{med(room.room_bytes):,.0f} to all {room.followers} followers, "
          f"{med(room.teacher_bytes):,.0f} to the teacher")
    print(f"  server CPU per teacher move: {1e3 * room.cpu:.1f} ms, "
          f"{1e3 * room.cpu / max(1, room.followers):.2f} ms per follower "
          f"({ratio(room.cpu / max(1, room.followers), figs[BASELINE].move_cpu)} a bare move)")
    if pool:
        if "error" in pool:
            print(f"\npool: {pool['error']}")
        else:
            print(f"\npool of {args.pool} /lab pages built ahead: "
                  f"{1e3 * pool['ahead_cpu']:.0f} ms server CPU per page built ahead "
                  f"({pool['built']} built); a request that takes one: "
                  f"{1e3 * med(pool['taken_cpu']):.0f} ms CPU, "
                  f"{1e3 * med(pool['taken_wall']):.0f} ms to document_ready "
                  f"(n={len(pool['taken_cpu'])}; no page ahead: "
                  f"{1e3 * med(lab.build_cpu):.0f} ms CPU)")
    print(f"\nCPU context: load average {load_after} (before: see top); machine reference "
          f"(a fixed Bokeh figure build) {ref0:.1f} ms before, {ref1:.1f} ms after; idle "
          f"server {extra['idle_cpu_ms_per_s']:.2f} ms CPU/s; one probe reading "
          f"{extra['probe_cpu_ms']:.2f} ms (subtracted)")
    if args.json:
        row = {"when": time.strftime("%Y-%m-%dT%H:%M:%S"), "load_after": load_after,
               "reference_ms": [ref0, ref1], "pages": {n: vars(f) for n, f in figs.items()},
               "lab_scrolled": vars(sc), "room": vars(room), "pool": pool,
               "idle_cpu_ms_per_s": extra["idle_cpu_ms_per_s"]}
        with open(args.json, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
