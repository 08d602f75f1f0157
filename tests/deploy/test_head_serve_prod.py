"""HEAD behind scripts/serve-prod (HAProxy in front of a worker), as an uptime monitor sends it:
every page a monitor may probe answers like GET, without a body, and a HEAD builds no page.
(The same against one ``dplab serve``: tests/app/serve/test_head_requests.py.)"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import http_probe
import pytest

ROOT = Path(__file__).resolve().parents[2]
HAPROXY = shutil.which("haproxy") or (
    "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None)

pytestmark = pytest.mark.skipif(
    HAPROXY is None, reason="haproxy not installed: serve-prod tests skipped (as root, "
                            "scripts/ensure-haproxy.sh installs Debian's package)")

PATHS = ["/", "/lesson", "/lab", "/cdf?lang=en", "/healthz", "/assets/dplab.css"]
SAME = ("Content-Type", "Cache-Control", "Content-Security-Policy", "X-Content-Type-Options")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Prod:
    def __init__(self, tmp: Path) -> None:
        self.port = _free_port()
        self.log = tmp / "serve-prod.log"
        for d in ("tmp", "home"):
            (tmp / d).mkdir(exist_ok=True)
        env = {**os.environ, "DPLAB_ADDRESS": "127.0.0.1", "DPLAB_PORT": str(self.port),
               "DPLAB_WORKERS": "1", "TMPDIR": str(tmp / "tmp"), "HOME": str(tmp / "home")}
        # (the lessons' values shared by the run's serve-prods: tests/deploy/test_serve_prod.py)
        env.setdefault("DPLAB_CACHE_DIR", str(tmp.parent / "lesson-values"))
        for name in ("BOKEH_RESOURCES", "DPLAB_TEST_APP"):
            env.pop(name, None)
        with self.log.open("wb") as fh:
            self.proc = subprocess.Popen([str(ROOT / "scripts" / "serve-prod")], cwd=tmp,
                                         env=env, stdout=fh, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 240
        while "serve-prod: ready:" not in self.text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                pytest.fail("serve-prod did not start:\n" + self.text()[-3000:])
            time.sleep(0.3)

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def request(self, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
        return http_probe.request(self.port, method, path)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


@pytest.fixture(scope="module")
def prod(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prod]:
    p = Prod(tmp_path_factory.mktemp("head-prod"))
    yield p
    p.stop()


@pytest.mark.parametrize("path", PATHS)
def test_head_through_the_balancer_answers_like_get(prod: Prod, path: str) -> None:
    # A first GET of a static file fills HAProxy's cache (and only that answer carries the
    # affinity cookie and "private"): compare a GET and a HEAD that both find it there.
    prod.request("GET", path)
    got, got_headers, body = prod.request("GET", path)
    head, head_headers, nothing = prod.request("HEAD", path)
    assert got == head == 200, (got, head)
    assert body and nothing == b""
    for name in SAME:
        assert got_headers.get(name) == head_headers.get(name), name


def test_head_builds_no_page_behind_the_balancer(prod: Prod) -> None:
    runs = prod.text().count("page-run ")
    for _ in range(3):
        assert prod.request("HEAD", "/lab")[0] == 200
    prod.request("GET", "/healthz")
    assert prod.text().count("page-run ") == runs
