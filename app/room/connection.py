"""A page of the live class says when it loses the server, and comes back by itself.

The work is done in the browser (assets/dplab-reconnect.js), since the server can no longer
update a page whose connection is gone; here is what the script is given: the messages in the
page's language and the address of the health route, in a hidden ``.dp-conn-data`` element
(:func:`data_html`).

- A lab in a room (``/lab?room=CODE``, app/room/link.py): :func:`watch_pane` joins the lab with
  the script, and :func:`take_over` turns BokehJS's own reconnection off for that document
  (Bokeh's ``DocumentConfig``): a session lives in one worker, and a killed worker's students
  would reconnect to a worker that has never heard of their session. BokehJS still fires its
  ``connection_lost`` event; the script then puts "lost" in the room banner (role=alert), asks
  ``/healthz`` with backoff until a worker answers, and reloads the page at the room's state,
  keeping the student's mode: exploring on their own goes back with ``follow=own`` in the
  address (:data:`OWN_ARG`, read by RoomLink.attach), following goes back to the room alone
  (a page built ahead can take that address).
- The class page (``/join?room=CODE``, app/room/pages.py): assets/dplab-poll.js tells the script
  whether each refresh reached the class; a network error or a 5xx says "lost", the next answer
  says "back".
"""

from __future__ import annotations

import html
from typing import Any

from app.shell.assets import asset_url
from app.shell.i18n import t
from app.shell.urls import href

SCRIPT = "dplab-reconnect.js"
CSS = "dplab-reconnect.css"
#: ``/lab?room=CODE&follow=own``: the student was exploring on their own when the page reloaded.
OWN_ARG = ("follow", "own")
# The messages the script shows (conn.<key>); data-msg-<key with "_" and "." as "-">.
KEYS = ("word.lost", "word.back", "lab.lost", "lab.lost_lead", "lab.lost_alone",
        "lab.back_follow", "lab.back_own", "lab.back", "offline", "next", "trying", "now",
        "class.lost", "class.back")


def data_html(lang: str, kind: str) -> str:
    """The hidden element the script reads (``kind``: "lab" or "class")."""
    if kind not in ("lab", "class"):
        raise ValueError(f"kind must be lab or class, got {kind!r}")
    attrs = " ".join(
        f'data-msg-{k.replace(".", "-").replace("_", "-")}="{html.escape(t(f"conn.{k}", lang))}"'
        for k in KEYS)
    return (f'<div class="dp-conn-data" hidden data-kind="{kind}" lang="{html.escape(lang)}" '
            f'data-health="{html.escape(href("/healthz"))}" {attrs}></div>')


def script_url() -> str:
    return href(asset_url(SCRIPT))


def css_url() -> str:
    return href(asset_url(CSS))


def watch_pane(lang: str, card_channel: str | None = None) -> Any:
    """The lab's part: the data and the script, in a pane of no size (rendered once).
    ``card_channel``: a following student's card channel (app/room/channel.py), opened by
    assets/dplab-room-card.js."""
    import panel as pn

    from app.room import channel

    body = data_html(lang, "lab") + f'<script src="{html.escape(script_url())}"></script>'
    if card_channel:
        src = href(asset_url(channel.SCRIPT))
        body += (f'<div class="dp-card-channel" hidden data-url="{html.escape(card_channel)}">'
                 f'</div><script src="{html.escape(src)}"></script>')
    return pn.pane.HTML(body, width=0, height=0, margin=0, css_classes=["dp-conn-watch"])


def take_over(doc: Any) -> None:
    """BokehJS neither reconnects ``doc`` by itself nor shows its own (English) notice: the
    script reloads the page instead (see the module docstring)."""
    config = getattr(doc, "config", None)
    if config is None:
        return
    config.reconnect_session = False
    config.notify_connection_status = False
