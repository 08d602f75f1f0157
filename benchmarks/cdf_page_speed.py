"""/cdf speed at n = 10^5: degree slider -> plot + table, and a new PP release.

Targets (issue 9): a degree move updates plot and table with p95 <= 100 ms in the browser at
n = 10^5; a new PP release at n = 10^5 within 200 ms.

Two parts, each against a named baseline measured in the same run:

1. Server only (in this process, no browser): the page object's refresh after a degree change,
   and after a new noise seed (a new PP release: estimate, ledger, degree-error split, text
   views), at n = 10^5.  Baseline: ``dpcore.cdf.estimate(method="pp")`` alone on the same data.
2. Browser (headless Chromium against a real server, Bokeh websocket):
   - degree: key press on the slider handle (captured at window level) -> the table's text has
     changed AND the plot's ColumnDataSource has new data AND one animation frame has passed
     (so the canvas has been redrawn).  Arrow keys, alternating direction.
   - release: Enter on the focused "draw new noise" button -> the ledger total has changed AND
     the plot's data changed AND one animation frame.
   Baselines (same server, same browser, same measurement): a bare IntSlider whose value
   rewrites an HTML table ("bare"), and the same plus one 512-point, two-line Bokeh plot
   ("bareplot"): what one plot + one table cost here at the least.

Usage: .venv/bin/python benchmarks/cdf_page_speed.py [--moves 60] [--releases 15] [--n 100000]
Prints figures; a script, not a test (no assertion on wall-clock time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

from _common import (
    CHROMIUM_FLAGS,
    DEFAULT_CHROMIUM,
    JS_DEEP,
    ROOT,
    app_module,
    free_port,
    pct,
    server_code,
    start_server,
    stop_server,
)
from _common import summary as _summary

sys.path.insert(0, str(ROOT))

SERVER_CODE = r"""
import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource
from bokeh.plotting import figure
from $server import ASSETS_DIR, routes

class Slider(pn.widgets.IntSlider):
    _debounce = 0  # as the page's degree slider

def table(k):
    rows = "".join(f"<tr><td>{k}</td><td>{k * i}</td></tr>" for i in range(5))
    return f'<table class="dp-cdf-table"><tbody>{rows}</tbody></table>'

def bare():
    s = Slider(name="x", start=0, end=64, value=30, css_classes=["bare-slider"])
    out = pn.pane.HTML(table(30))
    s.param.watch(lambda e: setattr(out, "object", table(e.new)), "value")
    return pn.Column(s, out)

def bareplot():
    s = Slider(name="x", start=0, end=64, value=30, css_classes=["bare-slider"])
    out = pn.pane.HTML(table(30))
    x = np.linspace(0, 1, 512)
    src = ColumnDataSource({"x": x, "y": x, "ref": x}, name="dp-cdf-src")
    f = figure(height=420, sizing_mode="stretch_width", title="bare plot")
    f.line("x", "ref", source=src, line_width=3, line_dash="dashed", color="#6b6b6b")
    f.line("x", "y", source=src, line_width=3, color="#0072b2")
    def move(e):
        src.data = {"x": x, "y": x ** (1 + e.new / 32), "ref": x}
        out.object = table(e.new)
    s.param.watch(move, "value")
    return pn.Column(s, out, f, sizing_mode="stretch_width")

pn.extension(design="fast")
r = routes(); r["/bare"] = bare; r["/bareplot"] = bareplot
pn.serve(r, address="127.0.0.1", port=$port, show=False, static_dirs={"assets": str(ASSETS_DIR)},
         websocket_origin=["127.0.0.1:$port", "localhost:$port"])
