"""dplab's Gaussian calibration (dpcore.tradeoff) against riskcal's, one run: agreement and speed.

Issue 41: σ (sensitivity 1) for a target attacker TPR at a given FPR, and for a target advantage
(max TPR − FPR), from dplab and from riskcal 1.5.1 (PyPI; Kulynych et al., NeurIPS 2024).
riskcal has no Gaussian-mechanism calibration of its own; it offers two ways, both measured:

* "riskcal GDP": its generic bisection ``riskcal.calibration.calibrate_parameter`` with an
  evaluator built on its closed-form Gaussian curves ``riskcal.analysis.get_beta_from_gdp`` /
  ``get_advantage_from_gdp`` (μ = 1/σ), with the search range and tolerances of its own
  calibration functions (noise in [0.1, 50], |β − target| <= 1e-3, σ to 1e-3);
* "riskcal PLD": ``riskcal.calibration.dpsgd.find_noise_multiplier_for_err_rates`` /
  ``find_noise_multiplier_for_advantage`` with ``sample_rate=1, num_steps=1`` (DP-SGD with one
  full-batch step is the Gaussian mechanism; noise multiplier = σ), which discretises the
  privacy loss distribution (dp_accounting, grid 1e-4) on every bisection step. It takes tens of
  seconds per call, so it runs on a subset (``--pld``), once per target.

dplab has no advantage calibration function; by the symmetry of G_μ the best attacker sits at
FPR = (1 − a)/2 with TPR = (1 + a)/2 (docs/math.md#hypothesis-testing-and-the-trade-off-function),
so ``calibrate_sigma_tpr((1 + a)/2, (1 - a)/2, 1)`` is the σ for advantage a.

Agreement: relative difference of σ, and what each σ gives the attacker according to dplab's
exact ``tradeoff.tpr`` / ``best_advantage`` ("≤" means it stays at or under the target, so the
σ is conservative). Speed: median CPU time (``time.process_time``) per calibration, each method
timed in this process, alternately target by target. Nothing is asserted about time.

Run (riskcal is not a dplab dependency; a separate virtualenv keeps .venv untouched):
    /work/benchvenv/bin/python -m pip install riskcal==1.5.1
    PYTHONPATH=. nice -n 19 /work/benchvenv/bin/python benchmarks/tradeoff_vs_riskcal.py
Without riskcal it prints dplab's column only and says so.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from dpcore import tradeoff as tr

FPRS = (1e-4, 1e-3, 0.01, 0.05, 0.1)
ADVANTAGES = (0.01, 0.1, 0.5)
NOISE_MIN, NOISE_MAX, TOL = 0.1, 50.0, 1e-3  # riskcal's defaults in its calibration functions


@dataclass(frozen=True)
class Target:
    kind: str  # "tpr" or "adv"
    value: float  # the TPR or the advantage
    fpr: float | None = None

    @property
    def label(self) -> str:
        if self.kind == "adv":
            return f"advantage ≤ {self.value:g}"
        return f"TPR ≤ {self.value:g} at FPR {self.fpr:g}"


def grid() -> list[Target]:
    out = []
    for a in FPRS:
        tprs = sorted({2 * a, 0.1, 0.5, 0.9})
        out += [Target("tpr", t, a) for t in tprs if t > a]
    return out + [Target("adv", x) for x in ADVANTAGES]


def dplab_sigma(t: Target) -> float:
    if t.kind == "adv":
        return tr.calibrate_sigma_tpr((1.0 + t.value) / 2, (1.0 - t.value) / 2, 1.0).sigma
    return tr.calibrate_sigma_tpr(t.value, t.fpr, 1.0).sigma


def achieved(t: Target, sigma: float) -> float:
    """What the attacker gets at this σ, by dplab's exact formulas."""
    return tr.best_advantage(1.0 / sigma) if t.kind == "adv" else tr.tpr(t.fpr, 1.0 / sigma)


def riskcal_methods() -> dict[str, Callable[[Target], float]] | None:
    try:
        from riskcal import analysis
        from riskcal import calibration as cal
        from riskcal.calibration import dpsgd
    except ImportError:
        return None

    config = {"param_min": NOISE_MIN, "param_max": NOISE_MAX, "target_tol": TOL}

    def gdp(t: Target) -> float:
        if t.kind == "adv":
            res = cal.calibrate_parameter(
                lambda s: cal.PrivacyMetrics(
                    advantage=float(analysis.get_advantage_from_gdp(1 / s))),
                cal.CalibrationTarget(kind="advantage", advantage=t.value),
                cal.CalibrationConfig(increasing=False, **config))
        else:
            a = t.fpr
            res = cal.calibrate_parameter(
                lambda s: cal.PrivacyMetrics(alpha=a,
                                             beta=float(analysis.get_beta_from_gdp(1 / s, a))),
                cal.CalibrationTarget(kind="err_rates", alpha=a, beta=1.0 - t.value),
                cal.CalibrationConfig(increasing=True, **config))
        return res.parameter_value

    def pld(t: Target) -> float:
        if t.kind == "adv":
            return dpsgd.find_noise_multiplier_for_advantage(
                advantage=t.value, sample_rate=1.0, num_steps=1)
        return dpsgd.find_noise_multiplier_for_err_rates(
            alpha=t.fpr, beta=1.0 - t.value, sample_rate=1.0, num_steps=1)

    return {"gdp": gdp, "pld": pld}


