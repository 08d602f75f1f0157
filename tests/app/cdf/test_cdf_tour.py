"""The guided tour of /cdf (issue 18 §4): steps from lessons/cdftour.<lang>.toml set the page,
ask a prediction, then show the change; checked without a browser."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

import lessons
from app.cdf.component import PartsPanel
from app.cdf.state import CDFState
from app.cdf.tour import CONCEAL, CDFTourPanel, CDFTourState, attach
from app.shell.i18n import t

TYPED = re.compile(r"(?<![\w.{])(\d+\.\d+|\d{4,}(?:\.\d+)?)(?![\w}])")


def _significant(lit: str) -> int:  # as tests/lessons/test_lessons.py counts them
    digits = lit.replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if "." not in lit else len(digits)


def test_same_steps_in_both_languages() -> None:
    ko, en = lessons.read_source("cdftour", "ko"), lessons.read_source("cdftour", "en")
    assert [s["id"] for s in ko["step"]] == [s["id"] for s in en["step"]]
    for a, b in zip(ko["step"], en["step"], strict=True):
        assert a["start"] == b["start"] and a.get("cdf") == b.get("cdf"), a["id"]
        assert a.get("answer") == b.get("answer") and len(a["options"]) == len(b["options"])
    ids = [s["id"] for s in ko["step"]]
    assert ids == ["slider-cost", "new-seed", "auto-hist", "isotonic", "ledger-all"]


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_no_number_typed_by_hand(lang: str) -> None:
    for s in lessons.read_source("cdftour", lang)["step"]:
        for text in (s["title"], s["body"], s.get("predict", ""), s.get("reveal", ""),
                     *s.get("options", [])):
            plain = re.sub(r"\{\{[^}]*\}\}", "", text)
            hits = [m.group(1) for m in TYPED.finditer(plain) if _significant(m.group(1)) >= 4]
            assert hits == [], (s["id"], hits)


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_every_step_state_is_a_valid_page(lang: str) -> None:
    for step in lessons.cdf_tour(lang):
        for st in (step.start, step.cdf):
            assert CDFState().apply_url(st) == [], (step.id, st)


def test_predict_then_reveal_changes_the_page() -> None:
    state = CDFState()
    ts = CDFTourState(lessons.cdf_tour("en"), state)
    ts.go(1)  # slider: degree 10, then 40 at the reveal
    assert (state.degree, state.auto_degree, ts.revealed) == (10, False, False)
    before = state.ledger().releases
    ts.predict(ts.current.answer)  # type: ignore[union-attr]
    assert ts.revealed and state.degree == 40
    after = state.ledger().releases
    assert after == before  # the slider costs nothing
    ts.go(2)  # new seed: one more release on the same data
    state.release()
    n1 = state.ledger().releases
    ts.reveal()
    assert state.noise_seed == 2
    state.release()
    assert state.ledger().releases == n1 + 1
    ts.go(3)
    ts.predict(0)  # a wrong prediction still shows the change
    assert (state.n, state.eps, state.method) == (1000, 0.1, "auto")
    assert state.auto_plan() is not None and state.auto_plan().method == "hq"  # type: ignore[union-attr]
    ts.go(99)
    assert ts.step == ts.total
    ts.go(0)
    assert ts.step == 0 and ts.current is None


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_panel_text(lang: str) -> None:
    state = CDFState()
    ts = CDFTourState(lessons.cdf_tour(lang), state)
    panel = CDFTourPanel(ts, lang)
    assert not panel.panel.visible and panel.opener.visible
    ts.go(1)
    assert panel.panel.visible and "dp-tour-step" in panel.panel.css_classes
    assert t("tour.count", lang, k=1, n=ts.total) in panel.text.object
    assert len(panel.options.objects) == 3 and panel.reveal_btn.visible
    ts.predict(1)
    assert panel.options.objects == [] and "dp-tour-reveal" in panel.text.object
    panel.on_key("ArrowRight")
    assert ts.step == 2
    panel.on_key("ArrowLeft")
    assert ts.step == 1


def test_bad_tour_value_is_a_notice() -> None:
    objs, notices, ts = attach(CDFState(), "en", "seven")
    assert ts is not None and ts.step == 0 and len(objs) == 3
    assert notices == [("cdf.url.bad", {"name": "tour", "value": "seven"})]
    _, notices, ts = attach(CDFState(), "en", "2")
    assert notices == [] and ts is not None and ts.step == 2


# ---- what the page hides while a prediction is open (issue 39, "What a student meets" 1) -----
# Phrases that answer each step's prediction, as the catalogues write them: none may be on the
# page (visible text, labels, options, headings) until the student has predicted.
ANSWERS = {
    "en": {"slider-cost": ("costs no privacy", "no extra privacy cost", "as often as you like",
                           "released up to"),
           "new-seed": ("new release",),
           "auto-hist": ("when the noise is large", "n·ε < 300", "is below 300",
                         "lies in the band"),
           "isotonic": ("does not increase it",)},
    "ko": {"slider-cost": ("비용은 들지 않습니다", "예산이 더 들지 않습니다",
                           "추가 프라이버시 비용 없음", "프라이버시 비용이 늘지 않음", "마음껏"),
           "new-seed": ("새로 공개", "새 공개"),
           "auto-hist": ("잡음이 크면 히스토그램", "n·ε < 300", "300보다 작아서", "구간에 있어서"),
           "isotonic": ("보정은 이 오차를 늘리지 않습니다",)},
}


def _texts(objs: list[Any]) -> list[str]:
    """Every text a student sees or hears of the shown objects: pane text, widget labels,
    button labels, select options (hidden objects and their children left out)."""
    out: list[str] = []
    for o in objs:
        if getattr(o, "visible", True) is False:
            continue
        if isinstance(getattr(o, "object", None), str):
            out.append(o.object)
        for attr in ("name", "label"):
            v = getattr(o, attr, None)
            if isinstance(v, str) and not re.fullmatch(r"[A-Z][A-Za-z]*\d+", v):
                out.append(v)
        opts = getattr(o, "options", None)
        if isinstance(opts, dict):
            out.extend(str(k) for k in opts)
        out.extend(_texts(list(getattr(o, "objects", None) or [])))
        if isinstance(o, PartsPanel):  # a component of parts (app/cdf/component.py)
            out.extend(_texts(o.parts()))
    return out


def _page(lang: str) -> tuple[Any, CDFTourState, Any]:
    from app.cdf.page import CDFPage

    state = CDFState()
    ts = CDFTourState(lessons.cdf_tour(lang), state)
    page = CDFPage(state, lang)
    page.attach_tour(ts)
    page.sidebar()
    page.main()
    return page, ts, state


def _shown(page: Any) -> str:
    return html.unescape("\n".join(_texts([*page.main(), *page.sidebar()])))


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_the_page_hides_what_answers_the_open_prediction(lang: str) -> None:
    page, ts, _ = _page(lang)
    steps = {s.id: k for k, s in enumerate(lessons.cdf_tour(lang), 1)}
    # the check can fail: with the tour closed the page states every answer somewhere
    closed = _shown(page)
    for sid in ("slider-cost", "new-seed"):
        assert any(a in closed for a in ANSWERS[lang][sid]), sid
    for sid, answers in ANSWERS[lang].items():
        ts.go(steps[sid])
        assert ts.concealed and page.conceal_note.visible, sid
        shown = _shown(page)
        assert [a for a in answers if a in shown] == [], sid
        note = t("cdftour.concealed", lang, what=t(f"cdftour.hidden.{sid}", lang))
        assert note in shown and 'role="status"' in page.conceal_note.object
        # every swapped message is shown in its place where its view is on the page
        for key, instead in CONCEAL[sid].items():
            assert t(instead, lang) != t(key, lang)
        ts.reveal()  # the answer, and every hidden text, come back
        assert not ts.concealed and not page.conceal_note.visible
        back = _shown(page)
        if sid != "auto-hist":  # (auto's reveal changes the page: a histogram, no tree)
            assert any(a in back for a in answers), sid
    ts.go(steps["slider-cost"])
    assert t("cdftour.hide.degree_free", lang) in page.degree_side.object.replace("&#x27;", "'")
    ts.go(0)  # closing the tour hides nothing
    assert not page.conceal_note.visible and page.hide == {}


@pytest.mark.parametrize("lang", lessons.LANGS)
def test_swapped_labels_and_headings_are_the_accessible_names(lang: str) -> None:
    page, ts, state = _page(lang)
    ts.go(2)  # new seed: the seed field, the new-noise button and the heading over them
    assert page.w_seed.label == t("cdftour.hide.noise_seed", lang)
    assert page.w_new_noise.label == t("cdftour.hide.new_noise", lang)
    [head] = [p for p, key, _ in page._side_heads if key == "cdf.side.release"]
    assert f">{t('cdftour.hide.side_release', lang)}</h2>" in head.object
    ts.predict(0)
    assert page.w_seed.label == t("cdf.ctl.noise_seed", lang)
    assert page.w_new_noise.label == t("cdf.ctl.new_noise", lang)
    assert f">{html.escape(t('cdf.side.release', lang))}</h2>" in head.object
    ts.go(3)  # auto: the method list and the box above the curve state no rule
    assert t("cdftour.hide.method_auto", lang) in page.w_method.options
    assert page.w_method.value == state.method == "auto"
    assert "300" not in page.auto_box.object and page.auto_box.object
    ts.reveal()
    assert t("cdf.method.auto", lang) in page.w_method.options
    assert "n·ε &lt; 300" in page.auto_box.object  # n·ε = 100 < 300: a histogram
    # the degree slider's label names no cost at all (its accessible name is set once)
    assert "cost" not in t("cdf.ctl.degree", "en") and "비용" not in t("cdf.ctl.degree", "ko")


def test_a_page_opened_at_a_prediction_step_never_carries_its_answer() -> None:
    """tour=1 in the address: the tour opens before the page is built; the first text sent
    already hides the answer."""
    state = CDFState()
    _, _, ts = attach(state, "en", "1")
    from app.cdf.page import CDFPage

    page = CDFPage(state, "en")
    assert ts is not None and ts.concealed
    page.attach_tour(ts)
    shown = _shown(page)
    assert not any(a in shown for a in ANSWERS["en"]["slider-cost"])
