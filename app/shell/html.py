"""The document shell of the plain HTML pages (``/``, ``/lesson``): same header as the Panel pages.

``<html lang>`` follows the page language; the options ``lang``, ``size`` and ``theme`` are kept in
every internal link; unknown option values fall back to the default with a visible notice.
Everything is served by our own server (no CDN, no web font).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from urllib.parse import urlencode

from app.shell.assets import asset_url
from app.shell.i18n import LANGUAGE_REGISTRY, LANGUAGES, html_lang, pick_language, t
from app.shell.options import kept_query
from app.shell.template import nav_html
from app.shell.urls import prefix

SIZES = ("normal", "large")
THEMES = ("default", "dark")


def options(args: Mapping[str, str], accept_language: str | None
            ) -> tuple[str, dict[str, str], list[str]]:
    """(lang, kept options, notices) from the query; bad values are dropped with a notice."""
    lang = pick_language(args.get("lang"), accept_language)
    kept: dict[str, str] = {}
    notices: list[str] = []
    for name, allowed in (("lang", LANGUAGES), ("size", SIZES), ("theme", THEMES)):
        value = args.get(name)
        if value is None or value == "":
            continue
        if value in allowed:
            if name != "lang":
                kept[name] = value
        else:
            notices.append(t("common.url.bad_option", lang, name=name, value=value[:40]))
    return lang, kept, notices


def _switch_links(lang: str, kept: Mapping[str, str], path: str, extra: Mapping[str, str]) -> str:
    def href(**change: str) -> str:

        q = {**extra, "lang": lang, **kept, **change}
        q = {k: v for k, v in q.items() if v and not (k == "size" and v == "normal")
             and not (k == "theme" and v == "default")}
        return path + "?" + urlencode(q)

    def lang_link(code: str) -> str:
        name = LANGUAGE_REGISTRY[code].name  # its own name, in its own language
        label = t("common.lang.switch_to", lang, language=name)
        cur = ' aria-current="true"' if code == lang else ""
        cls = "dp-nav-link current" if code == lang else "dp-nav-link"
        return (f'<a class="{cls}" href="{html.escape(href(lang=code))}"{cur} '
                f'lang="{html_lang(code)}" '
                f'aria-label="{html.escape(label)}">{html.escape(name)}</a>')

    langs = " ".join(lang_link(code) for code in LANGUAGES)
    large = kept.get("size") == "large"
    size_key = "common.size.normal" if large else "common.size.large"
    size_href = href(size="normal" if large else "large")
    size = (f'<a class="dp-nav-link" href="{html.escape(size_href)}">'
            f"{html.escape(t(size_key, lang))}</a>")
    dark = kept.get("theme") == "dark"
    theme_href = href(theme="default" if dark else "dark")
    theme = (f'<a class="dp-nav-link dp-theme-link" href="{html.escape(theme_href)}">'
             f'{html.escape(t("common.theme.light" if dark else "common.theme.dark", lang))}</a>')
    return (f'<span class="dp-switch" role="group" '
            f'aria-label="{html.escape(t("common.lang.label", lang))}">{langs}</span>'
            f'<span class="dp-switch">{size} {theme}</span>')


def document(*, lang: str, kept: Mapping[str, str], notices: Sequence[str], path: str,
             title: str, body: str, extra_query: Mapping[str, str] | None = None,
             css: Sequence[str] = (), scripts: Sequence[str] = (), inline_data: str = "") -> str:
    """A whole page. ``body`` is trusted HTML made by our renderers; every text inside it is
    escaped by them."""
    query = kept_query(lang, kept)
    nav = nav_html(lang, path, query)
    classes = ["dp-plain"]
    if kept.get("size") == "large":
        classes.append("dp-large")
    if kept.get("theme") == "dark":
        classes.append("dp-dark")
    notice_html = ""
    if notices:
        items = "".join(f"<li>{html.escape(n)}</li>" for n in notices)
        notice_html = (f'<div class="dp-notice" role="alert"><strong>'
                       f'{html.escape(t("common.url.notice_title", lang))}</strong>'
                       f"<ul>{items}</ul></div>")
    body = keep_options(body, lang, kept)
    links = "".join(f'<link rel="stylesheet" href="{html.escape(h)}">' for h in css)
    scripts_html = "".join(f'<script src="{html.escape(s)}" defer></script>' for s in scripts)
    home = "/" + query
    page = f"""<!doctype html>
<html lang="{html_lang(lang)}" class="{' '.join(classes)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} · dplab</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="{asset_url("dplab.css")}">
<link rel="stylesheet" href="{asset_url("plain.css")}">
{links}
{inline_data}
{scripts_html}
</head>
<body>
<a class="dp-skip" href="#dp-main">{html.escape(t("common.skip", lang))}</a>
<header class="dp-topbar">
  <a class="dp-site" href="{html.escape(home)}">dplab</a>
  <span class="dp-page-title">{html.escape(title)}</span>
  <div class="dp-header">
    <nav aria-label="{html.escape(t("common.nav.label", lang))}">{nav}</nav>
    {_switch_links(lang, kept, path, extra_query or {})}
  </div>
</header>
<main id="dp-main" tabindex="-1">
{notice_html}
{body}
</main>
</body>
</html>"""
    return with_prefix(page)


def keep_options(body: str, lang: str, kept: Mapping[str, str]) -> str:
    """Add ``lang`` and the kept ``size``/``theme`` to every link to one of our pages that lacks
    them (lesson sources link to ``/lab`` or ``/lesson?topic=cdf#…`` without options)."""
    want = {"lang": lang, **kept}

    def fix(m: re.Match[str]) -> str:
        path, query, frag = m.group(2), m.group(3) or "", m.group(4) or ""
        have = {kv.split("=", 1)[0] for kv in html.unescape(query).lstrip("?").split("&") if kv}
        extra = [(k, v) for k, v in want.items() if k not in have]
        if not extra:
            return m.group(0)
        sep = "&amp;" if query else "?"
        add = "&amp;".join(f"{k}={html.escape(v)}" for k, v in extra)
        return f'{m.group(1)}{path}{query}{sep}{add}{frag}"'

    return re.sub(r'(\shref=")(/(?:lab|cdf|lesson)?/?)(\?[^"#]*)?(#[^"]*)?"', fix, body)


def with_prefix(page: str) -> str:
    """Every root-absolute ``href``/``src`` of our page behind ``DPLAB_PREFIX`` (app.shell.urls).

    Our renderers (and the lesson sources' Markdown links) write site paths like ``/lab?…``;
    behind a reverse proxy at ``/course/`` they must read ``/course/lab?…``.
    """
    p = prefix()
    if not p:
        return page
    done = re.escape(p[1:])  # links that already carry the prefix (the shared header)
    return re.sub(rf'(\s(?:href|src)=")/(?!/|{done}[/?"#])', lambda m: m.group(1) + p + "/",
                  page)
