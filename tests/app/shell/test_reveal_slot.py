"""RevealSlot: a figure joins the page when its place is seen, once; the lab's first document
holds the ε–δ curve only where it is on the first screen (the projector view)."""

from __future__ import annotations

from typing import Any

import panel as pn
from bokeh.document import Document
from bokeh.models import Plot

from app.lab.page import LabPage
from app.lab.state import LabState
from app.shell.widgets import RevealBox, RevealSlot


def test_the_slot_holds_its_box_until_seen_then_the_object_once() -> None:
    made: list[Any] = []

    def make() -> pn.pane.Markdown:
        made.append(pn.pane.Markdown("figure"))
        return made[-1]

    slot = RevealSlot(make, 400, box_classes=["dp-x-reveal"])
    box = slot.objects[0]
    assert isinstance(box, RevealBox) and box.height == 400 and "dp-x-reveal" in box.css_classes
    assert not slot.revealed and made == []
    box.seen = True  # what the browser reports when the box comes near the viewport
    assert slot.revealed and slot.objects == made and len(made) == 1
    slot.reveal()  # again (a PNG export after the scroll): nothing new is made
    assert len(made) == 1 and slot.objects == made


def _plots(page: LabPage) -> set[str]:
    doc = Document()
    pn.state.curdoc = doc
    try:
        col = pn.Column(*page.main())
        col.server_doc(doc)
        # Bokeh figures, and the figures the browser draws (app/shell/svgplot.py)
        return {c for m in doc.models for c in getattr(m, "css_classes", ())
                if c.startswith("dp-") and c.endswith("-plot")}
    finally:
        pn.state.curdoc = None


def test_the_curve_waits_below_the_first_screen_and_is_kept_up_to_date() -> None:
    page = LabPage(LabState(), "en")
    assert _plots(page) == {"dp-density-plot"}
    assert page._curve_slot is not None and not page._curve_slot.revealed
    # Unseen, the figure still follows the state: when it joins, it is current.
    page.state.set_text("eps", "2")
    assert list(page.src_cur.data["eps"]) == [2.0]
    page._curve_slot.reveal()
    assert page._curve_slot.objects[0].object is page.fig_curve


def test_the_projector_view_has_the_curve_from_the_start() -> None:
    page = LabPage(LabState(), "en", large=True)
    assert _plots(page) == {"dp-density-plot", "dp-curve-plot"}
    assert page._curve_slot is None


def test_saving_the_curve_as_png_puts_it_in_place() -> None:
    page = LabPage(LabState(), "en")
    page.main()
    bar = page.exports()
    assert page._curve_slot is not None and not page._curve_slot.revealed
    f = bar._make("png-curve") if bar._make else None
    assert f is not None and f.figure_id == page.fig_curve.id
    assert page._curve_slot.revealed


def _slots(obj: Any) -> list[RevealSlot]:
    """The reveal slots inside a Panel layout, in page order."""
    if isinstance(obj, RevealSlot):
        return [obj]
    return [s for child in getattr(obj, "objects", None) or [] for s in _slots(child)]


def test_a_reveal_adds_the_figure_without_walking_the_whole_page(monkeypatch: Any) -> None:
    from bokeh.document.models import DocumentModelManager

    page = LabPage(LabState(), "en")
    doc = Document()
    pn.state.curdoc = doc
    try:
        col = pn.Column(*page.main())
        col.server_doc(doc)
        slots = _slots(col)
        assert len(slots) == 2  # the curve (below the first screen) and the simulation
        before = set(doc.models._models)
        walks: list[int] = []
        full = DocumentModelManager.recompute
        monkeypatch.setattr(DocumentModelManager, "recompute",
                            lambda self: (walks.append(1), full(self))[1])
        boxes: set[str] = set()
        for slot in slots:
            boxes |= {r.id for m, _ in slot.objects[0]._models.values() for r in m.references()}
            slot.reveal()
        assert walks == []  # Bokeh's walk over every root did not run
        ours = dict(doc.models._models)
        plots = {m for m in ours.values() if isinstance(m, Plot)}
        # the curve and the simulation (the densities are drawn by the browser)
        assert page.fig_curve in plots and len(plots) == 2
        joined = set(ours) - before
        assert {m.id for m in page.fig_curve.references()} <= joined
        assert all(ours[i] in doc.models._new_models and ours[i].document is doc for i in joined)
        # Bokeh's own walk finds the same models, less the two placeholder boxes (and what
        # only they refer to).
        full(doc.models)
        theirs = set(doc.models._models)
        stale = set(ours) - theirs
        assert stale and stale <= boxes and theirs <= set(ours)
    finally:
        pn.state.curdoc = None


