"""Shared offline-safe page template for every Panel page of dplab (lab, CDF).

Signature (the CDF page reuses it)::

    page(*, lang: str, title: str, path: str, main: list, sidebar: list | None = None,
         sidebar_width: int = 380, option_notice: bool = True) -> pn.template.FastListTemplate

- ``lang``: "ko" or "en" (see ``app.shell.i18n.request_language()``); ``title``: already translated;
  ``path``: the page's route ("/lab", "/cdf") used for the navigation highlight.
- ``main`` / ``sidebar``: Panel objects. The header carries navigation (home, lessons, lab, CDF),
  a language switch and a large-type switch; every link keeps ``lang``, ``size`` and ``theme``.
- Query options honoured on every page: ``?lang=ko|en``, ``?size=large`` (projector: larger type,
  in the figures too: app/shell/svgplot.py ``look``), ``?theme=dark``. An unknown value of any
  of them falls back to the default and the page shows a notice (``option_notice=False`` when
  the page shows :func:`bad_options` in its own notice box, as /lab does); never a traceback.
- Figures: drawn by the browser (app/shell/svgplot.py) in the type size of the layout and the
  colours of the current theme (background, text, grid); :func:`palette` gives each page's line
  colours, chosen per theme for WCAG 2.1 contrast (lines ≥ 3:1, text ≥ 4.5:1;
  tests/app/shell/test_theme_contrast.py).
- Phones: viewport meta; the sidebar starts folded below 760 px; the page scrolls as a whole.
- Print: the whole page (assets/dplab.css ``@media print``), folded ``<details>`` opened first.

Offline: the Fast design links a Google font by default; the server drops that link and the
font stack is local. Bokeh's 1.8 MB MathJax bundle is only sent to a page that has TeX in it
(both: the ``page_resources`` patch, app/serve/upstream_patches.py).
FAST's web components are not sent at all (see ``FAST_JS``): the page is Panel's list template
without them (assets/dplab-list-template.html) and the design's tokens are static CSS.
Everything else (Bokeh, Panel, the Fast design's CSS, our /assets/dplab.css) is served by our
own server.
"""

from __future__ import annotations

import html
import json
import os
from typing import Any

import panel as pn
import param

from app.shell import assets, urls
from app.shell.assets import asset_url
from app.shell.i18n import LANGUAGE_REGISTRY, LANGUAGES, html_lang, t
from app.shell.options import (
    bad_options,
    current_query,
    is_dark,
    is_large,
    kept_query,
    option,
    session_args,
)

ACCENT = "#0b4f6c"
# "dplab math": our subset of DejaVu Sans for subscripts, Greek and operators (assets/dplab.css)
FONT_STACK = ('"dplab math", system-ui, -apple-system, "Segoe UI", "Noto Sans KR", '
              '"Noto Sans CJK KR", "Apple SD Gothic Neo", "Malgun Gothic", "NanumGothic", '
              'sans-serif')
NAV = (("/", "common.nav.home"), ("/lesson", "common.nav.lesson"), ("/lab", "common.nav.lab"),
       ("/cdf", "common.nav.cdf"))
# Below this width the sidebar starts folded and the page is one column (assets/dplab.css).
PHONE_MAX_PX = 760


# FAST's web components (888 kB of script) only computed the Fast design's colour tokens on
# our pages: those are static CSS now (scripts/capture-fast-tokens.py writes them from FAST's
# own values; tests/ui/test_fast_tokens.py checks them and the pixels). DPLAB_FAST_JS=1 serves
# FAST's script and Panel's own template again (for that script and that test).
FAST_JS = os.environ.get("DPLAB_FAST_JS") == "1"
TOKENS_CSS = "dplab-fast-tokens.css"
TOKENS_DARK_CSS = "dplab-fast-tokens-dark.css"  # after TOKENS_CSS: the values that differ

# Names and error states of Bokeh's widgets from their first render (issue 39).
WIDGET_ARIA_JS = "dplab-widget-aria.js"

LARGE_CSS = assets.text("dplab-large.css")
FRAME_CSS = assets.text("dplab-frame.css")
DARK_CSS = assets.text("dplab-dark.css")

_JS_SET_PARAM = ("var u=new window.URL(window.location.href);u.searchParams.set('{k}','{v}');"
                 "window.location.href=u.toString();return false;")


