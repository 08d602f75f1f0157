"""Lab parts built ahead (app/serve/prebuild.py): the same page, used once, split by demand."""

from __future__ import annotations

import json
import re
import weakref
from typing import Any

import panel as pn
import pytest
from bokeh.document import Document

from app.lab.page import LabParts, build_parts, create_page, default_address
from app.serve import prebuild, server


class _Request:
    def __init__(self) -> None:
        self.arguments: dict[str, list[bytes]] = {}
        self.headers: dict[str, str] = {}
        self.cookies: dict[str, str] = {}


class _Session:
    """What a page reads of its Bokeh session (no browser: nothing is sent)."""

    id = "test-session"
    request = _Request()


def _doc_json(lang: str, prebuilt: Any = None) -> str:
    doc = Document()
    session = _Session()
    doc._session_context = weakref.ref(session)  # type: ignore[assignment]
    pn.state.curdoc = doc
    try:
        create_page(lang, prebuilt=prebuilt).server_doc(doc)
        out = doc.to_json(deferred=False)
    finally:
        pn.state.curdoc = None
    return _normalized(out)


def _normalized(doc_json: Any) -> str:
    """The document's JSON with model ids (and Panel's numbered default names) replaced by
    their order of first appearance: two builds of the same page compare equal."""
    text = json.dumps(doc_json, sort_keys=True, default=str)
    ids: dict[str, str] = {}

    def number(m: re.Match[str]) -> str:
        return ids.setdefault(m.group(0), f"#{len(ids)}")

    text = re.sub(r"p\d{4,}", number, text)  # Bokeh ids ("p1234")
    text = re.sub(r"\b([A-Z][A-Za-z]+)\d{5}\b", r"\1#", text)  # Panel names ("Column00012")
    return re.sub(r"-\d{9,}\b", "-#", text)  # Python object ids in root names ("main-1396...")


@pytest.fixture(autouse=True)
def _tuned() -> None:
    server.tune_process()


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_page_built_ahead_is_the_page_built_on_demand(lang: str) -> None:
    parts = build_parts(lang, {})  # outside any session, as the pool builds them
    parts.lab.build_offscreen()
    taken: list[str] = []

    def prebuilt(want: str) -> LabParts:
        taken.append(want)
        return parts

    ahead = _doc_json(lang, prebuilt)
    assert taken == [lang]
    assert ahead == _doc_json(lang)
    # the comparison sees a difference of one setting
    other = build_parts(lang, {"sigma": "2"})
    assert _doc_json(lang, lambda _: other) != ahead


def test_only_the_plain_address_uses_a_page_built_ahead() -> None:
    assert default_address({}, "ko") and default_address({"lang": "en"}, "en")
    assert not default_address({"lang": "en"}, "ko")
    for args in ({"sigma": "2"}, {"tour": "1"}, {"room": "ABCDEF"}, {"size": "large"},
                 {"theme": "dark"}, {"eps": "1", "lang": "ko"}):
        assert not default_address(args, "ko"), args


def test_the_pool_fills_only_when_quiet_and_each_set_is_used_once() -> None:
    quiet = [False]
    made: list[str] = []

    def build(lang: str) -> str:
        made.append(lang)
        return f"{lang}-{len(made)}"

    pool = prebuild.Pool(build, 4, lambda: quiet[0])
    pool.tick()
    assert made == []  # busy: nothing built
    quiet[0] = True
    for _ in range(10):
        pool.tick()
    # 3:1 for Korean before any request
    assert sorted(made) == ["en", "ko", "ko", "ko"]
    first, second = pool.take("ko"), pool.take("ko")
    assert first and second and first != second
    assert pool.take("fr") is None
    assert pool.taken == 2


def test_the_split_follows_the_requests() -> None:
    pool = prebuild.Pool(lambda lang: lang, 10, lambda: True)
    for _ in range(60):
        pool.take("en")
    assert pool.targets()["en"] >= 9
    assert pool.targets()["ko"] <= 1
    assert pool.missed == 60  # nothing was built yet: every request built its own


def test_size_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DPLAB_PREBUILT_PAGES", raising=False)
    assert prebuild.size_from_env() == prebuild.DEFAULT_SIZE
    monkeypatch.setenv("DPLAB_PREBUILT_PAGES", "0")
    assert prebuild.size_from_env() == 0
    for bad in ("-1", "many"):
        monkeypatch.setenv("DPLAB_PREBUILT_PAGES", bad)
        with pytest.raises(ValueError, match="DPLAB_PREBUILT_PAGES"):
            prebuild.size_from_env()
