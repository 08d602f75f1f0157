"""The teacher's two screens of a room, as plain HTML (no Bokeh session).

- The **projector** (``/teach?room=CODE&size=large``): the code, the join address and its QR
  code and the counts in one band, then the class's current item (the question, poll or class
  CDF asked last) on the first 1920×1080 screen, the others below it. It has no buttons: the
  instructor's controls are the **presenter panel**, a second window (the "controls" link opens
  ``/teach?room=CODE&panel=1``), so nothing the instructor presses moves the projected screen.
  assets/dplab-teach.js refreshes it once a second from
  ``GET /teach/api/rooms/CODE?view=projector``.
- The **panel** (``/teach?room=CODE``, or ``&size=large&panel=1`` in large type): every
  control, the lock and class size, and the teacher's details (raw shares, the unbiased
  estimate even outside 0–100 %, the true CDF on request).

What the projector shows never leaves [0, 1]: an estimate is shown clipped into its 95 %
interval (and said so); the raw unbiased value stays in the panel. Under
:data:`app.room.poll.FEW_ANSWERS` answers no estimate is shown at all. Below every poll it says
what local DP does not protect against: fake answers, with this poll's numbers.

The join address is ``DPLAB_PUBLIC_URL`` when set (the address students type), else the
address this page was opened at; on a loopback host the teacher's screens warn that phones
cannot reach it and name the variable.
"""

from __future__ import annotations

import html
import ipaddress
import json
import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from app.room import activities as A
from app.room import poll as P
from app.room import poll_render as R
from app.room import roster
from app.room.hub import get_hub
from app.room.poll_cdf import cdf_projector_html
from app.room.poll_results import manipulation_html
from app.room.questions import question_text
from app.room.records import Ask, CdfRelease, Ledger, LedgerStep, Poll, PollResults
from app.room.render import distribution_html, qr_svg
from app.room.state import QuestionText, RoomView
from app.shell.i18n import t
from app.shell.numbers import fmt_pct
from app.shell.urls import href

ENV_PUBLIC_URL = "DPLAB_PUBLIC_URL"
NBSP = "\u00a0"


def _e(x: object) -> str:
    return html.escape(str(x))


# ---------------------------------------------------------------------------------------------
# the join address


@dataclass(frozen=True)
class JoinAddress:
    url: str  # what the QR code holds
    head: str  # the address up to the code ("https://host/join?room=")
    code: str
    loopback: str  # the loopback host the address names ("" when phones can reach it)
    public: bool  # taken from DPLAB_PUBLIC_URL


def public_url() -> str:
    """``DPLAB_PUBLIC_URL`` when it is an http(s) address, else "" (scripts/serve-prod refuses
    a bad one at start; ``dplab serve`` just ignores it here)."""
    raw = os.environ.get(ENV_PUBLIC_URL, "").strip()
    u = urlsplit(raw)
    if u.scheme not in ("http", "https") or not u.hostname or any(c in raw for c in " \t\"'<>"):
        return ""
    return raw


def is_loopback(host: str) -> bool:
    h = host.strip("[]").lower().rstrip(".")
    if h == "localhost" or h.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def join_address(protocol: str, host: str, code: str) -> JoinAddress:
    """The address students type for room ``code``: at ``DPLAB_PUBLIC_URL`` (which names the
    site with its prefix, as scripts/serve-prod's log does) or where this page was opened."""
    pub = public_url()
    if pub:
        head = pub.rstrip("/") + "/join?room="
    else:
        head = f"{protocol}://{host}" + href("/join") + "?room="
    hostname = urlsplit(head).hostname or ""
    return JoinAddress(head + code, head, code, hostname if is_loopback(hostname) else "",
                       bool(pub))


def address_html(addr: JoinAddress, lang: str) -> str:
    """The join address; it may wrap anywhere before the code, never inside it."""
    return (f'<p class="dp-room-address">{_e(t("room.join_at", lang))} '
            f'<a class="dp-join-link" href="{_e(addr.url)}"><span class="dp-join-head">'
            f'{_e(addr.head)}</span><wbr><span class="dp-join-code">{_e(addr.code)}</span></a></p>')


