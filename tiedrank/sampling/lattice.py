"""Exact distribution of a run's mean (and of a difference of two runs) on a lattice.

Under random tie-breaking the queries are independent, so the law of a run's mean is the
convolution of the per-query laws (:mod:`tiedrank.sampling.laws`). When every value is an
integer multiple of one step the convolution lives on an integer lattice and is exact:

* Success@k: values 0/1, step 1/Q for the mean of Q queries;
* P@k: counts/k, step 1/(kQ);
* R@k and Rprec: counts/R_q, exact on the lattice 1/(LQ) with L = lcm of the R_q when L
  is at most :data:`MAX_LCM`.

The convolution is a balanced tree of batched FFT convolutions (one numpy call per tree
level, no loop per query); each probability carries an absolute rounding error of order
1e-16 x log2(Q), far below any sampling error, and the support is exactly the lattice
points between the smallest and the largest possible sums.

RR (values 1/rank) has no small common lattice. ``step=h`` rounds every per-query value
to the nearest multiple of h, which moves the run mean by at most h/2 in *every* outcome:
the result is then a law whose every value is within ``error = h/2`` of the truth, and
:meth:`LatticeLaw.split` of a value v is bracketed by evaluating at v -/+ error. For a
useful bracket h must be well below the standard deviation of the mean, and the lattice
then has about sum_q (range of RR_q) / h cells: with thousands of tied queries that is
10^8 cells or more, where the sampler (whose error on a probability is
sqrt(p(1-p)/n_draws), at a cost linear in queries) is the better tool. The same holds for
AP and nDCG, whose per-query laws are not small at all: sample them, and use the exact
moments (:mod:`tiedrank.sampling.moments`) as the cross-check.

Examples
--------
Two queries, each with one relevant document among two tied at the top: P@1 is 0 or 1
with probability 1/2 each, so the mean P@1 is 0, 1/2 or 1 with probability 1/4, 1/2, 1/4.

>>> import pandas as pd
>>> from tiedrank import Run, Qrels, build_tie_table
>>> run = Run("r", pd.DataFrame({"query": ["q1", "q1", "q2", "q2"], "doc": list("abcd"),
...                              "score": 1.0}))
>>> qrels = Qrels(pd.DataFrame({"query": ["q1", "q2"], "doc": ["a", "c"], "relevance": 1}))
>>> law = run_mean_law(build_tie_table(run, qrels), "P@1")
>>> law.values().tolist(), law.pmf.round(12).tolist()
([0.0, 0.5, 1.0], [0.25, 0.5, 0.25])
>>> law.split(0.5)   # P(mean < 0.5), P(mean = 0.5), P(mean > 0.5)
(0.25, 0.5, 0.25)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..metrics import Metric, parse_metric
from ..core.ties import TieTable
from .laws import QueryLaws, metric_laws

MAX_LCM = 5040
"""Largest common denominator of R@k / Rprec values taken as an exact lattice."""

DEFAULT_MAX_CELLS = 4_000_000
"""Largest lattice (cells of the widest convolution level) built before refusing."""

_ON_LATTICE = 1e-9  # relative tolerance for "this value is a lattice point"


@dataclass(frozen=True)
class LatticeLaw:
    """P(value = (offset + i) * step) = pmf[i].

    ``error`` is 0 for an exact lattice; for a rounded grid every true value lies within
    ``error`` of its lattice point.
    """

    metric: str
    offset: int
    step: float
    pmf: np.ndarray
    error: float = 0.0

    @property
    def exact(self) -> bool:
        return self.error == 0.0

    def values(self) -> np.ndarray:
        return (self.offset + np.arange(len(self.pmf))) * self.step

    def mean(self) -> float:
        return float(self.pmf @ self.values())

    def variance(self) -> float:
        centred = self.values() - self.mean()
        return float(self.pmf @ (centred * centred))

    def split(self, value: float) -> tuple[float, float, float]:
        """(P(X < value), P(X = value), P(X > value)); "=" means within 1e-9 (relative)
        of a lattice point, so a mean computed in floating point finds its point."""
        position = value / self.step - self.offset
        nearest = round(position)
        tolerance = min(_ON_LATTICE * max(1.0, abs(value)), self.step / 4)
        cdf = np.concatenate([[0.0], np.cumsum(self.pmf)])
        if abs(value - (self.offset + nearest) * self.step) <= tolerance:
            index = int(np.clip(nearest, 0, len(self.pmf)))
            equal = float(self.pmf[index]) if nearest == index < len(self.pmf) else 0.0
            below = float(cdf[index])
        else:
            below, equal = float(cdf[int(np.clip(math.ceil(position), 0, len(self.pmf)))]), 0.0
        below, equal = min(below, 1.0), min(equal, 1.0)
        return below, equal, max(0.0, 1.0 - below - equal)

    def below_bounds(self, value: float) -> tuple[float, float]:
        """Bounds on the true P(X < value), from |X - X_grid| <= error: X_grid < value - error
        implies X < value, which implies X_grid < value + error (equal on an exact lattice)."""
        return self.split(value - self.error)[0], self.split(value + self.error)[0]


def _integer_atoms(laws: QueryLaws, included: np.ndarray, step: float | None):
    """Integer lattice index of every atom of the included queries, the step of one unit
    in value, and the rounding error per query (0 when exact)."""
    query = laws.atom_query
    keep = included[query]
    if step is None:
        if laws.numerator is None:
            raise ValueError("this metric's values have no common lattice; pass step= (a grid "
                             "with error step/2 on the mean) or use the sampler")
        denominators = np.unique(laws.denominator[included])
        common = math.lcm(*(int(d) for d in denominators)) if len(denominators) else 1
        if common > MAX_LCM:
            raise ValueError(f"the values' common denominator {common:,} exceeds {MAX_LCM:,}; "
                             "pass step= (a grid with error step/2 on the mean)")
        factor = common // laws.denominator[query[keep]]
        return query[keep], laws.numerator[keep] * factor, laws.probability[keep], 1.0 / common, 0.0
    if not step > 0:
        raise ValueError(f"step must be > 0; got {step!r}")
    index = np.rint(laws.value[keep] / step).astype(np.int64)
    return query[keep], index, laws.probability[keep], float(step), step / 2


def run_mean_law(table: TieTable, metric: str | Metric, *, included: np.ndarray | None = None,
                 step: float | None = None, max_cells: int = DEFAULT_MAX_CELLS) -> LatticeLaw:
    """The law of the run's mean of ``metric`` under random tie-breaking.

    Parameters
    ----------
    metric : str or Metric
        Success@k, P@k, R@k, Rprec (exact), or RR / RR@k with ``step``.
    included : bool array, optional
        Queries in the mean (default: those with a relevant document).
    step : float, optional
        Round per-query values to multiples of ``step`` (error ``step / 2`` on the mean);
        default: the exact lattice.
    max_cells : int
        Refuse (ValueError) a lattice larger than this.
    """
    m = parse_metric(metric)
    included = table.evaluated if included is None else np.asarray(included, dtype=bool)
    count = int(included.sum())
    if count == 0:
        raise ValueError("no query is included in the mean")
    query, index, probability, unit, error = _integer_atoms(metric_laws(table, m), included, step)
    offset, pmf = _convolve_queries(query, index, probability, max_cells)
    return LatticeLaw(m.name, offset, unit / count, pmf, error)


def _convolve_queries(query: np.ndarray, index: np.ndarray, probability: np.ndarray,
                      max_cells: int) -> tuple[int, np.ndarray]:
    """Offset and pmf of the sum over queries of independent integer variables."""
    used, local = np.unique(query, return_inverse=True)
    lowest = np.full(len(used), np.iinfo(np.int64).max)
    highest = np.full(len(used), np.iinfo(np.int64).min)
    np.minimum.at(lowest, local, index)
    np.maximum.at(highest, local, index)
    width = highest - lowest + 1
    offset = int(lowest.sum())
    moving = width > 1
    if not moving.any():
        return offset, np.ones(1)
    row_of = np.cumsum(moving) - 1
    rows, widest = int(moving.sum()), int(width.max())
    total = int((width[moving] - 1).sum()) + 1
    if max(rows * widest, total) > max_cells:
        raise ValueError(f"the lattice needs {max(rows * widest, total):,} cells, above "
                         f"max_cells={max_cells:,}; use a coarser step or the sampler")
    dense = np.zeros((rows, widest))
    atom = moving[local]
    np.add.at(dense, (row_of[local[atom]], (index - lowest[local])[atom]), probability[atom])
    return offset, _tree_convolve(dense)[:total]


def _tree_convolve(rows: np.ndarray) -> np.ndarray:
    """Convolution of all rows, pairing rows level by level (batched FFT per level)."""
    while len(rows) > 1:
        if len(rows) % 2:
            delta = np.zeros((1, rows.shape[1]))
            delta[0, 0] = 1.0
            rows = np.vstack([rows, delta])
        rows = _fft_convolve(rows[0::2], rows[1::2])
    pmf = rows[0]
    return pmf / pmf.sum()


def _fft_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise full convolution of two (rows, L) arrays of probabilities, by real FFT."""
    length = a.shape[1] + b.shape[1] - 1
    size = 1 << max(length - 1, 1).bit_length()
    out = np.fft.irfft(np.fft.rfft(a, size, axis=1) * np.fft.rfft(b, size, axis=1), size,
                       axis=1)[:, :length]
    return np.maximum(out, 0.0, out=out)  # round-off can dip below zero


