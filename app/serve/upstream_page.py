"""The patches of Bokeh and Panel internals that a page's build and its updates go through:
Bokeh's defaults, Panel's pane and template layouts, the template attached frozen, the busy
events, the design's stylesheets, the resources a page links.

Registered, fingerprinted and installed by app/serve/upstream_patches.py (``PATCHES``); each
installer's docstring gives its measured reason, docs/upstream.md its upstream report.
"""

from __future__ import annotations

from typing import Any, Literal


def cache_bokeh_defaults() -> None:
    """Compute each Bokeh property's plain default once per model class, not per access.

    Bokeh recomputes a property's default (class overrides walked along the MRO, then
    validated) every time an unset property is read, and a page build reads each model's
    unset properties when it makes and when it serialises the model. Only immutable results of
    non-callable defaults are kept (None, bool, numbers, strings and tuples of them), so no
    instance can share a mutable default or a generated value (ids). Idempotent.

    Measured (benchmarks/patch_weight.py, 2026-12-05, 3 rounds): without it a /cdf page build
    (320 models) costs 1.53× the server CPU (1.43-1.63); a /lab build (60 models) 0.93×
    (0.80-1.06: no longer measurable). Stays while /cdf is a heavy page (stage 2d).
    """
    from bokeh.core.has_props import HasProps
    from bokeh.core.property.bases import Property
    from bokeh.core.property.descriptors import PropertyDescriptor

    if getattr(Property.themed_default, "_dplab", False):
        return
    overridden: dict[type, dict[str, Any]] = {}
    overridden_defaults = HasProps._overridden_defaults.__func__

    def cached_overridden(cls: type) -> dict[str, Any]:
        d = overridden.get(cls)
        if d is None:
            d = overridden[cls] = overridden_defaults(cls)
        return d

    cached_overridden._dplab_original = overridden_defaults  # type: ignore[attr-defined]
    HasProps._overridden_defaults = classmethod(cached_overridden)
    plain = (type(None), bool, int, float, str)
    themed_default = Property.themed_default
    cache: dict[tuple[Any, ...], Any] = {}

    def cached_themed_default(self: Any, cls: type, name: str,
                              theme_overrides: dict[str, Any] | None, *,
                              no_eval: bool = False) -> Any:
        if theme_overrides is not None and name in theme_overrides:
            return themed_default(self, cls, name, theme_overrides, no_eval=no_eval)
        key = (id(self), cls, name, no_eval)
        hit = cache.get(key, cache)
        if hit is not cache:
            return hit
        value = themed_default(self, cls, name, theme_overrides, no_eval=no_eval)
        if not (self._may_have_unstable_default()
                or callable(cached_overridden(cls).get(name))) and (
                isinstance(value, plain) or (isinstance(value, tuple)
                                             and all(isinstance(v, plain) for v in value))):
            cache[key] = value
        return value

    cached_themed_default._dplab = True  # type: ignore[attr-defined]
    cached_themed_default._dplab_original = themed_default  # type: ignore[attr-defined]
    Property.themed_default = cached_themed_default

    # Whether a default is "unstable" (made by a callable) depends on the class alone.
    unstable: dict[tuple[int, type], bool] = {}
    has_unstable_default = PropertyDescriptor.has_unstable_default

    def cached_has_unstable_default(self: Any, obj: Any) -> bool:
        key = (id(self), type(obj))
        hit = unstable.get(key)
        if hit is None:
            hit = unstable[key] = bool(has_unstable_default(self, obj))
        return hit

    cached_has_unstable_default._dplab_original = (  # type: ignore[attr-defined]
        has_unstable_default)
    PropertyDescriptor.has_unstable_default = cached_has_unstable_default