"""

JS_HELPERS = JS_DEEP

# Arm: resolve when the watched text changed and (if present) the plot source got new data,
# then wait one animation frame.  t0 is the keydown time (window, capture phase).
JS_ARM = r"""
(textSel) => {
  // The watched element's shadow root is found once; a MutationObserver (no polling) sees the
  // HTML pane's new content.  Bokeh's data-change signal marks the plot's new data.
  const el = window.__deep(textSel);
  const root = el.getRootNode();
  const read = () => { const e = root.querySelector(textSel); return e ? e.textContent : ''; };
  const before = read();
  let src = null;
  for (const d of (window.Bokeh ? window.Bokeh.documents : [])) {
    src = src || d.get_model_by_name('dp-cdf-src');
  }
  let textDone = false, dataDone = src === null;
  window.__t0 = null;
  window.__done = new Promise(resolve => {
    let fired = false;
    const finish = () => {
      if (textDone && dataDone && !fired) {
        fired = true;
        requestAnimationFrame(() => resolve(performance.now() - window.__t0));
      }
    };
    if (src !== null) {
      src.properties.data.change.connect(() => { dataDone = true; finish(); });
    }
    const obs = new MutationObserver(() => {
      if (read() !== before) { obs.disconnect(); textDone = true; finish(); }
    });
    obs.observe(root, {subtree: true, childList: true, characterData: true});
    setTimeout(() => { obs.disconnect(); if (!fired) resolve(-1); }, 8000);
  });
  if (!window.__keyHooked) {
    window.addEventListener('keydown', () => { window.__t0 = performance.now(); }, true);
    window.__keyHooked = true;
  }
}
"""


def summary(name: str, xs: list[float]) -> str:
    return _summary(name, xs, 46)


# ---------------------------------------------------------------------------------------------
def server_side(n: int, reps: int) -> dict[str, list[float]]:
    import numpy as np

    from dpcore.cdf import estimate
    from dpcore.cdf.datasets import sample

    cdf_page = app_module("cdf_page")
    cdf_page.warm_up()
    out: dict[str, list[float]] = {"dpcore_pp": [], "page_release": [], "page_degree": []}
    x = sample("bimodal", n, np.random.default_rng([1, 11]))
    state = cdf_page.CDFState(n=n)
    page = cdf_page.CDFPage(state, "en")  # refreshes through the state's watchers, as on the server
    for seed in range(reps):  # interleaved, so both see the same machine load
        t0 = time.perf_counter()
        estimate(x, bounds=(0, 1), eps=1.0, delta=1e-6, method="pp",
                 rng=np.random.default_rng([100 + seed, 12]), degree="auto")
        out["dpcore_pp"].append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        state.noise_seed = 100 + seed
        out["page_release"].append((time.perf_counter() - t0) * 1e3)
    k = state.degree_info().auto_k
    for i in range(reps * 3):
        t0 = time.perf_counter()
        state.set_input("degree", k + (i % 7) - 3)
        out["page_degree"].append((time.perf_counter() - t0) * 1e3)
    assert page.state is state
    return out


def browser_side(base: str, moves: int, releases: int, n: int, chromium: str) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    out: dict[str, Any] = {"bare": [], "bareplot": [], "degree": [], "release": [], "load": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
        pg = ctx.new_page()
        pg.add_init_script(JS_HELPERS)
        # baselines: slider -> HTML table; slider -> HTML table + one 512-point Bokeh plot
        for name in ("bare", "bareplot"):
            pg.goto(f"{base}/{name}")
            pg.locator(".bare-slider .noUi-handle").wait_for()
            pg.wait_for_timeout(500)
            for i in range(moves):
                pg.locator(".bare-slider .noUi-handle").focus()
                pg.evaluate(JS_ARM, ".dp-cdf-table tbody")
                pg.keyboard.press("ArrowRight" if (i // 3) % 2 == 0 else "ArrowLeft")
                out[name].append(pg.evaluate("() => window.__done"))
                pg.wait_for_timeout(50)
        # the page
        t0 = time.perf_counter()
        pg.goto(f"{base}/cdf?lang=en&data=bimodal&n={n}&method=pp")
        pg.locator(".dp-cdf-degree-table").wait_for(timeout=60_000)
        out["load"].append((time.perf_counter() - t0) * 1e3)
        pg.wait_for_timeout(500)
        for i in range(moves):
            if i % 20 == 0:
                print(f"  degree move {i}/{moves}", file=sys.stderr, flush=True)
            pg.locator(".dp-cdf-degree-slider .noUi-handle").focus()
            pg.evaluate(JS_ARM, ".dp-cdf-table tbody")
            pg.keyboard.press("ArrowRight" if (i // 3) % 2 == 0 else "ArrowLeft")
            out["degree"].append(pg.evaluate("() => window.__done"))
            pg.wait_for_timeout(50)
        for i in range(releases):
            print(f"  release {i}/{releases}", file=sys.stderr, flush=True)
            btn = pg.locator(".dp-cdf-new-noise button")
            btn.focus()
            pg.evaluate(JS_ARM, ".dp-cdf-total-eps")
            pg.keyboard.press("Enter")
            out["release"].append(pg.evaluate("() => window.__done"))
            pg.wait_for_timeout(100)
        ctx.close()
        browser.close()
    for k in ("bare", "bareplot", "degree", "release"):
        missed = sum(1 for t in out[k] if t < 0)
        if missed:
            print(f"  WARNING {k}: {missed} actions gave no update within 8 s", file=sys.stderr)
        out[k] = [t for t in out[k] if t >= 0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=60)
    ap.add_argument("--releases", type=int, default=15)
    ap.add_argument("--reps", type=int, default=15, help="server-side repetitions")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--chromium", default=DEFAULT_CHROMIUM)
    args = ap.parse_args()

    srv = server_side(args.n, args.reps)
    print(f"/cdf speed, n = {args.n:,} (bimodal), {os.cpu_count()} CPUs")
    print("server side (this process):")
    print(summary("  baseline: dpcore estimate(pp) alone", srv["dpcore_pp"]))
    print(summary("  page: new PP release (all views refreshed)", srv["page_release"]))
    print(summary("  page: degree change (views refreshed)", srv["page_degree"]))
    print(f"  ratio page release / dpcore estimate: median "
          f"{statistics.median(srv['page_release']) / statistics.median(srv['dpcore_pp']):.2f}x")
    if args.no_browser:
        return
    port = free_port()
    proc = start_server(server_code(SERVER_CODE, port=port), port, ready_path="/bare")
    try:
        br = browser_side(f"http://127.0.0.1:{port}", args.moves, args.releases, args.n,
                          args.chromium)
    finally:
        stop_server(proc)
    print("browser (key press -> text + plot data + one frame):")
    print(summary("  baseline: bare IntSlider -> HTML table", br["bare"]))
    print(summary("  baseline: bare IntSlider -> table + 1 plot", br["bareplot"]))
    print(summary("  degree slider -> plot + table", br["degree"]))
    print(summary("  new PP release (button) -> ledger + plot", br["release"]))
    for base_name in ("bare", "bareplot"):
        if br[base_name] and br["degree"]:
            print(f"  ratio degree/{base_name}: median "
                  f"{statistics.median(br['degree']) / statistics.median(br[base_name]):.2f}x, "
                  f"p95 {pct(br['degree'], 0.95) / pct(br[base_name], 0.95):.2f}x")
    print("  (targets: degree p95 <= 100 ms; a new release <= 200 ms)")
    print(f"  page load to degree table: {br['load'][0]:.0f} ms (incl. first-session warm-up)")


if __name__ == "__main__":
    main()