def _sim_after_reveal(ahead: bool) -> tuple[LabPage, Any, Any, set[str]]:
    page = LabPage(state=LabState(), lang="en")
    built_ahead = None
    if ahead:
        page.build_hidden_parts()
        built_ahead = page.fig_sim
    doc = Document()
    pn.state.curdoc = doc
    try:
        col = pn.Column(*page.main())
        col.server_doc(doc)
        before = {c for m in doc.models if isinstance(m, Plot) for c in m.css_classes}
        page.state.set_query("count")  # another unit: the axis labels change
        page.refresh()
        sim = next(s for s in _slots(col) if "dp-sim-reveal" in s.objects[0].css_classes)
        sim.reveal()
        return page, built_ahead, sim.objects[0].object, before
    finally:
        pn.state.curdoc = None


def test_a_simulation_built_ahead_is_kept_up_to_date_and_joins_only_when_seen() -> None:
    page, ahead, shown, before = _sim_after_reveal(ahead=True)
    assert ahead is not None and shown is ahead  # the reveal attached the one built ahead
    assert "dp-sim-plot" not in before  # not in the first document
    _, none, plain, _ = _sim_after_reveal(ahead=False)
    assert none is None
    # The same figure as one built at the reveal: labels, title, glyphs.
    for fig in (shown, plain):
        assert fig.xaxis[0].axis_label == page.dens_plot.data["xlabel"] != ""
        assert fig.yaxis[0].axis_label == page.dens_plot.data["ylabel"] != ""
    assert shown.title.text == plain.title.text
    assert [type(r.glyph).__name__ for r in shown.renderers] == \
        [type(r.glyph).__name__ for r in plain.renderers]
    # the densities' window (the figure the browser draws has no Bokeh range to share)
    assert shown.x_range is page.sim_range
    assert (shown.x_range.start, shown.x_range.end) == (page.dens_plot.data["lo"],
                                                        page.dens_plot.data["hi"])


def _themes_after_reveal(ahead: bool, monkeypatch: Any) -> tuple[dict[str, list[Any]], int]:
    from panel.theme import Design

    from app.lab import page as lab_page

    walks: list[int] = []
    full = Design.apply_bokeh_theme_to_model
    doc = Document()
    pn.state.curdoc = doc
    try:
        tmpl = lab_page.create_page("en", ahead=ahead)  # as app/serve builds a page
        tmpl.server_doc(doc)
        lab = doc.__dict__[lab_page._LATER][0]
        monkeypatch.setattr(Design, "apply_bokeh_theme_to_model",
                            lambda self, m, t=None: (walks.append(1), full(self, m, t))[1])
        for slot in [s for o in tmpl.main for s in o.select(RevealSlot)]:
            slot.reveal()
        monkeypatch.setattr(Design, "apply_bokeh_theme_to_model", full)
    finally:
        pn.state.curdoc = None
    themed = {name: sorted(((type(m).__name__, sorted(m.themed_values().items()))
                            for m in fig.references() if m.themed_values()), key=repr)
              for name, fig in (("curve", lab.fig_curve), ("sim", lab.fig_sim))}
    return themed, len(walks)


def test_figures_readied_ahead_join_themed_as_panel_themes_them(monkeypatch: Any) -> None:
    # A page built ahead readies the panes of both revealed figures (PreparedBokeh): the
    # reveal skips Panel's walks, and every model carries the theme Panel would have given it.
    from panel.theme.fast import Fast

    with pn.config.set(design=Fast):  # as pn.extension(design="fast") in app/serve/server.py
        ahead, walks_ahead = _themes_after_reveal(True, monkeypatch)
        plain, walks_plain = _themes_after_reveal(False, monkeypatch)
    assert walks_plain == 2 and walks_ahead == 0
    assert all(plain.values())  # the design's Bokeh theme reaches these models
    assert ahead == plain
