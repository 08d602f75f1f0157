"""HEAD, as uptime monitors send it, answers like GET without a body: the plain pages, the Panel
pages (without building one), the health check and static files, through a started server;
the "class is full" answer for HEAD too. (Behind scripts/serve-prod:
tests/deploy/test_head_serve_prod.py.)"""

from __future__ import annotations

from types import SimpleNamespace as NS
from typing import Any

import http_probe
import pytest
import tornado.web
from live_server import LiveServer
from tornado.testing import AsyncHTTPTestCase

from app.serve import hardening

PATHS = ["/", "/lesson", "/lesson?topic=cdf", "/lab", "/lab?lang=en", "/cdf", "/healthz",
         "/assets/dplab.css", "/assets/favicon.svg", "/join", "/teach"]
# What a GET and a HEAD must say alike (payload headers such as the length may differ: a page
# is streamed, a static file is compressed for GET only).
SAME = ("Content-Type", "Cache-Control", "Etag", "Content-Security-Policy",
        "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options")


def request(srv: LiveServer, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    return http_probe.request(srv.port, method, path)


@pytest.mark.parametrize("path", PATHS)
def test_head_answers_like_get_without_a_body(live_server: LiveServer, path: str) -> None:
    got, got_headers, body = request(live_server, "GET", path)
    head, head_headers, nothing = request(live_server, "HEAD", path)
    assert got == head == 200, (got, head)
    assert body and nothing == b""
    for name in SAME:
        assert got_headers.get(name) == head_headers.get(name), name
    assert "Content-Security-Policy" in head_headers


def test_head_of_a_panel_page_builds_no_page(live_server: LiveServer) -> None:
    runs = live_server.text().count("page-run ")
    for path in ("/lab", "/cdf", "/lab?lang=en"):
        assert request(live_server, "HEAD", path)[0] == 200
    request(live_server, "GET", "/healthz")  # the log is written by now
    assert live_server.text().count("page-run ") == runs


class _Page(tornado.web.RequestHandler):
    async def get(self) -> None:
        self.finish("page")

    async def head(self) -> None:
        self.finish()


class CappedHeadTest(AsyncHTTPTestCase):
    def get_app(self) -> tornado.web.Application:
        app = tornado.web.Application([(r"/lab", hardening.capped_doc_handler(_Page, 1))])
        # One connected session: the cap of 1 is reached.
        session = NS(connection_count=1, milliseconds_since_last_unsubscribe=0)
        app._applications = {"/lab": NS(sessions=[session])}  # type: ignore[attr-defined]
        return app

    def test_head_while_the_class_is_full_says_so(self) -> None:
        got: Any = self.fetch("/lab")
        head: Any = self.fetch("/lab", method="HEAD")
        assert got.code == head.code == 503
        assert head.body == b"" and head.headers["Retry-After"]
        assert head.headers["Content-Type"] == got.headers["Content-Type"]


def test_head_of_a_class_code_looks_nothing_up(live_server: LiveServer) -> None:
    # A HEAD of /join?room=... is the form, never a guess at a class code (GET: 404 or 503).
    got = request(live_server, "GET", "/join?room=ZZZZZZ")[0]
    head, _, nothing = request(live_server, "HEAD", "/join?room=ZZZZZZ")
    assert got in (404, 503) and (head, nothing) == (200, b"")
