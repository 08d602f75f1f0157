"""Private polls of a room and the class's own private CDF: the numbers, without any page.

Polls (randomized response, local DP)
    A student's browser (assets/dplab-poll.js) keeps the true answer with probability
    ``p = e^ε / (e^ε + k − 1)`` and otherwise sends one of the k − 1 other options uniformly
    (k = 2: the opposite). Only that randomized option leaves the browser. For any two true
    answers a, b and any report r, P[r | a] / P[r | b] ≤ e^ε: each answer is ε-LDP (Warner 1965;
    Kairouz-Oh-Viswanath 2016 for k-ary RR). A student's loss over the room's local polls is
    the sum of the ε of the polls they answered (basic composition).

    Estimate of the class's share of option j from the reported share ȳ_j:
    ``π̂_j = (ȳ_j − q) / (p − q)`` with ``q = (1 − p) / (k − 1)``; for k = 2 this is
    ``(ȳ − (1 − p)) / (2p − 1)``. Unbiased for the class's own share (the truths are fixed,
    only the flips are random). Its variance: for k = 2 exactly ``p(1 − p) / (n (2p − 1)²)``
    whatever the truths; for k > 2 ``(π p(1 − p) + (1 − π) q(1 − q)) / (n (p − q)²)`` with π
    replaced by π̂ clipped to [0, 1]. The 95 % interval is ``π̂ ± 1.96 · sd`` (normal
    approximation of a sum of n independent Bernoulli reports), then clipped to [0, 1] (and
    said so).

Central model (the same question, answers sent to the server)
    The server counts the true answers and releases each count once, with Gaussian noise of
    σ = ``dpcore.gaussian.calibrate_sigma(ε, δ, Δ₂)`` (Δ₂ = 1 for a yes/no count, √2 for the
    histogram of k options: replace-one moves one answer from one option to another) or
    Laplace noise of scale b = Δ₁ / ε (Δ₁ = 1, or 2). Share = noisy count / n, interval
    ± 1.96 σ / n (Gaussian) or ± b ln 20 / n (Laplace, exact), clipped to [0, 1].

The number of answers n is public in both models (replace-one neighbours, public n): it is
shown as it is, labelled as not protected.

The class's CDF
    ``dpcore.cdf.estimate`` on the values sent (public range [lo, hi], replace-one neighbours,
    public n), with an explicit method (default "pp", Gaussian noise on the shifted-Legendre
    coefficients, L2 sensitivity 1/n). Every release is a step of the room's ledger: Gaussian
    releases are composed exactly in GDP, the others by basic composition
    (``dpcore.accounting.compose``), as on /cdf.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from app.room.kinds import DEFAULT_KIND, MAX_CHOICES, MIN_CHOICES, poll_kind
from app.room.records import (
    Answer,
    Ask,
    CdfRelease,
    CentralRelease,
    Estimate,
    LedgerStep,
    Poll,
    PollResults,
    ReleasedOption,
)
from dpcore import accounting, gaussian
from dpcore import randomized_response as rr

Z95 = rr.Z95  # the 97.5 % point of the standard normal
EPS_MAX = 10.0
QUESTION_MAX = 300
OPTION_MAX = 80
FEW_ANSWERS = 10  # below this the interval is too wide to read (said on the projector)
DEFAULT_EPS = math.log(3.0)
DEFAULT_DELTA = 1e-5
MODELS = ("local", "central")
MECHANISMS = ("gaussian", "laplace")
CDF_METHODS = ("pp", "hq", "aq", "mp", "tree")
CDF_K_MAX = 12  # released Legendre degrees for a class (tens of values: high noise)
CURVE_POINTS = 121
VALUE_MIN_N = 2
# Prepared questions (catalogue keys poll.preset.<name>): each student reads their language.
PRESETS = ("homework", "exam", "sleep", "phone")


class PollError(ValueError):
    """Bad teacher input: ``field`` names the form field, ``key`` the catalogue message."""

    def __init__(self, field: str, key: str, **fmt: Any) -> None:
        super().__init__(key)
        self.field, self.key, self.fmt = field, key, fmt


# ---------------------------------------------------------------------------------------------
# randomized response


# The mathematics is dpcore's (dpcore/randomized_response.py, docs/math.md); these names stay
# for the room's pages.
def keep_probability(eps: float, k: int = 2) -> float:
    """P[the true answer is sent] of k-ary randomized response at ``eps``."""
    return rr.keep_probability(eps, k)


def other_probability(eps: float, k: int = 2) -> float:
    """P[a given other option is sent]: (1 − p) / (k − 1)."""
    return rr.other_probability(eps, k)


def likelihood_ratio(eps: float, k: int = 2) -> float:
    """The largest P[r | a] / P[r | b] over reports r and truths a ≠ b: e^ε exactly."""
    return rr.likelihood_ratio(eps, k)


def _interval(est: float, half: float) -> tuple[float, float, bool]:
    lo, hi = est - half, est + half
    clipped = lo < 0.0 or hi > 1.0
    return max(0.0, min(1.0, lo)), max(0.0, min(1.0, hi)), clipped


def local_estimates(counts: Sequence[int], eps: float) -> list[Estimate]:
    """Per option: the debiased share of k-ary randomized response and its 95 % interval
    (dpcore.randomized_response.estimate_shares)."""
    return [Estimate(s.reported, s.raw_share, s.estimate, s.sd, s.lo, s.hi, s.clipped)
            for s in rr.estimate_shares(counts, eps)]


def local_sd(eps: float, n: int, k: int = 2) -> float:
    """sd of the binary estimate (exact, any truths); for k > 2 at π = 1/2 (the widest)."""
    return rr.share_sd(eps, n, k)


def central_scale(eps: float, delta: float, mech: str, k: int = 2) -> tuple[float, float]:
    """(noise scale, sensitivity): σ from dpcore's exact calibration, or Laplace b = Δ₁/ε."""
    if mech == "gaussian":
        sens = 1.0 if k == 2 else math.sqrt(2.0)
        return gaussian.calibrate_sigma(eps, delta, sens), sens
    sens = 1.0 if k == 2 else 2.0
    return sens / eps, sens


