"""Browser test of the /cdf guided tour (issue 18 §4): predict with the keyboard, see the page
change, step with ← / →, the step in the address; both languages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

import lessons
from app.shell.i18n import t
from ui.conftest import Server, shot


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_cdf_tour_with_the_keyboard(page: Any, server: Server, lang: str) -> None:
    steps = lessons.cdf_tour(lang)
    n = len(steps)
    page.goto(f"{server.url}/cdf?lang={lang}&tour=1")
    panel = page.locator(".dp-tour-step")
    expect(panel).to_contain_text(t("tour.count", lang, k=1, n=n))
    expect(page.locator(".dp-cdf-plot svg.dp-svg path.dp-cdf-ref").first).to_be_visible()
    slider = page.locator(".dp-cdf-degree-slider")
    expect(slider).to_contain_text("10")
    # predict with the keyboard (the right answer): then the page shows degree 40
    page.locator(f".dp-tour-option-{steps[0].answer} button").focus()
    page.keyboard.press("Enter")
    expect(panel.locator(".dp-tour-result")).to_be_visible()
    expect(panel.locator(".dp-tour-reveal")).to_be_visible()
    expect(slider).to_contain_text("40")
    expect(page).to_have_url(re.compile(r"[?&]degree=40(&|$)"))
    # → to the next step; the address follows
    panel.locator(".dp-tour-next button").focus()
    page.keyboard.press("ArrowRight")
    expect(panel).to_contain_text(t("tour.count", lang, k=2, n=n))
    expect(page).to_have_url(re.compile(r"[?&]tour=2(&|$)"))
    # a wrong prediction still shows the change: the new seed is in the address
    wrong = next(i for i in range(len(steps[1].options)) if i != steps[1].answer)
    page.locator(f".dp-tour-option-{wrong} button").focus()
    page.keyboard.press("Enter")
    expect(panel.locator(".dp-tour-result")).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]seed=2(&|$)"))
    # step 3: auto switches to a histogram once revealed
    page.keyboard.press("ArrowRight")
    expect(panel).to_contain_text(t("tour.count", lang, k=3, n=n))
    panel.locator(".dp-tour-reveal-btn button").click()
    expect(page).to_have_url(re.compile(r"[?&]n=1000(&|$)"))
    expect(page.locator(".dp-cdf-auto")).to_be_visible()
    shot(page, f"cdf-tour-step3-{lang}")
    page.keyboard.press("ArrowLeft")
    expect(panel).to_contain_text(t("tour.count", lang, k=2, n=n))
    # '?' opens the shortcut help, Escape closes it
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text(t("cdftour.help.title", lang))
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)


# Every text of the page a student sees or a screen reader reads: visible text nodes (also in
# the widgets' shadow roots), the options of visible selects, and the names and titles given as
# attributes.
DEEP_TEXT = """() => {
  const out = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) visit(el.shadowRoot);
      const box = el.tagName === "OPTION" ? el.closest("select") : el;
      if (!box || !box.checkVisibility()) continue;
      for (const n of el.childNodes) {
        if (n.nodeType === 3 && n.textContent.trim()) out.push(n.textContent);
      }
      for (const a of ["aria-label", "aria-description", "title", "alt", "placeholder"]) {
        const v = el.getAttribute(a);
        if (v) out.push(v);
      }
    }
  };
  visit(document);
  return out.join("\\n");
}"""
WAIT_FOR = ("(needles) => { const s = (" + DEEP_TEXT + ")();"
            " return needles.every(n => s.includes(n)); }")
# What answers each prediction, as the catalogues write it (tests/app/cdf/test_cdf_tour.py).
ANSWERS = {"en": {1: ("costs no privacy", "no extra privacy cost", "as often as you like"),
                  2: ("new release",), 3: ("when the noise is large", "n·ε < 300",
                                           "is below 300", "lies in the band")},
           "ko": {1: ("비용은 들지 않습니다", "예산이 더 들지 않습니다", "비용이 늘지 않음"),
                  2: ("새로 공개", "새 공개"), 3: ("잡음이 크면 히스토그램", "n·ε < 300",
                                                "300보다 작아서", "구간에 있어서")}}


def _shown(page: Any, *needles: str) -> str:
    """The page's text once every needle is in it (polling, no fixed wait)."""
    page.wait_for_function(WAIT_FOR, arg=list(needles))
    return str(page.evaluate(DEEP_TEXT))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_cdf_tour_hides_what_answers_the_prediction(page: Any, server: Server,
                                                     lang: str) -> None:
    """Issue 39, "What a student meets" 1: while a step waits for its prediction, no visible
    or accessible text of /cdf gives the answer away; a note says what is hidden; the reveal
    brings it all back."""
    steps = lessons.cdf_tour(lang)
    n = len(steps)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{server.url}/cdf?lang={lang}&tour=1")
    panel = page.locator(".dp-tour-step")
    expect(panel).to_contain_text(t("tour.count", lang, k=1, n=n))
    note = page.locator(".dp-cdf-conceal-note")
    expect(note).to_contain_text(t("cdftour.hidden.slider-cost", lang))
    expect(note.get_by_role("status")).to_have_count(1)
    # step 1, the degree slider's cost: intro, slider label, the note beside it, the table
    text = _shown(page, t("cdftour.hide.degree_free", lang), t("cdf.dplot.caption", lang),
                  t("cdftour.hide.intro", lang).split("**")[0].strip())
    assert [a for a in ANSWERS[lang][1] if a in text] == []
    page.locator(f".dp-tour-option-{steps[0].answer} button").click()
    expect(panel.locator(".dp-tour-result")).to_be_visible()
    expect(note).to_be_hidden()
    text = _shown(page, t("cdf.privacy.degree_free", lang))
    assert any(a in text for a in ANSWERS[lang][1])
    # step 2, a new noise seed: the intro and the release controls' labels
    panel.locator(".dp-tour-next button").click()
    expect(panel).to_contain_text(t("tour.count", lang, k=2, n=n))
    expect(note).to_contain_text(t("cdftour.hidden.new-seed", lang))
    expect(page.get_by_label(t("cdftour.hide.noise_seed", lang), exact=True)).to_have_value("1")
    text = _shown(page, t("cdftour.hide.new_noise", lang), t("cdftour.hide.side_release", lang))
    assert [a for a in ANSWERS[lang][2] if a in text] == []
    panel.locator(".dp-tour-reveal-btn button").click()
    expect(page.get_by_label(t("cdf.ctl.noise_seed", lang), exact=True)).to_have_value("2")
    expect(page.get_by_role("button", name=t("cdf.ctl.new_noise", lang))).to_be_visible()
    expect(note).to_be_hidden()
    # step 3, what auto releases: the method list and the box above the curve state no rule
    panel.locator(".dp-tour-next button").click()
    expect(panel).to_contain_text(t("tour.count", lang, k=3, n=n))
    expect(note).to_contain_text(t("cdftour.hidden.auto-hist", lang))
    summary = page.locator(".dp-cdf-auto-summary")
    expect(summary).to_be_visible()
    text = _shown(page, t("cdftour.hide.method_auto", lang))
    assert [a for a in ANSWERS[lang][3] if a in text] == []
    page.locator(f".dp-tour-option-{steps[2].answer} button").click()
    expect(summary).to_contain_text("< 300")  # n·ε = 100 < 300: a histogram, and why
    _shown(page, t("cdf.method.auto", lang))  # the method list states the rule again
    expect(note).to_be_hidden()
