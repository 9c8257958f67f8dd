"""How far a metric moves with the tie-break: exact distributions, variances, sampling.

* :func:`first_relevant_distribution` — exact pmf of the first relevant rank and so of RR.
* :func:`rr_variance`, :func:`precision_variance` — exact variances over tie orderings.
* :func:`sample_run_means` — a seeded sampler of a run's mean metric under random
  tie-breaking (:mod:`tiedrank.sampling`: exact per-query structure, bounded memory).
* :func:`enumerate_orderings` — every ordering of one small query, for teaching and tests;
  refuses above ``max_orderings``.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pyarrow as pa

from . import sampling
from .metrics import Metric, first_relevant_pmf, metric_values, parse_metric
from .ties import TieTable
from .validation import Interval, check

MAX_ORDERINGS = 40_320
"""Default limit of :func:`enumerate_orderings` (8! orderings)."""


def first_relevant_distribution(table: TieTable, query: str | None = None) -> pd.DataFrame:
    """Exact distribution of the first relevant rank, per query.

    Returns
    -------
    DataFrame
        Columns query, rank, probability, rr (= 1/rank). Queries with no relevant document
        retrieved have no rows (their RR is 0 with certainty).

    Examples
    --------
    Seed scenario S3 (three documents tied at the top, one relevant) gives rank 1, 2, 3
    with probability 1/3 each, so E[RR] = (1 + 1/2 + 1/3) / 3 = 11/18.
    """
    pmf = first_relevant_pmf(table)
    frame = pd.DataFrame({"query": table.queries[pmf.query], "rank": pmf.rank,
                          "probability": pmf.probability, "rr": 1.0 / pmf.rank})
    if query is not None:
        frame = frame[frame["query"] == query].reset_index(drop=True)
    return frame


def rr_variance(table: TieTable) -> pd.Series:
    """Var[RR] over tie orderings, per query: E[RR^2] - E[RR]^2 from the exact pmf."""
    pmf = first_relevant_pmf(table)
    inv = 1.0 / pmf.rank
    first = np.bincount(pmf.query, weights=pmf.probability * inv, minlength=table.n_queries)
    second = np.bincount(pmf.query, weights=pmf.probability * inv * inv, minlength=table.n_queries)
    return pd.Series(np.maximum(second - first * first, 0.0), index=table.queries, name="var_RR")


def precision_variance(table: TieTable, k: int) -> pd.Series:
    """Var[P@k] over tie orderings, per query.

    The relevant documents a group puts into the top k follow a hypergeometric law
    (s_g of its n_g slots drawn, k_g relevant), independently across groups:
    Var[#rel@k] = sum_g s_g (k_g/n_g)(1 - k_g/n_g)(n_g - s_g)/(n_g - 1), and Var[P@k] = that / k^2.
    """
    table = table.scoring()
    slots = np.clip(k - table.group_above, 0, table.group_size).astype(np.float64)
    n = table.group_size.astype(np.float64)
    share = table.group_relevant / n
    spread = np.divide(slots * share * (1 - share) * (n - slots), n - 1,
                       out=np.zeros_like(n), where=n > 1)
    var = np.bincount(table.group_query, weights=spread, minlength=table.n_queries) / (k * k)
    return pd.Series(var, index=table.queries, name=f"var_P@{k}")


# ---- sampling ----------------------------------------------------------------------------
def sample_run_means(table: TieTable, metric: "str | Metric", *, n_draws: int = 1000,
                     seed: int = 0, gain: str = "linear", included: np.ndarray | None = None,
                     max_batch: int = 4_000_000) -> np.ndarray:
    """Means of ``metric`` over the run's queries under ``n_draws`` random tie-breaks.

    Delegates to :func:`tiedrank.sampling.sample_run_means`, which draws each query's
    value from its exact structure (no permutation is built) with per-query streams
    keyed by (seed, query id), in blocks of at most ``max_batch`` random numbers.

    Parameters
    ----------
    included : bool array, optional
        Queries that enter the mean (default: those with a relevant document).

    Returns
    -------
    ndarray of shape (n_draws,)
    """
    check("n_draws", n_draws, [Interval(int, 1, None)], function="sample_run_means")
    return sampling.sample_run_means(table, metric, n_draws, seed, gain=gain, included=included,
                                     chunk_size=max_batch)


# ---- enumeration (teaching and tests) ------------------------------------------------------
def count_orderings(scores) -> int:
    """Number of orderings consistent with the scores: the product of n_g! over tie groups."""
    _, sizes = np.unique(np.asarray(scores, dtype=np.float64), return_counts=True)
    return math.prod(math.factorial(int(s)) for s in sizes)


def enumerate_orderings(scores, grades, metrics, *, docs=None, rel_level: int = 1,
                        gain: str = "linear", unretrieved_grades=(),
                        max_orderings: int = MAX_ORDERINGS) -> pd.DataFrame:
    """Every ordering of one query's documents consistent with its scores, with metrics.

    Parameters
    ----------
    scores, grades : array-like
        One score and one grade per document.
    metrics : str or list of str
    docs : list of str, optional
        Document labels (default ``d1``, ``d2``, ...).
    unretrieved_grades : array-like, optional
        Grades of judged documents the list does not contain; they count in R and IDCG.
    max_orderings : int
        Refuse (ValueError) when the count exceeds this: 10 tied documents are already
        3,628,800 orderings.

    Returns
    -------
    DataFrame
        One row per ordering: ``ordering`` (labels joined by spaces) and one column per
        metric. Its column means equal the expected values (the point of the exercise).
    """
    scores = np.asarray(scores, dtype=np.float64)
    grades = np.asarray(grades, dtype=np.int64)
    if scores.shape != grades.shape or scores.ndim != 1 or len(scores) == 0:
        raise ValueError("scores and grades must be non-empty 1-d arrays of the same length")
    labels = np.asarray(docs if docs is not None else [f"d{i + 1}" for i in range(len(scores))],
                        dtype=object)
    total = count_orderings(scores)
    if total > max_orderings:
        raise ValueError(f"{total:,} orderings exceed the limit of {max_orderings:,}; "
                         "enumeration is for small examples (use the closed forms instead)")
    metric_list = [parse_metric(m) for m in ([metrics] if isinstance(metrics, str) else metrics)]
    base = np.argsort(-scores, kind="stable")
    _, starts = np.unique(-scores[base], return_index=True)
    bounds = list(starts) + [len(scores)]
    per_group = [itertools.permutations(base[s:e]) for s, e in zip(bounds[:-1], bounds[1:])]
    orderings = np.array([np.concatenate(parts) for parts in itertools.product(*per_group)],
                         dtype=np.int64).reshape(total, len(scores))
    table = _orderings_table(orderings, grades, np.asarray(unretrieved_grades, dtype=np.int64),
                             rel_level)
    out = pd.DataFrame({"ordering": [" ".join(labels[o]) for o in orderings]})
    for m in metric_list:
        out[m.name] = metric_values(table, m, gain=gain)
    return out


def _orderings_table(orderings: np.ndarray, grades: np.ndarray, unretrieved: np.ndarray,
                     rel_level: int) -> TieTable:
    """A resolved table with one query per ordering (the kernels then score each one)."""
    m, n = orderings.shape
    judged = np.concatenate([grades, unretrieved])
    r = int((judged >= rel_level).sum())
    ideal = np.sort(np.maximum(judged, 0))[::-1]
    flat = orderings.ravel()
    return TieTable(
        run_name="enumeration", rel_level=rel_level, policy="input",
        queries=np.arange(m), n_relevant=np.full(m, r, dtype=np.int64),
        n_retrieved=np.full(m, n, dtype=np.int64),
        query_start=np.arange(m + 1, dtype=np.int64) * n,
        ideal_start=np.arange(m + 1, dtype=np.int64) * len(ideal), ideal_grade=np.tile(ideal, m),
        group_query=np.repeat(np.arange(m, dtype=np.int64), n),
        group_start=np.arange(m * n, dtype=np.int64), group_size=np.ones(m * n, dtype=np.int64),
        group_above=np.tile(np.arange(n, dtype=np.int64), m),
        doc_score=np.zeros(m * n), doc_grade=grades[flat], doc_judged=np.ones(m * n, dtype=bool),
        doc_row=flat, run_docs=pa.array([f"d{i}" for i in range(n)]))

