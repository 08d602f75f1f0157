"""Shared offline-safe page template for every Panel page of dplab (lab, CDF).

Signature (the CDF page reuses it)::

    page(*, lang: str, title: str, path: str, main: list, sidebar: list | None = None,
         sidebar_width: int = 380, option_notice: bool = True) -> pn.template.FastListTemplate

- ``lang``: "ko" or "en" (see ``app.i18n.request_language()``); ``title``: already translated;
  ``path``: the page's route ("/lab", "/cdf") used for the navigation highlight.
- ``main`` / ``sidebar``: Panel objects. The header carries navigation (home, lessons, lab, CDF),
  a language switch and a large-type switch; every link keeps ``lang``, ``size`` and ``theme``.
- Query options honoured on every page: ``?lang=ko|en``, ``?size=large`` (projector: larger type,
  thicker Bokeh text via :func:`large_type`), ``?theme=dark``. An unknown value of any of them
  falls back to the default and the page shows a notice (``option_notice=False`` when the page
  shows :func:`bad_options` in its own notice box, as /lab does); never a traceback.
- Figures: :func:`large_type` sets Bokeh text sizes for the projector *and* the colours of the
  current theme (background, text, grid); :func:`palette` gives each page's line colours, chosen
  per theme for WCAG 2.1 contrast (lines ≥ 3:1, text ≥ 4.5:1; tests/test_theme_contrast.py).
- Phones: viewport meta; the sidebar starts folded below 760 px; the page scrolls as a whole.
- Print: the whole page (assets/dplab.css ``@media print``), folded ``<details>`` opened first.

Offline: the Fast design links a Google font by default; :func:`_strip_web_fonts` removes that
link (measured in shared/notes/panel-measured.md) and the font stack is local. Bokeh's 1.8 MB
MathJax bundle is only sent to a page that has TeX in it (:func:`_install_mathjax_filter`).
Everything else (Bokeh, Panel, Fast JS/CSS, our /assets/dplab.css) is served by our own server.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import panel as pn
import param
from bokeh.models import Title
from panel.theme.fast import Fast

from app import urls
from app.i18n import LANGUAGES, t

ACCENT = "#0b4f6c"
FONT_STACK = ('system-ui, -apple-system, "Segoe UI", "Noto Sans KR", "Noto Sans CJK KR", '
              '"Apple SD Gothic Neo", "Malgun Gothic", "NanumGothic", sans-serif')
NAV = (("/", "common.nav.home"), ("/lesson", "common.nav.lesson"), ("/lab", "common.nav.lab"),
       ("/cdf", "common.nav.cdf"))
# Query options that every internal link carries over (language, projector type, theme).
KEPT_OPTIONS = ("lang", "size", "theme")
SIZES = ("normal", "large")
THEMES = ("default", "dark")
OPTION_VALUES: dict[str, tuple[str, ...]] = {"lang": LANGUAGES, "size": SIZES, "theme": THEMES}
# Below this width the sidebar starts folded and the page is one column (assets/dplab.css).
PHONE_MAX_PX = 760
# True: Bokeh's MathJax bundle only goes to pages with TeX and its WebGL bundle only to pages
# with a WebGL plot (benchmarks/first_load.py sets it False for its baseline).
SKIP_MATHJAX = True

ASSETS = Path(__file__).resolve().parent.parent / "assets"

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


def _install_mathjax_filter() -> None:
    """Send Bokeh's MathJax bundle (1.8 MB) only to a page whose text contains TeX (and the
    WebGL bundle only to a page with a WebGL plot: :func:`_install_webgl_filter`).

    Panel adds it to every page that has any HTML pane (``panel.io.resources._panel_use_mathjax``
    is true for all of them). Without the bundle Bokeh's MathJax provider reports "failed" and
    HTML panes show their text as it is, which is what our pages want (no TeX in them).
    """
    from bokeh.embed.bundle import _any
    from bokeh.embed.util import contains_tex_string
    from panel.io import resources

    if getattr(resources._panel_use_mathjax, "_dplab", False):
        return
    original = resources._panel_use_mathjax

    def use_mathjax(roots: Any) -> bool:
        if not SKIP_MATHJAX:
            return bool(original(roots))
        from panel.models.markup import HTML as PanelHTML

        return bool(_any(roots, lambda obj: isinstance(obj, PanelHTML)
                         and isinstance(obj.text, str) and contains_tex_string(obj.text)))

    use_mathjax._dplab = True  # type: ignore[attr-defined]
    resources._panel_use_mathjax = use_mathjax
    _install_webgl_filter()


def _install_webgl_filter() -> None:
    """Leave out Bokeh's WebGL bundle (194 kB) on a page without a WebGL plot (none of ours:
    every figure draws on a canvas). Panel's own bundle does not import it."""
    from bokeh.embed.bundle import _any
    from bokeh.models import Plot
    from panel.io import server

    if getattr(server.bundle_resources, "_dplab", False):
        return
    original = server.bundle_resources

    def bundle_resources(roots: Any, resources: Any, *args: Any, **kwargs: Any) -> Any:
        bundle = original(roots, resources, *args, **kwargs)
        if SKIP_MATHJAX and roots and not _any(
                roots, lambda obj: isinstance(obj, Plot) and obj.output_backend == "webgl"):
            bundle.js_files = [f for f in bundle.js_files if "/bokeh-gl" not in str(f)]
        return bundle

    bundle_resources._dplab = True  # type: ignore[attr-defined]
    server.bundle_resources = bundle_resources


