"""First load of a page in headless Chromium: bytes on the wire, requests, time to the card.

For each load a fresh browser context (empty cache) opens the page and records, through the
Chrome DevTools protocol, every response: its URL, the bytes that crossed the wire
(``encodedDataLength``: headers + body as sent, compressed when the server compresses), the
decoded body size, ``Content-Encoding`` and ``Cache-Control``. A second navigation in the same
context shows what a returning student downloads (warm cache). Time to the card: navigation
start -> ``.dp-verdict`` laid out with a non-zero box (performance.now(), the page's own clock).

Also printed: "gzip if on", the sum of every text response compressed with gzip level 6 (what
Tornado's ``compress_response=True`` would send), so the effect of compression can be read even
when the server under test does not compress.

Baseline: ``--baseline-mathjax`` serves the same page with Bokeh's MathJax bundle forced back in
(what /lab loaded before issue 8); the default run is the current page.

Usage:
  .venv/bin/python benchmarks/first_load.py [--path /lab?lang=en] [--loads 3]
  .venv/bin/python benchmarks/first_load.py --url http://127.0.0.1:8080   # a running server
  .venv/bin/python benchmarks/first_load.py --baseline-mathjax
A script, not a test: it prints figures and asserts nothing about time.
"""

from __future__ import annotations

import argparse
import gzip
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

SERVER_CODE = r"""
import os
if os.environ.get("DPLAB_FORCE_MATHJAX") == "1":
    # Baseline: the page as before issue 8 (Bokeh's MathJax bundle in every Panel page).
    import app.layout as L
    L.SKIP_MATHJAX = False
port = int(os.environ["DPLAB_PORT"])
if os.environ.get("DPLAB_PLAIN_SERVE") == "1":
    # pn.serve with our routes only (no app.server options): for a checkout whose server.py is
    # being changed.
    import panel as pn
    from app.server import ASSETS_DIR, routes
    pn.extension(design="fast", notifications=False)
    pn.serve(routes(), address="127.0.0.1", port=port, show=False,
             static_dirs={"assets": str(ASSETS_DIR)}, websocket_origin=[f"127.0.0.1:{port}"])
else:
    from app.server import serve
    serve(address="127.0.0.1", port=port)
"""

JS_CARD = r"""
() => new Promise(resolve => {
  const deep = (sel) => {
    const stack = [document];
    while (stack.length) {
      const root = stack.pop();
      const hit = root.querySelector(sel);
      if (hit) return hit;
      for (const el of root.querySelectorAll('*')) if (el.shadowRoot) stack.push(el.shadowRoot);
    }
    return null;
  };
  const tick = () => {
    const v = deep('.dp-verdict');
    if (v && v.getBoundingClientRect().height > 0) resolve(performance.now());
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
    card_ms: float = 0.0
    rows: list[tuple[str, int, int, str, str]] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, force_mathjax: bool, plain: bool) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DPLAB_PORT": str(port),
           "DPLAB_FORCE_MATHJAX": "1" if force_mathjax else "0",
           "DPLAB_PLAIN_SERVE": "1" if plain else "0"}
    env.pop("BOKEH_RESOURCES", None)
    proc = subprocess.Popen([sys.executable, "-c", SERVER_CODE], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab", timeout=5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start")


def measure(ctx: Any, url: str) -> Load:
    pg = ctx.new_page()
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
    card = float(pg.evaluate(JS_CARD))
    pg.wait_for_load_state("load")
    pg.wait_for_timeout(500)  # late requests (fonts, lazily loaded bundles) still count
    out = Load(card_ms=card)
    for rec in info.values():
        if "url" not in rec or rec["url"].startswith("data:"):
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
    ap.add_argument("--loads", type=int, default=3)
    ap.add_argument("--url", help="a running server (default: start one)")
    ap.add_argument("--baseline-mathjax", action="store_true",
                    help="serve with Bokeh's MathJax bundle forced back in (before issue 8)")
    ap.add_argument("--plain-serve", action="store_true",
                    help="start pn.serve with app.server.routes() instead of app.server.serve")
    ap.add_argument("--list", action="store_true", help="print every response of the last load")
    ap.add_argument("--chromium", default=os.environ.get("DPLAB_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    proc = None
    if args.url:
        base = args.url.rstrip("/")
    else:
        port = free_port()
        proc = start_server(port, args.baseline_mathjax, args.plain_serve)
        base = f"http://127.0.0.1:{port}"
    cold: list[Load] = []
    warm: list[Load] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=FLAGS)
            # One throw-away load: the server's first session imports and warms up.
            c0 = browser.new_context(viewport={"width": 1366, "height": 768})
            measure(c0, base + args.path)
            c0.close()
            for i in range(args.loads):
                print(f"  load {i + 1}/{args.loads}", file=sys.stderr, flush=True)
                ctx = browser.new_context(viewport={"width": 1366, "height": 768})
                cold.append(measure(ctx, base + args.path))
                warm.append(measure(ctx, base + args.path))
                ctx.close()
            browser.close()
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
    last = cold[-1]
    if args.list:
        for url, wire, dec, enc, cache in sorted(last.rows, key=lambda r: -r[2]):
            print(f"{wire:>9} {dec:>9} {enc or '-':>5}  {cache or '-':<28} {url[len(base):]}")
    label = "baseline (MathJax forced in)" if args.baseline_mathjax else "current"
    mathjax = [r for r in last.rows if "mathjax" in r[0].lower()]
    print(f"first load of {args.path} ({label}), {args.loads} cold loads, 1366x768")
    print(f"  requests                 {last.requests}  (MathJax bundle requested: "
          f"{'yes' if mathjax else 'no'})")
    print(f"  decoded bytes            {last.decoded / 1e6:.2f} MB")
    print(f"  on the wire              {last.wire / 1e6:.2f} MB  "
          f"(compressed responses: {sum(1 for r in last.rows if r[3])})")
    print(f"  gzip if on (level 6)     {last.gzip_if_on / 1e6:.2f} MB")
    print(f"  warm reload on the wire  {statistics.median(w.wire for w in warm) / 1e6:.2f} MB "
          f"in {statistics.median(w.requests for w in warm):.0f} requests")
    cards = [c.card_ms for c in cold]
    wcards = [w.card_ms for w in warm]
    print(f"  card visible, cold       median {statistics.median(cards):.0f} ms  "
          f"(min {min(cards):.0f}, max {max(cards):.0f})")
    print(f"  card visible, warm       median {statistics.median(wcards):.0f} ms  "
          f"(min {min(wcards):.0f}, max {max(wcards):.0f})")


if __name__ == "__main__":
    main()
