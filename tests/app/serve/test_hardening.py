"""Hardening without a running server: headers and CSP, frame ancestors, websocket origins, the
"class is full" page and the balancer's error files, how serve() wires Panel/Bokeh, and the
HAProxy configuration scripts/serve-prod renders (checked by `haproxy -c` when installed).
End-to-end behaviour is in tests/deploy/test_serve_prod.py; the CSP in a browser in
tests/ui/test_csp.py.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.serve import hardening
from app.shell.i18n import CATALOGUE_DIR, t

ROOT = Path(__file__).resolve().parents[3]
SERVE_PROD = ROOT / "scripts" / "serve-prod"
HAPROXY = shutil.which("haproxy") or (
    "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None)


def _serve_prod_module() -> Any:
    loader = importlib.machinery.SourceFileLoader("serve_prod", str(SERVE_PROD))
    spec = importlib.util.spec_from_loader("serve_prod", loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


sp = _serve_prod_module()


# ---- catalogue and pages ---------------------------------------------------------------------
def test_server_catalogue_has_the_same_keys_in_both_languages() -> None:
    ko = json.loads((CATALOGUE_DIR / "server.ko.json").read_text(encoding="utf-8"))
    en = json.loads((CATALOGUE_DIR / "server.en.json").read_text(encoding="utf-8"))
    assert set(ko) == set(en) and all(k.startswith("server.") for k in ko)
    assert all(v.strip() for v in [*ko.values(), *en.values()])


@pytest.mark.parametrize("kind", ["full", "error"])
def test_unavailable_page_is_bilingual_korean_first_and_retries(kind: str) -> None:
    page = hardening.unavailable_page(kind, seconds=12)
    ko_title, en_title = t(f"server.{kind}.title", "ko"), t(f"server.{kind}.title", "en")
    assert page.index(ko_title) < page.index(en_title)
    for lang in ("ko", "en"):
        assert f'<section lang="{lang}">' in page
        assert t(f"server.{kind}.body", lang, seconds=12) in page
        assert t("server.retry", lang) in page
    assert '<html lang="ko">' in page
    assert '<meta http-equiv="refresh" content="12">' in page
    assert "<script" not in page and "http://" not in page and "https://" not in page


def test_class_full_text_says_retry_in_a_moment() -> None:
    assert "class is full" in t("server.full.title", "en").lower()
    assert "retry in a moment" in t("server.full.body", "en", seconds=15)
    assert "잠시 후 다시 시도" in t("server.full.body", "ko", seconds=15)


def test_unavailable_page_rejects_an_unknown_kind() -> None:
    with pytest.raises(ValueError, match="kind"):
        hardening.unavailable_page("busy")


@pytest.mark.parametrize("status", [502, 503, 504])
def test_balancer_error_file_is_a_whole_http_response(status: int) -> None:
    raw = hardening.unavailable_http(status, "error", hardening.security_headers())
    head, body = raw.split(b"\r\n\r\n", 1)
    lines = head.decode("ascii").split("\r\n")
    assert lines[0].startswith(f"HTTP/1.0 {status} ")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert int(headers["Content-Length"]) == len(body)
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Retry-After"] == str(hardening.RETRY_AFTER_S)
    assert "frame-ancestors 'self'" in headers["Content-Security-Policy"]
    # HAProxy needs an error file to fit in one buffer (tune.bufsize 16384 less maxrewrite).
    assert len(raw) < 15000
    assert t("server.error.title", "ko") in body.decode("utf-8")


# ---- headers ---------------------------------------------------------------------------------
def test_csp_names_no_other_host_by_default() -> None:
    csp = hardening.content_security_policy()
    directives = dict(d.split(" ", 1) for d in csp.split("; "))
    assert directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert directives["base-uri"] == "'self'"
    for value in directives.values():
        assert "*" not in value and "http" not in value, value


def test_frame_ancestors_for_an_lms() -> None:
    fa = hardening.parse_frame_ancestors("https://lms.example.org, https://moodle.example.ac.kr")
    assert fa == ["https://lms.example.org", "https://moodle.example.ac.kr"]
    h = hardening.security_headers(fa)
    assert h["Content-Security-Policy"].endswith(
        "frame-ancestors https://lms.example.org https://moodle.example.ac.kr")
    assert "X-Frame-Options" not in h  # it cannot name another site; the CSP decides
    assert hardening.security_headers(["'none'"])["X-Frame-Options"] == "DENY"
    assert hardening.security_headers()["X-Frame-Options"] == "SAMEORIGIN"
    assert hardening.parse_frame_ancestors("") == ["'self'"]
    assert hardening.parse_frame_ancestors("none") == ["'none'"]
    assert hardening.parse_frame_ancestors("self https://a.org") == ["'self'", "https://a.org"]


@pytest.mark.parametrize("bad", ["https://a.org; script-src *", "a\r\nSet-Cookie: x=1", '"x"'])
def test_frame_ancestors_cannot_inject(bad: str) -> None:
    with pytest.raises(ValueError):
        hardening.parse_frame_ancestors(bad)


def test_every_response_gets_the_headers_unless_set() -> None:
    import tornado.httputil

    transform = hardening.header_transform({"X-Content-Type-Options": "nosniff",
                                            "Referrer-Policy": "same-origin"})(None)
    h = tornado.httputil.HTTPHeaders({"Referrer-Policy": "no-referrer",
                                      "Server": "TornadoServer/6"})
    status, out, chunk = transform.transform_first_chunk(404, h, b"x", True)
    assert (status, chunk) == (404, b"x")
    assert out["X-Content-Type-Options"] == "nosniff"
    assert out["Referrer-Policy"] == "no-referrer"  # a handler's own choice stays
    assert "Server" not in out


def test_websocket_origins_are_the_configured_hosts_only() -> None:
    assert hardening.websocket_origins("127.0.0.1", 5006, None) == [
        "127.0.0.1:5006", "localhost:5006"]
    assert hardening.websocket_origins("0.0.0.0", 80, ["course.example.org"]) == [
        "course.example.org", "localhost:80", "127.0.0.1:80"]


def test_a_place_is_held_by_connected_and_just_opened_sessions_only() -> None:
    from types import SimpleNamespace as NS

    def sess(connections: int, idle_ms: float) -> NS:
        return NS(connection_count=connections, milliseconds_since_last_unsubscribe=idle_ms)

    app = NS(_applications={
        "/lab": NS(sessions=[sess(1, 10 ** 9),       # a student working
                             sess(0, 2_000),         # page just sent, websocket on its way
                             sess(0, hardening.PENDING_MS + 1)]),  # a closed tab
        "/cdf": NS(sessions=[sess(2, 0)])})
    assert hardening.session_count(app) == 3


# ---- serve() wiring --------------------------------------------------------------------------
class _FakeServer:
    def __init__(self) -> None:
        self.rules: list[Any] = []
        router = type("R", (), {"add_rules": lambda _self, rules: self.rules.extend(rules)})()
        self._tornado = type("T", (), {"transforms": [], "wildcard_router": router})()
        self.started = False
        self.io_loop = type("L", (), {"start": lambda _self: None})()

    def start(self) -> None:
        self.started = True


def test_serve_wires_limits_headers_prefix_and_never_autoreload(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import panel as pn
    from bokeh.server import urls

    from app.serve import server

    saved = list(urls.per_app_patterns)
    seen: dict[str, Any] = {}
    fake = _FakeServer()

    def fake_serve(pages: dict[str, Any], **kw: Any) -> _FakeServer:
        seen.update(kw, pages=pages)
        return fake

    monkeypatch.setattr(pn, "serve", fake_serve)
    monkeypatch.setattr(pn.config, "autoreload", True)
    # Process-wide tuning (GC, Bokeh patches) is not what this test is about: keep it out of
    # the test process.
    monkeypatch.setattr(server, "tune_process", lambda: {}, raising=False)
    import app.shell.plainjs

    # (serve() makes this process's models name their modules by address: undone after)
    monkeypatch.setattr(app.shell.plainjs, "_SERVED", False)
    import lessons

    monkeypatch.setattr(lessons, "_STORE", None)  # (and its store of computed values)
    try:
        server.serve(address="127.0.0.1", port=5999, prefix="/course/", max_sessions=7,
                     max_message_bytes=4096, frame_ancestors=["https://lms.example.org"],
                     worker="w9")
        handlers = [h for p, h, *_ in urls.per_app_patterns if p == r"/?"]
    finally:
        urls.per_app_patterns[:] = saved
    assert pn.config.autoreload is False
    assert seen["start"] is False and fake.started
    assert seen["prefix"] == "course"
    assert seen["websocket_max_message_size"] == 4096
    assert seen["admin"] is False and "dev" not in seen and "autoreload" not in seen
    assert seen["websocket_origin"] == ["127.0.0.1:5999", "localhost:5999"]
    assert set(seen["pages"]) >= {"/lab"}
    patterns = [p for p, *_ in seen["extra_patterns"]]
    assert "/healthz" in patterns and "/" in patterns
    assert r"/modules/([\w-]+)\.js" in patterns and app.shell.plainjs._SERVED
    assert lessons._STORE == lessons.default_store()
    health = next(x for x in seen["extra_patterns"] if x[0] == "/healthz")
    assert health[2] == {"worker": "w9", "max_sessions": 7}
    assert len(fake._tornado.transforms) == 1
    # the session cap is in the page handler's chain (the live class's cookie check wraps it)
    assert handlers and "CappedDocHandler" in [c.__name__ for c in handlers[0].__mro__]
    assert [pattern for pattern, _ in fake.rules] == [r"/.*"]  # the 404 page, added last


def test_cli_refuses_a_bad_frame_ancestor(capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import main

    assert main(["serve", "--frame-ancestors", "https://a.org; script-src *"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("dplab: error:")


# ---- scripts/serve-prod: the HAProxy configuration ------------------------------------------
def _render(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **env: str) -> str:
    for k in list(os.environ):
        if k.startswith("DPLAB_"):
            monkeypatch.delenv(k)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    cfg = sp.Config()
    servers = [("w1", "127.0.0.1:6001"), ("w2", "127.0.0.1:6002")]
    if cfg.role == "balancer":
        servers = [(f"b{i + 1}", b) for i, b in enumerate(cfg.backends)]
    return str(sp.render_haproxy(cfg, tmp_path, servers))


def test_default_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    text = _render(monkeypatch, tmp_path)
    assert "@" not in re.sub(r"#.*", "", text), "a placeholder was left"
    assert "bind 127.0.0.1:5006" in text
    assert 'cookie dplab_w insert indirect nocache httponly attr "SameSite=Lax"' in text
    assert "secure" not in text.split("cookie dplab_w", 1)[1].split("\n")[0]
    assert "balance leastconn" in text and "balance source" not in text
    assert "option httpchk GET /healthz" in text
    assert "server w1 127.0.0.1:6001 cookie w1" in text
    assert "compression algo gzip" in text and "http-request cache-use static" in text
    assert "retry-on conn-failure empty-response 503" in text
    assert re.search(r"^\s*log\s", text, re.M) is None, "the balancer must not log requests"


def test_lms_embedding_needs_a_third_party_cookie(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    text = _render(monkeypatch, tmp_path, DPLAB_FRAME_ANCESTORS="https://lms.example.org")
    line = next(ln for ln in text.splitlines() if "cookie dplab_w" in ln)
    assert "secure" in line and 'attr "SameSite=None"' in line and 'attr "Partitioned"' in line
    https = _render(monkeypatch, tmp_path, DPLAB_HTTPS="1")
    line = next(ln for ln in https.splitlines() if "cookie dplab_w" in ln)
    assert "secure" in line and 'attr "SameSite=Lax"' in line


def test_prefix_and_wildcard_address(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    text = _render(monkeypatch, tmp_path, DPLAB_PREFIX="course/", DPLAB_ADDRESS="0.0.0.0",
                   DPLAB_PORT="8080")
    assert "option httpchk GET /course/healthz" in text
    assert "path_beg /course/static/ /course/assets/" in text
    assert "bind :8080" in text


def test_balancer_role(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    text = _render(monkeypatch, tmp_path, DPLAB_ROLE="balancer",
                   DPLAB_BACKENDS="10.0.0.2:5006, 10.0.0.3:5006")
    assert "cookie dplab_b insert" in text, "not the hosts' own dplab_w"
    assert "server b1 10.0.0.2:5006 cookie b1" in text
    assert "server b2 10.0.0.3:5006 cookie b2" in text
    dns = _render(monkeypatch, tmp_path, DPLAB_ROLE="balancer", DPLAB_BACKENDS="app:5006",
                  DPLAB_BACKEND_SLOTS="8")
    assert "server-template app 1-8 app:5006 resolvers dns" in dns
    assert "parse-resolv-conf" in dns and "dynamic" in dns


@pytest.mark.parametrize(("env", "message"), [
    ({"DPLAB_WORKERS": "two"}, "DPLAB_WORKERS"),
    ({"DPLAB_PORT": "0"}, "DPLAB_PORT"),
    ({"DPLAB_PREFIX": "a b"}, "DPLAB_PREFIX"),
    ({"DPLAB_ROLE": "balancer"}, "DPLAB_BACKENDS"),
    ({"DPLAB_ROLE": "web"}, "DPLAB_ROLE"),
])
def test_bad_settings_stop_with_a_message(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          env: dict[str, str], message: str) -> None:
    with pytest.raises(SystemExit):
        _render(monkeypatch, tmp_path, **env)
    assert message in capsys.readouterr().err


def test_workers_default_to_the_usable_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DPLAB_WORKERS", raising=False)
    assert sp.Config().workers == sp.usable_cpus() >= 1
    assert sp.usable_cpus() <= len(os.sched_getaffinity(0))


@pytest.mark.skipif(HAPROXY is None, reason="haproxy not installed: config check skipped")
@pytest.mark.parametrize("env", [
    {},
    {"DPLAB_PREFIX": "/course", "DPLAB_FRAME_ANCESTORS": "https://lms.example.org"},
    {"DPLAB_ROLE": "balancer", "DPLAB_BACKENDS": "10.0.0.2:5006,10.0.0.3:5006"},
    {"DPLAB_ROLE": "balancer", "DPLAB_BACKENDS": "app:5006", "DPLAB_BACKEND_SLOTS": "4"},
])
def test_haproxy_accepts_the_rendered_config(env: dict[str, str]) -> None:
    full = {k: v for k, v in os.environ.items() if not k.startswith("DPLAB_")}
    full.update(env, DPLAB_WORKERS="2")
    r = subprocess.run([sys.executable, str(SERVE_PROD), "--check"], env=full,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "Configuration file is valid" in r.stdout + r.stderr


def test_href_adds_the_url_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.shell.urls import href, prefix

    monkeypatch.delenv("DPLAB_PREFIX", raising=False)
    assert prefix() == "" and href("/lab") == "/lab"
    monkeypatch.setenv("DPLAB_PREFIX", "course/")
    assert href("/assets/dplab.css") == "/course/assets/dplab.css"
    with pytest.raises(ValueError):
        href("lab")


def test_serve_prod_is_ruff_clean() -> None:
    # `ruff check .` skips files without a .py suffix; the start script is Python.
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff not installed next to this Python")
    r = subprocess.run([str(ruff), "check", str(SERVE_PROD)], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_pending_time_of_a_closed_tab_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.serve import hardening

    monkeypatch.delenv("DPLAB_SESSION_PENDING_MS", raising=False)
    assert hardening._pending_ms() == 30_000
    monkeypatch.setenv("DPLAB_SESSION_PENDING_MS", "3000")
    assert hardening._pending_ms() == 3000
    for bad in ("0", "-5", "3 s"):
        monkeypatch.setenv("DPLAB_SESSION_PENDING_MS", bad)
        with pytest.raises(ValueError, match="DPLAB_SESSION_PENDING_MS"):
            hardening._pending_ms()
