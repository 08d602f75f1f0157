"""A page opened at an address whose websocket the server will refuse says so.

Bokeh accepts a page's websocket only from the allowed origins (app.serve.hardening
.websocket_origins: the configured hosts, this server's address, the loopback names), as far as
Tornado asks it: Tornado 6.6 and later accept a same-origin websocket first (``Sec-Fetch-Site:
same-origin``, sent from https pages, or an ``Origin`` equal to ``Host``), earlier versions ask
for every websocket. So a student is refused when the page reaches the server under a name
that is not allowed and (Tornado >= 6.6) over plain http through a proxy that replaces ``Host``
(nginx's default ``proxy_pass``), or (Tornado < 6.6) whenever the name is not allowed. The
page then loads, shows the first card and never becomes interactive, without a word. Now:

- At the page request, :func:`refused_host` makes Tornado's and Bokeh's decision for the
  websocket that page will open (same Host and fetch-metadata headers; the browser's address
  is ``Host``, or ``X-Forwarded-Host`` when a proxy says it). If it would be refused, the page
  carries a visible alert in its language (role=alert) that names
  ``DPLAB_ALLOW_WEBSOCKET_ORIGIN`` and the ``host:port`` to add (:func:`notice`): short for the
  student, exact for the course staff.
- Where the server cannot see the browser's address (a proxy that replaces ``Host`` and does
  not say so), assets/dplab-origin.js notices that the websocket closed before the server said
  anything, asks ``/dplab-origin?host=<its own host>`` (:class:`CheckHandler`, the same
  decision) and shows the same alert, or a "could not connect" one when the address is not
  the reason. The server answering hides any alert (the prediction was wrong).
- The websocket refusal itself is logged without the Origin (a browser's address is no
  business of the log), naming the setting to change (:func:`install_check_origin`).
"""

from __future__ import annotations

import html
import json
import logging
import time
from collections.abc import Mapping
from typing import Any

import tornado.web

from app.shell import assets
from app.shell.i18n import html_lang, t

SETTING = "DPLAB_ALLOW_WEBSOCKET_ORIGIN"
# Tornado 6.6 accepts same-origin websockets before it asks check_origin.
SAME_ORIGIN_FIRST = hasattr(tornado.web.RequestHandler, "_check_cross_origin")
# A lecture hall at a wrong address refuses hundreds of websockets: one line per minute.
REFUSED_LOG_EVERY_S = 60.0

_CSS = "<style>" + assets.text("dplab-origin.css") + "</style>"
_JS = "<script>" + assets.text("dplab-origin.js") + "</script>"
_refused = {"count": 0, "logged": 0, "at": -REFUSED_LOG_EVERY_S}
LOG = logging.getLogger("dplab.server")


def allowed_hosts(application: Any) -> set[str]:
    """The allowlist Bokeh's websocket handler uses (BOKEH_ALLOW_WS_ORIGIN replaces it)."""
    from bokeh.settings import settings

    override = settings.allowed_ws_origin()
    return set(override) if override else set(application.websocket_origins)


def allowed(application: Any, host: str) -> bool:
    """Would Bokeh accept a websocket whose Origin names ``host`` (``name[:port]``)?"""
    from bokeh.server.util import check_allowlist

    return bool(check_allowlist(host.strip().lower(), list(allowed_hosts(application))))


def refused_host(application: Any, headers: Mapping[str, str],
                 browser_host: str | None = None) -> str | None:
    """The ``host[:port]`` to allow if a websocket from a page at ``browser_host``, sent the way
    this request was (its ``Host`` and ``Sec-Fetch-Site``), would be refused; else None.
    ``browser_host`` defaults to the first ``X-Forwarded-Host``, else ``Host``."""
    host = headers.get("Host", "").strip().lower()
    if browser_host is None:
        browser_host = headers.get("X-Forwarded-Host", "").split(",")[0].strip() or host
    browser_host = browser_host.strip().lower()
    if not browser_host:
        return None
    if SAME_ORIGIN_FIRST:
        # A page that sends fetch metadata (https, localhost) opens its websocket with
        # Sec-Fetch-Site: same-origin; otherwise Tornado compares the Origin with Host.
        if headers.get("Sec-Fetch-Site") is not None or browser_host == host:
            return None
    return None if allowed(application, browser_host) else browser_host


class CheckHandler(tornado.web.RequestHandler):
    """``GET /dplab-origin?host=H``: ``{"refused": bool}`` for a page at H whose websocket
    failed (assets/dplab-origin.js); it comes the way that websocket went."""

    def get(self) -> None:
        host = self.get_query_argument("host", "")[:300]
        refused = bool(host) and refused_host(self.application, self.request.headers,
                                              host) is not None
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps({"refused": refused}))


def notice(lang: str, host: str, refused: bool) -> str:
    """The two alerts, their style and the script (put right after ``<body>``).

    ``refused``: the server knows this address will be refused (the first alert shows);
    else both stay hidden until the script sees the websocket fail.
    """
    value = html.escape(f"{SETTING}={host}")

    def alert(kind: str, shown: bool) -> str:
        # A hidden alert has no role until the script shows it: a page's own alerts (and a
        # reader's list of them) never meet an empty one.
        role = ' role="alert"' if shown else ""
        return (f'<div class="dp-origin-alert dp-origin-{kind}"{role} '
                f'lang="{html.escape(html_lang(lang))}"{"" if shown else " hidden"}>'
                f"<p>{html.escape(t(f'server.origin.{kind}', lang))}</p>"
                f'<p><code class="dp-origin-setting">{value}</code></p></div>')

    return _CSS + alert("refused", refused) + alert("lost", False) + _JS


def page_notice(handler: Any) -> str:
    """:func:`notice` for a page request, in the page's language."""
    from app.shell.i18n import pick_language

    lang_arg = handler.get_query_argument("lang", "")
    lang = pick_language(lang_arg, handler.request.headers.get("Accept-Language"))
    host = refused_host(handler.application, handler.request.headers)
    return notice(lang, host or handler.request.headers.get("Host", "host:port"), host is not None)


def refused_websocket(now: float | None = None) -> bool:
    """Count one refused websocket; log it unless a line went out less than a minute ago.
    Returns whether it was logged."""
    now = time.monotonic() if now is None else now
    _refused["count"] += 1
    if now - _refused["at"] < REFUSED_LOG_EVERY_S:
        return False
    since = _refused["count"] - _refused["logged"]
    _refused.update(logged=_refused["count"], at=now)
    LOG.warning("websocket refused: the page was opened at an address that is not an allowed "
                "origin (%d refused, %d since the last line); add the address students use "
                "to %s (dplab serve --allow-websocket-origin); the page shows it",
                _refused["count"], since, SETTING)
    return True


def install_check_origin() -> None:
    """Bokeh's websocket origin check, same decision, but its log line (which quotes the
    Origin and names BOKEH_ALLOW_WS_ORIGIN, not our setting) replaced by
    :func:`refused_websocket` (app.serve.upstream_patches ``quiet_origin_refusal``).
    Idempotent."""
    from app.serve import upstream_patches

    upstream_patches.install("quiet_origin_refusal", allowed=allowed,
                             refused=refused_websocket)
