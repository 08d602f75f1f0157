"""Production safety of one dplab server process (worker): headers, session cap, health, logs.

- Security headers on every response (:func:`security_headers`): a Content-Security-Policy that
  allows exactly what the pages load (everything from this server; Bokeh's inline bootstrap
  scripts and Panel's inline styles, so ``'unsafe-inline'``; no other host), ``frame-ancestors``
  configurable for LMS embedding, ``X-Content-Type-Options``, ``Referrer-Policy``.
- A cap on Bokeh sessions per worker (:func:`capped_doc_handler`): beyond it a page request gets
  HTTP 503 with a bilingual "the class is full, retry in a moment" page that reloads itself,
  instead of a page that never finishes. The balancer (deploy/haproxy.cfg.in) retries a 503 on
  another worker first.
- ``/healthz`` for the balancer's health checks and the container's HEALTHCHECK.
- One log line per page-script run naming the worker (:func:`log_page_runs`), so a test can count
  them across workers. The line carries no request data: nothing about a student is logged
  (what the process logs at all: app/serve/logs.py).
"""

from __future__ import annotations

import html
import json
import logging
import os
import random
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import tornado.web

from app.shell import assets
from app.shell.i18n import DEFAULT_LANGUAGE, LANGUAGES, html_lang, t

# What one process measurably holds (benchmarks/classroom_load.py moves --students 500 through
# scripts/serve-prod: 250 per process, card p95 89 ms; serve-prod also lowers it to the memory).
DEFAULT_MAX_SESSIONS = 250
# Browsers send small PATCH-DOC messages (a widget value), except the CDF page's upload: 1 MiB
# chunks as base64 (~1.4 MB per message, app/cdf/widgets.py). 2 MiB leaves room for both.
DEFAULT_MAX_MESSAGE_BYTES = 2 << 20
RETRY_AFTER_S = 15

LOG = logging.getLogger("dplab.server")


def _logger() -> logging.Logger:
    if not LOG.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
        LOG.addHandler(handler)
        LOG.propagate = False
    LOG.setLevel(logging.INFO)
    return LOG


# ---------------------------------------------------------------------------------------------
# Headers


def content_security_policy(frame_ancestors: Sequence[str] = ("'self'",)) -> str:
    """The CSP of every page. Checked in a browser on /, /lesson, /lab, /cdf (tests/ui/test_csp.py).

    ``'unsafe-inline'`` scripts: Bokeh starts each document with an inline script and Panel's
    header links use ``onclick``; styles: Panel/Bokeh set inline styles everywhere.
    ``'unsafe-eval'``: Panel runs the scripts of its HTML panes with ``new Function``
    (``_render_script`` in panel.min.js; without it /lab does not render).
    ``blob:`` (scripts and fetch): es-module-shims (Panel's ESM loader) fetches and runs
    modules from blob URLs.
    ``connect-src 'self'`` covers the websocket of the same host (ws/wss) in CSP level 3.
    """
    ancestors = " ".join(frame_ancestors) if frame_ancestors else "'none'"
    return "; ".join([
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self' blob:",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        f"frame-ancestors {ancestors}",
    ])


# 'self' | 'none' | scheme: | [scheme://][*.]host[:port][/path]
_CSP_SOURCE = re.compile(r"'self'|'none'|[a-z][a-z0-9+.-]*:|"
                         r"([a-z][a-z0-9+.-]*://)?(\*\.)?[A-Za-z0-9.-]+(:(\d+|\*))?(/[^\s'\"<>]*)?")


def parse_frame_ancestors(value: str | None) -> list[str]:
    """``DPLAB_FRAME_ANCESTORS``: space/comma separated sources, e.g. ``https://lms.example.org``.

    Empty or unset: ``'self'`` (only our own pages may frame us). ``none``/``self`` may be given
    without quotes.
    """
    if not value or not value.strip():
        return ["'self'"]
    if any(c in value for c in "\r\n;"):
        raise ValueError("frame ancestors: one line of CSP sources, without ';'")
    out = []
    for part in value.replace(",", " ").split():
        if part in ("self", "none"):
            part = f"'{part}'"
        if not _CSP_SOURCE.fullmatch(part):
            raise ValueError(f"frame ancestor {part!r} is not a CSP source "
                             "(e.g. https://lms.example.org)")
        out.append(part)
    return out


def security_headers(frame_ancestors: Sequence[str] = ("'self'",)) -> dict[str, str]:
    headers = {
        "Content-Security-Policy": content_security_policy(frame_ancestors),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    }
    # The legacy header cannot name other sites: only send it when nobody else may frame us.
    if list(frame_ancestors) == ["'self'"]:
        headers["X-Frame-Options"] = "SAMEORIGIN"
    elif list(frame_ancestors) == ["'none'"]:
        headers["X-Frame-Options"] = "DENY"
    return headers