def loopback_html(addr: JoinAddress, lang: str) -> str:
    if not addr.loopback:
        return ""
    key = "room.loopback_public" if addr.public else "room.loopback"
    return (f'<p class="dp-room-loopback" role="alert"><strong>'
            f'{_e(t("room.loopback_title", lang, host=addr.loopback))}</strong> '
            f'{_e(t(key, lang, host=addr.loopback, var=ENV_PUBLIC_URL))}</p>')


# ---------------------------------------------------------------------------------------------
# what the teacher's screens read


_NO_LEDGER = Ledger(0, 0.0, 0.0, "none", 0.0, 0.0, 0.0)


@dataclass
class RoomData:
    code: str
    view: RoomView
    summary: dict[str, Any]
    poll: Poll | None = None
    res: PollResults | None = None
    past: list[PollResults] = field(default_factory=list)
    ask: Ask | None = None
    n_values: int = 0
    release: CdfRelease | None = None
    ledger: Ledger = _NO_LEDGER
    lost: dict[str, Any] = field(default_factory=dict)  # the restart notice, as stored

    @property
    def labs(self) -> int:
        return self.view.connected

    @property
    def class_pages(self) -> int:
        return int(self.summary.get("class_pages") or 0)

    @property
    def connected(self) -> int:
        return self.labs + self.class_pages

    @property
    def joined(self) -> int:
        return int(self.summary.get("joined") or 0)


async def load_view(code: str) -> RoomView:
    hub = get_hub()
    view = RoomView(code=code)
    await hub.know_epoch()
    state = await hub.room_state(code)
    q = state.question if state else None
    answers = await hub.store.hgetall(code, f"answers:{q.id}") if q else {}
    view.load(state, await hub.store.hgetall(code, "workers"), answers, time.time())
    return view


async def read_lost(code: str) -> dict[str, Any]:
    """The room's ``lost`` hash (app/room/hub.py, after a store restart), parsed."""
    out: dict[str, Any] = {}
    for name, text in (await get_hub().store.hgetall(code, "lost")).items():
        try:
            out[name] = json.loads(text)
        except ValueError:
            continue
    return out


async def gather(code: str, everything: bool = True) -> RoomData:
    """Everything the teacher's screens show of room ``code`` (raises StoreDown). What was
    read is kept by this process's hub, to write back or name as lost after a store restart."""
    hub = get_hub()
    store = hub.store
    await hub.check_restart()
    view = await load_view(code)
    data = RoomData(code, view, await roster.summary(store, code))
    steps: dict[str, LedgerStep] = {}
    if everything:
        data.poll = await A.current_poll(store, code)
        if data.poll is not None:
            data.res = P.results(data.poll, await store.hgetall(code, f"pollans:{data.poll.id}"))
        data.past = await A.past_polls(store, code)
        data.ask = await A.current_ask(store, code)
        if data.ask is not None:
            data.n_values = len(await store.hgetall(code, f"values:{data.ask.id}"))
        data.release = await A.current_cdf(store, code)
        data.ledger = await A.ledger(store, code)
        steps = await A.ledger_steps(store, code)
    data.lost = await read_lost(code)
    seen: dict[str, Any] = {"locked": bool(data.summary.get("locked")),
                            "size": data.summary.get("size")}
    if view.question:
        seen.update(question_id=view.question.id, question_n=view.answers)
    if everything:
        seen.update(poll=data.poll, poll_n=data.res.n if data.res else 0, ask=data.ask,
                    ask_n=data.n_values,
                    release=data.release.summary() if data.release else None,
                    past={r.id: r for r in data.past if r.id}, ledger=steps)
    hub.watch(code, **seen)
    return data


# ---------------------------------------------------------------------------------------------
# counts


def answered_text(k: int, joined: int, lang: str) -> str:
    """"answered k of n" (n: the students who joined), or "k answered" before anyone joined."""
    if joined >= max(1, k):
        return t("room.answered_of", lang, k=k, n=joined)
    return t("room.answered_k", lang, k=k)


def counts_text(d: RoomData, lang: str) -> str:
    return t("room.count_pages", lang, connected=d.connected, labs=d.labs, pages=d.class_pages,
             following=d.view.following)


