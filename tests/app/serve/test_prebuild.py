"""The pool of pages built ahead (app/serve/prebuild.py): filled only when quiet, each item used
once, split by demand; which requests may take one."""

from __future__ import annotations

import pytest

from app.serve import prebuild


def test_the_pool_fills_only_when_quiet_and_each_item_is_used_once() -> None:
    quiet = [False]
    made: list[str] = []

    def build(key: str) -> str:
        made.append(key)
        return f"{key}-{len(made)}"

    pool = prebuild.Pool(build, 8, lambda: quiet[0], ("ko", "en"))
    pool.tick()
    assert made == []  # busy: nothing built
    quiet[0] = True
    for _ in range(20):
        pool.tick()
    assert sorted(made) == ["en"] + ["ko"] * 7  # Korean first before any request
    first, second = pool.take("ko"), pool.take("ko")
    assert first and second and first != second
    assert pool.take("fr") is None
    assert pool.taken == 2


def test_the_split_follows_the_requests() -> None:
    pool = prebuild.Pool(lambda k: k, 10, lambda: True, ("ko", "en"))
    for _ in range(4):  # a few requests move the split
        pool.take("en")
    assert pool.targets()["en"] >= 7
    for _ in range(56):
        pool.take("en")
    t = pool.targets()
    assert t["en"] >= 9 and t["ko"] <= 1 and sum(t.values()) == 10
    assert pool.missed == 60  # nothing was built yet: every request built its own


def test_a_lecture_hall_address_takes_the_pool_after_a_few_requests() -> None:
    # The instructor and a few early students open the class's link (a worker sees about
    # half of them): the pool built in the quiet minute before the class is then nearly all
    # for that address (with a decay of 0.9 per request it kept a quarter for the others).
    pool = prebuild.Pool(lambda k: k, 100, lambda: True, prebuild.KEYS)
    link = prebuild.KEYS[-1]
    for _ in range(3):
        pool.take(link)
    t = pool.targets()
    assert t[link] >= 90 and sum(t.values()) == 100


def test_the_pool_never_holds_more_than_its_size_when_the_split_moves() -> None:
    gone: list[str] = []
    made = iter(range(1000))
    pool = prebuild.Pool(lambda k: f"{k}-{next(made)}", 4, lambda: True, ("ko", "en"),
                         discard=gone.append)
    for _ in range(10):
        pool.tick()
    assert [len(pool.ready[k]) for k in ("ko", "en")] == [4, 0]
    for _ in range(10):  # an English class: every request misses, the split moves
        pool.take("en")
    for _ in range(10):
        pool.tick()
        assert sum(len(v) for v in pool.ready.values()) <= 4
    assert len(pool.ready["en"]) >= 3 and pool.discarded == len(gone) >= 3
    assert all(g.startswith("ko-") for g in gone)  # the oldest of the key no longer asked for


def test_targets_never_exceed_the_size() -> None:
    pool = prebuild.Pool(lambda k: k, 2, lambda: True, prebuild.KEYS)
    for k in prebuild.KEYS:
        pool.take(k)
    assert sum(pool.targets().values()) == 2


@pytest.mark.parametrize(("arguments", "accept", "key"), [
    ({}, "ko-KR,ko;q=0.9", ("ko", ())),
    ({}, "en-US,en;q=0.9", ("en", ())),
    ({"lang": [b"en"]}, "ko", ("en", (("lang", "en"),))),
    ({"lang": [b"ko"]}, None, ("ko", (("lang", "ko"),))),
    ({"theme": [b"dark"]}, "en", ("en", (("theme", "dark"),))),
    ({"theme": [b"dark"], "lang": [b"ko"], "size": [b"large"]}, "en",
     ("ko", (("lang", "ko"), ("size", "large"), ("theme", "dark")))),
])
def test_an_address_of_page_options_has_a_key(arguments: dict[str, list[bytes]], accept: str | None,
                                     key: prebuild.Key) -> None:
    headers = {"Accept-Language": accept} if accept else {}
    assert prebuild.request_key(arguments, headers) == key


@pytest.mark.parametrize("arguments", [
    {"sigma": [b"2"]}, {"tour": [b"1"]}, {"room": [b"ABCDEF"]}, {"size": [b"huge"]},
    {"theme": [b"dark", b"default"]}, {"lang": [b"fr"]}, {"lang": [b"ko"], "eps": [b"1"]}])
def test_any_other_address_is_built_on_demand(arguments: dict[str, list[bytes]]) -> None:
    assert prebuild.request_key(arguments, {"Accept-Language": "ko"}) is None


def test_the_stand_in_request_is_the_address_of_its_key() -> None:
    key = ("en", (("lang", "en"), ("theme", "dark")))
    request, arguments, headers = prebuild._stand_in_request(key)
    assert request.uri == "/lab?lang=en&theme=dark"
    assert arguments == {"lang": [b"en"], "theme": [b"dark"]}
    assert prebuild.request_key(arguments, headers) == key
    assert prebuild._label(key) == "en+lang+theme=dark"


def test_a_key_asked_for_joins_the_pool() -> None:
    pool = prebuild.Pool(lambda k: f"{k}-{pool.built}", 6, lambda: True, ("ko", "en"))
    assert pool.take("dark") is None  # asked for once: built for from now on
    while pool.fill_one():
        pass
    assert pool.ready["dark"] and pool.take("dark") is not None
    assert sum(len(v) for v in pool.ready.values()) <= 6


def test_size_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DPLAB_PREBUILT_PAGES", raising=False)
    assert prebuild.size_from_env() == prebuild.DEFAULT_SIZE
    monkeypatch.setenv("DPLAB_PREBUILT_PAGES", "0")
    assert prebuild.size_from_env() == 0
    for bad in ("-1", "many"):
        monkeypatch.setenv("DPLAB_PREBUILT_PAGES", bad)
        with pytest.raises(ValueError, match="DPLAB_PREBUILT_PAGES"):
            prebuild.size_from_env()
