"""First load of a page in headless Chromium: bytes on the wire, requests, time to the card.

For each load a fresh browser context (empty cache) opens the page and records, through the
Chrome DevTools protocol, every response: its URL, the bytes that crossed the wire
(``encodedDataLength``: headers + body as sent, compressed when the server compresses), the
decoded body size, ``Content-Encoding`` and ``Cache-Control``. A second navigation in the same
context shows what a returning student downloads (warm cache). Time to the card: navigation
start -> ``.dp-verdict`` laid out with a non-zero box (performance.now(), the page's own clock);
"card visible" counts the server-rendered card of app/shell/first_paint.py, "live card" only the one
BokehJS draws (controls usable).

Also printed: "gzip if on", the sum of every text response compressed with gzip level 6 (what
Tornado's ``compress_response=True`` would send), so the effect of compression can be read even
when the server under test does not compress.

Variants, each its own server, measured in alternation in one run (ratios against the first):
``baseline`` = the page before issue 8 (Bokeh's MathJax bundle forced back in, no first paint),
``no-first-paint`` = this checkout without app/shell/first_paint.py, ``current`` = this checkout
served by ``app.serve.server.serve``, ``gzip`` = the same plus Tornado's ``compress_response=True``
(since issue 8 ``serve`` compresses anyway), ``bare-panel`` = a bare Panel page with one slider
and one Bokeh figure at the same address (the baseline of the first-load target: "live card" is
then when BokehJS has drawn that page).

Usage:
  .venv/bin/python benchmarks/first_load.py [--path /lab?lang=en] [--loads 3] [--list]
  .venv/bin/python benchmarks/first_load.py --variants current --loads 1
  .venv/bin/python benchmarks/first_load.py --variants current --loads 1 --no-warmup \
      --path '/lab?lang=en&theme=dark'     # the first page of its kind after a start
  .venv/bin/python benchmarks/first_load.py --url http://127.0.0.1:8080   # a running server
A script, not a test: it prints figures and asserts nothing about time.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

from _common import (
    APP_MODULES,
    CHROMIUM_FLAGS,
    DEFAULT_CHROMIUM,
    app_file,
    free_port,
    server_code,
    start_server,
    stop_server,
)

SERVER_CODE = r"""
import os
variant = os.environ["DPLAB_VARIANT"]
if variant == "baseline":
    # The page as before issue 8: Bokeh's MathJax bundle in every Panel page.
    import $patches as U
    U.TRIM_BUNDLE = False
if variant in ("baseline", "no-first-paint"):
    # Before the first paint: scripts block the body, the card waits for BokehJS.
    import $first_paint as F
    F.ENABLED = False
if variant == "gzip":
    # What the proposed one-line change in the server module gives: Tornado's compress_response.
    import panel as pn
    _serve = pn.serve
    def serve_gzip(*args, **kwargs):
        kwargs.setdefault("compress_response", True)
        return _serve(*args, **kwargs)
    pn.serve = serve_gzip
if variant == "bare-panel":
    # The baseline of issue 19: a bare Panel page, one slider and one Bokeh figure (no template),
    # at the same address; its marker .dp-verdict is drawn by BokehJS with the page.
    import panel as pn
    from bokeh.plotting import figure

    def bare():
        fig = figure(height=300, sizing_mode="stretch_width")
        fig.line([0, 1, 2], [0, 1, 0])
        return pn.Column(pn.widgets.FloatSlider(name="x", start=0, end=1),
                         pn.pane.HTML('<p class="dp-verdict">ready</p>'),
                         pn.pane.Bokeh(fig, sizing_mode="stretch_width"))

    pn.serve({"/lab": bare}, address="127.0.0.1", port=int(os.environ["DPLAB_PORT"]),
             show=False, admin=False, compress_response=True)
    raise SystemExit
