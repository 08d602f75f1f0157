"""Values of the CDF lesson, computed by dpcore when the page is built.

Every number a student reads in ``cdf.*.toml`` comes from here (``{{name}}`` placeholders there;
``*_tex`` variants go inside ``$...$``).  Seeded and deterministic; about a second of work
(cached per process), most of it the small measurements against the data (``_against_data``).

The worked examples reproduce what /cdf shows for the same URL: the synthetic sample is drawn with
``default_rng([data_seed, 11])`` (data seed 1) and the noise with ``default_rng([seed, 12])``, as
``app.cdf.page.CDFState`` does.  A real release draws secret noise; the seed is for teaching.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore import accounting, gaussian
from dpcore.cdf import (
    HISTOGRAM_EPS_N,
    MANY_BINS,
    METHODS,
    TREE_BRANCHING,
    auto_plan_v6,
    estimate,
    hist_bins_v2,
    legendre,
    pp,
    tree,
)
from dpcore.cdf.auto_v5 import BAND_SHRINK_V5
from dpcore.cdf.auto_v6 import BANDS_V6, LOW_BAND_V6, LOW_WARP_V6, band_of, warped_edges
from dpcore.cdf.common import GRID_SIZE
from dpcore.cdf.datasets import GRID_SHAPES, REAL, load_real, population_cdf, sample
from dpcore.cdf.hist import auto_bins
from dpcore.cdf.isotonic import isotonic
from dpcore.cdf.metrics import CDF, Distances, RefGrid, distances, ecdf
from dpcore.cdf.quantiles import levels
from lessons.fmt import sci, sci_tex, sig, tex

DATA_SEED = 1
NOISE_SEED = 1
EPS = 1.0
DELTA = 1e-6
N = 10_000
DEGREES = (2, 5, 10, 20, 40, 64)
# How the lesson names the noise variants of dpcore.cdf.pp (Korean, English).
_NOISE_NAMES = {
    "gaussian": ("가우스", "Gaussian"),
    "gaussian_split": ("분할 가우스", "split Gaussian"),
    "laplace": ("라플라스", "Laplace"),
    "laplace_weighted": ("가중 라플라스", "weighted Laplace"),
}


def _data_rng(seed: int = DATA_SEED) -> np.random.Generator:
    return np.random.default_rng([seed, 11])


def _noise_rng(seed: int = NOISE_SEED) -> np.random.Generator:
    return np.random.default_rng([seed, 12])


def _g4(x: float) -> str:
    """Four significant digits, as the /cdf page prints its error figures."""
    return sig(x, 4)


def _both(v: dict[str, str], name: str, x: float, digits: int = 4) -> None:
    """``name`` (plain) and ``name_tex`` (for $...$), scientific below 1e-3."""
    if abs(x) < 1e-3:
        v[name] = sci(x, digits)
        v[name + "_tex"] = sci_tex(x, digits)
    else:
        v[name] = sig(x, digits)
        v[name + "_tex"] = tex(sig(x, digits))


def _metrics(v: dict[str, str], prefix: str, d: Distances) -> None:
    v[prefix + "_ks"] = _g4(d.ks)
    v[prefix + "_w1"] = _g4(d.w1)
    v[prefix + "_energy"] = _g4(d.energy)


def _integral_sq_ecdf(x: np.ndarray) -> float:
    """int_0^1 F_n(t)^2 dt exactly: F_n = i/n on [x_(i), x_(i+1)), x_(n+1) = 1."""
    s = np.sort(x)
    n = s.size
    widths = np.diff(np.append(s, 1.0))
    return float(np.sum((np.arange(1, n + 1) / n) ** 2 * widths))


def _ks_ecdf(x: np.ndarray, cdf: object) -> float:
    """Exact sup |F_n - F| for a continuous F (checked at each jump and its left limit)."""
    s = np.sort(x)
    n = s.size
    f = np.asarray(cdf(s), dtype=np.float64)  # type: ignore[operator]
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - f), np.max(f - (i - 1) / n)))


# The bin rule of dpcore.cdf.hist.auto_bins, as both languages print it.  _section1 checks that
# the formula reproduces auto_bins, so the text cannot drift from the code.
BINS_RULE = (16.0, 1000.0, 0.35)
LOW_EPS = 0.1
LOW_SEEDS = 20
LOW_BINS = (32, 128)


def _check_bins_rule() -> None:
    a, ref, p = BINS_RULE
    for n, eps in ((1000, 1.0), (10_000, 0.1), (944, 1.0), (1000, 0.5), (5000, 0.2)):
        m = int(np.clip(round(a * (n * eps / ref) ** p), 4, 256))
        if m != auto_bins(n, eps):
            raise ArithmeticError(f"the lesson's bin rule disagrees with auto_bins at n={n}")


def _which(a: Distances, b: Distances) -> tuple[list[str], list[str]]:
    """Metrics where ``a`` is below ``b`` (Korean and English names)."""
    names = (("ks", "KS", "KS"), ("w1", "$W_1$", "$W_1$"), ("energy", "에너지 거리", "energy"))
    lower = [(ko, en) for key, ko, en in names if getattr(a, key) < getattr(b, key)]
    return [k for k, _ in lower], [e for _, e in lower]


def _join(items: list[str], lang: str) -> str:
    if not items:
        return "없음" if lang == "ko" else "none"
    if len(items) == 1:
        return items[0]
    if lang == "ko":
        return ", ".join(items[:-1]) + "과 " + items[-1] if len(items) == 2 else \
            ", ".join(items[:-1]) + ", " + items[-1]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _section1(v: dict[str, str], x: np.ndarray, ref: CDF, sigma: float, sigma_unit: float,
              mu1: float, trunc: np.ndarray, noise: np.ndarray) -> None:
    """Values for the corrections of issue 18, section 1 (CDF lesson)."""
    from dpcore.cdf import mp

    _check_bins_rule()
    a, r, p = BINS_RULE
    v["bins_rule_tex"] = f"{a:g}\\,(n\\varepsilon/{r:g})^{{{p:g}}}"
    v["bins_1000"] = str(auto_bins(1000, 1.0))

    # where the truncation error first falls below the noise term (ex-degree)
    below = np.nonzero(trunc < noise)[0]
    v["k_cross"] = str(int(below[0]))

    # MP makes its own release (Legendre coefficients up to degree K_max), apart from pp's
    v["paper_arxiv"] = "arXiv:2501.06620"  # Tao & Sarwate, the paper behind PP and MP
    # Mironov, "On significance of the least significant bits for differential privacy", CCS
    v["ref_mironov"] = "Mironov (2012)"
    v["mp_kmax"] = str(mp.K_MAX_DEFAULT)
    v["mp_released"] = str(mp.K_MAX_DEFAULT + 1)

    # ex-baselines, seed 1: which metrics the 32-bin histogram wins against pp (automatic)
    est_pp = estimate(x, bounds=(0.0, 1.0), eps=EPS, delta=DELTA, method="pp",
                      rng=_noise_rng(), degree="auto")
    est_hq = estimate(x, bounds=(0.0, 1.0), eps=EPS, delta=DELTA, method="hq", rng=_noise_rng())
    d_pp = distances(est_pp, ref, 0.0, 1.0)
    d_hq = distances(est_hq, ref, 0.0, 1.0)
    hq_ko, hq_en = _which(d_hq, d_pp)
    pp_ko, pp_en = _which(d_pp, d_hq)
    v["bl_hq_wins_ko"], v["bl_hq_wins_en"] = _join(hq_ko, "ko"), _join(hq_en, "en")
    v["bl_pp_wins_ko"], v["bl_pp_wins_en"] = _join(pp_ko, "ko"), _join(pp_en, "en")
    # the same pair over PAPER_SEEDS seeds (fresh sample and noise per seed): the paired
    # difference PP - HQ and its standard error, for the three-way verdict of ex-baselines
    diffs: dict[str, list[float]] = {"ks": [], "w1": []}
    for seed in range(PAPER_SEEDS):
        xs = sample("bimodal", N, _data_rng(seed))
        d_a = distances(estimate(xs, bounds=(0.0, 1.0), eps=EPS, delta=DELTA, method="pp",
                                 degree="auto", rng=_noise_rng(seed)), ref, 0.0, 1.0)
        d_b = distances(estimate(xs, bounds=(0.0, 1.0), eps=EPS, delta=DELTA, method="hq",
                                 rng=_noise_rng(seed)), ref, 0.0, 1.0)
        diffs["ks"].append(d_a.ks - d_b.ks)
        diffs["w1"].append(d_a.w1 - d_b.w1)
    for metric, diff in diffs.items():
        arr = np.asarray(diff)
        v[f"bl10_{metric}_diff"] = sig(float(arr.mean()), 2)
        v[f"bl10_{metric}_se2"] = sig(2.0 * float(arr.std(ddof=1)) / math.sqrt(arr.size), 2)
    v["bl10_seeds"] = str(PAPER_SEEDS)

    # MP on the reference data (seed 1), next to PP at a low and at the automatic degree
    est_mp = estimate(x, bounds=(0.0, 1.0), eps=EPS, delta=DELTA, method="mp", rng=_noise_rng())
    _metrics(v, "mp_ref", distances(est_mp, ref, 0.0, 1.0))

    # streaming, five batches (dpcore.cdf.experiments.streaming_scenario, as in
    # docs/cdf-results.md): PP merged, PP once on all data, AQ re-run at eps / T per run
    from dpcore.cdf.experiments import streaming_scenario

    st = streaming_scenario("bimodal", EPS, PAPER_SEEDS)
    for key, label in (("merged", "pp merged (eps per batch, total eps)"),
                       ("once", "pp once on all data (reference)"),
                       ("aq", "aq re-run, eps/T per run (total eps)")):
        v[f"st10_{key}"] = sig(float(np.mean(st[label])), 2)

    # low eps on the bimodal shape: the ranking of PP and the histogram hinges on the bin count
    # (mean KS and W1 over LOW_SEEDS seeds, fresh sample and noise per seed, n = 10,000)
    rows: dict[str, list[Distances]] = {"pp": [], **{f"hq{m}": [] for m in LOW_BINS}}
    for seed in range(LOW_SEEDS):
        xs = sample("bimodal", N, _data_rng(seed))
        rows["pp"].append(distances(estimate(xs, bounds=(0.0, 1.0), eps=LOW_EPS, delta=DELTA,
                                             method="pp", degree="auto", rng=_noise_rng(seed)),
                                    ref, 0.0, 1.0))
        for m in LOW_BINS:
            est = estimate(xs, bounds=(0.0, 1.0), eps=LOW_EPS, delta=DELTA, method="hq",
                           bins=m, interpolation="linear", rng=_noise_rng(seed))
            rows[f"hq{m}"].append(distances(est, ref, 0.0, 1.0))
    for key, ds in rows.items():
        v[f"low_{key}_ks"] = sig(float(np.mean([d.ks for d in ds])), 2)
        v[f"low_{key}_w1"] = sig(float(np.mean([d.w1 for d in ds])), 2)
    v["low_eps"] = sig(LOW_EPS)
    v["low_seeds"] = str(LOW_SEEDS)
    v["low_bins_small"], v["low_bins_large"] = (str(m) for m in LOW_BINS)
    v["low_neps"] = sig(N * LOW_EPS)

    # local DP: every person adds their own noise (sensitivity 1 per person), the curator
    # averages n noisy vectors: sd sigma_1 / sqrt(n) per coefficient, vs sigma_1 / n centrally
    local_sd = sigma_unit / math.sqrt(N)
    _both(v, "local_sd", local_sd)
    v["local_ratio"] = sig(local_sd / sigma, 3)

    # one person in several batches / sites: J Gaussian releases compose to sqrt(J) mu (GDP)
    j = 5
    mu_j = accounting.gdp_compose([mu1] * j)
    v["multi_j"] = str(j)
    v["multi_mu"] = sig(mu_j, 4)
    v["multi_eps"] = sig(accounting.gdp_epsilon(DELTA, mu_j), 4)


# ---- issue 18, section 2: the paper (Tao & Sarwate, arXiv:2501.06620) next to dplab ----------
PAPER_SEEDS = 10
PAPER_EPS = (0.1, 8.0)  # "small" and "large" eps of the comparison
PAPER_SHAPES = ("bimodal", "beta")
PAPER_METHODS = ("pp", "mp", "hq", "aq")
PAPER_AQ_MORE = 127  # quantiles of the second AQ run at large eps


def _paper(v: dict[str, str]) -> None:
    """The paper's reported findings next to dplab's: mean KS and W1 over PAPER_SEEDS seeds
    (fresh sample and noise per seed, n = N, population reference), every method at its
    default options; the dictionary study (MP with Legendre atoms only vs Legendre + B-splines);
    the sensitivity of density (PDF) coefficients vs CDF coefficients; the split Gaussian."""
    mean: dict[tuple[str, float, str], tuple[float, float]] = {}
    aq_more: dict[str, tuple[float, float]] = {}
    for shape in PAPER_SHAPES:
        ref = population_cdf(shape)
        for eps in PAPER_EPS:
            acc: dict[str, list[Distances]] = {m: [] for m in PAPER_METHODS}
            more: list[Distances] = []
            for seed in range(PAPER_SEEDS):
                xs = sample(shape, N, _data_rng(seed))
                for m in PAPER_METHODS:
                    opts: dict[str, object] = {"degree": "auto"} if m == "pp" else {}
                    est = estimate(xs, bounds=(0.0, 1.0), eps=eps, delta=DELTA, method=m,
                                   rng=_noise_rng(seed), **opts)
                    acc[m].append(distances(est, ref, 0.0, 1.0))
                if eps == PAPER_EPS[-1]:
                    est = estimate(xs, bounds=(0.0, 1.0), eps=eps, delta=DELTA, method="aq",
                                   quantiles=PAPER_AQ_MORE, rng=_noise_rng(seed))
                    more.append(distances(est, ref, 0.0, 1.0))
            for m, ds in acc.items():
                mean[shape, eps, m] = (float(np.mean([d.ks for d in ds])),
                                       float(np.mean([d.w1 for d in ds])))
            if more:
                aq_more[shape] = (float(np.mean([d.ks for d in more])),
                                  float(np.mean([d.w1 for d in more])))
    tags = {PAPER_EPS[0]: "lo", PAPER_EPS[-1]: "hi"}
    winners: dict[tuple[str, float, int], str] = {}
    for (shape, eps, m), (ks, w1) in mean.items():
        v[f"pa_{shape}_{tags[eps]}_{m}_ks"] = sig(ks, 2)
        v[f"pa_{shape}_{tags[eps]}_{m}_w1"] = sig(w1, 2)
    for shape in PAPER_SHAPES:
        for eps in PAPER_EPS:
            for i in (0, 1):
                scores = {m: mean[shape, eps, m][i] for m in PAPER_METHODS}
                best = min(scores, key=scores.__getitem__)
                winners[shape, eps, i] = best
                v[f"pa_{shape}_{tags[eps]}_best_{'ks' if i == 0 else 'w1'}"] = best.upper()
        v[f"pa_{shape}_aqmore_ks"] = sig(aq_more[shape][0], 2)
        v[f"pa_{shape}_aqmore_w1"] = sig(aq_more[shape][1], 2)
    v["pa_seeds"] = str(PAPER_SEEDS)
    v["pa_eps_lo"], v["pa_eps_hi"] = sig(PAPER_EPS[0]), sig(PAPER_EPS[-1])
    v["pa_aq_more"] = str(PAPER_AQ_MORE)

    # How many of the (shape, metric) cells agree with each reported finding
    cells = [(s, i) for s in PAPER_SHAPES for i in (0, 1)]
    low_ok = sum(winners[s, PAPER_EPS[0], i] in ("pp", "mp") for s, i in cells)
    high_ok = sum(winners[s, PAPER_EPS[-1], i] == "aq" for s, i in cells)
    v["pa_cells"] = str(len(cells))
    v["pa_low_agree"] = str(low_ok)
    v["pa_high_agree"] = str(high_ok)
    # does AQ with more quantiles come closer to the best method at large eps? (W1)
    closer = sum(aq_more[s][1] < mean[s, PAPER_EPS[-1], "aq"][1] for s in PAPER_SHAPES)
    v["pa_aqmore_better"] = str(closer)

    # dictionary study: MP's pursuit with Legendre atoms only vs Legendre + cubic B-splines,
    # on the two-peak shape at eps = 1 (the pursuit starts from Legendre atoms either way)
    ref = population_cdf("bimodal")
    fams = {"leg": ("legendre",), "spl": ("legendre", "bspline")}
    dic: dict[str, list[Distances]] = {k: [] for k in fams}
    for seed in range(PAPER_SEEDS):
        xs = sample("bimodal", N, _data_rng(seed))
        for k, fam in fams.items():
            est = estimate(xs, bounds=(0.0, 1.0), eps=EPS, delta=DELTA, method="mp",
                           families=fam, rng=_noise_rng(seed))
            dic[k].append(distances(est, ref, 0.0, 1.0))
    for k, ds in dic.items():
        v[f"pa_dict_{k}_ks"] = sig(float(np.mean([d.ks for d in ds])), 2)
        v[f"pa_dict_{k}_w1"] = sig(float(np.mean([d.w1 for d in ds])), 2)
    spl_wins = float(np.mean([d.w1 for d in dic["spl"]])) < float(
        np.mean([d.w1 for d in dic["leg"]]))
    v["pa_dict_verdict_ko"] = ("B-스플라인을 더한 사전이 더 작았습니다" if spl_wins
                               else "B-스플라인을 더해도 더 작아지지 않았습니다")
    v["pa_dict_verdict_en"] = ("the dictionary with B-splines was lower" if spl_wins
                               else "adding B-splines did not make it lower")

    # PDF then integrate: the density's Legendre coefficients are averages of p_k(x_i), whose
    # L2 sensitivity (one record moved anywhere in [0, 1]) grows with the degree, while the
    # CDF's coefficients have sensitivity 1/n at every degree (Bessel's inequality)
    grid = np.linspace(0.0, 1.0, 801)
    for deg in (10, 20):
        b = legendre.basis(grid, deg)
        sq = np.sum(b * b, axis=1)
        d2 = sq[:, None] + sq[None, :] - 2.0 * (b @ b.T)
        v[f"pa_pdf_sens_{deg}"] = sig(math.sqrt(float(np.max(d2))), 3)

    # MP and PP on the same data: two Gaussian releases, composed exactly (GDP)
    sens = pp.l2_sensitivity(N)
    mu1 = accounting.gaussian_mu(sens, gaussian.calibrate_sigma(EPS, DELTA, sens))
    mu2 = accounting.gdp_compose([mu1, mu1])
    v["pa_mu2"] = sig(mu2, 4)
    v["pa_eps2"] = sig(accounting.gdp_epsilon(DELTA, mu2), 4)
    v["pa_eps2_basic"] = sig(2 * EPS)

    # the "sketch the private CDF" activity: bimodal, n = 1000, eps = 0.1, the default method,
    # seeds 1 (app/lesson/sketch.py draws the same release)
    xs = sample("bimodal", 1000, _data_rng())
    plan = auto_plan_v6(1000, 0.1, DELTA)  # the default's rule
    est = estimate(xs, bounds=(0.0, 1.0), eps=0.1, delta=DELTA, method="auto", rng=_noise_rng())
    if est.info["plan"] != plan or plan.method != "hq":
        raise ArithmeticError("the sketch expects the default's histogram")
    v["sk_method"] = plan.method
    v["sk_bins"] = str(plan.k_max)
    sk_w = np.diff(warped_edges(plan.k_max))  # of the range [0, 1]
    v["sk_end_cell"] = sig(float(sk_w[0]), 2)
    v["sk_mid_cell"] = sig(float(sk_w.max()), 2)
    v["sk_even_cell"] = sig(1.0 / plan.k_max, 2)
    v["sk_neps"] = sig(1000 * 0.1)
    _metrics(v, "sk", distances(est, population_cdf("bimodal"), 0.0, 1.0))

    # PP's split Gaussian (the former default "auto_v1" used it): total noise variance at the
    # automatic degree K of the reference release, sigma^2 + K sigma^2 / 2 against (K + 1) sigma^2
    k_auto = int(v["pp_auto_degree"])
    v["pa_split_ratio"] = sig((1.0 + k_auto / 2.0) / (k_auto + 1.0), 3)


ANES_SPACING = 1.0  # ages in whole years: the public value spacing of the ANES example
# The lesson's own check against the data a release protects (its empirical CDF): two shapes,
# n = N, EC_SEEDS seeds (fresh sample and noise per seed), auto against PP and dplab's own
# Laplace histogram with the best bin count in hindsight (an oracle no private method has).
EC_SHAPES = ("bimodal", "spikes")
EC_EPS = (0.1, 1.0, 8.0)
EC_SEEDS = 10
EC_BINS = (8, 16, 32, 64, 128, 256, 512, 1024)
# How the lesson names the real data sets (Korean, English); years are values, never typed
REAL_NAMES = {"anes96_age": ("ANES 1996 응답자 나이", "ANES 1996 ages"),
              "diabetes_age": ("당뇨 환자 나이", "diabetes patients' ages"),
              "penguins_mass": ("펭귄 몸무게", "penguin body mass")}


def _auto_rule(v: dict[str, str]) -> None:
    """The constants of the default rule (dpcore.cdf.auto_plan_v6: its bands BANDS_V6), as the
    lesson prints them; each band checked against auto_plan_v6 itself."""
    low, band, mid, *deep = BANDS_V6
    if low.kind != "hq" or band.top_share <= 0.0 or mid.branching == TREE_BRANCHING:
        raise ArithmeticError("the lesson's bands disagree with dpcore.cdf.auto_v6.BANDS_V6")
    for b in BANDS_V6[1:]:
        n = 10_000_000 if b.start >= 1e6 else 10_000
        plan = auto_plan_v6(n, b.start / n, DELTA)
        if (plan.method, plan.branching, plan.k_max) != ("tree", b.branching, b.leaves):
            raise ArithmeticError("the lesson's bands disagree with auto_plan_v6")
    v["hist_threshold"] = f"{LOW_BAND_V6:,.0f}"  # below it the only histogram of the rule
    v["cheb_warp"] = sig(LOW_WARP_V6)
    v["band_from"] = f"{band.start:,.0f}"
    v["band_to"] = f"{band.end:,.0f}"
    v["band_b"] = str(band.branching)
    v["band_leaves"] = f"{band.leaves:,}"
    v["band_nodes"] = f"{band.branching + band.leaves:,}"
    v["band_top_pct"] = f"{100 * band.top_share:.0f}"
    v["band_leaf_pct"] = f"{100 * (1 - band.top_share):.0f}"
    v["band_shrink"] = sig(BAND_SHRINK_V5)
    v["mid_from"] = f"{mid.start:,.0f}"
    v["mid_to"] = f"{mid.end:,.0f}"
    v["mid_b"] = str(mid.branching)
    v["mid_depth"] = str(mid.depth)
    v["mid_leaves"] = f"{mid.leaves:,}"
    v["mid_cells"] = f"{tree.centred_cells(mid.leaves):,}"
    v["tree_b"] = str(TREE_BRANCHING)
    for b in deep:
        v[f"tree_from_{b.depth}"] = f"{b.start:,.0f}"
        v[f"tree_leaves_{b.depth}"] = f"{b.leaves:,}"
    v["tree_leaves_mid8"] = f"{TREE_BRANCHING**mid.depth:,}"  # the former 8-ary tree there
    v["v4_threshold"] = f"{HISTOGRAM_EPS_N:,.0f}"  # the former default's histogram band
    v["v4_bins"] = str(hist_bins_v2(10_000, 0.1))  # its histogram at n eps = 1000 (MANY_BINS)
    if v["v4_bins"] != str(MANY_BINS):
        raise ArithmeticError("the lesson's former histogram disagrees with hist_bins_v2")
    for k in ("hist_threshold", "band_from", "band_to", "mid_from", "mid_to", "tree_from_4",
              "v4_threshold"):  # inside $...$: a comma between digits is punctuation in TeX
        v[f"{k}_tex"] = v[k].replace(",", "{,}")
    v["bins_neps100"] = str(auto_bins(1000, 0.1))
    v["grid_shapes"] = str(len(GRID_SHAPES))


def _against_data(v: dict[str, str]) -> None:
    """Mean KS against the empirical CDF: auto, PP and the best fixed histogram (hindsight);
    the same releases of auto and PP against the population CDF (``ecp_*``, the target of
    inference); and the hold-out, the real data sets the rule was not fixed on (``ho_*``)."""
    tags = {0.1: "lo", 1.0: "mid", 8.0: "hi"}
    for shape in EC_SHAPES:
        if shape not in GRID_SHAPES:
            raise ArithmeticError("the lesson labels its table as measured on the tuning shapes")
        pop = RefGrid(population_cdf(shape), 0.0, 1.0)
        for eps in EC_EPS:
            acc: dict[str, list[float]] = {}
            for seed in range(EC_SEEDS):
                xs = sample(shape, N, _data_rng(seed))
                ref = RefGrid(ecdf(xs), 0.0, 1.0)
                runs: list[tuple[str, str, dict[str, object]]] = [
                    ("auto", "auto", {}), ("pp", "pp", {"degree": "auto"})]
                runs += [(f"h{b}", "hq", {"bins": b}) for b in EC_BINS]
                for label, method, opts in runs:
                    est = estimate(xs, bounds=(0.0, 1.0), eps=eps, delta=DELTA, method=method,
                                   rng=_noise_rng(seed), **opts)
                    acc.setdefault(label, []).append(ref.distances(est).ks)
                    if label in ("auto", "pp"):
                        acc.setdefault(f"pop_{label}", []).append(pop.distances(est).ks)
            mean = {k: float(np.mean(ks)) for k, ks in acc.items()}
            best = min(EC_BINS, key=lambda b: mean[f"h{b}"])
            key = f"ec_{shape}_{tags[eps]}"
            v[f"{key}_auto"] = sig(mean["auto"], 2)
            v[f"{key}_pp"] = sig(mean["pp"], 2)
            v[f"{key}_hist"] = sig(mean[f"h{best}"], 2)
            v[f"{key}_bins"] = str(best)
            v[f"{key}_ratio"] = sig(mean["auto"] / mean[f"h{best}"], 2)
            v[f"ecp_{shape}_{tags[eps]}_auto"] = sig(mean["pop_auto"], 2)
            v[f"ecp_{shape}_{tags[eps]}_pp"] = sig(mean["pop_pp"], 2)
    # the hold-out at eps = 1: fixed data, fresh noise per seed, against the data's own ECDF
    for name in REAL:
        real = load_real(name)
        xr = np.asarray(real.values)
        lo, hi = real.bounds
        # the lesson says every set is in the two-level tree's band at eps = 1 (whose two
        # constants were chosen with these sets as a check)
        if band_of(xr.size, EPS) != BANDS_V6[1]:
            raise ArithmeticError(f"the lesson expects {name} in the two-level tree's band")
        ref = RefGrid(ecdf(np.clip(xr, lo, hi)), lo, hi)
        acc = {}
        for seed in range(EC_SEEDS):
            runs = [("auto", "auto", {}), ("pp", "pp", {"degree": "auto"})]
            runs += [(f"h{b}", "hq", {"bins": b}) for b in EC_BINS]
            for label, method, opts in runs:
                est = estimate(xr, bounds=(lo, hi), eps=EPS, delta=DELTA, method=method,
                               rng=_noise_rng(seed), **opts)
                acc.setdefault(label, []).append(ref.distances(est).ks)
        mean = {k: float(np.mean(ks)) for k, ks in acc.items()}
        best = min(EC_BINS, key=lambda b: mean[f"h{b}"])
        v[f"ho_{name}_n"] = f"{xr.size:,}"
        v[f"ho_{name}_label_ko"], v[f"ho_{name}_label_en"] = REAL_NAMES[name]
        v[f"ho_{name}_auto"] = sig(mean["auto"], 2)
        v[f"ho_{name}_pp"] = sig(mean["pp"], 2)
        v[f"ho_{name}_hist"] = sig(mean[f"h{best}"], 2)
        v[f"ho_{name}_bins"] = str(best)
    v["ec_seeds"] = str(EC_SEEDS)
    v["ec_eps_lo"], v["ec_eps_mid"], v["ec_eps_hi"] = (sig(e) for e in EC_EPS)
    v["ec_bins_lo"], v["ec_bins_hi"] = str(EC_BINS[0]), f"{EC_BINS[-1]:,}"


def values() -> dict[str, str]:
    v: dict[str, str] = {}

    # ---- the reference release: bimodal, n = 10000, eps = 1, delta = 1e-6, seeds 1 ----------
    sens = pp.l2_sensitivity(N)
    sigma = gaussian.calibrate_sigma(EPS, DELTA, sens)
    sigma_unit = gaussian.calibrate_sigma(EPS, DELTA, 1.0)
    v["n_sens"] = sig(sens)
    v["n_sens_tex"] = sci_tex(sens, 4).removeprefix("1\\times")
    _both(v, "sigma", sigma)
    v["sigma_unit"] = sig(sigma_unit, 4)
    _both(v, "sigma_split", sigma / math.sqrt(2.0))
    _both(v, "sigma_sq", sigma * sigma)

    x = sample("bimodal", N, _data_rng())
    ref = population_cdf("bimodal")
    # exact coefficients (NOT private): truncation error sum_{k > K} c_k^2 = int F_n^2 - sum c_k^2
    c = legendre.coefficients(x, 64)
    total_sq = _integral_sq_ecdf(x)
    head = np.cumsum(c**2)
    trunc = np.maximum(total_sq - head, 0.0)
    noise = (np.arange(65) + 1.0) * sigma * sigma
    risk = trunc + noise
    k_opt = int(np.argmin(risk))
    for k in DEGREES:
        _both(v, f"trunc_{k}", float(trunc[k]), 3)
        _both(v, f"noisevar_{k}", float(noise[k]), 3)
        _both(v, f"risk_{k}", float(risk[k]), 3)
        v[f"rms_{k}"] = sig(math.sqrt(float(risk[k])), 3)
    v["k_opt"] = str(k_opt)
    _both(v, "risk_opt", float(risk[k_opt]), 3)
    v["rms_opt"] = sig(math.sqrt(float(risk[k_opt])), 3)
    v["best_of_three"] = str(min((10, 20, 40), key=lambda k: float(risk[k])))
    v["ecdf_ks"] = _g4(_ks_ecdf(x, ref))

    est_pp = estimate(x, bounds=(0.0, 1.0), eps=EPS, delta=DELTA, method="pp",
                      rng=_noise_rng(), degree="auto")
    v["pp_auto_degree"] = str(est_pp.degree)
    _both(v, "risk_auto", float(risk[int(v["pp_auto_degree"])]), 3)
    v["pp_released"] = str(est_pp.release.values.size)
    v["pp_kmax"] = str(est_pp.release.values.size - 1)
    _metrics(v, "pp_auto", distances(est_pp, ref, 0.0, 1.0))
    for k in DEGREES:
        _metrics(v, f"pp_k{k}", distances(est_pp.with_degree(k), ref, 0.0, 1.0))
    # the degree-64 polynomial before the repair (what the page never draws)
    grid = np.linspace(0.0, 1.0, GRID_SIZE)
    raw64 = legendre.basis(grid, 64) @ est_pp.release.values[:65]
    v["raw64_min"] = sig(float(raw64.min()), 2)
    v["raw64_max"] = sig(float(raw64.max()), 4)
    v["raw64_drop"] = sig(float(np.max(-np.diff(raw64))), 2)

    # the default "auto" (auto_plan_v6) on the reference data: n eps = 10^4, the 9-ary tree
    est_auto = estimate(x, bounds=(0.0, 1.0), eps=EPS, delta=DELTA, method="auto",
                        rng=_noise_rng())
    plan = est_auto.info["plan"]
    if plan.method != "tree":
        raise ArithmeticError("the lesson's reference example expects auto's tree")
    v["auto_depth"] = str(est_auto.info["depth"])
    v["auto_b"] = str(est_auto.info["branching"])
    v["auto_leaves"] = f"{int(est_auto.info['leaves']):,}"
    v["auto_leaves_less"] = f"{int(est_auto.info['leaves']) - 1:,}"  # inner edges of as many bins
    v["auto_nodes"] = f"{est_auto.release.values.size:,}"
    v["auto_noise_ko"] = _NOISE_NAMES[plan.noise][0]
    v["auto_noise_en"] = _NOISE_NAMES[plan.noise][1]
    _both(v, "auto_node_sd", float(est_auto.release.extra["node_sd"]), 3)
    # one record moves from one leaf to another: one count down, one up, on every level
    v["auto_norm"] = est_auto.release.norm
    v["auto_sens_n"] = sig(est_auto.release.sensitivity * N, 4)
    _metrics(v, "auto", distances(est_auto, ref, 0.0, 1.0))
    _auto_rule(v)
    _against_data(v)

    # histogram baseline: 32 bins, Laplace(2 / (n eps)) per bin; the middle edge sums 16 bins
    est_hq = estimate(x, bounds=(0.0, 1.0), eps=EPS, delta=DELTA, method="hq", rng=_noise_rng())
    bins = int(est_hq.info["bins"])
    b = float(est_hq.release.noise_scale)
    v["hq_bins"] = str(bins)
    v["hq_half"] = str(bins // 2)
    v["hq_l1"] = sig(float(est_hq.release.sensitivity))
    _both(v, "hq_scale", b)
    _both(v, "hq_mid_sd", math.sqrt(bins // 2 * 2.0 * b * b), 3)
    _both(v, "hq_mid_sd_64", math.sqrt(32 * 2.0 * (2.0 / (N * EPS)) ** 2), 3)
    _metrics(v, "hq", distances(est_hq, ref, 0.0, 1.0))

    # adaptive quantiles: 31 quantiles, L levels, eps / (2 L) per call
    est_aq = estimate(x, bounds=(0.0, 1.0), eps=EPS, delta=DELTA, method="aq", rng=_noise_rng())
    m_q = int(est_aq.info["quantiles"])
    lv = levels(m_q)
    v["aq_quantiles"] = str(m_q)
    v["aq_levels"] = str(lv)
    v["aq_eps_call"] = sig(EPS / (2 * lv), 4)
    _metrics(v, "aq", distances(est_aq, ref, 0.0, 1.0))

    # three Gaussian releases on the same data: basic composition vs exact GDP composition
    mu1 = accounting.gaussian_mu(sens, sigma)
    mu3 = accounting.gdp_compose([mu1] * 3)
    v["mu1"] = sig(mu1, 4)
    v["mu3"] = sig(mu3, 4)
    v["eps3_gdp"] = sig(accounting.gdp_epsilon(DELTA, mu3), 4)
    v["n_methods"] = str(len([m for m in METHODS if m != "all"]))

    # ---- Bessel's inequality on one pair of records -------------------------------------------
    g = legendre.g_matrix(np.array([0.3, 0.7, 0.0, 1.0]), 64)
    v["bessel_10"] = sig(float(np.linalg.norm(g[0, :11] - g[1, :11])), 4)
    v["bessel_64"] = sig(float(np.linalg.norm(g[0] - g[1])), 4)
    v["bessel_bound"] = sig(math.sqrt(0.4), 4)
    v["bessel_ends"] = sig(float(np.linalg.norm(g[2] - g[3])), 4)
    v["bessel_ends_c1"] = sig(float(np.max(np.abs(g[2, 1:] - g[3, 1:]))), 4)

    # ---- smaller n: sigma and the automatic switch to a histogram ----------------------------
    n_small = 1000
    sigma_small = gaussian.calibrate_sigma(EPS, DELTA, 1.0 / n_small)
    _both(v, "small_sigma", sigma_small)
    v["small_sens"] = sig(1.0 / n_small)
    v["small_neps"] = sig(n_small * EPS)
    plan_small = auto_plan_v6(n_small, EPS, DELTA)  # 300 <= n eps < 1500: the band tree
    if plan_small.method != "tree" or plan_small.branching != BANDS_V6[1].branching:
        raise ArithmeticError("the exercise expects the default's two-level tree")
    v["small_auto_method"] = plan_small.method
    v["small_auto_leaves"] = f"{plan_small.k_max:,}"
    v["small_ratio"] = sig(sigma_small / sigma, 3)
    v["bins_eps01"] = str(auto_bins(N, 0.1))

    # ---- streaming: 5 batches of 2000, and 4 sites of 2500 ------------------------------------
    batches, per = 5, N // 5
    sigma_batch = gaussian.calibrate_sigma(EPS, DELTA, 1.0 / per)
    merged_sd = math.sqrt(batches * (per / N) ** 2 * sigma_batch**2)
    v["st_batches"] = str(batches)
    v["st_per"] = str(per)
    _both(v, "st_sigma_batch", sigma_batch)
    _both(v, "st_merged_sd", merged_sd)
    v["st_ratio"] = sig(merged_sd / sigma, 4)
    v["st_aq_total"] = sig(batches * EPS)
    v["st_aq_per_run"] = sig(EPS / batches)
    v["st_aq_per_call"] = sig(EPS / batches / (2 * lv), 4)
    sites, per_site = 4, N // 4
    sigma_site = gaussian.calibrate_sigma(EPS, DELTA, 1.0 / per_site)
    site_sd = math.sqrt(sites * (per_site / N) ** 2 * sigma_site**2)
    v["ms_sites"] = str(sites)
    v["ms_per"] = str(per_site)
    _both(v, "ms_sigma_site", sigma_site)
    _both(v, "ms_merged_sd", site_sd)
    v["ms_ratio"] = sig(site_sd / sigma, 4)

    # ---- isotonic repair on five grid values (made-up raw values and truth) ------------------
    raw = np.array([0.10, 0.32, 0.26, 0.55, 1.04])
    truth = np.array([0.12, 0.27, 0.31, 0.52, 1.00])
    iso = isotonic(raw)
    fixed_vals = np.clip(iso, 0.0, 1.0)
    v["iso_pool"] = sig(float(iso[1]), 3)
    v["iso_err_raw"] = sig(float(np.sum((raw - truth) ** 2)), 3)
    v["iso_err_iso"] = sig(float(np.sum((iso - truth) ** 2)), 3)
    v["iso_err_fixed"] = sig(float(np.sum((fixed_vals - truth) ** 2)), 3)

    # ---- real data: ANES 1996 ages, n = 944, bounds [18, 100] years ---------------------------
    real = load_real("anes96_age")
    xr = np.asarray(real.values)
    lo, hi = real.bounds
    ref_r = ecdf(np.clip(xr, lo, hi))
    v["anes_n"] = str(xr.size)
    v["anes_lo"] = sig(lo)
    v["anes_hi"] = sig(hi)
    v["anes_neps"] = sig(xr.size * EPS)
    est_r = estimate(xr, bounds=(lo, hi), eps=EPS, delta=DELTA, method="auto", rng=_noise_rng())
    if est_r.info["plan"].branching != BANDS_V6[1].branching:
        raise ArithmeticError("the ANES example expects the default's two-level tree")
    v["anes_auto_leaves"] = f"{int(est_r.info['leaves']):,}"
    _metrics(v, "anes_auto", distances(est_r, ref_r, lo, hi))
    # the same with the public value spacing of whole years: a staircase on the 83 ages
    est_l = estimate(xr, bounds=(lo, hi), eps=EPS, delta=DELTA, method="auto", rng=_noise_rng(),
                     granularity=ANES_SPACING)
    v["anes_h"] = sig(ANES_SPACING)
    v["anes_lat_size"] = str(round((hi - lo) / ANES_SPACING) + 1)
    v["anes_lat_leaves"] = str(est_l.info["leaves"])
    v["anes_lat_group"] = str(est_l.info["group"])
    _metrics(v, "anes_lat", distances(est_l, ref_r, lo, hi))
    est_rp = estimate(xr, bounds=(lo, hi), eps=EPS, delta=DELTA, method="pp", rng=_noise_rng(),
                      degree="auto")
    v["anes_pp_degree"] = str(est_rp.degree)
    _metrics(v, "anes_pp", distances(est_rp, ref_r, lo, hi))
    v["anes_clipped"] = str(est_r.release.n_clipped)
    _both(v, "anes_sigma", gaussian.calibrate_sigma(EPS, DELTA, 1.0 / xr.size))

    _section1(v, x, ref, sigma, sigma_unit, mu1, trunc, noise)
    _paper(v)

    # quiz: n = 1000, eps = 0.2 falls below the histogram threshold (n eps < 300)
    q_n, q_eps = 1000, 0.2
    plan_q = auto_plan_v6(q_n, q_eps, DELTA)
    if plan_q.method != "hq":
        raise ArithmeticError("the quiz expects the default's histogram")
    v["q_n"] = str(q_n)
    v["q_eps"] = sig(q_eps)
    v["q_neps"] = sig(q_n * q_eps)
    v["q_method"] = plan_q.method
    v["q_bins"] = str(plan_q.k_max)
    from lessons.verdicts_cdf import verdicts

    v.update(verdicts(v))
    return v

