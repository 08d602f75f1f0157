"""Codes, the teacher token and cookie, CSRF, rate limits and the room state, without a server."""

from __future__ import annotations

from typing import Any

import pytest

from app.room import codes, tokens
from app.room.state import (
    ENDED,
    ClassQuestion,
    FollowState,
    RoomState,
    RoomView,
    new_question,
    parse_message,
    state_message,
)


def test_codes() -> None:
    for _ in range(200):
        c = codes.new_code()
        assert len(c) == 6 and not set(c) & set("0O1IL")
        assert codes.normalise(c.lower()) == c and codes.normalise(f" {c[:3]}-{c[3:]} ") == c
    assert codes.normalise("ABC10O") is None and codes.normalise("ABC") is None
    assert codes.normalise(None) is None


def test_token_cookie_csrf() -> None:
    assert tokens.check_token("s3cret-token", "s3cret-token")
    assert not tokens.check_token("s3cret-tokeN", "s3cret-token")
    assert not tokens.check_token("", "s3cret-token") and not tokens.check_token(None, "x")
    c = tokens.make_cookie(now=1000.0, token="t1")
    assert tokens.check_cookie(c, now=1001.0, token="t1")
    assert not tokens.check_cookie(c, now=1001.0, token="t2")  # another server's token
    assert not tokens.check_cookie(c, now=1000.0 + tokens.COOKIE_LIFETIME_S + 1, token="t1")
    nonce, exp, mac = c.split(".")
    assert not tokens.check_cookie(f"{nonce}.{int(exp) + 999}.{mac}", now=1001.0, token="t1")
    assert not tokens.check_cookie("garbage", token="t1")
    good = tokens.make_cookie(token="t1")
    assert tokens.check_csrf(good, tokens.csrf_token(good, "t1"), "t1")
    assert not tokens.check_csrf(good, "0" * 32, "t1")
    assert not tokens.check_csrf(None, tokens.csrf_token(good, "t1"), "t1")


def test_rate_limit() -> None:
    rl = tokens.RateLimit(limit=3, window_s=10)
    for k in range(3):
        assert rl.blocked("1.2.3.4", now=k) == 0
        rl.hit("1.2.3.4", now=k)
    assert rl.blocked("1.2.3.4", now=3) > 0 and rl.blocked("5.6.7.8", now=3) == 0
    assert rl.blocked("1.2.3.4", now=10.5) == 0


def message(seq: int, snap: dict[str, Any], q: ClassQuestion | None) -> RoomState:
    """A state message as the store holds it, read back."""
    msg = parse_message(state_message(seq, "t", snap, q))
    assert isinstance(msg, RoomState)
    return msg


def test_follow_state() -> None:
    f = FollowState(code="ABCDEF")
    q = new_question("quiz", "gaussian:q-pure", 3, 1)
    assert f.accept(message(2, {"tour": 0}, q))
    assert f.status == "live" and f.banner_key() == "room.banner.following"
    assert not f.accept(message(1, {}, None))  # late, older
    assert f.seq == 2
    assert f.may_answer(2) and not f.may_answer(3) and not f.may_answer(True)  # type: ignore
    f.record_answer(2)
    assert not f.may_answer(0)  # once per student
    f.detach()
    assert f.banner_key() == "room.banner.own" and not f.follows
    assert not f.accept(message(3, {}, q))  # not applied
    assert f.reattach()
    f.accept(ENDED)
    assert f.status == "ended" and not f.follows
    teacher = FollowState(code="ABCDEF", role="teacher")
    teacher.accept(message(1, {}, q))
    assert not teacher.may_answer(0)  # the teacher does not answer
    assert parse_message("not json") is None and parse_message('{"type": "x"}') is None


def test_room_view_counts() -> None:
    q = new_question("tour", "3", 3, 1)
    v = RoomView(code="ABCDEF")
    v.load(RoomState(0, "room", {"tour": 3}, q),
           {"w1": '{"c": 3, "f": 2, "t": 100}', "w2": '{"c": 5, "f": 5, "t": 50}',
            "w3": "broken"},
           {"s1": "0", "s2": "1", "s3": "1", "s4": "7"}, now=101.0)
    assert (v.connected, v.following) == (3, 2)  # w2 is stale (a stopped worker)
    assert v.counts == [1, 2, 0] and v.answers == 3


def test_client_address_trusts_only_the_balancer_on_loopback() -> None:
    fwd = ["203.0.113.9"]
    # behind serve-prod's HAProxy: the entry HAProxy appended (the last), never the client's
    assert tokens.client_address("127.0.0.1", fwd, trust=True) == "203.0.113.9"
    assert tokens.client_address("::1", ["198.51.100.1, 2001:db8::7"], trust=True) == \
        "2001:db8::7"
    assert tokens.client_address("127.0.0.1", ["6.6.6.6", "203.0.113.9"], trust=True) == \
        "203.0.113.9"  # a header the client sent comes first; HAProxy adds its own line
    # not behind our balancer (make serve, a worker alone): the header is ignored
    assert tokens.client_address("127.0.0.1", fwd, trust=False) == "127.0.0.1"
    # from anyone but loopback, never
    assert tokens.client_address("192.0.2.5", fwd, trust=True) == "192.0.2.5"
    assert tokens.client_address("127.0.0.2", fwd, trust=True) == "127.0.0.2"
    # nothing usable: the peer
    assert tokens.client_address("127.0.0.1", [], trust=True) == "127.0.0.1"
    assert tokens.client_address("127.0.0.1", ["not-an-address"], trust=True) == "127.0.0.1"
    assert tokens.client_address(None, fwd, trust=True) == ""


def test_client_address_trust_comes_from_serve_prod(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(tokens.ENV_FORWARDED, raising=False)
    assert tokens.client_address("127.0.0.1", ["203.0.113.9"]) == "127.0.0.1"
    monkeypatch.setenv(tokens.ENV_FORWARDED, "1")
    assert tokens.client_address("127.0.0.1", ["203.0.113.9"]) == "203.0.113.9"


def test_a_short_chosen_token_is_said_to_be_weak(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(tokens.ENV_TOKEN, "abc12345")
    msg = tokens.weak_token_warning()
    assert msg is not None and "8 characters" in msg and tokens.ENV_TOKEN in msg
    monkeypatch.setenv(tokens.ENV_TOKEN, "x" * tokens.STRONG_TOKEN_CHARS)
    assert tokens.weak_token_warning() is None
    monkeypatch.delenv(tokens.ENV_TOKEN)  # generated: secrets.token_urlsafe(18), 24 characters
    assert tokens.weak_token_warning() is None
    assert len(tokens.teacher_token()[0]) >= tokens.STRONG_TOKEN_CHARS


def test_follows_is_kept_whichever_way_its_parameters_change() -> None:
    """FollowState.follows (kept by a watcher for the card pass) is status == live and
    (teacher or following) after every kind of change: one by one, in one update, batched."""
    import itertools

    import param

    f = FollowState(code="ABCDEF")
    want = lambda: f.status == "live" and (f.role == "teacher" or f.following)  # noqa: E731
    assert f.follows is want() is False
    statuses = ("connecting", "live", "unknown", "lost", "ended")
    for status, role, following in itertools.product(statuses, ("student", "teacher"),
                                                     (True, False)):
        f.status = status
        f.role = role
        f.following = following
        assert f.follows is want()
        f.param.update(status="live", following=not following)
        assert f.follows is want()
        with param.parameterized.batch_call_watchers(f):
            f.param.update(status=status, role=role, following=following)
        assert f.follows is want()
    f.detach()
    assert not f.follows
    f.status = "live"
    assert f.reattach() and f.follows
