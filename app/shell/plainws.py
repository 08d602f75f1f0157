"""A plain websocket of a page (Tornado's public ``WebSocketHandler``) beside Bokeh's own.

Two channels use it: the class's card channel (app/room/channel.py, frames to a following
student's lab) and a lab's own moves (app/lab/moves.py, a slider's release and its views back).
Both are opened by a page's script with an id that only that page's document holds.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import tornado.websocket


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

    def get_compression_options(self) -> dict[str, Any] | None:
        return None  # (Tornado's default, said here: frames are written uncompressed)
