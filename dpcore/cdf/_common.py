"""The former name of :mod:`dpcore.cdf.common`, kept so that older scripts still import.

New code imports :mod:`dpcore.cdf.common` (or the names :mod:`dpcore.cdf` re-exports).
"""

from dpcore.cdf.common import (
    GRID_SIZE,
    CDFEstimate,
    Clipped,
    FloatArray,
    Release,
    check_bounds,
    check_privacy,
    clip_data,
    finish_grid,
    fmt_eps,
    grid_in_units,
    make_rng,
)

__all__ = [
    "GRID_SIZE",
    "CDFEstimate",
    "Clipped",
    "FloatArray",
    "Release",
    "check_bounds",
    "check_privacy",
    "clip_data",
    "finish_grid",
    "fmt_eps",
    "grid_in_units",
    "make_rng",
]
