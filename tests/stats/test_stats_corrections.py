"""Corrections against hand-computed examples, the textbook procedures and scipy."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from tiedrank import stats as S
from tiedrank.core.validation import InvalidParameterError

P_EXAMPLE = [0.01, 0.04, 0.03, 0.005]


def test_holm_hand_checked_with_monotonicity():
    # sorted .005 .01 .03 .04 -> x4 .02, x3 .03, x2 .06, x1 .04 -> running max .06
    assert S.holm(P_EXAMPLE) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # a p-value pushed above 1 is capped; ties keep equal adjusted values
    assert S.holm([0.3, 0.3, 0.6]) == pytest.approx([0.9, 0.9, 0.9])
    assert S.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_holm_matches_sequential_procedure():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = rng.random(rng.integers(1, 12)) ** 3
        alpha = 0.05
        order = np.argsort(p)
        reject = np.zeros(len(p), dtype=bool)
        for i, j in enumerate(order):  # textbook step-down: stop at the first acceptance
            if p[j] <= alpha / (len(p) - i):
                reject[j] = True
            else:
                break
        adjusted = S.holm(p)
        assert np.array_equal(adjusted <= alpha, reject)
        assert np.all(np.diff(adjusted[order]) >= 0) and np.all(adjusted >= p)


def test_bonferroni_and_bh_hand_checked():
    assert S.bonferroni(P_EXAMPLE) == pytest.approx([0.04, 0.16, 0.12, 0.02])
    # sorted .005 .01 .03 .04: x4/1 .02, x4/2 .02, x4/3 .04, x4/4 .04 (then running min)
    assert S.benjamini_hochberg(P_EXAMPLE) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert S.benjamini_hochberg([0.01, 0.02, 0.9]) == pytest.approx([0.03, 0.03, 0.9])


def test_bh_matches_scipy_false_discovery_control():
    rng = np.random.default_rng(1)
    for size in (1, 2, 7, 50):
        p = rng.random(size) ** 2
        assert S.benjamini_hochberg(p) == pytest.approx(stats.false_discovery_control(p, method="bh"))


def test_corrections_ignore_nan():
    p = [0.01, np.nan, 0.04]
    for method in ("holm", "bonferroni", "bh"):
        adjusted = S.correct_pvalues(p, method)
        assert math.isnan(adjusted[1])
        assert adjusted[[0, 2]] == pytest.approx(S.correct_pvalues([0.01, 0.04], method))
    with pytest.raises(ValueError):
        S.correct_pvalues([1.5], "holm")
    with pytest.raises(InvalidParameterError, match="method= must be one of 'holm', 'bonferroni', 'bh', 'none'"):
        S.correct_pvalues([0.1], "sidak")