def lazy_layouts() -> None:
    """Make a Panel pane's wrapper layout (``pane.layout``) and a template's notebook layout
    (``BaseTemplate._layout``) when each is first used.

    Panel gives every pane a ``Row`` around it for the case where the pane is shown on its own
    or replaced; inside our pages' columns it is never rendered, yet every pane of a page
    made one (a Reactive object with its watchers). Now the Row is made, with the pane's
    current layout parameters, on first access; it then follows them as before. A copy of
    ``PaneBase.__init__`` without the layout. Likewise every template makes, in its
    ``__init__``, the column a notebook shows for it (its ``repr`` as a Str pane, an HTML pane
    and a "Launch server" button: four Panel objects), which a served page never renders; it
    is now made on first access of ``_layout``. Idempotent.

    Measured (benchmarks/patch_weight.py, 2026-12-05, 3 rounds): without the panes' part a page
    keeps 1.17× the gc-tracked objects on /lab (8,390 → ~9,800) and 1.16× on /cdf (23,517 →
    ~27,300); build CPU 0.87× on /lab (noise), 1.14× on /cdf. The template's part
    (benchmarks/page_weight.py, 2026-12-06): /lab 4,359 → see docs/upstream.md. Objects per
    session are what the collector walks and what a worker's memory holds per student
    (issue 38).
    """
    from panel.pane.base import PaneBase
    from panel.template.base import BaseTemplate
    from panel.viewable import Layoutable

    if getattr(PaneBase, "_dplab_lazy_layout", False):
        return
    build_layout = BaseTemplate._build_layout

    def build_later(self: Any) -> None:
        return None  # (BaseTemplate.__init__ stores it; the property below makes it when read)

    def get_template_layout(self: Any) -> Any:
        layout = self.__dict__.get("_dplab_layout")
        if layout is None:
            layout = self.__dict__["_dplab_layout"] = build_layout(self)
        return layout

    def set_template_layout(self: Any, layout: Any) -> None:
        self.__dict__["_dplab_layout"] = layout

    build_later._dplab_original = build_layout  # type: ignore[attr-defined]
    BaseTemplate._build_layout = build_later  # type: ignore[assignment,method-assign]
    BaseTemplate._layout = property(get_template_layout, set_template_layout)  # type: ignore[assignment]
    sync = PaneBase._sync_layoutable

    def init(self: Any, object: Any = None, **params: Any) -> None:
        # PaneBase.__init__ of Panel 1.9, without making the layout.
        self._object_changing = False
        super(PaneBase, self).__init__(object=object, **params)
        if not hasattr(self, "_internal_callbacks"):
            self._internal_callbacks = []
        applies = self.applies(self.object, **(params if self._applies_kw else {}))
        if (isinstance(applies, bool) and not applies) and self.object is not None:
            self._type_error(self.object)
        self.__dict__["_dplab_layout_kwargs"] = {
            k: v for k, v in params.items()
            if k in Layoutable.param and k not in self._skip_layoutable}
        self._internal_callbacks.append(
            self.param.watch(self._sync_layoutable, list(Layoutable.param)))

    def get_layout(self: Any) -> Any:
        layout = self.__dict__.get("_dplab_layout")
        if layout is None:
            kwargs = self.__dict__.pop("_dplab_layout_kwargs", {})
            layout = self.__dict__["_dplab_layout"] = self.default_layout(self, **kwargs)
            sync(self)
        return layout

    def set_layout(self: Any, layout: Any) -> None:
        self.__dict__["_dplab_layout"] = layout

    def sync_layoutable(self: Any, *events: Any) -> None:
        if self.__dict__.get("_dplab_layout") is not None:  # else it is made with them
            sync(self, *events)

    init._dplab_original = PaneBase.__init__  # type: ignore[attr-defined]
    sync_layoutable._dplab_original = sync  # type: ignore[attr-defined]
    PaneBase.__init__ = init  # type: ignore[method-assign]
    PaneBase.layout = property(get_layout, set_layout)
    PaneBase._sync_layoutable = sync_layoutable  # type: ignore[method-assign]
    PaneBase._dplab_lazy_layout = True


