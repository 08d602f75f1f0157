"""A page opened at an address whose websocket the server refuses says so, in its language, and
names DPLAB_ALLOW_WEBSOCKET_ORIGIN with the host:port to add (app/serve/origin.py); at an
allowed address nothing is shown and the page becomes live.

The browser reaches one ``dplab serve`` under two names, mapped to 127.0.0.1 by Chromium's host
resolver rules: course.example.org (allowed through DPLAB_ALLOW_WEBSOCKET_ORIGIN) and
other.example.org (not). Directly, or through an HAProxy of the test's own that replaces
``Host`` like nginx's default ``proxy_pass`` does (so the websocket's Origin is not its Host):
front "a" says the browser's address in ``X-Forwarded-Host`` (the server's own check at the
page request shows the alert), front "b" does not (the page's script finds it out).
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

import pytest
from playwright.sync_api import expect

from app.serve.origin import SAME_ORIGIN_FIRST
from app.shell.i18n import t
from ui.conftest import ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS, ROOT, shot

ALLOWED, REFUSED = "course.example.org", "other.example.org"
HAPROXY = shutil.which("haproxy") or (
    "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Ports:
    def __init__(self) -> None:
        self.app, self.a, self.b = _free_port(), _free_port(), _free_port()


def _wait(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"{url} did not answer:\n" + log.read_text(errors="replace"))
            time.sleep(0.2)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


HAPROXY_CFG = """global
    maxconn 200
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout tunnel 60s
frontend a
    bind 127.0.0.1:{a}
    http-request set-header X-Forwarded-Host %[req.hdr(host)]
    http-request set-header Host 127.0.0.1:{app}
    default_backend app
frontend b
    bind 127.0.0.1:{b}
    http-request set-header Host 127.0.0.1:{app}
    default_backend app
backend app
    server s1 127.0.0.1:{app}
"""


@pytest.fixture(scope="module")
def ports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ports]:
    """``dplab serve`` with DPLAB_ALLOW_WEBSOCKET_ORIGIN=course.example.org:<front b>, and the
    HAProxy in front of it (without HAProxy the proxied cases skip)."""
    ports = Ports()
    ARTIFACTS.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("BOKEH_RESOURCES", "BOKEH_ALLOW_WS_ORIGIN", "DPLAB_REDIS_URL")}
    env.update(PYTHONPATH=str(ROOT), DPLAB_ALLOW_WEBSOCKET_ORIGIN=f"{ALLOWED}:{ports.b}")
    log = ARTIFACTS / "ui-origin-server.log"
    with log.open("wb") as fh:
        app = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--address",
                                "127.0.0.1", "--port", str(ports.app)],
                               cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT)
    _wait(f"http://127.0.0.1:{ports.app}/healthz", app, log)
    proxy = None
    if HAPROXY:
        cfg = tmp_path_factory.mktemp("haproxy") / "haproxy.cfg"
        cfg.write_text(HAPROXY_CFG.format(app=ports.app, a=ports.a, b=ports.b))
        plog = ARTIFACTS / "ui-origin-haproxy.log"
        with plog.open("wb") as fh:
            proxy = subprocess.Popen([HAPROXY, "-f", str(cfg), "-db"], stdout=fh,
                                     stderr=subprocess.STDOUT)
        _wait(f"http://127.0.0.1:{ports.b}/healthz", proxy, plog)
    yield ports
    if proxy is not None:
        _stop(proxy)
    _stop(app)


def _proxied(ports: Ports, front: str) -> int:
    if not HAPROXY:
        pytest.skip("haproxy not installed (scripts/ensure-haproxy.sh): proxied cases skipped")
    return int(getattr(ports, front))


@pytest.fixture(scope="module")
def mapped_browser(browser: Any) -> Iterator[Any]:
    """A second Chromium with the two names mapped, from the suite's own Playwright (a second
    ``sync_playwright()`` cannot start while the session's browser runs)."""
    rules = f"MAP {ALLOWED} 127.0.0.1, MAP {REFUSED} 127.0.0.1"
    b = browser.browser_type.launch(executable_path=CHROMIUM, args=[
        *CHROMIUM_FLAGS, f"--host-resolver-rules={rules}", "--no-proxy-server"])
    yield b
    b.close()


