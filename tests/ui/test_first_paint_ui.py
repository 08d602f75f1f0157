"""The first paint of /lab in the browser (app/shell/first_paint.py, issue 8 "a light first load").

The certification card arrives in the HTML itself, so a student sees it before BokehJS has run,
even with JavaScript off; once the live card is drawn the server-rendered one is gone, and the
two are never in the page together.
"""

from __future__ import annotations

import re
import time
import urllib.request
from typing import Any

from playwright.sync_api import expect

from app.shell.numbers import fmt_delta, fmt_log10
from dpcore import certify
from ui.conftest import Server, shot

RELEASE = "q=mean&n=32&B=1&sigma=0.05&eps=2&delta=1e-5"

# Every .dp-verdict in the page, shadow roots included (how many, how many read as empty, as
# Playwright's inner_text would), and whether the server-rendered card is still there.
COUNT_JS = """() => {
  let n = 0, empty = 0; const stack = [document];
  while (stack.length) {
    const root = stack.pop();
    for (const v of root.querySelectorAll('.dp-verdict')) {
      n += 1;
      if (!v.innerText.trim()) empty += 1;
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) stack.push(el.shadowRoot);
  }
  return [n, empty, !!document.getElementById('dp-first-paint')];
}"""


def get_html(server: Server, query: str) -> str:
    with urllib.request.urlopen(f"{server.url}/lab?{query}", timeout=30) as r:
        return r.read().decode("utf-8")


def test_card_reads_right_with_javascript_off(browser: Any, server: Server) -> None:
    c = certify.certify("mean", 32, 1.0, 0.05, 2.0, 1e-5)
    for lang, verdict, note in (("en", "fail", "The sliders and figures are loading"),
                                ("ko", "실패", "슬라이더와 그림을 불러오는 중입니다")):
        ctx = browser.new_context(java_script_enabled=False,
                                  viewport={"width": 1366, "height": 768})
        try:
            pg = ctx.new_page()
            pg.goto(f"{server.url}/lab?{RELEASE}&lang={lang}")
            section = pg.locator("#dp-first-paint")
            expect(section).to_be_visible()
            expect(section).to_have_attribute("aria-busy", "true")
            expect(pg.locator(".dp-first-paint-note")).to_contain_text(note)
            expect(pg.locator(".dp-first-paint-note")).to_have_attribute("role", "status")
            assert c.passes is False
            expect(pg.locator(".dp-verdict")).to_contain_text(verdict)
            expect(pg.locator(".dp-required-delta")).to_have_text(fmt_delta(c.required_delta))
            expect(pg.locator(".dp-log10-delta")).to_have_text(fmt_log10(c.log10_delta))
            assert pg.evaluate("document.documentElement.lang") == lang
            shot(pg, f"first-paint-nojs-{lang}")
        finally:
            ctx.close()


def test_first_card_makes_way_for_the_live_card(page: Any, server: Server) -> None:
    c = certify.certify("mean", 32, 1.0, 0.05, 2.0, 1e-5)
    page.goto(f"{server.url}/lab?{RELEASE}&lang=en", wait_until="commit")
    counts: set[int] = set()
    empties = 0
    fragment_seen = False
    deadline = time.monotonic() + 30
    live_canvas = page.locator(".dp-density-plot svg.dp-svg path.dp-dens-d0")
    while time.monotonic() < deadline:
        n, empty, frag = page.evaluate(COUNT_JS)
        counts.add(n)
        empties += empty
        fragment_seen = fragment_seen or frag
        if not frag and n == 1 and live_canvas.count() > 0:
            break
    assert fragment_seen, "the page had no server-rendered card"
    assert max(counts) == 1, f"both cards were in the page at once: counts seen {counts}"
    # Bokeh keeps a new layout hidden until it is laid out; the live card shows at once.
    assert empties == 0, "a card was in the page but could not be read (hidden)"
    expect(page.locator("#dp-first-paint")).to_have_count(0)
    expect(page.locator(".dp-required-delta")).to_have_text(fmt_delta(c.required_delta))
    # The live card answers the controls.
    page.locator(".dp-input-eps input").fill("3")
    page.locator(".dp-input-eps input").press("Enter")
    c3 = certify.certify("mean", 32, 1.0, 0.05, 3.0, 1e-5)
    expect(page.locator(".dp-log10-delta")).to_have_text(fmt_log10(c3.log10_delta))


def test_first_card_only_where_it_belongs(server: Server) -> None:
    plain = get_html(server, "lang=en")
    assert plain.count('id="dp-first-paint"') == 1
    assert 'defer src="static/js/bokeh.min.js' in plain
    large = get_html(server, "lang=ko&size=large&theme=dark")
    assert re.search(r'<section id="dp-first-paint" class="dp-first-paint[^"]* dp-large"', large)
    # The tour asks for a prediction before it shows the card: no card in the HTML either.
    assert 'id="dp-first-paint"' not in get_html(server, "lang=en&tour=2")
    with urllib.request.urlopen(f"{server.url}/cdf?lang=en", timeout=30) as r:
        cdf = r.read().decode("utf-8")
    assert 'id="dp-first-paint"' not in cdf and 'defer src="static/js/bokeh.min.js' in cdf


def read_chunks(server: Server, query: str) -> list[str]:
    """The page's HTTP chunks as they came (no compression asked), decoded; a response that
    was not streamed is one piece."""
    import socket
    from urllib.parse import urlparse

    u = urlparse(server.url)
    with socket.create_connection((u.hostname, u.port), timeout=30) as s:
        s.sendall(f"GET /lab?{query} HTTP/1.1\r\nHost: {u.netloc}\r\n"
                  f"Connection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    if b"transfer-encoding: chunked" not in head.lower():
        return [body.decode("utf-8")]
    out = []
    while body:
        size, body = body.split(b"\r\n", 1)
        n = int(size, 16)
        if n == 0:
            break
        out.append(body[:n].decode("utf-8"))
        body = body[n + 2:]
    return out


def test_card_is_sent_before_the_page_is_built(server: Server) -> None:
    """Every request gets the card in the first chunk, before the page build (no Bokeh root in
    it); the whole response is still one page with one card. The first of its language, size
    and theme may come with a minimal <head> (the real one follows), later ones with the
    real one."""
    query = f"{RELEASE}&lang=ko&size=large"
    for _ in range(2):
        chunks = read_chunks(server, query)
        assert len(chunks) >= 2
    first, whole = chunks[0], "".join(chunks)
    assert "<title>" in first.split("<body")[0]  # the real <head> by now
    c = certify.certify("mean", 32, 1.0, 0.05, 2.0, 1e-5)
    assert "dp-first-paint-early" in first and fmt_delta(c.required_delta) in first
    assert "실패" in first and '<html lang="ko"' in first
    assert 'data-root-id="' not in first and "<script" not in first.split("<body")[0]
    assert whole.count('id="dp-first-paint"') == 1 and whole.count("<head>") == 1
    assert whole.count("bokeh.min.js") == 1 and "m.prepend(f)" in whole
    # Without a card (the tour conceals it) the page is not streamed.
    assert len(read_chunks(server, "lang=en&tour=2")) == 1
