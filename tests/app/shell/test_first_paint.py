"""The first paint of a Panel page (app/shell/first_paint.py): deferred head scripts, the
server-rendered card of /lab. Browser behaviour: tests/ui/test_first_paint_ui.py."""

from __future__ import annotations

import re

import jinja2
import pytest

from app.lab.page import LabPage
from app.lab.state import LabState
from app.serve import stream
from app.shell import first_paint as fp
from app.shell.numbers import fmt_delta, fmt_log10
from dpcore import certify

# The shape of the <head> Panel's Fast list template renders (panel 1.9, trimmed).
PAGE = """<!DOCTYPE html>
<html lang="en"><head>
<script type="esms-options">{"shimMode": true}</script>
<script type="text/javascript" src="static/bundled/es-module-shims.min.js"></script>
<script type="text/javascript" src="static/js/bokeh.min.js?v=1"></script>
<script type="text/javascript" src="static/extensions/panel/panel.min.js?v=2"></script>
<script type="module" src="./static/fast-components.js"></script>
<script type="text/javascript">
  Bokeh.set_log_level("info");
</script>
<link rel="stylesheet" href="static/extensions/panel/css/listpanel.css?v=1.9.4">
<script src="static/extensions/panel/bundled/fastbasetemplate/fast_template.js"></script>
<script src="./static/fast_design.js" type="module"></script>
<script type="text/javascript">
document.addEventListener('DOMContentLoaded', (event) => { window.x = 1; });
</script>
</head>
<body>
<div class="row" id="content"><div class="main" id="main"><div class="card-margin"></div>
</div></div>
<script type="text/javascript" src="static/in-body.js"></script>
<script>(function() { Bokeh.safely(function() {}); })();</script>
</body></html>"""


def head_of(page: str) -> str:
    return page[:page.index("</head>")]


def test_classic_head_scripts_are_deferred_in_order() -> None:
    out = fp.defer_scripts(PAGE)
    srcs = re.findall(r"<script([^>]*)>", head_of(out))
    classic = [a for a in srcs if "src=" in a and 'type="module"' not in a]
    assert len(classic) == 4
    assert all(re.search(r"\bdefer\b", a) for a in classic)
    # Same order as before: only attributes were added.
    order = re.findall(r'src="([^"]+)"', head_of(PAGE))
    assert re.findall(r'src="([^"]+)"', head_of(out)) == order


def test_module_and_inline_scripts_and_body_are_left_alone() -> None:
    out = fp.defer_scripts(PAGE)
    for m in re.findall(r'<script[^>]*type="module"[^>]*>', head_of(out)):
        assert "defer" not in m
    assert '<script type="esms-options">{"shimMode": true}</script>' in out
    # The only inline script that used Bokeh at parse time now waits for DOMContentLoaded.
    assert re.search(r"addEventListener\('DOMContentLoaded', function \(\) \{ "
                     r'Bokeh\.set_log_level\("info"\); \}\)', out)
    assert "window.x = 1" in out
    body = out[out.index("</head>"):]
    assert body == PAGE[PAGE.index("</head>"):]  # body scripts untouched


def test_defer_is_idempotent_and_needs_a_head() -> None:
    once = fp.defer_scripts(PAGE)
    assert fp.defer_scripts(once) == once
    assert fp.defer_scripts("<p>no head</p>") == "<p>no head</p>"


def test_fragment_goes_first_into_the_main_area() -> None:
    out = fp.insert_fragment(PAGE, "<section>X</section>")
    assert '<div class="main" id="main"><section>X</section><div class="card-margin">' in out
    assert fp.insert_fragment(PAGE, "") == PAGE
    assert fp.insert_fragment("<body></body>", "<section>X</section>") == "<body></body>"
    # our template's main area is a landmark in the server's HTML (issue 39): after its tag
    ours = PAGE.replace('id="main">', 'id="main" role="main" tabindex="-1">')
    assert ('<div class="main" id="main" role="main" tabindex="-1"><section>X</section>'
            in fp.insert_fragment(ours, "<section>X</section>"))


