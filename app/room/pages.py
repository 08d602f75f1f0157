"""The live class's plain pages (Tornado handlers, no Bokeh session): ``/teach``, ``/join``.

- ``GET /teach``: the token form (field ``token``); with a valid ``dplab_teacher`` cookie, a
  "start a class" button instead. ``POST /teach`` with the right token (or the cookie and its
  form token) creates a room: ``303`` to ``/teach?room=CODE`` and the cookie (HttpOnly,
  SameSite=Strict). A wrong token: 403 with a message; too many: 429.
- ``GET /teach?room=CODE`` (cookie): the room page: the code (``dp-room-code``), the join
  address and its QR code, the counts (``dp-room-count``), the buttons (open the projected
  lab, start the tour, ask the class, reveal, end the class) and the live distribution of the
  answers (assets/dplab-teach.js polls ``GET /teach/api/rooms/CODE``).
- ``POST /teach/rooms/CODE/<action>``: the buttons (cookie + form token + same origin).
- ``GET /join``: type the code; ``/join?room=CODE`` leads to ``/lab?room=CODE``; an unknown
  code says so (rate-limited per client).
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import threading
from typing import Any
from urllib.parse import urlencode, urlsplit

import tornado.web

from app.room import channel, codes, guard, poll_pages, roster, teach_view, tokens
from app.room.hub import get_hub
from app.room.poll import PollError
from app.room.questions import question_text, quiz_refs
from app.room.render import distribution_html, qr_svg
from app.room.store import StoreDown
from app.shell import html as shell_html
from app.shell.assets import asset_url
from app.shell.i18n import t
from app.shell.urls import href

log = logging.getLogger("dplab.room")
ACTIONS = ("tour", "ask", "quiz", "reveal", "end")
ROSTER_ACTIONS = ("lock", "unlock", "size")


class _Base(tornado.web.RequestHandler):
    def initialize(self, https: bool = False) -> None:
        self.https = https

    def opts(self) -> tuple[str, dict[str, str], list[str]]:
        args = {k: self.get_query_argument(k) for k in self.request.query_arguments
                if k in ("lang", "size", "theme")}
        return shell_html.options(args, self.request.headers.get("Accept-Language"))

    def client(self) -> str:
        # Behind serve-prod's HAProxy (loopback) the client is its X-Forwarded-For entry.
        return tokens.client_address(self.request.remote_ip,
                                     self.request.headers.get_list("X-Forwarded-For"))

    def is_teacher(self) -> bool:
        return tokens.check_cookie(self.get_cookie(tokens.COOKIE))

    def same_origin(self) -> bool:
        origin = self.request.headers.get("Origin")
        if not origin or origin == "null":
            return origin is None
        return urlsplit(origin).netloc == self.request.host

    def page(self, status: int, lang: str, kept: dict[str, str], notices: list[str],
             path: str, title: str, body: str, extra: dict[str, str] | None = None,
             scripts: tuple[str, ...] = ()) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(shell_html.document(
            lang=lang, kept=kept, notices=notices, path=path, title=title, body=body,
            extra_query=extra, css=[asset_url("dplab-room.css"), asset_url("dplab-room-dist.css"),
                                    asset_url("dplab-poll.css"), asset_url("dplab-reconnect.css")],
            scripts=scripts))

    def query(self, lang: str, kept: dict[str, str], **more: str) -> str:
        return "?" + urlencode({**more, "lang": lang, **kept})


def _e(text: str) -> str:
    return html.escape(text)


class TeachHandler(_Base):
    async def head(self) -> None:
        # Uptime monitors: the sign-in page's status and headers; never a new room.
        lang, kept, notices = self.opts()
        self.login(200, lang, kept, notices)

    async def get(self) -> None:
        lang, kept, notices = self.opts()
        quiz_ready()  # start building the quiz list while the instructor signs in
        room = self.get_query_argument("room", None)
        if self.get_query_argument("ended", None):
            notices = [*notices, t("room.teach.ended", lang)]
        if self.get_query_argument("note", None) == "ask":
            notices = [*notices, t("room.ask_needs_step", lang)]
        if not self.is_teacher():
            self.login(200, lang, kept, notices)
            return
        if room is None:
            self.start_page(lang, kept, notices)
            return
        code = codes.normalise(room)
        try:
            msg = await get_hub().room_state(code) if code else None
        except StoreDown:
            self.page(503, lang, kept, notices, "/teach", t("room.teach.title", lang),
                      f'<p role="alert">{_e(t("room.store_down", lang))}</p>')
            return
        try:
            retry = code is not None and msg is None and await get_hub().being_restored(code)
        except StoreDown:
            retry = True
        if retry:  # the store restarted: the room is being written back
            self.page(503, lang, kept, notices, "/teach", t("room.teach.title", lang),
                      f'<p role="alert">{_e(t("room.store_down", lang))}</p>')
            return
        if code is None or msg is None:
            self.start_page(lang, kept, [*notices, t("room.teach.no_room", lang)], status=404)
            return
        await self.room_page(code, lang, kept, notices)

    def login(self, status: int, lang: str, kept: dict[str, str], notices: list[str],
              error: str = "") -> None:
        err = (f'<p class="dp-room-error" id="dp-token-error" role="alert">{_e(error)}</p>'
               if error else "")
        described = ' aria-describedby="dp-token-error" aria-invalid="true"' if error else ""
        body = (f'<section class="dp-room-login"><h1>{_e(t("room.teach.title", lang))}</h1>'
                f'<p>{_e(t("room.teach.intro", lang))}</p>'
                f'<form method="post" action="{_e(href("/teach") + self.query(lang, kept))}" '
                f'class="dp-room-form">'
                f'<label for="dp-token">{_e(t("room.teach.token", lang))}</label>'
                f'<input id="dp-token" name="token" type="password" autocomplete="current-password"'
                f' required{described}>{err}'
                f'<button type="submit" class="dp-room-btn dp-room-primary">'
                f'{_e(t("room.teach.create", lang))}</button></form>'
                f'<p class="dp-room-small">{_e(t("room.teach.where", lang))}</p></section>')
        self.page(status, lang, kept, notices, "/teach", t("room.teach.title", lang), body)

    def start_page(self, lang: str, kept: dict[str, str], notices: list[str],
                   status: int = 200) -> None:
        cookie = self.get_cookie(tokens.COOKIE) or ""
        body = (f'<section class="dp-room-login"><h1>{_e(t("room.teach.title", lang))}</h1>'
                f'<p>{_e(t("room.teach.signed_in", lang))}</p>'
                f'<form method="post" action="{_e(href("/teach") + self.query(lang, kept))}">'
                f'<input type="hidden" name="csrf" value="{_e(tokens.csrf_token(cookie))}">'
                f'<button type="submit" class="dp-room-btn dp-room-primary">'
                f'{_e(t("room.teach.create", lang))}</button></form></section>')
        self.page(status, lang, kept, notices, "/teach", t("room.teach.title", lang), body)

    def query(self, lang: str, kept: dict[str, str], **more: str) -> str:
        # The presenter panel in large type (``size=large&panel=1``) stays the panel after
        # each of its buttons (without ``panel`` a large room page is the projector).
        if self.get_query_argument("panel", "") == "1" and "panel" not in more:
            more = {**more, "panel": "1"}
        return super().query(lang, kept, **more)

    async def room_page(self, code: str, lang: str, kept: dict[str, str],
                        notices: list[str], errors: dict[str, str] | None = None,
                        form: dict[str, str] | None = None, status: int = 200) -> None:
        """The projector (``size=large``) or the presenter panel (otherwise, and with
        ``panel=1``): app/room/teach_view.py."""
        data = await teach_view.gather(code)
        addr = teach_view.join_address(self.request.protocol, self.request.host, code)
        links = teach_view.urls(code, lang, kept)
        title = t("room.page_title", lang, code=code)
        if kept.get("size") == "large" and self.get_query_argument("panel", "") != "1":
            body = teach_view.projector_body(data, addr, lang, links["panel"], links["api"])
            self.page(status, lang, kept, notices, "/teach", title, body, extra={"room": code},
                      scripts=(asset_url("dplab-teach.js"),))
            return
        view = data.view
        cookie = self.get_cookie(tokens.COOKIE) or ""
        csrf = tokens.csrf_token(cookie)
        lab = href("/lab") + "?" + urlencode({"room": code, "lang": lang, "size": "large"})

        def url(name: str) -> str:
            return href(f"/teach/rooms/{code}/{name}") + self.query(lang, kept)

        def action(name: str, label: str, cls: str = "", extra: str = "") -> str:
            return (f'<form method="post" class="dp-room-action" action="{_e(url(name))}">'
                    f'<input type="hidden" name="csrf" value="{_e(csrf)}">{extra}'
                    f'<button type="submit" class="dp-room-btn dp-room-{name}-btn {cls}">'
                    f"{_e(label)}</button></form>")

        if quiz_ready():
            quiz_opts = "".join(
                f'<option value="{_e(ref)}">{_e(_quiz_label(ref, lang))}</option>'
                for ref in quiz_refs())
            quiz_select = (f'<label for="dp-room-quiz">{_e(t("room.quiz.label", lang))}</label>'
                           f'<select id="dp-room-quiz" name="ref">{quiz_opts}</select>')
            quiz_html = action("quiz", t("room.quiz.ask", lang), "", quiz_select)
        else:  # not yet built: the page does not wait for it
            quiz_html = (f'<p class="dp-room-small dp-room-quiz-loading">'
                         f'{_e(t("room.quiz.loading", lang))}</p>')
        q = view.question
        qt = question_text(q.kind, q.ref, lang) if q else None
        count = teach_view.counts_text(data, lang)
        step = int((view.snap or {}).get("tour") or 0)
        step_text = t("room.step", lang, step=step) if step else t("room.no_step", lang)
        panel = {"panel": "1"} if self.get_query_argument("panel", "") == "1" else {}
        api = href(f"/teach/api/rooms/{code}") + "?" + urlencode({"lang": lang, **kept, **panel})
        code_aria = t("room.code_aria", lang, code=" ".join(code))
        dist = distribution_html(qt, view.counts, bool(q and q.revealed), lang)
        answered = teach_view.answered_text(view.answers, data.joined, lang) if q else ""
        sections = poll_pages.teacher_sections(code, lang, url, csrf, errors, form)
        roster_box = teach_view.roster_html(data, lang, url, csrf, errors, form)
        lost = teach_view.lost_html(data.lost, lang, url, csrf)
        proj_label = t("room.proj.open", lang)
        body = f"""
