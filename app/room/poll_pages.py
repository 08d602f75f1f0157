"""The private polls and the class's CDF in the live class's plain pages.

Teacher (``dplab_teacher`` cookie; buttons also the form token and same origin):
- ``POST /teach/rooms/CODE/poll-open`` (``question`` or ``preset``, ``eps``, ``model``,
  ``delta``, ``mech``, ``kind``, ``choices``), ``poll-close``, ``values-open`` (``question``
  or ``preset``, ``lo``, ``hi``, ``unit``), ``values-close``, ``cdf-release`` (``eps``,
  ``delta``, ``method``). Bad input: the room page again (400) with a message at the field.
- ``GET /teach/api/rooms/CODE/polls/current`` (``?format=csv`` / ``json`` for an export) and
  ``GET /teach/api/rooms/CODE/cdf`` (``?truth=1``: the NOT private comparison).

Students (no cookie, no Bokeh session): ``GET /join/state?room=CODE`` (what is open now:
texts, ε, the released curve; never anything another student sent), ``POST /join/answer``
``{"room", "poll", "sid", "sent"}`` (``sent`` is the option the browser's randomized response
chose: "yes"/"no" or 0..k-1), ``POST /join/value`` ``{"room", "ask", "sid", "value"}``.
400 bad input, 409 ``already`` / ``closed``, 404 no such room, 403 another site.
"""

from __future__ import annotations

import dataclasses
import html
import json
import logging
import math
import time
from typing import Any, ClassVar

import tornado.web

from app.room import activities as A
from app.room import codes, guard, roster, tokens
from app.room import poll as P
from app.room import poll_render as R
from app.room.hub import get_hub
from app.room.kinds import DEFAULT_KIND, KINDS
from app.room.poll_cdf import cdf_html, truth_html
from app.room.poll_results import past_table, results_html
from app.room.poll_student import student_ask_html, student_cdf_html, student_poll_html
from app.room.records import Poll
from app.room.store import StoreDown
from app.shell import csvsafe
from app.shell.i18n import t
from app.shell.urls import href

log = logging.getLogger("dplab.room")
POLL_ACTIONS = ("poll-open", "poll-close", "values-open", "values-close", "cdf-release",
                "lost-dismiss")
STATE_CACHE_S = 0.5
_state_cache: dict[tuple[str, str], tuple[float, int, str]] = {}


def _e(x: object) -> str:
    return html.escape(str(x))


# ---------------------------------------------------------------------------------------------
# the teacher's sections of the room page


def _field_error(errors: dict[str, str], name: str) -> tuple[str, str]:
    msg = errors.get(name)
    if not msg:
        return "", ""
    eid = f"dp-err-{name}"
    return (f'<p class="dp-room-error" id="{eid}" role="alert">{_e(msg)}</p>',
            f' aria-describedby="{eid}" aria-invalid="true"')


