"""A lab's own moves by its plain websocket (app/lab/moves.py), without a browser: the page's
state takes a slider's release quietly (nothing of its session changes), the answer carries
exactly the views a page in that state shows, the session makes its views before it shows
anything else, and whatever the session must answer (a live class, a tour step, a refused
value, a text still rejected) is handed back to it. The route closes for an id this process
does not hold and for anything that is not a slider's release."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import tornado.httpserver
import tornado.testing
import tornado.web
import tornado.websocket

from app.lab import moves
from app.lab.controls import sigma_at
from app.lab.follow import CHANNEL_PLOTS, LabFollowable
from app.lab.messages import views_json
from app.lab.page import LabPage, attach_tour
from app.lab.state import LabState


def frame(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(data)
    return out


def moves_server() -> tuple[tornado.httpserver.HTTPServer, str]:
    """The moves route on a free port (call inside a running loop): the server and its
    ``ws://`` base address."""
    sock, port = tornado.testing.bind_unused_port()
    server = tornado.httpserver.HTTPServer(tornado.web.Application(moves.routes()))
    server.add_sockets([sock])
    return server, f"ws://127.0.0.1:{port}{moves.PATH}"


def shown(page: LabPage) -> dict[str, Any]:
    """What the page's session shows: its card, figures' messages and controls' values."""
    return {"card": page.card.object, "values": page.controls.panel.values,
            **{key: getattr(page, name).message for key, name in CHANNEL_PLOTS.items()}}


def views_of_page(page: LabPage) -> dict[str, Any]:
    """A page's own views in the shape of a move's answer."""
    return {"panes": {"dp-card-pane": page.card.object},
            "plots": {key: getattr(page, name).message for key, name in CHANNEL_PLOTS.items()}}


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_release_changes_the_state_only_and_answers_with_that_states_views(lang: str) -> None:
    page = LabPage(lang=lang)
    before = shown(page)
    got = frame(moves.answer(page, 1, "sigma", 0.3))
    assert page.state.sigma == sigma_at(0.3) == 1.995
    assert shown(page) == before  # the session made and sent nothing
    assert page._stale == {"sigma"}
    assert got["n"] == 1 and got["addr"] == page.state.url_query()
    # exactly what a page of its own in that state shows
    fresh = LabPage(state=LabState(sigma=1.995), lang=lang)
    views = got["views"]
    assert {"panes": views["panes"], "plots": views["plots"]} == views_of_page(fresh)
    assert json.loads(views["controls"])["fields"]["sigma"] == "1.995"
    assert views == json.loads(views_json(page.state, lang, False))
    # ε next: the curve's range follows as the state's own setter keeps it
    got = frame(moves.answer(page, 2, "eps", 12.0))
    assert page.state.eps == 12.0 and page.state.eps_hi == 24.0
    assert got["addr"]["hi"] == "24" and shown(page) == before
    assert page.controls._ack == 2


def test_the_session_makes_its_views_before_it_takes_the_next_commit() -> None:
    page = LabPage(lang="en")
    moves.answer(page, 1, "sigma", 0.3)
    moves.answer(page, 2, "eps", 2.0)
    page.controls.receive({"k": "text", "c": "n", "v": "8", "n": 3})
    assert page._stale == set()
    s = LabState(sigma=1.995, eps=2.0)
    assert s.set_text("n", "8") is None
    fresh = LabPage(state=s, lang="en")
    assert shown(page)["card"] == shown(fresh)["card"]
    for key in CHANNEL_PLOTS:
        assert shown(page)[key] == shown(fresh)[key], key
    values = json.loads(page.controls.panel.values)
    assert values["ack"] == 3 and values["fields"]["sigma"] == "1.995"
    assert values["addr"]["sigma"] == "1.995"
    # a shortcut too: the views first, then the preset
    moves.answer(page, 4, "sigma", 0.5)
    assert page._stale
    page.on_key("x", None)
    assert page._stale == set() and "3.162" in page.card.object