def counts_html(d: RoomData, lang: str) -> str:
    """The projector's counts: numbers large, each with its unit."""
    s = d.summary
    lock = (f'<span class="dp-proj-locked">{_e(t("room.locked_short", lang))}</span>'
            if s.get("locked") else "")
    return (f'<p class="dp-proj-counts"><span class="dp-proj-count">'
            f'{_e(t("room.proj.connected", lang, n=d.connected))}</span> '
            f'<span class="dp-proj-count">{_e(t("room.proj.joined", lang, n=d.joined))}</span>'
            f' {lock}</p><p class="dp-room-small dp-proj-count-detail">{_e(counts_text(d, lang))}'
            f'</p>')


# ---------------------------------------------------------------------------------------------
# the projector's items


def clip01(x: float | None) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return min(1.0, max(0.0, float(x)))


def big_pct(x: float | None, lang: str) -> str:
    """A share on the projector: in [0, 1] always, no break before the unit ("95.0%" in
    Korean, "95.0 %" with a no-break space in English)."""
    c = clip01(x)
    return "—" if c is None else fmt_pct(c, lang).replace(" %", f"{NBSP}%")


def interval_html(ci: Any, clipped: bool, lang: str) -> str:
    if not ci:
        return ""
    lo, hi = big_pct(ci[0], lang), big_pct(ci[1], lang)
    note = (f' <span class="dp-proj-note">{_e(t("poll.res.clipped", lang))}</span>'
            if clipped else "")
    return (f'<span class="dp-proj-ci"><span class="dp-proj-ci-label">'
            f'{_e(t("poll.proj.ci", lang))}</span> <span class="dp-proj-ci-range">'
            f'{_e(lo)}{NBSP}–{NBSP}{_e(hi)}</span></span>{note}')


def _waiting(k: int, lang: str) -> str:
    return (f'<p class="dp-proj-waiting">'
            f'{_e(t("poll.proj.waiting", lang, need=P.FEW_ANSWERS, k=k))}</p>')


def _estimate_row(label: str, est: float | None, ci: Any, clipped: bool, lang: str) -> str:
    raw_outside = est is not None and math.isfinite(est) and not 0.0 <= est <= 1.0
    note = (f'<p class="dp-proj-note dp-proj-est-clipped">{_e(t("poll.proj.est_clipped", lang))}'
            f'</p>' if raw_outside else "")
    return (f'<div class="dp-proj-est-row"><p class="dp-proj-est-label">'
            f'{_e(t("poll.proj.share", lang, option=label))}</p>'
            f'<p class="dp-proj-est-line"><strong class="dp-proj-estimate">{_e(big_pct(est, lang))}'
            f'</strong> {interval_html(ci, clipped, lang)}</p>{note}</div>')


def projector_poll_html(poll: Poll, res: PollResults, joined: int, lang: str) -> str:
    """The projected poll: its question, how many answered, the estimate of each option's share
    (clipped into its interval; none under FEW_ANSWERS answers), what fake answers can do."""
    n = res.n
    labels = R.option_labels(poll, lang)
    model = t(f"poll.model.{poll.model}", lang)
    state = t("poll.res.open" if res.open else "poll.res.closed_state", lang)
    head = (f'<h2 class="dp-proj-q">{_e(R.question_of(poll, lang))}</h2>'
            f'<p class="dp-proj-meta"><span class="dp-poll-res-model">{_e(model)}</span> · '
            f'{_e(state)} · <span class="dp-proj-answered">'
            f'{_e(answered_text(n, joined, lang))}</span> '
            f'<span class="dp-room-small">{_e(t("poll.res.n_public", lang))}</span></p>')
    rows: list[str] = []
    if poll.model == "central" and not res.released:
        body = (f'<p class="dp-proj-waiting">{_e(t("poll.proj.central_wait", lang, k=n))}</p>')
    elif n < P.FEW_ANSWERS:
        body = _waiting(n, lang)
    else:
        entries: list[tuple[float | None, tuple[float, float], bool]]
        if poll.local:
            entries = [(e.estimate, e.ci95, e.clipped) for e in res.per_option]
        else:
            entries = [(o.estimate, o.ci95, o.clipped)
                       for o in (res.released.options if res.released else ())]
        for (est, ci, clipped), lab in zip(poll.poll_kind.shown(entries), labels, strict=False):
            rows.append(_estimate_row(lab, est, ci, clipped, lang))
        body = f'<div class="dp-proj-estimates">{"".join(rows)}</div>'
    eps = poll.eps
    spent = (t("poll.res.spent_local", lang, eps=R.num(eps)) if poll.local else
             t("poll.res.spent_central", lang, eps=R.num(eps), delta=f"{res.delta:g}"))
    return (f'<section class="dp-proj-item dp-proj-poll" data-poll="{_e(poll.id)}">{head}{body}'
            f'<p class="dp-proj-spent">{_e(spent)}</p>{manipulation_html(poll, n, lang)}'
            f'</section>')