def teacher_sections(code: str, lang: str, action_url: Any, csrf: str,
                     errors: dict[str, str] | None = None,
                     form: dict[str, str] | None = None) -> str:
    """The poll and class-CDF forms and their result boxes (filled by dplab-poll-teach.js)."""
    errors, form = errors or {}, form or {}
    hidden = f'<input type="hidden" name="csrf" value="{_e(csrf)}">'

    def val(name: str, default: str) -> str:
        return _e(form.get(name, default))

    def select(name: str, cls: str, label: str, options: list[tuple[str, str]],
               chosen: str) -> str:
        opts = "".join(f'<option value="{_e(v)}"{" selected" if v == chosen else ""}>{_e(lab)}'
                       f"</option>" for v, lab in options)
        return (f'<label for="{cls}">{_e(label)}</label>'
                f'<select id="{cls}" name="{name}" class="{cls}">{opts}</select>')

    presets = [("", t("poll.form.own", lang))] + [(p, t(f"poll.preset.{p}", lang))
                                                   for p in P.PRESETS]
    qe, qa = _field_error(errors, "question")
    ee, ea = _field_error(errors, "eps")
    de, da = _field_error(errors, "delta")
    ce, ca = _field_error(errors, "choices")
    poll_form = (
        f'<form method="post" class="dp-poll-form" action="{_e(action_url("poll-open"))}" '
        f'novalidate>{hidden}'
        f'{select("preset", "dp-poll-preset", t("poll.form.preset", lang), presets, form.get("preset", "homework"))}'  # noqa: E501
        f'<label for="dp-poll-question">{_e(t("poll.form.question", lang))}</label>'
        f'<textarea id="dp-poll-question" name="question" class="dp-poll-question" rows="2" '
        f'maxlength="400"{qa}>{val("question", "")}</textarea>{qe}'
        f'<div class="dp-poll-row"><span><label for="dp-poll-eps">'
        f'{_e(t("poll.form.eps", lang))}</label><input id="dp-poll-eps" name="eps" '
        f'class="dp-poll-eps" inputmode="decimal" value="{val("eps", f"{P.DEFAULT_EPS:.6f}")}"'
        f'{ea}>{ee}</span>'
        f'<span>{select("model", "dp-poll-model", t("poll.form.model", lang), [(m, t(f"poll.model.{m}", lang)) for m in P.MODELS], form.get("model", "local"))}</span>'  # noqa: E501
        f'<span><label for="dp-poll-delta">{_e(t("poll.form.delta", lang))}</label>'
        f'<input id="dp-poll-delta" name="delta" class="dp-poll-delta" inputmode="decimal" '
        f'value="{val("delta", f"{P.DEFAULT_DELTA:g}")}"{da}>{de}</span>'
        f'<span>{select("mech", "dp-poll-mech", t("poll.form.mech", lang), [(m, t(f"poll.mech.{m}", lang)) for m in P.MECHANISMS], form.get("mech", "gaussian"))}</span>'  # noqa: E501
        f'<span>{select("kind", "dp-poll-kind", t("poll.form.kind", lang), [(k.name, t(k.label_key, lang)) for k in KINDS.values()], form.get("kind", DEFAULT_KIND))}</span></div>'  # noqa: E501
        f'<label for="dp-poll-choices">{_e(t("poll.form.choices", lang))}</label>'
        f'<textarea id="dp-poll-choices" name="choices" class="dp-poll-choices" rows="3"{ca}>'
        f'{val("choices", "")}</textarea>{ce}'
        f'<p class="dp-room-small">{_e(t("poll.form.note", lang))}</p>'
        f'<button type="submit" class="dp-room-btn dp-room-primary dp-poll-open">'
        f'{_e(t("poll.form.open", lang))}</button></form>')
    close = (f'<form method="post" class="dp-room-action" '
             f'action="{_e(action_url("poll-close"))}">{hidden}<button type="submit" '
             f'class="dp-room-btn dp-poll-close">{_e(t("poll.form.close", lang))}</button></form>')
    exports = (f'<p class="dp-poll-exports"><a class="dp-poll-csv" href="'
               f'{_e(href(f"/teach/api/rooms/{code}/polls/current") + "?format=csv")}">'
               f'{_e(t("poll.export.csv", lang))}</a> · <a class="dp-poll-json" href="'
               f'{_e(href(f"/teach/api/rooms/{code}/polls/current") + "?format=json")}">'
               f'{_e(t("poll.export.json", lang))}</a></p>')
    le, la = _field_error(errors, "lo")
    ve, va = _field_error(errors, "values_question")
    ke, ka = _field_error(errors, "cdf_eps")
    kd, kda = _field_error(errors, "cdf_delta")
    ge, _ga = _field_error(errors, "cdf")
    vpresets = [("", t("poll.form.own", lang)), ("sleep", t("poll.preset.sleep", lang)),
                ("phone", t("poll.preset.phone", lang))]
    values_form = (
        f'<form method="post" class="dp-values-form" action="{_e(action_url("values-open"))}" '
        f'novalidate>{hidden}'
        f'{select("preset", "dp-values-preset", t("poll.form.preset", lang), vpresets, form.get("vpreset", "sleep"))}'  # noqa: E501
        f'<label for="dp-values-question">{_e(t("poll.form.vquestion", lang))}</label>'
        f'<input id="dp-values-question" name="question" class="dp-values-question" '
        f'maxlength="400" value="{val("vquestion", "")}"{va}>{ve}'
        f'<div class="dp-poll-row"><span><label for="dp-values-lo">'
        f'{_e(t("poll.form.lo", lang))}</label><input id="dp-values-lo" name="lo" '
        f'class="dp-values-lo" inputmode="decimal" value="{val("lo", "0")}"{la}></span>'
        f'<span><label for="dp-values-hi">{_e(t("poll.form.hi", lang))}</label>'
        f'<input id="dp-values-hi" name="hi" class="dp-values-hi" inputmode="decimal" '
        f'value="{val("hi", "12")}"></span><span><label for="dp-values-unit">'
        f'{_e(t("poll.form.unit", lang))}</label><input id="dp-values-unit" name="unit" '
        f'class="dp-values-unit" maxlength="20" value="{val("unit", t("poll.unit.hours", lang))}">'
        f'</span></div>{le}'
        f'<button type="submit" class="dp-room-btn dp-room-primary dp-values-open">'
        f'{_e(t("poll.form.vopen", lang))}</button></form>')
    vclose = (f'<form method="post" class="dp-room-action" '
              f'action="{_e(action_url("values-close"))}">{hidden}<button type="submit" '
              f'class="dp-room-btn dp-values-close">{_e(t("poll.form.vclose", lang))}</button>'
              f'</form>')
    methods = [(m, t(f"poll.cdf.method.{m}", lang)) for m in P.CDF_METHODS]
    release_form = (
        f'<form method="post" class="dp-cdf-form" action="{_e(action_url("cdf-release"))}" '
        f'novalidate>{hidden}<div class="dp-poll-row"><span><label for="dp-cdf-eps">'
        f'{_e(t("poll.form.eps", lang))}</label><input id="dp-cdf-eps" name="eps" '
        f'class="dp-cdf-eps" inputmode="decimal" value="{val("cdf_eps", "1")}"{ka}>{ke}</span>'
        f'<span><label for="dp-cdf-delta">{_e(t("poll.form.delta", lang))}</label>'
        f'<input id="dp-cdf-delta" name="delta" class="dp-cdf-delta" inputmode="decimal" '
        f'value="{val("cdf_delta", f"{P.DEFAULT_DELTA:g}")}"{kda}>{kd}</span>'
        f'<span>{select("method", "dp-cdf-method", t("poll.form.method", lang), methods, form.get("method", "pp"))}</span></div>{ge}'  # noqa: E501
        f'<p class="dp-room-small">{_e(t("poll.cdf.neighbours", lang))}</p>'
        f'<button type="submit" class="dp-room-btn dp-room-primary dp-cdf-release">'
        f'{_e(t("poll.form.release", lang))}</button></form>')
    truth = (f'<p><button type="button" class="dp-room-btn dp-room-danger dp-cdf-truth" '
             f'aria-expanded="false" aria-controls="dp-cdf-truth-box">'
             f'{_e(t("poll.truth.button", lang))}</button></p>'
             f'<div id="dp-cdf-truth-box" class="dp-cdf-truth-box" hidden></div>')
    api = href(f"/teach/api/rooms/{code}")
    return f"""
<section class="dp-poll-section" aria-labelledby="dp-poll-h" data-poll-api="{_e(api)}/polls/current?lang={lang}">
  <h2 id="dp-poll-h">{_e(t("poll.section", lang))}</h2>
  <div class="dp-poll-cols">
    <div class="dp-poll-controls">{poll_form}{close}{exports}</div>
    <div class="dp-poll-results" aria-live="polite"><p>{_e(t("poll.res.none", lang))}</p></div>
  </div>
</section>
<section class="dp-cdf-section" aria-labelledby="dp-cdf-h" data-cdf-api="{_e(api)}/cdf?lang={lang}">
  <h2 id="dp-cdf-h">{_e(t("poll.cdf.section", lang))}</h2>
  <div class="dp-poll-cols">
    <div class="dp-poll-controls">{values_form}{vclose}{release_form}</div>
    <div><div class="dp-cdf-results" aria-live="polite"><p>{_e(t("poll.cdf.none", lang))}</p></div>
      {truth}</div>
  </div>
</section>"""  # noqa: E501


