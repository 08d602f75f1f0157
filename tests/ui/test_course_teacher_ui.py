"""Browser tests of issue 18: the card's δ ≥ 1/n warning, the teacher view, present mode,
the in-class predictions and the graded problem set (keyboard path, both languages)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from app.shell.i18n import t
from ui.conftest import Server


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_card_warns_when_delta_protects_no_one(page: Any, server: Server, lang: str) -> None:
    page.goto(f"{server.url}/lab?q=sum&n=4&B=1&sigma=1&eps=1&delta=0.5&lang={lang}")
    box = page.locator(".dp-verdict-box")
    expect(box).to_contain_text(t("lab.verdict.pass", lang))
    warn = box.locator(".dp-delta-no-one")
    expect(warn).to_be_visible()
    expect(warn).to_contain_text(t("lab.card.delta_no_one", lang, inv_n="0.25", expected="2"))
    # The live card replaces the first paint and keeps the warning.
    expect(page.locator("#dp-first-paint")).to_have_count(0)
    expect(page.locator(".dp-verdict-box .dp-delta-no-one")).to_be_visible()


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_teacher_notes_and_solutions_by_keyboard(page: Any, server: Server, lang: str) -> None:
    import lessons

    les = lessons.load("cdf", lang)
    page.goto(f"{server.url}/lesson?topic=cdf&teacher=1&lang={lang}")
    notes = page.locator(".dp-teacher-notes")
    expect(notes).to_be_visible()
    expect(notes.get_by_role("heading", name=t("teach.notes", lang))).to_be_visible()
    rows = page.locator("table.dp-lesson-plan tr.dp-plan-row")
    expect(rows).to_have_count(len(les.plan))
    minutes = rows.evaluate_all("rs => rs.map(r => +r.dataset.minutes)")
    assert sum(minutes) == 75
    # one problem: its solution opens and closes from the keyboard
    first = page.locator(".dp-problem").first
    sol = first.locator(".dp-problem-solution")
    expect(sol).to_be_hidden()
    btn = first.get_by_role("button", name=t("teach.solution_show", lang))
    btn.focus()
    page.keyboard.press("Enter")
    expect(sol).to_be_visible()
    expect(first.get_by_role("button", name=t("teach.solution_hide", lang))).to_have_attribute(
        "aria-expanded", "true")
    page.keyboard.press("Enter")
    expect(sol).to_be_hidden()
    # the teacher's switch opens every solution at once
    page.get_by_role("button", name=t("teach.solutions_all_show", lang)).click()
    expect(page.locator(".dp-problem-solution:visible")).to_have_count(len(les.problems))
    page.get_by_role("button", name=t("teach.solutions_all_hide", lang)).click()
    expect(page.locator(".dp-problem-solution:visible")).to_have_count(0)
    # not in the student view
    page.goto(f"{server.url}/lesson?topic=cdf&lang={lang}")
    expect(page.locator(".dp-problem").first).to_be_visible()
    expect(page.locator(".dp-teacher-notes")).to_have_count(0)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_present_mode_steps_with_the_arrows(browser: Any, server: Server, lang: str) -> None:
    import lessons

    les = lessons.load("gaussian", lang)
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    pg = ctx.new_page()
    try:
        pg.goto(f"{server.url}/lesson?lang={lang}&size=large")
        count = pg.locator(".dp-slide-count")
        n = 1 + len(les.sections) + 3  # opening, sections, exercises, problems, quiz
        expect(count).to_have_text(f"1 / {n}")
        expect(pg.locator("h1")).to_be_visible()
        pg.keyboard.press("ArrowRight")
        expect(count).to_have_text(f"2 / {n}")
        first = pg.locator(f"#{les.sections[0].id}")
        expect(first).to_be_visible()
        expect(pg.locator(f"#{les.sections[1].id}")).to_be_hidden()
        assert pg.evaluate("location.hash") == f"#{les.sections[0].id}"
        pg.keyboard.press("ArrowRight")
        expect(pg.locator(f"#{les.sections[1].id}")).to_be_visible()
        expect(first).to_be_hidden()
        pg.keyboard.press("ArrowLeft")
        expect(first).to_be_visible()
        pg.keyboard.press("End")
        expect(count).to_have_text(f"{n} / {n}")
        expect(pg.locator("#quiz")).to_be_visible()
        # the buttons do the same, by name
        pg.get_by_role("button", name=t("teach.slide_prev", lang)).click()
        expect(count).to_have_text(f"{n - 1} / {n}")
        # a section's address opens its slide; "open in the lab" opens the projected lab
        pg.goto(f"{server.url}/lesson?lang={lang}&size=large#worked")
        expect(pg.locator("#worked")).to_be_visible()
        expect(pg.locator("#underflow")).to_be_hidden()
        href = pg.locator("#worked a.dp-open-in-lab").first.get_attribute("href")
        assert href and "size=large" in href and f"lang={lang}" in href
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_sketch_then_reveal(page: Any, server: Server, lang: str) -> None:
    page.goto(f"{server.url}/lesson?lang={lang}#sketch-delta")
    box = page.locator("#sketch-delta")
    answer = box.locator(".dp-sketch-answer")
    expect(answer).to_be_hidden()
    pad = box.locator(".dp-sketch-pad")
    pad.scroll_into_view_if_needed()
    bb = pad.bounding_box()
    assert bb
    page.mouse.move(bb["x"] + 5, bb["y"] + 10)
    page.mouse.down()
    for k in range(1, 8):
        page.mouse.move(bb["x"] + 5 + k * bb["width"] / 8, bb["y"] + 10 + k * bb["height"] / 9)
    page.mouse.up()
    drawn = box.locator(".dp-sketch-pad-line").get_attribute("points") or ""
    assert len(drawn.split()) >= 5
    reveal = box.get_by_role("button", name=t("teach.sketch_reveal", lang))
    reveal.focus()
    page.keyboard.press("Enter")
    expect(answer).to_be_visible()
    expect(box.locator(".dp-sketch-reveal-text")).to_be_visible()
    box.get_by_role("button", name=t("teach.sketch_clear", lang)).click()
    assert (box.locator(".dp-sketch-pad-line").get_attribute("points") or "") == ""


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_handout_is_a4_without_solutions(page: Any, server: Server, lang: str) -> None:
    import lessons

    title = lessons.load("gaussian", lang).title
    page.goto(f"{server.url}/lesson?lang={lang}&handout=1")
    expect(page.locator(".dp-handout h1")).to_have_text(
        t("teach.handout_title", lang, title=title))
    expect(page.locator(".dp-handout-formula .katex").first).to_be_attached()
    assert page.locator(".dp-problem-solution, .dp-exercise-step").count() == 0
    pdf = page.pdf(format="A4")
    assert pdf[:4] == b"%PDF"
