"""A real ``dplab serve`` in a process of its own, on a free port, its stdout and stderr
captured in a file (the ``live_server`` fixture of conftest.py, and the browser tests of the
websocket-origin alert)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# Settings of the developer's shell that would change what the server does or logs.
DROPPED_ENV = ("BOKEH_RESOURCES", "BOKEH_ALLOW_WS_ORIGIN", "DPLAB_TEST_APP", "DPLAB_REDIS_URL",
               "DPLAB_ALLOW_WEBSOCKET_ORIGIN", "DPLAB_TEACHER_TOKEN")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    def __init__(self, log: Path, *args: str, port: int | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        full_env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
        full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
        full_env.update(env or {})
        with log.open("wb") as fh:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "app.cli", "serve", "--address", "127.0.0.1",
                 "--port", str(self.port), *args],
                cwd=ROOT, env=full_env, stdout=fh, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail("dplab serve did not start:\n" + self.text()[-3000:])
            time.sleep(0.2)

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
