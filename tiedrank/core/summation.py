"""Exact, order-independent sums and means of float64 values (the summary's means).

A mean over queries must not depend on how the queries were laid out: in one table, split
into buckets, or spread over Dask workers that only send back partial sums. Floating-point
addition is not associative, so any running sum (pandas' Kahan-compensated mean included)
depends on the order and on where partial sums were cut. Here every finite float64 is an
integer multiple of 2**-1126 (``mantissa * 2**exponent`` with a 53-bit mantissa), so the sum
is kept *exactly* as one Python int scaled by 2**1126; partial sums add exactly, in any
order, and the mean is the correctly rounded quotient (CPython's int / int). It is the
closest float64 to the true mean, and so is never worse than a compensated running mean.

The hot part is vectorised: values are split into (group, exponent) bins and the integer
mantissas summed per bin with numpy (int64, no overflow: halves of 26 and 27 bits); Python
only combines the bins, whose number is bounded by groups x distinct exponents, not by the
number of values.

Examples
--------
>>> import numpy as np
>>> values = np.array([0.1, 0.2, 0.3, 1e-30, -1e-30])
>>> sums = exact_sums(np.zeros(5, dtype=np.int64), values, 1)
>>> sums[0].mean() == 0.12
True
>>> reversed_sums = exact_sums(np.zeros(5, dtype=np.int64), values[::-1], 1)
>>> reversed_sums[0] == sums[0]
True
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

_SHIFT = 1126  # 2**-1126 = (smallest subnormal 2**-1074) / 2**52: every float64 is a multiple
_EXPONENT_SPAN = 2100  # exponent + _SHIFT lies in [0, 2097] for finite float64
_HALF = 26


@dataclass(frozen=True)
class ExactSum:
    """The exact sum of a set of float64 values (NaN skipped, as pandas' mean does).

    ``scaled`` is the sum of the finite values times 2**1126 (an exact Python int),
    ``count`` the number of non-NaN values, ``positive_inf`` / ``negative_inf`` the
    infinities seen. Two ExactSums add exactly (``a + b``), so partial sums from buckets
    or workers combine to the same bits in any order.
    """

    scaled: int = 0
    count: int = 0
    positive_inf: int = 0
    negative_inf: int = 0

    def __add__(self, other: ExactSum) -> ExactSum:
        return ExactSum(self.scaled + other.scaled, self.count + other.count,
                        self.positive_inf + other.positive_inf,
                        self.negative_inf + other.negative_inf)

    def total(self) -> float:
        """The correctly rounded sum."""
        if self.positive_inf or self.negative_inf:
            return _infinite(self)
        return self.scaled / (1 << _SHIFT)

    def mean(self) -> float:
        """The correctly rounded mean of the non-NaN values (NaN when there are none)."""
        if self.count == 0:
            return float("nan")
        if self.positive_inf or self.negative_inf:
            return _infinite(self)
        return self.scaled / (self.count << _SHIFT)


def _infinite(s: ExactSum) -> float:
    if s.positive_inf and s.negative_inf:
        return float("nan")
    return float("inf") if s.positive_inf else float("-inf")


def exact_sums(groups: np.ndarray, values: np.ndarray, n_groups: int) -> list[ExactSum]:
    """The :class:`ExactSum` of ``values`` in each group ``0 .. n_groups - 1``.

    Parameters
    ----------
    groups : int array
        Group code of each value (0-based).
    values : float array
        The values; NaN is skipped, infinities are counted.
    n_groups : int
        Number of groups (empty groups get an empty sum).
    """
    groups = np.asarray(groups, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    count = np.bincount(groups, minlength=n_groups)
    posinf = neginf = np.zeros(n_groups, dtype=np.int64)
    finite = np.isfinite(values)
    if not finite.all():  # NaN is not counted; infinities are, apart
        count = count - np.bincount(groups[np.isnan(values)], minlength=n_groups)
        posinf = np.bincount(groups[values == np.inf], minlength=n_groups)
        neginf = np.bincount(groups[values == -np.inf], minlength=n_groups)
    finite &= values != 0
    fraction, exponent = np.frexp(values[finite])
    mantissa = np.ldexp(fraction, 53).astype(np.int64)  # exact: 53 significant bits
    shift = exponent.astype(np.int64) - 53 + _SHIFT
    bin_shift, group_of, high, low = _bins(groups[finite], shift, mantissa, n_groups)
    scaled = [0] * n_groups
    for group, s, h, lo in zip(group_of.tolist(), bin_shift.tolist(), high.tolist(), low.tolist()):
        scaled[group] += ((int(h) << _HALF) + int(lo)) << s
    return [ExactSum(scaled[g], int(count[g]), int(posinf[g]), int(neginf[g]))
            for g in range(n_groups)]


def _bins(groups: np.ndarray, shift: np.ndarray, mantissa: np.ndarray,
          n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The (group, exponent) bins of the values: each bin's shift and group, and the
    sums of its mantissas' high and low parts, exact.

    Counted, not sorted, when the bins are few next to the values: every part is at most
    2**27 in size, so a float64 running sum of fewer than 2**26 of them is an exact integer
    (np.bincount's). Else sorted by bin and summed in int64. Either way the same integers."""
    # mantissa = high * 2**26 + low with low in [0, 2**26) (the shift floors): |high| <= 2**27
    high_half = mantissa >> _HALF
    low_half = mantissa - (high_half << _HALF)
    present = np.bincount(shift, minlength=_EXPONENT_SPAN) > 0
    exponents = np.flatnonzero(present)
    n_bins = n_groups * len(exponents)
    if len(mantissa) < 1 << 26 and n_bins <= 4 * len(mantissa) + 4096:
        rank = np.cumsum(present) - 1
        key = groups * len(exponents) + rank[shift]
        high = np.bincount(key, weights=high_half, minlength=n_bins)
        low = np.bincount(key, weights=low_half, minlength=n_bins)
        used = np.flatnonzero(np.bincount(key, minlength=n_bins))
        group_of, exponent_of = np.divmod(used, max(len(exponents), 1))
        return exponents[exponent_of], group_of, high[used], low[used]
    key = groups * _EXPONENT_SPAN + shift
    order = np.argsort(key, kind="stable")
    key, high_half, low_half = key[order], high_half[order], low_half[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, int)
    high = np.add.reduceat(high_half, starts) if len(starts) else starts
    low = np.add.reduceat(low_half, starts) if len(starts) else starts
    group_of, bin_shift = np.divmod(key[starts], _EXPONENT_SPAN)
    return bin_shift, group_of, high, low


MIN_GEO_MEAN = 1e-5
"""trec_eval's floor under a per-query value before its logarithm (``MIN_GEO_MEAN`` of
trec_eval.h): a query scoring 0 counts as 0.00001 in gm_map and gm_bpref."""


@dataclass(frozen=True)
class Summary:
    """How the per-query values of a metric become the run's value, in two exact steps.

    ``summand`` maps each per-query value to what is summed exactly (:class:`ExactSum`, so
    buckets and Dask workers combine in any order to the same bits) and ``finish`` maps
    that sum to the summary value.

    Examples
    --------
    >>> import numpy as np
    >>> values = np.array([0.5, 0.125, 0.0])
    >>> geometric = SUMMARIES["geometric"]
    >>> total = exact_sums(np.zeros(3, dtype=np.int64), geometric.summand(values), 1)[0]
    >>> round(geometric.finish(total), 6)   # (0.5 * 0.125 * 0.00001) ** (1/3)
    0.00855
    """

    name: str
    summand: Callable[[np.ndarray], np.ndarray]
    finish: Callable[[ExactSum], float]


def _geometric_summand(values: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):  # NaN stays NaN (skipped)
        return np.log(np.maximum(values, MIN_GEO_MEAN))


SUMMARIES = {
    "mean": Summary("mean", lambda values: values, ExactSum.mean),
    "sum": Summary("sum", lambda values: values,
                   lambda s: s.total() if s.count else float("nan")),
    "geometric": Summary("geometric mean", _geometric_summand,
                         lambda s: math.exp(s.mean()) if s.count else float("nan")),
}
"""The summaries a metric family may declare: the arithmetic mean (every measure but
these), the sum (trec_eval's ``num_ret``, ``num_rel``, ``num_rel_ret``: its summary line is
the total over queries) and trec_eval's geometric mean ``exp(mean(log(max(v, 1e-5))))``
(``gm_map``, ``gm_bpref``)."""


SUMMARY_KEYS = ["run", "metric", "policy"]
"""The keys of a summary: one row per (run, metric, policy)."""
