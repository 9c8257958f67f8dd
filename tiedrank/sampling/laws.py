"""Exact per-query laws of the metrics whose value has a small discrete support.

Under a uniform random tie-break (an independent uniform permutation inside every tie
group), one query's value of

* ``RR``, ``RR@k``: 1/rank of the first relevant document, whose pmf is exact
  (:func:`tiedrank.metrics.first_relevant_pmf`); ranks beyond k merge into one atom 0;
* ``Success@k``: a Bernoulli variable, P(1) = E[Success@k];
* ``P@k``, ``R@k``, ``Rprec``: (F + X) / d, with F the relevant documents of the groups
  wholly inside the top K (K = k, or R for Rprec), X the relevant documents the one group
  straddling K puts into its s = K - a_g slots: hypergeometric (n_g documents, k_g
  relevant, s drawn), and d = k (P@k) or R (R@k, Rprec).

A :class:`QueryLaws` holds these laws for every query of a table (a query whose value
cannot move has a single atom); it drives the inverse-CDF sampler, the exact moments and,
where the values are integers over a common denominator, the exact lattice distribution of
the run mean (:mod:`tiedrank.sampling.lattice`).

Examples
--------
Three documents tied at the top, one relevant (scenario S3 of the reference): RR is 1, 1/2
or 1/3 with probability 1/3 each.

>>> import pandas as pd
>>> from tiedrank import Run, Qrels, build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcde"),
...                              "score": [.8, .8, .8, .6, .5]}))
>>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]}))
>>> laws = metric_laws(build_tie_table(run, qrels), "RR")
>>> laws.value.round(4).tolist(), laws.probability.round(4).tolist()
([1.0, 0.5, 0.3333], [0.3333, 0.3333, 0.3333])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..metrics import Metric, first_relevant_pmf, parse_metric, success
from ..core.ties import TieTable

LAW_FAMILIES = ("RR", "Success", "P", "R", "Rprec", "Hits")
"""Metric families with a :class:`QueryLaws` (small discrete per-query support)."""


@dataclass(frozen=True)
class QueryLaws:
    """The exact law of one metric for every query of a table, as flat CSR arrays.

    Attributes
    ----------
    start : int array, length Q + 1
        Atoms of query q are ``start[q]:start[q + 1]`` (at least one per query).
    value, probability : float arrays
        The atoms (values need not be distinct; probabilities sum to 1 per query).
    numerator, denominator : int arrays, optional
        For lattice metrics (Success@k, P@k, R@k, Rprec): ``value == numerator /
        denominator[query]`` exactly, with ``numerator`` per atom and ``denominator`` per
        query. ``None`` for RR.
    """

    start: np.ndarray
    value: np.ndarray
    probability: np.ndarray
    numerator: np.ndarray | None = None
    denominator: np.ndarray | None = None

    @property
    def n_queries(self) -> int:
        return len(self.start) - 1

    @property
    def atom_query(self) -> np.ndarray:
        """Query index of every atom."""
        return np.repeat(np.arange(self.n_queries), np.diff(self.start))

    @property
    def random(self) -> np.ndarray:
        """Queries with more than one atom (the only ones a sampler needs to draw)."""
        return np.diff(self.start) > 1

    def mean(self) -> np.ndarray:
        return np.bincount(self.atom_query, weights=self.probability * self.value,
                           minlength=self.n_queries).astype(np.float64)

    def variance(self) -> np.ndarray:
        """Exact variance per query, centred first (no E[X^2] - E[X]^2 cancellation)."""
        query = self.atom_query
        centred = self.value - self.mean()[query]
        return np.bincount(query, weights=self.probability * centred * centred,
                           minlength=self.n_queries).astype(np.float64)


def metric_laws(table: TieTable, metric: str | Metric) -> QueryLaws:
    """The :class:`QueryLaws` of ``metric`` (one of :data:`LAW_FAMILIES`) on ``table``."""
    m = parse_metric(metric)
    if m.family == "RR":
        return first_relevant_laws(table, m.k)
    if m.family == "Success":
        return success_laws(table, m.k)
    if m.family in ("P", "R", "Rprec", "Hits"):
        return count_laws(table, m)
    raise ValueError(f"metric {m.name!r} has no small discrete law; expected one of "
                     f"{', '.join(LAW_FAMILIES)}")


def _assemble(n_queries: int, query: np.ndarray, value: np.ndarray, probability: np.ndarray,
              numerator: np.ndarray | None = None,
              denominator: np.ndarray | None = None) -> QueryLaws:
    """Sort atoms by query (stable, so each query keeps its atom order) into CSR form."""
    order = np.argsort(query, kind="stable")
    start = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(query, minlength=n_queries), out=start[1:])
    return QueryLaws(start, value[order], probability[order],
                     None if numerator is None else numerator[order], denominator)


def first_relevant_laws(table: TieTable, k: int | None = None) -> QueryLaws:
    """Law of RR (``k=None``) or RR@k: atoms 1/rank; the ranks beyond k merge into one 0."""
    pmf = first_relevant_pmf(table)
    n = table.n_queries
    kept = np.ones(len(pmf.rank), dtype=bool) if k is None else pmf.rank <= k
    beyond = np.bincount(pmf.query[~kept], weights=pmf.probability[~kept],
                         minlength=n).astype(np.float64)
    has_beyond = np.bincount(pmf.query[~kept], minlength=n) > 0
    no_relevant = np.bincount(pmf.query, minlength=n) == 0
    zero_query = np.flatnonzero(has_beyond | no_relevant)
    zero_probability = np.where(no_relevant, 1.0, beyond)[zero_query]
    query = np.concatenate([pmf.query[kept], zero_query])
    value = np.concatenate([1.0 / pmf.rank[kept], np.zeros(len(zero_query))])
    probability = np.concatenate([pmf.probability[kept], zero_probability])
    return _assemble(n, query, value, probability)


def success_laws(table: TieTable, k: int) -> QueryLaws:
    """Law of Success@k: 1 with the exact probability E[Success@k], else 0."""
    n = table.n_queries
    hit = success(table.scoring(), k)
    pmf = first_relevant_pmf(table)
    # P(miss) as the summed mass beyond k, not 1 - P(hit): exact for tiny misses
    miss = np.bincount(pmf.query, weights=pmf.probability * (pmf.rank > k),
                       minlength=n).astype(np.float64)
    miss[np.bincount(pmf.query, minlength=n) == 0] = 1.0
    atoms = [(q, v, p) for q, v, p in ((np.flatnonzero(hit > 0), 1, hit),
                                       (np.flatnonzero(miss > 0), 0, miss))]
    query = np.concatenate([q for q, _, _ in atoms])
    numerator = np.concatenate([np.full(len(q), v, dtype=np.int64) for q, v, _ in atoms])
    probability = np.concatenate([p[q] for q, _, p in atoms])
    return _assemble(n, query, numerator.astype(np.float64), probability, numerator,
                     np.ones(n, dtype=np.int64))


def count_laws(table: TieTable, metric: Metric) -> QueryLaws:
    """Law of P@k, R@k, Rprec or Hits@k (the count itself): fixed relevant count plus one
    hypergeometric group."""
    table = table.scoring()
    n = table.n_queries
    if metric.family == "Rprec":
        cutoff = table.n_relevant
    else:
        cutoff = np.full(n, metric.k, dtype=np.int64)
    denominator = (np.full(n, metric.k, dtype=np.int64) if metric.family == "P"
                   else np.ones(n, dtype=np.int64) if metric.family == "Hits"
                   else np.maximum(table.n_relevant, 1))
    group_cut = cutoff[table.group_query]
    a, size, rel = table.group_above, table.group_size, table.group_relevant
    inside = a + size <= group_cut
    fixed = np.bincount(table.group_query, weights=rel * inside, minlength=n).astype(np.int64)
    straddle = np.flatnonzero((a < group_cut) & ~inside & (rel > 0) & (rel < size))
    # groups straddling K with all or none relevant put a fixed count into the top K
    sure = (a < group_cut) & ~inside & (rel == size)
    fixed += np.bincount(table.group_query[sure], weights=group_cut[sure] - a[sure],
                         minlength=n).astype(np.int64)

    drawn = group_cut[straddle] - a[straddle]
    total, good = size[straddle], rel[straddle]
    low = np.maximum(0, drawn - (total - good))
    high = np.minimum(drawn, good)
    length = high - low + 1
    owner = np.repeat(np.arange(len(straddle)), length)
    x = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length) + low[owner]
    probability = _hypergeometric_pmf(x, total[owner], good[owner], drawn[owner], length)
    random_query = table.group_query[straddle]
    steady = np.ones(n, dtype=bool)
    steady[random_query] = False
    steady_query = np.flatnonzero(steady)
    query = np.concatenate([random_query[owner], steady_query])
    numerator = np.concatenate([fixed[random_query][owner] + x, fixed[steady_query]])
    probability = np.concatenate([probability, np.ones(len(steady_query))])
    value = numerator / denominator[query]
    return _assemble(n, query, value, probability, numerator.astype(np.int64), denominator)


def _hypergeometric_pmf(x: np.ndarray, total: np.ndarray, good: np.ndarray, drawn: np.ndarray,
                        length: np.ndarray) -> np.ndarray:
    """P(X = x) for X ~ hypergeometric(total, good, drawn), on consecutive segments of x
    (one per law, ``length`` atoms each, x increasing by 1 from the lowest possible value).

    The ratio recurrence P(x+1)/P(x) = (good-x)(drawn-x) / ((x+1)(total-good-drawn+x+1)),
    summed in log space and normalised per segment: no factorials, no cancellation.
    """
    if len(x) == 0:
        return np.zeros(0)
    first = np.cumsum(length) - length
    with np.errstate(divide="ignore"):  # log 0 past each segment's last atom (never used)
        ratio = np.log((good - x) * (drawn - x) / ((x + 1.0) * (total - good - drawn + x + 1.0)))
    step = np.zeros(len(x))
    step[1:] = ratio[:-1]
    step[first] = 0.0  # each segment starts at log P = 0 (before normalising)
    running = np.cumsum(step, dtype=np.longdouble)
    log_p = (running - np.repeat(running[first], length)).astype(np.float64)
    log_p -= np.repeat(np.maximum.reduceat(log_p, first), length)
    p = np.exp(log_p)
    return p / np.repeat(np.add.reduceat(p, first), length)
