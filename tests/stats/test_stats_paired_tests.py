"""Paired tests, effect size and bootstrap interval, checked against scipy called directly on
the same vectors (so passing the wrong arrays, the wrong order or the wrong alternative fails)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from tiedrank import stats as S
from tiedrank.core.validation import InvalidParameterError


def test_t_test_matches_scipy(vectors):
    a, b = vectors
    expected = stats.ttest_rel(a, b)
    assert S.t_test(a, b) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    # orientation: the statistic is for a - b, so swapping flips its sign only
    swapped = S.t_test(b, a)
    assert swapped[0] == pytest.approx(-expected.statistic) and swapped[1] == pytest.approx(expected.pvalue)


def test_wilcoxon_matches_scipy(vectors):
    a, b = vectors
    expected = stats.wilcoxon(a, b, alternative="two-sided")
    assert S.wilcoxon_test(a, b) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    # a one-sided call would differ: guards against the wrong alternative
    assert S.wilcoxon_test(a, b)[1] != pytest.approx(stats.wilcoxon(a, b, alternative="greater").pvalue)


def test_randomization_matches_scipy_and_is_reproducible(vectors):
    a, b = vectors
    ours = S.randomization_test(a, b, seed=11, n_resamples=4999)
    expected = stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
        vectorized=True, n_resamples=4999, alternative="two-sided", rng=np.random.default_rng(11))
    assert ours == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    assert ours[0] == pytest.approx(np.mean(a - b))
    assert S.randomization_test(a, b, seed=11, n_resamples=4999) == ours  # same seed, same p
    # 2^30 sign patterns >> 4999: the draw is random and the seed is really used
    ps = {S.randomization_test(a, b, seed=s, n_resamples=4999)[1] for s in range(5)}
    assert len(ps) > 1


def test_randomization_small_n_is_exact_enumeration():
    a = np.array([0.9, 0.7, 0.8, 0.6, 0.5])
    b = np.array([0.5, 0.6, 0.3, 0.65, 0.2])
    d = a - b
    observed = abs(d.mean())
    flips = np.array(list(itertools.product([1, -1], repeat=5)))
    exact = np.mean(np.abs((flips * d).mean(axis=1)) >= observed - 1e-12)  # hand enumeration
    assert S.randomization_test(a, b, seed=0)[1] == pytest.approx(exact)
    assert S.randomization_test(a, b, seed=123)[1] == pytest.approx(exact)  # seed irrelevant


def test_bootstrap_ci_matches_scipy_and_is_reproducible(vectors):
    a, b = vectors
    ours = S.bootstrap_ci(a, b, seed=5, n_resamples=2999)
    expected = stats.bootstrap((a - b,), np.mean, n_resamples=2999, confidence_level=0.95,
                               method="BCa", rng=np.random.default_rng(5)).confidence_interval
    assert ours == pytest.approx((expected.low, expected.high), rel=1e-12)
    assert ours[0] < np.mean(a - b) < ours[1]
    assert S.bootstrap_ci(a, b, seed=5, n_resamples=2999) == ours


def test_cohens_d_is_paired_t_over_sqrt_n(vectors):
    a, b = vectors
    # d_z = mean(d)/sd(d) = t / sqrt(n) for the paired t statistic
    assert S.cohens_d(a, b) == pytest.approx(stats.ttest_rel(a, b).statistic / math.sqrt(len(a)))
    assert S.cohens_d(a, b) == pytest.approx(np.mean(a - b) / np.std(a - b, ddof=1))


def test_mann_whitney_matches_scipy():
    rng = np.random.default_rng(3)
    x, y = rng.random(12), rng.random(17) + 0.2
    expected = stats.mannwhitneyu(x, y, alternative="two-sided")
    assert S.mann_whitney(x, y) == pytest.approx((expected.statistic, expected.pvalue))
    assert S.mann_whitney(y, x)[0] == pytest.approx(len(x) * len(y) - expected.statistic)


def test_degenerate_conventions():
    a = np.array([0.5, 0.25, 1.0])
    for test in S.TESTS:
        assert S.paired_test(a, a, test) == (0.0, 1.0)
    assert S.cohens_d(a, a) == 0.0
    assert S.bootstrap_ci(a, a) == (0.0, 0.0)
    assert S.bootstrap_ci(a + 0.25, a) == (0.25, 0.25)
    assert all(math.isnan(v) for v in S.t_test([1.0], [0.0]))
    with pytest.raises(ValueError):
        S.t_test([1.0, 2.0], [1.0])
    with pytest.raises(InvalidParameterError,
                       match="test= must be one of 't', 'wilcoxon', 'randomization', 'tukey'; got 'z'"):
        S.paired_test(a, a, "z")


@pytest.mark.parametrize(("call", "message"), [
    (lambda a: S.randomization_test(a, a, n_resamples=0), "n_resamples= must be an integer >= 1"),
    (lambda a: S.bootstrap_ci(a, a, confidence=1.5), "confidence= must be a number in (0, 1)"),
    (lambda a: S.bootstrap_ci(a, a, method="bca"), "method= must be one of 'BCa', 'percentile', 'basic'"),
])
def test_options_are_checked_with_the_allowed_values(call, message):
    with pytest.raises(InvalidParameterError) as info:
        call(np.array([0.5, 0.25, 1.0]))
    assert message in str(info.value)


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


@pytest.mark.parametrize("n, n_resamples", [
    *((n, r) for n in (14, 15, 31, 500) for r in (777, 9999)),
    # 4097 pairs make batches of 1023 resamples whose 32-bit draws are an odd count: 777 is
    # one partial batch, 2500 two whole batches and a partial one (9999 took scipy 10 s)
    (4097, 777), (4097, 2500)])
def test_batched_randomization_equals_scipy_unbatched(n, n_resamples):
    """Our batched sign flips give scipy's p-value (scipy without batching, same seed)."""
    rng = np.random.default_rng(n)
    a = rng.random(n).round(1)
    b = (a - 0.3 / math.sqrt(n) + rng.normal(0, 0.2, n)).round(1)
    ref = stats.permutation_test((a, b), _mean_diff, permutation_type="samples",
                                 vectorized=True, n_resamples=n_resamples,
                                 rng=np.random.default_rng(11))
    assert S.randomization_test(a, b, seed=11, n_resamples=n_resamples) == \
        pytest.approx((ref.statistic, ref.pvalue), rel=1e-12, abs=0)
    assert 0.0005 < ref.pvalue or n >= 500  # a p-value that is not at its floor somewhere