class TextPane(pn.pane.HTML):
    """An HTML pane for text that changes with every slider move (card, tables, errors).

    Panel's HTML pane recomputes every Bokeh property (stylesheets and design included) each
    time its ``object`` changes; this one sends only the new text. Profiled under a class load
    (issue 11): those recomputations were ~20 % of a move's server CPU. Other parameters
    (visible, css_classes, stylesheets) still update through Panel as usual.
    """

    def _update(self, ref: str, model: Any) -> None:
        model.text = self._transform_object(self.object)["object"]


@functools.cache  # one hash per file and process: the files do not change while serving
def asset_url(name: str) -> str:
    """``/assets/<name>?v=<content hash>``: a versioned name, so a long cache lifetime is safe."""
    path = ASSETS / name
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    except OSError:
        return f"/assets/{name}"
    return f"/assets/{name}?v={digest}"


# ---------------------------------------------------------------------------------------------
# query options
# ---------------------------------------------------------------------------------------------
def session_flag(name: str) -> str | None:
    """A query argument of the current session as text (None when absent)."""
    args = pn.state.session_args or {}
    raw = args.get(name)
    if not raw:
        return None
    v = raw[0]
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def option(name: str) -> str | None:
    """The value of a page option (lang, size, theme) when it is a known one, else None."""
    v = session_flag(name)
    return v if v in OPTION_VALUES[name] else None


def bad_options() -> list[tuple[str, str]]:
    """(name, value) of every page option in the address whose value is unknown (cut to 40)."""
    out = []
    for name in KEPT_OPTIONS:
        v = session_flag(name)
        if v and v not in OPTION_VALUES[name]:
            out.append((name, v[:40]))
    return out


def is_large() -> bool:
    return option("size") == "large"


def is_dark() -> bool:
    return option("theme") == "dark"


def kept_query(lang: str, args: Mapping[str, str] | None = None) -> str:
    """``?lang=..&size=..&theme=..`` for an internal link: the options a student chose stay.

    ``args``: the request's query arguments, already checked (default: the current Panel
    session's; unknown values are left out).
    """
    if args is None:
        args = {k: v for k in KEPT_OPTIONS[1:] if (v := option(k))}
    parts = [("lang", lang)]
    for k in KEPT_OPTIONS[1:]:
        v = args.get(k)
        if v and not (k == "size" and v == "normal") and not (k == "theme" and v == "default"):
            parts.append((k, v))
    return "?" + urlencode(parts)


def _current_query(**change: str) -> str:
    """The current address's query with ``change`` applied (unknown page options dropped)."""
    args = pn.state.session_args or {}
    q: dict[str, str] = {}
    for k, vs in args.items():
        if not vs:
            continue
        v = vs[0].decode("utf-8", "replace") if isinstance(vs[0], bytes) else str(vs[0])
        if k in OPTION_VALUES and v not in OPTION_VALUES[k]:
            continue
        q[k] = v
    q.update(change)
    return "?" + urlencode(q)


# ---------------------------------------------------------------------------------------------
# colours per theme
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Palette:
    """Colours of one theme. Lines ≥ 3:1 and text ≥ 4.5:1 against ``background`` (WCAG 2.1)."""

    name: str
    background: str  # plot area and border (same as the page)
    text: str  # titles, axis and tick labels, legend
    grid: str  # decoration only (not a data line)
    d0: str  # dataset D (blue)
    d1: str  # neighbour D' (reddish purple)
    claim: str  # the claimed delta (orange)
    curve: str  # the exact Gaussian curve
    laplace: str  # comparison: Laplace at equal MSE (green)
    classic: str  # comparison: classic bound (grey)
    marker: str  # vertical markers (boundary t, current eps)
    note: str  # warning text inside a plot
    label_bg: str  # background behind labels inside the plot area
    passed: str  # verdict text: pass
    failed: str  # verdict text: fail


