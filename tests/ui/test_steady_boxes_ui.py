"""Steady boxes (assets/dplab-svgplot.js ``steady``, ``morphChildren``), in Chromium: a move
across the verdict's border brings or takes the underflow note and a line of the densities'
text, yet the card's and the figure's panes keep their height, so nothing below them moves
and BokehJS measures no layout; a section the student closes is followed at once; the card's
nodes that did not change are the same nodes after a note came or went. Keyboard only, both
languages, polling waits."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from ui.conftest import Server, shot
from ui.test_lab_ui import open_lab

# Heights (px) of a pane's host (what BokehJS observes) and of its content (what changes).
HEIGHTS = """sel => {
  const stack = [document];
  while (stack.length) {
    const r = stack.pop();
    const host = r.querySelector(sel);
    if (host && host.shadowRoot) {
      const c = host.shadowRoot.querySelector(".dp-card, .dp-view");
      return [host.getBoundingClientRect().height, c ? c.getBoundingClientRect().height : -1];
    }
    r.querySelectorAll("*").forEach(e => { if (e.shadowRoot) stack.push(e.shadowRoot); });
  }
  return null;
}"""
NOTE = ".dp-card .dp-note.dp-warn"  # the underflow note: only at the largest σ
ENDS = {"End": "σ = 1000", "Home": "σ = 0.001"}  # the σ slider's ends (log10 σ from -3 to 3)


def jump(page: Any, key: str, note: int) -> None:
    """σ to its end (``End``: δ underflows, the note shows) or its start (``Home``)."""
    handle = page.locator(".dp-slider-sigma input[type=range]").first
    handle.focus()
    page.keyboard.press(key)
    shown = ENDS[key]
    expect(page.locator(".dp-slider-sigma .dp-slider-value")).to_have_text(shown)
    expect(page.locator(NOTE)).to_have_count(note)
    expect(page.locator(".dp-density-plot .dp-view-text")).to_contain_text(shown)


def heights(page: Any, sel: str) -> tuple[float, float]:
    got = page.evaluate(HEIGHTS, sel)
    assert got is not None, f"no pane {sel}"
    return float(got[0]), float(got[1])


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_move_that_brings_or_takes_a_note_moves_nothing_below(
        page: Any, server: Server, lang: str) -> None:
    open_lab(page, server, f"lang={lang}")
    jump(page, "End", 1)
    jump(page, "Home", 0)
    card_host, card_low = heights(page, ".dp-card-pane")
    jump(page, "End", 1)
    # (polled: the hold is set by a ResizeObserver, after the frame that laid the note out)
    page.wait_for_function(f"() => ({HEIGHTS})('.dp-card-pane')[0] === {card_host}")
    host_high, card_high = heights(page, ".dp-card-pane")
    assert card_high > card_low, "the note should make the card's content taller"
    assert host_high == card_host
    dens_host = heights(page, ".dp-density-plot")[0]
    below = page.locator(".dp-curve-plot").first.bounding_box()
    jump(page, "Home", 0)
    page.wait_for_function(f"() => ({HEIGHTS})('.dp-card-pane')[1] < {card_high}")
    assert heights(page, ".dp-card-pane")[0] == card_host
    assert heights(page, ".dp-density-plot")[0] == dens_host
    assert page.locator(".dp-curve-plot").first.bounding_box() == below
    shot(page, f"steady-card-{lang}")


def test_a_section_the_student_closes_is_followed(page: Any, server: Server) -> None:
    open_lab(page, server, "lang=en")
    jump(page, "End", 1)
    jump(page, "Home", 0)
    host, content = heights(page, ".dp-card-pane")
    more = page.locator(".dp-card details.dp-more > summary").first
    more.focus()
    page.keyboard.press("Enter")  # closes "more" (open on a desktop screen)
    expect(page.locator(".dp-card details.dp-more").first).not_to_have_attribute("open", "")
    page.wait_for_function(f"() => ({HEIGHTS})('.dp-card-pane')[0] < {host} - 6 * 16")
    closed_host, closed_content = heights(page, ".dp-card-pane")
    assert closed_content < content
    assert closed_host < host


MORPH = """() => {
  const a = document.createElement("div"), b = document.createElement("div");
  a.innerHTML = "<h2>t</h2> <p class='v'>x</p> <dl><dt>a</dt></dl> <details>m</details>";
  const [h2, dl, det] = [a.querySelector("h2"), a.querySelector("dl"), a.querySelector("details")];
  const out = [];
  for (const html of [
      "<h2>t</h2> <p class='v'>y</p> <dl><dt>a</dt></dl> <p class='n'>n</p> <details>m</details>",
      "<h2>t</h2> <p class='v'>y</p> <dl><dt>b</dt></dl> <details>m</details>",
      "<h2>t</h2> <details>m</details>",
      "<h2>u</h2> <p class='v'>x</p> <dl><dt>a</dt></dl> <details>m</details>"]) {
    b.innerHTML = html;
    const t = document.createElement("template");
    t.innerHTML = html;
    window.dplabMorph(a, t.content);
    out.push([a.innerHTML === b.innerHTML, a.querySelector("h2") === h2,
              a.querySelector("details") === det]);
  }
  out.push([a.querySelector("dl") !== dl]);  // (dropped in the third, made again in the fourth)
  return out;
}"""


def test_a_note_that_comes_or_goes_replaces_only_itself(page: Any, server: Server) -> None:
    open_lab(page, server, "lang=en")
    page.wait_for_function("() => typeof window.dplabMorph === 'function'")
    got = page.evaluate(MORPH)
    # each result is the wanted HTML, and the heading and the closing section stay the same
    # nodes while a note comes, a list changes, two parts go and come back
    assert got == [[True, True, True]] * 4 + [[True]]
