"""Write tests/reference/auto_v5_reference.json: reference values for dpcore.cdf.auto_v5.

Independent of dpcore (numpy and the standard library only; the rule is restated here from
docs/cdf-results.md and the module's docstring, not read from dpcore):
* "consistent": weighted least squares on a b-ary tree of depth L with a public root, solved
  directly from its KKT system (variables = the b^L leaves; level l = the sums of b^(L-l)
  consecutive leaves; minimise sum_l ||A_l x - y_l||^2 / v_l subject to sum x = root) by
  numpy.linalg.solve, for fixed pseudo-random y and v.  ``weighted_consistent`` must agree to
  ~1e-12 (it uses two linear passes instead).
* "scales": the Laplace scales 2 / (n eps w) and 2 / (n eps (1 - w)), w = 3/5, as exact
  fractions (rounded to doubles) for a few (n, eps).
* "plans": what ``auto_plan_v5`` releases at n*eps just below, at and above its switch points
  300 and 1500 (n = 1000): "hq" with auto_bins bins below 300, the 16-ary tree (256 leaves)
  from 300, the 8-ary tree of depth 3 (512 leaves) from 1500.

Run:  .venv/bin/python tests/reference/make_auto_v5_reference.py   (under a second)
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("auto_v5_reference.json")


def kkt(ys: list[list[float]], vs: list[float], b: int, root: float) -> list[list[float]]:
    depth = len(ys)
    m = b**depth
    h = np.zeros((m, m))
    g = np.zeros(m)
    for lev in range(1, depth + 1):
        width = b ** (depth - lev)
        a = np.zeros((b**lev, m))
        for i in range(b**lev):
            a[i, i * width:(i + 1) * width] = 1.0
        h += a.T @ a / vs[lev - 1]
        g += a.T @ np.asarray(ys[lev - 1]) / vs[lev - 1]
    kk = np.zeros((m + 1, m + 1))
    kk[:m, :m] = h
    kk[:m, m] = kk[m, :m] = 1.0
    sol = np.linalg.solve(kk, np.r_[g, root])[:m]
    out = []
    for lev in range(1, depth + 1):
        out.append(sol.reshape(b**lev, -1).sum(axis=1).tolist())
    return out


def main() -> None:
    rng = np.random.default_rng(20261206)
    cases = []
    for b, depth in ((2, 3), (3, 2), (16, 2), (4, 3)):
        for _ in range(2):
            ys = [(np.full(b**lev, 1.0 / b**lev) + rng.normal(0, 0.05, b**lev)).tolist()
                  for lev in range(1, depth + 1)]
            vs = rng.uniform(0.1, 3.0, depth).tolist()
            root = float(rng.choice([1.0, 0.7]))
            cases.append({"b": b, "noisy": ys, "variances": vs, "root": root,
                          "levels": kkt(ys, vs, b, root)})
    scales = []
    for n, eps in ((1000, 0.5), (10_000, 0.1), (342, 2.0), (944, 1.0)):
        e = Fraction(eps)
        scales.append({"n": n, "eps": eps, "top": float(2 / (n * e * Fraction(3, 5))),
                       "leaf": float(2 / (n * e * Fraction(2, 5)))})
    plans = []
    for neps in (100.0, 299.0, 300.0, 1000.0, 1499.0, 1500.0):
        eps = neps / 1000.0
        if neps < 300:
            bins = int(np.clip(round(16.0 * (neps / 1000.0) ** 0.35), 4, 256))
            plans.append({"n": 1000, "eps": eps, "method": "hq", "k_max": bins, "branching": 8})
        elif neps < 1500:
            plans.append({"n": 1000, "eps": eps, "method": "tree", "k_max": 256,
                          "branching": 16})
        else:
            plans.append({"n": 1000, "eps": eps, "method": "tree", "k_max": 512, "branching": 8})
    OUT.write_text(json.dumps({"consistent": cases, "scales": scales, "plans": plans},
                              indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