def header_transform(headers: dict[str, str]) -> type[tornado.web.OutputTransform]:
    """A Tornado output transform that adds ``headers`` to every response (static files, pages,
    errors, the websocket handshake's error replies) unless a handler set them itself."""

    class SecurityHeaders(tornado.web.OutputTransform):
        def transform_first_chunk(self, status_code: int, h: Any, chunk: bytes,
                                  finishing: bool) -> tuple[int, Any, bytes]:
            for name, value in headers.items():
                if name not in h:
                    h[name] = value
            h.pop("Server", None)
            return status_code, h, chunk

    return SecurityHeaders


# ---------------------------------------------------------------------------------------------
# "The class is full" / "temporarily unavailable" page (also the balancer's error pages)


def unavailable_page(kind: str = "full", seconds: int = RETRY_AFTER_S) -> str:
    """Bilingual page (Korean first) that reloads itself after ``seconds``. ``kind``: "full"
    (session cap, or no worker free) or "error" (the balancer got no answer)."""
    if kind not in ("full", "error"):
        raise ValueError(f"kind must be 'full' or 'error', got {kind!r}")
    sections = []
    for lang in LANGUAGES:
        sections.append(
            f'<section lang="{html_lang(lang)}">'
            f"<h1>{html.escape(t(f'server.{kind}.title', lang))}</h1>"
            f"<p>{html.escape(t(f'server.{kind}.body', lang, seconds=seconds))}</p>"
            f'<p><a class="retry" href="">{html.escape(t("server.retry", lang))}</a></p>'
            f'<p class="small">{html.escape(t("server.persist", lang))}</p>'
            "</section>")
    title = " / ".join(t(f"server.{kind}.title", lang) for lang in LANGUAGES)
    return f"""<!doctype html>
<html lang="{html_lang(DEFAULT_LANGUAGE)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="{seconds}">
<title>{html.escape(title)} · dplab</title>
<style>{assets.text('dplab-unavailable.css')}</style>
</head>
<body><main>{''.join(sections)}</main></body>
</html>
"""