def difference_law(law_a: LatticeLaw, law_b: LatticeLaw) -> LatticeLaw:
    """The law of mean_A - mean_B for independent tie-breaks of two runs on one lattice."""
    if not math.isclose(law_a.step, law_b.step, rel_tol=1e-12):
        raise ValueError("the two laws are on different lattices (different query counts or "
                         "denominators); they cannot be subtracted exactly")
    pmf = _fft_convolve(law_a.pmf[None, :], law_b.pmf[None, ::-1])[0]
    offset = law_a.offset - (law_b.offset + len(law_b.pmf) - 1)
    return LatticeLaw(f"{law_a.metric} (A - B)", offset, law_a.step, pmf / pmf.sum(),
                      law_a.error + law_b.error)


@dataclass(frozen=True)
class WinOutcome:
    """P(A's mean > B's), P(equal), P(A's < B's) under independent random tie-breaks;
    ``win_probability`` = P(A > B) + P(equal) / 2. ``error`` > 0 marks a rounded grid
    (then ``bounds`` brackets P(A > B))."""

    metric: str
    a_wins: float
    tie: float
    b_wins: float
    error: float = 0.0
    bounds: tuple[float, float] | None = None

    @property
    def win_probability(self) -> float:
        return self.a_wins + 0.5 * self.tie


