"""What each patch of a Bokeh/Panel/param/Tornado internal is worth now (issue 38, stage 4).

For each variant (a set of patches of app/serve/upstream_patches.py left out through
``DPLAB_UPSTREAM_PATCHES_OFF``), one ``serve()`` process of this checkout as
benchmarks/page_weight.py starts it (no page built ahead), then: ``--pages`` builds of /lab and
of /cdf (server CPU from GET to ``document_ready``, models, gc-tracked objects per page) and
``--moves`` slider releases on each (server CPU, bytes and messages per move). Variants run in
turn, ``--rounds`` times, and every figure is printed as a ratio to the all-patches server of
the same round (other processes load the machine: read the ratios and the counts, not the
milliseconds).

    .venv/bin/python benchmarks/patch_weight.py --variants lazy_layouts synced_params_once
    .venv/bin/python benchmarks/patch_weight.py --variants "a,b" c --rounds 3

A variant ``a,b`` leaves both out; the baseline (nothing left out) is always run first in each
round. A script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import page_weight as pw  # noqa: E402
from _common import free_port, server_code, start_server, stop_server  # noqa: E402

PAGES = ("lab", "cdf")


async def measure(base: str, pages: int, moves: int, quiet: float) -> dict[str, Any]:
    probe = pw.Probe(base)
    await probe.calibrate()
    keep: list[pw.PageTab] = []
    for page in PAGES:  # warm-up: one page of each, moved once
        tab = await pw.open_tab(base, pw.PAGES[page][0])
        await pw.release(tab, pw.PAGES[page][1], pw.move_values(page, 2)[1])
        await pw.settle([tab], [0], quiet, 20.0)
        keep.append(tab)
    out: dict[str, Any] = {}
    for page in PAGES:
        fig = pw.PageFigures()
        keep += await pw.measure_builds(probe, base, page, pages, fig)
        tab = next(t for t in keep if t.page_url == base + pw.PAGES[page][0])
        await pw.measure_moves(probe, tab, page, moves, quiet, fig)
        out[page] = {"build_ms": 1e3 * statistics.median(fig.build_cpu),
                     "move_ms": 1e3 * fig.move_cpu,
                     "objects": fig.objects,
                     "models": statistics.median(fig.models_server or [0]),
                     "move_bytes": statistics.median(fig.move_bytes),
                     "move_msgs": statistics.median(fig.move_msgs),
                     "unsettled": fig.moves_unsettled}
    for t in keep:
        await t.close()
    return out


def run(off: str, args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    env = {"DPLAB_PREBUILT_PAGES": "0", "DPLAB_MAX_SESSIONS": "1000",
           "DPLAB_UPSTREAM_PATCHES_OFF": off}
    proc = start_server(server_code(pw.SERVER_CODE, port=port), port, ready_path="/healthz",
                        env=env)
    try:
        return asyncio.run(measure(f"http://127.0.0.1:{port}", args.pages, args.moves,
                                   args.quiet))
    finally:
        stop_server(proc)


FIGS = ("build_ms", "move_ms", "objects", "move_bytes", "move_msgs")


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--variants", nargs="+", required=True,
                   help="patch names to leave out; 'a,b' leaves out both")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--pages", type=int, default=3)
    p.add_argument("--moves", type=int, default=12)
    p.add_argument("--quiet", type=float, default=0.5)
    p.add_argument("--json", default="", help="append each round's figures here")
    args = p.parse_args()
    print(f"load average before: {pw.load_average()}", flush=True)
    ratios: dict[str, dict[str, list[float]]] = {}
    for r in range(args.rounds):
        base = run("", args)
        row = {"round": r, "baseline": base, "variants": {}}
        for v in args.variants:
            print(f"  round {r + 1}: without {v} …", file=sys.stderr, flush=True)
            got = run(v, args)
            row["variants"][v] = got
            for page in PAGES:
                for f in FIGS:
                    ratios.setdefault(f"{v}", {}).setdefault(f"{page}.{f}", []).append(
                        got[page][f] / base[page][f] if base[page][f] else float("nan"))
        print(f"  round {r + 1} baseline: " + json.dumps(base), file=sys.stderr, flush=True)
        if args.json:
            with open(args.json, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
    print(f"\nwithout the patch / with all patches, same round (median of {args.rounds} "
          f"rounds; CPU: server process time)")
    head = [f"{page} {f}" for page in PAGES for f in FIGS]
    print("| left out | " + " | ".join(head) + " |")
    print("|---|" + "---:|" * len(head))
    for v, figs in ratios.items():
        cells = [f"{statistics.median(figs[f'{page}.{f}']):.2f}" for page in PAGES for f in FIGS]
        print(f"| {v} | " + " | ".join(cells) + " |")
    print(f"load average after: {pw.load_average()}")


if __name__ == "__main__":
    main()
