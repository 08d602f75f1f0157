"""Browser tests of the course: lessons, quiz kept in localStorage, progress on the index,
"open in the lab" links checked against dpcore, glossary tooltips, and the lab's guided tour
walked with the keyboard."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlparse

import pytest
from playwright.sync_api import expect

import lessons
from ui.conftest import Server, shortcuts_ready, shot
from ui.test_lab_ui import check_card, url_params

# Leave every field: the focused element may sit in a component's shadow root (the lab's
# controls are one component), where blurring document.activeElement (its host) leaves the
# field focused and the next key types into it.
BLUR_DEEP = """() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (a) a.blur();
}"""


def open_lesson(page: Any, server: Server, query: str) -> None:
    page.goto(f"{server.url}/lesson?{query}")
    expect(page.locator(".dp-quiz-question").first).to_be_visible()
    # KaTeX has typeset the maths (MathML inside: readable by a screen reader).
    expect(page.locator(".dp-math .katex").first).to_be_attached()


def answer(page: Any, qid: str, option: int) -> None:
    q = page.locator(f"#quiz-{qid}")
    q.locator(f"input[value='{option}']").check()
    q.locator(".dp-check").click()
    expect(q.locator(".dp-quiz-explanation")).to_be_visible()


def test_quiz_answer_survives_reload_and_can_be_redone(page: Any, server: Server) -> None:
    les = lessons.load("gaussian", "en")
    q0, q1 = les.quiz[0], les.quiz[1]
    open_lesson(page, server, "lang=en")
    page.evaluate("localStorage.clear()")
    page.reload()
    first = page.locator(f"#quiz-{q0.id}")
    expect(first.locator(".dp-quiz-explanation")).to_be_hidden()
    wrong = next(i for i, o in enumerate(q0.options) if not o.correct)
    answer(page, q0.id, wrong)
    expect(first.locator(".dp-quiz-verdict")).to_have_text(
        "Not quite. Read the explanations below.")
    # Every option's explanation is shown, the chosen one marked.
    expect(first.locator(".dp-whys li")).to_have_count(len(q0.options))
    expect(first.locator(f".dp-whys li[data-option='{wrong}'] .dp-yours")).to_be_visible()
    right = next(i for i, o in enumerate(q1.options) if o.correct)
    answer(page, q1.id, right)
    page.locator(f"#quiz-{q1.id} .dp-learned").check()
    keys = page.evaluate("Object.keys(localStorage).sort()")
    assert keys == sorted([f"dplab.quiz.gaussian.{q0.id}", f"dplab.quiz.gaussian.{q1.id}",
                           f"dplab.learned.gaussian.{q1.id}"])

    page.reload()
    expect(first.locator(".dp-quiz-explanation")).to_be_visible()
    expect(first.locator(f"input[value='{wrong}']")).to_be_checked()
    expect(page.locator(f"#quiz-{q1.id} .dp-learned")).to_be_checked()
    expect(page.locator(".dp-quiz-summary")).to_contain_text(
        f"2 of {len(les.quiz)} quiz questions answered · 1 marked learned")

    # The index reads the same localStorage.
    page.goto(f"{server.url}/?lang=en")
    expect(page.locator(".dp-learned-count[data-lesson='gaussian']")).to_have_text(
        f"2 of {len(les.quiz)} quiz questions answered · 1 marked learned")

    # Unmark one, redo one, then reset all.
    open_lesson(page, server, "lang=en")
    page.locator(f"#quiz-{q1.id} .dp-learned").uncheck()
    assert page.evaluate(f"localStorage.getItem('dplab.learned.gaussian.{q1.id}')") is None
    first.locator(".dp-redo").click()
    expect(first.locator(".dp-quiz-explanation")).to_be_hidden()
    expect(first.locator(f"input[value='{wrong}']")).not_to_be_checked()
    assert page.evaluate(f"localStorage.getItem('dplab.quiz.gaussian.{q0.id}')") is None
    page.locator(".dp-reset-all").click()
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('dplab.'))") == []
    page.reload()
    expect(page.locator(".dp-quiz-explanation:visible")).to_have_count(0)


def test_quiz_and_exercises_with_the_keyboard_only(page: Any, server: Server) -> None:
    les = lessons.load("gaussian", "en")
    q = les.quiz[2]
    ex = les.exercises[0]
    open_lesson(page, server, "lang=en")
    page.evaluate("localStorage.clear()")
    # Exercise: the answer opens one step at a time with Enter.
    button = page.locator(f"#exercise-{ex.id} .dp-next-step")
    button.focus()
    steps = page.locator(f"#exercise-{ex.id} .dp-exercise-step")
    expect(page.locator(f"#exercise-{ex.id} .dp-exercise-answer")).to_be_hidden()
    for k in range(1, len(ex.steps) + 1):
        page.keyboard.press("Enter")
        expect(steps.nth(k - 1)).to_be_visible()
        if k < len(ex.steps):
            expect(steps.nth(k)).to_be_hidden()
    # Quiz: arrows choose within the radio group, Tab reaches "Check", Enter answers.
    fs = page.locator(f"#quiz-{q.id}")
    fs.locator("input[value='0']").focus()
    page.keyboard.press("Space")  # a focused radio is checked with Space, arrows move on
    right = next(i for i, o in enumerate(q.options) if o.correct)
    for _ in range(right):
        page.keyboard.press("ArrowDown")
    expect(fs.locator(f"input[value='{right}']")).to_be_checked()
    expect(fs.locator(".dp-quiz-explanation")).to_be_hidden()  # choosing is not answering
    page.keyboard.press("Tab")
    expect(fs.locator(".dp-check")).to_be_focused()
    page.keyboard.press("Enter")
    expect(fs.locator(".dp-quiz-verdict")).to_have_text("Right.")
    page.evaluate("localStorage.clear()")


def test_glossary_tooltip_on_keyboard_focus(page: Any, server: Server) -> None:
    open_lesson(page, server, "lang=ko")
    term = page.locator(".dp-section .dp-term").first
    tip = term.locator(".dp-tip")
    expect(tip).to_be_hidden()
    term.focus()
    expect(tip).to_be_visible()
    tip_id = term.get_attribute("aria-describedby")
    assert tip_id and page.locator(f"#{tip_id}").count() == 1
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()


@pytest.mark.parametrize("topic", lessons.LESSONS)
def test_languages_have_the_same_structure_and_html_lang(page: Any, server: Server,
                                                         topic: str) -> None:
    found = {}
    for lang in lessons.LANGS:
        open_lesson(page, server, f"lang={lang}&topic={topic}")
        assert page.locator("html").get_attribute("lang") == lang
        found[lang] = (
            page.eval_on_selector_all(".dp-section", "els => els.map(e => e.id)"),
            page.eval_on_selector_all(".dp-quiz-question", "els => els.map(e => e.dataset.qid)"),
            page.eval_on_selector_all(".dp-exercise", "els => els.map(e => e.id)"),
            page.eval_on_selector_all("a.dp-open-in-lab",
                                      "els => els.map(e => e.getAttribute('href')"
                                      ".replace(/&lang=\\w+/, ''))"),
            page.locator("h1").inner_text(),
        )
        shot(page, f"lesson-{topic}-{lang}")
    assert found["ko"][:4] == found["en"][:4]
    assert found["ko"][4] != found["en"][4]  # other text


def test_projector_mode_lesson(page: Any, server: Server) -> None:
    page.set_viewport_size({"width": 1920, "height": 1080})
    # size=large is the present mode: one section per screen (tests/ui/test_course_teacher_ui.py)
    page.goto(f"{server.url}/lesson?lang=ko&size=large")
    expect(page.locator(".dp-slide-count")).to_be_visible()
    expect(page.locator(".dp-math .katex").first).to_be_attached()
    size = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    assert size >= 22
    link = page.locator("a.dp-open-in-lab").first.get_attribute("href")
    assert "size=large" in (link or "")
    shot(page, "lesson-gaussian-ko-large")
    page.set_viewport_size({"width": 1500, "height": 1000})


def sample_links(hrefs: list[str]) -> list[str]:
    """The links a browser follows: the first, the last, and one per page x query or data
    source x method, with eps = 0 and delta = 0 (the card's exact-zero paths) as kinds of their
    own. Every link, all of them, is checked as a lab / CDF state without a browser in
    tests/lessons/test_lessons.py (test_every_lab_link_is_a_valid_lab_state)."""
    picked: dict[tuple[str, ...], str] = {}
    for h in hrefs:
        u = urlparse(h)
        a = dict(parse_qsl(u.query))
        kind = (u.path, a.get("q", ""), a.get("data", ""), a.get("method", ""),
                str(a.get("eps") == "0"), str(a.get("delta") == "0"))
        picked.setdefault(kind, h)
    chosen = [hrefs[0], *picked.values(), hrefs[-1]]
    return list(dict.fromkeys(chosen))


def test_gaussian_links_open_the_exact_release(page: Any, server: Server) -> None:
    les = lessons.load("gaussian", "en")
    open_lesson(page, server, "lang=en")
    hrefs = page.eval_on_selector_all("a.dp-open-in-lab", "els => els.map(e => e.href)")
    assert len(hrefs) == len(les.examples) + len(les.exercises)
    assert all(urlparse(h).path == "/lab" for h in hrefs)
    for href in sample_links(hrefs):
        args = dict(parse_qsl(urlparse(href).query))
        page.goto(href)
        check_card(page, args["q"], int(args["n"]), float(args["B"]), float(args["sigma"]),
                   float(args["eps"]), float(args["delta"]))
        # The lab keeps the link's parameters in its own address.
        got = url_params(page)
        assert all(got[k] == args[k] for k in lessons.LAB_KEYS), (href, got)


def test_cdf_links_open_the_cdf_page_with_their_parameters(page: Any, server: Server) -> None:
    les = lessons.load("cdf", "en")
    open_lesson(page, server, "lang=en&topic=cdf")
    hrefs = page.eval_on_selector_all("a.dp-open-in-lab", "els => els.map(e => e.href)")
    assert len(hrefs) == len(les.examples) + len(les.exercises)
    assert all(urlparse(h).path in ("/lab", "/cdf") for h in hrefs)
    for href in sample_links(hrefs):
        args = dict(parse_qsl(urlparse(href).query))
        page.goto(href)
        if urlparse(href).path == "/lab":
            expect(page.locator(".dp-verdict")).to_be_visible()
            continue
        assert urlparse(href).path == "/cdf"
        eps = page.locator(".dp-cdf-eps").first
        expect(eps).to_be_visible()
        if args.get("method") != "all":
            assert float(eps.inner_text().strip().split()[0]) == pytest.approx(
                float(args["eps"]), rel=1e-9)
        got = url_params(page)
        for k in ("data", "eps", "method"):
            if k in args:
                assert got.get(k) == args[k], (href, k, got)


def test_tour_walked_with_the_keyboard(page: Any, server: Server) -> None:
    steps = lessons.tour("en")
    page.goto(f"{server.url}/lab?lang=en&tour=1")
    panel = page.locator(".dp-tour-step")
    expect(panel).to_contain_text(f"Step 1 of {len(steps)}")
    shortcuts_ready(page)
    page.evaluate(BLUR_DEEP)
    for k in range(1, len(steps) + 1):
        step = steps[k - 1]
        expect(panel).to_contain_text(f"Step {k} of {len(steps)}")
        if k > 1:  # the address follows the step (pushed after the step is drawn)
            expect(page).to_have_url(re.compile(rf"[?&]tour={k}(&|$)"))
        lab = step.lab
        if step.predict is not None:
            # The card waits for the prediction; choose the right option with the keyboard.
            expect(page.locator(".dp-card-concealed")).to_be_visible()
            expect(page.locator(".dp-verdict")).to_have_count(0)
            page.locator(f".dp-tour-option-{step.answer} button").focus()
            page.keyboard.press("Enter")
            expect(panel.locator(".dp-tour-result")).to_contain_text("right")
        check_card(page, lab["q"], int(lab["n"]), float(lab["B"]), float(lab["sigma"]),
                   float(lab["eps"]), float(lab["delta"]))
        if k == 3:
            shot(page, "lab-tour-step3-en")
        if k < len(steps):
            nxt = panel.locator(".dp-tour-next button")
            nxt.focus()
            page.keyboard.press("ArrowRight")
    expect(panel).to_contain_text(f"Step {len(steps)} of {len(steps)}")
    page.keyboard.press("ArrowLeft")
    expect(panel).to_contain_text(f"Step {len(steps) - 1} of {len(steps)}")
    # '?' opens the shortcut help, Escape closes it.
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Keyboard shortcuts")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)


def test_tour_step_from_the_address_in_korean(page: Any, server: Server) -> None:
    steps = lessons.tour("ko")
    k = min(3, len(steps))
    page.goto(f"{server.url}/lab?lang=ko&tour={k}")
    expect(page.locator(".dp-tour-step")).to_contain_text(f"{len(steps)}단계 중 {k}단계")
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    shot(page, f"lab-tour-step{k}-ko")


def test_preset_shortcut_and_typing_do_not_clash(page: Any, server: Server) -> None:
    page.goto(f"{server.url}/lab?lang=en")
    expect(page.locator(".dp-verdict")).to_be_visible()
    expect(page.locator("#dp-first-paint")).to_have_count(0)
    shortcuts_ready(page)
    # Typing "2" into a text field must not load preset 2.
    field = page.locator(".dp-input-n input")
    field.fill("8")
    field.press("Enter")
    check_card(page, "sum", 8, 1.0, 1.0, 1.0, 0.13)
    expect(page).to_have_url(re.compile(r"[?&]n=8(&|$)"))  # (the card reads the same at n=4)
    page.evaluate(BLUR_DEEP)
    page.keyboard.press("2")  # preset 2: sum, claim 0.126
    check_card(page, "sum", 4, 1.0, 1.0, 1.0, 0.126)


def test_formulas_of_a_hidden_block_are_typeset_when_it_is_shown(page: Any,
                                                                 server: Server) -> None:
    """A third of a lesson's formulas sit in blocks shown on demand (exercise steps, quiz
    explanations): they are typeset when shown, and are then the same maths as the others."""
    open_lesson(page, server, "lang=en")
    page.evaluate("localStorage.clear()")
    ex_id = page.evaluate("""() => [...document.querySelectorAll('.dp-exercise')].find(e =>
        e.querySelector('.dp-exercise-step .dp-math')).id""")
    ex = page.locator(f"#{ex_id}")
    step = ex.locator(".dp-exercise-step:has(.dp-math)").first
    expect(step).to_be_hidden()
    expect(step.locator(".dp-math").first).not_to_have_attribute("data-tex", re.compile(".*"))
    expect(step.locator(".katex")).to_have_count(0)  # not typeset while hidden
    while not step.is_visible():
        ex.locator(".dp-next-step").click()
    expect(step.locator(".dp-math .katex math").first).to_be_attached()  # MathML for readers
    expect(step.locator(".dp-math:not([data-tex])")).to_have_count(0)
    # a quiz's explanation, shown by answering
    q_id = page.evaluate("""() => [...document.querySelectorAll('[id^="quiz-"]')].find(e =>
        e.querySelector('.dp-quiz-explanation .dp-math')).id""")
    q = page.locator(f"#{q_id}")
    expect(q.locator(".dp-quiz-explanation .katex")).to_have_count(0)
    q.locator("input[type=radio]").first.check()
    q.locator(".dp-check").click()
    expect(q.locator(".dp-quiz-explanation")).to_be_visible()
    expect(q.locator(".dp-quiz-explanation .dp-math .katex").first).to_be_attached()
    page.evaluate("localStorage.clear()")
