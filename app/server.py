"""The dplab web server: ``/`` (our own index), ``/lab``, ``/cdf`` and ``/assets``.

Everything a page needs (Bokeh, Panel and Fast JS/CSS, our CSS and icon) is served by this
process; no CDN, no web font, no BOKEH_RESOURCES=cdn/inline (see shared/notes/panel-measured.md).
"""

from __future__ import annotations

import importlib.util
import logging
import os
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
          allow_websocket_origin: list[str] | None = None, show: bool = False) -> None:
    """Start the server and block. ``allow_websocket_origin``: extra host[:port] entries."""
    # Never CDN or inline resources: both make the browser fetch from the internet.
    if os.environ.get("BOKEH_RESOURCES", "server") != "server":
        os.environ["BOKEH_RESOURCES"] = "server"
    import panel as pn

    from app import plain_pages

    pn.extension(design="fast", notifications=False)
    origins = list(allow_websocket_origin or [])
    host = address if address not in ("0.0.0.0", "::", "") else "localhost"
    for h in (f"{host}:{port}", f"localhost:{port}", f"127.0.0.1:{port}"):
        if h not in origins:
            origins.append(h)
    logging.getLogger("app").setLevel(logging.WARNING)
    pn.serve(
        routes(),
        address=address,
        port=port,
        websocket_origin=origins,
        show=show,
        title="dplab",
        static_dirs={"assets": str(ASSETS_DIR)},
        extra_patterns=plain_pages.routes(),
        admin=False,
        verbose=True,
    )


if __name__ == "__main__":  # python -m app.server [port]
    import sys

    serve(port=int(sys.argv[1]) if len(sys.argv) > 1 else 5006)
