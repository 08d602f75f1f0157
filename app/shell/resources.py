"""What Panel sends to a page, trimmed to what our pages use (measured; all local, no CDN).

- The Fast design links a Google font by default: :func:`strip_web_fonts` removes it (the font
  stack is local).
- Bokeh's 1.8 MB MathJax bundle only goes to a page with TeX in it, and its WebGL bundle only to
  a page with a WebGL plot (none of ours): :func:`install_mathjax_filter`.
"""

from __future__ import annotations

from typing import Any

from panel.theme.fast import Fast

# True: Bokeh's MathJax bundle only goes to pages with TeX and its WebGL bundle only to pages
# with a WebGL plot (benchmarks/first_load.py sets it False for its baseline).
SKIP_MATHJAX = True


def strip_web_fonts() -> None:
    # Fast's design pulls Open Sans from Google Fonts: drop it (no external request).
    if Fast._resources.get("font"):
        Fast._resources = {**Fast._resources, "font": {}}


def install_mathjax_filter() -> None:
    """Send Bokeh's MathJax bundle (1.8 MB) only to a page whose text contains TeX (and the
    WebGL bundle only to a page with a WebGL plot: :func:`_install_webgl_filter`).

    Panel adds it to every page that has any HTML pane (``panel.io.resources._panel_use_mathjax``
    is true for all of them). Without the bundle Bokeh's MathJax provider reports "failed" and
    HTML panes show their text as it is, which is what our pages want (no TeX in them).
    """
    from bokeh.embed.bundle import _any
    from bokeh.embed.util import contains_tex_string
    from panel.io import resources

    if getattr(resources._panel_use_mathjax, "_dplab", False):
        return
    original = resources._panel_use_mathjax

    def use_mathjax(roots: Any) -> bool:
        if not SKIP_MATHJAX:
            return bool(original(roots))
        from panel.models.markup import HTML as PanelHTML

        return bool(_any(roots, lambda obj: isinstance(obj, PanelHTML)
                         and isinstance(obj.text, str) and contains_tex_string(obj.text)))

    use_mathjax._dplab = True  # type: ignore[attr-defined]
    resources._panel_use_mathjax = use_mathjax
    _install_webgl_filter()


def _install_webgl_filter() -> None:
    """Leave out Bokeh's WebGL bundle (194 kB) on a page without a WebGL plot (none of ours:
    every figure draws on a canvas). Panel's own bundle does not import it."""
    from bokeh.embed.bundle import _any
    from bokeh.models import Plot
    from panel.io import server

    if getattr(server.bundle_resources, "_dplab", False):
        return
    original = server.bundle_resources

    def bundle_resources(roots: Any, resources: Any, *args: Any, **kwargs: Any) -> Any:
        bundle = original(roots, resources, *args, **kwargs)
        if SKIP_MATHJAX and roots and not _any(
                roots, lambda obj: isinstance(obj, Plot) and obj.output_backend == "webgl"):
            bundle.js_files = [f for f in bundle.js_files if "/bokeh-gl" not in str(f)]
        return bundle

    bundle_resources._dplab = True  # type: ignore[attr-defined]
    server.bundle_resources = bundle_resources
