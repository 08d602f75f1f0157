"""app.serve.logs and the log side of app.serve.origin, without a server: tornado's request
summary and exception lines, the Bokeh lines rewritten (and that Bokeh still writes them), the
refused-websocket line. What a real server writes: test_server_log_privacy.py."""

from __future__ import annotations

import inspect
import logging
import re
import sys
from typing import Any

import pytest
import tornado.httputil
import tornado.web
from http_probe import Records

from app.serve import logs, origin

SESSION_ID = "ze1O8bIdmuzAiMKt5GpYfpkiHzleS7KpPdj7Dv0Lhq2n"


class _Records(Records):
    def text(self) -> str:
        out = []
        for r in self.records:
            out.append(r.getMessage())
            if r.exc_info:
                out.append(logging.Formatter().formatException(r.exc_info))
        return "\n".join(out)


def _handler(uri: str = "/lab?room=ABCD&n=4") -> tornado.web.RequestHandler:
    app = tornado.web.Application()
    conn: Any = type("C", (), {"set_close_callback": lambda self, cb: None})()
    req = tornado.httputil.HTTPServerRequest(
        start_line=tornado.httputil.RequestStartLine("GET", uri, "HTTP/1.1"), connection=conn,
        headers=tornado.httputil.HTTPHeaders({"Host": "course.example.org",
                                              "Cookie": "dplab_teacher=secret",
                                              "User-Agent": "Firefox/1"}))
    req.remote_ip = "203.0.113.7"
    return tornado.web.RequestHandler(app, req)


def test_request_summary_has_no_address_and_no_query() -> None:
    assert logs.request_summary(_handler()) == "GET /lab"


def test_uncaught_exception_line_has_no_request_details() -> None:
    seen = _Records()
    log = logging.getLogger("tornado.application")
    log.addHandler(seen)
    try:
        try:
            raise ValueError("boom")
        except ValueError:
            logs.log_exception(_handler(), *sys.exc_info())
    finally:
        log.removeHandler(seen)
    text = seen.text()
    assert "Uncaught exception GET /lab" in text and "ValueError: boom" in text
    for secret in ("203.0.113.7", "secret", "Firefox", "room=ABCD"):
        assert secret not in text


def test_install_patches_tornado_once() -> None:
    logs.install()
    logs.install()
    web: Any = tornado.web.RequestHandler
    handler = _handler()
    assert web._request_summary(handler) == logs.request_summary(handler) == "GET /lab"
    # installed once: our replacement wraps Tornado's own, not a replacement of it
    assert not web._request_summary._dplab_original.__module__.startswith("app.")
    for name in {n for n, *_ in logs.REWRITES}:
        assert sum(isinstance(f, logs.Scrub) for f in logging.getLogger(name).filters) == 1


def _scrubbed(logger: str, msg: str, *args: Any) -> str:
    record = logging.LogRecord(logger, logging.ERROR, __file__, 1, msg, args, None)
    assert logs.Scrub(logger).filter(record)
    return record.getMessage()


@pytest.mark.parametrize(("logger", "msg", "args", "kept"), [
    ("bokeh.server.views.ws", "Token for session %r had invalid signature", (SESSION_ID,),
     "a websocket token had an invalid signature"),
    ("bokeh.server.views.ws", "Unhandled exception receiving a message: %r: %r",
     (UnicodeDecodeError("utf-8", b"student,data", 0, 1, "bad"), "student,data"),
     "Unhandled exception receiving a message: UnicodeDecodeError"),
    ("bokeh.server.views.ws", "Handler or its work threw an exception: %r: %r",
     (ValueError("x"), "PATCH-DOC student,data"),
     "Handler or its work threw an exception: ValueError"),
    ("bokeh.server.protocol_handler", "error handling message\n message: %r \n error: %r",
     ("PATCH-DOC student,data", KeyError("k")), "error handling a message: KeyError"),
    ("bokeh.server.views.session_handler", "Session id had invalid signature: %r",
     (SESSION_ID,), "a page request's session id had an invalid signature"),
    ("bokeh.server.contexts", f"Session {SESSION_ID!r} was scheduled to discard but came back "
     "to life", (), "a session scheduled to be discarded came back to life"),
])
def test_bokeh_lines_lose_session_ids_and_message_contents(logger: str, msg: str,
                                                           args: tuple[Any, ...],
                                                           kept: str) -> None:
    assert _scrubbed(logger, msg, *args) == kept


def test_other_lines_are_left_as_they_are() -> None:
    assert _scrubbed("bokeh.server.views.ws", "Failed sending message as connection was "
                     "closed") == "Failed sending message as connection was closed"


def _bokeh_source(logger: str) -> str:
    module = sys.modules.get(logger) or __import__(logger, fromlist=["_"])
    return inspect.getsource(module)


@pytest.mark.parametrize("rule", logs.REWRITES, ids=lambda r: r[0])
def test_bokeh_still_writes_each_rewritten_line(rule: tuple[Any, ...]) -> None:
    # A Bokeh upgrade that rewords one of these lines would bring its id or content back.
    logger, fmt = rule[0], rule[1]
    source = _bokeh_source(logger)
    if isinstance(fmt, str):
        # (Bokeh wraps some of these lines with a backslash-newline inside the literal.)
        flat = re.sub(r"\\\n\s*", "", source)
        assert fmt.encode("unicode_escape").decode() in flat or fmt in flat, fmt
    else:
        assert "was scheduled to discard but came back to life" in source


def _server_log() -> _Records:
    """Records of the server's own logger (it does not propagate); counts start from zero."""
    origin._refused.update(count=0, logged=0, at=-origin.REFUSED_LOG_EVERY_S)
    seen = _Records()
    origin.LOG.addHandler(seen)
    return seen


def test_bokehs_own_origin_line_is_replaced() -> None:
    from bokeh.server.views.ws import WSHandler

    origin.install_check_origin()
    app: Any = type("A", (), {"websocket_origins": {"localhost:5006", "127.0.0.1:5006"}})()
    ws: Any = type("W", (), {"application": app})()
    seen = _server_log()
    try:
        assert WSHandler.check_origin(ws, "http://127.0.0.1:5006")
        assert not WSHandler.check_origin(ws, "http://evil-origin.example.net:9999")
    finally:
        origin.LOG.removeHandler(seen)
    text = seen.text()
    assert "evil-origin" not in text and "BOKEH_ALLOW_WS_ORIGIN" not in text
    assert "DPLAB_ALLOW_WEBSOCKET_ORIGIN" in text and "1 refused" in text


def test_refused_websockets_are_counted_one_line_a_minute() -> None:
    seen = _server_log()
    try:
        assert origin.refused_websocket(now=100.0)
        assert not origin.refused_websocket(now=110.0)
        assert not origin.refused_websocket(now=159.0)
        assert origin.refused_websocket(now=161.0)
    finally:
        origin.LOG.removeHandler(seen)
    lines = [r.getMessage() for r in seen.records]
    assert len(lines) == 2
    assert "(1 refused, 1 since the last line)" in lines[0]
    assert "(4 refused, 3 since the last line)" in lines[1]