def test_what_the_session_must_answer_goes_back_to_it() -> None:
    # a live class: every commit through the session (a teacher's move is published there)
    lab = LabPage(lang="en")
    LabFollowable(lab)
    assert lab.controls.panel.moves == ""
    assert frame(moves.answer(lab, 1, "sigma", 0.3)) == {"n": 1, "session": True}
    assert lab.state.sigma == 1.0
    # a tour step (its concealment and prediction are the session's)
    page = LabPage(lang="en")
    attach_tour(page, "2")
    assert page.tour is not None and page.tour.step == 2
    assert frame(moves.answer(page, 1, "sigma", 0.3)) == {"n": 1, "session": True}
    assert page.state.sigma == 1.0
    # a value the state refuses (h = Δ/σ = 100/0.001 above its range)
    page = LabPage(lang="en")
    assert page.state.set_text("B", "100") is None
    sigma = page.state.sigma
    assert frame(moves.answer(page, 1, "sigma", -3.0)) == {"n": 1, "session": True}
    assert page.state.sigma == sigma
    # a rejected text waits at its field: the session answers the next move too
    page = LabPage(lang="en")
    page.controls.receive({"k": "text", "c": "B", "v": "abc", "n": 1})
    assert page.state.errors
    assert frame(moves.answer(page, 2, "sigma", 0.3)) == {"n": 2, "session": True}
    # a position off the slider
    assert frame(moves.answer(LabPage(), 1, "sigma", 3.5))["session"] is True


@pytest.mark.parametrize("msg", [
    {"n": 1, "c": "sigma", "v": 0.3, "k": "slider"},  # an extra field
    {"n": 0, "c": "sigma", "v": 0.3}, {"n": True, "c": "sigma", "v": 0.3},
    {"n": 1, "c": "n", "v": 3}, {"n": 1, "c": "sigma", "v": "0.3"},
    {"n": 1, "c": "sigma", "v": float("nan")}, {"n": 1, "c": "eps", "v": False}, [1, 2]])
def test_only_a_sliders_release_is_read(msg: Any) -> None:
    assert moves.release(msg) is None


def test_a_release_is_read() -> None:
    assert moves.release({"n": 3, "c": "delta", "v": -6}) == (3, "delta", -6.0)


def test_the_route_answers_its_page_and_closes_for_anything_else() -> None:
    async def body() -> None:
        page = LabPage(lang="ko")
        assert page.controls.panel.moves == moves.url(page.moves_id)
        server, base = moves_server()
        try:
            ws: Any = await tornado.websocket.websocket_connect(base + "?page=nope")
            assert await ws.read_message() is None and ws.close_code == moves.NOT_HERE
            ws = await tornado.websocket.websocket_connect(f"{base}?page={page.moves_id}")
            await ws.write_message(json.dumps({"n": 1, "c": "sigma", "v": 0.3}))
            got = json.loads(await asyncio.wait_for(ws.read_message(), 5))
            assert got["n"] == 1 and got["addr"]["sigma"] == "1.995"
            assert got["views"] == json.loads(views_json(page.state, "ko", False))
            await ws.write_message(json.dumps({"n": 2, "k": "text", "c": "n", "v": "9"}))
            assert await asyncio.wait_for(ws.read_message(), 5) is None
            assert ws.close_code == moves.BAD and page.state.n == 4
        finally:
            server.stop()

    asyncio.run(body())


def test_a_move_is_activity_for_the_worker() -> None:
    # a worker with moves coming in builds no page ahead and starts no full collection
    # (app/serve/server.py worker_quiet, the GC policy's idle time)
    from app.shell import plainws

    async def body() -> None:
        page = LabPage(lang="en")
        seen: list[int] = []
        saved = list(plainws._SEEN)
        plainws.on_activity(lambda: seen.append(1))
        server, base = moves_server()
        try:
            ws: Any = await tornado.websocket.websocket_connect(f"{base}?page={page.moves_id}")
            for n in (1, 2):
                await ws.write_message(json.dumps({"n": n, "c": "eps", "v": 1.5 + n}))
                await asyncio.wait_for(ws.read_message(), 5)
            assert len(seen) == 2
            ws.close()
        finally:
            plainws._SEEN[:] = saved
            server.stop()

    asyncio.run(body())


def test_a_tour_step_shows_the_moves_taken_quietly_first() -> None:
    page = LabPage(lang="ko")
    attach_tour(page, None)
    assert page.tour is not None and page.tour.step == 0
    moves.answer(page, 1, "sigma", 0.5)
    assert page._stale and "3.162" not in page.card.object
    page.tour.go(1)
    assert page._stale == set()
    # the session's own views are those of its state now (the step may set values too)
    views = json.loads(views_json(page.state, "ko", False))
    for key, name in CHANNEL_PLOTS.items():
        if key != "density":  # (its message says what a concealing step hides)
            assert getattr(page, name).message == views["plots"][key], key
    assert page.tour.concealed or page.card.object == views["panes"]["dp-card-pane"]
