"""What loading a page costs the browser's main thread: a fresh context against a profile on disk.

Opens ``--path`` (default /lab) ``--loads`` times, one page after the other, in each of:

- ``fresh``: a new (incognito) context of one browser, as the browser tests' own contexts and
  a student's first visit are: no code cache on disk;
- ``profile``: a context with a profile on disk and one renderer process
  (``--renderer-process-limit=1``), as the browser tests' shared context is since 2026-12-07
  (tests/ui/conftest.py): Chromium keeps the compiled scripts of Bokeh and Panel between loads
  (its code cache, and the one process's V8). ``--no-process-limit``: the profile alone.

For each load it reads the DevTools protocol's ``Performance.getMetrics`` once the densities'
figure is drawn: main-thread task time, script, layout and style time. Printed: the medians of
loads 3.. of each (the first two fill the caches), and ``profile`` as a ratio of ``fresh``.
``--profile-js`` also prints where the main thread's time went in the last load (the sampling
profiler, by script). One server of this checkout; the two contexts run one after the other.

    .venv/bin/python benchmarks/browser_page_cost.py --loads 8
    .venv/bin/python benchmarks/browser_page_cost.py --path /cdf --ready ".dp-cdf-ks"
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import (  # noqa: E402
    CHROMIUM_FLAGS,
    DEFAULT_CHROMIUM,
    free_port,
    server_code,
    start_server,
    stop_server,
)

METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def one_load(ctx: Any, url: str, ready: str, profile_js: bool) -> tuple[dict[str, float], Any]:
    pg = ctx.new_page()
    cdp = ctx.new_cdp_session(pg)
    cdp.send("Performance.enable")
    if profile_js:
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 200})
        cdp.send("Profiler.start")
    pg.goto(url)
    pg.locator(ready).first.wait_for(state="visible", timeout=60_000)
    m = {x["name"]: float(x["value"]) for x in cdp.send("Performance.getMetrics")["metrics"]}
    prof = cdp.send("Profiler.stop")["profile"] if profile_js else None
    pg.close()
    return {k: m[k] * 1000 for k in METRICS}, prof


def by_script(prof: Any) -> list[tuple[str, float]]:
    """Sampled main-thread time (ms) by script name, largest first."""
    nodes = {n["id"]: n for n in prof["nodes"]}
    per: dict[str, float] = collections.defaultdict(float)
    for sample, dt in zip(prof["samples"], prof["timeDeltas"], strict=False):
        cf = nodes[sample]["callFrame"]
        name = cf["url"].rsplit("/", 1)[-1].split("?", 1)[0] or f"({cf['functionName']})"
        per[name] += dt / 1000
    return sorted(per.items(), key=lambda kv: -kv[1])[:10]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--path", default="/lab")
    ap.add_argument("--ready", default=".dp-density-plot svg.dp-svg path.dp-dens-d0",
                    help="the element whose drawing ends a load")
    ap.add_argument("--loads", type=int, default=8)
    ap.add_argument("--chromium", default=DEFAULT_CHROMIUM)
    ap.add_argument("--profile-js", action="store_true")
    ap.add_argument("--no-process-limit", action="store_true",
                    help="the profile context without --renderer-process-limit=1")
    a = ap.parse_args()
    if a.loads < 3:
        raise SystemExit("--loads must be at least 3 (the first two fill the caches)")
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = start_server(server_code("from $server import serve; "
                                    "serve(address='127.0.0.1', port=$port)", port=port),
                        port, ready_path=a.path)
    url = f"http://127.0.0.1:{port}{a.path}"
    results: dict[str, list[dict[str, float]]] = {}
    profiles: dict[str, Any] = {}

    def loads(name: str, ctx: Any) -> None:
        results[name] = []
        for i in range(a.loads):
            m, prof = one_load(ctx, url, a.ready, a.profile_js and i == a.loads - 1)
            results[name].append(m)
            profiles[name] = prof or profiles.get(name)

    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=a.chromium, args=CHROMIUM_FLAGS)
            loads("fresh", b.new_context())
            b.close()
            with tempfile.TemporaryDirectory() as profile_dir:
                limit = [] if a.no_process_limit else ["--renderer-process-limit=1"]
                ctx = p.chromium.launch_persistent_context(
                    profile_dir, executable_path=a.chromium, args=[*CHROMIUM_FLAGS, *limit])
                loads("profile", ctx)
                ctx.close()
    finally:
        stop_server(proc)
    print(f"{a.path}: {a.loads} loads per context, medians of loads 3..{a.loads} "
          f"(main thread, ms; {time.strftime('%Y-%m-%d %H:%M')})")
    med = {name: {k: statistics.median(r[k] for r in rs[2:]) for k in METRICS}
           for name, rs in results.items()}
    print(f"  {'context':10s}" + "".join(f"{k.replace('Duration', ''):>12s}" for k in METRICS))
    for name, m in med.items():
        print(f"  {name:10s}" + "".join(f"{m[k]:12.0f}" for k in METRICS))
    print(f"  {'÷ fresh':10s}" + "".join(
        f"{med['profile'][k] / med['fresh'][k]:12.2f}" if med["fresh"][k] else f"{'-':>12s}"
        for k in METRICS))
    for name, prof in profiles.items():
        if prof is not None:
            print(f"  where the last {name} load's main thread went (sampled, ms):")
            for script, ms in by_script(prof):
                print(f"    {ms:8.1f}  {script}")


if __name__ == "__main__":
    main()
