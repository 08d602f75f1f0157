"""A page built ahead, pulled from a started server, is the page built on demand: the same
document (ids aside), and it answers a slider move."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from live_server import LiveServer
from wsclient import LabTab, teacher_sign_in

READY = "lab pages built ahead:"
TEACHER = "prebuild-live-teacher-token-0123"


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, LiveServer]]:
    d = tmp_path_factory.mktemp("prebuild")
    ahead = LiveServer(d / "ahead.log", env={"DPLAB_PREBUILT_PAGES": "8",
                                             "DPLAB_TEACHER_TOKEN": TEACHER})
    plain = LiveServer(d / "plain.log", env={"DPLAB_PREBUILT_PAGES": "0",
                                             "DPLAB_TEACHER_TOKEN": TEACHER})
    yield ahead, plain
    ahead.stop()
    plain.stop()


def _ready(srv: LiveServer, times: int) -> None:
    """Poll the log until the pool has said it is full ``times`` times."""
    deadline = time.monotonic() + 60
    while srv.text().count(READY) < times:
        assert time.monotonic() < deadline, srv.text()[-3000:]
        time.sleep(0.1)


def _normalized(doc: Any, room: str = "") -> str:
    """Model ids, Panel's numbered names and Python object ids replaced by their order of first
    appearance: two builds of the same page compare equal."""
    def sort_sets(x: Any) -> Any:  # a Python set's order differs between processes
        if isinstance(x, dict):
            if set(x) == {"type", "entries"} and x["type"] == "set":
                return {"type": "set", "entries": sorted(map(str, x["entries"]))}
            return {k: sort_sets(v) for k, v in x.items()}
        if isinstance(x, list):
            return [sort_sets(v) for v in x]
        return x

    text = json.dumps(sort_sets(doc), sort_keys=True)
    ids: dict[str, str] = {}

    def number(m: re.Match[str]) -> str:
        return ids.setdefault(m.group(0), f"#{len(ids)}")

    text = re.sub(r"\bp\d{4,}\b", number, text)
    text = re.sub(r"\b([A-Z][A-Za-z]+)\d{5}\b", r"\1#", text)
    text = re.sub(r"-\d{9,}\b", "-#", text)
    # a following student's card channel names that page's own random link id
    text = re.sub(r"room-card\?link=[0-9a-f]{16}", "room-card?link=<id>", text)
    # and a lab its own moves channel's random page id (app/lab/moves.py)
    text = re.sub(r"lab-moves\?page=[A-Za-z0-9_-]{24}", "lab-moves?page=<id>", text)
    # a page built ahead and then linked to a class turned its channel off: "" set, the
    # default, which a page built for the class leaves out of its document
    text = text.replace('"moves": "", ', "")
    if room:  # the room code (each server made its own room)
        text = text.replace(room, "<room>")
    # the two servers' ports
    return re.sub(r'127\.0\.0\.1:\d+|"port": "\d+"', "<host>", text)


async def _pull(url: str) -> tuple[dict[str, Any], bool]:
    """The document a tab pulls, and whether an ε move then brought the new card."""
    tab = LabTab(url)
    await tab.open()
    try:
        move = await tab.move_and_wait("eps", 2.5, 20)
        return tab.doc_json, move.latency is not None
    finally:
        await tab.close()


@pytest.mark.parametrize(("query", "label"), [
    ("", "en"), ("?lang=ko", "ko+lang"), ("?lang=en&theme=dark", "en+lang+theme=dark"),
    # (the tab sends Accept-Language: en; ``size`` takes the path of ``theme``)
    ("?room=ZZZZZZ", "en"), ("?room=<room>&lang=ko", "ko+lang")])
def test_a_page_built_ahead_is_the_page_built_on_demand(
        servers: tuple[LiveServer, LiveServer], query: str, label: str) -> None:
    ahead, plain = servers
    codes = ("", "")
    if "<room>" in query:  # a live class: each server's own room, opened by its teacher
        codes = (asyncio.run(teacher_sign_in(ahead.url, TEACHER))[1],
                 asyncio.run(teacher_sign_in(plain.url, TEACHER))[1])
    url = f"{ahead.url}/lab{query}".replace("<room>", codes[0])
    plain_url = f"{plain.url}/lab{query}".replace("<room>", codes[1])
    # One request for the address moves the pool's split towards it; once full again, the
    # next request for it takes a page built ahead.
    before = ahead.text().count(READY)
    asyncio.run(_pull(url))
    _ready(ahead, before + 1)
    # The pool now holds pages for this address (its last "full" line counts them), so the
    # next request for it takes one.
    full = ahead.text().rsplit(READY, 1)[1].splitlines()[0]
    held = dict(part.strip().rsplit(" ", 1) for part in full.split(","))
    assert int(held.get(label, 0)) >= 1, full
    runs, before = ahead.text().count("page-run "), ahead.text().count(READY)
    got, moved = asyncio.run(_pull(url))
    # It came from the pool: no page was built for it (its one page-run line is logged when
    # taken), and the pool refills and says so again.
    assert ahead.text().count("page-run ") == runs + 1
    assert ahead.text().rsplit("page-run ", 1)[1].splitlines()[0].endswith(" built=ahead")
    _ready(ahead, before + 1)
    want, moved_plain = asyncio.run(_pull(plain_url))
    got_text, want_text = _normalized(got, codes[0]), _normalized(want, codes[1])
    assert got_text == want_text
    assert moved and moved_plain
    # the comparison sees a one-setting difference
    other, _ = asyncio.run(_pull(f"{plain.url}/lab?sigma=2"))
    assert _normalized(other) != want_text
