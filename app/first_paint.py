"""The first screen of a Panel page before its JavaScript has run (issue 8, "a light first load").

A Panel page shows nothing until the browser has run ~3.4 MB of BokehJS, Panel and Fast
(~0.9 s here), fetched the document over the websocket and built ~200 Bokeh views (~0.6 s more).
Two changes let the browser paint the certification card as soon as the HTML has arrived:

1. :func:`defer_scripts`: the classic ``<script src>`` tags in ``<head>`` get ``defer``. The
   browser then lays out the body while the scripts download and run afterwards, in the same
   order, still before ``DOMContentLoaded`` (when Bokeh's embed code starts, as before). The
   one inline head script that calls Bokeh at once (``Bokeh.set_log_level``) waits for
   ``DOMContentLoaded`` too.
2. :func:`insert_fragment`: a server-rendered copy of the card, made by the same function as the
   live card from the same state, sits where the page's main area will be. It carries the same
   classes (``dp-verdict``, ``dp-required-delta`` ...), says that the controls are still loading
   (``aria-busy``), and removes itself the moment the live card is on screen, so the two never
   show together.

Both are applied by :class:`FirstPaintTemplate`, a wrapper around the page's Jinja template
(Bokeh calls only its ``render``). Pure string functions, unit-tested in
tests/test_first_paint.py; the browser behaviour is tested in tests/ui/test_presentation.py.
"""

from __future__ import annotations

import html
import re
from typing import Any

import jinja2

# False: pages render as Panel makes them (benchmarks/first_load.py's "before" variant).
ENABLED = True
FRAGMENT_ID = "dp-first-paint"
FRAGMENT_CLASS = "dp-first-paint"
# Where the main area's Bokeh roots go in Panel's Fast templates (list and grid).
MAIN_MARK = '<div class="main" id="main">'

_HEAD_SCRIPT = re.compile(r"<script\b([^>]*)\bsrc=([^>]*)>\s*</script>", re.IGNORECASE)
_HTML_LANG = re.compile(r'<html\s+lang="[^"]*"', re.IGNORECASE)
_INLINE_LOG_LEVEL = re.compile(
    r"(<script[^>]*>)\s*(Bokeh\.set_log_level\([^)]*\);)\s*(</script>)")

# Removes the server-rendered card when the live card (inside a Bokeh shadow root) is on screen.
# It runs while the HTML is parsed, before BokehJS: every shadow root made from then on gets a
# MutationObserver, whose callback runs right after the script that inserted the live card,
# before any other task, so no script (a test's, a screen reader's) can find both cards.
# A per-frame search after DOMContentLoaded is the fallback; after 60 s without a live card
# the note says so.
_SWAP_JS = """
(function () {
  var mark = document.getElementById("%(id)s");
  if (!mark) return;
  var done = false, observers = [], proto = Element.prototype, attach = proto.attachShadow;
  function shown(root) {
    var hit = root.querySelector(".dp-card");
    return !!hit && hit.isConnected && hit.getBoundingClientRect().height > 0;
  }
  function finish() {
    if (done) return;
    done = true;
    mark.remove();
    for (var i = 0; i < observers.length; i++) observers[i].disconnect();
    observers = [];
    if (proto.attachShadow === patched) proto.attachShadow = attach;
  }
  function patched(init) {
    var root = attach.call(this, init);
    if (!done) {
      var mo = new MutationObserver(function () { if (!done && shown(root)) finish(); });
      mo.observe(root, {childList: true, subtree: true});
      observers.push(mo);
    }
    return root;
  }
  proto.attachShadow = patched;
  function live() {
    var stack = [], all = document.querySelectorAll("[data-root-id]");
    for (var i = 0; i < all.length; i++) stack.push(all[i]);
    while (stack.length) {
      var root = stack.pop();
      if (root !== document && shown(root)) return true;
      var kids = root.querySelectorAll("*");
      for (var j = 0; j < kids.length; j++) if (kids[j].shadowRoot) stack.push(kids[j].shadowRoot);
    }
    return false;
  }
  var started = 0;
  function tick(now) {
    if (done) return;
    if (!started) started = now;
    if (live()) { finish(); return; }
    if (now - started > 60000) {
      mark.classList.add("dp-first-paint-failed");
      var note = mark.querySelector(".dp-first-paint-note");
      if (note) note.textContent = note.getAttribute("data-failed");
      return;
    }
    requestAnimationFrame(tick);
  }
  function start() { requestAnimationFrame(tick); }
  if (document.readyState !== "loading") start();
  else document.addEventListener("DOMContentLoaded", start, {once: true});
})();
"""


