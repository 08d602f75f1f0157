"""A lab's tie to a room (:class:`RoomLink`, an ``app.shell.follow.PageLink``).

- A student's lab follows: each room state is applied to the lab on its document's next tick
  (``hold``: the card stays concealed until the teacher reveals). In two steps, when the page
  can (``preview_room_snapshot``): the card at once (made once per process for the whole
  class), then the rest of the state (controls, figures) through this process's one
  :class:`SlowLane`, one lab at a time, so the next change's cards overtake it and a lab that
  fell behind gets only the newest state. "Explore on my own"
  (``dp-follow``, a toggle) detaches, "follow again" jumps back to the room's state. The only
  thing a student's session sends to the room is one answer per class question.
- A teacher's lab (``/lab?room=CODE`` opened with the ``dplab_teacher`` cookie) leads: each
  change made there is published as the room's state; changes from another teacher tab are
  applied (the last change wins, both show it). It also shows the counts, "ask the class",
  "reveal" and the live distribution of answers.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Mapping
from typing import Any

import panel as pn

from app.room import channel, codes
from app.room.channel import CardChannel
from app.room.hub import RoomHub, get_hub
from app.room.link_view import ROOM_CSS, LinkView
from app.room.questions import question_text
from app.room.state import Ended, FollowState, RoomMessage, RoomState, sum_counts
from app.shell import assets, widgets
from app.shell.follow import Followable
from app.shell.i18n import t

log = logging.getLogger("dplab.room")
LEADER_POLL_MS = 1000
_RUNNING: set[asyncio.Future[None]] = set()  # the links' store calls in flight
SLOW_STEP_TIMEOUT_S = 2.0  # a document that never runs its callback (a closed tab) is skipped


class SlowLane:
    """Applies the whole room state to the labs whose card was shown first, one lab at a time
    (each on its own document's next tick): a new change's cards, delivered meanwhile, go ahead
    of what is left; each lab gets the newest state once."""

    def __init__(self) -> None:
        self.queue: dict[RoomLink, None] = {}  # insertion-ordered set
        self.task: asyncio.Task[None] | None = None

    def add(self, link: RoomLink) -> None:
        self.queue[link] = None
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while self.queue:
            link = next(iter(self.queue))
            del self.queue[link]
            if link._ever_connected and not link._connected():
                continue  # a closed tab
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

            def step(link: RoomLink = link, done: asyncio.Future[None] = done) -> None:
                try:
                    link._apply_full()
                finally:
                    if not done.done():
                        done.set_result(None)

            try:
                link._in_doc(step)
                await asyncio.wait_for(done, SLOW_STEP_TIMEOUT_S)
            except Exception:
                log.warning("room: a lab could not take the room's state", exc_info=True)


SLOW_LANE = SlowLane()


class RoomLink(LinkView):
    """Leads (teacher) or follows (student) room ``code`` for one lab session (what it shows:
    :class:`app.room.link_view.LinkView`)."""

    def __init__(self, code_text: str | None, *, teacher: bool, hub: RoomHub | None = None,
                 known: RoomState | None = None) -> None:
        self.code = codes.normalise(code_text) or ""
        self.student = not teacher
        self.id = secrets.token_hex(8)  # random, per session: names this lab's publications
        # the student's credential id (app/room/roster.py): one answer per student, not per
        # tab; None (a lab opened after the room was locked): this lab's answers are not taken
        self.student_id: str | None = None
        self.hub = hub or get_hub()
        self.state = FollowState(code=self.code, role="teacher" if teacher else "student")
        self.page: Followable | None = None
        self.lang = "ko"
        self.doc: Any = None
        self._ever_connected = False
        self._publishing = False
        self._republish = False
        self._latest: RoomState | None = None
        self._full: dict[str, Any] | None = None  # a snapshot whose card only is shown yet
        # the room's state as read for this page's first card (app/serve/room_wiring.py hands
        # it over as the message's JSON fields)
        self._known = known
        # (dplab-reconnect.css: the banner says "connection lost" from the browser,
        # app/room/connection.py)
        self.banner = widgets.TextPane("", css_classes=["dp-room-banner"],
                                       stylesheets=[ROOM_CSS, assets.text("dplab-reconnect.css")],
                                       sizing_mode="stretch_width", margin=(0, 0, 6, 0))
        self.toggle: pn.widgets.Toggle | None = None
        self.question_pane = pn.Column(sizing_mode="stretch_width", margin=0,
                                       css_classes=["dp-room-question"], visible=False)
        self.dist = widgets.TextPane("", stylesheets=[ROOM_CSS], sizing_mode="stretch_width",
                                     css_classes=["dp-room-dist-pane"], visible=False)
        self.ask_btn: pn.widgets.Button | None = None
        self.reveal_btn: pn.widgets.Button | None = None
        self._rendered: tuple[Any, ...] | None = None  # what a student's banner shows now
        # a student's card channel (app/room/channel.py) and the room seq it last carried
        self.channel: CardChannel | None = None
        self._pushed = -1
        self._pushed_snap: Mapping[str, Any] | None = None  # the state of that card
        self._views_sent = -1  # the room seq whose views went over the channel last
        self._synced = 0  # states applied through Bokeh since the channel was used

    # ---- PageLink ------------------------------------------------------------------------
    def attach(self, page: Followable) -> list[Any]:
        from app.room import connection
        from app.shell.options import session_flag

        self.page, self.lang = page, page.lang
        self.doc = pn.state.curdoc
        # a dropped connection: the browser says so and reloads (app/room/connection.py)
        card_url = None
        if self.student and self.code:
            channel.register(self)  # the page's card channel may now open
            card_url = channel.url(self.id)
        objects: list[Any] = [self.banner, connection.watch_pane(self.lang, card_url)]
        if self.doc is not None:
            connection.take_over(self.doc)
        if not self.code:
            self.state.status = "unknown"
            self._render()
            return objects
        if self.student:
            # reloaded by the browser while exploring on their own: still on their own
            if session_flag(connection.OWN_ARG[0]) == connection.OWN_ARG[1]:
                self.state.detach()
            self.toggle = pn.widgets.Toggle(
                label=t("room.follow.detach", self.lang), value=self.state.following,
                color="primary", css_classes=["dp-follow"], margin=(0, 0, 6, 0))
            widgets.screen_only(self.toggle)  # not in print
            self.toggle.param.watch(self._on_toggle, "value")
            objects += [self.toggle, self.question_pane]
            page.on_prediction(self._on_prediction)
        else:
            self.ask_btn = pn.widgets.Button(label=t("room.ask", self.lang),
                                             color="primary", css_classes=["dp-room-ask"])
            self.reveal_btn = pn.widgets.Button(label=t("room.reveal", self.lang),
                                                css_classes=["dp-room-reveal"])
            self.ask_btn.on_click(lambda e: self._spawn(self._ask()))
            self.reveal_btn.on_click(lambda e: self._spawn(self.hub.reveal(self.code)))
            objects += [pn.Row(self.ask_btn, self.reveal_btn, margin=(0, 0, 6, 0)), self.dist]
            page.on_room_change(self._on_local_change)
            if self.doc is not None and self.doc.session_context is not None:
                pn.state.add_periodic_callback(lambda: self._spawn(self._poll()),
                                               period=LEADER_POLL_MS)
        latest = self.hub.join(self)
        if self.doc is not None:
            try:
                self.doc.on_session_destroyed(lambda ctx: self._left())
            except Exception:  # a document outside a server session (tests)
                pass
        if latest is None and self._known is not None:
            self._take(self._known)  # what the first card showed, then the newest
            self._spawn(self._fetch())
        elif latest is not None:
            self._take(latest)  # the room's state known here: the page is built with it
        else:
            self._spawn(self._fetch())
        self._render()
        return objects

    def _left(self) -> None:
        self.hub.leave(self)
        SLOW_LANE.queue.pop(self, None)
        channel.unregister(self)
        sock, self.channel = self.channel, None
        if sock is not None:
            sock.close()

    # ---- Member (app/room/hub.py) ----------------------------------------------------------
    def deliver(self, msg: RoomMessage) -> None:
        doc = self.doc
        if self.channel is not None:
            self._push(msg)  # the card now, before any document's turn
            if self._take_outside(msg):
                return
        if doc is None or doc.session_context is None:
            self._take(msg)
            return
        if self._ever_connected and not self._connected():
            return  # a closed tab that Bokeh has not discarded yet
        from panel.io.state import set_curdoc

        def run() -> None:
            with set_curdoc(doc):
                self._take(msg)

        doc.add_next_tick_callback(run)

    def _take_outside(self, msg: RoomMessage) -> bool:
        """Take a teacher's move without the document when the page already shows it from the
        channel and nothing its session shows changes (same question, still live and
        following): what :meth:`_take` would do then is note the sequence number and the
        snapshot for later. True when taken. Why: each follower's document callback
        (Bokeh's next-tick machinery, the lock, the banner's check) was ~half of a worker's
        CPU per move in a following class (py-spy, ``classroom_load.py follow --students
        300``, 2026-12-07), and it ran while the cards were still on their way."""
        st = self.state
        if (not isinstance(msg, RoomState) or not self.student or self.page is None
                or self._pushed < msg.seq or msg.seq < st.seq or not st.follows
                or msg.question != st.question):
            return False
        q = st.question
        if ((q is None or q.id != st.answered_id)
                and (st.answered != -1 or st.answered_id or st.answer_result)):
            return False  # (an answer to clear: the banner changes)
        self._latest = msg
        if st.seq != msg.seq:
            st.seq = msg.seq  # (no watcher: the banner does not show it)
        if self._pushed == msg.seq:
            self._full = self._shown_snap(msg)
        SLOW_LANE.queue.pop(self, None)
        return True

    def _shown_snap(self, msg: RoomState) -> dict[str, Any]:
        """``msg``'s snapshot as this lab applies it: with the open question's id."""
        snap = dict(msg.snap)
        q = self.state.question
        snap["question"] = q.id if q else ""
        return snap

    def push_card(self, msg: RoomMessage) -> bool:
        """Send ``msg``'s card over the channel now, if this lab shows it from there; True when
        it did (the hub then calls :meth:`push_views`). The hub calls this for every lab of the
        process before any :meth:`deliver`, so no follower's card waits for another's document
        work, and sends the views in one pass after every card."""
        return self.channel is not None and self._push(msg, views=False)

    def push_views(self) -> None:
        """The rest of the view of the newest state whose card :meth:`push_card` sent (once:
        a pass scheduled for an older state sends the newer one's, so a teacher's drag
        updates the figures as it goes)."""
        sock = self.channel
        if sock is not None and self._pushed_snap is not None and self._views_sent < self._pushed:
            self._push_views(sock, self._pushed, self._pushed_snap)

    def _push(self, msg: RoomMessage, *, views: bool = True) -> bool:
        """Send a state's card over the channel when the page may show it alone (a following
        student, a state no older than the last, no tour step or concealment); with ``views``
        the rest of the view follows on the next loop turn."""
        st, page, sock = self.state, self.page, self.channel
        if (sock is None or page is None or not hasattr(page, "channel_views")
                or not isinstance(msg, RoomState) or not self.student or not st.follows):
            return False
        seq = msg.seq
        if seq < st.seq or seq <= self._pushed:
            return False
        snap = msg.snap
        card = page.preview_html(snap)
        if card is None or not sock.push(channel.card_frame(seq, card)):
            return False
        self._pushed, self._pushed_snap = seq, snap
        if views:
            # The views (made once per process and state, ~10 ms for the first follower)
            # after the card.
            from tornado.ioloop import IOLoop

            IOLoop.current().add_callback(self._push_views, sock, seq, snap)
        return True

    def _push_views(self, sock: CardChannel, seq: int, snap: Mapping[str, Any]) -> None:
        page = self.page
        if page is None or sock is not self.channel or seq != self._pushed:
            return  # the channel closed, or a newer state's card went out meanwhile
        views = page.channel_views(snap)
        if views is not None and sock.push(channel.frame(seq, views)):
            self._views_sent = seq

    def store_status(self, ok: bool) -> None:
        def run() -> None:
            if not ok and self.state.status == "live":
                self.state.status = "lost"
            elif ok and self.state.status == "lost":
                self.state.status = "live"
                if self.state.role == "teacher":
                    self._on_local_change()  # what was changed meanwhile reaches the class
            self._render()

        self._in_doc(run)

    def counts(self) -> tuple[int, int]:
        c = 1 if self._connected() else 0
        return c, c if (self.state.following and self.state.status in ("live", "lost")) else 0

    # ---- internals -------------------------------------------------------------------------
    def _in_doc(self, fn: Any) -> None:
        doc = self.doc
        if doc is None or doc.session_context is None:
            fn()
            return
        from panel.io.state import set_curdoc

        def run() -> None:
            with set_curdoc(doc):
                fn()

        doc.add_next_tick_callback(run)

    def _connected(self) -> bool:
        ctx = getattr(self.doc, "session_context", None)
        session = getattr(ctx, "_session", None)
        n = int(getattr(session, "connection_count", 0) or 0)
        if n > 0:
            self._ever_connected = True
        return n > 0

    def _spawn(self, coro: Any) -> None:
        async def guarded() -> None:
            try:
                await coro
            except Exception as exc:
                from app.room.store import StoreDown

                if isinstance(exc, StoreDown):
                    self.store_status(False)
                else:
                    log.warning("room: %s", type(exc).__name__, exc_info=True)

        task = asyncio.ensure_future(guarded())
        _RUNNING.add(task)
        task.add_done_callback(_RUNNING.discard)

    async def _fetch(self) -> None:
        msg = await self.hub.room_state(self.code)
        if msg is None:
            def gone() -> None:
                self.state.status = "unknown"
                self._render()

            self._in_doc(gone)
            self.hub.leave(self)
            return
        self.deliver(msg)

    def _take(self, msg: RoomMessage) -> None:
        """Apply a room message to this lab (inside its document)."""
        page = self.page
        if page is None:
            return
        if isinstance(msg, RoomState):
            self._latest = msg
        show = self.state.accept(msg)
        if isinstance(msg, Ended):
            self._apply_full()
            self.hub.leave(self)
            page.apply_room_snapshot(page.room_snapshot(), hold=False)
        elif show and not (self.state.role == "teacher" and msg.origin == self.id):
            snap = self._shown_snap(msg)
            seq = msg.seq
            if self.student and self._pushed >= seq:
                # The page shows the state from the channel: this session takes it only when
                # it needs it (the student detaches, a tour step, the channel closes). (A
                # newer card than this message already went: nothing of it to show.)
                if self._pushed == seq:
                    self._full = snap
                SLOW_LANE.queue.pop(self, None)
            elif self.student and self._preview(snap):
                self._full = snap
                SLOW_LANE.add(self)
            else:
                self._full = None
                self._bokeh_apply(snap)
        self._render()

    def _bokeh_apply(self, snap: Mapping[str, Any]) -> None:
        """Apply ``snap`` to this session; a page that showed states from the channel is told
        to drop them (the banner's ``data-synced``, assets/dplab-room-card.js)."""
        page = self.page
        if page is None:
            return
        page.apply_room_snapshot(snap, hold=self.student)
        if self._pushed >= 0:
            self._synced += 1

    def channel_closed(self) -> None:
        """The page's channel closed: a state it showed from there comes through Bokeh."""
        self.channel = None
        if self._full is not None:
            SLOW_LANE.add(self)

    def _preview(self, snap: Mapping[str, Any]) -> bool:
        page = self.page
        preview = getattr(page, "preview_room_snapshot", None)
        if preview is None:
            return False
        if self.doc is None or self.doc.session_context is None:
            return bool(preview(snap))
        with pn.io.unlocked():  # the card leaves now, ahead of the rest
            return bool(preview(snap))

    def _apply_full(self) -> None:
        """The rest of a snapshot whose card (or whole view) was shown first (nothing when
        none waits)."""
        snap, self._full = self._full, None
        if snap is not None:
            self._bokeh_apply(snap)

    def _on_toggle(self, event: Any) -> None:
        page = self.page
        if page is None:
            return
        if event.new:
            if self.state.reattach() and self._latest is not None:
                self.state.seq = -1
                # the page shows its own state: the session takes the room's
                self._pushed, self._views_sent = -1, -1
                self._take(self._latest)
            self._spawn(self._fetch())  # and the newest state
        else:
            self._apply_full()  # the student explores from where the class is
            self.state.detach()
            page.apply_room_snapshot(page.room_snapshot(), hold=False)
        self._render()

    def _on_prediction(self, option: int) -> None:
        q = self.state.question
        page = self.page
        if q is None or q.kind != "tour" or page is None:
            return
        current = page.prediction()
        if current is None or current[0] != q.ref:
            return
        self._answer(option)

    def _answer(self, option: int) -> None:
        q = self.state.question
        if q is None or not self.state.may_answer(option):
            return
        if self.student_id is None:
            self.state.answer_refused = True
            self._render()
            return
        self.state.record_answer(option)
        self._spawn(self._send_answer(q.id, self.student_id, option))
        self._render()

    async def _send_answer(self, qid: str, student: str, option: int) -> None:
        result, on_record = await self.hub.answer(self.code, qid, student, option)
        if result == "ok":
            return

        def show() -> None:  # another tab of this student answered first: show that answer
            if self.state.answered_id == qid:
                self.state.answer_result = result
                if on_record >= 0:
                    self.state.answered = on_record
            self._render()

        self._in_doc(show)

    def _on_local_change(self) -> None:
        if self.state.role != "teacher" or self.state.status not in ("live", "lost"):
            return
        if self._publishing:
            self._republish = True
            return
        self._publishing = True
        self._spawn(self._publish())

    async def _publish(self) -> None:
        try:
            while True:
                self._republish = False
                page = self.page
                if page is None:
                    return
                await self.hub.publish(self.code, page.room_snapshot(), self.id)
                if not self._republish:
                    return
        finally:
            self._publishing = False

    async def _ask(self) -> None:
        page = self.page
        pred = page.prediction() if page is not None else None
        if pred is None:
            return
        qt = question_text("tour", pred[0], self.lang)
        await self.hub.publish(self.code, page.room_snapshot(), self.id)  # type: ignore[union-attr]
        await self.hub.ask(self.code, "tour", pred[0], pred[1], qt.answer if qt else None)

    async def _poll(self) -> None:
        """Teacher's lab: the counts and the distribution of answers, once a second."""
        import time

        if self.state.status not in ("live", "lost"):
            return
        workers = await self.hub.store.hgetall(self.code, "workers")
        q = self.state.question
        counts = await self.hub.counts_of(self.code, q) if q else []
        connected, following = sum_counts(workers, time.time())

        def show() -> None:
            self._counts = (connected, following)
            self._dist_counts = counts
            self._render()

        self._in_doc(show)


def link_for_session(code_text: str | None, teacher: bool,
                     known: RoomState | None = None,
                     student: str | None = None) -> RoomLink:
    """The link for a ``/lab?room=CODE`` session (``teacher``: the request had a valid
    ``dplab_teacher`` cookie; ``known``: the room's state message as read for the page's first
    card; ``student``: the id of the request's student credential, app/room/roster.py)."""
    link = RoomLink(code_text, teacher=teacher, known=known)
    link.student_id = student
    return link
