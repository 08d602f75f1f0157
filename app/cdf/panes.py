"""Text panes of /cdf: the shared card look plus the page's own style sheet (both in assets/)."""

from __future__ import annotations

from typing import Any

from app.cdf import views
from app.shell import assets, theme, widgets


def text_pane(text: str = "", **kw: Any) -> widgets.TextPane:
    """A full-width :class:`app.shell.widgets.TextPane` with the card and /cdf style sheets (and
    the dark theme's text colours when the session asked for theme=dark)."""
    kw.setdefault("sizing_mode", "stretch_width")
    sheets = [assets.text("dplab-card.css"), views.CSS]
    if theme.is_dark():
        sheets.append(assets.text("dplab-cdf-dark.css"))
    return widgets.TextPane(text, stylesheets=sheets, **kw)
