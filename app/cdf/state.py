"""State of the /cdf page: data sources, releases, the privacy ledger, degree, streams, URL.

No Panel here (param + numpy + dpcore only), so every rule is unit-tested without a browser
(tests/app/cdf/test_cdf_state.py, tests/app/cdf/test_cdf_state_fuzz.py).

Releases.  A *release* is one run of a dpcore estimator on the current data with the current
eps, delta, method and noise seed.  The same inputs and seeds reproduce the same output, so a
repeated key reveals nothing new and is counted once.  The degree of a polynomial-projection
(PP) release is post-processing of its noisy coefficients: moving it never makes a release.

Ledger.  One ledger per *data source*: a synthetic family with its data seed (whatever n: the
samples for different n share records), a real data set, or an uploaded file (by content, so
every column of it).  Gaussian releases compose exactly (mu = sqrt(sum mu_i^2), GDP), the others
by basic composition (``dpcore.accounting.compose``); the total is read at the current delta.
Stream / site releases act on disjoint parts of the records and are composed per part
(parallel composition, ``accounting.parallel_worst``).

Not private (and labelled so on the page): the reference CDF, every error figure, and, in the
teacher view only, the exact clip counts.  The noise seed makes draws reproducible for teaching;
a real release draws its noise from a secret source.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from functools import lru_cache
from typing import Any

import numpy as np
import param

from app.cdf import upload as cdf_upload
from app.cdf.inputs import (
    DATA_CHOICES,
    DEGREE_MAX,
    DELTA_RANGE,
    EPS_RANGE,
    METHOD_CHOICES,
    METHODS,
    N_RANGE,
    PARTS_RANGE,
    PLOT_POINTS,
    SEED_MAX,
    STREAM_MODES,
    TABLE_PROBS,
    UPLOAD,
    CDFInputs,
    lattice_message,
)
from app.cdf.methods import release_options
from app.cdf.records import (
    DataUnavailable,
    DataView,
    DegreeInfo,
    FloatArray,
    Key,
    LedgerEntry,
    LedgerView,
    Message,
    MethodRow,
    ReleaseShape,
    compose_entries,
    release_shape,
    step_of,
)
from app.cdf.stream import CDFStream, Stream
from dpcore.cdf import REGISTRY, AutoPlan, CDFEstimate, estimate, legendre
from dpcore.cdf.common import clip_data
from dpcore.cdf.datasets import SYNTHETIC, load_real, population_cdf, sample
from dpcore.cdf.degree_errors import DegreeErrors, degree_errors, integral_sq_ecdf
from dpcore.cdf.metrics import METRIC_POINTS as METRIC_POINTS  # re-exported for the page
from dpcore.cdf.metrics import Distances, RefGrid
from dpcore.cdf.metrics import ecdf as ecdf_sorted


@lru_cache(maxsize=6)
def _synthetic(family: str, n: int, seed: int) -> FloatArray:
    # Public synthetic data: shared between sessions is fine (nothing private in it).  The draw
    # is the one the lessons reproduce: sample(family, n, default_rng([seed, 11])).
    x = sample(family, n, np.random.default_rng([seed, 11]))
    x.setflags(write=False)
    return x


# ---------------------------------------------------------------------------------------------
# the state
# ---------------------------------------------------------------------------------------------
class CDFState(CDFInputs, CDFStream, param.Parameterized):
    """Everything the /cdf page shows is a function of these parameters and the session ledger."""

    dataset: str = param.Selector(  # type: ignore[assignment]
       default="bimodal", objects=list(DATA_CHOICES),
                             doc="Data source: a synthetic family, a real data set or the upload.")
    n = param.Integer(default=10_000, bounds=N_RANGE,
                      doc="Number of synthetic records (public); real data use all records.")
    data_seed = param.Integer(default=1, bounds=(0, SEED_MAX),
                              doc="Which class data set of a synthetic family (a new one is a "
                                  "fresh data source with a fresh ledger).")
    eps = param.Number(default=1.0, bounds=EPS_RANGE,
                       doc="Privacy parameter epsilon of one release (no unit).")
    delta = param.Number(default=1e-6, bounds=DELTA_RANGE,
                         doc="Privacy parameter delta of one release; the ledger total is "
                             "read at this delta.")
    method: str = param.Selector(  # type: ignore[assignment]
       default="pp", objects=list(METHOD_CHOICES),
                            doc="Estimator, or 'all' for every estimator side by side.")
    noise_seed = param.Integer(default=1, bounds=(0, SEED_MAX),
                               doc="Seed of the privacy noise (teaching only; a new seed is a new "
                                   "release).")
    auto_degree = param.Boolean(default=True,
                                doc="PP: use the automatic degree (and shrinkage) of the release.")
    degree = param.Integer(default=10, bounds=(0, DEGREE_MAX),
                           doc="PP: degree used when auto_degree is off (post-processing).")
    lattice = param.Boolean(default=False,
                            doc="Public fact: the values are multiples of lattice_h from the "
                                "lower bound (real data and uploads; synthetic data ignore it).")
    lattice_h = param.Number(default=1.0, bounds=(0.0, 1e15), inclusive_bounds=(False, True),
                             doc="The public value spacing h (1: whole numbers).")
    teacher = param.Boolean(default=False,
                            doc="Teacher view: also show exact clip counts (NOT private).")
    upload_column = param.String(default="", doc="Column of the uploaded file that is used.")
    upload_lo = param.Number(default=None, allow_None=True, bounds=(-1e15, 1e15),
                             doc="Public lower bound for the uploaded column (student's choice).")
    upload_hi = param.Number(default=None, allow_None=True, bounds=(-1e15, 1e15),
                             doc="Public upper bound for the uploaded column (student's choice).")
    upload_unit = param.String(default="", doc="Unit of the uploaded column (free text).")
    stream_mode: str = param.Selector(  # type: ignore[assignment]
       default="batches", objects=list(STREAM_MODES),
                                 doc="Streaming: batches over time, or sites holding parts.")
    stream_parts = param.Integer(default=5, bounds=PARTS_RANGE,
                                 doc="Number of equal batches (or sites) the records come in.")
    stream_steps = param.Integer(default=0, bounds=(0, PARTS_RANGE[1]),
                                 doc="Batches (or sites) added so far.")

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        # Everything below is per session (this object): uploads never leave it.
        self._upload: cdf_upload.UploadTable | None = None
        self._ledgers: dict[Key, dict[Key, LedgerEntry]] = {}
        self._source_labels: dict[Key, tuple[str, dict[str, Any]]] = {}
        self._data: OrderedDict[Key, DataView] = OrderedDict()
        self._est: OrderedDict[Key, tuple[CDFEstimate, float]] = OrderedDict()
        self._deg: OrderedDict[Key, CDFEstimate] = OrderedDict()
        self._derr: OrderedDict[Key, DegreeErrors] = OrderedDict()
        self._coef: OrderedDict[Key, tuple[FloatArray, float]] = OrderedDict()
        self._stream: Stream | None = None

    # ---- data ---------------------------------------------------------------------------------
    @property
    def is_synthetic(self) -> bool:
        return self.dataset in SYNTHETIC

    @property
    def upload(self) -> cdf_upload.UploadTable | None:
        return self._upload

    def upload_problem(self) -> Message | None:
        """Why the upload cannot be used yet (None when it can)."""
        if self._upload is None:
            return ("cdf.up.err.none", {})
        try:
            col = self._upload.column(self.upload_column)
        except KeyError:
            return ("cdf.up.err.pick", {})
        p = col.problem()
        if p is not None:
            return (p.key, p.fmt)
        b = cdf_upload.check_bounds(self.upload_lo, self.upload_hi)
        if b is not None:
            return (b.key, b.fmt)
        return None

    def data(self) -> DataView:
        """The current data; DataUnavailable for an upload that is not ready."""
        if self.is_synthetic:
            key: Key = ("syn", self.dataset, self.data_seed, self.n)
        elif self.dataset == UPLOAD:
            prob = self.upload_problem()
            if prob is not None:
                raise DataUnavailable(*prob)
            assert self._upload is not None
            key = ("upload", self._upload.digest, self.upload_column, self.upload_lo,
                   self.upload_hi)
        else:
            key = ("real", self.dataset)
        hit = self._data.get(key)
        if hit is not None:
            self._data.move_to_end(key)
            return hit
        view = self._make_data(key)
        self._data[key] = view
        while len(self._data) > 3:
            self._data.popitem(last=False)
        return view

    def _make_data(self, key: Key) -> DataView:
        if key[0] == "syn":
            x = _synthetic(self.dataset, self.n, self.data_seed)
            source: Key = ("syn", self.dataset, self.data_seed)
            self._source_labels[source] = ("cdf.source.synthetic",
                                           {"family": self.dataset, "seed": self.data_seed})
            return DataView(x, (0.0, 1.0), "", source, key, True,
                            RefGrid(population_cdf(self.dataset), 0.0, 1.0))
        if key[0] == "upload":
            assert self._upload is not None
            x = self._upload.column(self.upload_column).values
            lo, hi = float(self.upload_lo), float(self.upload_hi)  # type: ignore[arg-type]
            source = ("upload", self._upload.digest)
            self._source_labels[source] = ("cdf.source.upload", {"name": self._upload.filename})
            return DataView(x, (lo, hi), "", source, key, False,
                            RefGrid(ecdf_sorted(np.clip(x, lo, hi)), lo, hi))
        real = load_real(self.dataset)
        x = np.asarray(real.values)
        lo, hi = real.bounds
        source = ("real", self.dataset)
        self._source_labels[source] = ("cdf.source.real", {"name": self.dataset})
        return DataView(x, (lo, hi), real.unit, source, key, False,
                        RefGrid(ecdf_sorted(np.clip(x, lo, hi)), lo, hi))

    def unit(self) -> str:
        """Unit of the current data: "" (none), "years", "g" or what a student typed."""
        if self.dataset == UPLOAD:
            return self.upload_unit.strip()[:20]
        try:
            return self.data().unit
        except DataUnavailable:
            return ""

    def data_bounds(self) -> tuple[float, float] | None:
        """Public bounds of the current data (None while an upload is not ready)."""
        try:
            return self.data().bounds
        except DataUnavailable:
            return None

    def lattice_problem(self) -> Message | None:
        """Why the ticked value spacing is not used on the current data (None: used or off)."""
        if not self.lattice or self.is_synthetic:
            return None
        bounds = self.data_bounds()
        return None if bounds is None else lattice_message(bounds, self.lattice_h)

    def granularity(self) -> float | None:
        """The public value spacing h every release on the current data uses, or None."""
        if not self.lattice or self.is_synthetic or self.data_bounds() is None:
            return None
        return None if self.lattice_problem() is not None else float(self.lattice_h)

    def data_n(self) -> int:
        """n of the current data (the n parameter only applies to synthetic data)."""
        if self.is_synthetic:
            return self.n
        try:
            return self.data().n
        except DataUnavailable:
            return 0

    # ---- releases -----------------------------------------------------------------------------
    def _release_key(self, data: DataView, method: str) -> Key:
        return (data.key, float(self.eps), float(self.delta), method, self.noise_seed,
                self.granularity())

    def release(self, method: str | None = None) -> CDFEstimate:
        """The release of ``method`` (default: the page's) on the current data; ledgered once."""
        return self._release(method)[0]

    def _release(self, method: str | None = None) -> tuple[CDFEstimate, float]:
        m = method or (self.method if self.method != "all" else "pp")
        data = self.data()
        key = self._release_key(data, m)
        hit = self._est.get(key)
        if hit is not None:
            self._est.move_to_end(key)
            return hit
        opts: dict[str, Any] = release_options(m)
        gran = key[-1]
        if gran is not None:
            opts["granularity"] = gran
        t0 = time.perf_counter()
        est = estimate(data.x, bounds=data.bounds, eps=self.eps, delta=self.delta, method=m,
                       rng=np.random.default_rng([self.noise_seed, 12]), **opts)
        seconds = time.perf_counter() - t0
        self._record(data.source, ("main", *key), LedgerEntry(m, step_of(est.release)))
        self._est[key] = (est, seconds)
        while len(self._est) > 24:
            self._est.popitem(last=False)
        return est, seconds

    def _record(self, source: Key, key: Key, entry: LedgerEntry) -> None:
        self._ledgers.setdefault(source, {}).setdefault(key, entry)

    def auto_plan(self) -> AutoPlan | None:
        """The automatic method's plan (public: from n, eps, delta) when method is auto."""
        if self.method != "auto":
            return None
        return self.release("auto").info.get("plan")

    def shape_of(self, est: CDFEstimate) -> ReleaseShape:
        """What ``est`` released (tree, histogram, PP, MP, AQ) from its public record."""
        plan = est.info.get("plan")
        return release_shape(est, plan.method if plan is not None else "")

    def release_shape(self) -> ReleaseShape | None:
        """The shown release's structure (None for "all methods" or without data)."""
        if self.method == "all":
            return None
        try:
            return self.shape_of(self.current())
        except DataUnavailable:
            return None

    # ---- degree -------------------------------------------------------------------------------
    def _degree_release(self) -> CDFEstimate | None:
        """The shown release when it has a degree (post-processing): PP's, or an automatic
        plan's PP; under "all", PP's (the slider moves its curve)."""
        m = "pp" if self.method == "all" else self.method
        if not REGISTRY[m].degree:
            return None
        est = self.release(m)
        return est if est.degree is not None else None

    def degree_info(self) -> DegreeInfo:
        try:
            est = self._degree_release()
        except DataUnavailable:
            return DegreeInfo(False, "no_data", 0, 0, 0, False)
        if est is None:
            reason = "method"
            if self.method == "auto":
                plan = self.auto_plan()
                reason = "tree" if plan is not None and plan.method == "tree" else "histogram"
            return DegreeInfo(False, reason, 0, 0, 0, False)
        k_max = int(est.release.values.size - 1)
        auto_k = int(est.degree or 0)
        if self.auto_degree:
            return DegreeInfo(True, "", k_max, auto_k, auto_k, False)
        return DegreeInfo(True, "", k_max, auto_k, min(self.degree, k_max), self.degree > k_max)

    def _at_degree(self, est: CDFEstimate) -> CDFEstimate:
        info = self.degree_info()
        if not info.available or self.auto_degree:
            return est
        key = (id(est.release), info.in_use)
        hit = self._deg.get(key)
        if hit is not None and hit.release is est.release:
            return hit
        out = est.with_degree(info.in_use)
        self._deg[key] = out
        while len(self._deg) > 64:
            self._deg.popitem(last=False)
        return out

    def current(self) -> CDFEstimate:
        """The shown private CDF: the release, at the chosen degree (no privacy cost)."""
        est = self._degree_release()
        if est is None:
            return self.release()
        return self._at_degree(est)

    def _data_coefficients(self, data: DataView, k_max: int) -> tuple[FloatArray, float]:
        """Exact Legendre coefficients of the records' eCDF and int F_n^2 (NOT private)."""
        key = (data.key, k_max)
        hit = self._coef.get(key)
        if hit is None:
            t = clip_data(data.x, data.bounds).t
            hit = (legendre.coefficients(t, k_max), integral_sq_ecdf(t))
            self._coef[key] = hit
            while len(self._coef) > 4:
                self._coef.popitem(last=False)
        return hit

    def degree_errors(self) -> DegreeErrors | None:
        """Error against degree for the PP-type release (None without a degree)."""
        try:
            est = self._degree_release()
        except DataUnavailable:
            return None
        if est is None:
            return None
        rel = est.release
        key = (self._release_key(self.data(), "pp" if self.method == "all" else self.method),)
        hit = self._derr.get(key)
        if hit is not None:
            return hit
        c, fn2 = self._data_coefficients(self.data(), int(rel.values.size - 1))
        out = degree_errors(rel.values, rel.extra["noise_sd"], c, fn2)
        self._derr[key] = out
        while len(self._derr) > 8:
            self._derr.popitem(last=False)
        return out

    # ---- what the page shows ------------------------------------------------------------------
    def metrics(self) -> Distances:
        return self.data().ref.distances(self.current())

    def curves(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(points, private CDF, reference CDF) on PLOT_POINTS points across the bounds."""
        data = self.data()
        lo, hi = data.bounds
        pts = np.linspace(lo, hi, PLOT_POINTS)
        return pts, self.current()(pts), np.asarray(data.ref.reference(pts), dtype=float)

    def table_points(self) -> list[tuple[float, float, float]]:
        """(x, private F(x), reference F(x)) where the reference first reaches 10..90 %."""
        pts, f_priv, f_ref = self.curves()
        out = []
        for p in TABLE_PROBS:
            i = min(int(np.searchsorted(f_ref, p)), pts.size - 1)
            out.append((float(pts[i]), float(f_priv[i]), float(f_ref[i])))
        return out

    def compare(self) -> list[MethodRow]:
        """Every method, each its own release (ledgered), on the same data, eps and delta."""
        data = self.data()
        rows = []
        for m in METHODS:
            est, seconds = self._release(m)
            shown = self._at_degree(est) if m == "pp" else est
            rows.append(MethodRow(m, shown, seconds, data.ref.distances(shown)))
        return rows

    # ---- ledger -------------------------------------------------------------------------------
    def sources(self) -> list[Key]:
        return list(self._ledgers)

    def source_label(self, source: Key) -> tuple[str, dict[str, Any]]:
        return self._source_labels.get(source, ("cdf.source.unknown", {}))

    def ledger(self, source: Key | None = None) -> LedgerView:
        """The ledger of a data source (default: the current one), read at the current delta."""
        if source is None:
            source = self.data().source
        entries = list(self._ledgers.get(source, {}).values())
        comp = compose_entries(entries)
        total = comp.at_delta(self.delta)
        if comp.count == 0:
            rule = "none"
        elif comp.gaussian_count == comp.count:
            rule = "gdp"
        elif comp.gaussian_count == 0:
            rule = "basic"
        else:
            rule = "mixed"
        return LedgerView(source, len(entries), comp.count, comp, total, rule)

    def new_class_data(self) -> None:
        """A fresh synthetic data set of the same family: a new data source, a new ledger."""
        if not self.is_synthetic:
            return
        used = {s[2] for s in self._ledgers if s[0] == "syn" and s[1] == self.dataset}
        seed = self.data_seed + 1
        while seed in used and seed < SEED_MAX:
            seed += 1
        self.data_seed = min(seed, SEED_MAX)

    def new_noise(self) -> None:
        """Fresh noise: a new release on the same data (the ledger grows)."""
        self.noise_seed = (self.noise_seed + 1) % (SEED_MAX + 1)

    # ---- uploads ------------------------------------------------------------------------------
    def load_upload(self, filename: str, payload: bytes) -> Message | None:
        """Parse an upload into this session's memory; on success switch the page to it.

        Returns (key, fmt) of the problem, or None.  A failed upload leaves the state as it was.
        """
        try:
            table = cdf_upload.parse(filename, payload)
        except cdf_upload.UploadError as exc:
            return (exc.key, exc.fmt)
        self._upload = table
        self._data.clear()
        with param.parameterized.batch_call_watchers(self):
            self.upload_lo = None
            self.upload_hi = None
            self.upload_column = table.first_usable()
            self.dataset = UPLOAD
        return None

    def forget_upload(self) -> None:
        """Drop the upload from memory (the session ended, or the student removed it)."""
        self._upload = None
        for k in [k for k in self._data if k[0] == "upload"]:
            del self._data[k]
        for k in [k for k in self._est if k[0][0] == "upload"]:
            del self._est[k]
        self._coef.clear()
        self._derr.clear()
        self._deg.clear()
        self._stream = None
        if self.dataset == UPLOAD:
            self.dataset = "bimodal"

    def discard(self) -> None:
        """The session ended: drop the upload and every cached array (no parameter changes,
        so no view is refreshed for a page that is gone)."""
        self._upload = None
        self._data.clear()
        self._est.clear()
        self._coef.clear()
        self._derr.clear()
        self._deg.clear()
        self._stream = None

    def data_range(self) -> tuple[float, float] | None:
        """min and max of the uploaded column: NOT private (they are two of the records)."""
        if self._upload is None:
            return None
        try:
            col = self._upload.column(self.upload_column)
        except KeyError:
            return None
        if col.values.size == 0:
            return None
        return float(col.values.min()), float(col.values.max())

    # ---- the address --------------------------------------------------------------------------
    URL_NAMES = ("data", "n", "eps", "delta", "method", "degree", "seed")
    URL_EXTRA = ("dseed", "teacher", "stream", "parts", "batches", "gran")




