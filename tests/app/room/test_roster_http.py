"""One student, one answer, by the server's word; limits that fit a lecture hall (one campus
address for everyone). In-process Tornado app with the room routes, as test_poll_http.py."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from test_poll_http import Client, cookies_of, run_with

from app.room import guard, roster
from app.room.store import MemoryStore

CODE_CHARS = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


@pytest.fixture(autouse=True)
def fresh_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "GUARD", guard.CodeGuard())
    monkeypatch.setattr(guard, "BACKOFF", guard.TokenBackoff())


def other_code(code: str, i: int = 0) -> str:
    """A well-formed code that is not ``code``."""
    n = len(CODE_CHARS)
    c = CODE_CHARS[(CODE_CHARS.index(code[0]) + 1 + i) % n]
    d = CODE_CHARS[(i // n) % n]
    if c + d == code[:2]:  # i = 30, 61, ... give code's own first letter: one in 31 runs
        d = CODE_CHARS[(CODE_CHARS.index(d) + 1) % n]
    return c + d + code[2:]


async def open_poll(c: Client, code: str) -> str:
    csrf = await c.csrf(code)
    r = await c.act(code, "poll-open", csrf, preset="homework", eps="1.098612", model="local")
    assert r.code == 303
    return str(json.loads((await c.fetch(f"/join/state?room={code}")).body)["poll"]["id"])


# ---- credentials, without a server ------------------------------------------------------------
def test_a_credential_is_the_servers_and_this_rooms_only() -> None:
    sid, cred = roster.make_credential("ABCDEF", now=1000.0, token="t" * 24)
    assert roster.check_credential("ABCDEF", cred, now=1001.0, token="t" * 24) == sid
    assert roster.check_credential("ABCDEG", cred, now=1001.0, token="t" * 24) is None
    assert roster.check_credential("ABCDEF", cred, now=1001.0, token="u" * 24) is None
    assert roster.check_credential("ABCDEF", cred, now=1000.0 + roster.LIFETIME_S + 1,
                                   token="t" * 24) is None
    forged = cred[:-1] + ("0" if cred[-1] != "0" else "1")
    assert roster.check_credential("ABCDEF", forged, now=1001.0, token="t" * 24) is None
    other_sid = "0" * 24
    assert roster.check_credential("ABCDEF", other_sid + cred[24:], now=1001.0,
                                   token="t" * 24) is None


def test_the_cookie_keeps_the_last_rooms() -> None:
    value = None
    for code in ("AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD", "EEEEEE"):
        value = roster.with_credential(value, code, f"cred-{code}")
    assert roster.credential_in(value, "EEEEEE") == "cred-EEEEEE"
    assert roster.credential_in(value, "BBBBBB") == "cred-BBBBBB"
    assert roster.credential_in(value, "AAAAAA") is None  # the oldest of five is dropped
    again = roster.with_credential(value, "BBBBBB", "new")
    assert again.startswith("BBBBBB:new|") and again.count("BBBBBB") == 1


def test_size_field() -> None:
    assert roster.parse_size("") is None and roster.parse_size(" 120 ") == 120
    for bad in ("0", "-3", "2.5", "abc", str(roster.SIZE_MAX + 1)):
        with pytest.raises(ValueError):
            roster.parse_size(bad)


# ---- over HTTP -------------------------------------------------------------------------------
async def _one_answer_per_student(c: Client) -> None:
    code = await c.sign_in()
    pid = await open_poll(c, code)
    phone = await c.device(code, 1)
    assert roster.COOKIE in phone and guard.CLIENT_COOKIE in phone
    assert "HttpOnly" in next(line for line in (await c.fetch(
        f"/join?room={code}")).headers.get_list("Set-Cookie") if line.startswith(roster.COOKIE))
    r = await c.send("answer", {"room": code, "poll": pid, "sent": "yes"}, phone)
    assert r.code == 200
    # a second tab of the same browser: the same cookie, the same student
    r = await c.send("answer", {"room": code, "poll": pid, "sent": "no"}, dict(phone))
    body = json.loads(r.body)
    assert r.code == 409 and body["error"] == "already" and body["sent"] == "yes"
    # made-up ids and extra fields: 400; no credential, a forged one, another room's: 403
    for extra in ({"sid": "a" * 32}, {"student": "x"}, {"n": 1}):
        r = await c.send("answer", {"room": code, "poll": pid, "sent": "yes", **extra}, {})
        assert r.code == 400, extra
    r = await c.send("answer", {"room": code, "poll": pid}, phone)
    assert r.code == 400
    for jar in ({}, {roster.COOKIE: f"{code}:{'1' * 24}.9999999999.{'0' * 32}"},
                {roster.COOKIE: phone[roster.COOKIE].replace(code, other_code(code))}):
        r = await c.send("answer", {"room": code, "poll": pid, "sent": "yes"}, jar)
        assert r.code == 403 and json.loads(r.body)["error"] == "not_joined", jar
    # 40 made-up students cannot stuff the poll
    for i in range(40):
        jar = {roster.COOKIE: f"{code}:{i:024x}.9999999999.{'f' * 32}"}
        assert (await c.send("answer", {"room": code, "poll": pid, "sent": "yes"}, jar)
                ).code == 403
    data = json.loads((await c.api(code)).body)
    assert data["n"] == 1
    # lock: a cleared cookie is no new student; who joined before still answers
    late = await c.device(code, 2)
    csrf = await c.csrf(code)
    assert (await c.act(code, "lock", csrf)).code == 303
    r = await c.fetch(f"/join?room={code}&lang=en")
    assert r.code == 403 and "locked" in r.body.decode()
    assert roster.COOKIE not in cookies_of(r)
    r = await c.fetch(f"/join?room={code}&lang=en", cookies=late)
    assert r.code == 200
    assert (await c.send("answer", {"room": code, "poll": pid, "sent": "no"}, late)).code == 200
    summary = await roster.summary(_store(), code)
    assert summary["joined"] == 3 and summary["locked"] is True
    assert (await c.act(code, "unlock", csrf)).code == 303
    # the expected class size: answers beyond it are refused and counted
    assert (await c.act(code, "size", csrf, size="abc")).code == 400
    assert (await c.act(code, "size", csrf, size="3")).code == 303
    third = await c.device(code, 3)
    fourth = await c.device(code, 4)
    assert (await c.send("answer", {"room": code, "poll": pid, "sent": "no"}, third)).code == 200
    r = await c.send("answer", {"room": code, "poll": pid, "sent": "no"}, fourth)
    assert r.code == 409 and json.loads(r.body)["error"] == "full"
    summary = await roster.summary(_store(), code)
    assert summary["size"] == 3 and summary["refused"] == 1
    assert json.loads((await c.api(code)).body)["n"] == 3
    # the class page's state marks the page as seen (the "connected" count)
    await c.fetch(f"/join/state?room={code}", cookies=third)
    assert (await roster.summary(_store(), code))["class_pages"] >= 1


def _store() -> Any:
    from app.room.hub import get_hub

    return get_hub().store


def test_one_answer_per_student(monkeypatch: pytest.MonkeyPatch) -> None:
    run_with(MemoryStore(600), _one_answer_per_student, monkeypatch)


async def _teacher_after_wrong_tokens(c: Client) -> None:
    # 50 wrong tokens from the one campus address (in parallel, as a script would)
    t0 = time.monotonic()
    wrong = await asyncio.gather(*(c.fetch("/teach", "POST", f"token=guess{i}")
                                   for i in range(50)))
    assert all(r.code == 403 for r in wrong)
    assert time.monotonic() - t0 >= guard.TOKEN_DELAY_MAX_S * 0.9  # they cost their sender
    code = await c.sign_in()  # the right token, from the same address, at once
    assert len(code) == 6


def test_the_teacher_signs_in_after_50_wrong_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    run_with(MemoryStore(600), _teacher_after_wrong_tokens, monkeypatch)


async def _a_hall_behind_one_address(c: Client) -> None:
    code = await c.sign_in()
    admitted = 0
    for i in range(300):
        jar = cookies_of(await c.fetch("/join?lang=en"))  # the join form first
        assert guard.CLIENT_COOKIE in jar
        if i % 10 == 0:  # 30 of them mistype once
            r = await c.fetch(f"/join?room={other_code(code, i)}&lang=en", cookies=jar)
            assert r.code == 404
        r = await c.fetch(f"/join?room={code.lower()}&lang=en", cookies=jar)
        assert r.code == 200, (i, r.code)
        admitted += 1
    # students who scan the QR code (no cookie yet), 30 of them after a typo
    for i in range(300):
        if i % 10 == 0:
            assert (await c.fetch(f"/join?room={other_code(code, 400 + i)}")).code == 404
        r = await c.fetch(f"/join?room={code}")
        assert r.code == 200, (i, r.code)
        admitted += 1
    assert admitted == 600
    assert (await roster.summary(_store(), code))["joined"] == 600


def test_300_joins_with_30_typos_from_one_address(monkeypatch: pytest.MonkeyPatch) -> None:
    run_with(MemoryStore(600), _a_hall_behind_one_address, monkeypatch)


async def _guessing_is_limited(c: Client) -> None:
    code = await c.sign_in()
    pid = await open_poll(c, code)
    guesser = cookies_of(await c.fetch("/join"))
    for i in range(guard.CLIENT_MISSES):
        assert (await c.fetch(f"/join?room={other_code(code, i)}", cookies=guesser)).code == 404
    # now every endpoint answers this browser alike for real and unknown codes: no oracle
    for path in (f"/join?room={code}", f"/join?room={other_code(code, 99)}",
                 f"/join/state?room={code}", f"/join/state?room={other_code(code, 98)}"):
        r = await c.fetch(path, cookies=guesser)
        assert r.code == 429 and r.headers.get("Retry-After"), path
    r = await c.send("answer", {"room": code, "poll": pid, "sent": "yes"}, guesser)
    assert r.code == 429
    # /join/state and /join/answer count unknown codes too (the side doors)
    side = cookies_of(await c.fetch("/join"))
    for i in range(guard.CLIENT_MISSES // 2):
        assert (await c.fetch(f"/join/state?room={other_code(code, 200 + i)}",
                              cookies=side)).code == 404
    for i in range(guard.CLIENT_MISSES - guard.CLIENT_MISSES // 2):
        r = await c.send("answer", {"room": other_code(code, 300 + i), "poll": pid,
                                    "sent": "yes"}, side)
        assert r.code == 404
    assert (await c.fetch(f"/join/state?room={code}", cookies=side)).code == 429
    # a script without cookies: limited per address; a browser with its cookie still gets in
    honest = cookies_of(await c.fetch("/join"))
    for i in range(guard.ADDRESS_MISSES):
        assert (await c.fetch(f"/join?room={other_code(code, 500 + i)}")).code == 404
    r = await c.fetch(f"/join?room={code}")
    assert r.code == 429 and guard.CLIENT_COOKIE in cookies_of(r)  # one more tap gets in
    assert (await c.fetch(f"/join?room={code}", cookies=cookies_of(r))).code == 200
    assert (await c.fetch(f"/join?room={code}", cookies=honest)).code == 200


def test_code_guessing_is_limited_on_every_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    run_with(MemoryStore(600), _guessing_is_limited, monkeypatch)


def test_other_code_is_never_the_code() -> None:
    # (the guessing tests count misses: a guess that hits the real room is not one)
    for first in CODE_CHARS:
        for second in CODE_CHARS:
            code = first + second + "Q8VD"
            assert all(other_code(code, i) != code for i in range(1200))