def defer_scripts(page: str) -> str:
    """``page`` with every classic external script in ``<head>`` deferred (order kept).

    Module scripts are deferred already; inline scripts cannot be, so the only one that uses
    Bokeh at parse time (the log level) is moved into a ``DOMContentLoaded`` listener, which
    runs after every deferred script. The body is left as it is.
    """
    head_end = page.find("</head>")
    if head_end < 0:
        return page
    head, rest = page[:head_end], page[head_end:]

    def add_defer(m: re.Match[str]) -> str:
        attrs = m.group(1) + "src=" + m.group(2)
        if re.search(r"\b(defer|async)\b", attrs) or re.search(r'type=["\']?module', attrs):
            return m.group(0)
        return f"<script{m.group(1)}defer src={m.group(2)}></script>"

    head = _HEAD_SCRIPT.sub(add_defer, head)
    head = _INLINE_LOG_LEVEL.sub(
        lambda m: (f"{m.group(1)}document.addEventListener('DOMContentLoaded', function () "
                   f"{{ {m.group(2)} }});{m.group(3)}"), head)
    return head + rest


def fragment(body: str, *, css: str, loading: str, failed: str, label: str,
             classes: str = "") -> str:
    """The server-rendered first screen: ``body`` (trusted HTML made by the page) inside a
    ``<section>`` that reads as busy, with its own stylesheet and the swap script.

    ``loading`` / ``failed``: the note shown while the controls load / if they never do
    (plain text, escaped here); ``label``: the section's accessible name; ``classes``: more
    CSS classes of the section.
    """
    cls = html.escape(f"{FRAGMENT_CLASS} {classes}".strip())
    return (
        f'<section id="{FRAGMENT_ID}" class="{cls}" aria-busy="true" '
        f'aria-label="{html.escape(label)}">'
        f"<style>{css}</style>"
        f'<p class="dp-first-paint-note" role="status" data-failed="{html.escape(failed)}">'
        f"{html.escape(loading)}</p>{body}</section>"
        f"<script>{_SWAP_JS % {'id': FRAGMENT_ID}}</script>")


def set_html_lang(page: str, lang: str) -> str:
    """``page`` with ``<html lang>`` set to ``lang`` (Panel's templates write "en" on every page;
    the browser fixed it only once the page's JavaScript ran). Unchanged when ``lang`` is ''."""
    if not lang:
        return page
    return _HTML_LANG.sub(f'<html lang="{html.escape(lang)}"', page, count=1)


def insert_fragment(page: str, frag: str) -> str:
    """``page`` with ``frag`` as the first thing of its main area (unchanged without one)."""
    i = page.find(MAIN_MARK)
    if i < 0 or not frag:
        return page
    j = i + len(MAIN_MARK)
    return page[:j] + frag + page[j:]


class FirstPaintTemplate(jinja2.Template):
    """A page's Jinja template with :func:`defer_scripts`, :func:`set_html_lang` and
    :func:`insert_fragment` applied to what it renders. A subclass (Bokeh accepts only Jinja
    templates or strings as a document's template) sharing the compiled template of ``inner``.
    """

    fragment: str
    lang: str

    @classmethod
    def wrap(cls, inner: jinja2.Template, frag: str = "", lang: str = "") -> FirstPaintTemplate:
        t = object.__new__(cls)
        t.__dict__.update(inner.__dict__)
        t.fragment = frag
        t.lang = lang
        return t

    def render(self, *args: Any, **kwargs: Any) -> str:
        page = defer_scripts(super().render(*args, **kwargs))
        return insert_fragment(set_html_lang(page, self.lang), self.fragment)