<section class="dp-room" data-api="{_e(api)}">
  <div class="dp-room-join">
    <p class="dp-room-label">{_e(t("room.code_label", lang))}</p>
    <p class="dp-room-code" aria-label="{_e(code_aria)}">{_e(code)}</p>
    {teach_view.address_html(addr, lang)}
    {teach_view.loopback_html(addr, lang)}
    <div class="dp-room-qr-box">{qr_svg(addr.url, t("room.qr_title", lang, address=addr.url))}</div>
  </div>
  <div class="dp-room-panel">
    <p class="dp-room-error dp-room-store" role="alert" hidden></p>
    <div class="dp-room-lost-box">{lost}</div>
    <p class="dp-room-projector"><a class="dp-room-btn dp-room-primary dp-room-open-projector"
       href="{_e(links["projector"])}" target="dp-teach-projector">{_e(proj_label)}</a>
       <span class="dp-room-small">{_e(t("room.proj.open_note", lang))}</span></p>
    <p class="dp-room-count" aria-live="polite">{_e(count)}</p>
    <div class="dp-room-roster-box">{roster_box}</div>
    <p class="dp-room-step">{_e(step_text)}</p>
    <div class="dp-room-actions">
      <a class="dp-room-btn dp-room-open-lab" href="{_e(lab)}" target="_blank"
         rel="noopener">{_e(t("room.open_lab", lang))}</a>
      {action("tour", t("room.start_tour", lang))}
      {action("ask", t("room.ask", lang), "dp-room-primary")}
      {action("reveal", t("room.reveal", lang))}
    </div>
    <div class="dp-room-actions dp-room-quiz">
      {quiz_html}
    </div>
    <p class="dp-room-answered">{_e(answered)}</p>
    <div class="dp-room-dist-box">{dist}</div>
    <div class="dp-room-actions dp-room-end">
      {action("end", t("room.end", lang), "dp-room-danger")}
      <p class="dp-room-small">{_e(t("room.end_note", lang))}</p>
    </div>
  </div>
