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
