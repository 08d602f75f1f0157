"""Shared offline-safe page template for every dplab page (lab, CDF, index).

Signature (the CDF page reuses it)::

    page(*, lang: str, title: str, path: str, main: list, sidebar: list | None = None,
         sidebar_width: int = 380) -> pn.template.FastListTemplate

- ``lang``: "ko" or "en" (see ``app.i18n.request_language()``); ``title``: already translated;
  ``path``: the page's route ("/lab", "/cdf", "/") used for the navigation highlight.
- ``main`` / ``sidebar``: Panel objects. The header carries navigation (home, lab, CDF), a language
  switch and a large-type switch; both switches keep the rest of the current URL.
- Query options honoured on every page: ``?lang=ko|en``, ``?size=large`` (projector: larger type,
  thicker Bokeh text via :func:`large_type`), ``?theme=dark`` (Panel's Fast theme switch).

Offline: the Fast design links a Google font by default; :func:`_strip_web_fonts` removes that
link (measured in shared/notes/panel-measured.md) and the font stack is local. Everything else
(Bokeh, Panel, Fast JS/CSS, our /assets/dplab.css) is served by our own server.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import panel as pn
import param
from panel.theme.fast import Fast

from app.i18n import LANGUAGES, t

ACCENT = "#0b4f6c"
FONT_STACK = ('system-ui, -apple-system, "Segoe UI", "Noto Sans KR", "Noto Sans CJK KR", '
              '"Apple SD Gothic Neo", "Malgun Gothic", "NanumGothic", sans-serif')
NAV = (("/", "common.nav.home"), ("/lesson", "common.nav.lesson"), ("/lab", "common.nav.lab"),
       ("/cdf", "common.nav.cdf"))
# Query options that every internal link carries over (language, projector type, theme).
KEPT_OPTIONS = ("lang", "size", "theme")

LARGE_CSS = """
:root, body { --type-ramp-base-font-size: 22px !important;
              --type-ramp-plus-1-font-size: 26px !important;
              --type-ramp-plus-2-font-size: 30px !important; }