def projector_question_html(q: QuestionText, counts: list[int], revealed: bool, joined: int,
                            lang: str) -> str:
    k = sum(counts)
    return (f'<section class="dp-proj-item dp-proj-question"><p class="dp-proj-meta">'
            f'<span class="dp-proj-answered">{_e(answered_text(k, joined, lang))}</span></p>'
            f'{distribution_html(q, counts, revealed, lang)}</section>')


def projector_cdf_html(d: RoomData, lang: str) -> str:
    ask, rel = d.ask, d.release
    parts = []
    if ask is not None:
        state = t("poll.res.open" if ask.open else "poll.res.closed_state", lang)
        parts.append(f'<h2 class="dp-proj-q">{_e(R.question_of(ask, lang))}</h2>'
                     f'<p class="dp-proj-meta">{_e(state)} · <span class="dp-proj-answered">'
                     f'{_e(answered_text(d.n_values, d.joined, lang))}</span></p>')
    if rel is None:
        parts.append(f'<p class="dp-proj-waiting">{_e(t("poll.cdf.none", lang))}</p>')
    else:
        parts.append(cdf_projector_html(rel, d.ledger, ask, lang))
    rid = _e(rel.id if rel else "")
    return (f'<section class="dp-proj-item dp-proj-cdf" data-release="{rid}">{"".join(parts)}'
            f'</section>')


def _items(d: RoomData, lang: str) -> list[tuple[float, str]]:
    """(when, html) of every item the room has: the class question, the poll, the class CDF."""
    out: list[tuple[float, str]] = []
    q = d.view.question
    if q:
        qt = question_text(q.kind, q.ref, lang)
        if qt is not None:
            out.append((q.at or 0.0, projector_question_html(
                qt, list(d.view.counts), q.revealed, d.joined, lang)))
    if d.poll is not None and d.res is not None:
        out.append((d.poll.opened, projector_poll_html(d.poll, d.res, d.joined, lang)))
    if d.ask is not None or d.release is not None:
        when = max(d.ask.opened if d.ask else 0.0,
                   (d.release.released_at or 0.0) if d.release else 0.0)
        out.append((when, projector_cdf_html(d, lang)))
    return out


def projector_live_html(d: RoomData, lang: str) -> str:
    """What the projector refreshes: the restart notice, then the latest item first."""
    items = sorted(_items(d, lang), key=lambda it: -it[0])
    lost = lost_short_html(d.lost, lang)
    if not items:
        return lost + f'<p class="dp-proj-waiting">{_e(t("room.proj.nothing", lang))}</p>'
    return lost + "".join(h for _, h in items)


def projector_body(d: RoomData, addr: JoinAddress, lang: str, panel_url: str,
                   api_url: str) -> str:
    code_aria = t("room.code_aria", lang, code=" ".join(d.code))
    return f"""
<section class="dp-proj" data-api="{_e(api_url)}">
  <div class="dp-proj-band">
    <div class="dp-proj-codebox">
      <p class="dp-room-label">{_e(t("room.code_label", lang))}</p>
      <p class="dp-room-code" aria-label="{_e(code_aria)}">{_e(d.code)}</p>
    </div>
    <div class="dp-proj-joinbox">
      {address_html(addr, lang)}
      {loopback_html(addr, lang)}
      <div class="dp-proj-counts-box" aria-live="polite">{counts_html(d, lang)}</div>
      <p class="dp-proj-controls"><a class="dp-proj-controls-link" href="{_e(panel_url)}"
         target="dp-teach-panel">{_e(t("room.proj.controls", lang))}</a></p>
    </div>
    <div class="dp-room-qr-box">{qr_svg(addr.url, t("room.qr_title", lang, address=addr.url))}</div>
  </div>
  <p class="dp-room-error dp-room-store" role="alert" hidden></p>
  <div class="dp-proj-live">{projector_live_html(d, lang)}</div>
</section>"""


