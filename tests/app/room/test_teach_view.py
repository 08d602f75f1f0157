"""The teacher's screens over HTTP (in-process, as test_poll_http.py): the projector
(``/teach?room=CODE&size=large``) and the presenter panel. What the projector shows of a poll
never leaves [0, 1]; under 10 answers it shows no estimate; an estimate outside 0–100 % is shown
clipped into its interval (the unbiased value only on the panel); the counts; the join address
from DPLAB_PUBLIC_URL and the loopback warning; what a store restart lost and its one-click
reopen; the CSV export of a poll typed as a formula."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from typing import Any

import pytest
from test_poll_http import Client, run_with

from app.room import poll as P
from app.room import roster, teach_view
from app.room.hub import get_hub
from app.room.records import LedgerStep, Poll
from app.room.store import MemoryStore

PCT = re.compile(r"(-?\d+(?:\.\d+)?)[\u00a0 ]?%(?!p)")


def sid(i: int) -> str:
    return f"{i:024x}"


async def projector(c: Client, code: str, lang: str = "en") -> str:
    r = await c.fetch(f"/teach?room={code}&lang={lang}&size=large", teacher=True)
    assert r.code == 200
    return str(r.body.decode())


async def live(c: Client, code: str, lang: str = "en") -> dict[str, Any]:
    r = await c.fetch(f"/teach/api/rooms/{code}?lang={lang}&view=projector", teacher=True)
    assert r.code == 200, r.code
    return dict(json.loads(r.body))


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment))


def shares_in(fragment: str) -> list[float]:
    """Every percentage written in the projector's text (not the "percentage points" of a
    shift, which are "%p" or words)."""
    return [float(m) for m in PCT.findall(text_of(fragment))]


async def open_poll(c: Client, code: str, csrf: str, **form: str) -> Poll:
    r = await c.act(code, "poll-open", csrf, **form)
    assert r.code == 303, r.body
    poll = Poll.from_json(await get_hub().store.get(code, "poll"))
    assert poll
    return poll


async def answers(code: str, poll_id: str, sent: list[int]) -> None:
    """Reports as the class page stores them (one per student id)."""
    store = get_hub().store
    await store.remove(code, f"pollans:{poll_id}")
    for i, v in enumerate(sent):
        await store.hset(code, f"pollans:{poll_id}", sid(i), str(v))


# ---- the projector's poll --------------------------------------------------------------------
async def _projector_poll(c: Client) -> None:
    code = await c.sign_in()
    csrf = await c.csrf(code)
    page = await projector(c, code)
    assert 'class="dp-proj"' in page and "dp-poll-open" not in page  # no controls projected
    assert "panel=1" in page and "dp-proj-controls-link" in page
    poll = await open_poll(c, code, csrf, preset="homework", eps="1.0986", model="local")
    # under 10 answers: no estimate, only the waiting text
    for k in (0, 1, 9):
        await answers(code, poll.id, [0] * k)
        d = await live(c, code)
        assert f"Waiting for 10 answers ({k} so far)" in text_of(d["live_html"])
        assert "dp-proj-estimate" not in d["live_html"]
        # what fake answers do: the formula, its numbers only once there is an estimate
        assert "This poll's numbers appear with 10 answers" in text_of(d["live_html"])
        assert "percentage points" not in text_of(d["live_html"])
    d = await live(c, code, "ko")
    assert "답 10개를 기다리는 중입니다(지금 9개)" in text_of(d["live_html"])
    # 12 reports all "no" at ε = ln 3: the unbiased estimate is (0 − 1/4)/(1/2) = −50 %
    await answers(code, poll.id, [1] * 12)
    res = P.results(poll, {sid(i): "1" for i in range(12)})
    assert res.estimate is not None and res.estimate < 0
    d = await live(c, code)
    shown = d["live_html"]
    assert "dp-proj-estimate" in shown and "clipped into its interval" in text_of(shown)
    assert all(0.0 <= x <= 100.0 for x in shares_in(shown)), shares_in(shown)
    big = re.search(r'class="dp-proj-estimate">([^<]+)<', shown)
    assert big and big.group(1) == "0.0\u00a0%"
    ci = re.search(r'class="dp-proj-ci-range">([^<]+)<', shown)
    assert ci and "\u00a0–\u00a0" in ci.group(1) and " " not in ci.group(1)  # one line
    # the unbiased value is on the panel only
    panel = json.loads((await c.api(code)).body)["html"]
    assert "−50.0%" in panel or "-50.0%" in panel  # (Korean: no space before %)
    assert "-50.0" not in shown and "−50.0" not in shown
    # many answers, random reports: every share shown stays in [0, 1]
    import random

    rng = random.Random(7)
    for n in (10, 11, 13, 20, 40, 150):
        await answers(code, poll.id, [rng.choice((0, 1, 1, 1)) for _ in range(n)])
        for lang in ("en", "ko"):
            d = await live(c, code, lang)
            assert all(0.0 <= x <= 100.0 for x in shares_in(d["live_html"])), (n, lang)
    # what local DP does not protect against, with this poll's numbers: n = 150, ε = ln 3,
    # p − q = 1/2: one fake answer 1/(150 · 0.5) = 1.3 points, 15 fake answers 20.0 points
    d = await live(c, code)
    t_en = text_of(d["live_html"])
    assert "What local DP does not protect against: fake answers" in t_en
    assert "1/(n(p − q)) = 1.3 percentage points" in t_en and "15 fake answers" in t_en
    assert "20.0 percentage points" in t_en and "n = 150 answers" in t_en
    t_ko = text_of((await live(c, code, "ko"))["live_html"])
    assert "로컬 차등 프라이버시가 막지 못하는 것: 가짜 답" in t_ko and "1.3%p" in t_ko
    # a multiple-choice poll: every option's share in [0, 1]
    poll = await open_poll(c, code, csrf, question="Which?", eps="0.5", model="local",
                           kind="choice", choices="a\nb\nc\nd")
    await answers(code, poll.id, [rng.randrange(4) for _ in range(14)] + [3] * 3)
    d = await live(c, code)
    assert d["live_html"].count("dp-proj-est-row") == 4
    assert all(0.0 <= x <= 100.0 for x in shares_in(d["live_html"]))
    # a central poll: nothing until it is closed, then the noisy share clipped into [0, 1]
    poll = await open_poll(c, code, csrf, preset="exam", eps="0.2", model="central",
                           mech="laplace")
    await answers(code, poll.id, [0] * 11)
    assert "appears when the poll is closed (11 answers so far)" in text_of(
        (await live(c, code))["live_html"])
    assert (await c.act(code, "poll-close", csrf)).code == 303
    d = await live(c, code)
    assert "dp-proj-estimate" in d["live_html"]
    assert all(0.0 <= x <= 100.0 for x in shares_in(d["live_html"]))
    assert "cannot tell a fake answer from a true one" in text_of(d["live_html"])


def test_projector_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    run_with(MemoryStore(600), _projector_poll, monkeypatch)


# ---- counts, the lock, the join address ------------------------------------------------------
async def _counts_and_address(c: Client) -> None:
    code = await c.sign_in()
    store = get_hub().store
    for i in range(7):
        await roster.register(store, code, sid(i))
        if i < 3:
            await store.hset(code, "seen", sid(i), str(__import__("time").time()))
    await store.hset(code, "workers", "w1", json.dumps({"c": 4, "f": 2, "t": __import__(
        "time").time()}))
    d = await live(c, code)
    assert d["joined"] == 7 and d["class_pages"] == 3 and d["labs"] == 4 and d["connected"] == 7
    assert "student pages connected: 7" in text_of(d["counts_html"])
    assert "students joined: 7" in text_of(d["counts_html"])
    panel = json.loads((await c.fetch(f"/teach/api/rooms/{code}?lang=en", teacher=True)).body)
    assert panel["count_text"].startswith("student pages connected: 7 (lab 4 · class page 3)")
    # the class question: answered k of n (n: joined)
    from app.room.questions import question_text

    qt = question_text("tour", "2", "en")  # a tour step that asks for a prediction
    assert qt is not None
    await get_hub().ask(code, "tour", "2", len(qt.options), qt.answer)
    state = json.loads(await store.get(code, "state") or "{}")
    await store.hset(code, f"answers:{state['question']['id']}", sid(1), "0")
    await store.hset(code, f"answers:{state['question']['id']}", sid(2), "1")
    d = await live(c, code)
    assert "answered: 2 of 7 students" in text_of(d["live_html"])
    assert "답한 학생: 7명 중 2명" in text_of((await live(c, code, "ko"))["live_html"])
    # the address: here 127.0.0.1, so the warning names the variable
    page = await projector(c, code)
    assert "Phones cannot reach 127.0.0.1." in text_of(page) and "DPLAB_PUBLIC_URL" in page
    assert f'<span class="dp-join-code">{code}</span>' in page
    assert re.search(r'dp-join-head">http://127\.0\.0\.1:\d+/join\?room=</span><wbr>', page)
    ko = await projector(c, code, "ko")
    assert "휴대전화로는 127.0.0.1에 접속할 수 없습니다." in text_of(ko)
    assert "127.0.0.1은 이 컴퓨터 자신이라서" in text_of(ko)  # 1 (일): 은


def test_counts_and_loopback_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(teach_view.ENV_PUBLIC_URL, raising=False)
    run_with(MemoryStore(600), _counts_and_address, monkeypatch)


async def _public_url(c: Client) -> None:
    code = await c.sign_in()
    for path in (f"/teach?room={code}&lang=en&size=large", f"/teach?room={code}&lang=en"):
        page = (await c.fetch(path, teacher=True)).body.decode()
        assert f'href="https://course.example.org/dplab/join?room={code}"' in page
        assert "Phones cannot reach" not in page
        assert "127.0.0.1:" not in text_of(page.split("dp-room-qr-box")[0].split(
            "dp-room-code")[1])


def test_join_address_from_public_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(teach_view.ENV_PUBLIC_URL, "https://course.example.org/dplab/")
    run_with(MemoryStore(600), _public_url, monkeypatch)


@pytest.mark.parametrize(("url", "warn"), [("http://localhost:5006/", "localhost"),
                                           ("http://[::1]:8080/", "::1"),
                                           ("http://192.168.0.10:5006/", "")])
def test_loopback_public_url_is_named(monkeypatch: pytest.MonkeyPatch, url: str,
                                      warn: str) -> None:
    monkeypatch.setenv(teach_view.ENV_PUBLIC_URL, url)
    addr = teach_view.join_address("http", "10.0.0.1:80", "H8XEX4")
    assert addr.url == url.rstrip("/") + "/join?room=H8XEX4" and addr.loopback == warn
    note = teach_view.loopback_html(addr, "en")
    assert (("DPLAB_PUBLIC_URL names" in note) if warn else note == "")


# ---- a store restart: what was lost, reopened in one click ----------------------------------
async def _restart(c: Client) -> None:
    code = await c.sign_in()
    csrf = await c.csrf(code)
    store = get_hub().store
    assert isinstance(store, MemoryStore)
    poll = await open_poll(c, code, csrf, question="=Did you sleep 8 h?", eps="0.7",
                           model="local")
    await answers(code, poll.id, [0, 1, 0] * 5)
    assert (await c.act(code, "values-open", csrf, preset="sleep", lo="0", hi="12",
                        unit="hours")).code == 303
    assert (await c.act(code, "lock", csrf)).code == 303
    await live(c, code)  # the teacher's screen read it all (this process now holds it)
    store.restart()
    assert not await store.exists(code)
    r = await c.fetch(f"/teach/api/rooms/{code}?lang=en&view=projector", teacher=True)
    assert r.code in (200, 503)  # written back at once, or "retrying" for this one read
    d = await live(c, code)
    assert set(d["lost"]) == {"poll", "ask"} and d["locked"] is True  # the lock came back
    assert "The class connection restarted; lost:" in text_of(d["live_html"])
    panel_page = (await c.fetch(f"/teach?room={code}&lang=en", teacher=True)).body.decode()
    notice = panel_page.split('class="dp-room-lost"')[1].split("</div>")[0]
    assert "the open poll “=Did you sleep 8 h?” (Local model" in html.unescape(notice)
    assert "with its 15 answers" in notice and "spends ε = 0.7 once more" in notice
    form = re.search(r'<form method="post" class="dp-room-action" action="([^"]+poll-open[^"]*)"'
                     r'>(.*?)</form>', notice)
    assert form
    fields = dict(re.findall(r'name="([a-z]+)" value="([^"]*)"', form.group(2)))
    assert fields["eps"] == "0.7" and fields["reopen"] == poll.id
    assert html.unescape(fields["question"]) == "=Did you sleep 8 h?"
    # one click: the same poll again (a new one, which names the lost one), the notice gone
    fields = {k: html.unescape(v) for k, v in fields.items()}
    r = await c.fetch(html.unescape(form.group(1)), "POST",
                      __import__("urllib.parse", fromlist=["urlencode"]).urlencode(fields),
                      teacher=True)
    assert r.code == 303
    again = Poll.from_json(await store.get(code, "poll"))
    assert again is not None
    assert again.question == "=Did you sleep 8 h?" and again.eps == 0.7
    assert again.open and again.reopens == poll.id and again.id != poll.id
    d = await live(c, code)
    assert d["lost"] == ["ask"]
    ko = (await c.fetch(f"/teach?room={code}&lang=ko", teacher=True)).body.decode()
    assert "‘어젯밤 몇 시간 잤나요?’ 다시 묻기" in html.unescape(ko)
    # the CSV export of the typed question: no formula for a spreadsheet
    await answers(code, again.id, [0, 1, 1] * 4)
    text = (await c.fetch(f"/teach/api/rooms/{code}/polls/current?format=csv",
                          teacher=True)).body.decode()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1][0] == "'=Did you sleep 8 h?" and rows[1][5] == "예"
    assert float(rows[1][7]) == pytest.approx(P.results(again, {sid(i): str(v) for i, v in
                                                                enumerate([0, 1, 1] * 4)})
                                              .per_option[0].estimate)
    assert (await c.act(code, "lost-dismiss", csrf)).code == 303
    assert (await live(c, code))["lost"] == []


def test_restart_notice_and_reopen(monkeypatch: pytest.MonkeyPatch) -> None:
    run_with(MemoryStore(600), _restart, monkeypatch)


def test_a_lab_worker_writes_the_room_back_and_the_teachers_worker_names_the_loss() -> None:
    """serve-prod's two workers: the one with the labs writes the room's state back first; the
    one serving the teacher's screens knows the poll and the ledger and adds them."""
    import asyncio

    from test_hub_restart import Lab, until

    from app.room.hub import RoomHub, set_hub

    async def body() -> None:
        store = MemoryStore(600)
        labs, teacher = RoomHub(store), RoomHub(store)
        set_hub(teacher)
        try:
            code = await teacher.create_room("en")
            labs.join(Lab(code))
            await until(lambda: labs._epoch is not None)
            poll = P.new_poll(question="Q?", preset="", eps=1.0, now=1.0)
            await store.set(code, "poll", poll.to_json())
            await store.hset(code, f"pollans:{poll.id}", sid(1), "0")
            await store.hset(code, "ledger", "r1", LedgerStep(1.0, 1e-5, 0.5, "cdf").to_json())
            await roster.set_size(store, code, 30)
            await labs.room_state(code)
            d = await teach_view.gather(code)  # the teacher's screen read it here
            assert d.poll and d.poll.id == poll.id
            store.restart()
            await labs.ping_ok()  # the labs' worker notices first: the state only
            assert await store.exists(code) and await store.get(code, "poll") is None
            assert await store.hgetall(code, "lost") == {}  # it never saw the poll
            d = await teach_view.gather(code)  # the teacher's next read, on the other worker
            assert d.lost["poll"]["poll"]["id"] == poll.id and d.lost["poll"]["n"] == 1
            assert "ask" not in d.lost
            assert d.summary["size"] == 30  # written back
            assert set(await store.hgetall(code, "ledger")) == {"r1"}
            assert d.ledger.count == 1
            await asyncio.sleep(0)
        finally:
            await labs.stop()
            await teacher.stop()
            set_hub(None)

    asyncio.run(body())
