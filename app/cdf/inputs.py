"""Inputs of /cdf: checked one by one, and the state written to and read from the address.

A bad value leaves the state as it was and returns a message (catalogue key and fields); the
address uses the fixed names data, n, eps, delta, method, degree, seed (see app.cdf.page).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import param

from app.cdf.records import (
    Message,
)
from app.shell.numbers import ascii_number_text, fmt_input
from dpcore.cdf import METHODS
from dpcore.cdf.datasets import REAL, SYNTHETIC
from dpcore.cdf.lattice import LATTICE_LIMIT, check_granularity
from dpcore.errors import DPError

if TYPE_CHECKING:
    from app.cdf import upload as cdf_upload

# METHODS: the page's methods, dpcore's registered ``listed`` ones (shown by app/cdf/methods.py)
METHOD_CHOICES = (*METHODS, "all")


UPLOAD = "upload"


DATASETS = (*SYNTHETIC, *REAL)


DATA_CHOICES = (*DATASETS, UPLOAD)


STREAM_MODES = ("batches", "sites")


PLOT_POINTS = 512


TABLE_PROBS = (0.1, 0.25, 0.5, 0.75, 0.9)


N_RANGE = (10, 1_000_000)


EPS_RANGE = (0.01, 20.0)


DELTA_RANGE = (1e-30, 0.1)


SEED_MAX = 2**31 - 1


DEGREE_MAX = 256


PARTS_RANGE = (2, 20)


# ---------------------------------------------------------------------------------------------
# small pure helpers
# ---------------------------------------------------------------------------------------------
def _parse_float(raw: object) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float, np.integer, np.floating)):
        x = float(raw)
    else:
        s = ascii_number_text(str(raw))  # full-width "１．５" is 1.5 (issue 39)
        if not s or len(s) > 40:
            return None
        try:
            x = float(s)
        except ValueError:
            return None
    return x if math.isfinite(x) else None


def _parse_int(raw: object) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, np.integer)):
        return int(raw)
    x = _parse_float(raw)
    if x is None or x != int(x) or abs(x) > 2**53:
        return None
    return int(x)


def lattice_message(bounds: tuple[float, float], h: float) -> Message | None:
    """Why the value spacing ``h`` cannot be used on ``bounds`` (dpcore's check), or None."""
    lo, hi = bounds
    try:
        check_granularity(bounds, h)
    except DPError as exc:
        if exc.key == "out_of_range.whole":
            return ("cdf.gran.err.divide", {"h": fmt_input(h), "lo": fmt_input(lo),
                                            "hi": fmt_input(hi), "ratio": f"{(hi - lo) / h:.6g}"})
        if exc.key == "out_of_range.interval":
            return ("cdf.gran.err.too_fine", {"h": fmt_input(h), "max": f"{LATTICE_LIMIT:,}"})
        return ("cdf.gran.err.positive", {"value": fmt_input(h)})
    return None


class CDFInputs:
    """Input checking and the address of :class:`app.cdf.state.CDFState` (a mixin)."""

    if TYPE_CHECKING:  # what the page (or state) class provides
        param: Any
        n: int
        data_seed: int
        eps: float
        delta: float
        noise_seed: int
        degree: int
        teacher: bool
        stream_parts: int
        stream_steps: int
        _upload: cdf_upload.UploadTable | None
        upload_lo: float | None
        upload_hi: float | None
        lattice: bool
        lattice_h: float

        def data_n(self) -> int: ...
        def data_bounds(self) -> tuple[float, float] | None: ...
        def granularity(self) -> float | None: ...
        @property
        def is_synthetic(self) -> bool: ...

    def set_input(self, name: str, raw: object) -> Message | None:
        """Set one input from text or a number; (key, fmt) of the problem, state unchanged."""
        try:
            return self._set_input(name, raw)
        except DPError as exc:  # dpcore's keyed errors are translated by the page
            return ("err." + exc.key, dict(exc.fields))
        except (ValueError, TypeError) as exc:  # param's own bound checks, as a last resort
            return ("cdf.err.input", {"name": name, "detail": str(exc)[:80]})

    def _set_input(self, name: str, raw: object) -> Message | None:
        bad = ("cdf.err.value", {"name": name, "value": str(raw)[:40]})
        if name in ("dataset", "data"):
            v = str(raw)
            if v not in DATA_CHOICES:
                return bad
            if v == UPLOAD and self._upload is None:
                return ("cdf.up.err.not_here", {})
            self.dataset = v
            return None
        if name == "method":
            if str(raw) not in METHOD_CHOICES:
                return bad
            self.method = str(raw)
            return None
        if name == "degree":
            if str(raw).strip().lower() == "auto":
                self.auto_degree = True
                return None
            k = _parse_int(raw)
            if k is None or not 0 <= k <= DEGREE_MAX:
                return ("cdf.err.degree", {"value": str(raw)[:40], "max": DEGREE_MAX})
            self.param.update(degree=k, auto_degree=False)
            return None
        if name == "lattice_h":
            text = "" if raw is None else str(raw).strip()
            if text == "":
                return ("cdf.err.empty", {"name": name})
            x = _parse_float(raw)
            if x is None:
                return ("cdf.gran.err.number", {"value": text[:40]})
            if not 0 < x <= 1e15:
                return ("cdf.gran.err.positive", {"value": text[:40]})
            bounds = self.data_bounds()
            if bounds is not None and not self.is_synthetic:
                problem = lattice_message(bounds, x)
                if problem is not None:
                    return problem
            self.lattice_h = x
            return None
        if name in ("teacher", "auto_degree", "lattice"):
            s = str(raw).strip().lower()
            if s in ("1", "true", "yes", "on"):
                setattr(self, name, True)
            elif s in ("0", "false", "no", "off"):
                setattr(self, name, False)
            else:
                return bad
            return None
        if name == "stream_mode":
            if str(raw) not in STREAM_MODES:
                return bad
            self.stream_mode = str(raw)
            return None
        if name == "upload_unit":
            self.upload_unit = str(raw).strip()[:20]
            return None
        if name == "upload_column":
            if self._upload is None or str(raw) not in self._upload.names:
                return ("cdf.up.err.pick", {})
            self.upload_column = str(raw)
            return None
        ints = {"n": N_RANGE, "data_seed": (0, SEED_MAX), "noise_seed": (0, SEED_MAX),
                "stream_parts": PARTS_RANGE, "stream_steps": (0, PARTS_RANGE[1])}
        if name in ints or name in ("eps", "delta"):
            text = "" if raw is None else str(raw).strip()
            if text == "":
                return ("cdf.err.empty", {"name": name})
            try:  # "1e999" is a number, too large for a double ("inf" is not a number)
                huge = any(c.isdigit() for c in text) and math.isinf(
                    float(ascii_number_text(text)))
            except ValueError:
                huge = False
            if huge:
                rng = ints.get(name) or {"eps": EPS_RANGE, "delta": DELTA_RANGE}[name]
                return ("cdf.err.too_large", {"name": name, "value": text[:40],
                                              "lo": fmt_input(rng[0]), "hi": fmt_input(rng[1])})
        if name in ints:
            lo, hi = ints[name]
            k = _parse_int(raw)
            if k is None or not lo <= k <= hi:
                return ("cdf.err.range_int", {"name": name, "value": str(raw)[:40], "lo": lo,
                                              "hi": hi})
            if name == "stream_steps":
                k = min(k, self.stream_parts)
            setattr(self, name, k)
            return None
        floats = {"eps": EPS_RANGE, "delta": DELTA_RANGE}
        if name in floats:
            lo_f, hi_f = floats[name]
            x = _parse_float(raw)
            if x is None or not lo_f <= x <= hi_f:
                return ("cdf.err.range", {"name": name, "value": str(raw)[:40],
                                          "lo": fmt_input(lo_f), "hi": fmt_input(hi_f)})
            setattr(self, name, x)
            return None
        if name in ("upload_lo", "upload_hi"):
            # A rejected bound leaves the last valid pair in use (the plot, n and the ledger
            # stay as they were) and says why at its own field only.
            from app.cdf import upload as cdf_upload

            text = "" if raw is None else str(raw).strip()
            if text == "":
                if getattr(self, name) is None:
                    return None
                return ("cdf.up.err.bounds_empty", {})
            x = _parse_float(raw)
            if x is None:
                try:  # a number too large for a double ("1e999") is still a number
                    too_big = any(c.isdigit() for c in text) and math.isinf(
                        float(ascii_number_text(text)))
                except ValueError:
                    too_big = False
                if not too_big:
                    return ("cdf.up.err.bounds_number", {"value": text[:40]})
                return ("cdf.up.err.bounds_huge", {})
            if abs(x) > 1e15:
                return ("cdf.up.err.bounds_huge", {})
            b_lo, b_hi = (x, self.upload_hi) if name == "upload_lo" else (self.upload_lo, x)
            if b_lo is not None and b_hi is not None:
                b = cdf_upload.check_bounds(b_lo, b_hi)
                if b is not None:
                    return (b.key, b.fmt)
            setattr(self, name, x)
            return None
        return ("cdf.err.unknown", {"name": name})

    def url_query(self) -> dict[str, str]:
        """The page's state as query arguments (fixed names first; lang/size/theme are kept)."""
        return {
            "data": self.dataset,
            "n": str(self.n if self.is_synthetic else self.data_n()),
            "eps": fmt_input(self.eps),
            "delta": fmt_input(self.delta),
            "method": self.method,
            "degree": "auto" if self.auto_degree else str(self.degree),
            "seed": str(self.noise_seed),
            "dseed": str(self.data_seed),
            "teacher": "1" if self.teacher else "0",
            "stream": self.stream_mode,
            "parts": str(self.stream_parts),
            # (steps beyond the parts show all of them: the address says what is shown)
            "batches": str(min(self.stream_steps, self.stream_parts)),
            # only a spacing in use (a ticked one that does not fit these bounds is not)
            "gran": "" if (g := self.granularity()) is None else fmt_input(g),
        }

    def apply_url(self, args: Mapping[str, str]) -> list[Message]:
        """Apply query arguments; each bad one keeps its default and yields a notice."""
        notices: list[Message] = []
        names = {"data": "dataset", "n": "n", "eps": "eps", "delta": "delta",
                 "method": "method", "degree": "degree", "seed": "noise_seed",
                 "dseed": "data_seed", "teacher": "teacher", "stream": "stream_mode",
                 "parts": "stream_parts", "batches": "stream_steps"}
        with param.parameterized.batch_call_watchers(self):
            for url_name, attr in names.items():
                if url_name not in args:
                    continue
                raw = args[url_name]
                if url_name == "n" and not self.is_synthetic:
                    continue  # real data: n is the size of the data set
                if url_name == "data" and raw == UPLOAD:
                    notices.append(("cdf.url.upload", {}))
                    continue
                if self.set_input(attr, raw) is not None:
                    notices.append(("cdf.url.bad", {"name": url_name, "value": str(raw)[:40]}))
            raw = args.get("gran", "")
            if raw:  # the public value spacing: checked against the data's bounds
                if self.set_input("lattice_h", raw) is None:
                    self.lattice = True
                else:
                    notices.append(("cdf.url.bad", {"name": "gran", "value": str(raw)[:40]}))
        return notices
