"""What a teacher's move costs a following student's browser: main-thread time per move.

A teacher's page and one following page (real Chromium, each in its own context) on one
server; the teacher moves the σ slider with the keyboard, one move at a time, and the
follower's main-thread time from the move until its card shows the new σ and 0.6 s more
(the views' frame, the figures' redraw) is read from the DevTools protocol's
``Performance.getMetrics``: task, script, layout and style time. Two kinds of move:

- ``small``: one arrow key (σ changes in its third digit; the card and the figures keep their
  lines);
- ``jump``: Home / End (σ from one end of the slider to the other: the verdict changes, the
  underflow note comes or goes, a text equivalent gains or loses a line).

Baseline: the ``small`` moves of the same tree in the same run (``jump`` is printed as a ratio
of it). ``--against DIR`` runs a second source tree (e.g. a ``git worktree`` of an older commit)
in the same run, the two alternating round by round, and prints this checkout against it.
Each server is one ``serve()`` process with no page built ahead (nothing else runs on it).

    .venv/bin/python benchmarks/follower_cost.py --rounds 3 --moves 12
    git worktree add /tmp/before HEAD~1
    .venv/bin/python benchmarks/follower_cost.py --against /tmp/before
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import CHROMIUM_FLAGS, DEFAULT_CHROMIUM, ROOT, free_port, server_env  # noqa: E402

METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")
KINDS = {"small": ("ArrowRight", "ArrowLeft"), "jump": ("End", "Home")}


@dataclass
class Tree:
    name: str
    root: Path
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    base: str = ""
    proc: subprocess.Popen[bytes] | None = None
    per_move: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    def start(self) -> None:
        port = free_port()
        env = server_env(self.root, DPLAB_TEACHER_TOKEN=self.token, DPLAB_PREBUILT_PAGES="0")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", f"from app.serve.server import serve; serve(port={port})"],
            cwd=self.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        self.base = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                with urllib.request.urlopen(self.base + "/join", timeout=5):
                    return
            except OSError:
                time.sleep(0.25)
        raise SystemExit(f"the server of {self.root} did not start")

    def stop(self) -> None:
        if self.proc is not None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--moves", type=int, default=12, help="moves of each kind per round")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--width", type=int, default=1280, help="the follower's screen width")
    p.add_argument("--against", default="", help="a second source tree, in the same run")
    p.add_argument("--chromium", default=DEFAULT_CHROMIUM)
    return p.parse_args(argv)


def open_class(browser: Any, tree: Tree, width: int) -> tuple[Any, Any, Any]:
    """The teacher's lab and a follower (ko); returns (teacher's σ handle, follower, CDP)."""
    from playwright.sync_api import expect

    teacher = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    teacher.goto(f"{tree.base}/teach?lang=en")
    teacher.locator("input[name=token]").fill(tree.token)
    teacher.locator("input[name=token]").press("Enter")
    teacher.wait_for_url(re.compile(r"room="), timeout=60000)
    m = re.search(r"room=([A-Z0-9]+)", teacher.url)
    assert m is not None
    code = m.group(1)
    teacher.goto(f"{tree.base}/lab?room={code}&lang=en")
    expect(teacher.locator("#dp-first-paint")).to_have_count(0, timeout=60000)
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    follower = ctx.new_page()
    follower.goto(f"{tree.base}/lab?room={code}&lang=ko")
    expect(follower.locator("#dp-first-paint")).to_have_count(0, timeout=60000)
    expect(follower.locator(".dp-density-plot svg.dp-svg")).to_be_visible(timeout=60000)
    cdp = ctx.new_cdp_session(follower)
    cdp.send("Performance.enable")
    return teacher.locator(".dp-slider-sigma input[type=range]").first, follower, cdp


def metrics(cdp: Any) -> dict[str, float]:
    return {x["name"]: x["value"] for x in cdp.send("Performance.getMetrics")["metrics"]}


def one_round(browser: Any, tree: Tree, args: argparse.Namespace) -> None:
    handle, follower, cdp = open_class(browser, tree, args.width)
    teacher = handle.page
    time.sleep(2.0)
    for kind, keys in KINDS.items():
        got = tree.per_move.setdefault(kind, {k: [] for k in METRICS})
        for i in range(args.moves + 2):  # (the first two: the boxes take their heights)
            handle.focus()
            before = follower.locator(".dp-sigma").first.inner_text()
            a = metrics(cdp)
            teacher.keyboard.press(keys[i % 2])
            deadline = time.monotonic() + 10
            while (follower.locator(".dp-sigma").first.inner_text() == before
                   and time.monotonic() < deadline):
                time.sleep(0.01)
            time.sleep(0.6)
            z = metrics(cdp)
            if i >= 2:
                for k in METRICS:
                    got[k].append(1e3 * (z[k] - a[k]))
    teacher.context.close()
    follower.context.close()


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def main(argv: list[str] | None = None) -> None:
    from playwright.sync_api import sync_playwright

    args = parse_args(argv)
    trees = [Tree("this checkout", ROOT)]
    if args.against:
        trees.append(Tree(f"against {args.against}", Path(args.against).resolve()))
    for t in trees:
        t.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_FLAGS)
            for r in range(args.rounds):
                for t in trees:
                    one_round(browser, t, args)
                print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
            browser.close()
    finally:
        for t in trees:
            t.stop()
    print(f"a follower's main thread per teacher move (ms, median of {args.moves} x "
          f"{args.rounds} moves; follower {args.width} px wide)")
    print("| tree | move | task | script | layout | style | task ÷ small |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for t in trees:
        small = med(t.per_move["small"]["TaskDuration"])
        for kind in KINDS:
            m = [med(t.per_move[kind][k]) for k in METRICS]
            print(f"| {t.name} | {kind} | " + " | ".join(f"{x:.1f}" for x in m)
                  + f" | {m[0] / small:.2f}× |")
    if len(trees) == 2:
        for kind in KINDS:
            a, b = (med(t.per_move[kind]["TaskDuration"]) for t in trees)
            print(f"{kind}: this checkout {a:.1f} ms against {b:.1f} ms: {a / b:.2f}×")


if __name__ == "__main__":
    main()
