"""Rounding scores to ``d`` decimals within float64's domain (``--round``, ``round=``).

``np.round(x, d)`` computes ``rint(x * 10**d) / 10**d``: for huge ``x`` the product
overflows to inf and distinct scores (1e300, 2e300 with ``d=15``) come back as one value,
a tie the mathematics does not make.  But a float64 ``x`` with ``|x| >= 2**53 * 10**-d``
has an ulp of more than ``10**-d``, so ``x`` rounded to ``d`` decimals is within half an
ulp of ``x``: its nearest float64 is ``x`` itself.  Such scores are left as they are and
only the others, whose scaled value stays below ``2**53 * (1 + eps)``, are rounded.
"""
from __future__ import annotations

import numpy as np


def round_scores(score: np.ndarray, decimals: int) -> np.ndarray:
    """``score`` rounded to ``decimals`` decimals, never merging scores that rounding to
    ``decimals`` decimals keeps apart (see the module docstring); non-finite values and
    scores too large to change are returned unchanged, without a numpy warning.

    Examples
    --------
    >>> round_scores(np.array([1e300, 2e300, 0.12345, 2.0**60 + 2048]), 3).tolist()
    [1e+300, 2e+300, 0.123, 1.152921504606849e+18]
    """
    score = np.asarray(score, dtype=np.float64)
    decimals = int(decimals)
    bound = 2.0 ** 53 * 10.0 ** -decimals
    small = np.abs(score) < bound  # False for NaN and inf, which stay as they are
    if small.all():
        return np.round(score, decimals)
    out = score.copy()
    out[small] = np.round(score[small], decimals)
    return out