# ---------------------------------------------------------------------------------------------
# header, page setup
# ---------------------------------------------------------------------------------------------
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


def nav_html(lang: str, path: str, query: str) -> str:
    """The page links of the header (shared by the Panel pages and the plain HTML pages)."""
    return " ".join(
        _link(urls.href(href) + query, t(key, lang), current=href == path) for href, key in NAV
    )


HEADER_CSS_TEXT = assets.text("dplab-header.css")
HEADER_CSS = '\n' + "<style>" + HEADER_CSS_TEXT + "</style>"  # inside the pane (DPLAB_FAST_JS=1)

# The header's markup is a function of (language, path, the address's query) alone: made once
# per such address and process (a class opens the same few addresses), not once per page.
_HEADERS: dict[tuple[Any, ...], str] = {}
_HEADERS_MAX = 512


def header_html(lang: str, path: str) -> str:
    """The header's markup for the current session's address: navigation + language +
    large-type + theme switches (plain links: keyboard operable)."""
    key = (lang, path, tuple(session_args().items()))
    markup = _HEADERS.get(key)
    if markup is None:
        if len(_HEADERS) >= _HEADERS_MAX:
            _HEADERS.clear()
        markup = _HEADERS[key] = _header_markup(lang, path)
    return markup


def _header_markup(lang: str, path: str) -> str:
    nav = nav_html(lang, path, kept_query(lang))
    langs = " ".join(
        _link(current_query(lang=code), other.name, current=code == lang,
              onclick=_JS_SET_PARAM.format(k="lang", v=code),
              label=t("common.lang.switch_to", lang, language=other.name))
        for code, other in LANGUAGE_REGISTRY.items()
    )
    large = is_large()
    size_v = "normal" if large else "large"
    size = _link(current_query(size=size_v),
                 t("common.size.normal" if large else "common.size.large", lang),
                 onclick=_JS_SET_PARAM.format(k="size", v=size_v))
    dark = is_dark()
    theme_v = "default" if dark else "dark"
    theme = _link(current_query(theme=theme_v),
                  t("common.theme.light" if dark else "common.theme.dark", lang),
                  onclick=_JS_SET_PARAM.format(k="theme", v=theme_v))
    nav_label = html.escape(t("common.nav.label", lang))
    cls = "dp-header dp-large" if large else "dp-header"
    return (f'<div class="{cls}"><nav aria-label="{nav_label}">'
            f'{nav}</nav><span class="dp-switch" role="group" '
            f'aria-label="{html.escape(t("common.lang.label", lang))}">{langs}</span>'
            f'<span class="dp-switch">{size} {theme}</span></div>')


def header(lang: str, path: str) -> pn.pane.HTML:
    """The header as a Panel pane (only with DPLAB_FAST_JS=1, Panel's own template; ours
    writes :func:`header_html` into the page's HTML)."""
    return pn.pane.HTML(HEADER_CSS + header_html(lang, path), margin=(0, 10),
                        sizing_mode="stretch_width")


def refresh_header(tmpl: Any, lang: str, path: str, doc: Any = None) -> None:
    """Make the header of a page from :func:`page` again for the current session's address
    (its switches keep the whole query: a page built before its address was known).
    ``doc``: the page's document (default: Panel's current one); call before its HTML is
    rendered."""
    markup = header_html(lang, path)
    if FAST_JS:
        tmpl.header[0].object = HEADER_CSS + markup
        return
    tmpl._render_variables["dp_header"] = markup
    doc = doc if doc is not None else pn.state.curdoc
    if doc is not None:
        doc.template_variables["dp_header"] = markup


# The page setup (assets/dplab-page-setup.js, a classic script deferred after BokehJS):
# - ``<html lang>`` (also written by the server: app.shell.first_paint.set_html_lang);
# - the sidebar toggle becomes a keyboard-operable button with a label and ``aria-expanded``;
# - below ``PHONE_MAX_PX`` the sidebar starts folded (one column on a phone);
# - the skip link to the main area, the landmarks' names;
# - names and values of Bokeh's widgets for screen readers (a log10 slider reads its value);
# - before printing every ``<details>`` (also inside Panel's shadow roots) is opened, and
#   closed again afterwards, so Ctrl+P prints folded tables too.
# Its settings travel as a JSON text in the page's HTML (``<script type="application/json"
# id="dp-page-setup">``): no component, no Bokeh model, no root per page.
PAGE_SETUP_JS = "dplab-page-setup.js"
_SETUPS: dict[tuple[Any, ...], str] = {}