def test_fragment_escapes_text_and_reads_as_busy() -> None:
    frag = fp.fragment("<b>card</b>", css=".a{}", loading="<loading> & co",
                       failed='fail "quoted"', label="Card <1>", classes="dp-large")
    assert frag.startswith(fp.FRAGMENT_BEGIN) and frag.endswith(fp.FRAGMENT_END)
    assert frag[len(fp.FRAGMENT_BEGIN):].startswith(
        '<section id="dp-first-paint" class="dp-first-paint dp-large" aria-busy="true" '
        'aria-label="Card &lt;1&gt;">')
    assert "&lt;loading&gt; &amp; co" in frag and "<loading>" not in frag
    assert 'data-failed="fail &quot;quoted&quot;"' in frag
    assert "<b>card</b>" in frag  # the page's own HTML, trusted
    assert 'document.getElementById("dp-first-paint")' in frag
    assert frag.count("<script>") == 1 and frag.endswith("</script>" + fp.FRAGMENT_END)


def test_template_wrapper_is_a_jinja_template_that_applies_both() -> None:
    inner = jinja2.Environment().from_string(PAGE.replace("<html lang=\"en\">",
                                                          "<html lang=\"{{ lang }}\">"))
    wrapped = fp.FirstPaintTemplate.wrap(inner, "<section>first</section>", "ko")
    assert isinstance(wrapped, jinja2.Template)  # Bokeh accepts nothing else
    out = wrapped.render(lang="en")
    assert '<html lang="ko">' in out  # the page language, whatever Panel wrote
    assert '<div class="main" id="main"><section>first</section>' in out
    assert 'defer src="static/js/bokeh.min.js?v=1"' in out
    assert inner.render(lang="en") == PAGE  # the inner template is unchanged
    assert fp.set_html_lang(PAGE, "") == PAGE


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("large", [False, True])
def test_lab_first_card_is_the_live_card(lang: str, large: bool) -> None:
    state = LabState()
    state.apply_url({"q": "mean", "n": "32", "B": "1", "sigma": "0.05", "eps": "2",
                     "delta": "1e-5"})
    lab = LabPage(state=state, lang=lang, large=large)
    frag = lab.first_paint()
    assert lab.card.object and lab.card.object in frag
    c = certify.certify("mean", 32, 1.0, 0.05, 2.0, 1e-5)
    assert re.search(r'class="[^"]*dp-required-delta[^"]*">'
                     + re.escape(fmt_delta(c.required_delta)), frag)
    assert fmt_log10(c.log10_delta) in frag
    section = frag[len(fp.FRAGMENT_BEGIN):].split(">", 1)[0]
    assert ("dp-large" in section) is large
    loading = {"en": "The sliders and figures are loading",
               "ko": "슬라이더와 그림을 불러오는 중입니다"}[lang]
    assert loading in frag


def test_no_first_card_while_the_tour_conceals_it() -> None:
    from app.lab.page import attach_tour

    lab = LabPage(state=LabState(), lang="en")
    attach_tour(lab, "2")
    assert lab.tour is not None and lab.tour.concealed
    assert lab.first_paint() == ""
    lab.tour.revealed = True
    assert lab.tour.concealed is False
    assert "dp-verdict" in lab.first_paint()


# ---------------------------------------------------------------------------------------------
# streaming (the first card before the page is built)
# ---------------------------------------------------------------------------------------------
def built_page(frag: str = "<!--dp-first-paint--><section>card</section><!--/dp-first-paint-->"
               ) -> str:
    return fp.insert_fragment(fp.defer_scripts(PAGE), frag)


def test_head_splits_at_its_first_script_or_style_sheet() -> None:
    head, _ = stream.split_head(built_page()) or ("", "")
    prefix, tail, close = stream.split_resources(head)
    assert prefix + tail + close == head
    assert prefix.endswith("<head>\n") and "<script" not in prefix
    assert tail.startswith('<script type="esms-options">') and close.startswith("</head>")
    assert close.rstrip().endswith("<body>")
    hints = stream.preload_hints(tail)
    assert hints == ('<link rel="preload" as="style" '
                     'href="static/extensions/panel/css/listpanel.css?v=1.9.4">')


