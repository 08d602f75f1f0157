"""The kinds of private poll, each registered once (:data:`KINDS`).

A kind says what its polls need and how they are read: options fixed by the kind (a yes/no
poll's, sent by the student's browser as "yes" / "no", labelled by ``poll.<value>``) or typed
by the teacher (one per line, between two bounds, sent as the option's index); how many
options' shares the projector shows; its name in the form (``poll.kind.<name>``). The
numbers (app/room/poll.py), the stored records (app/room/records.py), the forms and every
screen read the kind from here, never from its name. A new kind is one entry of
:data:`KINDS` plus its texts in app/i18n/poll.{ko,en}.json (``poll.kind.<name>`` and, for
fixed options, ``poll.<value>``). The student's script (assets/dplab-poll.js) knows no kind
by name: the form says whether its options are sent by value (fixed) or by index (typed,
``data-sends``), and the script reads each option's label from the form.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from app.shell.i18n import t

MIN_CHOICES, MAX_CHOICES = 3, 6
DEFAULT_KIND = "yesno"
_T = TypeVar("_T")


@dataclass(frozen=True)
class PollKind:
    """One kind of poll: what it needs and how its options are named, sent and shown."""

    name: str  # the stored "kind" and the form's value; its label is poll.kind.<name>
    # Options every poll of the kind has, as the student's browser sends them; their labels
    # are the catalogue's poll.<value>. Empty: the teacher types them.
    fixed: tuple[str, ...] = ()
    # Typed options: how many a poll may have (lo, hi); None for a kind with fixed options.
    choices: tuple[int, int] | None = None
    # How many options' shares the projector shows (None: all). A yes/no poll shows "yes"
    # only: "no" is its complement.
    headline: int | None = None

    @property
    def label_key(self) -> str:
        return f"poll.kind.{self.name}"

    @property
    def typed(self) -> bool:
        """The teacher types the options (the form's "choices")."""
        return self.choices is not None

    def size(self, options: Sequence[str]) -> int:
        """k: how many options a poll of this kind with these typed options has."""
        return len(self.fixed) if self.fixed else len(options)

    def keys(self, k: int) -> list[str]:
        """Each option's name in the results' ``reported`` and the value of its radio button
        on the student's form: the fixed values, else "0", "1", ..."""
        return list(self.fixed) if self.fixed else [str(i) for i in range(k)]

    def labels(self, options: Sequence[str], lang: str) -> list[str]:
        """Each option as the reader reads it."""
        if self.fixed:
            return [t(f"poll.{v}", lang) for v in self.fixed]
        return [str(o) for o in options]

    def option_index(self, sent: object, k: int) -> int | None:
        """The option a student's request names (a fixed value, or an index 0..k-1); else
        None."""
        if self.fixed:
            return self.fixed.index(sent) if isinstance(sent, str) and sent in self.fixed \
                else None
        if isinstance(sent, bool) or not isinstance(sent, int):
            return None
        return sent if 0 <= sent < k else None

    def sent(self, option: int) -> str | int:
        """Option ``option`` as the student's browser sent it (shown back to the student)."""
        return self.fixed[option] if self.fixed and option < len(self.fixed) else option

    def shown(self, entries: Sequence[_T]) -> list[_T]:
        """The entries (one per option) the projector shows."""
        return list(entries[:self.headline] if self.headline is not None else entries)


# The registry: the form lists the kinds in this order.
KINDS: dict[str, PollKind] = {k.name: k for k in (
    PollKind("yesno", fixed=("yes", "no"), headline=1),
    PollKind("choice", choices=(MIN_CHOICES, MAX_CHOICES)),
)}


def poll_kind(name: object) -> PollKind | None:
    """The registered kind named ``name`` (None: no such kind)."""
    return KINDS.get(name) if isinstance(name, str) else None
