"""What a dplab server process logs: nothing that identifies a student or a browser.

Logged (stderr): the start (address, the allowed websocket origins), one ``page-run`` line per
page built (worker and path), errors with their tracebacks, refused websockets (how many, and
the setting to change), and each 4xx/5xx answer as ``status method path time`` (tornado's
access log, warnings and errors only).

Never logged: client addresses (tornado puts the peer address in its access log and error
lines), query strings, request headers and cookies (tornado's "Uncaught exception" line dumps
the whole request), Bokeh session ids (bearer tokens: whoever reads one can join that
session), the Origin of a refused websocket, and the content of a websocket message (Bokeh's
error lines quote it: a widget value, a chunk of an uploaded CSV file).

:func:`install` replaces tornado's request summary and exception log (the patch
``quiet_request_log`` of app/serve/upstream_patches.py), and puts :class:`Scrub`
on the Bokeh loggers whose lines carry those values (a logger's own filter: it applies
whichever handlers Bokeh or Panel attach later). tests/app/serve/test_logs.py checks that each
rewritten Bokeh line still exists in the installed Bokeh, so an upgrade cannot bring one back
unnoticed; tests/app/serve/test_server_log_privacy.py reads what a real server writes.
"""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

import tornado.web
from tornado.log import app_log, gen_log

# (logger, the line's format string as Bokeh writes it, what is logged instead, argument
# positions kept). A format given as a regex is an f-string line (already formatted). A kept
# exception is logged by its class name: its repr can quote the message (a
# UnicodeDecodeError holds the bytes); the traceback (exc_info) still says what went wrong.
REWRITES: tuple[tuple[str, str | re.Pattern[str], str, tuple[int, ...]], ...] = (
    ("bokeh.server.views.ws", "Token for session %r had invalid signature",
     "a websocket token had an invalid signature", ()),
    ("bokeh.server.views.ws", "Unhandled exception receiving a message: %r: %r",
     "Unhandled exception receiving a message: %s", (0,)),
    ("bokeh.server.views.ws", "Handler or its work threw an exception: %r: %r",
     "Handler or its work threw an exception: %s", (0,)),
    ("bokeh.server.protocol_handler", "error handling message\n message: %r \n error: %r",
     "error handling a message: %s", (1,)),
    ("bokeh.server.views.session_handler", "Session id had invalid signature: %r",
     "a page request's session id had an invalid signature", ()),
    ("bokeh.server.contexts",
     re.compile(r"Session '[^']*' was scheduled to discard but came back to life"),
     "a session scheduled to be discarded came back to life", ()),
)


class Scrub(logging.Filter):
    """Rewrites the Bokeh lines of :data:`REWRITES` for one logger (never drops a line)."""

    def __init__(self, logger: str) -> None:
        super().__init__()
        self.rules = [(fmt, new, keep) for name, fmt, new, keep in REWRITES if name == logger]

    def filter(self, record: logging.LogRecord) -> bool:
        for fmt, new, keep in self.rules:
            if (record.msg == fmt if isinstance(fmt, str)
                    else isinstance(record.msg, str) and fmt.fullmatch(record.msg)):
                args = record.args if isinstance(record.args, tuple) else ()
                kept = (args[i] for i in keep if i < len(args))
                record.msg = new
                record.args = tuple(type(a).__name__ if isinstance(a, BaseException) else a
                                    for a in kept)
                break
        return True


def request_summary(handler: tornado.web.RequestHandler) -> str:
    """``GET /lab``: tornado's summary without the client's address and the query string."""
    return f"{handler.request.method} {handler.request.path[:200]}"


def log_exception(handler: tornado.web.RequestHandler, typ: Any, value: Any, tb: Any) -> None:
    """tornado's exception log without the request's repr (headers, cookies, address)."""
    if isinstance(value, tornado.web.HTTPError):
        message = value.get_message()
        if message:
            gen_log.warning("%d %s: %s", value.status_code, request_summary(handler), message)
    else:
        app_log.error("Uncaught exception %s", request_summary(handler), exc_info=(typ, value, tb))


def install() -> None:
    """Make this process's log match the module docstring. Idempotent."""
    from app.serve import upstream_patches

    upstream_patches.install("quiet_request_log", request_summary=request_summary,
                             log_exception=log_exception)
    for name in {name for name, *_ in REWRITES}:
        logger = logging.getLogger(name)
        if not any(isinstance(f, Scrub) for f in logger.filters):
            logger.addFilter(Scrub(name))


def announce(address: str, port: int, origins: list[str]) -> None:
    """The start-up lines an admin needs: where we listen and which page addresses may open
    websockets (what DPLAB_ALLOW_WEBSOCKET_ORIGIN adds to)."""
    print(f"dplab: serving on {address}:{port}; live pages (websockets) work when opened at: "
          f"{', '.join(origins)} (add more with DPLAB_ALLOW_WEBSOCKET_ORIGIN=host:port)",
          file=sys.stderr, flush=True)
