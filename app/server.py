"""The dplab web server: ``/`` (our own index), ``/lab``, ``/cdf`` and ``/assets``.

Everything a page needs (Bokeh, Panel and Fast JS/CSS, our CSS and icon) is served by this
process; no CDN, no web font, no BOKEH_RESOURCES=cdn/inline (see shared/notes/panel-measured.md).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets"


def _lab() -> Any:
    from app.lab_page import create_page

    return create_page()


def _cdf() -> Any:
    from app.cdf_page import create_page  # written by the CDF issue

    return create_page(None)


def routes() -> dict[str, Callable[[], Any]]:
    """URL path -> Panel page factory (``/`` and ``/lesson`` are plain HTML: app.plain_pages)."""
    r: dict[str, Callable[[], Any]] = {"/lab": _lab}
    if importlib.util.find_spec("app.cdf_page") is not None:
        r["/cdf"] = _cdf
    return r


def serve(address: str = "127.0.0.1", port: int = 5006,
          allow_websocket_origin: list[str] | None = None, show: bool = False, *,
          prefix: str = "", max_sessions: int | None = None,
          max_message_bytes: int | None = None, frame_ancestors: list[str] | None = None,
          worker: str | None = None) -> None:
    """Start the server and block. Never debug or autoreload (production and tests alike).

    ``allow_websocket_origin``: the browser-facing host[:port] names (e.g. the balancer's); only
    those, this address and the loopback names are accepted. ``prefix``: URL prefix behind a
    reverse proxy (``/dplab``). ``max_sessions``: Bokeh sessions in this process before a page
    request gets the "class is full" page (HTTP 503). ``max_message_bytes``: largest websocket
    message accepted from a browser. ``frame_ancestors``: CSP sources that may frame the pages
    (default ``'self'``; an LMS: ``https://lms.example.org``). ``worker``: name in the page-run
    log lines. See app/hardening.py.
    """
    # Never CDN or inline resources: both make the browser fetch from the internet.
    if os.environ.get("BOKEH_RESOURCES", "server") != "server":
        os.environ["BOKEH_RESOURCES"] = "server"
    import panel as pn

    from app import hardening, plain_pages

    pn.extension(design="fast", notifications=False)
    pn.config.autoreload = False
    cap = hardening.DEFAULT_MAX_SESSIONS if max_sessions is None else max_sessions
    msg_bytes = max_message_bytes or hardening.DEFAULT_MAX_MESSAGE_BYTES
    name = worker or f"{socket.gethostname()}:{port}"
    hardening.install_session_cap(cap)
    pages = hardening.log_page_runs({**routes(), **hardening.test_routes()}, name)
    logging.getLogger("app").setLevel(logging.WARNING)
    server = pn.serve(
        pages,
        address=address,
        port=port,
        websocket_origin=hardening.websocket_origins(address, port, allow_websocket_origin),
        show=show,
        start=False,
        title="dplab",
        static_dirs={"assets": str(ASSETS_DIR)},
        extra_patterns=[*plain_pages.routes(),
                        (r"/healthz", hardening.HealthHandler,
                         {"worker": name, "max_sessions": cap})],
        admin=False,
        verbose=True,
        prefix=prefix.strip("/"),
        websocket_max_message_size=msg_bytes,
    )
    server._tornado.transforms.append(
        hardening.header_transform(hardening.security_headers(frame_ancestors or ["'self'"])))
    server.start()
    server.io_loop.start()

if __name__ == "__main__":  # python -m app.server [port]
    import sys

    serve(port=int(sys.argv[1]) if len(sys.argv) > 1 else 5006)