def page_setup_json(lang: str, log_sliders: dict[str, str] | None = None) -> str:
    """The page setup's settings as JSON, safe inside a ``<script>`` element (one text per
    language and sliders, made once per process). ``log_sliders``: CSS class of a log10
    slider -> the symbol of its value, for aria-valuetext ('σ = 2.5' instead of '0.4')."""
    key = (lang, tuple(sorted((log_sliders or {}).items())))
    text = _SETUPS.get(key)
    if text is None:
        text = _SETUPS[key] = json.dumps({
            "lang": lang, "sidebar_label": t("common.sidebar.toggle", lang),
            "skip_label": t("common.skip", lang),
            "region_label": t("common.sidebar.region", lang),
            "phone_max": PHONE_MAX_PX, "log_sliders": dict(key[1]),
        }, ensure_ascii=False).replace("</", "<\\/")
    return text


def option_notice(lang: str, bad: list[tuple[str, str]]) -> pn.pane.HTML:
    """The visible notice for unknown page options (same look as the lab's URL notice)."""
    items = "".join(f"<li>{html.escape(t('common.url.bad_option', lang, name=n, value=v))}</li>"
                    for n, v in bad)
    return pn.pane.HTML(
        f'<div class="dp-notice" role="alert"><strong>'
        f'{html.escape(t("common.url.notice_title", lang))}</strong><ul>{items}</ul></div>',
        stylesheets=[assets.text("dplab-notice.css")],
        sizing_mode="stretch_width", css_classes=["dp-notices"])


def _design() -> type:
    """Panel's Fast design plus assets/dplab-controls.css inside every component's shadow root
    (keyboard focus outline, disabled sliders): page CSS does not reach into shadow roots."""
    from panel.theme.fast import Fast
    from panel.viewable import Viewable

    base = Fast.modifiers[Viewable]
    modifiers: dict[Any, Any] = {**Fast.modifiers, Viewable: {
        **base, "stylesheets": [*base.get("stylesheets", []), asset_url("dplab-controls.css")]}}
    attrs: dict[str, Any] = {"modifiers": modifiers, "__module__": __name__}
    if not FAST_JS:  # no FAST script (see FAST_JS), and no web font either
        attrs["_resources"] = {**Fast._resources, "font": {}, "js_modules": {}}
    # named "Fast": Panel finds the design's bundled files by the class name
    return type("Fast", (Fast,), attrs)


DESIGN = _design()


class _Template(pn.template.FastListTemplate):
    """FastListTemplate that ignores an unknown ``?theme=`` (Panel raises KeyError on it) and
    renders its page through :class:`app.shell.first_paint.FirstPaintTemplate` (deferred scripts,
    plus the server-rendered ``first_paint`` fragment when the page gives one)."""

    first_paint = param.String(default="", doc="Trusted HTML shown before the page's "
                               "JavaScript has run (app.shell.first_paint.fragment); '' for none.")
    page_lang: str = param.Selector(  # type: ignore[assignment]
       default="", objects=["", *LANGUAGES],
                               doc="The page language, written into <html lang>.")

    if not FAST_JS:
        _template = assets.path("dplab-list-template.html")

    @staticmethod
    def _get_theme_from_query_args() -> str | None:
        return option("theme")

    def _init_doc(self, doc: Any = None, comm: Any = None, title: str | None = None,
                  notebook: bool = False, location: Any = True) -> Any:
        from app.shell import first_paint
        from app.shell.first_paint import FirstPaintTemplate

        # Our page template embeds no Location root (no page of ours reads or sets
        # pn.state.location: app/shell/address.py keeps the address); Panel's own does.
        document = super()._init_doc(doc, comm, title, notebook, location if FAST_JS else False)
        if (first_paint.ENABLED and not notebook
                and not isinstance(document.template, FirstPaintTemplate)):
            document.template = FirstPaintTemplate.wrap(document.template, self.first_paint,
                                                        html_lang(self.page_lang))
        return document


def _setup_element(settings: str) -> str:
    return f'<script type="application/json" id="dp-page-setup">{settings}</script>'