from $server import serve
serve(address="127.0.0.1", port=int(os.environ["DPLAB_PORT"]))
"""

VARIANTS = {
    "no-first-paint": f"this checkout without {app_file('first_paint')} (blocking scripts, no "
                      "server-rendered card)",
    "baseline": "this checkout with Bokeh's MathJax bundle forced back in (as before issue 8)",
    "current": f"this checkout, {APP_MODULES['server']}.serve as it is",
    "gzip": f"this checkout + compress_response=True (proposed {app_file('server')} change)",
    "bare-panel": "a bare Panel page (one slider, one Bokeh figure, no template), gzip on",
}

# Every shadow root the page makes is recorded as it is attached (an init script, run before
# the page's own scripts), so the probe below asks each root once per frame with querySelector
# instead of walking every element of the page: the walk ("scan", kept as --probe scan) took
# ~90 ms of the lab page's main thread during a first load (CDP CPU profile), more the more
# elements a page has, and so slowed the page it measured more than the bare baseline.
JS_ROOTS = r"""
(() => {
  const roots = window.__dpShadowRoots = [];
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    roots.push(root);
    return root;
  };
})();
"""

JS_CARD_ROOTS = r"""
() => new Promise(resolve => {
  // first: a .dp-verdict with a box in the light DOM (the server-rendered card of
  // app/lab/first_paint.py) or in a shadow root; live: one inside a Bokeh shadow root, i.e.
  // drawn by the page's JavaScript with its controls.
  let first = null;
  const shown = el => el !== null && el.getBoundingClientRect().height > 0;
  const tick = () => {
    const now = performance.now();
    let live = null;
    for (const root of window.__dpShadowRoots || []) {
      const v = root.querySelector('.dp-verdict');
      if (shown(v)) { live = v; break; }
    }
    if (first === null && (live || shown(document.querySelector('.dp-verdict')))) first = now;
    if (live) resolve([first, now]);
    else requestAnimationFrame(tick);
  };
  tick();
})
"""

JS_CARD_SCAN = r"""
() => new Promise(resolve => {
  // first: any .dp-verdict with a box (the server-rendered card of app/lab/first_paint.py
  // counts);
  // live: one inside a Bokeh shadow root, i.e. drawn by the page's JavaScript with its controls.
  let first = null;
  const find = () => {
    let light = null, shadow = null;
    const stack = [[document, false]];
    while (stack.length) {
      const [root, inShadow] = stack.pop();
      for (const v of root.querySelectorAll('.dp-verdict')) {
        if (v.getBoundingClientRect().height > 0) {
          if (inShadow) shadow = shadow || v; else light = light || v;
        }
      }
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) stack.push([el.shadowRoot, true]);
      }
    }
    return [light || shadow, shadow];
  };
  const tick = () => {
    const [any, live] = find();
    const now = performance.now();
    if (any && first === null) first = now;
    if (live) resolve([first === null ? now : first, now]);
    else requestAnimationFrame(tick);
  };
  tick();
})
"""


@dataclass
class Load:
    wire: int = 0
    decoded: int = 0
    gzip_if_on: int = 0
    requests: int = 0
    card_ms: float = 0.0  # first .dp-verdict on screen (server-rendered or live)
    live_ms: float = 0.0  # the live card (drawn by BokehJS, controls usable)
    ttfb_ms: float = 0.0  # first byte of the page's HTML (the server built the page)
    dcl_ms: float = 0.0  # DOMContentLoaded: every script loaded and run
    rows: list[tuple[str, int, int, str, str]] = field(default_factory=list)


def measure(ctx: Any, url: str, probe: str = "roots", count_bytes: bool = True) -> Load:
    """One load of ``url`` in ``ctx``. ``count_bytes=False``: only the times, without the
    DevTools network events and response bodies (they cost the page's main thread more the more
    responses it has, so the times a run reports come from such loads)."""
    pg = ctx.new_page()
    if probe == "roots":
        pg.add_init_script(JS_ROOTS)
    if not count_bytes:
        pg.goto(url, wait_until="commit")
        card, live = (float(x) for x in pg.evaluate(
            JS_CARD_ROOTS if probe == "roots" else JS_CARD_SCAN))
        nav = pg.evaluate("() => { const n = performance.getEntriesByType('navigation')[0];"
                          " return [n.responseStart, n.domContentLoadedEventEnd]; }")
        pg.close()
        return Load(card_ms=card, live_ms=live, ttfb_ms=float(nav[0]), dcl_ms=float(nav[1]))
    cdp = ctx.new_cdp_session(pg)
    cdp.send("Network.enable")
    info: dict[str, dict[str, Any]] = {}

    def on_response(ev: dict[str, Any]) -> None:
        r = ev["response"]
        h = {k.lower(): v for k, v in r.get("headers", {}).items()}
        info.setdefault(ev["requestId"], {}).update(
            url=r["url"], enc=h.get("content-encoding", ""), cache=h.get("cache-control", ""),
            cached=bool(r.get("fromDiskCache") or r.get("fromMemoryCache")))

    def on_finished(ev: dict[str, Any]) -> None:
        info.setdefault(ev["requestId"], {})["wire"] = int(ev["encodedDataLength"])

    cdp.on("Network.responseReceived", on_response)
    cdp.on("Network.loadingFinished", on_finished)
    bodies: dict[str, bytes] = {}

    def on_pw_response(resp: Any) -> None:
        try:
            bodies[resp.url] = resp.body()
        except Exception:  # redirects, websockets: no body
            pass

    pg.on("response", on_pw_response)
    pg.goto(url, wait_until="commit")
    js = JS_CARD_ROOTS if probe == "roots" else JS_CARD_SCAN
    card, live = (float(x) for x in pg.evaluate(js))
    pg.wait_for_load_state("load")
    nav = pg.evaluate("() => { const n = performance.getEntriesByType('navigation')[0];"
                      " return [n.responseStart, n.domContentLoadedEventEnd]; }")
    pg.wait_for_timeout(500)  # late requests (fonts, lazily loaded bundles) still count
    out = Load(card_ms=card, live_ms=live, ttfb_ms=float(nav[0]), dcl_ms=float(nav[1]))
    for rec in info.values():
        if "url" not in rec or rec["url"].startswith(("data:", "blob:")):
            continue
        body = bodies.get(rec["url"], b"")
        out.requests += 1
        out.wire += rec.get("wire", 0)
        out.decoded += len(body)
        text = rec["url"].split("?")[0].endswith((".js", ".css", ".json", ".svg", "/lab",
                                                  "/cdf", "/", ".html"))
        out.gzip_if_on += len(gzip.compress(body, 6)) if text and body else len(body)
        out.rows.append((rec["url"], rec.get("wire", 0), len(body), rec.get("enc", ""),
                         rec.get("cache", "")))
    pg.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", default="/lab?lang=en")
    ap.add_argument("--loads", type=int, default=3, help="cold loads per variant")
    ap.add_argument("--variants", default="no-first-paint,current",
                    help="comma-separated: " + ", ".join(VARIANTS))
    ap.add_argument("--url", help="measure this running server instead (one variant)")
    ap.add_argument("--list", action="store_true", help="print every response of each variant")
    ap.add_argument("--no-warmup", action="store_true",
                    help="skip the throw-away first load: the first cold load is then the "
                         "server's first page of its language/size/theme")
    ap.add_argument("--probe", choices=("roots", "scan"), default="roots",
                    help="how the card is found each frame: 'roots' asks every shadow root "
                         "recorded as it was attached (light); 'scan' walks every element "
                         "(the probe before 2026-12-01, which slowed large pages)")
    ap.add_argument("--chromium", default=DEFAULT_CHROMIUM)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    names = ["url"] if args.url else [v.strip() for v in args.variants.split(",") if v.strip()]
    bases: dict[str, str] = {}
    procs: list[subprocess.Popen[bytes]] = []
    cold: dict[str, list[Load]] = {n: [] for n in names}
    timed: dict[str, list[Load]] = {n: [] for n in names}  # times only (see measure)
    warm: dict[str, list[Load]] = {n: [] for n in names}
    try:
        if args.url:
            bases["url"] = args.url.rstrip("/")
        for n in names:
            if n == "url":
                continue
            if n not in VARIANTS:
                raise SystemExit(f"unknown variant {n!r}")
            port = free_port()
            procs.append(start_server(server_code(SERVER_CODE), port, name=f"server ({n})",
                                      env={"DPLAB_PORT": str(port), "DPLAB_VARIANT": n}))
            bases[n] = f"http://127.0.0.1:{port}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_FLAGS)
            for n in names:  # one throw-away load each: the server's first session warms up
                if args.no_warmup:
                    break
                c0 = browser.new_context(viewport={"width": 1366, "height": 768})
                measure(c0, bases[n] + args.path, args.probe)
                c0.close()
            # Variants alternate within each round, so machine load hits them alike.
            for i in range(args.loads):
                for n in names:
                    print(f"  round {i + 1}/{args.loads}: {n}", file=sys.stderr, flush=True)
                    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
                    timed[n].append(measure(ctx, bases[n] + args.path, args.probe,
                                            count_bytes=False))
                    ctx.close()
                    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
                    cold[n].append(measure(ctx, bases[n] + args.path, args.probe))
                    warm[n].append(measure(ctx, bases[n] + args.path, args.probe))
                    ctx.close()
            browser.close()
    finally:
        for proc in procs:
            stop_server(proc)
    if args.list:
        for n in names:
            print(f"--- {n}: wire bytes, decoded bytes, encoding, cache-control, path")
            base = bases[n]
            for url, wire, dec, enc, cache in sorted(cold[n][-1].rows, key=lambda r: -r[2]):
                print(f"{wire:>9} {dec:>9} {enc or '-':>5}  {cache or '-':<22} "
                      f"{url[len(base):][:90]}")
    print(f"first load of {args.path}, {args.loads} cold loads per variant, 1366x768, "
          f"{os.cpu_count()} CPUs, headless {args.chromium}")
    for n in names:
        print(f"  {n:<9} {VARIANTS.get(n, args.url)}")
    head = (f"{'variant':<9} {'requests':>8} {'MathJax':>7} {'decoded MB':>10} {'wire MB':>8} "
            f"{'gzip-if-on MB':>13} {'warm wire MB':>12} {'card cold ms':>12} "
            f"{'card warm ms':>12}")
    print(head)
    ref = names[0]
    for n in names:
        last = cold[n][-1]
        mj = any("mathjax" in r[0].lower() for r in last.rows)
        print(f"{n:<9} {last.requests:>8} {'yes' if mj else 'no':>7} {last.decoded / 1e6:>10.2f} "
              f"{last.wire / 1e6:>8.2f} {last.gzip_if_on / 1e6:>13.2f} "
              f"{statistics.median(w.wire for w in warm[n]) / 1e6:>12.3f} "
              f"{statistics.median(c.card_ms for c in timed[n]):>12.0f} "
              f"{statistics.median(w.card_ms for w in warm[n]):>12.0f}")
    if len(names) > 1:
        r0 = cold[ref]
        for n in names[1:]:
            w = statistics.median(c.wire for c in cold[n]) / statistics.median(c.wire for c in r0)
            c = (statistics.median(x.card_ms for x in timed[n])
                 / statistics.median(x.card_ms for x in timed[ref]))
            print(f"ratio {n}/{ref}: wire bytes {w:.2f}x, card visible (cold) {c:.2f}x")
    print("where the time goes (median of the cold loads without byte accounting, ms after "
          "navigation start; last column: the live card in the loads that counted bytes):")
    for n in names:
        cs = timed[n]
        print(f"  {n:<9} HTML first byte {statistics.median(c.ttfb_ms for c in cs):6.0f}   "
              f"scripts run (DOMContentLoaded) {statistics.median(c.dcl_ms for c in cs):6.0f}   "
              f"card visible {statistics.median(c.card_ms for c in cs):6.0f}   "
              f"live card {statistics.median(c.live_ms for c in cs):6.0f}   "
              f"(counting bytes: {statistics.median(c.live_ms for c in cold[n]):6.0f})")
    if len(names) > 1:
        for n in names[1:]:
            r = (statistics.median(x.live_ms for x in timed[ref])
                 / statistics.median(x.live_ms for x in timed[n]))
            print(f"live card: {ref} / {n} = {r:.2f}x")


if __name__ == "__main__":
    main()