def timed(f: Callable[[Target], float], t: Target, repeats: int) -> tuple[float, float]:
    """(σ, median CPU seconds per call); a failure gives σ = nan."""
    times, sigma = [], float("nan")
    for _ in range(repeats):
        t0 = time.process_time()
        try:
            sigma = float(f(t))
        except (RuntimeError, ValueError) as e:  # riskcal: bisection did not reach its tolerance
            print(f"  {t.label}: {type(e).__name__}: {str(e)[:120]}")
            return float("nan"), float("nan")
        times.append(time.process_time() - t0)
    return sigma, statistics.median(times)


def fmt_t(s: float) -> str:
    if s != s:
        return "—"
    return f"{s * 1e6:.0f} µs" if s < 1e-3 else (f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.1f} s")


def got(t: Target, sigma: float) -> str:
    if sigma != sigma:
        return "failed"
    g = achieved(t, sigma)
    rel = g / t.value - 1.0
    return f"{g:.6g} ({'≤' if g <= t.value else '>'}, {rel:+.1e})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=51, help="dplab calls per target")
    ap.add_argument("--riskcal-repeats", type=int, default=5, help="riskcal GDP calls per target")
    ap.add_argument("--pld", default="0.5,adv0.1",
                    help="riskcal PLD subset: TPR targets (at every FPR) and advantages "
                         "('adv0.1'), comma-separated; '' for none")
    args = ap.parse_args()
    warnings.simplefilter("ignore", DeprecationWarning)
    targets = grid()
    rc = riskcal_methods()
    for t in targets[:3]:  # warm up imports and caches
        dplab_sigma(t)
        if rc:
            rc["gdp"](t)

    rows, ratios, rels, worst_over = [], [], [], 0.0
    for t in targets:
        s_d, dt_d = timed(dplab_sigma, t, args.repeats)
        if rc is None:
            rows.append(f"| {t.label} | {s_d:.10g} | {got(t, s_d)} | {fmt_t(dt_d)} |")
            continue
        s_r, dt_r = timed(rc["gdp"], t, args.riskcal_repeats)
        rel = s_r / s_d - 1.0
        rels.append(abs(rel))
        ratios.append(dt_r / dt_d)
        if s_r == s_r:
            worst_over = max(worst_over, achieved(t, s_r) / t.value - 1.0)
        rows.append(f"| {t.label} | {s_d:.10g} | {s_r:.10g} | {rel:+.1e} | {got(t, s_d)} | "
                    f"{got(t, s_r)} | {fmt_t(dt_d)} | {fmt_t(dt_r)} | {dt_r / dt_d:,.0f}× |")

    if rc is None:
        print("riskcal is not installed in this interpreter: dplab only "
              "(pip install riskcal==1.5.1 in a separate virtualenv).\n")
        print("| target | dplab σ | attacker gets at dplab σ | dplab time |")
        print("|---|---:|---:|---:|")
        print("\n".join(rows))
        return

    print("riskcal GDP (calibrate_parameter + get_beta_from_gdp / get_advantage_from_gdp), "
          f"{args.repeats} dplab and {args.riskcal_repeats} riskcal calls per target, "
          "median CPU time; 'attacker gets' by dplab's exact tradeoff.tpr / best_advantage:\n")
    print("| target | dplab σ | riskcal σ | σ rel. diff | attacker gets at dplab σ | "
          "at riskcal σ | dplab | riskcal | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))

    pld_rows, pld_ratios = [], []
    wanted = [w.strip() for w in args.pld.split(",") if w.strip()]
    for t in targets:
        key = f"adv{t.value:g}" if t.kind == "adv" else f"{t.value:g}"
        if key not in wanted:
            continue
        s_d, dt_d = timed(dplab_sigma, t, args.repeats)
        s_p, dt_p = timed(rc["pld"], t, 1)
        pld_ratios.append(dt_p / dt_d)
        pld_rows.append(f"| {t.label} | {s_d:.10g} | {s_p:.10g} | {s_p / s_d - 1.0:+.1e} | "
                        f"{got(t, s_p)} | {fmt_t(dt_d)} | {fmt_t(dt_p)} | "
                        f"{dt_p / dt_d:,.0f}× |")
    if pld_rows:
        print("\nriskcal PLD (dpsgd.find_noise_multiplier_for_err_rates / _for_advantage, "
              "sample_rate=1, num_steps=1), one call per target:\n")
        print("| target | dplab σ | riskcal σ | σ rel. diff | attacker gets at riskcal σ | "
              "dplab | riskcal | ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        print("\n".join(pld_rows))

    pld_note = (f"; riskcal PLD median {statistics.median(pld_ratios):,.0f}× dplab's time"
                if pld_ratios else "")
    print(f"\nSummary: {len(targets)} targets; riskcal GDP σ within "
          f"{max(r for r in rels if r == r):.1e} relative of dplab's, lets the attacker exceed "
          f"the target by up to {worst_over:+.1e} relative (dplab never exceeds: "
          f"{all(achieved(t, dplab_sigma(t)) <= t.value for t in targets)}); riskcal GDP takes "
          f"median {statistics.median(r for r in ratios if r == r):,.0f}× dplab's CPU time"
          f"{pld_note}.")


if __name__ == "__main__":
    main()
