"""Browser-test fixtures: our server in a subprocess on a free port + Debian's chromium.

No `playwright install`: the system chromium is used (DPLAB_CHROMIUM overrides the path). When no
chromium is found every browser test is skipped with the reason. Every request a page makes is
recorded; a test fails if any request leaves the machine.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

expect.set_options(timeout=20_000)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
# The shared context's browser (the `context` fixture, whose pages open one after another):
# a profile on disk, whose code cache keeps the compiled Bokeh/Panel scripts from page to page,
# and one renderer process, whose V8 keeps them in memory too. tests/ui/test_lab_ui.py,
# renderers' CPU / wall (2026-12-07): 70 / 86 s with a fresh context, 42 / 65 s with the
# profile, 35 / 62 s with both; a /lab load's main-thread task 0.68x, resp. 0.47x
# (benchmarks/browser_page_cost.py). A refused cross-site frame stalled that one process for
# ~99 s, so test_csp.py's refused frame opens in a context of its own. The browser of tests
# that open several pages at once keeps one process per page, as students' devices would.
SHARED_FLAGS = [*CHROMIUM_FLAGS, "--renderer-process-limit=1"]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


def find_chromium() -> str | None:
    candidates = [os.environ.get("DPLAB_CHROMIUM", ""), "/usr/bin/chromium",
                  "/usr/bin/chromium-browser", shutil.which("chromium") or "",
                  "/Applications/Chromium.app/Contents/MacOS/Chromium",
                  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


CHROMIUM = find_chromium()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/ui/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.ui)
            if CHROMIUM is None:
                item.add_marker(pytest.mark.skip(
                    reason="no Chromium found (/usr/bin/chromium or DPLAB_CHROMIUM): "
                           "browser tests skipped"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
        self.proc, self.url, self.log = proc, url, log

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def start_server(log_name: str, env_extra: dict[str, str] | None = None,
                 drop: tuple[str, ...] = ("BOKEH_RESOURCES",), probe: str = "/lab") -> Server:
    """``app.serve.server.serve`` in a process of its own on a free port, logging to
    ``test-artifacts/<log_name>``; returns once ``probe`` answers (fails the test after 60 s)."""
    port = _free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    # scripts/run-tests runs several groups at once: each its own log files
    group = os.environ.get("DPLAB_TEST_GROUP", "")
    log = ARTIFACTS / (f"{group}-{log_name}" if group else log_name)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           **(env_extra or {})}
    for name in drop:
        env.pop(name, None)
    with log.open("wb") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-c",
             f"from app.serve.server import serve; serve(address='127.0.0.1', port={port})"],
            cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + probe, timeout=5) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("dplab server did not start:\n" + log.read_text(errors="replace"))
        time.sleep(0.2)
    return Server(proc, url, log)


def stop_server(srv: Server) -> None:
    srv.proc.terminate()
    try:
        srv.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        srv.proc.kill()


def teacher_server(log_name: str, token: str) -> Iterator[Server]:
    """A server of a test module's own (one process, in-process room store) with a teacher
    token of ours (the shared server's token is made per run); a fixture body."""
    srv = start_server(log_name, {"DPLAB_TEACHER_TOKEN": token},
                       drop=("BOKEH_RESOURCES", "DPLAB_REDIS_URL"), probe="/join")
    yield srv
    stop_server(srv)


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    srv = start_server("ui-server.log")
    yield srv
    stop_server(srv)


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_driver: Any) -> Iterator[Any]:
    b = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
    yield b
    b.close()


class Requests(list[str]):
    def external(self) -> list[str]:
        out = []
        for u in self:
            parsed = urlparse(u)
            if parsed.scheme in ("data", "blob", "about"):
                continue
            if parsed.hostname not in LOCAL_HOSTS:
                out.append(u)
        return out


@pytest.fixture
def requests_seen() -> Requests:
    return Requests()


