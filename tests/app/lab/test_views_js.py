"""The browser's side of the light views (assets/dplab-svgplot.js), run in Node: the closed
forms it draws agree with dpcore, and its tick labels tell the ticks apart.

The helpers are plain functions at the top of the module; Node evaluates them with stand-ins
for nothing (none of them touches the page).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest
from scipy import stats

from app.shell import assets
from dpcore import gaussian

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (CI installs it "
                                                     "with npm for axe-core)")


def run_js(expr: str) -> object:
    """``expr`` evaluated after the helpers, its value as JSON (non-finite numbers as null)."""
    src = assets.text("dplab-svgplot.js") + f"\nprocess.stdout.write(JSON.stringify({expr}));"
    out = subprocess.run([NODE or "node", "-e", src], capture_output=True, text=True, check=True,
                         timeout=60)
    return json.loads(out.stdout)


CASES = [(1.0, 1.0), (1.0, 0.3), (0.25, 2.0), (32.0, 10.0)]  # (Δ, σ)
EPS = np.linspace(0.0, 10.0, 41)


@pytest.mark.parametrize(("d", "sigma"), CASES)
def test_the_comparisons_drawn_are_dpcores(d: float, sigma: float) -> None:
    js = run_js(f"[{json.dumps(EPS.tolist())}.map(e => laplaceLnDelta(e, {d}, {sigma})),"
                f" {json.dumps(EPS.tolist())}.map(e => classicLnDelta(e, {d}, {sigma}))]")
    assert isinstance(js, list)
    lap = np.array([np.nan if v is None else v for v in js[0]])
    cl = np.array(js[1], dtype=float)
    ref_lap = np.asarray(gaussian.laplace_log_delta(EPS, d, sigma))
    ref_cl = np.asarray(gaussian.classic_log_delta(EPS, d, sigma))
    # -inf (δ exactly 0) comes back as null
    assert np.array_equal(np.isnan(lap), ~np.isfinite(ref_lap))
    fin = np.isfinite(ref_lap)
    np.testing.assert_allclose(lap[fin], ref_lap[fin], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(cl, ref_cl, rtol=1e-12)


def test_the_density_drawn_is_the_normal_density() -> None:
    xs = np.linspace(-4.0, 5.0, 19)
    js = run_js(f"{json.dumps(xs.tolist())}.map(x => gaussPdf(x, 1.0, 0.7))")
    np.testing.assert_allclose(np.asarray(js, dtype=float), stats.norm.pdf(xs, 1.0, 0.7),
                               rtol=1e-12)


@pytest.mark.parametrize(("lo", "hi"), [(0, 10), (-4, 5), (0, 0.42), (-23.1, 0.5), (0, 1e-7),
                                        (0, 2e6), (-2223600, 10), (1e-3, 2.5e-3)])
def test_tick_labels_are_distinct_and_say_their_value(lo: float, hi: float) -> None:
    ticks = run_js(f"(() => {{ const t = niceTicks({lo}, {hi}, 5);"
                   " return t.ticks.map(v => [v, tickLabel(v, t.step)]); })()")
    assert isinstance(ticks, list) and len(ticks) >= 2
    labels = [lab for _, lab in ticks]
    assert len(set(labels)) == len(labels), labels
    for v, lab in ticks:
        assert lo - 1e-9 * abs(hi - lo) <= v <= hi + 1e-9 * abs(hi - lo)
        shown = float(lab.replace("\u2212", "-"))
        assert shown == pytest.approx(v, rel=1e-9, abs=1e-12 * max(1.0, abs(hi))), (v, lab)


# ---- the attacker's view (assets/dplab-tradeoff.js draws it from μ, ε and δ) ----------------
def test_the_normal_cdf_and_its_inverse_drawn_are_scipys() -> None:
    xs = np.concatenate([np.linspace(-9.0, 9.0, 73), [-37.0, -20.0, 0.0, 1e-9]])
    ps = np.concatenate([[1e-12, 1e-6, 1e-4, 0.02, 0.02425, 0.5, 0.97575, 0.98],
                         np.linspace(0.001, 0.999, 41), [1 - 1e-6, 1 - 1e-10]])
    js = run_js(f"[{json.dumps(xs.tolist())}.map(normCdf), {json.dumps(ps.tolist())}.map(normPpf),"
                " [normPpf(0), normPpf(1)]]")
    assert isinstance(js, list)
    # Numerical Recipes' erfcc: relative error < 1.2e-7; Acklam's inverse: < 1.2e-9
    np.testing.assert_allclose(np.asarray(js[0], dtype=float), stats.norm.cdf(xs), rtol=1.3e-7,
                               atol=1e-300)
    np.testing.assert_allclose(np.asarray(js[1], dtype=float), stats.norm.ppf(ps), rtol=1.3e-9)
    assert js[2] == [None, None]  # ±∞ (JSON has no infinity)


def test_the_attackers_curve_and_cap_drawn_are_the_servers() -> None:
    from app.lab.compute import _alpha_grid, cap_tpr
    from dpcore import tradeoff

    grid = _alpha_grid(121)
    js_grid = run_js("tradeoffGrid()")
    np.testing.assert_allclose(np.asarray(js_grid, dtype=float), grid, rtol=1e-12, atol=0)
    for mu in (0.0, 0.05, 1.0, 4.0, 12.0):
        got = np.asarray(run_js(f"tradeoffGrid().map(a => tradeoffTpr(a, {mu}))"), dtype=float)
        # a picture: Φ(Φ⁻¹(α) + μ) within 1e-6 of dpcore's exact rates
        np.testing.assert_allclose(got, tradeoff.tpr_curve(grid, mu), rtol=1e-6, atol=1e-12)
    assert run_js("[tradeoffTpr(0.3, null), tradeoffTpr(0, null)]") == [1, 0]
    for eps, delta in ((0.0, 0.0), (1.0, 1e-5), (0.3, 0.2), (800.0, 1e-300)):
        got = np.asarray(run_js(f"tradeoffGrid().map(a => capTpr(a, {eps}, {delta}))"),
                         dtype=float)
        np.testing.assert_allclose(got, cap_tpr(grid, eps, delta), rtol=1e-13, atol=1e-300)
