"""One lab state's values as plain attributes, and what is derived from them.

:class:`LabValues` is what the views of a :class:`app.lab.state.LabState` read (its
``values()``, made once per change); the derived values (sensitivity, the claim, dpcore's
certification, the address, the calibration still in force) are written here once, and
shared between the sessions of a process through the caches below.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any

from app.shell.numbers import fmt_input
from dpcore import gaussian, queries
from dpcore.certify import Certification, Claim, certify
from dpcore.errors import DPError

DATA_EDIT_MAX = 64  # a dataset longer than this is generated, not typed


@dataclass(frozen=True, slots=True)
class LabValues:
    """One lab state's values as plain attributes, and what is derived from them.

    Why: the views of a state read its values ~120 times (card, figures, controls, address);
    a param ``Number`` costs ~3.5 µs per read (its dynamic-value check), a plain attribute
    0.04 µs, so the reads alone were ~0.3 ms of a student's move (2026-12-07). A state makes
    its values once per change (``LabState.values``); the lists and dicts are the state's
    own objects, to be read, not changed.
    """

    query: str
    n: int
    B: float
    sigma: float
    eps: float
    delta: float
    delta_text: str
    data: list[float]
    record: int
    replacement: float
    eps_lo: float
    eps_hi: float
    scale: str
    overlays: list[str]
    sim_n: int
    sim_seed: int
    attack_fpr: float
    attack_text: str
    calib_tpr: float
    calib_fpr: float
    calib_error: float
    calibrated: dict[str, Any]
    errors: dict[str, tuple[str, dict[str, Any]]]
    notices: list[tuple[str, dict[str, Any]]]

    @property
    def sensitivity(self) -> float:
        return float(queries.sensitivity(self.query, self.n, self.B))

    @property
    def data_editable(self) -> bool:
        return self.n <= DATA_EDIT_MAX

    @property
    def data_text(self) -> str:
        return ", ".join(fmt_input(x) for x in self.data)

    @property
    def claim(self) -> Claim:
        """The claimed delta read exactly from its text, in log space (1e-400 stays 1e-400)."""
        return _claim(self.delta_text, self.delta)

    def certification(self) -> Certification:
        """dpcore's certification of this state's release, with the claim as typed (shared by
        every session of the process with the same inputs: a following class)."""
        return _certification(self.query, self.n, self.B, self.sigma, self.eps,
                              self.delta_text, self.delta)

    def calibration_now(self) -> dict[str, Any] | None:
        """The last calibration while σ (and the sensitivity it was for) is still its result,
        with ε at the claimed δ (``eps``: conservative, math.inf at δ = 0; None when the claim
        lies below the double range); None once σ or Δ has moved on."""
        c = self.calibrated
        if not c or c["sigma"] != self.sigma or c["sens"] != self.sensitivity:
            return None
        claim = self.claim
        return {**c, "eps": _eps_at(claim.value, claim.log10, c["sens"], c["sigma"]),
                "delta": claim.text}

    def url_query(self) -> dict[str, str]:
        """Query string of the current state (fixed names first)."""
        q = {
            "q": self.query,
            "n": str(self.n),
            "B": fmt_input(self.B),
            "sigma": fmt_input(self.sigma),
            "eps": fmt_input(self.eps),
            "delta": self.delta_text,
        }
        if self.data_editable:
            q["data"] = ",".join(fmt_input(x) for x in self.data)
        q["i"] = str(self.record)
        q["v"] = fmt_input(self.replacement)
        q["lo"] = fmt_input(self.eps_lo)
        q["hi"] = fmt_input(self.eps_hi)
        q["scale"] = self.scale
        return q


VALUE_NAMES = tuple(f.name for f in dataclasses.fields(LabValues))


@functools.lru_cache(maxsize=256)
def _eps_at(delta: float, log10_delta: float, sens: float, sigma: float) -> float | None:
    """ε at the claimed δ for (Δ, σ) (dpcore: conservative; inf at δ = 0); None for a claim
    below the double range (its nearest double is 0, its ε is finite) or out of dpcore's
    domain."""
    if delta == 0.0 and log10_delta > -math.inf:
        return None
    try:
        return float(gaussian.epsilon(delta, sens, sigma))
    except DPError:
        return None


@functools.lru_cache(maxsize=256)
def _claim(delta_text: str, delta: float) -> Claim:
    try:
        return Claim.parse(delta_text)
    except DPError:
        return Claim.of(delta)


# One entry per slider position a class has reached (131 sigma x 121 eps positions at one
# query); a Certification is a few numbers, so 4096 of them are ~2 MB per process.
@functools.lru_cache(maxsize=4096)
def _certification(query: str, n: int, B: float, sigma: float, eps: float, delta_text: str,
                   delta: float) -> Certification:
    return certify(query, n, B, sigma, eps, _claim(delta_text, delta))
