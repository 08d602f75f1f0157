"""The polls and the class CDF over HTTP, in-process (the room routes on a Tornado app with the
in-process store; no Bokeh server): who may do what, bad input, one answer per student, what a
student's page is sent, and nothing left once the class ends."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import tornado.httpserver
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

from app.room import tokens
from app.room.hub import RoomHub, set_hub
from app.room.pages import routes
from app.room.store import MemoryStore, RedisStore, RoomStore

TOKEN = "test-teacher-token-21"


class Client:
    def __init__(self, base: str) -> None:
        self.base = base
        self.cookie = ""
        self.devices: dict[tuple[str, int], dict[str, str]] = {}

    async def fetch(
        self,
        path: str,
        method: str = "GET",
        body: str | None = None,
        teacher: bool = False,
        origin: str | None = "self",
        ctype: str | None = None,
        cookies: dict[str, str] | None = None,
    ) -> Any:
        headers = {"Accept-Language": "en"}
        jar = dict(cookies or {})
        if teacher and self.cookie:
            jar[tokens.COOKIE] = self.cookie
        if jar:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in jar.items())
        if origin:
            headers["Origin"] = self.base if origin == "self" else origin
        if ctype:
            headers["Content-Type"] = ctype
        req = HTTPRequest(
            self.base + path, method=method, body=body, headers=headers, follow_redirects=False
        )
        try:
            return await AsyncHTTPClient().fetch(req)
        except HTTPClientError as exc:
            assert exc.response is not None
            return exc.response

    async def sign_in(self) -> str:
        r = await self.fetch("/teach", "POST", f"token={TOKEN}")
        assert r.code == 303
        self.cookie = r.headers["Set-Cookie"].split(";", 1)[0].split("=", 1)[1]
        return str(re.search(r"room=([A-Z0-9]{6})", r.headers["Location"]).group(1))  # type: ignore

    async def csrf(self, code: str) -> str:
        page = (await self.fetch(f"/teach?room={code}&lang=en", teacher=True)).body.decode()
        return str(re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1))  # type: ignore

    async def act(self, code: str, action: str, csrf: str, **form: str) -> Any:
        from urllib.parse import urlencode

        return await self.fetch(
            f"/teach/rooms/{code}/{action}?lang=en",
            "POST",
            urlencode({"csrf": csrf, **form}),
            teacher=True,
        )

    async def device(self, code: str, i: int) -> dict[str, str]:
        """Student device ``i`` of room ``code``: its cookies after opening the class page."""
        key = (code, i)
        if key not in self.devices:
            r = await self.fetch(f"/join?room={code}&lang=en")
            assert r.code == 200, r.code
            self.devices[key] = cookies_of(r)
        return self.devices[key]

    async def send(
        self,
        what: str,
        payload: dict[str, Any],
        device: dict[str, str],
        origin: str | None = "self",
    ) -> Any:
        return await self.fetch(
            f"/join/{what}",
            "POST",
            json.dumps(payload),
            origin=origin,
            ctype="application/json",
            cookies=device,
        )

    async def api(self, code: str, tail: str = "polls/current", teacher: bool = True) -> Any:
        return await self.fetch(f"/teach/api/rooms/{code}/{tail}", teacher=teacher)


async def _serve(store: RoomStore) -> AsyncIterator[Client]:
    set_hub(RoomHub(store))
    app = tornado.web.Application(routes())
    server = tornado.httpserver.HTTPServer(app)
    sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
    server.add_sockets(sockets)
    port = sockets[0].getsockname()[1]
    try:
        yield Client(f"http://127.0.0.1:{port}")
    finally:
        server.stop()
        set_hub(None)


def run_with(
    store: RoomStore, body: Callable[[Client], Awaitable[None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(tokens.ENV_TOKEN, TOKEN)

    async def main() -> None:
        gen = _serve(store)
        client = await gen.__anext__()
        try:
            await body(client)
        finally:
            await gen.aclose()
            await store.close()

    asyncio.run(main())


def cookies_of(r: Any) -> dict[str, str]:
    out = {}
    for line in r.headers.get_list("Set-Cookie"):
        name, _, rest = line.partition("=")
        out[name] = rest.split(";", 1)[0].strip('"')
    return out


def sid(i: int) -> str:
    return f"{i:032x}"


async def _poll_flow(c: Client) -> None:
    code = await c.sign_in()
    csrf = await c.csrf(code)
    # ---- bad input: a message at the field, nothing opened --------------------------------
    for form, field in (
        (dict(eps="0", preset="homework"), "dp-err-eps"),
        (dict(eps="11", preset="homework"), "dp-err-eps"),
        (dict(eps="abc", preset="homework"), "dp-err-eps"),
        (dict(eps="1", preset="", question=""), "dp-err-question"),
        (dict(eps="1", question="x" * 301), "dp-err-question"),
        (dict(eps="1", preset="homework", kind="choice", choices="a\nb"), "dp-err-choices"),
    ):
        r = await c.act(code, "poll-open", csrf, **form)
        assert r.code == 400, form
        page = r.body.decode()
        assert f'id="{field}"' in page and 'aria-invalid="true"' in page, form
    assert json.loads((await c.api(code)).body)["poll"] is None
    # ---- a student may not open, close or read ----------------------------------------------
    assert (
        await c.fetch(f"/teach/rooms/{code}/poll-open", "POST", "csrf=x&eps=1&preset=homework")
    ).code == 403
    assert (await c.fetch(f"/teach/rooms/{code}/poll-close", "POST", "csrf=x")).code == 403
    assert (await c.api(code, teacher=False)).code == 403
    assert (await c.api(code, "cdf", teacher=False)).code == 403
    # ---- open a local yes/no poll; students answer ----------------------------------------
    r = await c.act(code, "poll-open", csrf, preset="homework", eps="1.098612", model="local")
    assert r.code == 303
    st = json.loads((await c.fetch(f"/join/state?room={code}&lang=en")).body)
    pid = st["poll"]["id"]
    empty = (await c.api(code)).body.decode()  # no answers yet: still strict JSON (no NaN)
    assert "NaN" not in empty and json.loads(empty)["n"] == 0
    assert 'class="dp-poll-option"' in st["poll_html"] and 'value="yes"' in st["poll_html"]
    assert "75 %" in st["poll_html"] and "3 times" in st["poll_html"]
    for i in range(30):
        r = await c.send(
            "answer",
            {"room": code, "poll": pid, "sent": "yes" if i < 20 else "no"},
            await c.device(code, i),
        )
        assert r.code == 200
    r = await c.send("answer", {"room": code, "poll": pid, "sent": "no"}, await c.device(code, 0))
    assert r.code == 409 and json.loads(r.body)["error"] == "already"
    for bad in ("maybe", 1, None, True):
        r = await c.send(
            "answer", {"room": code, "poll": pid, "sent": bad}, await c.device(code, 99)
        )
        assert r.code == 400, bad
    # a made-up id, an extra field, a forged or another room's credential: refused
    assert (
        await c.send(
            "answer",
            {"room": code, "poll": pid, "sid": sid(7), "sent": "yes"},
            await c.device(code, 7),
        )
    ).code == 400
    assert (
        await c.send(
            "answer",
            {"room": code, "poll": pid, "sent": "yes"},
            {"dplab_student": f"{code}:{sid(5)[:24]}.9999999999.{'0' * 32}"},
        )
    ).code == 403
    assert (await c.send("answer", {"room": code, "poll": pid, "sent": "yes"}, {})).code == 403
    # another site's page cannot make a student's browser answer
    assert (
        await c.send(
            "answer",
            {"room": code, "poll": pid, "sent": "yes"},
            await c.device(code, 98),
            origin="http://evil.example",
        )
    ).code == 403
    data = json.loads((await c.api(code)).body)
    assert data["model"] == "local" and data["n"] == 30
    assert data["reported"] == {"yes": 20, "no": 10}
    p = 0.75
    assert data["estimate"] == pytest.approx((20 / 30 - (1 - p)) / (2 * p - 1), rel=1e-6)
    assert data["eps"] == pytest.approx(1.098612)
    lo, hi = data["ci95"]
    assert 0.0 <= lo < data["estimate"] < hi <= 1.0
    assert "dp-poll-width-plot" in data["html"] and "<table" in data["html"]
    # the student's state carries nothing any student sent
    st = json.loads((await c.fetch(f"/join/state?room={code}&lang=en")).body)
    # (the poll's id is random hex and may contain "20": look at everything else)
    shown = {k: v for k, v in st["poll"].items() if k != "id"}
    assert "reported" not in json.dumps(st) and "20" not in json.dumps(shown), shown
    csv_text = (
        await c.fetch(f"/teach/api/rooms/{code}/polls/current?format=csv", teacher=True)
    ).body.decode()
    assert csv_text.splitlines()[0].startswith("question,model,eps")
    assert len(csv_text.splitlines()) == 3
    # ---- close: no more answers ----------------------------------------------------------
    assert (await c.act(code, "poll-close", csrf)).code == 303
    r = await c.send("answer", {"room": code, "poll": pid, "sent": "yes"}, await c.device(code, 50))
    assert r.code == 409 and json.loads(r.body)["error"] == "closed"
    # ---- the same question, central model: released once, noisy, at close -----------------
    r = await c.act(
        code,
        "poll-open",
        csrf,
        preset="homework",
        eps="1.098612",
        model="central",
        delta="1e-5",
        mech="gaussian",
    )
    assert r.code == 303
    st = json.loads((await c.fetch(f"/join/state?room={code}&lang=en")).body)
    cid = st["poll"]["id"]
    assert st["poll"]["model"] == "central" and "true answer" in st["poll_html"]
    for i in range(12):
        assert (
            await c.send(
                "answer",
                {"room": code, "poll": cid, "sent": "yes" if i < 6 else "no"},
                await c.device(code, i),
            )
        ).code == 200
    d = json.loads((await c.api(code)).body)
    assert d["model"] == "central" and d["estimate"] is None and d["reported"] is None
    await c.act(code, "poll-close", csrf)
    d1 = json.loads((await c.api(code)).body)
    d2 = json.loads((await c.api(code)).body)
    assert d1["estimate"] is not None and d1["estimate"] == d2["estimate"]  # one draw only
    from dpcore import gaussian

    assert d1["released"]["scale"] == gaussian.calibrate_sigma(1.098612, 1e-5, 1.0)
    cdf = json.loads((await c.api(code, "cdf")).body)
    assert cdf["ledger"]["count"] == 1  # the central release is in the class's ledger
    # ---- the class's numbers and their CDF -----------------------------------------------
    r = await c.act(code, "values-open", csrf, preset="sleep", lo="5", hi="5")
    assert r.code == 400 and 'id="dp-err-lo"' in r.body.decode()
    r = await c.act(code, "values-open", csrf, preset="sleep", lo="0", hi="12", unit="hours")
    assert r.code == 303
    st = json.loads((await c.fetch(f"/join/state?room={code}&lang=en")).body)
    aid = st["ask"]["id"]
    for i in range(25):
        assert (
            await c.send(
                "value", {"room": code, "ask": aid, "value": 4 + (i % 8)}, await c.device(code, i)
            )
        ).code == 200
    for bad in (13, -1, "x", None, "nan"):
        assert (
            await c.send(
                "value", {"room": code, "ask": aid, "value": bad}, await c.device(code, 90)
            )
        ).code == 400, bad
    assert (
        await c.send("value", {"room": code, "ask": aid, "value": 5}, await c.device(code, 0))
    ).code == 409
    r = await c.act(code, "cdf-release", csrf, eps="0", delta="1e-5", method="pp")
    assert r.code == 400 and 'id="dp-err-cdf_eps"' in r.body.decode()
    assert (await c.act(code, "cdf-release", csrf, eps="1", delta="1e-5", method="pp")).code == 303
    cdf = json.loads((await c.api(code, "cdf")).body)
    assert cdf["release"]["n"] == 25 and cdf["release"]["sensitivity"] == pytest.approx(1 / 25)
    assert cdf["ledger"]["count"] == 2 and cdf["ledger"]["rule"] == "gdp"
    assert "NOT PRIVATE" not in cdf["html"] and "truth_html" not in cdf
    st = json.loads((await c.fetch(f"/join/state?room={code}&lang=en")).body)
    assert "dp-cdf-curve" in st["cdf_html"] and "NOT" not in st["cdf_html"]
    truth = json.loads(
        (await c.fetch(f"/teach/api/rooms/{code}/cdf?truth=1&lang=en", teacher=True)).body
    )
    assert "NOT PRIVATE" in truth["truth_html"]
    assert "truth_html" not in json.loads(
        (await c.fetch(f"/teach/api/rooms/{code}/cdf?truth=1", teacher=False)).body
    )
    # ---- the student's class page: plain HTML, the poll script, no Bokeh -------------------
    page = (await c.fetch(f"/join?room={code}&lang=en")).body.decode()
    assert "dplab-poll.js" in page and "bokeh" not in page.lower()
    assert f"/lab?room={code}" in page
    # ---- end: everything is gone; nothing can be written ---------------------------------
    from app.room.hub import get_hub

    store = get_hub().store
    assert await store.stored_keys(code)
    await c.device(code, 70)  # a student who joined before the end
    await c.act(code, "end", csrf)
    assert await store.stored_keys(code) == []
    r = await c.send("value", {"room": code, "ask": aid, "value": 3}, await c.device(code, 70))
    assert r.code == 404
    r = await c.send("answer", {"room": code, "poll": cid, "sent": "yes"}, await c.device(code, 70))
    assert r.code == 404
    assert await store.stored_keys(code) == []
    assert (await c.fetch(f"/join/state?room={code}")).code == 404


def test_polls_and_class_cdf_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    run_with(MemoryStore(600), _poll_flow, monkeypatch)


def test_polls_and_class_cdf_on_redis(monkeypatch: pytest.MonkeyPatch, redis_server: Any) -> None:
    run_with(RedisStore(redis_server.url, 600), _poll_flow, monkeypatch)