def attach_template_frozen() -> None:
    """A template is attached to its document under one ``Document.models.freeze()``: Bokeh
    otherwise recomputes the document's whole model graph once per template root added
    (``BaseTemplate.server_doc`` adds each root in turn).

    Measured (benchmarks/patch_weight.py, 2026-12-05, 3 rounds): without it a /cdf page build
    costs 1.64× the server CPU (1.20-2.07), a /lab build 0.97× (0.96-0.97: no longer pays
    on /lab). Stays while /cdf is a heavy page (stage 2d)."""
    from panel.template.base import BaseTemplate

    attach = BaseTemplate.server_doc
    if getattr(attach, "_dplab_original", None) is not None:
        return

    def server_doc(self: Any, doc: Any = None, title: str | None = None,
                   location: Any = True) -> Any:
        if doc is None:
            return attach(self, doc, title, location)
        with doc.models.freeze():
            return attach(self, doc, title, location)

    server_doc._dplab_original = attach  # type: ignore[attr-defined]
    BaseTemplate.server_doc = server_doc  # type: ignore[method-assign]


def busy_events_when_shown() -> None:
    """Panel counts every widget event in one process-wide list for its busy spinner; our
    templates have none (app.shell.template), yet that bookkeeping ran on every event (a
    list copy under Panel's ``edit_readonly`` of the whole ``state`` object). It runs again as
    soon as any page registers a busy indicator.

    Measured (benchmarks/patch_weight.py, 2026-12-05, 4 rounds): leaving it and
    :func:`design_on_stylesheets_only` out on top of the ten removed patches took a /lab move
    from 1.16× to 1.46× (1.38-1.67) the server CPU of the patched server, a /cdf move from
    1.53× to 2.68×; alone, 1.00× per /lab move and 1.32× per /cdf move."""
    from panel.io.state import state as pn_state

    state_cls = type(pn_state)
    add_busy, remove_busy = state_cls._add_busy_event, state_cls._remove_busy_event
    if getattr(add_busy, "_dplab_original", None) is not None:
        return

    def add_busy_event(self: Any, event_id: str) -> None:
        if self._indicators:
            add_busy(self, event_id)

    def remove_busy_event(self: Any, event_id: str) -> None:
        if self._indicators or self._busy_counter:
            remove_busy(self, event_id)

    add_busy_event._dplab_original = add_busy  # type: ignore[attr-defined]
    remove_busy_event._dplab_original = remove_busy  # type: ignore[attr-defined]
    state_cls._add_busy_event = add_busy_event  # type: ignore[method-assign]
    state_cls._remove_busy_event = remove_busy_event  # type: ignore[method-assign]


def design_on_stylesheets_only() -> None:
    """Panel works out a component's design (theme stylesheets) on every parameter change of
    every widget and pane, but only uses it when the change is to ``stylesheets``. Same
    result, computed only then.

    Measured: see :func:`busy_events_when_shown` (the two together: 1.26× the CPU per /lab
    move); alone 1.04× per /lab move, 1.41× (1.38-1.43) per /cdf move."""
    from panel.reactive import Reactive

    original = Reactive._update_properties
    if getattr(original, "_dplab_original", None) is not None:
        return

    def update_properties(self: Any, *events: Any, doc: Any) -> dict[str, Any]:
        changes = {event.name: event.new for event in events}
        if "stylesheets" in changes and self._design:
            params, _ = self._design.params(self, doc)
            if "stylesheets" in params:
                changes["stylesheets"] = params["stylesheets"] + changes["stylesheets"]
        return self._process_param_change(changes)

    update_properties._dplab_original = original  # type: ignore[attr-defined]
    Reactive._update_properties = update_properties  # type: ignore[method-assign]


# True: the page's bundle leaves out Bokeh's MathJax (without TeX) and WebGL (without a WebGL
# plot) scripts; benchmarks/first_load.py sets it False for its "baseline" variant.
TRIM_BUNDLE = True