def test_early_and_rest_chunks_make_one_page_with_one_card() -> None:
    page = built_page()
    head, _ = stream.split_head(page) or ("", "")
    early = stream.early_chunk(head, "<!--dp-first-paint--><section class=\"dp-first-paint\">"
                                 "early</section><!--/dp-first-paint-->")
    rest = stream.rest_chunk(page, head)
    whole = early + rest
    assert "dp-first-paint dp-first-paint-early" in early and "early</section>" in early
    assert "bokeh.min.js" not in early and "listpanel.css" in early  # a style sheet hint
    assert "<script" not in early.split("<body>")[0]  # no script before the card
    assert "card</section>" not in whole  # the built page's own copy is dropped
    assert whole.count("<section") == 1
    assert 'm.prepend(f)' in rest and rest.index("m.prepend(f)") > rest.index(fp.MAIN_MARK)
    # Every script and style sheet of the head still comes, once, in its order.
    srcs = re.findall(r'<script[^>]*src="([^"]+)"', head)
    assert re.findall(r'<script[^>]*src="([^"]+)"', rest)[:len(srcs)] == srcs


def test_rest_chunk_when_the_built_page_differs() -> None:
    page = built_page()
    head, _ = stream.split_head(page) or ("", "")
    other = page.replace("</head>", '<link rel="stylesheet" href="new.css"></head>')
    rest = stream.rest_chunk(other, head)
    assert rest.count('href="new.css"') == 1 and rest.count("bokeh.min.js") == 1
    # A failed build (no card in it): the early card goes away.
    failed = "<html><head></head><body><main>failed</main></body></html>"
    out = stream.rest_chunk(failed, head)
    assert "f.remove()" in out and "failed" in out
    assert "f.remove()" in stream.rest_chunk("no body at all", head)


def test_only_pages_with_a_card_provide_a_head() -> None:
    stream._HEADS.clear()
    stream.remember_head(("k",), "<html><head></head><body>no card</body></html>")
    assert stream.early_head(("k",)) is None
    page = built_page()
    stream.remember_head(("k",), page)
    assert stream.early_head(("k",)) == stream.split_head(page)[0]  # type: ignore[index]
    stream._HEADS.clear()


def test_early_first_paint_matches_the_page() -> None:
    from app.lab.first_paint import early_first_paint, first_paint_html

    args = {"q": "mean", "n": "32", "sigma": "10", "eps": "10", "lang": "ko", "size": "large",
            "theme": "dark"}
    key, frag, lang = early_first_paint(args, "en-US") or ((), "", "")
    assert key == ("/lab", "ko", "large", "dark") and lang == "ko"
    state = LabState()
    state.apply_url(args)
    assert frag == first_paint_html(state, "ko", large=True, dark=True)
    assert "0 (underflow)" in frag or "underflow" in frag
    assert early_first_paint({"tour": "1"}, None) is None
    key, _, lang = early_first_paint({"theme": "nope"}, "en-US,en;q=0.9") or ((), "", "")
    assert key == ("/lab", "en", "normal", "default")  # unknown values: the default look
    assert lang == "en"


def test_a_page_whose_head_is_not_known_yet_streams_with_a_minimal_one() -> None:
    page = built_page()
    sent = stream.generic_head("ko")
    early = stream.early_chunk(sent, "<!--dp-first-paint--><section class=\"dp-first-paint\">"
                                 "early</section><!--/dp-first-paint-->")
    assert early.startswith('<!DOCTYPE html>\n<html lang="ko">') and "early</section>" in early
    assert "<script" not in early.split("<body>")[0]
    whole = early + stream.rest_chunk(page, sent)
    assert whole.count("<section") == 1 and whole.count("<head>") == 1
    # Every tag of the real <head> comes once, in its order, after the early card.
    head = stream.split_head(page)[0]  # type: ignore[index]
    tags = [t for t in stream._HEAD_TAG.findall(head) if t not in sent]
    body = whole.split("early</section>", 1)[1]
    positions = [body.find(t) for t in tags]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)
    assert all(body.count(t) == 1 for t in tags if "<script" in t)
