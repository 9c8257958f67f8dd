"""Multiple-comparison corrections of p-values.

Every function takes a 1-d array of p-values and returns the adjusted ones in the same
order. NaN p-values (tests without an answer) are left out of the family: they stay NaN
and do not count in m.

Examples
--------
>>> correct_pvalues([0.01, 0.04, float("nan")], "bonferroni").tolist()
[0.02, 0.08, nan]
"""
from __future__ import annotations

import numpy as np

from ..core.validation import Options, validate_params

__all__ = ["CORRECTIONS", "benjamini_hochberg", "bonferroni", "correct_pvalues", "holm"]

CORRECTIONS = ("holm", "bonferroni", "bh", "none")
"""Multiple-comparison corrections: Holm step-down, Bonferroni, Benjamini-Hochberg, none."""


def _finite_part(p) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("p-values must be a 1-d array")
    mask = np.isfinite(p)
    if ((p[mask] < 0) | (p[mask] > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    return p, mask, np.full(p.shape, np.nan)


def bonferroni(p) -> np.ndarray:
    """Bonferroni-adjusted p-values: min(1, m p_i), m = number of (finite) p-values.

    Examples
    --------
    >>> bonferroni([0.01, 0.04, 0.03, 0.005]).tolist()
    [0.04, 0.16, 0.12, 0.02]
    """
    p, mask, out = _finite_part(p)
    out[mask] = np.minimum(p[mask] * mask.sum(), 1.0)
    return out


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p-values (controls the family-wise error rate).

    With p_(1) <= ... <= p_(m) sorted ascending:
    p~_(i) = min(1, max_{j <= i} (m - j + 1) p_(j)). The running maximum enforces
    monotonicity (a smaller raw p never gets a larger adjusted p), which is what makes
    "reject while p~ <= alpha" identical to Holm's sequential procedure.

    Examples
    --------
    Sorted: .005, .01, .03, .04 -> 4(.005) = .02, 3(.01) = .03, 2(.03) = .06,
    1(.04) = .04 raised to .06 by the running maximum:

    >>> np.round(holm([0.01, 0.04, 0.03, 0.005]), 10).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p, mask, out = _finite_part(p)
    values = p[mask]
    m = len(values)
    if m:
        order = np.argsort(values, kind="stable")
        scaled = (m - np.arange(m)) * values[order]
        adjusted = np.minimum(np.maximum.accumulate(scaled), 1.0)
        result = np.empty(m)
        result[order] = adjusted
        out[mask] = result
    return out


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (controls the false discovery rate).

    p~_(i) = min_{j >= i} min(1, m p_(j) / j); computed by
    ``scipy.stats.false_discovery_control(p, method="bh")``.

    Examples
    --------
    >>> np.round(benjamini_hochberg([0.01, 0.04, 0.03, 0.005]), 10).tolist()
    [0.02, 0.04, 0.04, 0.02]
    """
    from scipy import stats  # here, not at the top: the CLI starts without scipy
    p, mask, out = _finite_part(p)
    if mask.any():
        out[mask] = stats.false_discovery_control(p[mask], method="bh")
    return out


@validate_params({"method": [Options(*CORRECTIONS)]})
def correct_pvalues(p, method: str = "holm") -> np.ndarray:
    """Adjust p-values by ``method`` in :data:`CORRECTIONS` (NaNs stay NaN, outside m)."""
    if method == "holm":
        return holm(p)
    if method == "bonferroni":
        return bonferroni(p)
    if method == "bh":
        return benjamini_hochberg(p)
    p, mask, out = _finite_part(p)  # "none": the same p-values, NaN for non-finite ones
    out[mask] = p[mask]
    return out

