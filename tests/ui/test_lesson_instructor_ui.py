"""Browser tests of the instructor's kit (issue 39): present mode's ←/→ replace the address
(no history entry per slide), its notes panel (N, or the button) shows the current slide's
plan block and the activities' guides, which stay off the projected slide until then; the
answer key prints on A4 (both languages)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

import lessons
from app.shell.i18n import t
from ui.conftest import Server, run_axe


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_present_mode_notes_and_address(browser: Any, server: Server, lang: str) -> None:
    les = lessons.load("gaussian", lang)
    loss = next(r for r in les.plan if "privacy-loss" in r.sections)
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    ctx.set_default_timeout(30_000)  # a loaded 2-core machine: the first page can be slow
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        pg.goto(f"{server.url}/lesson?lang={lang}&size=large&teacher=1")
        count = pg.locator(".dp-slide-count")
        expect(count).to_contain_text("1 / ")
        before = pg.evaluate("history.length")
        target = [s.id for s in les.sections].index("privacy-loss") + 3  # opening, notes, ...
        for _ in range(target - 1):
            pg.keyboard.press("ArrowRight")
        expect(pg.locator("#privacy-loss")).to_be_visible()
        expect(pg.locator(".dp-toc")).to_be_hidden()  # it belongs to the opening slide
        assert pg.evaluate("location.hash") == "#privacy-loss"
        pg.keyboard.press("ArrowLeft")
        pg.keyboard.press("ArrowRight")
        assert pg.evaluate("history.length") == before  # replaced, not pushed
        guide = pg.locator("#tps-laplace .dp-activity-guide")
        expect(guide).to_be_hidden()
        panel = pg.locator(".dp-slide-notes")
        expect(panel).to_be_hidden()
        pg.keyboard.press("n")
        expect(panel).to_be_visible()
        expect(panel).to_contain_text(loss.title)
        expect(panel).to_contain_text(t("teach.minutes", lang, minutes=loss.minutes))
        expect(guide).to_be_visible()
        expect(guide).to_contain_text(t("teach.guide_listen", lang))
        btn = pg.get_by_role("button", name=t("teach.slide_notes", lang))
        expect(btn).to_have_attribute("aria-expanded", "true")
        btn.click()
        expect(panel).to_be_hidden()
        expect(guide).to_be_hidden()
        assert errors == []
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_answer_key_prints_on_a4(page: Any, server: Server, lang: str) -> None:
    les = lessons.load("cdf", lang)
    page.goto(f"{server.url}/lesson?lang={lang}&topic=cdf&key=1")
    expect(page.locator(".dp-key h1")).to_have_text(t("teach.key_title", lang, title=les.title))
    expect(page.locator(".dp-rubric")).to_have_count(len(les.problems))
    expect(page.locator(".dp-key .katex").first).to_be_attached()
    pdf = page.pdf(prefer_css_page_size=True)
    assert pdf[:4] == b"%PDF"
    # A4 from the stylesheet's @page rule (210 x 297 mm = 595 x 842 pt; Letter is 612 x 792)
    boxes = re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert boxes and all(abs(float(w) - 595.3) < 2 and abs(float(h) - 841.9) < 2
                         for w, h in boxes), boxes
    assert len(boxes) >= 2  # the key runs over several pages, each A4


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("path", ["/lesson?teacher=1", "/lesson?topic=cdf&key=1",
                                  "/lesson?topic=cdf&handout=1"])
def test_axe_on_the_instructor_views(page: Any, server: Server, path: str, lang: str) -> None:
    page.goto(f"{server.url}{path}&lang={lang}")
    page.wait_for_load_state("load")
    expect(page.locator(".katex").first).to_be_attached()
    found = run_axe(page)
    assert found == [], json.dumps(found, indent=1, ensure_ascii=False)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_second_screen_follows_the_slides(browser: Any, server: Server, lang: str) -> None:
    les = lessons.load("gaussian", lang)
    worst = next(r for r in les.plan if "worst-event" in r.sections)
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    ctx.set_default_timeout(30_000)  # a loaded 2-core machine: the first page can be slow
    try:
        projected = ctx.new_page()
        projected.goto(f"{server.url}/lesson?lang={lang}&size=large&teacher=1#privacy-loss")
        link = projected.get_by_role("link", name=t("teach.slide_second", lang))
        href = link.get_attribute("href") or ""
        assert "teacher=1" in href and "size=large" not in href
        notes = ctx.new_page()
        notes.goto(href)
        expect(notes.locator("#teacher-plan")).to_be_attached()
        projected.bring_to_front()
        projected.keyboard.press("ArrowRight")
        expect(projected.locator("#worst-event")).to_be_visible()
        expect(notes.locator(f"#plan-{worst.id}")).to_have_class(re.compile("dp-plan-current"))
        expect(notes.locator("tr.dp-plan-current")).to_have_count(1)
    finally:
        ctx.close()
