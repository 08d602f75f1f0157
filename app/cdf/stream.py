"""Streams and sites on /cdf: the records arrive in batches (or sit at several sites).

Each part's release acts on disjoint records, so the parts compose in parallel
(``dpcore.accounting.parallel_worst``); a person in J parts is composed J times (μ grows by √J).
PP releases combine by their weights (``dpcore.cdf.streaming.PPCombiner``); AQ re-runs on all
records seen so far (this page's design choice, stated in the CDF lesson).  A declared value
spacing h (``CDFState.granularity()``, a public choice like the bounds) is honoured by both: the
combiner rounds each batch onto the lattice and reads the merged estimate as a step CDF there
(``PPCombiner(granularity=h)``, recorded in every batch's release), AQ gets ``granularity=h``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from app.cdf.records import (
    DataUnavailable,
    DataView,
    FloatArray,
    Key,
    LedgerEntry,
    Message,
    StreamStep,
    compose_entries,
    step_of,
)
from dpcore.cdf import CDFEstimate, estimate
from dpcore.cdf.metrics import METRIC_POINTS as METRIC_POINTS  # re-exported for the page
from dpcore.cdf.metrics import RefGrid
from dpcore.cdf.metrics import ecdf as ecdf_sorted
from dpcore.cdf.streaming import PPCombiner

# Public order in which the records of a real or uploaded data set arrive in a stream (the
# files may be sorted); synthetic records are i.i.d., so their own order is used.
STREAM_ORDER_SEED = (2024, 7)


@dataclass
class Stream:
    key: Key
    group: str
    batches: list[FloatArray]
    combiner: PPCombiner
    aq: list[CDFEstimate] = field(default_factory=list)
    steps: list[StreamStep] = field(default_factory=list)
    pp_est: CDFEstimate | None = None


class CDFStream:
    """Stream and site releases of :class:`app.cdf.state.CDFState` (a mixin)."""

    if TYPE_CHECKING:  # what the page (or state) class provides
        eps: float
        delta: float
        noise_seed: int
        stream_parts: int
        stream_steps: int
        _ledgers: dict[Key, dict[Key, LedgerEntry]]

        _stream: Stream | None

        def data(self) -> DataView: ...
        def granularity(self) -> float | None: ...

    def stream_key(self, data: DataView) -> Key:
        return (data.key, float(self.eps), float(self.delta), self.noise_seed, self.stream_parts,
                self.granularity())

    def stream_problem(self) -> Message | None:
        try:
            n = self.data().n
        except DataUnavailable as exc:
            return (exc.key, exc.fmt)
        if n // self.stream_parts < 2:
            return ("cdf.stream.err.small", {"n": n, "parts": self.stream_parts})
        return None

    def stream(self) -> list[StreamStep]:
        """The stream's steps 1..stream_steps (computed once each, incrementally)."""
        if self.stream_steps == 0 or self.stream_problem() is not None:
            return []
        data = self.data()
        key = self.stream_key(data)
        st = self._stream
        if st is None or st.key != key:
            order = (np.arange(data.n) if data.synthetic else
                     np.random.default_rng(STREAM_ORDER_SEED).permutation(data.n))
            batches = np.array_split(np.asarray(data.x)[order], self.stream_parts)
            group = f"stream{hash(key) & 0xFFFFFFFF:08x}"
            st = Stream(key, group, batches,
                         PPCombiner(bounds=data.bounds, eps=self.eps, delta=self.delta,
                                    granularity=key[-1]))
            self._stream = st
        steps = min(self.stream_steps, self.stream_parts)
        while len(st.steps) < steps:
            self._stream_step(data, st)
        return st.steps[:steps]

    def stream_estimates(self) -> tuple[CDFEstimate, CDFEstimate] | None:
        """(PP merged, AQ latest) at the current step, or None."""
        steps = self.stream()
        if not steps or self._stream is None:
            return None
        st = self._stream
        j = len(steps)
        if j == len(st.steps) and st.pp_est is not None:
            return st.pp_est, st.aq[j - 1]
        pp_est = PPCombiner(bounds=st.combiner.bounds, eps=st.combiner.eps,
                            delta=st.combiner.delta, granularity=st.combiner.granularity,
                            releases=list(st.combiner.releases[:j]),
                            n_off_lattice=list(st.combiner.n_off_lattice[:j])).estimate()
        return pp_est, st.aq[j - 1]

    def stream_reference(self) -> Callable[[FloatArray], FloatArray]:
        """Reference for the stream plot: population CDF, or eCDF of the records seen so far."""
        data = self.data()
        steps = self.stream()
        if data.synthetic or not steps or self._stream is None:
            return data.ref.reference
        lo, hi = data.bounds
        seen = np.concatenate(self._stream.batches[: len(steps)])
        return ecdf_sorted(np.clip(seen, lo, hi))

    def _stream_step(self, data: DataView, st: Stream) -> None:
        j = len(st.steps)  # 0-based index of the new batch
        lo, hi = data.bounds
        seen = np.concatenate(st.batches[: j + 1])
        if data.synthetic:
            ref = data.ref
        else:
            ref = RefGrid(ecdf_sorted(np.clip(seen, lo, hi)), lo, hi)
        t0 = time.perf_counter()
        rel = st.combiner.add_batch(st.batches[j], rng=np.random.default_rng(
            [self.noise_seed, 14, j]))
        pp_est = st.combiner.estimate()
        pp_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        aq = estimate(seen, bounds=data.bounds, eps=self.eps, delta=self.delta, method="aq",
                      granularity=st.combiner.granularity,
                      rng=np.random.default_rng([self.noise_seed, 15, j]))
        aq_s = time.perf_counter() - t0
        st.aq.append(aq)
        led = self._ledgers.setdefault(data.source, {})
        led.setdefault(("stream-pp", st.key, j),
                       LedgerEntry("stream-pp", step_of(rel), st.group, frozenset({j})))
        led.setdefault(("stream-aq", st.key, j),
                       LedgerEntry("stream-aq", step_of(aq.release), st.group,
                                   frozenset(range(j + 1))))
        entries = [e for k, e in led.items() if k[0] in ("stream-pp", "stream-aq")
                   and k[1] == st.key and k[2] <= j]
        pp_cost = compose_entries([e for e in entries if e.label == "stream-pp"])
        aq_cost = compose_entries([e for e in entries if e.label == "stream-aq"])
        st.steps.append(StreamStep(
            batch=j + 1, seen=int(seen.size), batch_size=int(st.batches[j].size),
            pp=ref.distances(pp_est), aq=ref.distances(aq), pp_seconds=pp_s, aq_seconds=aq_s,
            pp_cost=pp_cost.at_delta(self.delta), aq_cost=aq_cost.at_delta(self.delta)))
        st.pp_est = pp_est