# ---------------------------------------------------------------------------------------------
# teacher actions


async def do_action(code: str, action: str, args: dict[str, str]) -> None:
    """One teacher button; raises PollError for bad input (nothing opened)."""
    store = get_hub().store
    now = time.time()
    if action == "poll-open":
        question, preset = P.parse_question(args.get("question"), args.get("preset"))
        eps = P.parse_eps(args.get("eps"))
        model = args.get("model") or "local"
        mech = args.get("mech") or "gaussian"
        delta = P.parse_delta(args.get("delta")) if model == "central" and mech == "gaussian" \
            else P.DEFAULT_DELTA
        kind = args.get("kind") or DEFAULT_KIND
        options = P.parse_options(kind, args.get("choices"))
        poll = P.new_poll(question=question, preset=preset, eps=eps, model=model, kind=kind,
                          options=options, delta=delta, mech=mech, now=now)
        reopen = args.get("reopen") or ""
        if len(reopen) == 12 and all(c in "0123456789abcdef" for c in reopen):
            poll = dataclasses.replace(poll, reopens=reopen)  # the poll a restart lost
        await A.open_poll(store, code, poll)
        await store.hdel(code, "lost", "poll")  # the restart notice: opened again
    elif action == "poll-close":
        await A.close_poll(store, code)
    elif action == "values-open":
        try:
            question, preset = P.parse_question(args.get("question"), args.get("preset"),
                                                "values_question")
        except P.PollError as exc:
            raise P.PollError("values_question", exc.key, **exc.fmt) from None
        lo, hi = P.parse_range(args.get("lo"), args.get("hi"))
        await A.open_ask(store, code, P.new_ask(question=question, preset=preset, lo=lo, hi=hi,
                                                unit=args.get("unit", ""), now=now))
        await store.hdel(code, "lost", "ask")
    elif action == "lost-dismiss":
        await store.remove(code, "lost")
    elif action == "values-close":
        await A.close_ask(store, code)
    elif action == "cdf-release":
        eps = P.parse_eps(args.get("eps"), "cdf_eps")
        delta = P.parse_delta(args.get("delta"), "cdf_delta")
        await A.release(store, code, eps, delta, args.get("method") or "pp")
    _state_cache.clear()


