"""How far a metric moves with the tie-break: exact distributions, variances, sampling.

* :func:`first_relevant_distribution` — exact pmf of the first relevant rank and so of RR.
* :func:`rr_variance`, :func:`precision_variance` — exact variances over tie orderings.
* :func:`sample_run_means` — a seeded, vectorised sampler of a run's mean metric under
  random tie-breaking (all draws in a few batched sorts, no loop per query or group).
* :func:`enumerate_orderings` — every ordering of one small query, for teaching and tests;
  refuses above ``max_orderings``.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow as pa

from .metrics import Metric, first_relevant_pmf, metric_values, parse_metric
from .ties import TieTable

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
def _active_groups(table: TieTable, metric: Metric) -> np.ndarray:
    """Groups whose internal order can change the metric (a prefix of every query)."""
    if metric.k is not None:
        return table.group_above < metric.k
    if metric.family == "RR":  # only the groups down to the first relevant one matter
        has_relevant = table.relevant_retrieved[table.group_query] > 0
        return (table.relevant_above == 0) & has_relevant
    if metric.family == "Rprec":
        return table.group_above < table.n_relevant[table.group_query]
    return np.ones(table.n_groups, dtype=bool)


def _tile(table: TieTable, groups: np.ndarray, copies: int, depth: int | None) -> TieTable:
    """``copies`` stacked copies of the table restricted to ``groups`` (prefixes per query).

    Copy c of query q becomes query c * Q + q, so one resolve and one kernel call evaluate
    every copy at once. Only the ideal grades down to ``depth`` are kept (IDCG@depth).
    """
    docs = np.repeat(groups, table.group_size)
    size = table.group_size[groups]
    retrieved = np.bincount(table.group_query[groups], weights=size,
                            minlength=table.n_queries).astype(np.int64)
    q = table.n_queries
    retrieved_all = np.tile(retrieved, copies)
    query_start = np.zeros(q * copies + 1, dtype=np.int64)
    np.cumsum(retrieved_all, out=query_start[1:])
    group_size = np.tile(size, copies)
    group_start = np.cumsum(group_size) - group_size
    shift = np.repeat(np.arange(copies, dtype=np.int64) * q, len(size))
    ideal_counts = np.diff(table.ideal_start)
    ideal_grade = table.ideal_grade
    if depth is not None:  # IDCG@k needs only each query's k best grades
        keep = (np.arange(len(ideal_grade))
                - np.repeat(table.ideal_start[:-1], ideal_counts)) < depth
        ideal_grade, ideal_counts = ideal_grade[keep], np.minimum(ideal_counts, depth)
    ideal_counts = np.tile(ideal_counts, copies)
    ideal_start = np.zeros(q * copies + 1, dtype=np.int64)
    np.cumsum(ideal_counts, out=ideal_start[1:])
    return replace(
        table, queries=np.arange(q * copies), n_relevant=np.tile(table.n_relevant, copies),
        n_retrieved=retrieved_all.astype(np.int64), query_start=query_start,
        ideal_start=ideal_start, ideal_grade=np.tile(ideal_grade, copies),
        group_query=np.tile(table.group_query[groups], copies) + shift,
        group_start=group_start.astype(np.int64), group_size=group_size.astype(np.int64),
        group_above=np.tile(table.group_above[groups], copies),
        doc_score=np.tile(table.doc_score[docs], copies),
        doc_grade=np.tile(table.doc_grade[docs], copies),
        doc_judged=np.tile(table.doc_judged[docs], copies),
        doc_row=np.tile(table.doc_row[docs], copies), findings=())


def sample_run_means(table: TieTable, metric: "str | Metric", *, n_draws: int = 1000,
                     seed: int = 0, gain: str = "linear", included: np.ndarray | None = None,
                     max_batch: int = 4_000_000) -> np.ndarray:
    """Means of ``metric`` over the run's queries under ``n_draws`` random tie-breaks.

    Each draw breaks every tie by an independent uniform permutation. For RR, RR@k and
    Success@k only the first relevant rank matters, and its exact distribution is known,
    so each draw takes one inverse-CDF lookup per query. Other metrics are batched: the
    part of each query whose order can matter (e.g. the groups starting above k) is
    stacked ``batch`` times and resolved with one sort. 1,000 draws on the sample data take
    a fraction of a second. The same ``seed`` gives the same draws.

    Parameters
    ----------
    included : bool array, optional
        Queries that enter the mean (default: those with a relevant document).

    Returns
    -------
    ndarray of shape (n_draws,)
    """
    m = parse_metric(metric)
    if n_draws < 1:
        raise ValueError("n_draws must be >= 1")
    if included is None:
        included = table.n_relevant > 0
    if not included.any():
        return np.full(n_draws, np.nan)
    if m.tie_aware_by_definition:
        return np.full(n_draws, metric_values(table, m, gain=gain)[included].mean())
    table = table.scoring()
    rng = np.random.default_rng(seed)
    if m.family in ("RR", "Success"):
        return _first_relevant_draws(table, m, n_draws, rng, included, max_batch)
    groups = _active_groups(table, m)
    active_docs = max(int(table.group_size[groups].sum()), 1)
    batch = int(max(1, min(n_draws, max_batch // active_docs)))
    means = np.empty(n_draws)
    done = 0
    while done < n_draws:
        copies = min(batch, n_draws - done)
        stacked = _tile(table, groups, copies, m.k)
        drawn = stacked.resolve("random", int(rng.integers(2**63 - 1)))
        values = metric_values(drawn, m, gain=gain).reshape(copies, table.n_queries)
        means[done:done + copies] = values[:, included].mean(axis=1)
        done += copies
    return means


def _first_relevant_draws(table: TieTable, metric: Metric, n_draws: int,
                          rng: np.random.Generator, included: np.ndarray,
                          max_batch: int) -> np.ndarray:
    """Run means of RR / RR@k / Success@k, drawing each query's first relevant rank from
    its exact pmf (queries are independent under random tie-breaking)."""
    pmf = first_relevant_pmf(table)
    queries, start = np.unique(pmf.query, return_index=True)  # pmf is grouped by query
    length = np.diff(np.append(start, len(pmf.query)))
    cdf = np.cumsum(pmf.probability)
    local = cdf - np.repeat(cdf[start] - pmf.probability[start], length)
    local[start + length - 1] = 1.0  # guard the last step against rounding
    # one increasing key over all segments: segment i spans (i, i + 1]
    key = np.repeat(np.arange(len(queries)), length) + local
    rank = pmf.rank.astype(np.float64)
    value = np.ones_like(rank) if metric.family == "Success" else 1.0 / rank
    if metric.k is not None:
        value = value * (rank <= metric.k)
    counted = included[queries]
    n_included = int(included.sum())
    batch = int(max(1, min(n_draws, max_batch // max(len(queries), 1))))
    means = np.empty(n_draws)
    for done in range(0, n_draws, batch):
        copies = min(batch, n_draws - done)
        target = np.arange(len(queries)) + rng.random((copies, len(queries)))
        picked = value[np.searchsorted(key, target, side="right")]
        means[done:done + copies] = (picked * counted).sum(axis=1) / n_included
    return means


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

