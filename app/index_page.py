"""Our own index page at ``/`` (Panel's multi-app index would pull logos from a CDN)."""

from __future__ import annotations

import html

import panel as pn

from app import layout
from app.i18n import request_language, t

INDEX_CSS = """
.dp-index { font-size: 1.15em; line-height: 1.5; max-width: 60em; }
.dp-index h1 { font-size: 1.8em; margin: .2em 0 .4em 0; }
.dp-tiles { display: flex; flex-wrap: wrap; gap: 1.2em; margin: 1em 0; }
.dp-tile { flex: 1 1 20em; border: 2px solid #0b4f6c; border-radius: 10px; padding: 1em 1.2em;
           color: inherit; text-decoration: none; display: block; }
.dp-tile:hover, .dp-tile:focus-visible { background: #0b4f6c14; outline: 3px solid #d55e00; }
.dp-tile strong { font-size: 1.25em; display: block; margin-bottom: .3em; color: #0b4f6c; }
"""


def index_html(lang: str) -> str:
    def tile(href: str, title_key: str, desc_key: str) -> str:
        return (f'<a class="dp-tile" href="{href}?lang={lang}"><strong>'
                f"{html.escape(t(title_key, lang))}</strong>{html.escape(t(desc_key, lang))}</a>")

    return f"""
    <div class="dp-index">
      <h1>{html.escape(t("common.index.title", lang))}</h1>
      <p>{html.escape(t("common.index.lead", lang))}</p>
      <div class="dp-tiles">
        {tile("/lab", "common.nav.lab", "common.index.lab_desc")}
        {tile("/cdf", "common.nav.cdf", "common.index.cdf_desc")}
      </div>
      <p>{html.escape(t("common.index.options", lang))}</p>
    </div>"""


def create_page(lang: str | None = None) -> pn.template.FastListTemplate:
    lang = lang or request_language()
    body = pn.pane.HTML(index_html(lang), stylesheets=[INDEX_CSS], sizing_mode="stretch_width")
    return layout.page(lang=lang, title=t("common.nav.home", lang), path="/", main=[body])