@pytest.fixture
def page(mapped_browser: Any) -> Iterator[Any]:
    ctx = mapped_browser.new_context(viewport={"width": 1366, "height": 768})
    ctx.set_default_timeout(30_000)
    pg = ctx.new_page()
    yield pg
    ctx.close()


def _refused_alert(page: Any, host: str, lang: str) -> None:
    alert = page.locator(".dp-origin-refused")
    expect(alert).to_be_visible()
    expect(alert).to_have_attribute("role", "alert")
    expect(alert).to_have_attribute("lang", lang)
    expect(alert).to_contain_text(t("server.origin.refused", lang))
    expect(alert.locator("code")).to_have_text(f"DPLAB_ALLOW_WEBSOCKET_ORIGIN={host}")
    # dark on white on every page (/cdf's own code style made it pale blue: 2:1)
    expect(alert.locator("code")).to_have_css("color", "rgb(31, 31, 31)")
    # in the flow above the page's header, not over it (the header and its menu stay usable)
    box, head = alert.bounding_box(), page.locator("#header").bounding_box()
    assert box and head and head["y"] >= box["y"] + box["height"] - 1
    box = alert.bounding_box()  # on top of the page, not under its header
    assert box is not None and box["y"] == 0 and box["height"] > 20
    expect(page.locator(".dp-origin-lost")).to_be_hidden()


def _live_without_alert(page: Any) -> None:
    # The first card gives way to the live one only once the websocket has brought the page.
    expect(page.locator("#dp-first-paint")).to_have_count(0)
    expect(page.locator(".dp-input-eps input")).to_be_visible()
    for kind in ("refused", "lost"):
        expect(page.locator(f".dp-origin-{kind}")).to_have_count(1)
        expect(page.locator(f".dp-origin-{kind}")).to_be_hidden()


@pytest.mark.parametrize(("path", "lang"), [("/lab", "en"), ("/lab", "ko"), ("/cdf", "en"),
                                            ("/cdf", "ko")])
def test_the_server_sees_a_refused_address_and_says_what_to_set(
        page: Any, ports: Ports, path: str, lang: str) -> None:
    host = f"{REFUSED}:{_proxied(ports, 'a')}"
    page.goto(f"http://{host}{path}?lang={lang}", wait_until="domcontentloaded")
    _refused_alert(page, host, lang)
    shot(page, f"origin-refused-{path.strip('/')}-{lang}")


@pytest.mark.parametrize(("path", "lang"), [("/lab", "ko"), ("/cdf", "en")])
def test_the_page_finds_a_refused_address_the_server_could_not_see(
        page: Any, ports: Ports, path: str, lang: str) -> None:
    host = f"{REFUSED}:{_proxied(ports, 'b')}"
    page.goto(f"http://{host}{path}?lang={lang}", wait_until="domcontentloaded")
    _refused_alert(page, host, lang)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_an_allowed_address_behind_the_proxy_shows_nothing_and_goes_live(
        page: Any, ports: Ports, lang: str) -> None:
    page.goto(f"http://{ALLOWED}:{_proxied(ports, 'b')}/lab?lang={lang}")
    _live_without_alert(page)


def test_a_name_reached_directly(page: Any, ports: Ports) -> None:
    # Not in the allowlist, but the browser's Origin is the server's Host: Tornado 6.6 and
    # later accept that websocket without asking Bokeh, earlier versions refuse it.
    host = f"{REFUSED}:{ports.app}"
    page.goto(f"http://{host}/lab?lang=en", wait_until="domcontentloaded")
    if SAME_ORIGIN_FIRST:
        _live_without_alert(page)
    else:
        _refused_alert(page, host, "en")


def test_a_websocket_that_fails_for_another_reason_says_it_could_not_connect(
        page: Any, ports: Ports) -> None:
    # An allowed address, but the websocket is closed before the server said anything.
    page.route_web_socket("**/ws*", lambda ws: ws.close())
    page.goto(f"http://{ALLOWED}:{_proxied(ports, 'b')}/cdf?lang=en")
    lost = page.locator(".dp-origin-lost")
    expect(lost).to_be_visible()
    expect(lost).to_contain_text(t("server.origin.lost", "en"))
    expect(lost.locator("code")).to_have_text(
        f"DPLAB_ALLOW_WEBSOCKET_ORIGIN={ALLOWED}:{ports.b}")
    expect(page.locator(".dp-origin-refused")).to_be_hidden()