</section>{sections}"""
        self.page(status, lang, kept, notices, "/teach", title, body, extra={"room": code},
                  scripts=(asset_url("dplab-teach.js"), asset_url("dplab-poll-teach.js")))

    async def post(self) -> None:
        lang, kept, notices = self.opts()
        if not self.same_origin():
            self.login(403, lang, kept, notices, t("room.teach.bad_origin", lang))
            return
        typed = self.get_body_argument("token", None)
        cookie = self.get_cookie(tokens.COOKIE)
        if typed is None:
            # signed in already: a new room with the form token
            if not tokens.check_csrf(cookie, self.get_body_argument("csrf", None)):
                self.login(403, lang, kept, notices, t("room.teach.expired", lang))
                return
        else:
            # The right token is never refused, whatever others at this address typed; a
            # wrong one waits (doubling past a few, capped): guessing 144 bits is hopeless.
            if not tokens.check_token(typed):
                wait = guard.BACKOFF.delay(self.client())
                if wait > 0:
                    await asyncio.sleep(wait)
                self.login(403, lang, kept, notices, t("room.teach.wrong", lang))
                return
            cookie = tokens.make_cookie()
            self.set_cookie(tokens.COOKIE, cookie, path=href("/") if href("/") else "/",
                            httponly=True, samesite="Strict", secure=self.https,
                            expires_days=tokens.COOKIE_LIFETIME_S / 86400)
        try:
            code = await get_hub().create_room(lang)
        except StoreDown:
            self.page(503, lang, kept, notices, "/teach", t("room.teach.title", lang),
                      f'<p role="alert">{_e(t("room.store_down", lang))}</p>')
            return
        self.redirect(href("/teach") + self.query(lang, kept, room=code), status=303)


_QUIZ_WARM: list[threading.Thread] = []


def quiz_ready() -> bool:
    """Whether the lessons' quiz questions are built. Their first build computes every lesson's
    numbers (8–30 s on 2 busy cores), so it runs in a thread of its own, started by the first
    teacher page, and no teacher page waits for it."""
    if quiz_refs.cache_info().currsize:
        return True
    if not _QUIZ_WARM:
        th = threading.Thread(target=quiz_refs, name="dplab-quiz-refs", daemon=True)
        _QUIZ_WARM.append(th)
        th.start()
    return False


def _quiz_label(ref: str, lang: str) -> str:
    qt = question_text("quiz", ref, lang)
    text = qt.text if qt else ref
    return text if len(text) <= 90 else text[:88] + "…"


class RoomActionHandler(TeachHandler):
    async def post(self, code_text: str, action: str) -> None:  # type: ignore[override]
        lang, kept, notices = self.opts()
        code = codes.normalise(code_text)
        cookie = self.get_cookie(tokens.COOKIE)
        if (code is None or action not in (*ACTIONS, *ROSTER_ACTIONS, *poll_pages.POLL_ACTIONS)
                or not self.same_origin()
                or not tokens.check_csrf(cookie, self.get_body_argument("csrf", None))):
            self.set_status(403)
            self.login_or_forbidden(lang, kept, notices)
            return
        hub = get_hub()
        if action in poll_pages.POLL_ACTIONS:
            args = {k: self.get_body_argument(k, "") for k in
                    ("question", "preset", "eps", "model", "delta", "mech", "kind", "choices",
                     "lo", "hi", "unit", "method", "reopen")}
            try:
                if not await hub.store.exists(code):
                    self.start_page(lang, kept, [*notices, t("room.teach.no_room", lang)], 404)
                    return
                await poll_pages.do_action(code, action, args)
            except PollError as exc:
                await self.room_page(code, lang, kept, notices,
                                     {exc.field: t(exc.key, lang, **exc.fmt)},
                                     poll_pages.form_echo(action, args), status=400)
                return
            except StoreDown:
                self.set_status(503)
                self.finish(t("room.store_down", lang))
                return
            self.redirect(href("/teach") + self.query(lang, kept, room=code), status=303)
            return
        try:
            if action in ROSTER_ACTIONS:
                if not await hub.store.exists(code):
                    self.start_page(lang, kept, [*notices, t("room.teach.no_room", lang)], 404)
                    return
                if action == "size":
                    try:
                        n = roster.parse_size(self.get_body_argument("size", ""))
                    except ValueError:
                        await self.room_page(
                            code, lang, kept, notices,
                            {"size": t("roster.err.size", lang, limit=roster.SIZE_MAX)},
                            {"size": self.get_body_argument("size", "")[:10]}, status=400)
                        return
                    await roster.set_size(hub.store, code, n)
                else:
                    await roster.set_locked(hub.store, code, action == "lock")
            elif action == "end":
                await hub.end(code)
                self.redirect(href("/teach") + self.query(lang, kept, ended="1"), status=303)
                return
            if action == "tour":
                await hub.start_tour(code)
            elif action == "reveal":
                await hub.reveal(code)
            elif action == "ask":
                cur = await hub.room_state(code)
                step = str(int((cur.snap.get("tour") if cur else 0) or 0))
                qt = question_text("tour", step, lang)
                if qt is None:
                    self.redirect(href("/teach") + self.query(lang, kept, room=code,
                                                              note="ask"), status=303)
                    return
                await hub.ask(code, "tour", step, len(qt.options), qt.answer)
            elif action == "quiz":
                ref = self.get_body_argument("ref", "")
                qt = question_text("quiz", ref, lang) if ref in quiz_refs() else None
                if qt is not None:
                    await hub.ask(code, "quiz", ref, len(qt.options), qt.answer)
        except StoreDown:
            self.set_status(503)
            self.finish(t("room.store_down", lang))
            return
        self.redirect(href("/teach") + self.query(lang, kept, room=code), status=303)

    def login_or_forbidden(self, lang: str, kept: dict[str, str], notices: list[str]) -> None:
        self.page(403, lang, kept, notices, "/teach", t("room.teach.title", lang),
                  f'<p role="alert">{_e(t("room.teach.forbidden", lang))}</p>'
                  f'<p><a href="{_e(href("/teach") + self.query(lang, kept))}">'
                  f'{_e(t("room.teach.title", lang))}</a></p>')


class RoomApiHandler(_Base):
    """``GET /teach/api/rooms/CODE`` (teacher cookie): the panel's counts, roster, restart
    notice and the class question's distribution; ``?view=projector``: the projector's counts
    and items (assets/dplab-teach.js)."""

    async def get(self, code_text: str) -> None:
        self.set_header("Cache-Control", "no-store")
        self.set_header("Content-Type", "application/json")
        code = codes.normalise(code_text)
        if not self.is_teacher() or code is None:
            self.set_status(403)
            self.finish(json.dumps({"error": "forbidden"}))
            return
        lang = self.get_query_argument("lang", "ko")
        lang = lang if lang in ("ko", "en") else "ko"
        projector = self.get_query_argument("view", "") == "projector"
        hub = get_hub()
        try:
            await hub.check_restart()
            if not await hub.store.exists(code) and await hub.being_restored(code):
                raise StoreDown("the store restarted: the room is being written back")
            if not await hub.store.exists(code):
                self.set_status(404)
                self.finish(json.dumps({"error": "no such room"}))
                return
            data = await teach_view.gather(code)
        except StoreDown:
            self.set_status(503)
            self.finish(json.dumps({"error": "store", "message": t("room.store_down", lang)}))
            return
        view = data.view
        out = view.as_json()
        out.update(joined=data.joined, class_pages=data.class_pages, labs=data.labs,
                   connected=data.connected, locked=bool(data.summary.get("locked")),
                   size=data.summary.get("size"), refused=data.summary.get("refused", 0),
                   lost=sorted(k for k in data.lost if k != "at"))
        if projector:
            out.update(counts_html=teach_view.counts_html(data, lang),
                       live_html=teach_view.projector_live_html(data, lang))
            self.finish(json.dumps(out, ensure_ascii=False))
            return
        q = view.question
        qt = question_text(q.kind, q.ref, lang) if q else None
        step = int((view.snap or {}).get("tour") or 0)
        kept = {k: v for k, v in (("size", self.get_query_argument("size", "")),
                                  ("theme", self.get_query_argument("theme", "")))
                if v in ("large", "dark")}
        csrf = tokens.csrf_token(self.get_cookie(tokens.COOKIE) or "")

        def url(name: str) -> str:
            more = {"panel": "1"} if self.get_query_argument("panel", "") == "1" else {}
            return href(f"/teach/rooms/{code}/{name}") + self.query(lang, kept, **more)

        out.update(
            count_text=teach_view.counts_text(data, lang),
            step_text=t("room.step", lang, step=step) if step else t("room.no_step", lang),
            answered_text=teach_view.answered_text(view.answers, data.joined, lang) if q else "",
            roster_html=teach_view.roster_html(data, lang, url, csrf),
            lost_html=teach_view.lost_html(data.lost, lang, url, csrf),
            dist_html=distribution_html(qt, view.counts, bool(q and q.revealed), lang))
        self.finish(json.dumps(out, ensure_ascii=False))


class JoinHandler(_Base):
    async def get(self) -> None:
        await self.join(self.get_query_argument("room", None))

    async def head(self) -> None:
        # Uptime monitors: the form's status and headers (tornado sends no body); a code in
        # the address is not looked up, so a HEAD never counts as a guess.
        await self.join(None)

    async def join(self, typed: str | None) -> None:
        lang, kept, notices = self.opts()
        error, status = "", 200
        client, address = guard.requester(self, self.https)  # the form's submit carries it
        if typed is not None:
            wait = guard.GUARD.blocked(client, address)
            code = codes.normalise(typed)
            if wait > 0:
                self.set_header("Retry-After", str(int(wait) + 1))
                error, status = t("room.join.too_many", lang, seconds=int(wait) + 1), 429
            elif code is not None:
                try:
                    if await get_hub().store.exists(code):
                        await self.admit(code, lang, kept, notices)
                        return
                except StoreDown:
                    error, status = t("room.store_down", lang), 503
                if not error:
                    guard.GUARD.miss(client, address)
                    error, status = t("room.join.unknown", lang), 404
            else:  # not a code at all: nothing was looked up
                error, status = t("room.join.unknown", lang), 404
        err = (f'<p class="dp-room-error" id="dp-code-error" role="alert">{_e(error)}</p>'
               if error else "")
        described = ' aria-describedby="dp-code-error" aria-invalid="true"' if error else ""
        value = _e((typed or "")[:12])
        body = (f'<section class="dp-room-login"><h1>{_e(t("room.join.title", lang))}</h1>'
                f'<p>{_e(t("room.join.intro", lang))}</p>'
                f'<form method="get" action="{_e(href("/join"))}" class="dp-room-form">'
                f'<input type="hidden" name="lang" value="{_e(lang)}">'
                + "".join(f'<input type="hidden" name="{k}" value="{_e(v)}">'
                          for k, v in kept.items())
                + f'<label for="dp-code">{_e(t("room.join.code", lang))}</label>'
                f'<input id="dp-code" name="room" class="dp-room-code-input" value="{value}" '
                f'autocomplete="off" autocapitalize="characters" spellcheck="false" '
                f'maxlength="12" required{described}>{err}'
                f'<button type="submit" class="dp-room-btn dp-room-primary">'
                f'{_e(t("room.join.go", lang))}</button></form>'
                f'<p class="dp-room-small">{_e(t("room.join.private", lang))}</p></section>')
        self.page(status, lang, kept, notices, "/join", t("room.join.title", lang), body)

    async def admit(self, code: str, lang: str, kept: dict[str, str],
                    notices: list[str]) -> None:
        """A student arrives at an existing room: their credential (a new one unless the room
        is locked), then the class page, or the lab for ``?to=lab``. Raises StoreDown."""
        store = get_hub().store
        cookie = self.get_cookie(roster.COOKIE)
        sid = roster.student_of(cookie, code)
        if sid is None:
            if await roster.is_locked(store, code):
                self.page(403, lang, kept, notices, "/join", t("roster.locked.title", lang),
                          f'<section class="dp-room-login"><h1>'
                          f'{_e(t("roster.locked.title", lang))}</h1>'
                          f'<p class="dp-room-error dp-join-locked" role="alert">'
                          f'{_e(t("roster.locked.text", lang, code=code))}</p></section>')
                return
            sid, cred = roster.make_credential(code)
            self.set_cookie(roster.COOKIE, roster.with_credential(cookie, code, cred),
                            path=href("/") or "/", httponly=True, samesite="Lax",
                            secure=self.https, expires_days=roster.LIFETIME_S / 86400)
        await roster.register(store, code, sid)
        if self.get_query_argument("to", "") == "lab":
            self.redirect(href("/lab") + self.query(lang, kept, room=code), status=303)
            return
        self.class_page(code, lang, kept, notices)

    def class_page(self, code: str, lang: str, kept: dict[str, str], notices: list[str]) -> None:
        """The class's page for a student: the lab link, the open poll or number question and
        the released CDF, refreshed by assets/dplab-poll.js (no Bokeh session)."""
        from app.room import connection

        lab = href("/lab") + self.query(lang, kept, room=code)
        state = href("/join/state") + "?" + urlencode({"room": code, "lang": lang})
        msgs = {k: t(f"poll.js.{k}", lang) for k in (
            "sent_local", "sent_central", "already", "closed", "bad", "gone", "failed",
            "pick", "value_bad", "value_sent", "mine", "ledger", "ended", "store")}
        msgs.update({k: t(f"roster.{k}", lang) for k in (
            "already_sent", "not_joined", "full", "too_many")})
        data = " ".join(f'data-msg-{k.replace("_", "-")}="{_e(v)}"' for k, v in msgs.items())
        body = (f'<section class="dp-join" data-room="{_e(code)}" data-state="{_e(state)}" '
                f'data-answer="{_e(href("/join/answer"))}" data-value="{_e(href("/join/value"))}" '
                f'{data}>'
                f'<h1>{_e(t("poll.join.title", lang, code=code))}</h1>'
                # "the class is lost" / "back" go here (assets/dplab-reconnect.js)
                f'{connection.data_html(lang, "class")}'
                f'<p><a class="dp-room-btn dp-join-lab" href="{_e(lab)}">'
                f'{_e(t("poll.join.lab", lang))}</a></p>'
                f'<noscript><p class="dp-room-error">{_e(t("poll.join.noscript", lang))}</p>'
                f'</noscript>'
                f'<p class="dp-join-ended" role="alert" hidden>{_e(t("poll.js.ended", lang))}</p>'
                f'<div class="dp-join-poll" aria-live="polite">'
                f'<p class="dp-poll-none">{_e(t("poll.student.none", lang))}</p></div>'
                f'<div class="dp-join-ask" aria-live="polite"></div>'
                f'<div class="dp-join-cdf-box"></div>'
                f'<section class="dp-join-privacy" aria-labelledby="dp-join-privacy-h">'
                f'<h2 id="dp-join-privacy-h">{_e(t("poll.join.privacy", lang))}</h2>'
                f'<p class="dp-poll-ledger">{_e(t("poll.js.ledger_none", lang))}</p>'
                f'<p class="dp-join-class-ledger"></p>'
                f'<p class="dp-room-small">{_e(t("room.join.private", lang))}</p></section>'
                f'</section>')
        self.page(200, lang, kept, notices, "/join", t("poll.join.title", lang, code=code), body,
                  extra={"room": code},
                  scripts=(asset_url("dplab-reconnect.js"), asset_url("dplab-poll.js")))


def routes(https: bool = False) -> list[tuple[str, type[tornado.web.RequestHandler], Any]]:
    kw = {"https": https}
    return [*poll_pages.routes(kw),
            (r"/teach/?", TeachHandler, kw),
            (r"/teach/rooms/([A-Za-z0-9]{1,12})/([a-z-]+)", RoomActionHandler, kw),
            (r"/teach/api/rooms/([A-Za-z0-9]{1,12})", RoomApiHandler, kw),
            (r"/join/?", JoinHandler, kw),
            *channel.routes()]