PALETTES: dict[str, Palette] = {
    "default": Palette(
        name="default", background="#ffffff", text="#222222", grid="#d5d5d5",
        d0="#0072b2", d1="#b4508a", claim="#d55e00", curve="#1b1b1b", laplace="#00845f",
        classic="#6b6b6b", marker="#555555", note="#8a3b00", label_bg="#ffffff",
        passed="#007a4d", failed="#b3261e"),
    "dark": Palette(
        name="dark", background="#181818", text="#e6e6e6", grid="#3a3a3a",
        d0="#56b4e9", d1="#f08cc8", claim="#ff9d4d", curve="#f2f2f2", laplace="#3fd6a0",
        classic="#b8b8b8", marker="#c8c8c8", note="#ffb37a", label_bg="#181818",
        passed="#4cd69a", failed="#ff8a80"),
}


def palette(dark: bool | None = None) -> Palette:
    """The colours of the current session's theme (or of ``dark`` when given)."""
    return PALETTES["dark" if (is_dark() if dark is None else dark) else "default"]


def theme_figure(fig: Any, dark: bool | None = None) -> Any:
    """Background, text and grid colours of the theme, set on the model (not left to the
    document theme, so the contrast test can read them and every page looks the same)."""
    p = palette(dark)
    fig.background_fill_color = p.background
    fig.border_fill_color = p.background
    fig.border_fill_alpha = 1.0
    fig.outline_line_color = p.grid
    for axis in (*fig.xaxis, *fig.yaxis):
        axis.axis_label_text_color = p.text
        axis.major_label_text_color = p.text
        axis.axis_line_color = p.text
        axis.major_tick_line_color = p.text
        axis.minor_tick_line_color = p.text
    for grid in (*fig.xgrid, *fig.ygrid):
        grid.grid_line_color = p.grid
        grid.grid_line_alpha = 1.0
    fig.title.text_color = p.text
    for title in [*fig.above, *fig.below]:
        if isinstance(title, Title):
            title.text_color = p.text
    for legend in fig.legend:
        legend.label_text_color = p.text
        legend.background_fill_color = p.background
        legend.inactive_fill_color = p.background
    return fig


def large_type(fig: Any, large: bool | None = None, dark: bool | None = None) -> Any:
    """Bokeh text sizes for the projector (Bokeh canvases do not follow the page's CSS) and the
    theme's colours (:func:`theme_figure`). Call it after the legend and titles are added."""
    big = is_large() if large is None else large
    base, title, legend = ("18pt", "17pt", "15pt") if big else ("12pt", "13pt", "11pt")
    for axis in (*fig.xaxis, *fig.yaxis):
        axis.axis_label_text_font_size = base
        axis.major_label_text_font_size = base
        axis.axis_label_text_font_style = "normal"
    fig.title.text_font_size = title
    if fig.legend:
        fig.legend.label_text_font_size = legend
    return theme_figure(fig, dark)


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


HEADER_CSS = """
<style>
  .dp-header { display:flex; gap:.4em 1.4em; align-items:center; flex-wrap:wrap;
               font-size:15px; justify-content:flex-end; }
  .dp-header.dp-large { font-size:22px; }
  .dp-header nav, .dp-header .dp-switch { display:flex; gap:.2em .8em; align-items:center;
                                          flex-wrap:wrap; }
  .dp-nav-link { color:#fff; text-decoration:underline; text-underline-offset:3px;
                 padding:2px 4px; border-radius:4px; white-space:nowrap; }
  .dp-nav-link.current { font-weight:700; text-decoration-thickness:3px; }
  .dp-nav-link:focus-visible { outline:3px solid #ffd166; outline-offset:2px; }
  @media (max-width: 760px) {
    .dp-header { justify-content:flex-start; font-size:15px; gap:.2em .8em; }
    .dp-nav-link { padding:6px 4px; display:inline-block; }
  }
</style>"""


