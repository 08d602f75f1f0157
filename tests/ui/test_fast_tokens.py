"""The Fast design without FAST's script: the pages look exactly as with it.

FAST's web components (888 kB) only computed the Fast design's colour tokens on dplab's pages;
those are static CSS now (assets/dplab-fast-tokens*.css, app/shell/template.py ``FAST_JS``).
Here: the files are what FAST computes today (scripts/capture-fast-tokens.py --check starts a
server with FAST's script and reads its values in Chromium), no page loads FAST's script, and a
page drawn with the static tokens has the same pixels as the page drawn by FAST.
"""

from __future__ import annotations

import io
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from ui.conftest import ARTIFACTS, ROOT, Server, shot, start_server, stop_server


@pytest.fixture(scope="module")
def fast_server() -> Iterator[Server]:
    srv = start_server("ui-fast-js-server.log", {"DPLAB_FAST_JS": "1",
                                                  "DPLAB_PREBUILT_PAGES": "0"})
    yield srv
    stop_server(srv)


def test_the_static_tokens_are_what_fast_computes() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "capture-fast-tokens.py"),
                          "--check"], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "would change: nothing" in run.stdout


def _settled(pg: Any, timeout: float = 20.0) -> Any:
    """The viewport once two screenshots in a row are the same: the lab's figures and card come
    on the scheduler's next ticks, later on a loaded machine than the first figure's path."""
    from PIL import Image

    deadline = time.monotonic() + timeout
    last = pg.screenshot()
    while time.monotonic() < deadline:
        now = pg.screenshot()
        if now == last:
            break
        last = now
    return Image.open(io.BytesIO(last)).convert("RGB")


def _look(browser: Any, url: str, ready: str) -> tuple[Any, list[str]]:

    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    pg = ctx.new_page()
    urls: list[str] = []
    pg.on("request", lambda r: urls.append(r.url))
    try:
        pg.goto(url)
        expect(pg.locator(ready).first).to_be_visible(timeout=30000)
        expect(pg.locator("#dp-first-paint")).to_have_count(0)
        pg.wait_for_load_state("load")
        pg.evaluate("() => document.fonts.ready")
        img = _settled(pg)
        shot(pg, "fast-tokens-" + url.rsplit("/", 1)[-1].replace("?", "-").replace("&", "-"))
    finally:
        ctx.close()
    return img, urls


@pytest.mark.parametrize(("path", "ready"), [
    ("/lab?lang=en", ".dp-density-plot svg.dp-svg path.dp-dens-d0"),
    ("/lab?lang=ko&theme=dark&size=large", ".dp-curve-plot svg.dp-svg path.dp-curve-y"),
    ("/cdf?lang=ko&theme=dark", ".dp-cdf-plot svg.dp-svg path.dp-cdf-ref"),
])
def test_a_page_without_fast_script_looks_the_same(browser: Any, server: Server,
                                                   fast_server: Server, path: str,
                                                   ready: str) -> None:
    import numpy as np
    from PIL import ImageChops

    with_fast, fast_urls = _look(browser, fast_server.url + path, ready)
    static, urls = _look(browser, server.url + path, ready)
    assert any("fast-components" in u for u in fast_urls), "the reference page lost FAST"
    assert not [u for u in urls if "fast-components" in u or "fast_design" in u], urls
    diff = np.asarray(ImageChops.difference(with_fast, static)).sum(axis=2)
    # Anti-aliasing may differ by a shade; a changed colour, size or font moves many pixels.
    changed = int((diff > 24).sum())
    box = ImageChops.difference(with_fast, static).getbbox()
    if changed > 40:
        name = path.strip("/").replace("?", "-").replace("&", "-").replace("=", "-")
        ARTIFACTS.mkdir(exist_ok=True)
        with_fast.save(ARTIFACTS / f"fast-tokens-diff-{name}-with-fast.png")
        static.save(ARTIFACTS / f"fast-tokens-diff-{name}-static.png")
    assert changed <= 40, f"{changed} pixels differ (bounding box {box}); both in {ARTIFACTS}"