def unavailable_http(status: int, kind: str, headers: dict[str, str]) -> bytes:
    """A whole HTTP/1.0 response for HAProxy's ``errorfile`` (it must carry its own headers)."""
    reason = {502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}[status]
    body = unavailable_page(kind).encode("utf-8")
    lines = [f"HTTP/1.0 {status} {reason}", "Cache-Control: no-store",
             "Connection: close", "Content-Type: text/html; charset=utf-8",
             f"Retry-After: {RETRY_AFTER_S}", f"Content-Length: {len(body)}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


# ---------------------------------------------------------------------------------------------
# Session cap, health, page-run log


# A session without a websocket still counts this long: its page was just sent and the
# websocket is on its way (or the tab is reloading). After that it is a closed tab that Bokeh
# keeps until its unused-session lifetime ends; it no longer takes a student's place.
# DPLAB_SESSION_PENDING_MS changes it (the deployment tests wait 3 s instead of 30).
def _pending_ms(default: int = 30_000) -> int:
    raw = os.environ.get("DPLAB_SESSION_PENDING_MS", "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:  # as DPLAB_PREBUILT_PAGES: a wrong setting stops the start, with its name
        raise ValueError("DPLAB_SESSION_PENDING_MS must be a whole number of milliseconds "
                         f"above 0, got {raw!r}")
    return value


PENDING_MS = _pending_ms()


def session_count(application: Any) -> int:
    """Sessions that hold a place in this process (all apps): connected, or created/left less
    than ``PENDING_MS`` ago."""
    n = 0
    for ctx in application._applications.values():
        for s in ctx.sessions:
            if s.connection_count > 0 or s.milliseconds_since_last_unsubscribe < PENDING_MS:
                n += 1
    return n


def capped_doc_handler(base: type, max_sessions: int) -> type:
    """Panel's page handler, but a page request beyond ``max_sessions`` gets the friendly 503."""

    class CappedDocHandler(base):
        def _full(self) -> bool:
            """Answer "the class is full" (503) if it is."""
            if session_count(self.application) < max_sessions:
                return False
            seconds = random.randint(10, 20)  # spread the retries of a full lecture hall
            self.set_status(503)
            self.set_header("Retry-After", str(seconds))
            self.set_header("Cache-Control", "no-store")
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(unavailable_page("full", seconds))
            return True

        async def get(self, *args: Any, **kwargs: Any) -> None:
            if not self._full():
                await super().get(*args, **kwargs)

        async def head(self, *args: Any, **kwargs: Any) -> None:
            # A monitor sees what a student would: 503 while the class is full.
            if not self._full():
                await super().head(*args, **kwargs)

    return CappedDocHandler


def install_session_cap(max_sessions: int) -> None:
    """Replace the page handler in Bokeh's per-app routes (before the server is built)."""
    from bokeh.server import urls

    for i, (pattern, handler, *rest) in enumerate(urls.per_app_patterns):
        if pattern == r"/?":
            base = getattr(handler, "_dplab_base", handler)
            capped = capped_doc_handler(base, max_sessions)
            capped._dplab_base = base  # type: ignore[attr-defined]
            urls.per_app_patterns[i] = (pattern, capped, *rest)


class HealthHandler(tornado.web.RequestHandler):
    """``GET /healthz``: 200 and a small JSON while the process serves."""

    def initialize(self, worker: str, max_sessions: int) -> None:
        self.worker, self.max_sessions = worker, max_sessions

    def get(self) -> None:
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        bokeh_app: Any = self.application  # Bokeh's BokehTornado: one context per page
        kept = sum(len(c.sessions) for c in bokeh_app._applications.values())
        self.finish(json.dumps({"status": "ok", "worker": self.worker,
                                "sessions": session_count(self.application),
                                "sessions_kept": kept, "max_sessions": self.max_sessions}))

    head = get  # the same answer; tornado sends no body for HEAD


_PAGE_RUN: dict[str, Any] = {"worker": "-", "with_session": False}


def page_run_taken(path: str, session_id: str | None = None, ahead: bool = False) -> None:
    """The ``page-run`` line of a page a session gets now (built now, or built ahead for
    ``session_id``: then the line ends with ``built=ahead``)."""
    import panel as pn

    log = _logger()
    worker = _PAGE_RUN["worker"]
    tail = " built=ahead" if ahead else ""
    if _PAGE_RUN["with_session"]:
        ctx = pn.state.curdoc.session_context if pn.state.curdoc else None
        log.info("page-run worker=%s path=%s session=%s%s", worker, path,
                 session_id or getattr(ctx, "id", "-"), tail)
    else:
        log.info("page-run worker=%s path=%s%s", worker, path, tail)


def log_page_runs(routes: dict[str, Callable[[], Any]], worker: str
                  ) -> dict[str, Callable[[], Any]]:
    """Wrap each page factory so every run logs ``page-run worker=W path=P``.

    No session id: it identifies a browser, and it is the session's bearer token. Only a test
    process (``DPLAB_TEST_APP`` set, see :func:`test_routes`) adds ``session=S``, so that
    tests/deploy can tell which worker built which of its tabs' pages."""
    import os

    from app.serve import prebuild

    log = _logger()
    with_session = bool(os.environ.get("DPLAB_TEST_APP"))
    _PAGE_RUN.update(worker=worker, with_session=with_session)

    def wrap(path: str, factory: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            if not prebuild.building_ahead:  # a page built ahead logs when a session takes it
                page_run_taken(path)
            try:
                return factory()
            except Exception:
                # Never a traceback (with server paths) in a browser: the log gets it, the
                # student gets a short page in their language.
                log.exception("page build failed: worker=%s path=%s", worker, path)
                return build_failed_page(path)

        run.__name__ = getattr(factory, "__name__", "page")
        return run

    return {path: wrap(path, f) for path, f in routes.items()}


def build_failed_page(path: str) -> Any:
    """The page shown when building ``path`` raised: language of the request, no details."""
    import html

    # Panel only here: serve-prod imports this module to write the balancer's error pages.
    import panel as pn

    from app.shell.i18n import t
    from app.shell.options import request_language

    try:
        lang = request_language()
    except Exception:  # the request itself may be what failed
        lang = DEFAULT_LANGUAGE
    body = (f'<main lang="{html_lang(lang)}" class="dp-build-failed" role="alert" '
            'style="font-family:system-ui,sans-serif;max-width:40em;margin:2em auto;'
            'line-height:1.5">'
            f"<h1>{html.escape(t('server.failed.title', lang))}</h1>"
            f"<p>{html.escape(t('server.failed.body', lang))}</p>"
            f'<p><a href="{html.escape(path)}?lang={lang}">{html.escape(t("server.retry", lang))}'
            f'</a> · <a href="/?lang={lang}">{html.escape(t("server.failed.home", lang))}</a></p>'
            f"<p>{html.escape(t('server.persist', lang))}</p></main>")
    return pn.pane.HTML(body, sizing_mode="stretch_width")


def websocket_origins(address: str, port: int, extra: Iterable[str] | None) -> list[str]:
    """Allowed websocket origins: the configured hosts only (``extra``) plus this server's own
    address and the loopback names on ``port``."""
    origins = [o.strip() for o in (extra or []) if o and o.strip()]
    host = address if address not in ("0.0.0.0", "::", "") else "localhost"
    for h in (f"{host}:{port}", f"localhost:{port}", f"127.0.0.1:{port}"):
        if h not in origins:
            origins.append(h)
    return origins


def test_routes() -> dict[str, Callable[[], Any]]:
    """``DPLAB_TEST_APP=/path/file.py`` (tests only): serve its ``create_page()`` at
    ``/test-app``, e.g. a page whose callbacks sleep or raise for the fault tests. Unset in
    production; whoever sets it already controls the process."""
    import os

    path = os.environ.get("DPLAB_TEST_APP")
    if not path:
        return {}
    import runpy

    def page() -> Any:
        return runpy.run_path(path)["create_page"]()

    return {"/test-app": page}
