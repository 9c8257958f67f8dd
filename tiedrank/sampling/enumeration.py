"""Every ordering of a query's ties, scored: the enumeration oracle (tiny cases only).

One implementation serves two callers:

* :func:`query_orderings` and :func:`ordering_table` enumerate the orderings of one query
  of a :class:`~tiedrank.core.ties.TieTable` (the product of the permutations inside each tie
  group) as a resolved table with one query per ordering, which the engine's kernels then
  score; :mod:`tiedrank.stats.exact` builds exact laws from them.
* :func:`enumerate_orderings` does the same from one query's raw scores and grades, for
  teaching (the Learn page) and tests.

Both refuse above ``max_orderings`` orderings: 10 tied documents are already 3,628,800.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow as pa

from ..metrics import metric_values, parse_metric
from ..core.ties import TieTable
from ..core.validation import REL_LEVEL, check

__all__ = ["MAX_ORDERINGS", "count_orderings", "enumerate_orderings", "ordering_table",
           "query_orderings"]

MAX_ORDERINGS = 40_320
"""Default limit of the enumerations (8! orderings)."""


def count_orderings(scores) -> int:
    """Number of orderings consistent with the scores: the product of n_g! over tie groups."""
    _, sizes = np.unique(np.asarray(scores, dtype=np.float64), return_counts=True)
    return math.prod(math.factorial(int(s)) for s in sizes)


def query_orderings(table: TieTable, q: int, max_orderings: int = MAX_ORDERINGS) -> np.ndarray:
    """Every ordering of query ``q``'s document positions consistent with its groups.

    Returns an int array of shape (orderings, documents) of positions in ``table``; groups
    keep their order and each group's permutations come in :func:`itertools.permutations`
    order, the first group varying slowest. ``ValueError`` above ``max_orderings``.
    """
    start, stop = int(table.query_start[q]), int(table.query_start[q + 1])
    groups = np.flatnonzero(table.group_query == q)
    total = math.prod(math.factorial(int(s)) for s in table.group_size[groups])
    if total > max_orderings:
        raise ValueError(f"query {table.queries[q]!r} of run {table.run_name!r} has "
                         f"{total:,} orderings, above the limit of {max_orderings:,}; "
                         "exact enumeration is for tiny cases (use win_probability)")
    per_group = [itertools.permutations(range(int(table.group_start[g]),
                                              int(table.group_start[g] + table.group_size[g])))
                 for g in groups]
    orderings = [np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
                 for parts in itertools.product(*per_group)]
    return np.array(orderings, dtype=np.int64).reshape(total, stop - start)


def ordering_table(table: TieTable, q: int, orderings: np.ndarray) -> TieTable:
    """A resolved table with one query per ordering of query ``q`` (true R and IDCG kept)."""
    m, n = orderings.shape
    ideal = table.ideal_grade[table.ideal_start[q]:table.ideal_start[q + 1]]
    flat = orderings.ravel()
    return replace(
        table, policy="input", queries=np.arange(m),
        n_relevant=np.full(m, table.n_relevant[q], dtype=np.int64),
        n_retrieved=np.full(m, n, dtype=np.int64),
        query_start=np.arange(m + 1, dtype=np.int64) * n,
        ideal_start=np.arange(m + 1, dtype=np.int64) * len(ideal), ideal_grade=np.tile(ideal, m),
        group_query=np.repeat(np.arange(m, dtype=np.int64), n),
        group_start=np.arange(m * n, dtype=np.int64), group_size=np.ones(m * n, dtype=np.int64),
        group_above=np.tile(np.arange(n, dtype=np.int64), m), doc_score=table.doc_score[flat],
        doc_grade=table.doc_grade[flat], doc_judged=table.doc_judged[flat],
        doc_row=table.doc_row[flat], findings=())


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

    Examples
    --------
    >>> enumerate_orderings([1.0, 1.0, 0.5], [0, 1, 0], "RR").values.tolist()
    [['d1 d2 d3', 0.5], ['d2 d1 d3', 1.0]]
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
    check("rel_level", rel_level, [REL_LEVEL], function="enumerate_orderings")  # the one check
    metric_list = [parse_metric(m) for m in ([metrics] if isinstance(metrics, str) else metrics)]
    table = _one_query_table(scores, grades, np.asarray(unretrieved_grades, dtype=np.int64),
                             rel_level)
    orderings = query_orderings(table, 0, max_orderings)
    resolved = ordering_table(table, 0, orderings)
    out = pd.DataFrame({"ordering": [" ".join(labels[o]) for o in table.doc_row[orderings]]})
    for m in metric_list:
        out[m.name] = metric_values(resolved, m, gain=gain)
    return out


def _one_query_table(scores: np.ndarray, grades: np.ndarray, unretrieved: np.ndarray,
                     rel_level: int) -> TieTable:
    """The expected table of one query: documents by score descending (stable), one group
    per distinct score; ``doc_row`` is each position's index in ``scores``."""
    n = len(scores)
    base = np.argsort(-scores, kind="stable")
    _, starts, sizes = np.unique(-scores[base], return_index=True, return_counts=True)
    judged = np.concatenate([grades, unretrieved])
    ideal = np.sort(np.maximum(judged, 0))[::-1]
    return TieTable(
        run_name="enumeration", rel_level=rel_level, policy="expected",
        queries=np.arange(1), n_relevant=np.full(1, int((judged >= rel_level).sum())),
        n_retrieved=np.full(1, n, dtype=np.int64), query_start=np.array([0, n], dtype=np.int64),
        ideal_start=np.array([0, len(ideal)], dtype=np.int64), ideal_grade=ideal,
        group_query=np.zeros(len(starts), dtype=np.int64), group_start=starts.astype(np.int64),
        group_size=sizes.astype(np.int64), group_above=starts.astype(np.int64),
        doc_score=scores[base], doc_grade=grades[base], doc_judged=np.ones(n, dtype=bool),
        doc_row=base.astype(np.int64), run_docs=pa.array([f"d{i}" for i in range(n)]))
