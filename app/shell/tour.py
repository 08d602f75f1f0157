"""What every predict-then-reveal tour shares (the lab's tour and the /cdf tour build on it).

A tour is a list of steps; a step may ask for a prediction, and the page shows the answer only
once the student has predicted (``revealed``). ``tour=k`` in the address opens step k.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import param


class StepTour(param.Parameterized):
    """Where the student is in a tour and what they predicted (a subclass says what ``go`` sets)."""

    step = param.Integer(default=0, bounds=(0, 99),
                         doc="Current step, 1-based; 0 means the tour is closed.")
    total = param.Integer(default=0, bounds=(0, 99), constant=True,
                          doc="Number of steps in the tour.")
    choice = param.Integer(default=-1, bounds=(-1, 9),
                           doc="Option the student predicted at this step (-1: none yet).")
    revealed = param.Boolean(default=True,
                             doc="False while a prediction step hides its answer.")

    def __init__(self, steps: Sequence[object], **params: Any) -> None:
        super().__init__(**params)
        with param.edit_constant(self):
            self.total = len(steps)

    def go(self, k: int) -> None:
        """Open step ``k`` (0 closes); each tour sets its page for the step."""
        raise NotImplementedError

    def next(self) -> None:
        if self.step < self.total:
            self.go(self.step + 1)

    def back(self) -> None:
        if self.step > 1:
            self.go(self.step - 1)


def step_from_address(arg: str, total: int) -> int | None:
    """The step number of a ``tour=`` address value, or None when it is not 0..total."""
    try:
        k = int(arg)
    except ValueError:
        return None
    return k if 0 <= k <= total else None
