"""Paired tests on two runs' per-query values, effect size and bootstrap interval.

Every statistic comes from :mod:`scipy.stats`; this module adds the conventions IR needs:

* When every paired difference is exactly 0 there is no evidence of a difference: every
  test returns statistic 0 and p = 1, the effect size is 0 and the interval is [0, 0]
  (scipy would return NaN or warn). With fewer than two pairs everything is NaN.
* The randomization test and the bootstrap are seeded: the same seed, the same numbers.

Examples
--------
>>> paired_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3], "randomization")
(0.6, 0.25)
"""
from __future__ import annotations

import math

import numpy as np

from ..core.progress import step
from ..core.validation import Interval, Options, validate_params

__all__ = [
    "TESTS",
    "bootstrap_ci",
    "cohens_d",
    "mann_whitney",
    "paired_test",
    "randomization_test",
    "resample_batch",
    "t_test",
    "tukey_hsd",
    "wilcoxon_test",
]

TESTS = ("t", "wilcoxon", "randomization", "tukey")
"""Tests of two runs' per-query values: Student's paired t-test, Wilcoxon signed-rank, Fisher
randomization (paired), and Tukey's HSD (runs as groups, as ranx's ``stat_test="tukey"``:
over several runs, :func:`~tiedrank.stats.compare_runs` adjusts it over every pair)."""
BOOTSTRAP_METHODS = ("BCa", "percentile", "basic")
"""Interval methods of :func:`scipy.stats.bootstrap`."""
RESAMPLES = Interval(int, 1, None)
"""Allowed ``n_resamples`` (randomization test and bootstrap)."""
CONFIDENCE = Interval(float, 0, 1, closed="neither")
"""Allowed ``confidence`` of a bootstrap interval."""
ALPHA = Interval(float, 0, 1, closed="neither")
"""Allowed significance levels ``alpha``."""
SEED = Interval(int, None, None)
"""Allowed seeds: any integer, as the ``random`` policy's (a seed keys a stream, it is never
a count); :func:`generator` takes negative ones to numpy's non-negative domain."""


def _generator(seed: int) -> np.random.Generator:
    """numpy's generator of ``seed``: ``default_rng(seed)`` for ``seed >= 0`` (so the numbers
    are scipy's with ``rng=default_rng(seed)``), ``default_rng(seed % 2**128)`` below zero
    (numpy refuses negative seeds: "expected non-negative integer").

    >>> bool(_generator(-1).integers(10**9) == np.random.default_rng(2**128 - 1).integers(10**9))
    True
    """
    seed = int(seed)
    return np.random.default_rng(seed if seed >= 0 else seed % 2**128)
BATCH_CELLS = 1 << 22
"""Resampled values held at once (about 32 MB of float64) by the randomization test and
the bootstrap: memory is O(queries x batch), never O(queries x n_resamples)."""


