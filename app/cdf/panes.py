"""Text panes of /cdf: the shared card look plus the page's own style sheet (both in assets/)."""

from __future__ import annotations

from typing import Any

from app.cdf import views
from app.shell import assets, widgets


def text_pane(text: str = "", **kw: Any) -> widgets.TextPane:
    """A full-width :class:`app.shell.widgets.TextPane` with the card and /cdf style sheets."""
    kw.setdefault("sizing_mode", "stretch_width")
    return widgets.TextPane(text, stylesheets=[assets.text("dplab-card.css"), views.CSS], **kw)