def central_half_width(eps: float, delta: float, mech: str, n: int, k: int = 2) -> float:
    """Half width of the central model's 95 % interval of a share (count noise / n)."""
    scale, _ = central_scale(eps, delta, mech, k)
    return (Z95 * scale if mech == "gaussian" else scale * math.log(20.0)) / n


def central_release(counts: Sequence[int], eps: float, delta: float, mech: str,
                    rng: np.random.Generator | None = None) -> CentralRelease:
    """Release the true counts once with calibrated noise; the true counts are not returned."""
    k, n = len(counts), sum(counts)
    rng = rng if rng is not None else np.random.default_rng(secrets.randbits(128))
    scale, sens = central_scale(eps, delta, mech, k)
    if mech == "gaussian":
        noise = rng.normal(0.0, scale, size=k)
    else:
        noise = rng.laplace(0.0, scale, size=k)
    noisy = [float(c + z) for c, z in zip(counts, noise, strict=True)]
    half = central_half_width(eps, delta, mech, max(n, 1), k)
    ests = []
    for c in noisy:
        est = c / n if n else math.nan
        lo, hi, clipped = _interval(est, half) if n else (0.0, 1.0, True)
        ests.append(ReleasedOption(c, est, lo, hi, clipped))
    return CentralRelease(mech, scale, sens, n, tuple(ests), eps,
                          delta if mech == "gaussian" else 0.0)


def central_step(release: CentralRelease | Mapping[str, Any]) -> accounting.Step:
    """The ledger step of a central poll release (or of its fields: mech, sensitivity, scale,
    eps, delta)."""
    rel = release.to_dict() if isinstance(release, CentralRelease) else release
    if rel["mech"] == "gaussian":
        return accounting.Step.gaussian(float(rel["sensitivity"]), float(rel["scale"]),
                                        float(rel["eps"]), float(rel["delta"]))
    return accounting.Step(float(rel["eps"]), 0.0)


# ---------------------------------------------------------------------------------------------
# teacher input


def parse_eps(text: str | None, field: str = "eps") -> float:
    """ε from a form field: a number in (0, 10]."""
    try:
        eps = float((text or "").strip().replace(",", "."))
    except ValueError:
        raise PollError(field, "poll.err.eps") from None
    if not math.isfinite(eps) or not 0.0 < eps <= EPS_MAX:
        raise PollError(field, "poll.err.eps")
    return eps


def parse_delta(text: str | None, field: str = "delta") -> float:
    """δ from a form field: a number in (0, 0.1]."""
    try:
        d = float((text or "").strip().replace(",", "."))
    except ValueError:
        raise PollError(field, "poll.err.delta") from None
    if not math.isfinite(d) or not 0.0 < d <= 0.1:
        raise PollError(field, "poll.err.delta")
    return d


def parse_question(text: str | None, preset: str | None, field: str = "question") -> tuple[
        str, str]:
    """(question typed, preset name): a typed question wins; one of them is needed."""
    q = " ".join((text or "").split())
    if len(q) > QUESTION_MAX:
        raise PollError(field, "poll.err.question_long", limit=QUESTION_MAX)
    if q:
        return q, ""
    if preset in PRESETS:
        return "", str(preset)
    raise PollError(field, "poll.err.question_empty")


