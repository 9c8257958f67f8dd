"""Exact laws of a metric under uniform random tie-breaking, by enumeration (tiny cases).

These enumerate every ordering consistent with the tie groups
(:mod:`tiedrank.sampling.enumeration`), so they are the oracle of
the sampled estimates of :mod:`tiedrank.stats.stability` (and are refused above
``max_orderings`` orderings per query).

Examples
--------
>>> import pandas as pd
>>> from tiedrank import Run, Qrels, build_tie_table
>>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]}))
>>> table = build_tie_table(Run("A", pd.DataFrame({"query": "q", "doc": ["a", "b"],
...                                                "score": [1.0, 1.0]})), qrels)
>>> query_value_distribution(table, "RR", "q").values.tolist()  # RR = 1/2 or 1
[[0.5, 0.5], [1.0, 0.5]]
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from ..core.summation import MIN_GEO_MEAN
from ..metrics import GAINS, Metric, metric_values, parse_metric
from ..sampling.enumeration import MAX_ORDERINGS, ordering_table, query_orderings
from ..core.ties import TieTable
from ..core.validation import Interval, Options, validate_params
from .stability import check_same_queries, win_score

__all__ = ["exact_win_probability", "expected_geometric_mean", "query_value_distribution",
           "run_mean_distribution"]

_EXACT_OPTIONS = {"gain": [Options(*GAINS)], "max_orderings": [Interval(int, 1, None)]}


@validate_params(_EXACT_OPTIONS)
def query_value_distribution(table: TieTable, metric: str | Metric, query: int | str, *,
                             gain: str = "linear",
                             max_orderings: int = MAX_ORDERINGS) -> pd.DataFrame:
    """Exact distribution of one query's metric over every ordering of its ties.

    Enumerates the product of the permutations inside each tie group (itertools), scores
    each ordering with the engine's kernels against the query's true R and ideal grades,
    and merges equal values. Returns DataFrame(value, probability).
    """
    m = parse_metric(metric)
    q = int(np.searchsorted(table.queries, query)) if isinstance(query, str) else int(query)
    if m.tie_aware_by_definition or table.n_retrieved[q] == 0:
        return pd.DataFrame({"value": [float(metric_values(table, m, gain=gain)[q])],
                             "probability": [1.0]})
    values = metric_values(ordering_table(table, q, query_orderings(table, q, max_orderings)),
                           m, gain=gain)
    keys, counts = np.unique(np.round(values, 12), return_counts=True)
    return pd.DataFrame({"value": keys, "probability": counts / counts.sum()})


@validate_params(_EXACT_OPTIONS)
def run_mean_distribution(table: TieTable, metric: str | Metric, *, gain: str = "linear",
                          included: np.ndarray | None = None,
                          max_orderings: int = MAX_ORDERINGS,
                          max_support: int = 1_000_000) -> pd.DataFrame:
    """Exact distribution of a run's mean metric under uniform random tie-breaking.

    Tie groups are permuted independently, so the mean over the included queries is
    (1/|Q|) sum_q X_q with independent X_q; its law is the convolution of the per-query
    laws of :func:`query_value_distribution` -- the same as enumerating every joint
    ordering, without materialising their product. For tiny cases and tests.

    Returns
    -------
    DataFrame(value, probability), sorted by value.
    """
    if included is None:
        included = table.evaluated
    support = {0.0: 1.0}
    for q in np.flatnonzero(included):
        law = query_value_distribution(table, metric, int(q), gain=gain, max_orderings=max_orderings)
        nxt: dict[float, float] = {}
        for (s, ps), (v, pv) in itertools.product(support.items(), zip(law["value"], law["probability"])):
            key = round(s + v, 12)  # merge sums that differ only by rounding
            nxt[key] = nxt.get(key, 0.0) + ps * pv
        if len(nxt) > max_support:
            raise ValueError(f"the exact distribution has more than {max_support:,} values; "
                             "use win_probability")
        support = nxt
    n = int(np.count_nonzero(included))
    values = np.array(sorted(support))
    return pd.DataFrame({"value": values / max(n, 1) if n else np.full(1, np.nan),
                         "probability": [support[v] for v in values]})


@validate_params(_EXACT_OPTIONS)
def exact_win_probability(table_a: TieTable, table_b: TieTable, metric: str | Metric, *,
                          gain: str = "linear", included: np.ndarray | None = None,
                          max_orderings: int = MAX_ORDERINGS) -> float:
    """Exact P(mean_A > mean_B) + 0.5 P(mean_A = mean_B) over every joint ordering.

    Uses :func:`run_mean_distribution` of each run (independent tie-breaks), so it checks
    :func:`~tiedrank.stats.stability.win_probability` on tiny cases. Equality uses
    :data:`~tiedrank.stats.pairing.REL_TOL` (relative), as every verdict does.
    """
    check_same_queries(table_a, table_b)
    if included is None:
        included = (table_a.evaluated & table_b.evaluated)
    law_a = run_mean_distribution(table_a, metric, gain=gain, included=included,
                                  max_orderings=max_orderings)
    law_b = run_mean_distribution(table_b, metric, gain=gain, included=included,
                                  max_orderings=max_orderings)
    score = win_score(law_a["value"].to_numpy()[:, None], law_b["value"].to_numpy()[None, :])
    weight = law_a["probability"].to_numpy()[:, None] * law_b["probability"].to_numpy()[None, :]
    return float((score * weight).sum())



@validate_params(_EXACT_OPTIONS)
def expected_geometric_mean(table: TieTable, metric: str | Metric = "gm_map", *,
                            gain: str = "linear", included: np.ndarray | None = None,
                            max_orderings: int = MAX_ORDERINGS) -> float:
    """The exact expectation of trec_eval's geometric mean (``gm_map``, ``gm_bpref``) over
    every ordering of the ties, by enumeration (small ties only).

    The run's expected ``gm_map`` that :func:`tiedrank.evaluate` reports is the geometric
    mean of the per-query expectations, exp(mean_q log max(E[X_q], f)), f = 0.00001: what
    trec_eval would print if each query scored its tie-independent value. The expectation
    of the geometric mean itself is another number (lower, by Jensen's inequality). The
    queries' ties are broken independently, so it factors over the n included queries,

        E[GM] = E[prod_q max(X_q, f)^(1/n)] = prod_q E[max(X_q, f)^(1/n)],

    and each factor needs the query's whole law of X (AP or bpref), here enumerated
    (:mod:`tiedrank.sampling.enumeration`; refused, naming the query, past ``max_orderings``
    orderings of one query). The product is taken in logarithms.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank import Qrels, Run, build_tie_table
    >>> qrels = Qrels(pd.DataFrame({"query": ["1", "2"], "doc": "x", "relevance": 1}))
    >>> run = Run("A", pd.DataFrame({"query": ["1", "1", "2"], "doc": ["x", "y", "x"],
    ...                              "score": [1.0, 1.0, 2.0]}))
    >>> round(expected_geometric_mean(build_tie_table(run, qrels)), 6)  # (1 + sqrt(.5)) / 2
    0.853553
    """
    m = parse_metric(metric)
    if m.entry.summary != "geometric":
        raise ValueError(f"{m.name} is summarised by its {m.summary.name}, which is linear: its "
                         "expectation is the summary of the per-query expectations "
                         "(tiedrank.evaluate); pass gm_map or gm_bpref")
    if included is None:
        included = table.evaluated
    queries = np.flatnonzero(included)
    if not len(queries):
        return float("nan")
    log_total = 0.0
    for q in queries:  # enumeration: tiny cases, one query at a time
        q = int(q)
        if m.tie_aware_by_definition or table.n_retrieved[q] == 0:
            values = metric_values(table, m, gain=gain)[q:q + 1]
        else:
            values = metric_values(ordering_table(table, q, query_orderings(table, q, max_orderings)),
                                   m, gain=gain)
        factor = np.mean(np.maximum(values, MIN_GEO_MEAN) ** (1.0 / len(queries)))
        log_total += math.log(factor)
    return math.exp(log_total)