def form_echo(action: str, args: dict[str, str]) -> dict[str, str]:
    """The typed values to put back into the forms after a refusal."""
    if action == "poll-open":
        return {k: args.get(k, "") for k in ("question", "preset", "eps", "model", "delta",
                                              "mech", "kind", "choices")}
    if action == "values-open":
        return {"vquestion": args.get("question", ""), "vpreset": args.get("preset", ""),
                "lo": args.get("lo", ""), "hi": args.get("hi", ""), "unit": args.get("unit", "")}
    if action == "cdf-release":
        return {"cdf_eps": args.get("eps", ""), "cdf_delta": args.get("delta", ""),
                "method": args.get("method", "pp")}
    return {}


# ---------------------------------------------------------------------------------------------
# teacher API


class _TeacherApi(tornado.web.RequestHandler):
    def prepare(self) -> None:
        self.set_header("Cache-Control", "no-store")
        self.set_header("Content-Type", "application/json")

    def lang(self) -> str:
        lang = self.get_query_argument("lang", "ko")
        return lang if lang in ("ko", "en") else "ko"

    def allowed(self, code_text: str) -> str | None:
        code = codes.normalise(code_text)
        if code is None or not tokens.check_cookie(self.get_cookie(tokens.COOKIE)):
            self.set_status(403)
            self.finish(json.dumps({"error": "forbidden"}))
            return None
        return code

    def fail(self, status: int, error: str) -> None:
        self.set_status(status)
        self.finish(json.dumps({"error": error}))

    async def room(self, code_text: str) -> tuple[str, str, Any] | None:
        """(code, language, store) of an existing room the teacher may read; None once the
        answer (403, 404 or 503) is sent."""
        code = self.allowed(code_text)
        if code is None:
            return None
        store = get_hub().store
        try:
            exists = await store.exists(code)
        except StoreDown:
            self.fail(503, "store")
            return None
        if not exists:
            self.fail(404, "no such room")
            return None
        return code, self.lang(), store