def parse_choices(text: str | None, lo: int = MIN_CHOICES, hi: int = MAX_CHOICES) -> list[str]:
    """The options a teacher typed: one per line, ``lo`` to ``hi`` of them (a kind's bounds,
    app/room/kinds.py), each at most 80 characters, no two alike."""
    opts = [" ".join(line.split()) for line in (text or "").splitlines()]
    opts = [o for o in opts if o]
    if not lo <= len(opts) <= hi or any(len(o) > OPTION_MAX for o in opts) \
            or len(set(opts)) != len(opts):
        raise PollError("choices", "poll.err.choices", lo=lo, hi=hi, limit=OPTION_MAX)
    return opts


def parse_options(kind: str, text: str | None) -> list[str]:
    """The typed options a poll of ``kind`` needs (none for a kind with fixed options, or
    for no such kind: :func:`new_poll` refuses that)."""
    pk = poll_kind(kind)
    if pk is None or pk.choices is None:
        return []
    return parse_choices(text, *pk.choices)


def new_poll(*, question: str, preset: str, eps: float, model: str = "local",
             kind: str = DEFAULT_KIND, options: Sequence[str] = (),
             delta: float = DEFAULT_DELTA, mech: str = "gaussian", now: float = 0.0) -> Poll:
    pk = poll_kind(kind)
    if model not in MODELS or pk is None or mech not in MECHANISMS:
        raise PollError("model", "poll.err.model")
    return Poll(id=secrets.token_hex(6), question=question, preset=preset, eps=float(eps),
                model=model, kind=pk.name, k=pk.size(options),
                options=tuple(options) if pk.typed else (),
                delta=float(delta) if model == "central" and mech == "gaussian" else 0.0,
                mech=mech if model == "central" else "rr", open=True, opened=now)


def option_index(poll: Poll, sent: Any) -> int | None:
    """The option a student's request names (by the poll's kind: "yes"/"no" for a yes/no
    poll, 0..k-1 for typed options); else None."""
    return poll.poll_kind.option_index(sent, poll.k)


def tally(answers: Mapping[str, str], k: int) -> list[int]:
    """Reports per option among a poll's stored answers (anything else is ignored)."""
    counts = [0] * k
    for text in answers.values():
        a = Answer.from_json(text)
        if a is not None and a.option < k:
            counts[a.option] += 1
    return counts


def results(poll: Poll, answers: Mapping[str, str]) -> PollResults:
    """What the projector, the JSON API and the export show of a poll (no true answer of a
    local poll exists anywhere; the central counts are shown only once released, noisy)."""
    k, eps = poll.k, poll.eps
    counts = tally(answers, k)
    n = sum(counts)
    ests = local_estimates(counts, eps) if poll.local else []
    rel = None if poll.local else poll.released  # the true counts are never shown
    estimate: float | None = None
    ci95: tuple[float, float] | None = None
    if poll.local:
        estimate, ci95 = (ests[0].estimate, ests[0].ci95) if n else (None, None)
        clipped = ests[0].clipped
    elif rel is not None:
        first = rel.options[0]
        estimate, ci95, clipped = first.estimate, first.ci95, first.clipped
    else:
        clipped = False
    return PollResults(
        id=poll.id, model=poll.model, kind=poll.kind, question=poll.question,
        preset=poll.preset, eps=eps, n=n, open=poll.open, few=n < FEW_ANSWERS,
        keep_probability=keep_probability(eps, k), likelihood_ratio=likelihood_ratio(eps, k),
        options=poll.options,
        reported=dict(zip(poll.poll_kind.keys(k), counts, strict=True)) if poll.local else None,
        per_option=tuple(ests), estimate=estimate, ci95=ci95, clipped=clipped,
        delta=0.0 if poll.local else poll.delta, mech="" if poll.local else poll.mech,
        released=rel)


def comparison(eps: float, delta: float, n: int, k: int = 2) -> dict[str, float]:
    """The two models' 95 % half widths at the same ε and n: local randomized response against
    the central Laplace count (both pure ε-DP) and the central Gaussian count at δ; and how many
    students the local model would need for the central Laplace width."""
    n = max(1, n)
    loc = Z95 * local_sd(eps, n, k)
    cen = central_half_width(eps, 0.0, "laplace", n, k)
    gau = central_half_width(eps, delta, "gaussian", n, k)
    return {"local": loc, "central": cen, "gaussian": gau, "ratio": loc / cen,
            "n_needed": (loc / cen) ** 2 * n}