# ---------------------------------------------------------------------------------------------
# the panel's roster box and the restart notice


def roster_html(d: RoomData, lang: str, action_url: Any, csrf: str,
                errors: Mapping[str, str] | None = None,
                form: Mapping[str, str] | None = None) -> str:
    """Joined, the lock (a button), the expected class size (a form) and the answers refused
    because the class was full: the student side's numbers (app/room/roster.py)."""
    s = d.summary
    errors, form = errors or {}, form or {}
    hidden = f'<input type="hidden" name="csrf" value="{_e(csrf)}">'
    locked = bool(s.get("locked"))
    act = "unlock" if locked else "lock"
    lock_form = (f'<form method="post" class="dp-room-action" action="{_e(action_url(act))}">'
                 f'{hidden}<button type="submit" class="dp-room-btn dp-room-{act}-btn">'
                 f'{_e(t(f"room.roster.{act}", lang))}</button></form>')
    size = s.get("size")
    err = errors.get("size", "")
    err_html = (f'<p class="dp-room-error" id="dp-err-size" role="alert">{_e(err)}</p>'
                if err else "")
    aria = ' aria-describedby="dp-err-size" aria-invalid="true"' if err else ""
    value = form.get("size", str(size) if size else "")
    size_form = (f'<form method="post" class="dp-room-action dp-room-size-form" '
                 f'action="{_e(action_url("size"))}">{hidden}'
                 f'<label for="dp-room-size">{_e(t("room.roster.size_label", lang))}</label>'
                 f'<input id="dp-room-size" name="size" class="dp-room-size" inputmode="numeric" '
                 f'value="{_e(value)}" size="5"{aria}>'
                 f'<button type="submit" class="dp-room-btn dp-room-size-btn">'
                 f'{_e(t("room.roster.size_set", lang))}</button>{err_html}</form>')
    state = t("room.roster.locked" if locked else "room.roster.open", lang)
    size_text = (t("room.roster.size_is", lang, size=size) if size else
                 t("room.roster.size_none", lang))
    refused = int(s.get("refused") or 0)
    return (f'<div class="dp-room-roster"><p class="dp-room-roster-line">'
            f'<strong class="dp-room-joined">{_e(t("room.proj.joined", lang, n=d.joined))}</strong>'
            f' · <span class="dp-room-lock-state">{_e(state)}</span> · '
            f'<span class="dp-room-size-state">{_e(size_text)}</span> · '
            f'<span class="dp-room-refused">{_e(t("room.roster.refused", lang, n=refused))}'
            f'</span></p><div class="dp-room-actions">{lock_form}{size_form}</div></div>')


def _poll_fields(poll: Poll) -> dict[str, str]:
    """The poll-open form fields that open ``poll`` again as it was."""
    return {"question": poll.question, "preset": poll.preset, "eps": repr(poll.eps),
            "model": poll.model, "delta": repr(poll.delta or P.DEFAULT_DELTA),
            "mech": poll.mech if poll.mech in P.MECHANISMS else "gaussian",
            "kind": poll.kind, "choices": "\n".join(poll.options), "reopen": poll.id}


def _ask_fields(ask: Ask) -> dict[str, str]:
    return {"question": ask.question, "preset": ask.preset, "lo": repr(ask.lo),
            "hi": repr(ask.hi), "unit": ask.unit}


def _when(at: Any, lang: str) -> str:
    try:
        return time.strftime("%H:%M:%S", time.localtime(float(at)))
    except (TypeError, ValueError):
        return "?"


