"""A real redis-server for the room tests, started here on a unix socket with persistence off;
skipped (with the reason) when there is none (scripts/ensure-redis.sh installs Debian's)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def redis_binary() -> str | None:
    for c in (os.environ.get("DPLAB_REDIS_SERVER"), shutil.which("redis-server"),
              "/usr/bin/redis-server"):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


class Redis:
    """One redis-server process; ``stop()``/``start()`` for the fault tests."""

    def __init__(self, binary: str, where: Path) -> None:
        self.binary, self.sock = binary, where / "redis.sock"
        self.url = f"unix://{self.sock}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", "0", "--unixsocket", str(self.sock), "--unixsocketperm",
             "700", "--save", "", "--appendonly", "no", "--dir", str(self.sock.parent)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not self.sock.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)

    def pause(self) -> None:
        """Redis stops answering (SIGSTOP) but keeps its data; :meth:`resume` goes on."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # (a paused one too)
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None
        self.sock.unlink(missing_ok=True)


def _redis() -> Iterator[Redis]:
    binary = redis_binary()
    if binary is None:
        pytest.skip("no redis-server (scripts/ensure-redis.sh installs Debian's): Redis tests "
                    "skipped")
    with tempfile.TemporaryDirectory(prefix="dplab-redis-", dir="/tmp") as d:
        r = Redis(binary, Path(d))
        r.start()
        try:
            yield r
        finally:
            r.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[Redis]:
    yield from _redis()


@pytest.fixture
def own_redis() -> Iterator[Redis]:
    """A redis-server of one test's own (the fault tests stop and start it)."""
    yield from _redis()
