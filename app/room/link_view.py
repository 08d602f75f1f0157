"""What a lab in a room shows (the view half of :class:`app.room.link.RoomLink`): the banner
that says which mode the lab is in (following, exploring on its own, leading, lost, ended) with
the answer on record and the class page's link; a student's quiz question and its option
buttons; a teacher's "ask" and "reveal" buttons and the live distribution of answers. It reads
the link's :class:`app.room.state.FollowState` and writes the link's panes; every text is
escaped here."""

from __future__ import annotations

import functools
import html
from typing import Any
from urllib.parse import urlencode

import panel as pn

from app.room.questions import question_text
from app.room.render import distribution_html
from app.room.state import FollowState
from app.shell import assets, widgets
from app.shell.follow import Followable
from app.shell.i18n import t
from app.shell.urls import href

ROOM_CSS = assets.text("dplab-room-lab.css") + "\n" + assets.text("dplab-room-dist.css")


class LinkView:
    """Renders a room link's panes from its state (RoomLink makes the panes in ``attach``)."""

    state: FollowState
    lang: str
    page: Followable | None
    banner: widgets.TextPane
    toggle: pn.widgets.Toggle | None
    question_pane: pn.Column
    dist: widgets.TextPane
    ask_btn: pn.widgets.Button | None
    reveal_btn: pn.widgets.Button | None
    _rendered: tuple[Any, ...] | None  # what a student's banner shows now
    _synced: int  # states applied through Bokeh since the channel was used

    def _answer(self, option: int) -> None:
        """Send this student's answer (RoomLink)."""
        raise NotImplementedError

    def _on_option(self, option: int, _event: Any) -> None:
        self._answer(option)

    def _render(self) -> None:
        st, lang = self.state, self.lang
        if st.role == "student":
            # A follower renders on every teacher move; what it shows changes far less often
            # (a quiz's buttons were made again each time): skipped when nothing it reads did.
            reads = (st.status, st.following, st.code, repr(st.question), st.answered,
                     st.answered_id, st.answer_result, st.answer_refused, st.follows, lang,
                     self.toggle is not None, self._synced)
            if reads == self._rendered:
                return
            self._rendered = reads
        code = html.escape(st.code or "")
        text = t(st.banner_key(), lang, code=code)
        extra = ""
        q = st.question
        qt = question_text(q.kind, q.ref, lang) if q else None
        if st.role == "teacher" and st.status in ("live", "lost"):
            c, f = getattr(self, "_counts", (0, 0))
            room = href(f"/teach?room={st.code}&lang={lang}")
            extra = (f' <span class="dp-room-count">'
                     f'{html.escape(t("room.count", lang, connected=c, following=f))}</span>'
                     f' <a href="{html.escape(room)}" target="_blank" rel="noopener">'
                     f'{html.escape(t("room.open_room_page", lang))}</a>')
        elif st.follows and q is not None and not q.revealed:
            if st.answer_refused:
                extra = " " + html.escape(t("roster.lab_locked", lang))
            elif st.answer_result == "full":
                extra = " " + html.escape(t("roster.full", lang))
            elif st.answered >= 0 and st.answered_id == q.id and qt is not None:
                answer = qt.options[st.answered] if st.answered < len(qt.options) else "?"
                key = "roster.already_sent" if st.answer_result == "already" else \
                    "room.answered"
                extra = " " + html.escape(t(key, lang, answer=answer, sent=answer))
            elif q.kind == "tour":
                extra = " " + html.escape(t("room.asked_tour", lang))
            else:
                extra = " " + html.escape(t("room.asked_quiz", lang))
        if st.role == "student" and st.status == "live":  # polls and the class CDF live there
            page = href("/join") + "?" + urlencode({"room": st.code or "", "lang": lang})
            label = html.escape(t("poll.lab.class_page", lang))
            extra += (f' <a class="dp-room-class-page" href="{html.escape(page)}" '
                      f'target="_blank" rel="noopener">{label}</a>')
        cls = f"dp-room-banner-inner dp-room-{st.status}"
        if st.status == "live" and st.role == "student" and not st.following:
            cls += " dp-room-own"
        role = ' role="alert"' if st.status in ("lost", "ended", "unknown") else ' role="status"'
        # how the page goes back if its connection drops (assets/dplab-reconnect.js)
        mode = ("alone" if st.status in ("ended", "unknown") else "lead" if st.role == "teacher"
                else "follow" if st.following else "own")
        self.banner.object = (f'<div class="{cls}"{role} data-mode="{mode}" '
                              f'data-synced="{self._synced}">'
                              f'<p>{html.escape(text)}{extra}</p></div>')
        if self.toggle is not None:
            following = st.following
            self.toggle.label = t("room.follow.detach" if following else "room.follow.again",
                                  lang)
            if self.toggle.value != following:
                self.toggle.value = following
            self.toggle.visible = st.status in ("live", "lost")
            self.toggle.color = "primary" if following else "default"
        if st.role == "student":
            self._render_quiz(qt)
        else:
            self._render_leader(qt)

    def _render_quiz(self, qt: Any) -> None:
        st, q = self.state, self.state.question
        show = (q is not None and q.kind == "quiz" and st.follows and qt is not None
                and (not q.revealed or st.answered >= 0))
        if not show:
            if self.question_pane.visible:
                self.question_pane.visible = False
                self.question_pane.objects = []
            return
        lang = self.lang
        head = widgets.TextPane(f'<p class="dp-room-qtext"><strong>'
                                f'{html.escape(t("room.quiz_heading", lang))}</strong> '
                                f"{html.escape(qt.text)}</p>", stylesheets=[ROOM_CSS],
                                sizing_mode="stretch_width", margin=0)
        items: list[Any] = [head]
        if q is not None and q.revealed and qt.answer is not None:
            items.append(widgets.TextPane(
                f'<p class="dp-room-right">{html.escape(t("room.right_answer", lang, answer=qt.options[qt.answer]))}</p>',  # noqa: E501
                stylesheets=[ROOM_CSS], margin=0, sizing_mode="stretch_width"))
        elif st.answered < 0:
            for i, o in enumerate(qt.options):
                b = pn.widgets.Button(label=o, css_classes=["dp-room-option",
                                                           f"dp-room-option-{i}"],
                                      margin=(2, 6, 2, 0))
                b.on_click(functools.partial(self._on_option, i))
                items.append(b)
        self.question_pane.objects = items
        self.question_pane.visible = True

    def _render_leader(self, qt: Any) -> None:
        st, q = self.state, self.state.question
        page = self.page
        if self.ask_btn is None or self.reveal_btn is None:
            return
        live = st.status in ("live", "lost")
        self.ask_btn.disabled = not live or page is None or page.prediction() is None or (
            q is not None and not q.revealed)
        self.reveal_btn.disabled = not live
        if q is None:
            self.dist.visible = False
            return
        counts = getattr(self, "_dist_counts", []) or [0] * q.n
        self.dist.object = distribution_html(qt, counts, q.revealed, self.lang)
        self.dist.visible = True
