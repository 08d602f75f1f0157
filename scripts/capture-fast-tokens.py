#!/usr/bin/env python3
"""Write assets/dplab-fast-tokens.css and -dark.css: the Fast design's tokens as static CSS.

Panel's Fast design reads ~35 colour and size tokens (``--accent-fill-rest``,
``--neutral-stroke-rest``, ...) that FAST's web components compute in the browser from the
template's accent colour and luminance (888 kB of script per first load). dplab's pages use none
of FAST's components, so the values are computed once here and served as CSS
(app/shell/template.py ``FAST_JS``).

How: a dplab server with ``DPLAB_FAST_JS=1`` (FAST's script and Panel's template, as before)
serves /lab in each theme to headless Chromium twice, once as it is and once with FAST's two
scripts answered empty. A token is a custom property whose computed value differs between the
two; it is written where FAST declares it: on the root when the root's value differs, on a
design provider (``#body-design-provider``, ``#header-design-provider``) when its value differs
from its parent's, with selectors one step more specific than the page's own (FAST's values
came last in the cascade). tests/ui/test_fast_tokens.py checks the files against FAST's values.

Usage: .venv/bin/python scripts/capture-fast-tokens.py [--check]
(--check: print what would change, write nothing, exit 1 if anything would.)
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "assets"
FILES = {"default": ASSETS / "dplab-fast-tokens.css", "dark": ASSETS / "dplab-fast-tokens-dark.css"}
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
# The design providers, each with the element its value is inherited from.
ELEMENTS = (("html", None), ("#body-design-provider", "body"),
            ("#header-design-provider", "#body-design-provider"))
STUB_DESIGN = ("window.fastDesignProvider = class { setLuminance() {} setAccentColor() {} "
               "setNeutralColor() {} };")
READ_JS = """(sels) => {
  const out = {};
  for (const sel of sels) {
    const cs = getComputedStyle(document.querySelector(sel));
    const vals = {};
    for (let i = 0; i < cs.length; i++) {
      const n = cs[i];
      if (n.startsWith("--")) vals[n] = cs.getPropertyValue(n).trim();
    }
    out[sel] = vals;
  }
  return out;
}"""
HEADER = """/* The Fast design's tokens for dplab's pages, theme "{theme}": what FAST's web
   components computed in the browser from the template's colours (Panel {panel},
   fast-components 2.30.6). A dark page loads the default file, then the dark one (only the
   values that differ).
   Made by scripts/capture-fast-tokens.py; checked by tests/ui/test_fast_tokens.py.
   Do not edit by hand. */
"""
# FAST defines its design provider as a block element (in the default file, loaded by all).
DISPLAY = "/* FAST defines its design provider as a block element. */\n" \
          "fast-design-system-provider { display: block; }\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DPLAB_FAST_JS": "1", "DPLAB_PREBUILT_PAGES": "0",
           "PYTHONPATH": str(ROOT)}
    code = f"from app.serve.server import serve; serve(port={port})"
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).read()
            return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("the dplab server did not start")


def read(browser: object, url: str, *, fast: bool) -> dict[str, dict[str, str]]:
    pg = browser.new_page()  # type: ignore[attr-defined]
    if not fast:
        pg.route("**/fast-components.js", lambda r: r.fulfill(
            status=200, content_type="text/javascript", body="export {};"))
        pg.route("**/fast_design.js", lambda r: r.fulfill(
            status=200, content_type="text/javascript", body=STUB_DESIGN))
    pg.goto(url)
    pg.wait_for_selector(".dp-density-plot", timeout=60000)
    if fast:  # FAST has defined its elements and set its tokens
        pg.wait_for_function("() => !!customElements.get('fast-design-system-provider') && "
                             "getComputedStyle(document.querySelector('#body-design-provider'))"
                             ".getPropertyValue('--accent-fill-rest').trim() !== ''")
    sels = [s for s, _ in ELEMENTS] + ["body"]
    vals: dict[str, dict[str, str]] = pg.evaluate(READ_JS, sels)
    pg.close()
    return vals


def tokens(with_fast: dict[str, dict[str, str]], without: dict[str, dict[str, str]]
           ) -> dict[str, dict[str, str]]:
    """Per element, the custom properties FAST declares there (see the module docstring)."""
    out: dict[str, dict[str, str]] = {}
    for sel, parent in ELEMENTS:
        have, base = with_fast[sel], without[sel]
        ref = base if parent is None else with_fast[parent]
        out[sel] = {n: v for n, v in sorted(have.items())
                    if base.get(n) != v and ref.get(n) != v}
    return out


def css(theme: str, found: dict[str, dict[str, str]]) -> str:
    import panel

    parts = [HEADER.format(theme=theme, panel=panel.__version__),
             *([DISPLAY] if theme == "default" else [])]
    for sel, _ in ELEMENTS:
        if not found[sel]:
            continue
        # One step more specific than the page's own rules for the same element: FAST sets
        # its values last (adopted style sheets, element styles), so they won over those.
        name = "html:root" if sel == "html" else f"html {sel}"
        body = "\n".join(f"  {n}: {v};" for n, v in found[sel].items())
        parts.append(f"{name} {{\n{body}\n}}\n")
    return "".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = start(port)
    changed = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get(
                "DPLAB_CHROMIUM", "/usr/bin/chromium"), args=CHROMIUM_FLAGS)
            light: dict[str, dict[str, str]] = {}
            for theme, path in FILES.items():  # "default" first
                url = f"http://127.0.0.1:{port}/lab?lang=en&theme={theme}"
                with_fast = read(browser, url, fast=True)
                found = tokens(with_fast, read(browser, url, fast=False))
                if theme == "default":
                    light = found
                else:
                    # A dark page loads both files, so the dark one holds every value that
                    # differs from the default file's, including where the default file
                    # declares a token that the dark page only inherits (its value there).
                    dark: dict[str, dict[str, str]] = {}
                    for sel, vals in found.items():
                        here = {n: with_fast[sel].get(n, "") for n in light[sel]}
                        here.update(vals)
                        dark[sel] = {n: v for n, v in sorted(here.items())
                                     if light[sel].get(n) != v}
                    found = dark
                text = css(theme, found)
                old = path.read_text(encoding="utf-8") if path.exists() else ""
                if text != old:
                    changed.append(path.name)
                    if not args.check:
                        path.write_text(text, encoding="utf-8")
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(("would change: " if args.check else "written: ") + (", ".join(changed) or "nothing"))
    if args.check and changed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
