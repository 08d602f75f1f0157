"""A student always knows whether they follow (issue 37 item 4), in real Chromium against
scripts/serve-prod (2 workers behind HAProxy, its Redis): a worker is killed under two students'
labs (one following in English, one exploring on her own in Korean). Within 3 s of the kill
each room banner says the connection is lost (role=alert, in the page's language); each page
then reopens by itself (no reload by the test) on the live worker: the follower follows again
(the teacher's next change reaches her card), the explorer is still on her own with her own σ.
Then every worker is killed: the class page (/join) says the class is lost within 3 s, and that
it is back once serve-prod has restarted them.

The teacher is a protocol-level tab (benchmarks/wsclient.py) on the worker that stays, run on a
loop of its own thread. Polling waits only; the 3 s bounds are the issue's requirement.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import threading
import time
from collections.abc import Coroutine, Iterator
from typing import Any

import pytest
import wsclient
from playwright.sync_api import expect
from test_room_prod import REDIS
from test_serve_prod import HAPROXY, Prod, _alive, wait_until
from ui.conftest import CHROMIUM, CHROMIUM_FLAGS

TOKEN = "test-teacher-token-reconnect"
LOST_WITHIN_S = 3.0  # issue 37: the page says so within 3 s

pytestmark = [
    pytest.mark.skipif(HAPROXY is None or REDIS is None,
                       reason="haproxy or redis-server not installed (scripts/ensure-haproxy.sh, "
                              "scripts/ensure-redis.sh)"),
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium found: browser test skipped"),
]


class Loop:
    """An asyncio loop running in a thread of its own (the teacher's websocket keeps being
    served while the browser is driven)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 120) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield b
        b.close()


def _context(browser: Any, prod: Prod, lang: str) -> Any:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                              has_touch=True, locale="en-US" if lang == "en" else "ko-KR")
    ctx.set_default_timeout(60_000)
    # what the Content-Security-Policy refuses, on every page this context loads
    ctx.add_init_script("window.__csp = []; document.addEventListener("
                        "'securitypolicyviolation', e => window.__csp.push(e.violatedDirective"
                        " + ' ' + e.blockedURI));")
    return ctx


def _open_on(pg: Any, prod: Prod, url: str, worker: str, tries: int = 5) -> None:
    """Open ``url`` on ``worker`` (the balancer's affinity cookie). A worker the balancer
    marked down meanwhile (a busy machine: its health check timed out) sends the page to the
    other one and says so in the cookie: then open it again."""
    ctx = pg.context
    for _ in range(tries):
        ctx.add_cookies([{"name": "dplab_w", "value": worker, "url": prod.base + "/"}])
        pg.goto(url)
        expect(pg.locator(".dp-room-banner .dp-room-banner-inner")).to_be_visible()
        expect(pg.locator(".dp-card-pane .dp-sigma")).to_be_visible()
        if {c["name"]: c["value"] for c in ctx.cookies(prod.base)}.get("dplab_w") == worker:
            return
    raise AssertionError(f"the balancer did not keep {url} on {worker}")


def _lost_within(pg: Any, word: str, killed_at: float) -> float:
    """Wait (polling) until the room banner's alert says ``word``; fail if that takes longer
    than LOST_WITHIN_S after the kill. Returns the seconds it took."""
    alert = pg.locator(".dp-room-banner .dp-conn-lost [role=alert]")
    left_ms = max(1.0, (killed_at + LOST_WITHIN_S - time.monotonic()) * 1000)
    expect(alert).to_contain_text(word, timeout=left_ms)
    return time.monotonic() - killed_at