def page_resources() -> None:
    """What a page's HTML links, trimmed to what our pages use, made once per kind of page.

    - *Offline* (correctness: nothing may load from outside at run time): Panel's Fast design
      links Open Sans from Google Fonts in every page; the link is dropped (``Fast._resources``'s
      ``font``; the font stack is local).
    - *Bytes*: Panel adds Bokeh's 1.8 MB MathJax bundle to every page one of whose roots is an
      HTML pane (``panel.io.resources._panel_use_mathjax``; all of ours); it now goes only to a
      page whose HTML roots have TeX in them (none of ours), and Bokeh's WebGL bundle (194 kB)
      only to a page with a WebGL plot (none). Without the bundle Bokeh's MathJax provider reports
      "failed" and HTML panes show their text as it is.
    - *CPU*: ``bundle_resources`` works out the same script and style lists for every page
      (every extension's files found and stat'ed, ~220 stat calls): 6.7-7.7 ms of a /lab page's
      ~68 ms build (2026-12-06, ``benchmarks/build_cost.py``'s HTML part). The bundle is now
      kept per everything it depends on (the page's need for MathJax and WebGL, the resources'
      mode and root, the served path prefix, the loaded extensions and the number of model
      classes known), and each page gets a copy (Panel adds the page's own script to it).
    Idempotent."""
    import copy

    from bokeh.embed.bundle import _any
    from bokeh.embed.util import contains_tex_string
    from bokeh.model import Model
    from bokeh.models import Plot
    from panel.config import panel_extension
    from panel.io import resources, server
    from panel.io.state import state
    from panel.models.markup import HTML as PanelHTML
    from panel.theme.fast import Fast

    if Fast._resources.get("font"):
        Fast._resources = {**Fast._resources, "font": {}}
    if getattr(server.bundle_resources, "_dplab_original", None) is not None:
        return
    use_mathjax_upstream = resources._panel_use_mathjax
    bundle_upstream = server.bundle_resources

    def use_mathjax(roots: Any) -> bool:
        if not TRIM_BUNDLE:
            return bool(use_mathjax_upstream(roots))
        return bool(_any(roots, lambda obj: isinstance(obj, PanelHTML)
                         and isinstance(obj.text, str) and contains_tex_string(obj.text)))

    kept: dict[tuple[Any, ...], Any] = {}

    def bundle_resources(roots: Any, resources: Any, notebook: bool = False,
                         reloading: bool = False,
                         enable_mathjax: bool | Literal["auto"] = "auto") -> Any:
        res = resources
        webgl = bool(roots) and _any(
            roots, lambda obj: isinstance(obj, Plot) and obj.output_backend == "webgl")
        tex = use_mathjax(roots) if roots else False
        key = (TRIM_BUNDLE, webgl, tex, bool(roots), getattr(res, "mode", None),
               getattr(res, "root_url", None), getattr(res, "absolute", None),
               getattr(res, "notebook", None), state.rel_path, notebook, reloading,
               enable_mathjax, tuple(panel_extension._loaded_extensions),
               len(Model.model_class_reverse_map))
        bundle = kept.get(key)
        if bundle is None:
            bundle = bundle_upstream(roots, res, notebook, reloading, enable_mathjax)
            if TRIM_BUNDLE and roots and not webgl:
                bundle.js_files = [f for f in bundle.js_files if "/bokeh-gl" not in str(f)]
            kept[key] = bundle
        page = copy.copy(bundle)  # the page adds its own script: lists of its own
        for name, value in vars(bundle).items():
            if isinstance(value, (list, dict)):
                setattr(page, name, copy.copy(value))
        return page

    use_mathjax._dplab_original = use_mathjax_upstream  # type: ignore[attr-defined]
    bundle_resources._dplab_original = bundle_upstream  # type: ignore[attr-defined]
    resources._panel_use_mathjax = use_mathjax
    server.bundle_resources = bundle_resources