@pytest.fixture(scope="session")
def context(playwright_driver: Any, server: Server,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # One context for the session, with a profile of its own on disk: its HTTP and code
    # caches keep the ~6 MB of Bokeh/Panel JS, parsed and compiled, between tests (each test
    # still opens a fresh page and session). A browser of its own (SHARED_FLAGS).
    ctx = playwright_driver.chromium.launch_persistent_context(
        str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM,
        args=SHARED_FLAGS, viewport={"width": 1500, "height": 1000},
        extra_http_headers={"Accept-Language": "en-US,en;q=0.9"})
    ctx.set_default_timeout(20000)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context: Any, server: Server, requests_seen: Requests) -> Iterator[Any]:
    pg = context.new_page()
    pg.on("request", lambda r: requests_seen.append(r.url))
    pg.on("websocket", lambda ws: requests_seen.append(ws.url))
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    pg.close()
    assert requests_seen, "no request was recorded"
    assert requests_seen.external() == [], f"non-local requests: {requests_seen.external()}"
    assert errors == [], f"JavaScript errors in the page: {errors}"


CURVE_CANVAS = ".dp-curve-plot svg.dp-svg .dp-svg-frame"  # its axes drawn (all-zero: no line)


def show_curve(pg: Any, *, back_to_top: bool = True) -> None:
    """Scroll the lab's ε–δ curve into view and wait until the browser has drawn it (app/lab/
    views.py CurvePlot). Call it once the page is live; ``back_to_top`` scrolls the main area
    back afterwards."""
    expect(pg.locator(".dp-density-plot svg.dp-svg path.dp-dens-d0").first).to_be_visible()
    pg.locator(".dp-curve-plot").first.scroll_into_view_if_needed()
    expect(pg.locator(CURVE_CANVAS).first).to_be_visible()
    if back_to_top:
        pg.evaluate("() => { const m = document.getElementById('main');"
                    " if (m) m.scrollTo(0, 0); window.scrollTo(0, 0); }")


def shortcuts_ready(pg: Any) -> None:
    """Wait until the page's keyboard shortcuts listen (app/shell/tour.py KeyBridge). Its module
    is imported by address (app/shell/plainjs.py), so on a busy machine it may arrive after the
    card and the fields: a key pressed before that is not a shortcut yet."""
    expect(pg.locator(".dp-keybridge")).to_be_attached()


# A screenshot is for looking at: a lesson on a phone is ~43,000 px tall, ~3 s of Chromium's
# CPU per full-page capture (~5 s at 1366 px) and no viewer shows it whole. 8,000 px is ~10
# phone screens; the tests check what lies below by their locators, not by pictures.
SHOT_MAX_PX = 8000
# The ~80 screenshots are ~1 s of Chromium's CPU each (test_presentation.py and
# test_cdf_page.py: 75 s with them, 58 s without, 2026-12-07), and no test reads them: `make
# test` (scripts/run-tests) skips them, `make shots` and a pytest run of its own take them.
SHOTS = os.environ.get("DPLAB_SHOTS", "1") != "0"


def shot(pg: Any, name: str) -> Path:
    """Screenshot of the page from its top, at most :data:`SHOT_MAX_PX` tall (full page when
    shorter; the template scrolls inside <main>, so grow the viewport); its path, also when
    :data:`SHOTS` is off and nothing is written."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if not SHOTS:
        return path
    size = pg.evaluate("() => [document.documentElement.scrollWidth,"
                       " document.documentElement.scrollHeight]")
    if size[1] > SHOT_MAX_PX:
        pg.screenshot(path=str(path), full_page=True,
                      clip={"x": 0, "y": 0, "width": size[0], "height": SHOT_MAX_PX})
    else:
        pg.screenshot(path=str(path), full_page=True)
    return path


AXE = ROOT / "build" / "axe-core" / "axe.min.js"


def run_axe(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations on the page (id, impact, help, first nodes); skips without axe."""
    if not AXE.is_file():
        pytest.skip("axe-core not installed (bash scripts/ensure-axe.sh needs npm)")
    # Evaluated through the DevTools protocol: the page's own CSP does not apply to it.
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    return list(page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => n.target.join(' >> ')).slice(0, 5)}));
    }"""))
