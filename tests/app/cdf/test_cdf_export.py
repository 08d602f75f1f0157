"""/cdf CSV export: the shown private CDF with its certified (ε, δ), nothing non-private."""

from __future__ import annotations

import numpy as np

from app.cdf.page import CDFPage
from app.cdf.state import CDFState


def test_csv_is_the_shown_private_cdf_with_its_guarantee() -> None:
    state = CDFState()
    state.apply_url({"data": "bimodal", "n": "2000", "eps": "0.5", "delta": "1e-6",
                     "method": "pp", "degree": "8", "seed": "3"})
    page = CDFPage(state=state, lang="en")
    f = page.export_csv()
    lines = f.text.splitlines()
    est = state.current()
    assert lines[0] == f"# dplab private CDF: eps={est.eps!r} delta={est.delta!r}"
    assert est.eps == 0.5 and est.delta == 1e-6
    rows = [ln for ln in lines if ln and not ln.startswith("#")]
    assert rows[0] == "x,cdf"
    xy = np.array([[float(v) for v in r.split(",")] for r in rows[1:]])
    pts, f_priv, f_ref = state.curves()
    np.testing.assert_array_equal(xy[:, 0], pts)
    np.testing.assert_array_equal(xy[:, 1], f_priv)
    assert not np.array_equal(xy[:, 1], f_ref)  # the non-private reference is not what we wrote
    assert f.filename.endswith(".csv")
