"""The live class's records and messages write and read exactly the JSON the wing wrote when
they were dicts, so a room saved before app/room/records.py existed loads after it (the texts
below were written by that code, 2026-12-05; the CDF curves cut to three points); and the poll
kinds are registered once (app/room/kinds.py): an unknown kind is refused as before, a new kind
is one entry."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from app.room import activities as A
from app.room import kinds, poll_pages, teach_view
from app.room import poll as P
from app.room.hub import RoomHub, set_hub
from app.room.kinds import KINDS, PollKind, poll_kind
from app.room.poll_render import option_labels
from app.room.records import Answer, Ask, CdfRelease, LedgerStep, Poll, PollResults
from app.room.state import ENDED, ClassQuestion, RoomState, parse_message, state_message
from app.room.store import MemoryStore
from app.shell.i18n import catalogue

POLL_LOCAL = '{"id":"a1b2c3d4e5f6","question":"Did you sleep 8 h?","preset":"","eps":1.0986122886681098,"model":"local","kind":"yesno","k":2,"options":[],"delta":0.0,"mech":"rr","open":true,"opened":1733400000.125,"released":null}'  # noqa: E501
POLL_CHOICE = '{"id":"0123456789ab","question":"","preset":"exam","eps":0.5,"model":"local","kind":"choice","k":3,"options":["a","b","c"],"delta":0.0,"mech":"rr","open":true,"opened":1733400001.5,"released":null,"reopens":"ba9876543210"}'  # noqa: E501
POLL_CENTRAL = '{"id":"00000000000a","question":"Q é","preset":"","eps":1.0,"model":"central","kind":"yesno","k":2,"options":[],"delta":1e-05,"mech":"gaussian","open":false,"opened":2.0,"released":{"mech":"gaussian","scale":3.7306316348159694,"sensitivity":1.0,"n":12,"options":[{"noisy_count":13.613917438340376,"estimate":1.134493119861698,"ci95":[0.5251678162096078,1.0],"clipped":true},{"noisy_count":-3.534244813813631,"estimate":-0.2945204011511359,"ci95":[0.0,0.31480490250095433],"clipped":true}],"eps":1.0,"delta":1e-05}}'  # noqa: E501
# POLL_LOCAL's results with the answers {"s1": "0", "s2": "1", "s3": "0"}
RES_LOCAL = '{"id":"a1b2c3d4e5f6","model":"local","kind":"yesno","question":"Did you sleep 8 h?","preset":"","eps":1.0986122886681098,"n":3,"open":true,"few":true,"keep_probability":0.75,"likelihood_ratio":3.0000000000000004,"options":[],"reported":{"yes":2,"no":1},"per_option":[{"reported":2,"raw_share":0.6666666666666666,"estimate":0.833333333333333,"sd":0.4999999999999999,"ci95":[0.0,1.0],"clipped":true},{"reported":1,"raw_share":0.3333333333333333,"estimate":0.1666666666666666,"sd":0.4999999999999999,"ci95":[0.0,1.0],"clipped":true}],"estimate":0.833333333333333,"ci95":[0.0,1.0],"clipped":true,"delta":0.0}'  # noqa: E501
RES_LOCAL_EMPTY = '{"id":"a1b2c3d4e5f6","model":"local","kind":"yesno","question":"Did you sleep 8 h?","preset":"","eps":1.0986122886681098,"n":0,"open":true,"few":true,"keep_probability":0.75,"likelihood_ratio":3.0000000000000004,"options":[],"reported":{"yes":0,"no":0},"per_option":[{"reported":0,"raw_share":0.0,"estimate":null,"sd":null,"ci95":[0.0,1.0],"clipped":true},{"reported":0,"raw_share":0.0,"estimate":null,"sd":null,"ci95":[0.0,1.0],"clipped":true}],"estimate":null,"ci95":null,"clipped":true,"delta":0.0}'  # noqa: E501
RES_CHOICE = '{"id":"0123456789ab","model":"local","kind":"choice","question":"","preset":"exam","eps":0.5,"n":2,"open":true,"few":true,"keep_probability":0.45186276187760605,"likelihood_ratio":1.6487212707001282,"options":["a","b","c"],"reported":{"0":1,"1":0,"2":1},"per_option":[{"reported":1,"raw_share":0.5,"estimate":1.270747041268399,"sd":1.979317581651,"ci95":[0.0,1.0],"clipped":true},{"reported":0,"raw_share":0.0,"estimate":-1.5414940825367984,"sd":1.7739647819966338,"ci95":[0.0,1.0],"clipped":true},{"reported":1,"raw_share":0.5,"estimate":1.270747041268399,"sd":1.979317581651,"ci95":[0.0,1.0],"clipped":true}],"estimate":1.270747041268399,"ci95":[0.0,1.0],"clipped":true,"delta":0.0}'  # noqa: E501
RES_CENTRAL = '{"id":"00000000000a","model":"central","kind":"yesno","question":"Q é","preset":"","eps":1.0,"n":1,"open":false,"few":true,"keep_probability":0.7310585786300049,"likelihood_ratio":2.718281828459045,"options":[],"delta":1e-05,"mech":"gaussian","reported":null,"released":{"mech":"gaussian","scale":3.7306316348159694,"sensitivity":1.0,"n":12,"options":[{"noisy_count":13.613917438340376,"estimate":1.134493119861698,"ci95":[0.5251678162096078,1.0],"clipped":true},{"noisy_count":-3.534244813813631,"estimate":-0.2945204011511359,"ci95":[0.0,0.31480490250095433],"clipped":true}],"eps":1.0,"delta":1e-05},"estimate":1.134493119861698,"ci95":[0.5251678162096078,1.0],"clipped":true}'  # noqa: E501
RES_CENTRAL_OPEN = '{"id":"00000000000a","model":"central","kind":"yesno","question":"Q é","preset":"","eps":1.0,"n":1,"open":true,"few":true,"keep_probability":0.7310585786300049,"likelihood_ratio":2.718281828459045,"options":[],"delta":1e-05,"mech":"gaussian","reported":null,"estimate":null,"ci95":null,"clipped":false}'  # noqa: E501
ASK = '{"id":"abcabcabcabc","question":"","preset":"sleep","lo":0.0,"hi":12.0,"unit":"hours","open":true,"opened":3.5}'  # noqa: E501
CDF_PP = '{"id":"cdfcdfcdf0pp","method":"pp","eps":1.0,"delta":1e-05,"n":12,"lo":0.0,"hi":12.0,"xs":[0.0,6.0,12.0],"curves":{"0":[0.50869,0.50869,1.0],"1":[0.0,0.50869,1.0],"2":[0.0,0.30321,1.0],"3":[0.0,0.30321,1.0],"4":[0.0,0.585,1.0],"5":[0.0,0.585,1.0],"6":[0.0,0.78538,1.0],"7":[0.0,0.78538,1.0],"8":[0.0,0.94197,1.0],"9":[0.0,0.94197,1.0],"10":[0.0,0.95038,1.0],"11":[0.0,0.95038,1.0],"12":[0.0,0.69318,1.0]},"degree":1,"mechanism":"gaussian","sensitivity":0.08333333333333333,"norm":"L2","noise_scale":0.31088596956799747,"step":{"eps":1.0,"delta":1e-05,"mu":0.2680511232112922},"ask":"abcabcabcabc","released_at":1733400002.25}'  # noqa: E501
CDF_HQ = '{"id":"cdfcdfcdf1hq","method":"hq","eps":1.0,"delta":0.0,"n":12,"lo":0.0,"hi":12.0,"xs":[0.0,6.0,12.0],"curves":{"-":[0.0,0.42074,1.0]},"degree":null,"mechanism":"laplace","sensitivity":0.16666666666666666,"norm":"L1","noise_scale":0.16666666666666666,"step":{"eps":1.0,"delta":0.0,"mu":null},"ask":"abcabcabcabc","released_at":1733400002.25}'  # noqa: E501
STEP_POLL = '{"eps":1.0,"delta":1e-05,"mu":0.26805112321129226,"what":"poll","method":"gaussian"}'
STEP_CDF = '{"eps":1.0,"delta":1e-05,"mu":0.2680511232112922,"what":"cdf","method":"pp"}'
STEP_HQ = '{"eps":1.0,"delta":0.0,"mu":null,"what":"cdf","method":"hq"}'
STATE = '{"type":"state","seq":4,"origin":"abcd","snap":{"lab":{"sigma":"2"},"tour":0,"revealed":true},"question":{"id":"q0q0q0q0q0q0","kind":"quiz","ref":"gaussian:q-pure","n":3,"answer":1,"revealed":false,"at":1733400003.5}}'  # noqa: E501
STATE_NO_QUESTION = '{"type":"state","seq":1,"origin":"room","snap":{"lab":{},"tour":0,"revealed":true},"question":null}'  # noqa: E501
ENDED_TEXT = '{"type": "ended"}'

STORED: list[tuple[Any, str]] = [
    (Poll, POLL_LOCAL), (Poll, POLL_CHOICE), (Poll, POLL_CENTRAL), (PollResults, RES_LOCAL),
    (PollResults, RES_LOCAL_EMPTY), (PollResults, RES_CHOICE), (PollResults, RES_CENTRAL),
    (PollResults, RES_CENTRAL_OPEN), (Ask, ASK), (CdfRelease, CDF_PP), (CdfRelease, CDF_HQ),
    (LedgerStep, STEP_POLL), (LedgerStep, STEP_CDF), (LedgerStep, STEP_HQ),
    (RoomState, STATE), (RoomState, STATE_NO_QUESTION)]


def spaced(text: str) -> str:
    """A text as the hub writes it back after a store restart (json.dumps' own spacing)."""
    return json.dumps(json.loads(text), ensure_ascii=False)


@pytest.mark.parametrize(("cls", "text"), STORED, ids=[f"{c.__name__}-{i}"
                                                       for i, (c, _) in enumerate(STORED)])
def test_a_stored_text_reads_and_writes_back_byte_for_byte(cls: Any, text: str) -> None:
    rec = cls.from_json(text)
    assert rec is not None
    assert rec.to_json() == text
    assert list(rec.to_dict()) == list(json.loads(text))  # the keys in the same order
    again = cls.from_dict(json.loads(text))
    assert again is not None and again.to_dict() == rec.to_dict()
    assert json.dumps(rec.to_dict(), ensure_ascii=False) == spaced(text)  # inside a notice


def test_what_is_not_a_record_reads_as_nothing() -> None:
    for bad in (None, "", "x", "[]", "3", '{"id": 3}', '{"id": "a"}'):
        for cls in (Poll, PollResults, Ask, CdfRelease, LedgerStep, RoomState):
            assert cls.from_json(bad) is None, (cls, bad)
    assert Poll.from_json(POLL_LOCAL.replace('"yesno"', '"bogus"')) is None  # no such kind
    assert Poll.from_json(POLL_CENTRAL.replace('"n":12', '"n":"x"')) is None  # a broken release


def test_room_messages() -> None:
    st = RoomState.from_json(STATE)
    assert st is not None and st.seq == 4 and st.origin == "abcd" and st.snap["lab"] == {
        "sigma": "2"}
    assert st.question == ClassQuestion("q0q0q0q0q0q0", "quiz", "gaussian:q-pure", 3, 1, False,
                                        1733400003.5)
    assert state_message(st.seq, st.origin, st.snap, st.question) == STATE
    assert parse_message(ENDED_TEXT) is ENDED and ENDED.to_json() == ENDED_TEXT
    assert RoomState.from_json(ENDED_TEXT) is None
    # a question written without "at" (before it existed) stays without it
    q = {"id": "q1", "kind": "tour", "ref": "3", "n": 2, "answer": None, "revealed": False}
    text = json.dumps({"type": "state", "seq": 2, "origin": "t", "snap": {}, "question": q},
                      separators=(",", ":"))
    back = RoomState.from_json(text)
    assert back is not None and back.to_json() == text and back.question is not None
    assert back.question.at is None
    # a question that is not one is dropped, the state kept (as before)
    broken = RoomState.from_json(text.replace('"n":2', '"n":1'))
    assert broken is not None and broken.question is None and broken.seq == 2
    assert parse_message('{"type":"state","seq":"1","snap":{}}') is None


def test_answers() -> None:
    for i in range(7):
        a = Answer.from_json(str(i))
        assert a == Answer(i) and a.to_json() == str(i)
    for bad in (None, "", "x", "-1", "1.0", " 1", "\u00b2"):
        assert Answer.from_json(bad) is None, bad
    assert P.tally({"a": "0", "b": "1", "c": "1", "d": "7", "e": "x", "f": "\u00b2"}, 2) == [1, 2]


def test_a_room_saved_before_the_change_loads_after_it() -> None:
    """A room as the code before the records wrote it: read through the wing, closed, and
    written back after a store restart in the texts that code wrote."""
    async def body() -> None:
        store = MemoryStore(60.0)
        hub = RoomHub(store)
        set_hub(hub)
        code = "H8XEX4"
        try:
            assert await store.create(code, {"created": "0", "lang": "en"})
            for name, text in (("state", STATE), ("seq", "4"), ("poll", POLL_LOCAL),
                               ("ask", ASK), ("cdf", CDF_PP)):
                await store.set(code, name, text)
            for sid, v in (("s1", "0"), ("s2", "1"), ("s3", "0")):
                await store.hset(code, "pollans:a1b2c3d4e5f6", sid, v)
            for i in range(12):
                await store.hset(code, "values:abcabcabcabc", f"s{i}", repr(4.0 + i / 2))
            for name, key, text in (("polls", "00000000000a", RES_CENTRAL),
                                    ("polls", "0123456789ab", RES_CHOICE),
                                    ("ledger", "00000000000a", STEP_POLL),
                                    ("ledger", "cdfcdfcdf0pp", STEP_CDF)):
                await store.hset(code, name, key, text)
            await store.hset(code, "answers:q0q0q0q0q0q0", "s1", "2")

            res = await A.poll_results(store, code)
            assert res is not None and res.to_json() == RES_LOCAL
            past = await A.past_polls(store, code)
            assert sorted(r.to_json() for r in past) == sorted([RES_CENTRAL, RES_CHOICE])
            rel = await A.current_cdf(store, code)
            assert rel is not None and rel.to_json() == CDF_PP
            led = await A.ledger(store, code)
            assert led.count == 2 and led.rule == "gdp" and led.steps[0].what == "poll"
            state = await hub.room_state(code)
            assert state is not None and state.to_json() == STATE
            msg = await hub.room_state(code)  # app/serve's read
            assert msg is not None and msg.to_dict() == json.loads(STATE)

            status, body = await poll_pages.public_state(code, "en")
            got = json.loads(body)
            assert status == 200 and got["poll"] == {
                "id": "a1b2c3d4e5f6", "open": True, "eps": 1.0986122886681098,
                "model": "local", "k": 2}
            assert got["ask"] == {"id": "abcabcabcabc", "open": True}
            assert got["cdf"] == {"id": "cdfcdfcdf0pp"} and "dp-cdf-curve" in got["cdf_html"]
            data = await teach_view.gather(code)
            assert data.view.question is not None and data.view.counts == [0, 0, 1]
            page = teach_view.projector_live_html(data, "en")
            assert "Did you sleep 8 h?" in page and 'data-release="cdfcdfcdf0pp"' in page
            await teach_view.gather(code)  # read twice: this process now holds the room

            # a store restart: the state, the ledger and the closed polls come back as the
            # code before wrote them back; the open poll and the number question are named
            store.restart()
            await hub.check_restart()
            assert await store.get(code, "state") == STATE
            assert await store.hgetall(code, "polls") == {
                "00000000000a": spaced(RES_CENTRAL), "0123456789ab": spaced(RES_CHOICE)}
            assert await store.hgetall(code, "ledger") == {
                "00000000000a": spaced(STEP_POLL), "cdfcdfcdf0pp": spaced(STEP_CDF)}
            lost = await store.hgetall(code, "lost")
            assert lost["poll"] == json.dumps({"poll": json.loads(POLL_LOCAL), "n": 3},
                                              ensure_ascii=False)
            assert lost["ask"] == json.dumps({"ask": json.loads(ASK), "n": 12},
                                             ensure_ascii=False)
            assert json.loads(lost["release"]) == {"id": "cdfcdfcdf0pp", "method": "pp",
                                                   "eps": 1.0, "delta": 1e-05, "n": 12}

            # closing the poll saved before writes what the code before wrote
            await store.set(code, "poll", POLL_LOCAL)
            for sid, v in (("s1", "0"), ("s2", "1"), ("s3", "0")):
                await store.hset(code, "pollans:a1b2c3d4e5f6", sid, v)
            await A.close_poll(store, code)
            closed = POLL_LOCAL.replace('"open":true', '"open":false')
            assert await store.get(code, "poll") == closed
            assert (await store.hgetall(code, "polls"))["a1b2c3d4e5f6"] == RES_LOCAL.replace(
                '"open":true', '"open":false')
            assert await A.sent_answer(store, code, "a1b2c3d4e5f6", "s2") == "no"
        finally:
            await hub.stop()
            set_hub(None)

    asyncio.run(body())


# ---- the poll kinds ---------------------------------------------------------------------------
def test_every_kind_has_its_texts() -> None:
    assert list(KINDS) == ["yesno", "choice"] and kinds.DEFAULT_KIND in KINDS
    for lang in ("ko", "en"):
        texts = catalogue(lang)
        for k in KINDS.values():
            assert k.label_key in texts, (lang, k.name)
            assert all(f"poll.{v}" in texts for v in k.fixed), (lang, k.name)
    assert poll_kind("yesno") is KINDS["yesno"] and poll_kind("x") is None
    assert poll_kind(None) is None


def test_an_unknown_kind_is_refused_as_before() -> None:
    with pytest.raises(P.PollError) as e:
        P.new_poll(question="q", preset="", eps=1.0, kind="bogus")
    assert (e.value.field, e.value.key) == ("model", "poll.err.model")
    assert P.parse_options("bogus", "a\nb") == []  # no choices error first: the model's

    async def body() -> None:
        store = MemoryStore(60.0)
        set_hub(RoomHub(store))
        try:
            assert await store.create("H8XEX4", {})
            with pytest.raises(P.PollError) as e:
                await poll_pages.do_action("H8XEX4", "poll-open", {
                    "preset": "homework", "eps": "1", "kind": "bogus", "choices": "a\nb"})
            assert (e.value.field, e.value.key) == ("model", "poll.err.model")
            assert await store.get("H8XEX4", "poll") is None
        finally:
            set_hub(None)

    asyncio.run(body())


def test_a_kind_is_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kind of two typed options, registered alone: polls of it open, take answers by
    index, are estimated and shown with every option, and are stored and read back."""
    monkeypatch.setitem(KINDS, "pair", PollKind("pair", choices=(2, 2)))
    with pytest.raises(P.PollError) as e:
        P.parse_options("pair", "x\ny\nz")
    assert e.value.key == "poll.err.choices" and e.value.fmt["lo"] == e.value.fmt["hi"] == 2
    opts = P.parse_options("pair", "x\ny")
    poll = P.new_poll(question="q", preset="", eps=1.0, kind="pair", options=opts)
    assert poll.k == 2 and poll.options == ("x", "y") and poll.poll_kind.typed
    assert P.option_index(poll, 1) == 1 and P.option_index(poll, "yes") is None
    assert poll.poll_kind.sent(1) == 1
    res = P.results(poll, {"a": "0", "b": "1", "c": "1"})
    assert res.reported == {"0": 1, "1": 2} and len(res.per_option) == 2
    assert option_labels(poll, "en") == ["x", "y"]
    assert poll.poll_kind.shown([1, 2]) == [1, 2] and KINDS["yesno"].shown([1, 2]) == [1]
    assert Poll.from_json(poll.to_json()) == poll
