"""A plain websocket of a page (Tornado's public ``WebSocketHandler``) beside Bokeh's own.

Two channels use it: the class's card channel (app/room/channel.py, frames to a following
student's lab) and a lab's own moves (app/lab/moves.py, a slider's release and its views back).
Both are opened by a page's script with an id that only that page's document holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

import tornado.websocket

# Called for every message from a page's browser on these sockets, as for Bokeh's own
# (app/serve/server.py: a worker with messages coming in is not idle: it builds no page ahead
# and starts no full collection then).
_SEEN: list[Callable[[], None]] = []


def on_activity(fn: Callable[[], None]) -> None:
    """``fn()`` is called for each message a browser sends on a page socket (it replaces the
    one set before: a server sets one)."""
    _SEEN[:] = [fn]


class PageSocket(tornado.websocket.WebSocketHandler):
    """Origins as Bokeh's own websocket of the page; frames leave at once, uncompressed."""

    def check_origin(self, origin: str) -> bool:
        # The page's own websocket is allowed from these origins (app.serve.hardening
        # .websocket_origins, given to Bokeh); Tornado's same-origin rule first, as for Bokeh's.
        if super().check_origin(origin):
            return True
        from bokeh.server.util import check_allowlist
        from bokeh.settings import settings

        allowed = set(settings.allowed_ws_origin() or
                      getattr(self.application, "websocket_origins", set()))
        return bool(check_allowlist(urlparse(origin).netloc.lower(), sorted(allowed)))

    def open(self, *args: Any, **kwargs: Any) -> None:
        # A frame leaves at once: with Nagle's algorithm a 17 kB frame waited for the browser's
        # delayed ACK (Tornado's public switch; Bokeh's own sockets: app/serve/upstream_sessions).
        self.set_nodelay(True)

    def seen(self) -> None:
        """A message came from the browser (see :func:`on_activity`)."""
        for fn in _SEEN:
            fn()

    def get_compression_options(self) -> dict[str, Any] | None:
        return None  # (Tornado's default, said here: frames are written uncompressed)