def _stretches(obj: Any) -> bool:
    """A Panel component that fills the width with no margin (as the area's Column would)."""
    return (isinstance(obj, pn.viewable.Viewable) and getattr(obj, "sizing_mode", None)
            == "stretch_width" and getattr(obj, "margin", None) in (0, (0, 0), (0, 0, 0, 0)))


def page(*, lang: str, title: str, path: str, main: list[Any], sidebar: list[Any] | None = None,
         sidebar_width: int = 380, option_notice_shown: bool = True, first_paint: str = "",
         log_sliders: dict[str, str] | None = None) -> pn.template.FastListTemplate:
    """The shared template (see the module docstring).

    ``option_notice_shown=False``: the page shows :func:`bad_options` in its own notice.
    ``first_paint``: an :func:`app.shell.first_paint.fragment` shown until the page's own main area
    is drawn ('' for none).
    ``log_sliders``: CSS class of a slider whose value is a log10 -> the symbol it stands for
    (screen readers then hear the value itself).
    """
    bad = bad_options()
    if bad and option_notice_shown:
        main = [option_notice(lang, bad), *main]
    # One root per area: the template adds every item as a separate document root, and each
    # root re-walks the whole model graph (37 sidebar items cost ~1 s per page load). An area
    # of one item that stretches as the Column would is that root itself (/lab's sidebar).
    main_root = pn.Column(*main, sizing_mode="stretch_width", margin=0)
    side_root: list[Any] = []
    if sidebar:
        side_root = ([sidebar[0]] if len(sidebar) == 1 and _stretches(sidebar[0])
                     else [pn.Column(*sidebar, sizing_mode="stretch_width", margin=0)])
    large = is_large()
    setup = page_setup_json(lang, log_sliders)
    # The header's links are in the HTML the server sends (dp_header in
    # assets/dplab-list-template.html): no pane, no row, no shadow root, no root for them.
    head = [header(lang, path)] if FAST_JS else []
    tmpl = _Template(
        title=title,
        site="dplab",
        site_url="/" + kept_query(lang),
        main=[main_root],
        sidebar=side_root,
        header=head,
        accent=ACCENT,
        design=DESIGN,
        font=FONT_STACK,
        sidebar_width=sidebar_width,
        favicon="/assets/favicon.svg",
        main_layout=None,
        meta_viewport="width=device-width, initial-scale=1",
        # The Fast switch is replaced by our own theme link (keyboard operable, translated,
        # keeps the address).
        theme_toggle=False,
        # Panel's busy spinner lives in one process-wide list: every event in any session
        # updated every session's spinner (O(N) per event, ~95 % of the server's time with
        # 100 students, benchmarks/classroom_load.py). Off.
        busy_indicator=None,
        first_paint=first_paint,
        page_lang=lang,
        # (Panel's own template has no place of ours: the settings go in its sidebar's footer)
        **({"sidebar_footer": _setup_element(setup)} if FAST_JS else {}),
    )
    if not FAST_JS:
        tmpl.config.css_files.append(asset_url(TOKENS_CSS))
        if is_dark():
            tmpl.config.css_files.append(asset_url(TOKENS_DARK_CSS))
    tmpl.config.css_files.append(asset_url("dplab.css"))
    # Widgets named and marked invalid as they are drawn (deferred after BokehJS: its views'
    # render methods wrapped before the document is built).
    tmpl.config.js_files["dplab_widget_aria"] = asset_url(WIDGET_ARIA_JS)
    # The sidebar's landmark name in the HTML the server sends (assets/dplab-list-template.html)
    tmpl._render_variables["dp_region_label"] = t("common.sidebar.region", lang)
    tmpl.config.js_files["dplab_page_setup"] = asset_url(PAGE_SETUP_JS)
    if not FAST_JS:
        tmpl._render_variables["dp_header"] = header_html(lang, path)
        tmpl._render_variables["dp_setup"] = _setup_element(setup)
        tmpl.config.raw_css.append(HEADER_CSS_TEXT)
    tmpl.config.raw_css.append(FRAME_CSS)  # inline: the menu survives a failed style sheet
    if large:
        tmpl.config.raw_css.append(LARGE_CSS)
    if is_dark():
        tmpl.config.raw_css.append(DARK_CSS)
    return tmpl