@pytest.mark.parametrize("n", [5, 31, 4097])
@pytest.mark.parametrize("method", ["BCa", "percentile", "basic"])
def test_batched_bootstrap_equals_scipy_unbatched(n, method):
    rng = np.random.default_rng(n)
    a = rng.random(n).round(1)
    b = (a - 0.02 + rng.normal(0, 0.2, n)).round(1)
    ref = stats.bootstrap((a - b,), np.mean, n_resamples=2999, method=method,
                          rng=np.random.default_rng(5))
    got = S.bootstrap_ci(a, b, seed=5, n_resamples=2999, method=method)
    assert got == pytest.approx(tuple(ref.confidence_interval), rel=1e-12, abs=1e-15)


_FIFTY_THOUSAND = r"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
import numpy as np
from tiedrank.stats.paired_tests import bootstrap_ci, randomization_test
rng = np.random.default_rng(0)
a = rng.random(50_000)
b = a - 0.01 + rng.normal(0, 0.2, 50_000)
low, high = bootstrap_ci(a, b)
stat, p = randomization_test(a, b)
print(low < stat < high, p)
"""


@pytest.mark.slow  # 8 s: runs in CI's second step (--slow), see tests/README.md
def test_fifty_thousand_queries_in_bounded_memory():
    """Resampling 50,000 queries 9,999 times fits in 2 GiB of address space (it used to
    allocate 3.7 GiB at once and die with MemoryError)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root), OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", _FIFTY_THOUSAND], capture_output=True,
                          text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[0] == "True"
