"""The projector view of a class (/teach?room=CODE&size=large) in real Chromium at 1920×1080,
both languages: the current poll's estimate on the first screen with numbers of at least 40 px,
its interval on one line, the join code unbroken, no buttons (the controls are the presenter
window), the class CDF's figure text at least 24 px; under 10 answers only the waiting text.
Students are plain HTTP clients with a cookie jar each (one credential from /join each)."""

from __future__ import annotations

import http.cookiejar
import json
import random
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from ui.conftest import Server, shot, teacher_server

TOKEN = "ui-teacher-token-37-projector"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from teacher_server("ui-projector-server.log", TOKEN)


class Student:
    """One device: /join gives it a credential (its own cookie jar)."""

    def __init__(self, base: str, code: str) -> None:
        self.base, self.code = base, code
        self.op = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with self.op.open(f"{base}/join?room={code}&lang=en", timeout=30) as r:
            assert r.status == 200

    def send(self, what: str, body: dict[str, Any]) -> int:
        req = urllib.request.Request(f"{self.base}/join/{what}", json.dumps(body).encode(),
                                     {"Content-Type": "application/json", "Origin": self.base})
        try:
            with self.op.open(req, timeout=30) as r:
                return int(r.status)
        except urllib.error.HTTPError as e:
            return int(e.code)

    def state(self) -> dict[str, Any]:
        with self.op.open(f"{self.base}/join/state?room={self.code}&lang=en", timeout=30) as r:
            return dict(json.loads(r.read()))


SIZES = """() => {
  const px = (el) => el ? parseFloat(getComputedStyle(el).fontSize) : 0;
  const q = (s) => document.querySelector(s);
  const ci = q('.dp-proj-ci-range'), est = q('.dp-proj-estimate');
  return {est: px(est), ci: px(ci), answered: px(q('.dp-proj-answered')),
          ciLines: ci ? ci.getClientRects().length : 0,
          ciHeight: ci ? ci.getBoundingClientRect().height : 0,
          estBottom: est ? est.getBoundingClientRect().bottom : 1e9,
          ciBottom: ci ? ci.getBoundingClientRect().bottom : 1e9,
          codeLines: q('.dp-join-code').getClientRects().length,
          buttons: document.querySelectorAll('main button, main form').length};
}"""

CDF_TEXT = """() => Array.from(document.querySelectorAll(
  '.dp-proj .dp-cdf-at:not([hidden]) svg text')).map((t) => {
    const m = t.getScreenCTM();
    const r = t.getBoundingClientRect();
    return {px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b),
            bottom: r.bottom};
  })"""


def test_projector_at_1920(browser: Any, server: Server) -> None:
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    ctx.set_default_timeout(60000)
    try:
        panel = ctx.new_page()
        panel.goto(server.url + "/teach?lang=en")
        panel.get_by_label("Teacher token").fill(TOKEN)
        panel.get_by_label("Teacher token").press("Enter")
        panel.wait_for_url(re.compile(r"room=[A-Z0-9]{6}"))
        code = re.search(r"room=([A-Z0-9]{6})", panel.url).group(1)  # type: ignore[union-attr]
        with ctx.expect_page() as opened:
            panel.get_by_role("link", name="Open the projector view ↗").click()
        proj = opened.value
        expect(proj.locator(".dp-proj .dp-room-code")).to_have_text(code)
        # the projector's "controls" link opens the presenter window
        expect(proj.locator(".dp-proj-controls-link")).to_have_attribute(
            "href", re.compile(r"panel=1"))
        panel.locator(".dp-poll-open").click()  # the prepared yes/no question at ε = ln 3
        panel.wait_for_load_state()
        students = [Student(server.url, code) for _ in range(30)]
        pid = students[0].state()["poll"]["id"]
        rng = random.Random(5)
        for s in students[:4]:
            assert s.send("answer", {"room": code, "poll": pid,
                                     "sent": rng.choice(("yes", "no"))}) == 200
        for lang, waiting in (("en", "Waiting for 10 answers (4 so far)"),
                              ("ko", "답 10개를 기다리는 중입니다(지금 4개)")):
            proj.goto(f"{server.url}/teach?room={code}&lang={lang}&size=large")
            expect(proj.locator(".dp-proj-waiting")).to_contain_text(waiting)
            expect(proj.locator(".dp-proj-estimate")).to_have_count(0)
        for s in students[4:]:
            assert s.send("answer", {"room": code, "poll": pid,
                                     "sent": rng.choice(("yes", "no", "no"))}) == 200
        # the projected page refreshes itself: the estimate comes without a reload
        expect(proj.locator(".dp-proj-answered")).to_contain_text("30명 중 30명")
        expect(proj.locator(".dp-proj-estimate")).to_have_count(1)
        for lang in ("en", "ko"):
            proj.goto(f"{server.url}/teach?room={code}&lang={lang}&size=large")
            expect(proj.locator(".dp-proj-answered")).to_contain_text("30")
            m = proj.evaluate(SIZES)
            assert m["est"] >= 40 and m["ci"] >= 40 and m["answered"] >= 40, m
            assert m["ciLines"] == 1 and m["ciHeight"] < 1.6 * m["ci"], m  # one line
            assert m["estBottom"] <= 1080 and m["ciBottom"] <= 1080, m  # first screen
            assert m["codeLines"] == 1, m
            assert m["buttons"] == 0, m  # nothing to press on the projector
            shot(proj, f"projector-local-{lang}")
        # the class CDF, released from the panel: its figure's text is at least 24 px
        panel.locator(".dp-values-open").click()
        panel.wait_for_load_state()
        aid = students[0].state()["ask"]["id"]
        for s in students:
            v = round(min(12.0, max(0.0, rng.gauss(7, 1.2))), 1)
            assert s.send("value", {"room": code, "ask": aid, "value": v}) == 200
        panel.locator(".dp-cdf-release").click()
        panel.wait_for_load_state()
        for lang in ("en", "ko"):
            proj.goto(f"{server.url}/teach?room={code}&lang={lang}&size=large")
            figure = proj.locator(".dp-proj-cdf .dp-cdf-at:not([hidden]) svg.dp-plot-big")
            expect(figure).to_be_visible()
            texts = proj.evaluate(CDF_TEXT)
            assert texts and min(t["px"] for t in texts) >= 24, texts
            assert max(t["bottom"] for t in texts) <= 1080, texts  # on the first screen
            shot(proj, f"projector-cdf-{lang}")
    finally:
        ctx.close()