class PollApiHandler(_TeacherApi):
    async def get(self, code_text: str) -> None:
        opened = await self.room(code_text)
        if opened is None:
            return
        code, lang, store = opened
        try:
            poll = await A.current_poll(store, code)
            res = await A.poll_results(store, code)
            past = await A.past_polls(store, code)
        except StoreDown:
            return self.fail(503, "store")
        fmt = self.get_query_argument("format", "")
        if poll is None or res is None:
            if fmt:
                return self.fail(404, "no poll")
            self.finish(json.dumps({"poll": None, "html": "<p>" + _e(t("poll.res.none", lang))
                                    + "</p>" + past_table(past, lang)}))
            return
        rd = res.to_dict()  # the export's fields, as the stored results name them
        out = {k: rd[k] for k in ("model", "eps", "n", "reported", "estimate", "ci95")}
        out.update(delta=rd["delta"], clipped=rd["clipped"], open=rd["open"], id=rd["id"],
                   kind=rd["kind"], question=R.question_of(poll, lang),
                   keep_probability=rd["keep_probability"],
                   likelihood_ratio=rd["likelihood_ratio"], few=rd["few"])
        if poll.poll_kind.typed:
            out["options"] = list(poll.options)
        if poll.local:
            out["per_option"] = rd["per_option"]
        elif rd.get("released"):
            out["released"] = rd["released"]
        if fmt == "csv":
            self.set_header("Content-Type", "text/csv; charset=utf-8")
            self.set_header("Content-Disposition", f'attachment; filename="poll-{code}.csv"')
            self.finish(_csv(out, poll, lang))
            return
        if fmt == "json":
            self.set_header("Content-Disposition", f'attachment; filename="poll-{code}.json"')
            self.finish(json.dumps(out, ensure_ascii=False, indent=1))
            return
        out["html"] = results_html(poll, res, lang) + past_table(past, lang)
        self.finish(json.dumps(out, ensure_ascii=False, allow_nan=False))


def _csv(out: dict[str, Any], poll: Poll, lang: str) -> str:
    """The poll's export: one row per option. The question and the options are typed by the
    teacher, so every text cell is neutralised (app/shell/csvsafe.py); numbers stay numbers
    (an unbiased estimate may be negative)."""
    rows: list[list[object]] = [[
        "question", "model", "eps", "delta", "n", "option", "sent_or_noisy_count", "estimate",
        "ci95_lo", "ci95_hi", "ci95_clipped"]]
    labels = R.option_labels(poll, lang)
    for i, lab in enumerate(labels):
        row: list[object]
        if poll.local:
            e = out["per_option"][i]
            row = [e["reported"], e["estimate"], *e["ci95"], str(e["clipped"])]
        elif out.get("released"):
            o = out["released"]["options"][i]
            row = [o["noisy_count"], o["estimate"], *o["ci95"], str(o["clipped"])]
        else:
            row = ["", "", "", "", ""]
        rows.append([out["question"], out["model"], out["eps"], out["delta"], out["n"], lab,
                     *row])
    return csvsafe.rows_text(rows)


