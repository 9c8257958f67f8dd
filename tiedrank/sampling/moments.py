"""Exact mean and variance of every metric under uniform random tie-breaking.

Per query:

* RR, RR@k, Success@k, P@k, R@k, Rprec, Hits@k: from the exact discrete law
  (:mod:`tiedrank.sampling.laws`). For the counts this is the hypergeometric variance of
  the one group straddling the cutoff, s (k_g/n_g)(1 - k_g/n_g)(n_g - s)/(n_g - 1), over
  the denominator squared; Success@k is Bernoulli, p (1 - p).
* AP, AP@k, DCG@k, nDCG, nDCG@k: sums of independent group terms with exact second
  moments (:mod:`tiedrank.sampling.groups`; AP has cross terms only *within* a group,
  because the number of relevant documents above a group is the same in every ordering).
* TsRR, TsRR2, MTRR_GRAG, TMHits_GRAG@k: constant (variance 0).

Queries are independent, so the run mean over Q included queries has
E = (1/Q) sum_q E_q and Var = (1/Q^2) sum_q Var_q.

Examples
--------
>>> import pandas as pd
>>> from tiedrank import Run, Qrels, build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abc"), "score": 0.5}))
>>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["c"], "relevance": [1]}))
>>> moments = query_moments(build_tie_table(run, qrels), "RR")   # 1, 1/2, 1/3 equally likely
>>> round(float(moments.mean[0] * 18), 12), round(float(moments.variance[0] * 324), 12)
(11.0, 26.0)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..metrics import Metric, metric_values, parse_metric
from ..core.ties import TieTable
from .groups import GROUP_FAMILIES, group_sums
from .laws import LAW_FAMILIES, metric_laws


@dataclass(frozen=True)
class QueryMoments:
    """Exact per-query ``mean`` and ``variance`` (aligned with ``queries``)."""

    metric: str
    queries: np.ndarray
    mean: np.ndarray
    variance: np.ndarray


@dataclass(frozen=True)
class RunMoments:
    """Exact mean and variance of a run's mean metric over random tie-breaks."""

    metric: str
    mean: float
    variance: float
    n_queries: int

    @property
    def standard_deviation(self) -> float:
        return math.sqrt(max(self.variance, 0.0))


def query_moments(table: TieTable, metric: str | Metric, *,
                  gain: str = "linear") -> QueryMoments:
    """Exact E and Var of ``metric`` per query of ``table`` under random tie-breaking."""
    m = parse_metric(metric)
    if m.family in LAW_FAMILIES:
        laws = metric_laws(table, m)
        mean, variance = laws.mean(), laws.variance()
    elif m.family in GROUP_FAMILIES:
        sums = group_sums(table, m, gain)
        mean, variance = sums.query_mean(), sums.query_variance()
    else:
        mean, variance = metric_values(table, m, gain=gain), np.zeros(table.n_queries)
    return QueryMoments(m.name, table.queries, mean, variance)


def run_moments(table: TieTable, metric: str | Metric, *, gain: str = "linear",
                included: np.ndarray | None = None) -> RunMoments:
    """Exact E and Var of the run's mean of ``metric`` over the ``included`` queries
    (default: those with a relevant document, as ``evaluate``)."""
    moments = query_moments(table, metric, gain=gain)
    included = table.evaluated if included is None else np.asarray(included, dtype=bool)
    count = int(included.sum())
    if count == 0:
        return RunMoments(moments.metric, math.nan, math.nan, 0)
    return RunMoments(moments.metric, float(moments.mean[included].sum() / count),
                      float(moments.variance[included].sum() / count ** 2), count)


def normal_win_probability(table_a: TieTable, table_b: TieTable, metric: str | Metric, *,
                           gain: str = "linear", included: np.ndarray | None = None) -> float:
    """P(mean_A > mean_B) under independent random tie-breaks, by the normal approximation
    with the exact means and variances (a sum over many independent queries).

    An approximation (central limit theorem): use :mod:`tiedrank.sampling.lattice` for the
    exact value on lattice metrics, or the sampler to check. Returns 1, 0 or 0.5 when
    neither mean can move.
    """
    included = (table_a.evaluated & table_b.evaluated) if included is None else included
    a = run_moments(table_a, metric, gain=gain, included=included)
    b = run_moments(table_b, metric, gain=gain, included=included)
    spread = math.sqrt(a.variance + b.variance)
    if spread == 0:
        return 1.0 if a.mean > b.mean else 0.0 if a.mean < b.mean else 0.5
    return 0.5 * math.erfc(-(a.mean - b.mean) / spread / math.sqrt(2.0))