def test_a_killed_workers_students_are_told_and_follow_again(
        browser: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    prod = Prod(tmp_path_factory.mktemp("reconnect"), DPLAB_TEACHER_TOKEN=TOKEN,
                DPLAB_RESTART_DELAY="4")
    loop = Loop()
    contexts: list[Any] = []
    errors: list[str] = []
    try:
        cookie, code = loop.run(wsclient.teacher_sign_in(prod.base, TOKEN))
        lab = f"{prod.base}/lab?room={code}"
        for _ in range(5):  # on w1 (see _open_on)
            teacher = loop.run(wsclient.Tab.open(lab + "&lang=en", cookie="w1",
                                                 extra_cookies={"dplab_teacher": cookie}))
            if teacher.worker == "w1":
                break
            loop.run(teacher.close())
        assert teacher.worker == "w1"
        loop.run(wsclient.move_sigma(teacher, 0.3))  # σ = 1.995

        en_ctx, ko_ctx = _context(browser, prod, "en"), _context(browser, prod, "ko")
        contexts += [en_ctx, ko_ctx]
        en, ko = en_ctx.new_page(), ko_ctx.new_page()
        for pg in (en, ko):
            pg.on("pageerror", lambda e: errors.append(str(e)))
        # the pages' own loads (the address of each document request)
        loads: dict[str, list[str]] = {"en": [], "ko": []}
        for name, pg in (("en", en), ("ko", ko)):
            pg.on("request", lambda r, name=name: loads[name].append(r.url)
                  if r.is_navigation_request() else None)

        _open_on(en, prod, lab + "&lang=en", "w2")
        _open_on(ko, prod, lab + "&lang=ko", "w2")
        del loads["en"][:-1], loads["ko"][:-1]  # (a page the balancer sent elsewhere)
        banner_en, banner_ko = en.locator(".dp-room-banner"), ko.locator(".dp-room-banner")
        expect(banner_en).to_contain_text(f"Following the instructor (class {code})")
        expect(en.locator(".dp-card-pane .dp-sigma")).to_have_text("1.995")
        # the Korean student explores on her own, from where the class is, to σ = 0.7
        expect(banner_ko).to_contain_text("교수자를 따라가는 중입니다")
        expect(ko.locator(".dp-card-pane .dp-sigma")).to_have_text("1.995")
        ko.get_by_role("button", name="혼자 탐색하기").click()
        expect(banner_ko).to_contain_text("혼자 탐색하는 중입니다")
        box = ko.get_by_label(re.compile(r"^σ — "))
        box.fill("0.7")
        box.press("Enter")
        expect(ko.locator(".dp-card-pane .dp-sigma")).to_have_text("0.7")
        expect(ko).to_have_url(re.compile(r"sigma=0\.7"))  # the address keeps her σ
        # the pages are live, and neither says "lost"
        assert en.locator(".dp-conn-lost").count() == 0 == ko.locator(".dp-conn-lost").count()
        assert [len(loads["en"]), len(loads["ko"])] == [1, 1], loads

        # ---- w2 is killed under both students ---------------------------------------------
        victim = prod.pids()["w2"]
        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        took = {"en": _lost_within(en, "Disconnected", killed_at),
                "ko": _lost_within(ko, "연결 끊김", killed_at)}
        print(f"lost shown after the kill: {took}")  # (the report's figure)
        for pg in (en, ko):  # the alert replaces the banner's usual text
            expect(pg.locator(".dp-room-banner .dp-room-banner-inner")).to_be_hidden(timeout=1)
            # and the follow switch, which cannot reach the server now, is gone until then
            expect(pg.locator(".dp-follow")).to_be_hidden(timeout=1)
        expect(en.locator(".dp-room-banner .dp-conn-lost")).to_contain_text(
            "the instructor's changes do not reach this screen")
        expect(ko.locator(".dp-room-banner .dp-conn-lost")).to_contain_text(
            "서버와의 연결이 끊겼습니다")
        assert _alive(victim) is False

        # ---- both pages reopen by themselves on the live worker ---------------------------
        inner_en = en.locator(".dp-room-banner .dp-room-banner-inner")
        inner_ko = ko.locator(".dp-room-banner .dp-room-banner-inner")
        expect(inner_en).to_be_visible()
        expect(inner_en).to_contain_text(f"Following the instructor (class {code})")
        expect(inner_ko).to_be_visible()
        expect(inner_ko).to_contain_text("혼자 탐색하는 중입니다")
        print(f"following again after {time.monotonic() - killed_at:.2f} s")
        # one load each, made by the page (this test reloads nothing): the follower's address
        # names only the room and her page options (the room's state comes from the room), the
        # explorer's keeps her σ and says she was on her own
        assert len(loads["en"]) == 2 and len(loads["ko"]) == 2, loads
        assert loads["en"][1] == f"{lab}&lang=en", loads["en"]
        assert "sigma=0.7" in loads["ko"][1] and "follow=own" in loads["ko"][1], loads["ko"]
        expect(ko.locator(".dp-card-pane .dp-sigma")).to_have_text("0.7")
        expect(ko.get_by_role("button", name="다시 따라가기")).to_be_visible()
        expect(ko).not_to_have_url(re.compile(r"follow="))  # read once, then dropped
        loop.run(wsclient.move_sigma(teacher, 0.6))  # σ = 3.981
        expect(en.locator(".dp-card-pane .dp-sigma")).to_have_text("3.981")
        expect(ko.locator(".dp-card-pane .dp-sigma")).to_have_text("0.7")  # on her own
        assert en.locator(".dp-conn-lost").count() == 0

        # ---- the class page: every worker goes, then serve-prod restarts them -------------
        join = en_ctx.new_page()
        join.on("pageerror", lambda e: errors.append(str(e)))
        failed: list[float] = []  # when a refresh of the class page failed (epoch ms)

        def refresh_failed(r: Any) -> None:
            if "/join/state" in r.url and r.status >= 500:
                t = r.request.timing
                failed.append(t["startTime"] + t["responseEnd"] if t["responseEnd"] >= 0
                              else time.time() * 1000)

        join.on("response", refresh_failed)
        join.on("requestfailed", lambda r: failed.append(time.time() * 1000)
                if "/join/state" in r.url else None)
        join.goto(f"{prod.base}/join?room={code}&lang=en")
        expect(join.get_by_role("heading", level=1)).to_contain_text(code)
        wait_until(lambda: {"w1", "w2"} <= set(prod.pids()) and all(
            _alive(p) for n, p in prod.pids().items() if n in ("w1", "w2")), 60,
            "both workers alive")
        pids = prod.pids()
        for name in ("w1", "w2"):
            os.kill(pids[name], signal.SIGKILL)
        killed_at = time.monotonic()
        lost = join.locator(".dp-conn-lost [role=alert]")
        # the page asks every 2 s, and the balancer tries each dead worker first: the refresh
        # fails up to ~3 s after the kill; the page says so at once (within 3 s of that)
        expect(lost).to_contain_text("Disconnected", timeout=10_000)
        seen = join.evaluate("Date.now()")
        print(f"class page lost after the kill: {time.monotonic() - killed_at:.2f} s, "
              f"after the failed refresh: {(seen - failed[0]) / 1000:.2f} s")
        assert failed and seen - failed[0] <= LOST_WITHIN_S * 1000, (seen, failed)
        expect(lost).to_contain_text("The class is lost")
        expect(join.locator(".dp-conn-back [role=status]")).to_contain_text(
            "Back in class", timeout=120_000)
        expect(join.locator(".dp-conn-lost")).to_have_count(0)
        # and the labs, lost again, came back by themselves once a worker answered
        expect(inner_en).to_be_visible(timeout=120_000)
        expect(inner_en).to_contain_text("Following the instructor")
        expect(inner_ko).to_be_visible(timeout=120_000)
        expect(inner_ko).to_contain_text("혼자 탐색하는 중입니다")
        assert len(loads["en"]) >= 3 and len(loads["ko"]) >= 3, loads
        for pg in (en, ko, join):  # the script is allowed by the policy (and so is the rest)
            assert pg.evaluate("window.__csp") == [], pg.url
        assert errors == [], errors
    finally:
        for c in contexts:
            c.close()
        loop.close()
        assert prod.stop() == 0
