"""The lab as a :class:`app.shell.follow.Followable`: its address query, tour step and card
concealment are what a live class shares.

Applying a teacher's snapshot sets only the parameters that differ (one batch, so the page
refreshes once), and the target values of a snapshot are computed once per process, not once
per following student. The card of a snapshot (its HTML, per language and layout) is also made
once per process: :meth:`LabFollowable.preview_room_snapshot` shows it on its own, before the
whole snapshot is applied (controls, figures, texts), so every follower's card changes first.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import param

from app.lab import messages
from app.lab.card import card_html
from app.lab.state import URL_NAMES, LabState
from app.lab.tour import TourState

# LabState parameters that the address carries (what a following lab takes over).
SHARED = ("query", "n", "B", "sigma", "eps", "delta", "delta_text", "data", "record",
          "replacement", "eps_lo", "eps_hi", "scale")


@functools.lru_cache(maxsize=8)
def _state(items: tuple[tuple[str, str], ...]) -> LabState:
    """The lab state at an address (read only). A new state's target values and its card come
    from this one object; a second LabState per state (made, then updated) took more than half
    of the card's CPU (with LabState's shared parameter objects: 2.29 -> 0.83 ms per new
    state, benchmarks/README.md "a room state's card")."""
    s = LabState()
    s.apply_url(dict(items))
    if s.errors:  # (the card of a following page shows the values, not the address's errors)
        s.param.update(errors={})
    return s


@functools.lru_cache(maxsize=256)
def _target(items: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    s = _state(items)
    return {name: getattr(s, name) for name in SHARED}


def _items(query: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((str(k), str(v)) for k, v in query.items() if k in URL_NAMES))


def target_values(query: Mapping[str, str]) -> dict[str, Any]:
    """LabState values of an address query (cached: every follower gets the same snapshot)."""
    return {k: (list(v) if isinstance(v, list) else v) for k, v in _target(_items(query)).items()}


@functools.lru_cache(maxsize=256)
def _card(items: tuple[tuple[str, str], ...], lang: str, folded: bool) -> str:
    s = _state(items)
    return card_html(s, s.certification(), lang, folded=folded)


# The last address query seen and its items: one room message hands the same mapping to every
# follower of the process, so 150 followers sort it once, not 150 times.
_LAST_QUERY: list[Any] = [None, ()]


def _items_once(query: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    if _LAST_QUERY[0] is not query:
        _LAST_QUERY[:] = [query, _items(query)]  # (holds the mapping: its id is not reused)
    items: tuple[tuple[str, str], ...] = _LAST_QUERY[1]
    return items


def card_of(query: Mapping[str, str], lang: str, folded: bool) -> str:
    """The card a lab at address ``query`` shows (made once per process, language and layout:
    the same string for every follower). ``query`` is not changed afterwards (a room message's
    mapping is read only)."""
    return _card(_items_once(query), lang, folded)


# The panes a follower's page can take from the class's card channel (app/room/channel.py):
# their fixed CSS class (assets/dplab-room-card.js overlays them; app/lab/messages.py views).
CHANNEL_PANES = {"dp-card-pane": "card"}
# The views (their save-bar key -> the page's SvgPlot): each message carries the view's text
# equivalent and which legend entries it shows (app/lab/messages.py).
CHANNEL_PLOTS = {"density": "dens_plot", "curve": "curve_plot", "simulation": "sim_plot",
                 "attacker": "attack_plot"}


@functools.lru_cache(maxsize=64)
def _views(items: tuple[tuple[str, str], ...], lang: str, large: bool) -> str:
    return messages.views_json(_state(items), lang, large)


def views_of(query: Mapping[str, str], lang: str, large: bool) -> str:
    """What a following lab at address ``query`` shows, as one JSON text made once per
    process, language and layout: the card and the text panes' HTML by CSS class, each
    figure's message by key, the controls' values."""
    return _views(_items_once(query), lang, large)


class FollowedLab(Protocol):
    """What the adapter reads of a lab page (:class:`app.lab.page.LabPage` has it)."""

    lang: str
    state: LabState
    tour: TourState | None
    controls: Any  # app.lab.controls.LabSidebar
    card: Any  # the card's pane (``object``: its HTML)
    _large: bool  # projector layout: the card's secondary parts folded


class LabFollowable:
    """Adapter between a lab page and a room link."""

    def __init__(self, lab: FollowedLab) -> None:
        self.lab = lab
        self.lang = lab.lang
        # In a live class every commit goes through the session: a teacher's move is
        # published from there, a follower's page shows the class (app/lab/moves.py).
        lab.controls.panel.moves = ""
        self._applying = False
        self._changed: list[Callable[[], None]] = []
        self._predicted: list[Callable[[int], None]] = []
        lab.state.param.watch(self._on_change, list(SHARED))
        # the tour's step, kept here: every follower's card check reads it on every move
        self._step, self._tour = 0, lab.tour
        if lab.tour is not None:
            self._step = int(lab.tour.step)
            lab.tour.param.watch(self._on_step, ["step"])
            lab.tour.param.watch(self._on_change, ["step", "revealed"])
            lab.tour.param.watch(self._on_choice, ["choice"])

    def _on_step(self, event: Any) -> None:
        self._step = int(event.new)

    def _on_change(self, *_: Any) -> None:
        if not self._applying:
            for cb in self._changed:
                cb()

    def _on_choice(self, event: Any) -> None:
        if event.new >= 0:
            for cb in self._predicted:
                cb(int(event.new))

    def room_snapshot(self) -> dict[str, Any]:
        tour = self.lab.tour
        return {"lab": self.lab.state.url_query(),
                "tour": int(tour.step) if tour is not None else 0,
                "revealed": bool(tour.revealed) if tour is not None else True}

    def apply_room_snapshot(self, snap: Mapping[str, Any], *, hold: bool) -> None:
        lab, tour = self.lab, self.lab.tour
        self._applying = True
        try:
            step = int(snap.get("tour") or 0)
            if tour is not None and step != tour.step:
                tour.go(step)
            values = target_values(snap.get("lab") or {})
            diff = {k: v for k, v in values.items() if getattr(lab.state, k) != v}
            if diff:
                with param.parameterized.batch_call_watchers(lab.state):
                    lab.state.param.update(**diff, errors={})
            if tour is not None:
                revealed = bool(snap.get("revealed", True))
                tour.param.update(held=hold and not revealed, revealed=revealed)
        finally:
            self._applying = False

    def preview_html(self, snap: Mapping[str, Any]) -> str | None:
        lab, tour = self.lab, self.lab.tour
        # (a tour's step, open here or in the snapshot: its panel and concealment come with the
        # whole snapshot; with no step open nothing is concealed)
        step = self._step if tour is self._tour else (tour.step if tour is not None else 0)
        if tour is not None and (step or int(snap.get("tour") or 0)):
            return None
        return card_of(snap.get("lab") or {}, self.lang, bool(getattr(lab, "_large", False)))

    def channel_views(self, snap: Mapping[str, Any]) -> str | None:
        if self.preview_html(snap) is None:
            return None
        return views_of(snap.get("lab") or {}, self.lang, bool(getattr(self.lab, "_large", False)))

    def preview_room_snapshot(self, snap: Mapping[str, Any]) -> bool:
        html = self.preview_html(snap)
        if html is None:
            return False
        self.lab.card.set_text(html)  # (nothing is sent when it is the same)
        return True

    def on_room_change(self, callback: Callable[[], None]) -> None:
        self._changed.append(callback)

    def on_prediction(self, callback: Callable[[int], None]) -> None:
        self._predicted.append(callback)

    def prediction(self) -> tuple[str, int] | None:
        tour = self.lab.tour
        cur = tour.current if tour is not None else None
        if cur is None or cur.predict is None:
            return None
        assert tour is not None
        return str(tour.step), len(cur.options)