class CdfApiHandler(_TeacherApi):
    async def get(self, code_text: str) -> None:
        opened = await self.room(code_text)
        if opened is None:
            return
        code, lang, store = opened
        try:
            ask = await A.current_ask(store, code)
            rel = await A.current_cdf(store, code)
            led = await A.ledger(store, code)
            n_values = len(await store.hgetall(code, f"values:{ask.id}")) if ask else 0
            truth = None
            if self.get_query_argument("truth", "") == "1" and rel and ask:
                vals = await A.values(store, code, ask.id)
                truth = P.true_cdf(vals, rel.xs)
        except StoreDown:
            return self.fail(503, "store")
        out: dict[str, Any] = {"n_values": n_values, "ledger": led.to_dict(), "release": None}
        if rel:
            rd = rel.to_dict()
            out["release"] = {k: rd[k] for k in ("id", "method", "eps", "delta", "n", "degree",
                                                 "mechanism", "sensitivity", "norm",
                                                 "noise_scale")}
        out["html"] = cdf_html(rel, led, ask, n_values, lang)
        if truth is not None and rel and ask:
            out["truth_html"] = truth_html(rel, ask, truth, lang)
        self.finish(json.dumps(out, ensure_ascii=False))


# ---------------------------------------------------------------------------------------------
# students


def _lang(handler: tornado.web.RequestHandler) -> str:
    lang = handler.get_query_argument("lang", "ko")
    return lang if lang in ("ko", "en") else "ko"


async def public_state(code: str, lang: str) -> tuple[int, str]:
    """(status, JSON) of what a student's page shows; cached for STATE_CACHE_S per process."""
    now = time.monotonic()
    hit = _state_cache.get((code, lang))
    if hit is not None and now - hit[0] < STATE_CACHE_S:
        return hit[1], hit[2]
    store = get_hub().store
    if not await store.exists(code):
        if await get_hub().being_restored(code):  # a store restart: retry, not "ended"
            return 503, json.dumps({"error": "store"})
        out = (404, json.dumps({"ended": True}))
    else:
        await get_hub().know_epoch()
        poll = await A.current_poll(store, code)
        ask = await A.current_ask(store, code)
        rel = await A.current_cdf(store, code)
        led = await A.ledger(store, code)
        body = {
            "ended": False,
            "poll": None if poll is None else {
                "id": poll.id, "open": poll.open, "eps": poll.eps, "model": poll.model,
                "k": poll.k},
            "poll_html": student_poll_html(poll, lang),
            "ask": None if ask is None else {"id": ask.id, "open": ask.open},
            "ask_html": student_ask_html(ask, lang),
            "cdf": None if rel is None else {"id": rel.id},
            "cdf_html": student_cdf_html(rel, ask, lang),
            "ledger_text": (t("poll.student.ledger", lang, count=led.count,
                              eps=R.num(led.eps, 4), delta=f"{led.delta:.3g}")
                            if led.count else ""),
        }
        out = (200, json.dumps(body, ensure_ascii=False))
    if len(_state_cache) > 2000:
        _state_cache.clear()
    _state_cache[(code, lang)] = (now, *out)
    return out


class JoinStateHandler(tornado.web.RequestHandler):
    def initialize(self, https: bool = False) -> None:
        self.https = https

    async def get(self) -> None:
        self.set_header("Cache-Control", "no-store")
        self.set_header("Content-Type", "application/json")
        code = codes.normalise(self.get_query_argument("room", None))
        if code is None:
            self.set_status(404)
            self.finish(json.dumps({"ended": True}))
            return
        client, address = guard.requester(self, self.https)
        wait = guard.GUARD.blocked(client, address)
        if wait > 0:  # a guesser: every code alike, real or not
            self.set_header("Retry-After", str(int(wait) + 1))
            self.set_status(429)
            self.finish(json.dumps({"error": "too_many"}))
            return
        try:
            status, body = await public_state(code, _lang(self))
            if status == 404:
                guard.GUARD.miss(client, address)
            elif status == 200:
                sid = roster.student_of(self.get_cookie(roster.COOKIE), code)
                if sid is not None:
                    await roster.seen(get_hub().store, code, sid)
        except StoreDown:
            self.set_status(503)
            self.finish(json.dumps({"error": "store"}))
            return
        self.set_status(status)
        self.finish(body)