def lattice_win_probability(table_a: TieTable, table_b: TieTable, metric: str | Metric, *,
                            included: np.ndarray | None = None, step: float | None = None,
                            max_cells: int = DEFAULT_MAX_CELLS) -> WinOutcome:
    """Exact P(A beats B), P(tie) on the mean of a lattice metric (see module docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank import Run, Qrels, build_tie_table
    >>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]}))
    >>> a = build_tie_table(Run("A", pd.DataFrame({"query": "q", "doc": ["a", "b"],
    ...                                            "score": [1.0, 1.0]})), qrels)
    >>> b = build_tie_table(Run("B", pd.DataFrame({"query": "q", "doc": ["a", "b"],
    ...                                            "score": [1.0, 0.5]})), qrels)
    >>> outcome = lattice_win_probability(a, b, "Success@1")   # A hits with p 1/2, B never
    >>> round(outcome.a_wins, 12), round(outcome.tie, 12), round(outcome.win_probability, 12)
    (0.5, 0.5, 0.75)
    """
    if table_a.n_queries != table_b.n_queries or not np.array_equal(table_a.queries, table_b.queries):
        raise ValueError("the two tables were built against different qrels (query sets differ)")
    included = (table_a.evaluated & table_b.evaluated) if included is None else included
    law_a = run_mean_law(table_a, metric, included=included, step=step, max_cells=max_cells)
    law_b = run_mean_law(table_b, metric, included=included, step=step, max_cells=max_cells)
    diff = difference_law(law_a, law_b)
    below, equal, above = diff.split(0.0)
    bounds = None
    if diff.error:  # grid D_g within error e of D: D_g > e implies D > 0 implies D_g > -e
        bounds = (diff.split(diff.error)[2], diff.split(-diff.error)[2])
    return WinOutcome(law_a.metric, above, equal, below, diff.error, bounds)