def resample_batch(n_queries: int) -> int:
    """Resamples per batch so that a batch holds at most :data:`BATCH_CELLS` values.

    Examples
    --------
    >>> resample_batch(10), resample_batch(50_000), resample_batch(10**8)
    (419430, 83, 1)
    """
    return max(1, BATCH_CELLS // max(1, int(n_queries)))


def _pair_arrays(a, b) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"paired values need two 1-d arrays of equal length, got shapes "
                         f"{a.shape} and {b.shape}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("paired values must be finite")
    return a, b


def _degenerate(a: np.ndarray, b: np.ndarray) -> tuple[float, float] | None:
    """(statistic, p) for the cases scipy does not answer usefully, else None."""
    if len(a) < 2:
        return math.nan, math.nan
    if np.array_equal(a, b):  # no difference at all: no evidence against H0
        return 0.0, 1.0
    return None


def t_test(a, b) -> tuple[float, float]:
    """Paired Student t-test of H0: E[A - B] = 0 (two-sided).

    t = mean(d) / (sd(d) / sqrt(n)) with d = a - b and sd the sample standard deviation
    (ddof = 1), n - 1 degrees of freedom; computed by ``scipy.stats.ttest_rel(a, b)``.

    Returns
    -------
    (statistic, p_value)

    Examples
    --------
    >>> [round(v, 4) for v in t_test([0.9, 0.8, 0.7, 0.6], [0.5, 0.6, 0.6, 0.5])]
    [2.8284, 0.0663]
    """
    from scipy import stats  # here, not at the top: the CLI starts without scipy
    a, b = _pair_arrays(a, b)
    special = _degenerate(a, b)
    if special is not None:
        return special
    result = stats.ttest_rel(a, b, alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


def wilcoxon_test(a, b) -> tuple[float, float]:
    """Wilcoxon signed-rank test of H0: the differences a - b are symmetric about 0.

    W = min(W+, W-), the smaller sum of the ranks of |d| over positive or negative
    differences; zero differences are dropped (``zero_method="wilcox"``, as in most IR
    toolkits); exact p-value for small n without ties, normal approximation otherwise
    (``scipy.stats.wilcoxon(a, b)``, ``method="auto"``).

    Returns
    -------
    (statistic, p_value)

    Examples
    --------
    >>> wilcoxon_test([0.9, 0.8, 0.7, 0.6, 0.5], [0.1, 0.2, 0.3, 0.4, 0.45])
    (0.0, 0.0625)
    """
    from scipy import stats  # here, not at the top: the CLI starts without scipy
    a, b = _pair_arrays(a, b)
    special = _degenerate(a, b)
    if special is not None:
        return special
    result = stats.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


def _mean_difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x - y, axis=axis)


@validate_params({"n_resamples": [RESAMPLES], "seed": [SEED]})
def randomization_test(a, b, *, seed: int = 0, n_resamples: int = 9999) -> tuple[float, float]:
    """Fisher's paired randomization (permutation) test of the mean difference.

    Under H0 the labels A/B of each query are exchangeable, so each difference d_i keeps or
    flips its sign with probability 1/2. p = share of sign assignments whose
    |mean(d)| is at least the observed one. With 2^n <= ``n_resamples`` every assignment
    is enumerated (exact); otherwise ``n_resamples`` random ones are drawn from
    ``numpy.random.default_rng(seed)`` and p = (count + 1) / (n_resamples + 1), so the same
    seed always gives the same p-value (unlike ranx, whose p-values change on every call).
    The p-value is that of ``scipy.stats.permutation_test((a, b), mean(x - y),
    permutation_type="samples", rng=default_rng(seed))`` (the same random numbers decide
    the same sign flips), but computed by sign flips in batches of :func:`resample_batch`
    resamples: bounded memory, and about 20x faster than scipy's shuffling of every pair.

    Returns
    -------
    (statistic, p_value) where the statistic is mean(a - b).

    Examples
    --------
    >>> randomization_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3])  # 2^3 assignments: exact
    (0.6, 0.25)
    """
    from scipy import stats  # here, not at the top: the CLI starts without scipy
    a, b = _pair_arrays(a, b)
    special = _degenerate(a, b)
    if special is not None:
        return (float(np.mean(a - b)) if len(a) else math.nan), special[1]
    rng = _generator(seed)
    if len(a) < 63 and 2 ** len(a) <= n_resamples:  # every assignment: scipy enumerates
        result = stats.permutation_test(
            (a, b), _mean_difference, permutation_type="samples", vectorized=True,
            n_resamples=n_resamples, alternative="two-sided", rng=rng)
        return float(result.statistic), float(result.pvalue)
    return _sign_flip_test(a - b, float(np.mean(a - b)), n_resamples, rng)


def _sign_flips(n: int, n_resamples: int, rng: np.random.Generator):
    """Yield (resamples, n) arrays of +-1: the swaps scipy's ``permutation_test``
    (``permutation_type="samples"``) makes, from the same random numbers.

    scipy shuffles each pair (a_i, b_i) with ``Generator.permuted``: one 32-bit draw per
    pair, in order, whose lowest bit 0 swaps the pair. A 64-bit draw of the bit generator
    gives two 32-bit draws, low half first; a half left at the end of a batch is used first
    in the next one, as the generator's own buffer does.
    """
    batch, pending = resample_batch(n), np.empty(0, dtype=np.int8)
    for start in range(0, n_resamples, batch):
        rows = min(batch, n_resamples - start)
        need = rows * n - len(pending)
        raw = rng.bit_generator.random_raw((need + 1) // 2)
        bits = np.empty(2 * len(raw), dtype=np.int8)
        bits[0::2], bits[1::2] = raw & 1, (raw >> 32) & 1
        bits = np.concatenate([pending, bits])
        pending = bits[rows * n:]
        yield (2 * bits[:rows * n] - 1).reshape(rows, n)
        step("randomization test resamples", start + rows, n_resamples)


def _sign_flip_test(d: np.ndarray, observed: float, n_resamples: int,
                    rng: np.random.Generator) -> tuple[float, float]:
    """The randomization test by sign flips in batches: scipy's null distribution and
    p-value formulas (relative tolerance 100 eps, (count + 1) / (n_resamples + 1))."""
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    at_most = at_least = 0
    for signs in _sign_flips(len(d), n_resamples, rng):
        # scipy's mean runs over a strided axis: a plain sum in query order, not numpy's
        # pairwise one; the same order keeps values equal to the observed one equal
        flipped = np.ascontiguousarray((signs * d).T)
        null = np.add.reduce(flipped, axis=0) / len(d)
        at_most += int(np.count_nonzero(null <= observed + gamma))
        at_least += int(np.count_nonzero(null >= observed - gamma))
    p = 2 * min(at_most + 1, at_least + 1) / (n_resamples + 1)
    return observed, float(min(max(p, 0.0), 1.0))


@validate_params({"confidence": [CONFIDENCE], "n_resamples": [RESAMPLES],
                  "method": [Options(*BOOTSTRAP_METHODS)], "seed": [SEED]})
def bootstrap_ci(a, b, *, seed: int = 0, confidence: float = 0.95,
                 n_resamples: int = 9999, method: str = "BCa") -> tuple[float, float]:
    """Bootstrap confidence interval of the mean paired difference mean(a - b).

    Queries are resampled with replacement (resampling the differences d_i = a_i - b_i is
    the same as resampling the pairs); the interval is the BCa interval by default, the
    same numbers as ``scipy.stats.bootstrap((d,), np.mean, rng=default_rng(seed))`` (same
    random numbers, same formulas), so the same seed gives the same interval. When all
    differences are equal the interval is [d, d].

    Unlike scipy, memory and time stay bounded for any number of queries: resamples are
    drawn in batches of :func:`resample_batch`, and the BCa acceleration uses the
    jackknife means of the mean in closed form, (sum(d) - d_i) / (n - 1), instead of n
    leave-one-out copies of the data (n^2 work: 18 s at 50,000 queries).

    Returns
    -------
    (low, high)

    Examples
    --------
    >>> low, high = bootstrap_ci([0.9, 0.8, 0.7, 0.6, 0.5], [0.5, 0.6, 0.6, 0.5, 0.4])
    >>> bool(low < 0.16 < high)
    True
    """
    a, b = _pair_arrays(a, b)
    d = a - b
    if len(d) < 2:
        return math.nan, math.nan
    if np.ptp(d) == 0:  # degenerate: every resample has the same mean (BCa would be NaN)
        return float(d[0]), float(d[0])
    means = _bootstrap_means(d, n_resamples, _generator(seed))
    alpha = (1 - confidence) / 2
    levels = (_bca_levels(d, means, alpha) if method == "BCa"
              else np.array([alpha, 1 - alpha]))
    low, high = (float(v) for v in _quantile(means, levels))
    if method == "basic":
        centre = float(np.mean(d))
        low, high = 2 * centre - high, 2 * centre - low
    return low, high


def _quantile(values: np.ndarray, levels) -> np.ndarray:
    """scipy >= 1.16's ``stats.quantile`` (default: linear interpolation, Hyndman-Fan type 7),
    the definition np.quantile's default uses too; older scipy (the floor is 1.15) gets numpy's."""
    from scipy import stats
    return getattr(stats, "quantile", np.quantile)(values, levels)


def _bootstrap_means(d: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_resamples`` resamples of d, drawn batch by batch as scipy draws them."""
    n, batch = len(d), resample_batch(len(d))
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, batch):
        stop = min(start + batch, n_resamples)
        means[start:stop] = np.mean(d[rng.integers(0, n, (stop - start, n))], axis=-1)
        step("bootstrap resamples", stop, n_resamples)
    return means


def _bca_levels(d: np.ndarray, means: np.ndarray, alpha: float) -> np.ndarray:
    """The BCa quantile levels (Efron and Tibshirani 14.3, 15.4; scipy's formulas) of the
    mean, with the jackknife means in closed form."""
    from scipy.special import ndtr, ndtri

    centre = np.mean(d)
    z0 = ndtri((np.count_nonzero(means < centre) + np.count_nonzero(means <= centre))
               / (2 * len(means)))
    n = len(d)
    jackknife = (d.sum() - d) / (n - 1)
    u = (n - 1) * (jackknife.mean() - jackknife)
    a_hat = np.sum(u ** 3) / n ** 3 / 6 / (np.sum(u ** 2) / n ** 2) ** 1.5
    z = float(ndtri(alpha))
    return np.array([ndtr(z0 + (z0 + q) / (1 - a_hat * (z0 + q))) for q in (z, -z)])


def cohens_d(a, b) -> float:
    """Cohen's d for paired samples (often written d_z): mean(d) / sd(d), d = a - b.

    sd uses ddof = 1. Convention when sd(d) = 0: 0 if mean(d) = 0, else +-inf.

    Examples
    --------
    >>> round(cohens_d([0.9, 0.8, 0.7, 0.6], [0.5, 0.6, 0.6, 0.5]), 4)
    1.4142
    """
    a, b = _pair_arrays(a, b)
    d = a - b
    if len(d) < 2:
        return math.nan
    mean, sd = float(np.mean(d)), float(np.std(d, ddof=1))
    if sd == 0:
        return 0.0 if mean == 0 else math.copysign(math.inf, mean)
    return mean / sd


def mann_whitney(x, y) -> tuple[float, float]:
    """Mann-Whitney U test for two *unpaired* sets of values (two-sided).

    U = number of pairs (x_i, y_j) with x_i > y_j, plus half the ties;
    ``scipy.stats.mannwhitneyu(x, y)`` (continuity correction, exact p for small samples).
    Use it when the two runs were evaluated on different query sets.

    Examples
    --------
    >>> mann_whitney([3.0, 4.0, 5.0], [0.0, 1.0, 2.0])
    (9.0, 0.1)
    """
    from scipy import stats  # here, not at the top: the CLI starts without scipy
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if len(x) == 0 or len(y) == 0:
        return math.nan, math.nan
    result = stats.mannwhitneyu(x, y, alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


@validate_params({"test": [Options(*TESTS)], "n_resamples": [RESAMPLES], "seed": [SEED]})
def paired_test(a, b, test: str = "t", *, seed: int = 0,
                n_resamples: int = 9999) -> tuple[float, float]:
    """Dispatch to :func:`t_test`, :func:`wilcoxon_test`, :func:`randomization_test` or
    :func:`tukey_hsd` (of the two runs alone)."""
    if test == "t":
        return t_test(a, b)
    if test == "wilcoxon":
        return wilcoxon_test(a, b)
    if test == "tukey":
        statistic, p = tukey_hsd([a, b])
        return float(statistic[0, 1]), float(p[0, 1])
    return randomization_test(a, b, seed=seed, n_resamples=n_resamples)


def tukey_hsd(groups) -> tuple[np.ndarray, np.ndarray]:
    r"""Tukey's honestly significant difference test of every pair of ``groups`` (each run's
    per-query values, as independent groups), by :func:`scipy.stats.tukey_hsd`: the
    studentized range of the mean differences over the pooled within-group variance,

    .. math:: q_{ij} = |\bar x_i - \bar x_j| / \sqrt{\tfrac{s^2}{2}(1/n_i + 1/n_j)},

    each p-value adjusted over all k(k-1)/2 pairs. Returns the matrices of mean differences
    (row minus column) and p-values; NaN where a group has fewer than two values or every
    value is the same (no variance to scale by).

    >>> diff, p = tukey_hsd([[0.5, 0.6, 0.7], [0.1, 0.2, 0.3], [0.5, 0.5, 0.8]])
    >>> round(float(diff[0, 1]), 3), bool(p[0, 1] < 0.05), bool(p[0, 2] > 0.5)
    (0.4, True, True)
    """
    arrays = [np.asarray(g, dtype=np.float64) for g in groups]
    k = len(arrays)
    nan = np.full((k, k), math.nan)
    if k < 2 or any(len(g) < 2 for g in arrays) or \
            all(np.ptp(g) == 0 for g in arrays):  # no within-group variance to scale by
        return nan, nan
    from scipy import stats

    result = stats.tukey_hsd(*arrays)
    return np.asarray(result.statistic, dtype=np.float64), np.asarray(result.pvalue, dtype=np.float64)