def lost_html(lost: Mapping[str, Any], lang: str, action_url: Any, csrf: str) -> str:
    """The panel's notice after a store restart: what was lost, one click to open each again."""
    if not any(k in lost for k in ("poll", "ask", "release", "question")):
        return ""
    hidden = f'<input type="hidden" name="csrf" value="{_e(csrf)}">'
    items = []

    def button(action: str, fields: Mapping[str, str], label: str, cls: str) -> str:
        inputs = "".join(f'<input type="hidden" name="{_e(k)}" value="{_e(v)}">'
                         for k, v in fields.items())
        return (f'<form method="post" class="dp-room-action" action="{_e(action_url(action))}">'
                f'{hidden}{inputs}<button type="submit" class="dp-room-btn dp-room-primary '
                f'{cls}">{_e(label)}</button></form>')

    lp = lost.get("poll")
    poll = Poll.from_dict(lp.get("poll")) if isinstance(lp, dict) else None
    if isinstance(lp, dict) and poll is not None:
        q = R.question_of(poll, lang)
        eps = R.num(poll.eps)
        key = "room.lost.poll_open" if poll.open else "room.lost.poll_closed"
        what = t(key, lang, question=q, n=int(lp.get("n") or 0), eps=eps,
                 model=t(f"poll.model.{poll.model}", lang))
        cost = t("room.lost.poll_cost_local" if poll.local else
                 "room.lost.poll_cost_central", lang, eps=eps)
        again = button("poll-open", _poll_fields(poll),
                       t("room.lost.reopen_poll", lang, question=q), "dp-room-reopen-poll")
        items.append(f"<li>{_e(what)} {_e(cost)}{again}</li>")
    la = lost.get("ask")
    ask = Ask.from_dict(la.get("ask")) if isinstance(la, dict) else None
    if isinstance(la, dict) and ask is not None:
        q = R.question_of(ask, lang)
        what = t("room.lost.ask", lang, question=q, n=int(la.get("n") or 0))
        again = button("values-open", _ask_fields(ask),
                       t("room.lost.reopen_ask", lang, question=q), "dp-room-reopen-ask")
        items.append(f"<li>{_e(what)}{again}</li>")
    if isinstance(lost.get("release"), dict):
        items.append(f'<li>{_e(t("room.lost.release", lang))}</li>')
    lq = lost.get("question")
    if isinstance(lq, dict):
        items.append(f'<li>{_e(t("room.lost.question", lang, n=int(lq.get("n") or 0)))}</li>')
    dismiss = button("lost-dismiss", {}, t("room.lost.dismiss", lang), "dp-room-lost-dismiss")
    dismiss = dismiss.replace(" dp-room-primary ", " ")
    return (f'<div class="dp-room-lost" role="alert"><p><strong>'
            f'{_e(t("room.lost.title", lang, time=_when(lost.get("at"), lang)))}</strong> '
            f'{_e(t("room.lost.kept", lang))}</p><ul>{"".join(items)}</ul>{dismiss}</div>')


def lost_short_html(lost: Mapping[str, Any], lang: str) -> str:
    """The projector's line after a store restart (the panel has the buttons)."""
    names = []
    lp, la = lost.get("poll"), lost.get("ask")
    poll = Poll.from_dict(lp.get("poll")) if isinstance(lp, dict) else None
    ask = Ask.from_dict(la.get("ask")) if isinstance(la, dict) else None
    if poll is not None:
        names.append(t("room.lost.short_poll", lang, question=R.question_of(poll, lang)))
    if ask is not None:
        names.append(t("room.lost.short_ask", lang, question=R.question_of(ask, lang)))
    if isinstance(lost.get("question"), dict):
        names.append(t("room.lost.short_question", lang))
    if not names:
        return ""
    return (f'<p class="dp-proj-lost" role="status">'
            f'{_e(t("room.lost.short", lang, what="; ".join(names)))}</p>')


def urls(code: str, lang: str, kept: Mapping[str, str]) -> dict[str, str]:
    """The projector, the panel and the API of room ``code``."""
    theme = {"theme": kept["theme"]} if kept.get("theme") else {}
    base = href("/teach") + "?"
    return {
        "projector": base + urlencode({"room": code, "lang": lang, "size": "large", **theme}),
        "panel": base + urlencode({"room": code, "lang": lang, "panel": "1", **theme}),
        "api": href(f"/teach/api/rooms/{code}") + "?" + urlencode({"lang": lang,
                                                                   "view": "projector"}),
    }
