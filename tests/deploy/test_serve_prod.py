"""scripts/serve-prod end to end: 2 workers behind HAProxy on loopback, driven by protocol-level
"tabs" (benchmarks/wsclient.py): page GET -> websocket with the token and the affinity cookie ->
PULL-DOC -> widget changes -> the server's pushes.

Shown here: each session's page script runs exactly once and on the worker its cookie names;
headers, compression and the static cache; websocket origins; faults (a client that disconnects
in the middle of a callback, a callback that raises, a slow client that stops reading, an
oversized message, a killed worker) leave every other session working and the balancer stops
sending new sessions to a dead worker; the session cap gives the friendly page, not a hang;
SIGTERM stops every process. Timeouts below bound a hang; no test asserts a duration.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from tornado.websocket import WebSocketClosedError
from wsclient import (
    LAB_CONTROLS,
    Tab,
    data_event,
    get_page,
    models_by_class,
    move_sigma,
    raw_read_message,
    raw_send_message,
    raw_ws_connect,
)

ROOT = Path(__file__).resolve().parents[2]
SERVE_PROD = ROOT / "scripts" / "serve-prod"
FAULT_APP = Path(__file__).resolve().with_name("fault_app.py")
HAPROXY = shutil.which("haproxy") or (
    "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None)

pytestmark = pytest.mark.skipif(
    HAPROXY is None,
    reason="haproxy not installed: serve-prod tests skipped (as root, scripts/ensure-haproxy.sh "
           "installs Debian's package)")

SECURITY_HEADERS = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def wait_until(pred: Callable[[], Any], timeout: float, what: str, every: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


class Prod:
    """One running scripts/serve-prod."""

    def __init__(self, tmp: Path, port: int | None = None, *, own_values: bool = False,
                 **env: str) -> None:
        self.port = port or _free_port()
        self.prefix = env.get("DPLAB_PREFIX", "")
        self.base = f"http://127.0.0.1:{self.port}{self.prefix}"
        self.tmp = tmp
        for d in ("tmp", "home"):
            (tmp / d).mkdir(exist_ok=True)
        self.log = tmp / "serve-prod.log"
        full_env = {**os.environ, "DPLAB_ADDRESS": "127.0.0.1", "DPLAB_PORT": str(self.port),
                    "DPLAB_WORKERS": "2", "DPLAB_TEST_APP": str(FAULT_APP),
                    "TMPDIR": str(tmp / "tmp"), "HOME": str(tmp / "home"), **env}
        full_env.pop("BOKEH_RESOURCES", None)
        if not own_values:
            # The lessons' computed values (~2.7 s of a worker's CPU at its start) in one
            # folder for every serve-prod of the test run, as one machine's /tmp keeps them;
            # ``own_values``: serve-prod's own choice, its run folder.
            full_env.setdefault("DPLAB_CACHE_DIR", str(tmp.parent / "lesson-values"))
        with self.log.open("wb") as fh:
            self.proc = subprocess.Popen([str(SERVE_PROD)], cwd=tmp, env=full_env,
                                         stdout=fh, stderr=subprocess.STDOUT)
        self.loop = asyncio.new_event_loop()
        try:
            wait_until(lambda: "serve-prod: ready:" in self.text() or self.proc.poll() is not None,
                       240, "serve-prod to be ready")
        except AssertionError:
            self.proc.kill()
            raise
        assert self.proc.poll() is None, "serve-prod exited:\n" + self.text()[-3000:]

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 180) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, timeout))

    def pids(self) -> dict[str, int]:
        """Current pid of haproxy and of each worker (from serve-prod's own log lines)."""
        out: dict[str, int] = {}
        for m in re.finditer(r"serve-prod: (?:worker (w\d+) (?:restarted, )?pid|(haproxy) pid) "
                             r"(\d+)", self.text()):
            out[m.group(1) or m.group(2)] = int(m.group(3))
        return out

    def page_runs(self) -> list[tuple[str, str, str]]:
        """(worker, path, session id) of every page-script run logged by the workers."""
        return re.findall(r"page-run worker=(\S+) path=(\S+) session=(\S+)", self.text())

    def stats(self) -> dict[str, str]:
        """Server name -> HAProxy status (UP, DOWN, ...), from the stats socket."""
        sock = re.search(r"stats: (\S+haproxy\.sock)", self.text())
        assert sock, "no stats socket in the log"
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(sock.group(1))
            s.sendall(b"show stat\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        lines = data.decode().splitlines()
        head = lines[0].lstrip("# ").split(",")
        rows = [dict(zip(head, ln.split(","), strict=False)) for ln in lines[1:] if ln]
        return {r["svname"]: r["status"] for r in rows if r.get("pxname") == "workers"}

    def stop(self) -> int:
        """SIGTERM, then every process it started must be gone; returns the exit status."""
        pids = self.pids()
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        left = {name: pid for name, pid in pids.items() if _alive(pid)}
        self.loop.close()
        assert not left, f"still running after SIGTERM: {left}"
        return code


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


@pytest.fixture(scope="module")
def prod(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prod]:
    p = Prod(tmp_path_factory.mktemp("prod"), own_values=True, DPLAB_MAX_SESSIONS="40")
    yield p
    assert p.stop() == 0


async def close_all(tabs: list[Tab]) -> None:
    await asyncio.gather(*(t.close() for t in tabs))


async def _lab_tab(prod: Prod, worker: str | None = None) -> Tab:
    return await Tab.open(f"{prod.base}/lab", cookie=worker)


async def _echo(tab: Tab, n: int) -> str:
    reply = await tab.set("dp-test-echo", "value", n)
    assert reply[0] == "OK", reply
    return await tab.wait_text("dp-test-out", lambda s: s == f"echo {n}")


# ---------------------------------------------------------------------------------------------
def test_each_session_runs_its_page_script_once_on_one_worker(prod: Prod) -> None:
    async def drive() -> list[Tab]:
        tabs = [await Tab.open(f"{prod.base}/lab") for _ in range(4)]
        tabs += [await Tab.open(f"{prod.base}/test-app") for _ in range(4)]
        for i, t in enumerate(tabs[:4]):  # each lab session answers its own slider
            await move_sigma(t, [0.5, -0.25, 0.25, -0.5][i])
        for i, t in enumerate(tabs[4:]):
            await _echo(t, 100 + i)
        return tabs

    tabs = prod.run(drive())
    runs = prod.page_runs()
    for t in tabs:
        mine = [r for r in runs if r[2] == t.page.session_id]
        # Twice would mean the websocket reached another worker, which built a second session.
        assert len(mine) == 1, (t.url, t.page.session_id, mine)
        assert mine[0][0] == t.worker, f"cookie says {t.worker}, script ran on {mine[0][0]}"
    assert {t.worker for t in tabs} == {"w1", "w2"}, "leastconn should use both workers"
    prod.run(close_all(tabs))


def test_security_headers_cookie_compression_and_static_cache(prod: Prod) -> None:
    status, h, body = fetch(prod.base + "/lab")
    assert status == 200
    js = re.search(r'src="(static/js/bokeh\.min\.js\?v=[0-9a-f]+)"', body.decode())
    assert js
    cookie = h["Set-Cookie"]
    assert cookie.startswith("dplab_w=w") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    urls = ["/", "/lab", "/assets/dplab.css", "/" + js.group(1), "/healthz", "/no-such-page"]
    for u in urls:
        status, h, _ = fetch(prod.base + u)
        assert status in (200, 404), (u, status)
        for name in SECURITY_HEADERS:
            assert h[name], f"{name} missing on {u}"
        assert "frame-ancestors 'self'" in h["Content-Security-Policy"]
        assert h["X-Content-Type-Options"] == "nosniff"
        assert h["X-Frame-Options"] == "SAMEORIGIN"
        assert "Tornado" not in (h["Server"] or "")
    # The balancer compresses; the second request is served by its cache (Age header).
    url = prod.base + "/" + js.group(1)
    plain = fetch(url)[2]
    _, h1, z1 = fetch(url, {"Accept-Encoding": "gzip"})
    _, h2, z2 = fetch(url, {"Accept-Encoding": "gzip"})
    assert h1["Content-Encoding"] == "gzip" and h2["Content-Encoding"] == "gzip"
    assert gzip.decompress(z1) == plain == gzip.decompress(z2)
    assert len(z1) < len(plain) / 2
    assert h2["Age"] is not None, "second request was not a cache hit"


def test_container_healthcheck_script(prod: Prod) -> None:
    script = ROOT / "deploy" / "healthcheck.py"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPLAB_")}
    ok = subprocess.run([sys.executable, str(script)], env={**env, "DPLAB_PORT": str(prod.port)},
                        capture_output=True, timeout=30)
    assert ok.returncode == 0, ok.stderr
    down = subprocess.run([sys.executable, str(script)],
                          env={**env, "DPLAB_PORT": str(_free_port())}, capture_output=True,
                          timeout=30)
    assert down.returncode == 1 and b"healthz" in down.stderr


def test_websocket_from_a_foreign_origin_is_refused(prod: Prod) -> None:
    with pytest.raises(Exception) as err:
        prod.run(Tab.open(f"{prod.base}/test-app", origin="http://evil.example.org"))
    assert "403" in str(err.value)
    tab = prod.run(Tab.open(f"{prod.base}/test-app"))  # the balancer's own origin works
    assert prod.run(_echo(tab, 7)) == "echo 7"
    prod.run(tab.close())


def test_client_disconnecting_in_the_middle_of_a_callback(prod: Prod) -> None:
    async def drive() -> None:
        a = await Tab.open(f"{prod.base}/test-app")
        other = await _lab_tab(prod, a.worker)  # same worker: the one that could suffer
        reply = await a.set("dp-test-sleep", "value", 1.5)
        assert reply[0] == "OK"
        await a.close()  # while the callback is still sleeping
        await asyncio.to_thread(wait_until, lambda: "test-app slept 1.5" in prod.text(), 30,
                                "the callback to finish after the disconnect")
        await move_sigma(other, 0.75)
        b = await Tab.open(f"{prod.base}/test-app", cookie=a.worker)
        await _echo(b, 11)
        await asyncio.gather(other.close(), b.close())

    prod.run(drive())


def test_a_callback_that_raises(prod: Prod) -> None:
    async def drive() -> None:
        a = await Tab.open(f"{prod.base}/test-app")
        other = await _lab_tab(prod, a.worker)
        await a.set("dp-test-raise", "value", 1)
        await _echo(a, 21)  # the session whose callback raised still works
        await move_sigma(other, -0.75)
        # A malformed value from a client (a string for a float slider) is refused, not fatal.
        await other._patch_quietly([data_event(other.model(LAB_CONTROLS),
                                               {"k": "slider", "c": "sigma", "v": "nan?"})])
        await move_sigma(other, 0.1)
        await asyncio.gather(a.close(), other.close())

    prod.run(drive())
    assert "this callback raises on purpose (1)" in prod.text(), "the error must be logged"


def test_a_slow_client_that_stops_reading(prod: Prod) -> None:
    async def drive() -> None:
        page = await get_page(f"{prod.base}/lab")
        assert page.token
        slow = await asyncio.to_thread(raw_ws_connect, "127.0.0.1", prod.port,
                                       f"{prod.prefix}/lab/ws", page.token, page.cookies)
        other = await _lab_tab(prod, page.cookie)
        try:
            # It loads the page like a tab, then freezes: it never reads again.
            assert raw_read_message(slow)[0] == "ACK"
            raw_send_message(slow, "PULL-DOC-REQ", {})
            msgtype, content = raw_read_message(slow)
            assert msgtype == "PULL-DOC-REPLY"
            controls = models_by_class(content["doc"])[LAB_CONTROLS]
            for i in range(60):  # each move makes the server push a new card it cannot deliver
                v = (i % 7 - 3) / 10
                raw_send_message(slow, "PATCH-DOC", {"events": [data_event(
                    controls, {"k": "slider", "c": "sigma", "v": v})]})
            for v in (0.3, -0.3, 0.6):
                await move_sigma(other, v)
            fresh = await Tab.open(f"{prod.base}/test-app", cookie=page.cookie)
            await _echo(fresh, 31)
            await fresh.close()
        finally:
            slow.close()
            await other.close()

    prod.run(drive())


def test_an_oversized_message_closes_only_that_connection(prod: Prod) -> None:
    async def drive() -> None:
        a = await Tab.open(f"{prod.base}/test-app")
        b = await Tab.open(f"{prod.base}/test-app", cookie=a.worker)
        try:
            await a.ws.write_message("x" * (3 << 20))  # over the 2 MiB limit
        except WebSocketClosedError:  # the server closed it before the 3 MiB were all sent
            pass
        await asyncio.to_thread(wait_until, lambda: a.closed_by_server, 30,
                                "the server to close the oversized connection")
        await _echo(b, 41)
        await b.close()

    prod.run(drive())


def test_workers_write_nothing_but_the_balancer_config(prod: Prod) -> None:
    # TMPDIR and HOME of every process point into the test's folder: after all the sessions
    # above, only serve-prod's run folder (HAProxy config, error pages, stats socket, the live
    # class's Redis socket, the lessons' computed values for a restarted worker) is there.
    home = list((prod.tmp / "home").rglob("*"))
    assert home == [], home
    names = sorted(p.name for p in (prod.tmp / "tmp").rglob("*"))
    run_dirs = [p for p in (prod.tmp / "tmp").iterdir()]
    assert len(run_dirs) == 1 and run_dirs[0].name.startswith("dplab-serve-"), names
    # (and the lock one worker held while it computed them, lessons._computing)
    values = {n for n in names if re.fullmatch(r"(gaussian|cdf)-[0-9a-f]{24}\.(json|lock)", n)}
    assert values and (run_dirs[0] / "values").is_dir(), names  # (made at a worker's start)
    assert set(names) - {run_dirs[0].name} - values == {
        "haproxy.cfg", "haproxy.sock", "502.http", "503.http", "504.http", "redis.sock",
        "values"}, names
    assert sorted(p.name for p in prod.tmp.iterdir()) == ["home", "serve-prod.log", "tmp"]


# ---------------------------------------------------------------------------------------------
def _join_from(prod: Prod, source: str, forged: str) -> int:
    """GET /join with an unknown code from client address ``source`` (a loopback alias), with
    an X-Forwarded-For header the client made up."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", prod.port, timeout=30,
                                      source_address=(source, 0))
    try:
        conn.request("GET", f"{prod.prefix}/join?room=ZZZZZZ&lang=en",
                     headers={"X-Forwarded-For": forged})
        return conn.getresponse().status
    finally:
        conn.close()


def test_rate_limits_see_the_client_behind_the_balancer(prod: Prod) -> None:
    # One client (127.0.0.2) that makes up a new X-Forwarded-For each time is still one client:
    # the workers read only the entry HAProxy appends (option forwardfor). Without a browser
    # cookie, ADDRESS_MISSES wrong codes a minute per address and worker (app/room/guard.py);
    # two workers share the requests.
    from app.room import guard

    seen = []
    for i in range(2 * guard.ADDRESS_MISSES + 10):
        seen.append(_join_from(prod, "127.0.0.2", f"198.51.100.{i}"))
        if seen[-1] == 429:
            break
    assert seen[-1] == 429 and set(seen[:-1]) == {404}, seen
    # Another client is not blocked (the key is the address HAProxy saw, not HAProxy's own),
    # even when it names the blocked one in its header.
    assert _join_from(prod, "127.0.0.3", "127.0.0.2") == 404


def test_session_cap_gives_the_class_full_page(tmp_path_factory: pytest.TempPathFactory
                                               ) -> None:
    # A closed tab keeps its place 3 s here (30 s by default: app/serve/hardening.PENDING_MS).
    prod = Prod(tmp_path_factory.mktemp("cap"), DPLAB_MAX_SESSIONS="2",
                DPLAB_SESSION_PENDING_MS="3000")
    try:
        tabs = [prod.run(Tab.open(f"{prod.base}/test-app")) for _ in range(4)]
        # A full worker answers 503 and the balancer retries on the other one: 2 + 2.
        assert sorted(t.worker or "" for t in tabs) == ["w1", "w1", "w2", "w2"]
        full = prod.run(get_page(f"{prod.base}/test-app", timeout=30))
        assert full.status == 503
        text = full.body
        assert "수업 정원이 찼습니다" in text and "The class is full" in text
        assert 'http-equiv="refresh"' in text and full.headers["Retry-After"]
        assert full.headers["Content-Security-Policy"]
        assert len(prod.page_runs()) == 4, "a refused request must not build a page"
        prod.run(tabs[0].close())
        # A closed tab stops taking a place PENDING_MS (3 s here) after it left: a retry gets
        # in.
        page = wait_until(lambda: (p := prod.run(get_page(f"{prod.base}/test-app")))
                          .status == 200 and p, 90, "a free slot after a tab closed", every=2)
        assert page.session_id
        prod.run(close_all(tabs[1:]))
    finally:
        code = prod.stop()
    assert code == 0


def test_killed_worker_gets_no_new_sessions_and_sigterm_stops_everything(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    prod = Prod(tmp_path_factory.mktemp("kill"), DPLAB_PREFIX="/course",
                DPLAB_RESTART_DELAY="8")
    try:
        assert fetch(prod.base + "/assets/dplab.css")[0] == 200
        assert fetch(f"http://127.0.0.1:{prod.port}/test-app")[0] == 404  # outside the prefix
        tabs = [prod.run(Tab.open(f"{prod.base}/test-app")) for _ in range(2)]
        by_worker = {t.worker: t for t in tabs}
        assert set(by_worker) == {"w1", "w2"}
        victim = prod.pids()["w1"]
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: not _alive(victim), 10, "the worker to die")
        assert prod.run(_echo(by_worker["w2"], 51)) == "echo 51"
        wait_until(lambda: prod.stats().get("w1", "").startswith("DOWN"), 20,
                   "HAProxy to mark w1 down")
        fresh = [prod.run(Tab.open(f"{prod.base}/test-app")) for _ in range(3)]
        pinned = prod.run(Tab.open(f"{prod.base}/test-app", cookie="w1"))  # a returning tab
        assert [t.worker for t in [*fresh, pinned]] == ["w2"] * 4
        for t in [*fresh, pinned]:
            assert prod.run(_echo(t, 61)) == "echo 61"
        # serve-prod restarts the worker; HAProxy's checks bring it back.
        wait_until(lambda: prod.pids()["w1"] != victim, 30, "w1 to be restarted")
        wait_until(lambda: prod.stats().get("w1") == "UP", 90, "HAProxy to see w1 up again")
        back = prod.run(Tab.open(f"{prod.base}/test-app", cookie="w1"))
        assert back.worker == "w1" and prod.run(_echo(back, 71)) == "echo 71"
        assert ("w1", "/test-app", back.page.session_id) in prod.page_runs()
        for t in [*tabs, *fresh, pinned, back]:
            prod.run(t.close())
    finally:
        code = prod.stop()  # also asserts that haproxy, w2 and the new w1 are gone
    assert code == 0


def test_worker_and_balancer_roles_for_several_hosts(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # What compose.yaml and a several-host setup run: a front balancer (DPLAB_ROLE=balancer,
    # static backends here; compose finds its replicas by DNS) in front of one app process
    # (DPLAB_ROLE=worker) and of one host running its own serve-prod (workers + HAProxy).
    front_port = _free_port()
    origin = f"127.0.0.1:{front_port}"
    hosts = [Prod(tmp_path_factory.mktemp("host0"), DPLAB_ROLE="worker",
                  DPLAB_ALLOW_WEBSOCKET_ORIGIN=origin),
             Prod(tmp_path_factory.mktemp("host1"), DPLAB_ROLE="all", DPLAB_WORKERS="1",
                  DPLAB_ALLOW_WEBSOCKET_ORIGIN=origin)]
    names = [f"{socket.gethostname()}:{hosts[0].port}", "w1"]
    front = None
    try:
        front = Prod(tmp_path_factory.mktemp("front"), port=front_port, DPLAB_ROLE="balancer",
                     DPLAB_BACKENDS=",".join(f"127.0.0.1:{h.port}" for h in hosts))
        tabs = [front.run(Tab.open(f"{front.base}/test-app")) for _ in range(4)]
        for i, t in enumerate(tabs):
            assert front.run(_echo(t, 80 + i)) == f"echo {80 + i}"
        assert {t.worker for t in tabs} == {"b1", "b2"}
        for t in tabs:
            i = int(str(t.worker)[1:]) - 1
            # The host's own balancer keeps its own cookie; the front's does not replace it.
            assert ("dplab_w" in t.page.cookies) == (i == 1), t.page.cookies
            runs = [r for h in hosts for r in h.page_runs() if r[2] == t.page.session_id]
            assert runs == [(names[i], "/test-app", t.page.session_id)]
        front.run(close_all(tabs))
    finally:
        codes = [p.stop() for p in ([front] if front else []) + hosts]
    assert codes == [0] * len(codes)


def _ready_line(p: Prod) -> str:
    return next(ln for ln in p.text().splitlines() if ln.startswith("serve-prod: ready:"))


def test_ready_line_names_the_public_url_and_allows_its_origin(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # In a container the port serve-prod listens on is not the one students type: the log
    # names DPLAB_PUBLIC_URL, and pages opened there may open their websocket.
    p = Prod(tmp_path_factory.mktemp("public"), DPLAB_WORKERS="1", DPLAB_CONTAINER="1",
             DPLAB_PUBLIC_URL="https://course.example.org/", DPLAB_TEACHER_TOKEN="")
    try:
        assert _ready_line(p) == ("serve-prod: ready: https://course.example.org/ "
                                  f"(DPLAB_PUBLIC_URL; listening on 127.0.0.1:{p.port})")
        assert "teacher page: https://course.example.org/teach ;" in p.text()
        tab = p.run(Tab.open(f"{p.base}/test-app", origin="https://course.example.org"))
        assert p.run(_echo(tab, 5)) == "echo 5"
        p.run(tab.close())
    finally:
        assert p.stop() == 0


@pytest.mark.parametrize("container", ["1", "0"])
def test_ready_line_in_a_container_says_the_port_is_the_containers(
        tmp_path_factory: pytest.TempPathFactory, container: str) -> None:
    # A balancer alone (its backend down) is enough to see the line.
    p = Prod(tmp_path_factory.mktemp("ready"), DPLAB_ROLE="balancer", DPLAB_PUBLIC_URL="",
             DPLAB_BACKENDS=f"127.0.0.1:{_free_port()}", DPLAB_CONTAINER=container)
    try:
        line = _ready_line(p)
    finally:
        assert p.stop() == 0
    if container == "0":
        assert line == f"serve-prod: ready: http://127.0.0.1:{p.port}/"
    else:
        assert line.startswith(f"serve-prod: ready: port {p.port} inside this container"), line
        assert f"-p HOST:{p.port}" in line and "DPLAB_PUBLIC_URL" in line, line


def test_a_public_url_without_scheme_is_refused() -> None:
    r = subprocess.run([str(SERVE_PROD), "--print-config"], capture_output=True, text=True,
                       env={**os.environ, "DPLAB_PUBLIC_URL": "course.example.org:8080"},
                       timeout=60)
    assert r.returncode == 2 and "DPLAB_PUBLIC_URL must be an address" in r.stderr, r.stderr