def header(lang: str, path: str) -> pn.pane.HTML:
    """Navigation + language + large-type switches (plain links: keyboard operable)."""
    nav = nav_html(lang, path, kept_query(lang))
    langs = " ".join(
        _link(_current_query(lang=code), t(f"common.lang.{code}", lang), current=code == lang,
              onclick=_JS_SET_PARAM.format(k="lang", v=code),
              label=t("common.lang.switch_to", lang, language=t(f"common.lang.{code}", lang)))
        for code in LANGUAGES
    )
    large = is_large()
    size_v = "normal" if large else "large"
    size = _link(_current_query(size=size_v),
                 t("common.size.normal" if large else "common.size.large", lang),
                 onclick=_JS_SET_PARAM.format(k="size", v=size_v))
    dark = is_dark()
    theme_v = "default" if dark else "dark"
    theme = _link(_current_query(theme=theme_v),
                  t("common.theme.light" if dark else "common.theme.dark", lang),
                  onclick=_JS_SET_PARAM.format(k="theme", v=theme_v))
    nav_label = html.escape(t("common.nav.label", lang))
    cls = "dp-header dp-large" if large else "dp-header"
    body = (f'{HEADER_CSS}<div class="{cls}"><nav aria-label="{nav_label}">'
            f'{nav}</nav><span class="dp-switch" role="group" '
            f'aria-label="{html.escape(t("common.lang.label", lang))}">{langs}</span>'
            f'<span class="dp-switch">{size} {theme}</span></div>')
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


_ADDRESS_JS = """
const query = JSON.parse(cb_obj.text || "{}");
const u = new URL(window.location.href);
for (const [k, v] of Object.entries(query)) {
  if (v === "" || v === null) { u.searchParams.delete(k); }
  else { u.searchParams.set(k, String(v)); }
}
if (u.href !== window.location.href) {
  window.history.replaceState(window.history.state, "", u.href);
}
"""


class AddressBar:
    """Keeps the browser's address in step with the page state.

    Panel's ``pn.state.location.update_query`` pushes a history entry on every change (the Back
    button then walks through each slider move) and the browser answers with a second message
    (its new ``href``); a Panel component costs ~1 ms of server CPU per change. Here the query
    travels as the text of a hidden Bokeh ``Div`` that Panel does not watch, inside the patch
    that already carries the new card, and a ``CustomJS`` replaces the address in place; the
    browser sends nothing back (issue 11). Keys set to "" are removed; others are left as they are.
    """

    def __init__(self) -> None:
        from bokeh.models import CustomJS, Div

        self.query: dict[str, str] = {}
        self._div = Div(text="", visible=False, width=0, height=0, margin=0,
                        css_classes=["dp-address"])
        self._div.js_on_change("text", CustomJS(code=_ADDRESS_JS))
        self.pane = pn.pane.Bokeh(self._div, width=0, height=0, margin=0)
        self._loaded = False
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.onload(self._on_load)
        else:
            self._loaded = True

    def _on_load(self) -> None:
        # A change made before the page existed in the browser runs no CustomJS: send it now.
        self._loaded = True
        self._div.text = json.dumps(self.query)

    def update(self, **values: str) -> None:
        """Merge ``values`` into the address (sent only when something changed)."""
        merged = {**self.query, **values}
        if merged == self.query:
            return
        self.query = merged
        if self._loaded:
            self._div.text = json.dumps(merged)


class PageSetup(HtmlLang):
    """``<html lang>`` (as :class:`HtmlLang`), plus what the template lacks:

    - the sidebar toggle becomes a keyboard-operable button with a label and ``aria-expanded``;
    - below ``PHONE_MAX_PX`` the sidebar starts folded (one column on a phone);
    - before printing every ``<details>`` (also inside Panel's shadow roots) is opened, and
      closed again afterwards, so Ctrl+P prints folded tables too.
    """

    sidebar_label = param.String(default="Controls", doc="Accessible name of the sidebar toggle.")
    phone_max = param.Integer(default=PHONE_MAX_PX, bounds=(0, 4000),
                              doc="Widest viewport (px) that starts with the sidebar folded.")

    _esm = """
    function deepAll(sel) {
      const out = [], stack = [document];
      while (stack.length) {
        const root = stack.pop();
        out.push(...root.querySelectorAll(sel));
        for (const el of root.querySelectorAll("*")) {
          if (el.shadowRoot) stack.push(el.shadowRoot);
        }
      }
      return out;
    }
    export function render({ model }) {
      document.documentElement.lang = model.lang;
      model.on("lang", () => { document.documentElement.lang = model.lang; });
      const sb = document.getElementById("sidebar");
      const btn = document.getElementById("sidebar-button");
      if (sb && btn && !btn.dataset.dpReady) {
        btn.dataset.dpReady = "1";
        btn.setAttribute("role", "button");
        btn.tabIndex = 0;
        btn.setAttribute("aria-label", model.sidebar_label);
        btn.setAttribute("aria-controls", "sidebar");
        const sync = () => btn.setAttribute("aria-expanded",
                                            String(!sb.classList.contains("hidden")));
        new MutationObserver(sync).observe(sb, { attributes: true, attributeFilter: ["class"] });
        btn.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); btn.click(); }
        });
        if (window.matchMedia("(max-width: " + model.phone_max + "px)").matches
            && typeof window.closeNav === "function") { window.closeNav(); }
        sync();
      }
      let opened = [];
      const before = () => {
        const closed = deepAll("details:not([open])");
        for (const d of closed) d.open = true;
        opened.push(...closed);
      };
      const after = () => { for (const d of opened) d.open = false; opened = []; };
      window.addEventListener("beforeprint", before);
      window.addEventListener("afterprint", after);
      model.on("remove", () => {
        window.removeEventListener("beforeprint", before);
        window.removeEventListener("afterprint", after);
      });
      return document.createElement("span");
    }
    """


