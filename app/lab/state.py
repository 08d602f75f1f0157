"""State of the Gaussian mechanism lab: one ``param.Parameterized`` class, no Panel imports.

Every control of the page writes into :class:`LabState` through :meth:`LabState.set_text` (typed
text) or by setting a parameter directly (sliders, selects). A rejected input never changes the
state: the error is stored in ``errors`` (control name -> (message key, format fields)) and the
page shows it next to the control. The URL round trip uses the fixed names q, n, B, sigma, eps,
delta (plus our own: data, i, v, lo, hi, scale, lang is handled by the page).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import param
from param.parameterized import no_instance_params

from app.lab.values import DATA_EDIT_MAX, VALUE_NAMES, LabValues
from app.shell.numbers import clean_number_text, fmt_input, parse_number
from dpcore import queries, tradeoff
from dpcore.certify import Certification, Claim
from dpcore.errors import DPError

# Ranges of the lab controls. They are narrower than dpcore's domain on purpose: a student who
# types sigma = 1e300 or eps = 1e6 gets a clear message instead of a meaningless picture.
N_MAX = 1_000_000
B_MIN, B_MAX = 1e-6, 1e6
SIGMA_MIN, SIGMA_MAX = 1e-6, 1e6
EPS_MAX = 1000.0
# dpcore's accuracy is verified for h = sensitivity / sigma in this range
# (docs/math.md#error-bound).
H_MIN, H_MAX = 1e-6, 1e3
SIM_MAX = 200_000
# σ from what people care about (issue 41, 3): the sidebar's calibration fields, in percent
# (hit rates) and the query's units (the accepted error), and the two ways to apply them.
CALIB_PCT = ("calib_tpr", "calib_fpr")
CALIB_FIELDS = ("calib_tpr", "calib_fpr", "calib_error")
CALIB_GROUPS: dict[str, tuple[str, ...]] = {"tpr": ("calib_tpr", "calib_fpr"),
                                            "error": ("calib_error",)}
# Errors of a calibration as a whole (shown at its first field): they block nothing and go
# when a field of the group is accepted or the calibration is tried again.
CALIB_APPLY_ERRORS = frozenset({"lab.err.calib_const", "lab.err.calib_order",
                                "lab.err.calib_range"})
OVERLAYS = ("laplace", "classic")
SCALES = ("log10", "linear")


@dataclass(frozen=True)
class Preset:
    """A guided example of the lesson, loaded in one click."""

    key: str
    query: str
    n: int
    B: float
    sigma: float
    eps: float
    delta: str


PRESETS: tuple[Preset, ...] = (
    Preset("sum_pass", "sum", 4, 1.0, 1.0, 1.0, "0.13"),
    Preset("sum_fail", "sum", 4, 1.0, 1.0, 1.0, "0.126"),
    Preset("mean_small", "mean", 4, 1.0, 1.0, 1.0, "0"),
    Preset("mean_underflow", "mean", 32, 1.0, 10.0, 10.0, "0"),
    Preset("sum_eps0", "sum", 4, 1.0, 1.0, 0.0, "0.5"),
    Preset("const", "const", 4, 1.0, 1.0, 1.0, "0"),
    Preset("count", "count", 4, 1.0, 1.0, 1.0, "1e-6"),
)
PRESET_BY_KEY: dict[str, Preset] = {p.key: p for p in PRESETS}

# URL name -> state parameter. q, n, B, sigma, eps, delta are fixed by the issue.
URL_NAMES: dict[str, str] = {
    "q": "query",
    "n": "n",
    "B": "B",
    "sigma": "sigma",
    "eps": "eps",
    "delta": "delta_text",
    "i": "record",
    "v": "replacement",
    "lo": "eps_lo",
    "hi": "eps_hi",
    "scale": "scale",
    "data": "data_text",
}


def _cycle_to(values: list[float], n: int, B: float) -> list[float]:
    base = list(values) or [B, 0.0]
    return [float(base[k % len(base)]) for k in range(n)]


@no_instance_params
class LabState(param.Parameterized):
    """Everything the lab shows is a function of these parameters.

    Its instances share the class's parameter objects (param's ``no_instance_params``; only
    the values are per instance, and nothing here changes a parameter object at run time):
    param otherwise copies a parameter object for an instance at its first ``update`` or
    ``self.param[name]``, which was most of a worker's work for the card of a new room state
    (``app/lab/follow.py``; figures in benchmarks/README.md, "a room state's card").
    """

    query: str = param.Selector(  # type: ignore[assignment]

        default="sum", objects=list(queries.QUERIES),
        doc="Released query: sum, mean, fixed-condition count (x >= B/2) or constant.")
    n = param.Integer(
        default=4, bounds=(1, N_MAX),
        doc="Public, fixed number of records (replace-one neighbours keep n).")
    B = param.Number(
        default=1.0, bounds=(B_MIN, B_MAX),
        doc="Public upper bound of every record: each value lies in [0, B].")
    sigma = param.Number(
        default=1.0, bounds=(SIGMA_MIN, SIGMA_MAX),
        doc="Standard deviation of the Gaussian noise, in the query's output units.")
    eps = param.Number(
        default=1.0, bounds=(0.0, EPS_MAX),
        doc="Privacy parameter epsilon at which the required delta is computed.")
    delta = param.Number(
        default=0.13, bounds=(0.0, 1.0),
        doc="Claimed delta (0 allowed); compared with the required delta in log space.")
    delta_text = param.String(
        default="0.13", doc="The claimed delta as the student typed it (kept for the URL).")
    data = param.List(
        default=[1.0, 0.0, 1.0, 0.0], item_type=float, bounds=(1, N_MAX),
        doc="Dataset D, n values in [0, B] (the student's own neighbour is built from it).")
    record = param.Integer(
        default=1, bounds=(1, N_MAX),
        doc="Which record of D is replaced to build D' (1-based, at most n).")
    replacement = param.Number(
        default=0.0, bounds=(0.0, B_MAX),
        doc="New value of that record in D' (must lie in [0, B]).")
    eps_lo = param.Number(default=0.0, bounds=(0.0, EPS_MAX),
                          doc="Left end of the epsilon range of the epsilon-delta curve.")
    eps_hi = param.Number(default=10.0, bounds=(0.0, EPS_MAX),
                          doc="Right end of the epsilon range of the epsilon-delta curve.")
    scale: str = param.Selector(  # type: ignore[assignment]
       default="log10", objects=list(SCALES),
                           doc="Vertical scale of the epsilon-delta curve: log10 delta or delta.")
    overlays = param.ListSelector(default=["laplace", "classic"], objects=list(OVERLAYS),
                                  doc="Comparison curves: Laplace at equal MSE, classic bound.")
    sim_n = param.Integer(default=5000, bounds=(100, SIM_MAX),
                          doc="Number of simulated noisy releases for each of D and D'.")
    sim_seed = param.Integer(default=1, bounds=(0, 2**31 - 1),
                             doc="Seed of the simulation's random generator (reproducible).")
    attack_fpr = param.Number(default=0.05, bounds=(0.0, 1.0), inclusive_bounds=(False, False),
                              doc="False-positive rate of the attacker the student picks "
                                  "(the attacker's view, issue 41).")
    attack_text = param.String(default="", doc="The attacker's FPR as typed when it was "
                                               "rejected ('' while the FPR shown is accepted).")
    calib_tpr = param.Number(default=10.0, bounds=(0.0, 100.0),
                             doc="σ from a hit rate: the largest true-positive rate (%) an "
                                 "attacker may reach at the FPR calib_fpr.")
    calib_fpr = param.Number(default=5.0, bounds=(0.0, 100.0),
                             doc="σ from a hit rate: the attacker's false-positive rate (%).")
    calib_error = param.Number(default=2.0, bounds=(0.0, None),
                               doc="σ from an accepted error: 95 % of the noise within "
                                   "± this half-width (the query's units).")
    calibrated = param.Dict(default={}, doc="The last σ set from a calibration: kind ('tpr' "
                            "or 'error'), its inputs, sigma and the sensitivity it was for "
                            "({} when none).")
    errors = param.Dict(default={}, doc="Control name -> (message key, format fields).")
    notices = param.List(default=[], item_type=tuple,
                         doc="Page-level notices, e.g. URL values that fell back to defaults.")

    # ---- derived (one implementation: LabValues) -----------------------------------------
    def values(self) -> LabValues:
        """This state's values as plain attributes, made once per change (see
        :class:`LabValues`)."""
        got: LabValues | None = self.__dict__.get("_values")
        if got is None:
            got = LabValues(**{k: getattr(self, k) for k in VALUE_NAMES})
            self.__dict__["_values"] = got
        return got

    def __setattr__(self, name: str, value: Any) -> None:
        # every parameter is set through here (param's update included): the values made
        # before no longer hold
        self.__dict__.pop("_values", None)
        super().__setattr__(name, value)

    @property
    def sensitivity(self) -> float:
        return self.values().sensitivity

    @property
    def data_editable(self) -> bool:
        return self.values().data_editable

    @property
    def data_text(self) -> str:
        return self.values().data_text

    @property
    def claim(self) -> Claim:
        """The claimed delta read exactly from its text, in log space (1e-400 stays 1e-400)."""
        return self.values().claim

    def certification(self) -> Certification:
        """dpcore's certification of this state's release, with the claim as typed (shared by
        every session of the process with the same inputs: a following class)."""
        return self.values().certification()

    # ---- input ----------------------------------------------------------------------------
    def _fail(self, control: str, key: str, **fmt: Any) -> tuple[str, dict[str, Any]]:
        self.errors = {**self.errors, control: (key, fmt)}
        return key, fmt

    def _ok(self, control: str) -> None:
        if control in self.errors:
            errs = dict(self.errors)
            del errs[control]
            self.errors = errs

    def _check_h(self, query: str, n: int, B: float, sigma: float) -> bool:
        d = float(queries.sensitivity(query, n, B))
        return d == 0 or H_MIN <= d / sigma <= H_MAX

    def set_text(self, control: str, text: str) -> tuple[str, dict[str, Any]] | None:
        """Validate typed text for ``control`` and apply it; return None or the error shown.

        Controls: n, B, sigma, eps, delta, record, replacement, eps_lo, eps_hi, data, sim_n.
        The state is unchanged when an error is returned.
        """
        if control == "data":
            return self._set_data(text)
        if control in CALIB_PCT:  # "10%" and "10" are the same percentage
            text = clean_number_text(text).removesuffix("%")
        if str(text).strip() == "":
            return self._fail(control, "lab.err.empty")
        try:
            x = parse_number(text)
        except (ValueError, TypeError):
            x = math.nan
        if not math.isfinite(x):
            raw = str(text).strip().replace("−", "-")
            try:  # "1e999" is a number, too large for a double; "abc", "inf", "nan" are not
                huge = any(c.isdigit() for c in raw) and math.isinf(float(raw))
            except ValueError:
                huge = False
            key = "lab.err.too_large" if huge else "lab.err.not_number"
            return self._fail(control, key, text=str(text)[:40])
        return self.set_value(control, x, text=text)

    def set_attack_fpr(self, text: str) -> bool:
        """The attacker's false-positive rate as typed (full-width digits and spaces allowed):
        applied when it is a number strictly between 0 and 1, else kept in ``attack_text``
        (the view says why). True when applied."""
        try:
            x = float(clean_number_text(text))
        except (TypeError, ValueError):
            x = math.nan
        if not (0.0 < x < 1.0):
            self.attack_text = str(text)[:40] or " "
            return False
        self.param.update(attack_fpr=x, attack_text="")
        return True

    def set_value(self, control: str, x: float, text: str | None = None
                  ) -> tuple[str, dict[str, Any]] | None:
        """Validate a number for ``control`` (see :meth:`set_text`) and apply it.

        An error raised by dpcore is stored like the others, under its own message key
        (``err.<key>``, translated by the page), never passed on.
        """
        try:
            return self._set_value(control, x, text)
        except DPError as exc:
            return self._fail(control, f"err.{exc.key}", **exc.fields)

    def _set_value(self, control: str, x: float, text: str | None
                   ) -> tuple[str, dict[str, Any]] | None:
        if not math.isfinite(x):
            return self._fail(control, "lab.err.not_number", text=str(x))
        if control == "n":
            if x != int(x) or not 1 <= x <= N_MAX:
                return self._fail("n", "lab.err.n", max=N_MAX)
            n = int(x)
            if not self._check_h(self.query, n, self.B, self.sigma):
                return self._fail("n", "lab.err.h", lo=H_MIN, hi=H_MAX)
            self._apply(n=n)
        elif control == "B":
            if not B_MIN <= x <= B_MAX:
                return self._fail("B", "lab.err.B", lo=B_MIN, hi=B_MAX)
            if not self._check_h(self.query, self.n, x, self.sigma):
                return self._fail("B", "lab.err.h", lo=H_MIN, hi=H_MAX)
            self._apply(B=x)
        elif control == "sigma":
            if not SIGMA_MIN <= x <= SIGMA_MAX:
                return self._fail("sigma", "lab.err.sigma", lo=SIGMA_MIN, hi=SIGMA_MAX)
            if not self._check_h(self.query, self.n, self.B, x):
                return self._fail("sigma", "lab.err.h", lo=H_MIN, hi=H_MAX)
            self.sigma = x
        elif control == "eps":
            if not 0 <= x <= EPS_MAX:
                return self._fail("eps", "lab.err.eps", hi=EPS_MAX)
            # Keep the current epsilon inside the curve's range so its marker stays visible.
            lo = min(self.eps_lo, x)
            hi = self.eps_hi if x <= self.eps_hi else min(EPS_MAX, max(2 * x, self.eps_hi))
            if lo == self.eps_lo and hi == self.eps_hi:
                self.eps = x  # (param's update reads every parameter first: ~60 µs a move)
            else:
                self.param.update(eps=x, eps_lo=lo, eps_hi=hi)
        elif control == "delta":
            # read in log space from the text, so 1e-400 is not 0 and "-0" is "0"
            try:
                claim = Claim.parse(clean_number_text(text) if text is not None
                                    else fmt_input(x))
            except DPError:
                return self._fail("delta", "lab.err.delta")
            self.param.update(delta=claim.value, delta_text=claim.text)
        elif control == "record":
            if x != int(x) or not 1 <= x <= self.n:
                return self._fail("record", "lab.err.record", n=self.n)
            self.record = int(x)
        elif control == "replacement":
            if not 0 <= x <= self.B:
                return self._fail("replacement", "lab.err.value", B=fmt_input(self.B))
            self.replacement = x
        elif control in ("eps_lo", "eps_hi"):
            lo = x if control == "eps_lo" else self.eps_lo
            hi = x if control == "eps_hi" else self.eps_hi
            if not (0 <= lo < hi <= EPS_MAX):
                return self._fail(control, "lab.err.range", hi=EPS_MAX)
            self.param.update(eps_lo=lo, eps_hi=hi)
        elif control == "sim_n":
            if x != int(x) or not 100 <= x <= SIM_MAX:
                return self._fail("sim_n", "lab.err.sim_n", max=SIM_MAX)
            self.sim_n = int(x)
        elif control in CALIB_FIELDS:
            if not (0 < x < 100 if control in CALIB_PCT else x > 0):
                return self._fail(control, f"lab.err.{control}")
            if x != getattr(self, control):  # (the same text again leaves the group's error)
                setattr(self, control, x)
                self._calib_ok(*(f for f in CALIB_GROUPS.values() if control in f))
        else:
            raise KeyError(control)
        self._ok(control)
        return None

    def _set_data(self, text: str) -> tuple[str, dict[str, Any]] | None:
        if not self.data_editable:
            return self._fail("data", "lab.err.data_long", max=DATA_EDIT_MAX)
        parts = [p for p in str(text).replace(";", ",").replace(" ", ",").split(",") if p]
        try:
            values = [parse_number(p) for p in parts]
        except ValueError:
            return self._fail("data", "lab.err.data_number")
        if len(values) != self.n:
            return self._fail("data", "lab.err.data_len", n=self.n, got=len(values))
        if any(not 0 <= v <= self.B for v in values):
            return self._fail("data", "lab.err.value", B=fmt_input(self.B))
        self.data = values
        self._ok("data")
        return None

    def set_query(self, query: str) -> tuple[str, dict[str, Any]] | None:
        if query not in queries.QUERIES:
            return self._fail("query", "lab.err.query")
        if not self._check_h(query, self.n, self.B, self.sigma):
            return self._fail("query", "lab.err.h", lo=H_MIN, hi=H_MAX)
        self.query = query
        self._ok("query")
        return None

    def calibrate(self, kind: str) -> tuple[str, dict[str, Any]] | None:
        """Set σ from what people care about (issue 41, 3), through :meth:`set_value`:

        - ``"tpr"``: the smallest σ at which no attacker reaches a true-positive rate above
          ``calib_tpr`` % at the false-positive rate ``calib_fpr`` % (dpcore's conservative
          calibration: σ rounded up); the attacker's view moves to that FPR;
        - ``"error"``: the largest σ whose noise stays within ± ``calib_error`` (query units)
          with probability 95 % (rounded down, so the promise holds).

        Returns None or the error, stored under the group's target field (``calib_tpr`` or
        ``calib_error``); nothing changes while a field of the group holds a rejected text,
        and the state is unchanged when an error is returned.
        """
        fields = CALIB_GROUPS[kind]
        self._calib_ok(fields)
        for c in fields:  # a rejected text: its own message stays, nothing is applied
            if c in self.errors:
                key, fmt = self.errors[c]
                return key, fmt
        target = fields[0]
        d = self.sensitivity
        if d == 0:
            return self._fail(target, "lab.err.calib_const")
        try:
            if kind == "tpr":
                if not self.calib_tpr > self.calib_fpr:
                    return self._fail(target, "lab.err.calib_order")
                cal = tradeoff.calibrate_sigma_tpr(self.calib_tpr / 100.0,
                                                   self.calib_fpr / 100.0, d)
            else:
                cal = tradeoff.calibrate_sigma_error(self.calib_error, d)
        except DPError:
            return self._fail(target, "lab.err.calib_range", lo=SIGMA_MIN, hi=SIGMA_MAX)
        sigma = cal.sigma
        if not (math.isfinite(sigma) and SIGMA_MIN <= sigma <= SIGMA_MAX
                and self._check_h(self.query, self.n, self.B, sigma)):
            return self._fail(target, "lab.err.calib_range", lo=SIGMA_MIN, hi=SIGMA_MAX)
        record: dict[str, Any] = {"kind": kind, "sigma": sigma, "sens": d}
        if kind == "tpr":
            record.update(tpr=self.calib_tpr, fpr=self.calib_fpr, got=cal.tpr)
        else:
            record.update(half_width=self.calib_error)
        with param.parameterized.batch_call_watchers(self):
            err = self.set_value("sigma", sigma)
            if err is not None:  # (checked above: cannot happen)
                return err
            self.calibrated = record
            if kind == "tpr":
                self.attack_fpr = self.calib_fpr / 100.0
                self.attack_text = ""
            for c in fields:
                self._ok(c)
        return None

    def _calib_ok(self, *groups: tuple[str, ...]) -> None:
        """Clear the calibration-wide errors of ``groups`` (their first field holds them)."""
        for fields in groups:
            err = self.errors.get(fields[0])
            if err is not None and err[0] in CALIB_APPLY_ERRORS:
                self._ok(fields[0])

    def calibration_now(self) -> dict[str, Any] | None:
        return self.values().calibration_now()

    def _apply(self, **changes: Any) -> None:
        """Set n and/or B and keep D, the record index and the replacement consistent."""
        n = int(changes.get("n", self.n))
        B = float(changes.get("B", self.B))
        data = self.data
        if B != self.B and self.B > 0:
            # Rescale so that a pattern like (B, 0, B, 0) stays the same pattern.
            data = [min(B, max(0.0, v * B / self.B)) for v in data]
        data = _cycle_to(data, n, B) if len(data) != n else data
        self.param.update(
            n=n, B=B, data=data,
            record=min(self.record, n),
            replacement=min(B, max(0.0, self.replacement * (B / self.B if self.B else 1.0))),
        )
        for c in ("data", "record", "replacement"):
            self._ok(c)

    def load_preset(self, key: str) -> None:
        """Load a guided example (all controls at once, one update event)."""
        p = PRESET_BY_KEY[key]
        data = _cycle_to([p.B, 0.0], p.n, p.B)
        with param.parameterized.batch_call_watchers(self):
            self.param.update(
                query=p.query, n=p.n, B=p.B, sigma=p.sigma, eps=p.eps,
                delta=parse_number(p.delta), delta_text=p.delta, data=data, record=1,
                replacement=0.0 if data[0] > 0 else p.B,
                eps_lo=0.0, eps_hi=max(10.0, 2 * p.eps),
                errors={}, notices=[],
            )

    # ---- URL ------------------------------------------------------------------------------
    def url_query(self) -> dict[str, str]:
        """Query string of the current state (fixed names first)."""
        return self.values().url_query()

    def apply_url(self, args: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
        """Apply URL values in a safe order; each bad one keeps its default and adds a notice.

        Returns the notices (also stored in ``notices``); ``errors`` is cleared afterwards so
        the controls start clean.
        """
        notices: list[tuple[str, dict[str, Any]]] = []

        def bad(name: str, value: str) -> None:
            notices.append(("lab.url.bad", {"name": name, "value": value[:40]}))

        with param.parameterized.batch_call_watchers(self):
            if "q" in args:
                if args["q"] not in queries.QUERIES or self.set_query(args["q"]) is not None:
                    bad("q", args["q"])
            # B before n before data: data is checked against both.
            for name in ("B", "n", "sigma", "eps", "delta"):
                if name in args and self.set_text(name, args[name]) is not None:
                    bad(name, args[name])
            if "data" in args and self.set_text("data", args["data"]) is not None:
                bad("data", args["data"])
            for name, control in (("i", "record"), ("v", "replacement")):
                if name in args and self.set_text(control, args[name]) is not None:
                    bad(name, args[name])
            if "lo" in args or "hi" in args:
                lo = args.get("lo", fmt_input(self.eps_lo))
                hi = args.get("hi", fmt_input(self.eps_hi))
                try:
                    lo_x, hi_x = parse_number(lo), parse_number(hi)
                    if not 0 <= lo_x < hi_x <= EPS_MAX:
                        raise ValueError
                    self.param.update(eps_lo=lo_x, eps_hi=hi_x)
                except ValueError:
                    bad("lo/hi", f"{lo}/{hi}")
            if "scale" in args:
                if args["scale"] in SCALES:
                    self.scale = args["scale"]
                else:
                    bad("scale", args["scale"])
            self.param.update(errors={}, notices=notices)
        return notices


def plain(s: LabState | LabValues) -> LabValues:
    """``s``'s values (a view reads these, not the parameters: see :class:`LabValues`)."""
    return s.values() if isinstance(s, LabState) else s
