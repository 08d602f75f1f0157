"""The /lab card rendered by the server for the page's first paint (app.shell.first_paint).

The card is the live card's own text (:func:`app.lab.card.card_html` from the same state), laid
out where :meth:`app.lab.page.LabPage.main` will place it. The controls come with it
(:func:`app.lab.controls.first_paint_controls`: they say "connecting" and keep what the student
does until the live ones take it over); their script moves them into the sidebar as soon as
its HTML has come, and until then this style sheet puts them at the sidebar's place.
"""

from __future__ import annotations

import functools
import html

from app.lab import controls
from app.lab.card import CARD_CSS, PROJECTOR_CSS, card_html, card_theme_css
from app.lab.state import LabState
from app.shell import assets, first_paint, theme
from app.shell import template as layout
from app.shell.i18n import pick_language, t

# The server-rendered card of the first paint (LabPage.first_paint): where the live card will be.
FIRST_PAINT_CSS = assets.text("dplab-lab-first-paint.css")


def first_paint_html(state: LabState, lang: str, *, large: bool, dark: bool,
                     card: str | None = None) -> str:
    """The /lab first-paint fragment for ``state``: the certification card exactly as
    :meth:`LabPage.refresh_card` writes it (``card``, when the page has it already), laid out
    as :meth:`LabPage.main` places it."""
    if card is None:
        card = card_html(state, state.certification(), lang, folded=large)
    # The intro, below the room of the tour's start button (both above the card in main()).
    intro = "" if large else ('<div class="dp-first-paint-spacer"></div><p class="dp-intro">'
                              f'{html.escape(t("lab.intro", lang))}</p>')
    side = controls.first_paint_controls(state, lang, large=large, dark=dark)
    body = (f'{side}{intro}<div class="dp-first-paint-row"><div class="dp-first-paint-card">'
            f'{card}</div><div class="dp-first-paint-rest"></div></div>')
    return first_paint.fragment(body, css=first_paint_css(large, dark),
                                loading=t("lab.first_paint.loading", lang),
                                failed=t("lab.first_paint.failed", lang),
                                label=t("lab.first_paint.label", lang),
                                classes="dp-large" if large else "")


@functools.cache
def first_paint_css(large: bool, dark: bool) -> str:
    pal = theme.palette(dark)
    # Until the page's own style sheets arrive (a streamed first paint): its font and colours,
    # and the card where the main area will start (sidebar 480/380 px; on phones the header
    # wraps and the sidebar is folded).
    sidebar = 480 if large else 380
    early = (f".dp-first-paint {{ font-family: {layout.FONT_STACK}; color: {pal.text}; }}\n"
             f".dp-first-paint-early {{ background: {pal.background}; min-height: 100vh;\n"
             f"  padding-left: calc({sidebar}px + 42px); }}\n"
             f"@media (max-width: {layout.PHONE_MAX_PX}px) {{\n"
             f"  .dp-first-paint-early {{ padding-left: 16px; padding-top: 170px; }} }}")
    # The controls' copy: at the sidebar's place below the header until the sidebar's HTML has
    # come (then its script moves it there); none on a phone, where the sidebar starts folded.
    side = (f".dp-first-paint-early #{controls.FIRST_PAINT_ID} {{ position: absolute; left: 0;\n"
            f"  top: 64px; width: {sidebar}px; box-sizing: border-box; padding: 15px 13px 0 5px;"
            f" }}\n"
            f"@media (max-width: {layout.PHONE_MAX_PX}px) {{\n"
            f"  #{controls.FIRST_PAINT_ID} {{ display: none; }} }}")
    return "\n".join([CARD_CSS, card_theme_css(pal), *([PROJECTOR_CSS] if large else []),
                      FIRST_PAINT_CSS, early, controls.first_paint_css(), side])


def early_first_paint(args: dict[str, str], accept_language: str | None
                      ) -> first_paint.Early | None:
    """What /lab can show before its page is built (app/shell/first_paint.py streams it first);
    None when the page would show no first card (the guided tour conceals it)."""
    if args.get("tour"):
        return None
    lang = pick_language(args.get("lang"), accept_language)
    large = args.get("size") == "large"
    dark = args.get("theme") == "dark"
    state = LabState()
    state.apply_url(args)
    key = ("/lab", lang, "large" if large else "normal", "dark" if dark else "default")
    return first_paint.Early(key, first_paint_html(state, lang, large=large, dark=dark), lang)