body { font-size: 22px; }
"""

_JS_SET_PARAM = ("var u=new window.URL(window.location.href);u.searchParams.set('{k}','{v}');"
                 "window.location.href=u.toString();return false;")


def _strip_web_fonts() -> None:
    # Fast's design pulls Open Sans from Google Fonts: drop it (no external request).
    if Fast._resources.get("font"):
        Fast._resources = {**Fast._resources, "font": {}}


def session_flag(name: str) -> str | None:
    """A query argument of the current session as text (None when absent)."""
    args = pn.state.session_args or {}
    raw = args.get(name)
    if not raw:
        return None
    v = raw[0]
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def is_large() -> bool:
    return session_flag("size") == "large"


def _link(href: str, text: str, *, current: bool = False, onclick: str | None = None,
          label: str | None = None) -> str:
    cls = "dp-nav-link current" if current else "dp-nav-link"
    attrs = [f'href="{html.escape(href)}"', f'class="{cls}"']
    if current:
        attrs.append('aria-current="page"')
    if onclick:
        attrs.append(f'onclick="{html.escape(onclick)}"')
    if label:
        attrs.append(f'aria-label="{html.escape(label)}"')
    return f"<a {' '.join(attrs)}>{html.escape(text)}</a>"


def kept_query(lang: str, args: Mapping[str, str] | None = None) -> str:
    """``?lang=..&size=..&theme=..`` for an internal link: the options a student chose stay.

    ``args``: the request's query arguments (default: the current Panel session's).
    """
    if args is None:
        args = {k: v for k in ("size", "theme") if (v := session_flag(k))}
    parts = [("lang", lang)]
    for k in KEPT_OPTIONS[1:]:
        v = args.get(k)
        if v:
            parts.append((k, v))
    return "?" + urlencode(parts)


def nav_html(lang: str, path: str, query: str) -> str:
    """The page links of the header (shared by the Panel pages and the plain HTML pages)."""
    return " ".join(
        _link(href + query, t(key, lang), current=href == path) for href, key in NAV
    )


def header(lang: str, path: str) -> pn.pane.HTML:
    """Navigation + language + large-type switches (plain links: keyboard operable)."""
    nav = nav_html(lang, path, kept_query(lang))
    langs = " ".join(
        _link(f"?lang={code}", t(f"common.lang.{code}", lang), current=code == lang,
              onclick=_JS_SET_PARAM.format(k="lang", v=code),
              label=t("common.lang.switch_to", lang, language=t(f"common.lang.{code}", lang)))
        for code in LANGUAGES
    )
    large = is_large()
    size_v = "normal" if large else "large"
    size = _link(f"?size={size_v}", t("common.size.normal" if large else "common.size.large", lang),
                 onclick=_JS_SET_PARAM.format(k="size", v=size_v))
    css = """
    <style>
      .dp-header { display:flex; gap:.4em 1.4em; align-items:center; flex-wrap:wrap;
                   font-size:15px; justify-content:flex-end; }
      .dp-header nav, .dp-header .dp-switch { display:flex; gap:.8em; align-items:center; }
      .dp-nav-link { color:#fff; text-decoration:underline; text-underline-offset:3px;
                     padding:2px 4px; border-radius:4px; white-space:nowrap; }
      .dp-nav-link.current { font-weight:700; text-decoration-thickness:3px; }
      .dp-nav-link:focus-visible { outline:3px solid #ffd166; outline-offset:2px; }
    </style>"""
    nav_label = html.escape(t("common.nav.label", lang))
    body = (f'{css}<div class="dp-header"><nav aria-label="{nav_label}">'
            f'{nav}</nav><span class="dp-switch" role="group" '
            f'aria-label="{html.escape(t("common.lang.label", lang))}">{langs}</span>'
            f'<span class="dp-switch">{size}</span></div>')
    return pn.pane.HTML(body, margin=(0, 10), sizing_mode="stretch_width")


class HtmlLang(pn.custom.JSComponent):
    """Sets ``<html lang>`` to the page language (Panel's base template hard-codes "en"),
    so screen readers pronounce Korean pages as Korean."""

    lang = param.String(default="ko", doc="BCP 47 language of the page.")

    _esm = """
    export function render({ model }) {
      document.documentElement.lang = model.lang;
      model.on("lang", () => { document.documentElement.lang = model.lang; });
      return document.createElement("span");
    }
    """


def large_type(fig: Any, large: bool | None = None) -> Any:
    """Bokeh text sizes for the projector (Bokeh canvases do not follow the page's CSS)."""
    big = is_large() if large is None else large
    base, title = ("18pt", "20pt") if big else ("12pt", "14pt")
    for axis in (*fig.xaxis, *fig.yaxis):
        axis.axis_label_text_font_size = base
        axis.major_label_text_font_size = base
        axis.axis_label_text_font_style = "normal"
    fig.title.text_font_size = title
    if fig.legend:
        fig.legend.label_text_font_size = base
    return fig


def page(*, lang: str, title: str, path: str, main: list[Any], sidebar: list[Any] | None = None,
         sidebar_width: int = 380) -> pn.template.FastListTemplate:
    """The shared template (see the module docstring)."""
    _strip_web_fonts()
    # One root per area: the template adds every item as a separate document root, and each
    # root re-walks the whole model graph (37 sidebar items cost ~1 s per page load).
    main_root = pn.Column(*main, sizing_mode="stretch_width", margin=0)
    side_root = [pn.Column(*sidebar, sizing_mode="stretch_width", margin=0)] if sidebar else []
    tmpl = pn.template.FastListTemplate(
        title=title,
        site="dplab",
        site_url=f"/?lang={lang}",
        main=[main_root],
        sidebar=side_root,
        header=[header(lang, path), HtmlLang(lang=lang, width=0, height=0, margin=0)],
        accent=ACCENT,
        font=FONT_STACK,
        sidebar_width=sidebar_width,
        favicon="/assets/favicon.svg",
        main_layout=None,
        # Panel's busy spinner lives in one process-wide list: every event in any session
        # updated every session's spinner (O(N) per event, ~95 % of the server's time with
        # 100 students, issue 11). Off.
        busy_indicator=None,
    )
    tmpl.config.css_files.append("/assets/dplab.css")
    if is_large():
        tmpl.config.raw_css.append(LARGE_CSS)
    return tmpl