class JoinSendHandler(tornado.web.RequestHandler):
    """POST /join/answer and /join/value: one JSON object; never logged, never echoed."""

    FIELDS: ClassVar[dict[str, set[str]]] = {"answer": {"room", "poll", "sent"},
                                             "value": {"room", "ask", "value"}}

    def initialize(self, kind: str, https: bool = False) -> None:
        self.kind, self.https = kind, https

    def log_exception(self, *args: Any) -> None:  # never the request body in a log line
        log.warning("room: a student's %s failed (%s)", self.kind,
                    args[0].__name__ if args else "?")

    def reply(self, status: int, error: str = "", **more: Any) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps({"ok": status == 200} | ({"error": error} if error else {})
                               | more))

    async def post(self) -> None:
        origin = self.request.headers.get("Origin")
        if origin is None or origin == "null" or \
                origin.split("://", 1)[-1] != self.request.host:
            self.reply(403, "origin")
            return
        try:
            body = json.loads(self.request.body or b"{}")
        except ValueError:
            body = None
        # exactly the fields of this kind: anything more (a made-up "sid") is refused
        if not isinstance(body, dict) or len(self.request.body) > 2000 \
                or set(body) != self.FIELDS[self.kind]:
            self.reply(400, "bad")
            return
        code = codes.normalise(body.get("room") if isinstance(body.get("room"), str) else None)
        item = body.get("poll" if self.kind == "answer" else "ask")
        if code is None or not isinstance(item, str) or len(item) > 40:
            self.reply(400, "bad")
            return
        client, address = guard.requester(self, self.https)
        wait = guard.GUARD.blocked(client, address)
        if wait > 0:
            self.set_header("Retry-After", str(int(wait) + 1))
            self.reply(429, "too_many")
            return
        store = get_hub().store
        try:
            if not await store.exists(code):
                guard.GUARD.miss(client, address)
                self.reply(404, "gone")
                return
            # the student, by the server's word: a credential it issued for this room
            sid = roster.student_of(self.get_cookie(roster.COOKIE), code)
            if sid is None:
                self.reply(403, "not_joined")
                return
            await roster.register(store, code, sid)
            if self.kind == "answer":
                r = await A.answer_poll(store, code, item, sid, body.get("sent"))
            else:
                v = body.get("value")
                r = "bad" if isinstance(v, float) and not math.isfinite(v) else \
                    await A.send_value(store, code, item, sid, v)
            more: dict[str, Any] = {}
            if r == "already" and self.kind == "answer":
                more["sent"] = await A.sent_answer(store, code, item, sid)
        except StoreDown:
            self.reply(503, "store")
            return
        status = {"ok": 200, "bad": 400, "already": 409, "closed": 409, "full": 409,
                  "gone": 404}[r]
        self.reply(status, "" if r == "ok" else r, **more)


def routes(kw: dict[str, Any]) -> list[tuple[str, type[tornado.web.RequestHandler], Any]]:
    return [(r"/teach/api/rooms/([A-Za-z0-9]{1,12})/polls/current", PollApiHandler, {}),
            (r"/teach/api/rooms/([A-Za-z0-9]{1,12})/cdf", CdfApiHandler, {}),
            (r"/join/state", JoinStateHandler, dict(kw)),
            (r"/join/answer", JoinSendHandler, {"kind": "answer", **kw}),
            (r"/join/value", JoinSendHandler, {"kind": "value", **kw})]