def option_notice(lang: str, bad: list[tuple[str, str]]) -> pn.pane.HTML:
    """The visible notice for unknown page options (same look as the lab's URL notice)."""
    items = "".join(f"<li>{html.escape(t('common.url.bad_option', lang, name=n, value=v))}</li>"
                    for n, v in bad)
    return pn.pane.HTML(
        f'<div class="dp-notice" role="alert"><strong>'
        f'{html.escape(t("common.url.notice_title", lang))}</strong><ul>{items}</ul></div>',
        stylesheets=[".dp-notice { border: 3px solid #d55e00; border-radius: 8px;"
                     " padding: .4em .8em; }"],
        sizing_mode="stretch_width", css_classes=["dp-notices"])


class _Template(pn.template.FastListTemplate):
    """FastListTemplate that ignores an unknown ``?theme=`` (Panel raises KeyError on it) and
    renders its page through :class:`app.first_paint.FirstPaintTemplate` (deferred scripts,
    plus the server-rendered ``first_paint`` fragment when the page gives one)."""

    first_paint = param.String(default="", doc="Trusted HTML shown before the page's "
                               "JavaScript has run (app.first_paint.fragment); '' for none.")
    page_lang = param.Selector(default="", objects=["", *LANGUAGES],
                               doc="The page language, written into <html lang>.")

    @staticmethod
    def _get_theme_from_query_args() -> str | None:
        return option("theme")

    def _init_doc(self, doc: Any = None, comm: Any = None, title: str | None = None,
                  notebook: bool = False, location: Any = True) -> Any:
        from app import first_paint
        from app.first_paint import FirstPaintTemplate

        document = super()._init_doc(doc, comm, title, notebook, location)
        if (first_paint.ENABLED and not notebook
                and not isinstance(document.template, FirstPaintTemplate)):
            document.template = FirstPaintTemplate.wrap(document.template, self.first_paint,
                                                        self.page_lang)
        return document


def page(*, lang: str, title: str, path: str, main: list[Any], sidebar: list[Any] | None = None,
         sidebar_width: int = 380, option_notice_shown: bool = True, first_paint: str = ""
         ) -> pn.template.FastListTemplate:
    """The shared template (see the module docstring).

    ``option_notice_shown=False``: the page shows :func:`bad_options` in its own notice.
    ``first_paint``: an :func:`app.first_paint.fragment` shown until the page's own main area
    is drawn ('' for none).
    """
    _strip_web_fonts()
    _install_mathjax_filter()
    bad = bad_options()
    if bad and option_notice_shown:
        main = [option_notice(lang, bad), *main]
    # One root per area: the template adds every item as a separate document root, and each
    # root re-walks the whole model graph (37 sidebar items cost ~1 s per page load).
    main_root = pn.Column(*main, sizing_mode="stretch_width", margin=0)
    side_root = [pn.Column(*sidebar, sizing_mode="stretch_width", margin=0)] if sidebar else []
    large = is_large()
    head = pn.Row(header(lang, path),
                  PageSetup(lang=lang, sidebar_label=t("common.sidebar.toggle", lang),
                            width=0, height=0, margin=0),
                  sizing_mode="stretch_width", margin=0)
    tmpl = _Template(
        title=title,
        site="dplab",
        site_url="/" + kept_query(lang),
        main=[main_root],
        sidebar=side_root,
        header=[head],
        accent=ACCENT,
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
        # 100 students, issue 11). Off.
        busy_indicator=None,
        first_paint=first_paint,
        page_lang=lang,
    )
    tmpl.config.css_files.append(asset_url("dplab.css"))
    if large:
        tmpl.config.raw_css.append(LARGE_CSS)
    return tmpl
