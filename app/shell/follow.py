"""How a page takes part in a live class without knowing about rooms.

A page that can be followed (the lab) offers a :class:`Followable`; the room wing
(``app/room``) offers a :class:`PageLink` that leads (the teacher's tab) or follows (a student's
tab). ``app/serve`` hands the link to the page's factory; the page calls :meth:`PageLink.attach`
once and puts the objects it returns above its main area. Neither wing imports the other.

A *snapshot* is plain JSON data: the page's shared state (for the lab: its address query under
``"lab"``, the tour step under ``"tour"`` and whether the card is revealed under
``"revealed"``). A following page applies the teacher's snapshots; while ``hold`` is true it
keeps what the teacher conceals concealed (the class predicts first). A following page may show
the cheap part of a snapshot first (:meth:`Followable.preview_room_snapshot`) and the rest a
moment later: a whole class then sees the teacher's change before any of them gets the figures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol


class Followable(Protocol):
    """What a page offers to a live class."""

    lang: str

    def room_snapshot(self) -> dict[str, Any]:
        """The page's shared state now (JSON data)."""
        ...

    def apply_room_snapshot(self, snap: Mapping[str, Any], *, hold: bool) -> None:
        """Show ``snap``; ``hold``: the student cannot reveal what it conceals."""
        ...

    def preview_html(self, snap: Mapping[str, Any]) -> str | None:
        """The HTML :meth:`preview_room_snapshot` would show for ``snap`` (the very string every
        follower of the process shows), or None when it cannot be shown alone. A live class
        may send it to the page by its own way (app/room/channel.py)."""
        ...

    def channel_views(self, snap: Mapping[str, Any]) -> str | None:
        """Everything a following page shows for ``snap`` (the card, texts, figures,
        controls) as one JSON text made once per process (the same object for every follower
        of that language and layout), or None when the snapshot cannot be shown without the
        page's own session (a tour step, a concealed card)."""
        ...

    def preview_room_snapshot(self, snap: Mapping[str, Any]) -> bool:
        """Show at once the part of ``snap`` a student looks at first (the lab: its card, made
        once per process and snapshot), when it can be shown alone; :meth:`apply_room_snapshot`
        follows later with the rest. False (nothing shown) when it cannot (a tour step, a
        concealed card): apply the whole snapshot at once then."""
        ...

    def on_room_change(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` after each change made on this page by its user (not by
        :meth:`apply_room_snapshot`)."""
        ...

    def on_prediction(self, callback: Callable[[int], None]) -> None:
        """Call ``callback(option)`` when the user picks an option of a prediction step."""
        ...

    def prediction(self) -> tuple[str, int] | None:
        """(reference, number of options) of the prediction the page shows now, if any
        (the lab: the tour step number)."""
        ...


class PageLink(Protocol):
    """A page's tie to a room (made by the room wing)."""

    def attach(self, page: Followable) -> list[Any]:
        """Start leading or following; returns the Panel objects to show above the page."""
        ...
