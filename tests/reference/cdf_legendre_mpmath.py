"""Generate reference values for dpcore.cdf.legendre with mpmath at 50 significant digits.

G_k(x) = int_x^1 sqrt(2k+1) P_k(2t-1) dt is computed from its DEFINITION by mpmath.quad (not by
the recurrence or the derivative identity used in the code), and p_k(t) = sqrt(2k+1) P_k(2t-1)
by mpmath.legendre.  Run:  python tests/reference/cdf_legendre_mpmath.py
It writes tests/reference/cdf_legendre_mpmath.json (values rounded to 20 significant digits).
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath as mp

mp.mp.dps = 50
KS = [0, 1, 2, 3, 5, 10, 20, 40, 64]
XS = ["0", "0.001", "0.1", "0.25", "0.3333333333333333", "0.5", "0.7", "0.9", "0.999", "1"]
SAMPLE = ["0.05", "0.2", "0.2", "0.41", "0.5", "0.77", "0.93", "1", "0"]  # a small data set


def g(k: int, x: mp.mpf) -> mp.mpf:
    if x == 1:
        return mp.mpf(0)
    f = lambda t: mp.sqrt(2 * k + 1) * mp.legendre(k, 2 * t - 1)  # noqa: E731
    # split the interval so the Gauss-Legendre rule sees few oscillations per piece
    pts = mp.linspace(x, 1, max(2, k // 4 + 2))
    return mp.quad(f, pts)


def main() -> None:
    out: dict[str, object] = {"dps": mp.mp.dps, "g": [], "basis": [], "sample": SAMPLE}
    for k in KS:
        for xs in XS:
            x = mp.mpf(xs)
            out["g"].append([k, xs, mp.nstr(g(k, x), 20)])  # type: ignore[union-attr]
            val = mp.sqrt(2 * k + 1) * mp.legendre(k, 2 * x - 1)
            out["basis"].append([k, xs, mp.nstr(val, 20)])  # type: ignore[union-attr]
    n = len(SAMPLE)
    coef = []
    for k in range(21):
        coef.append(mp.nstr(mp.fsum(g(k, mp.mpf(s)) for s in SAMPLE) / n, 20))
    out["sample_coefficients"] = coef
    path = Path(__file__).with_suffix(".json")
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
