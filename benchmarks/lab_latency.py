"""Lab latency in a real browser: input -> updated certification card, and first render.

Baseline (same run, same server, same browser): a bare Panel page with one FloatSlider whose
``value_throttled`` rewrites one HTML readout ("bare"). The lab is reported against it.

What is timed (all in the page's own clock, performance.now()):
- move: keydown on a slider handle (captured at window level) -> the card's σ/ε text changed in
  the DOM (MutationObserver on the card's shadow root). 100 moves, alternating the σ (log) and
  ε sliders, arrow keys, so Panel's 50 ms debounce and the websocket round trip are included.
- first render: navigation start -> card and the three Bokeh figures present; also Bokeh's own
  "document idle" time from the console. Cold = fresh browser context, warm = cached JS.

Usage: .venv/bin/python benchmarks/lab_latency.py [--moves 100] [--loads 5]
Prints figures; it is a script, not a test (no assertion on wall-clock time).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
from typing import Any

from _common import (
    CHROMIUM_FLAGS,
    DEFAULT_CHROMIUM,
    JS_DEEP,
    free_port,
    pct,
    server_code,
    start_server,
    stop_server,
    summary,
)

SERVER_CODE = r"""
import panel as pn
from $server import ASSETS_DIR, routes

def bare():
    s = pn.widgets.FloatSlider(name="x", start=0, end=10, step=0.05, value=1,
                               css_classes=["bare-slider"])
    out = pn.pane.HTML('<div class="dp-card"><span class="dp-eps">1</span></div>')
    s.param.watch(lambda e: setattr(out, "object",
                  f'<div class="dp-card"><span class="dp-eps">{e.new:g}</span></div>'),
                  "value_throttled")
    return pn.Column(s, out)

pn.extension(design="fast")
r = routes(); r["/bare"] = bare
pn.serve(r, address="127.0.0.1", port=$port, show=False, static_dirs={"assets": str(ASSETS_DIR)},
         websocket_origin=["127.0.0.1:$port", "localhost:$port"])
"""

# window.__deep (shared) and __deepAll: every match through open shadow roots.
JS_HELPERS = JS_DEEP + r"""window.__deepAll = (sel) => {
  const out = [], stack = [document];
  while (stack.length) {
    const root = stack.pop();
    out.push(...root.querySelectorAll(sel));
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) stack.push(el.shadowRoot);
  }
  return out;
};
"""

JS_RENDERED = r"""
() => new Promise(resolve => {
  const tick = () => {
    // The first screen: the card, the curve's text and the densities' figure (the ε–δ curve
    // and the simulation join the page when scrolled to), every figure there laid out.
    const ok = window.__deep('.dp-verdict') && window.__deep('.dp-curve-text table')
      // (the figure is inside its component's shadow root: no selector across the boundary)
      && window.__deep('svg.dp-svg path.dp-dens-d0')
      && window.__deepAll('.bk-Figure').every(f => f.getBoundingClientRect().width > 0);
    if (ok) resolve(performance.now()); else requestAnimationFrame(tick);
  };
  tick();
})
"""

JS_ARM = r"""
() => {
  const span = window.__deep('.dp-eps');
  const root = span.getRootNode();
  const read = () => { const s = window.__deep('.dp-sigma'); const e = window.__deep('.dp-eps');
                       return (s ? s.textContent : '') + '|' + (e ? e.textContent : ''); };
  const before = read();
  window.__t0 = null;
  window.__done = new Promise(resolve => {
    const obs = new MutationObserver(() => {
      if (read() !== before) { obs.disconnect(); resolve(performance.now() - window.__t0); }
    });
    obs.observe(root, {subtree: true, childList: true, characterData: true});
    setTimeout(() => { obs.disconnect(); resolve(-1); }, 5000);  // no update: reported, not hidden
  });
  if (!window.__keyHooked) {
    window.addEventListener('keydown', () => { window.__t0 = performance.now(); }, true);
    window.__keyHooked = true;
  }
  return before;
}
"""


def first_render(browser: Any, url: str, loads: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"cold": [], "warm": [], "idle_cold": [], "idle_warm": []}
    for i in range(loads):
        print(f"  first render {i + 1}/{loads}", file=sys.stderr, flush=True)
        ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
        for kind in ("cold", "warm"):
            pg = ctx.new_page()
            idle: list[float] = []
            pg.on("console", lambda m, idle=idle: idle.extend(
                float(x) for x in re.findall(r"document idle at (\d+) ms", m.text)))
            pg.add_init_script(JS_HELPERS)
            pg.goto(url)
            out[kind].append(pg.evaluate(JS_RENDERED))
            pg.wait_for_timeout(300)
            if idle:
                out["idle_" + kind].append(idle[0])
            pg.close()
        ctx.close()
    return out


def thumb(sel: str) -> str:
    """What takes the keyboard in the slider ``sel``: Bokeh's handle (the bare page), or the
    lab's native range input (app/lab/controls.py)."""
    return f"{sel} .noUi-handle, {sel} input[type=range]"


def moves(browser: Any, url: str, n: int, handles: list[str]) -> list[float]:
    ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
    pg = ctx.new_page()
    pg.add_init_script(JS_HELPERS)
    pg.goto(url)
    pg.locator(".dp-eps").wait_for()
    pg.locator(thumb(handles[-1])).first.wait_for()
    if "/lab" in url:
        pg.evaluate(JS_RENDERED)
    times: list[float] = []
    for i in range(n):
        if i % 20 == 0:
            print(f"  {url}: move {i}/{n}", file=sys.stderr, flush=True)
        sel = handles[i % len(handles)]
        key = "ArrowRight" if (i // len(handles)) % 2 == 0 else "ArrowLeft"
        pg.locator(thumb(sel)).first.focus()
        pg.evaluate(JS_ARM)
        pg.keyboard.press(key)
        times.append(pg.evaluate("() => window.__done"))
    ctx.close()
    missed = sum(1 for t in times if t < 0)
    if missed:
        print(f"  WARNING {url}: {missed} moves gave no card update within 5 s", file=sys.stderr)
    return [t for t in times if t >= 0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=100)
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument("--chromium", default=DEFAULT_CHROMIUM)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = start_server(server_code(SERVER_CODE, port=port), port)
    base = f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_FLAGS)
            bare = moves(browser, f"{base}/bare", args.moves, [".bare-slider"])
            lab = moves(browser, f"{base}/lab?lang=en", args.moves,
                        [".dp-slider-sigma", ".dp-slider-eps"])
            fr = first_render(browser, f"{base}/lab?lang=en", args.loads)
            browser.close()
    finally:
        stop_server(proc)
    print(f"dplab lab latency ({os.cpu_count()} CPUs, chromium {args.chromium})")
    print(summary("baseline: bare slider -> readout", bare))
    print(summary("lab: σ/ε slider -> card", lab))
    print(f"ratio lab/baseline: median {statistics.median(lab) / statistics.median(bare):.2f}x, "
          f"p95 {pct(lab, 0.95) / pct(bare, 0.95):.2f}x   (target: lab p95 <= 100 ms)")
    print(summary("first render, cold cache", fr["cold"]))
    print(summary("first render, warm cache", fr["warm"]))
    if fr["idle_cold"]:
        print(summary("bokeh 'document idle', cold", fr["idle_cold"]))
    if fr["idle_warm"]:
        print(summary("bokeh 'document idle', warm", fr["idle_warm"]))


if __name__ == "__main__":
    main()