# ---------------------------------------------------------------------------------------------
# the class's numbers and their CDF


def parse_range(lo_text: str | None, hi_text: str | None) -> tuple[float, float]:
    try:
        lo = float((lo_text or "").strip().replace(",", "."))
        hi = float((hi_text or "").strip().replace(",", "."))
    except ValueError:
        raise PollError("lo", "poll.err.range") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
        raise PollError("lo", "poll.err.range")
    return lo, hi


def parse_value(sent: Any, lo: float, hi: float) -> float | None:
    """A student's number: finite and inside [lo, hi] (else None: 400)."""
    if isinstance(sent, bool) or not isinstance(sent, (int, float, str)):
        return None
    try:
        x = float(sent)
    except ValueError:
        return None
    return x if math.isfinite(x) and lo <= x <= hi else None


def new_ask(*, question: str, preset: str, lo: float, hi: float, unit: str,
            now: float = 0.0) -> Ask:
    return Ask(id=secrets.token_hex(6), question=question, preset=preset, lo=lo, hi=hi,
               unit=" ".join(unit.split())[:20], open=True, opened=now)


def release_cdf(values: Sequence[float], lo: float, hi: float, eps: float, delta: float,
                method: str, rng: Any = None) -> CdfRelease:
    """One release of the class's CDF (dpcore.cdf.estimate, an explicit method), sampled on
    CURVE_POINTS points; for "pp" every degree 0..CDF_K_MAX (post-processing of the one
    release). The release holds the curves and its ledger step; no value is in it."""
    from dpcore.cdf import estimate

    if method not in CDF_METHODS:
        raise PollError("method", "poll.err.method")
    if len(values) < VALUE_MIN_N:
        raise PollError("cdf", "poll.err.too_few", n=VALUE_MIN_N)
    opts: dict[str, Any] = {"k_max": CDF_K_MAX, "noise": "gaussian"} if method == "pp" else {}
    est = estimate(np.asarray(values, dtype=float), bounds=(lo, hi), eps=eps, delta=delta,
                   method=method, rng=rng, **opts)
    xs = np.linspace(lo, hi, CURVE_POINTS)
    curves: dict[str, tuple[float, ...]] = {}
    degree = None
    if method == "pp":
        degree = est.degree
        for d in range(CDF_K_MAX + 1):
            curves[str(d)] = tuple(_rounded(est.with_degree(d)(xs)))
    else:
        curves["-"] = tuple(_rounded(est(xs)))
    rel = est.release
    gaussian_rel = rel.mechanism in ("gaussian", "gaussian_split")
    step = LedgerStep(float(est.eps), float(est.delta),
                      accounting.gaussian_mu(rel.sensitivity, rel.noise_scale)
                      if gaussian_rel else None)
    return CdfRelease(id=secrets.token_hex(6), method=method, eps=float(est.eps),
                      delta=float(est.delta), n=int(rel.n), lo=lo, hi=hi,
                      xs=tuple(_rounded(xs)), curves=curves, degree=degree,
                      mechanism=rel.mechanism, sensitivity=float(rel.sensitivity),
                      norm=rel.norm, noise_scale=float(rel.noise_scale), step=step)


def _rounded(a: Any) -> list[float]:
    return [round(float(v), 5) for v in np.asarray(a, dtype=float)]


def ledger(steps: Sequence[LedgerStep | Mapping[str, Any]], read_delta: float) -> dict[str, Any]:
    """The room's ledger of central releases: exact GDP for the Gaussian ones, basic for the
    rest (dpcore.accounting.compose), read at ``read_delta`` (the fields of
    :class:`app.room.records.Ledger`; a step may also be given as its JSON fields)."""
    parts = [LedgerStep.of(s).step() for s in steps]
    comp = accounting.compose(parts)
    if comp.count == 0:
        return {"count": 0, "eps": 0.0, "delta": 0.0, "rule": "none", "basic_eps": 0.0,
                "basic_delta": 0.0}
    g = comp.at_delta(read_delta)
    rule = ("gdp" if comp.gaussian_count == comp.count else
            "basic" if comp.gaussian_count == 0 else "mixed")
    return {"count": comp.count, "eps": g.eps, "delta": g.delta, "rule": rule,
            "basic_eps": comp.basic_eps, "basic_delta": comp.basic_delta}


def true_cdf(values: Sequence[float], xs: Sequence[float]) -> list[float]:
    """The class's empirical CDF: NOT private (the teacher's labelled comparison only)."""
    v = np.sort(np.asarray(values, dtype=float))
    return _rounded(np.searchsorted(v, np.asarray(xs, dtype=float), side="right") / max(1, v.size))
