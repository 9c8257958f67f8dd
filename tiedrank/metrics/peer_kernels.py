"""Kernels of the measures other tools print beyond trec_eval, linear in what the top k holds:
ir_measures' ``Judged@k``, TRM's and McSherry & Najork's ``F1@k``, ``NCG@k`` and C/W/L's
scaled DCG ``SDCG@k``.

The convention of :mod:`tiedrank.metrics.kernels`: on the *expected* table a kernel returns the
exact mean over every ordering inside the tie groups, on a resolved table (one document per
group) the value of that single ordering. All four sum what falls in the top k, and a
group g with a_g documents above it and n_g in it puts s_g = clip(k - a_g, 0, n_g) of its
positions there, each document of the group with probability s_g / n_g: so the expectation
of a count is sum_g (what the group holds) * s_g / n_g, and a ratio with a fixed denominator
is the ratio of that expectation.

Examples
--------
>>> import pandas as pd
>>> from tiedrank.core.data import Qrels, Run
>>> from tiedrank.core.ties import build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abc"), "score": [1.0, 1.0, 0.5]}))
>>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["a", "c"], "relevance": [2, 0]}))
>>> table = build_tie_table(run, qrels)   # a (judged) tied with b (not judged), then c
>>> judged_at(table, 1), judged_extreme(table, 1, best=False)   # a first half the time
(array([0.5]), array([0.]))
"""
from __future__ import annotations

import numpy as np

from ..core.segments import segment_sum
from ..core.ties import TieTable
from .blocks import divide, per_query_groups
from .kernels import discount, gain, ideal_gains, relevant_in_top


def _slots(table: TieTable, k: int | None) -> np.ndarray:
    """Per group: how many of its positions lie in the top k (all of them without k)."""
    if k is None:
        return table.group_size.astype(np.float64)
    return np.clip(k - table.group_above, 0, table.group_size).astype(np.float64)


def _judged_per_group(table: TieTable) -> np.ndarray:
    """Per group: its documents present in the qrels, whatever their grade (ir_measures'
    judged provider asks ``doc in qrels``: a negative grade counts as judged)."""
    return segment_sum(table.doc_judged.astype(np.int64), table.group_start).astype(np.float64)


def _judged_denominator(table: TieTable, k: int | None) -> np.ndarray:
    """min(k, documents retrieved): ir_measures' judged provider divides by the cutoff, or by
    the length of the ranking when it is shorter (by the length without a cutoff)."""
    retrieved = table.n_retrieved.astype(np.float64)
    return retrieved if k is None else np.minimum(float(k), retrieved)


def judged_at(table: TieTable, k: int | None = None) -> np.ndarray:
    """``Judged@k`` (ir_measures' ``Judged``): the share of the top min(k, N) documents that
    are in the qrels, N the documents retrieved.

    E[Judged@k] = sum_g j_g s_g / n_g / min(k, N), with j_g the qrels documents of group g.
    Groups without a qrels document add nothing, so the kernel reads the groups holding one
    (registry ``view="qrels"``), ranks and N kept. 0 for a query with nothing retrieved.
    """
    judged = _judged_per_group(table) * _slots(table, k) / table.group_size
    return divide(per_query_groups(table, judged), _judged_denominator(table, k))


def judged_extreme(table: TieTable, k: int | None, best: bool) -> np.ndarray:
    """The largest (``best``) or smallest ``Judged@k`` over the tie orderings.

    Each group fills its s_g places in the top k independently of the others: at best with
    min(j_g, s_g) qrels documents (they come first in the group), at worst with
    max(0, s_g - (n_g - j_g)) (they come last). The grade orders do not reach these (an
    unjudged document and a judged grade-0 one share grade 0), so the family computes them.
    """
    judged, slots = _judged_per_group(table), _slots(table, k)
    counted = (np.minimum(judged, slots) if best
               else np.maximum(0.0, slots - (table.group_size - judged)))
    return divide(per_query_groups(table, counted), _judged_denominator(table, k))


def f1_at(table: TieTable, k: int) -> np.ndarray:
    """``F1@k`` (TRM's Eq. 12, McSherry & Najork; ranx's ``f1``): the harmonic mean of P@k =
    X / k and R@k = X / R, that is 2 X / (k + R) with X the relevant documents in the top k.

    Linear in X, so E[F1@k] = 2 E[X] / (k + R) exactly; 0 when R = 0. Best and worst put the
    relevant documents first or last in each group (the grade orders).

    Examples
    --------
    TRM's README example: scores .99 .97 .97 .97 .95, the second and fourth relevant.

    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcde"),
    ...                              "score": [.99, .97, .97, .97, .95]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["b", "d"], "relevance": [1, 1]}))
    >>> table = build_tie_table(run, qrels)
    >>> [round(float(f1_at(table, k)[0]), 4) for k in (3, 5)]
    [0.5333, 0.5714]
    """
    hits = relevant_in_top(table, k)
    return divide(2.0 * hits, np.where(table.n_relevant > 0, k + table.n_relevant, 0.0))


def ideal_cg(table: TieTable, k: int | None = None, gain_kind: str = "linear") -> np.ndarray:
    """ICG@k: the sum of the k largest gains of the query's qrels (retrieved or not)."""
    query, rank, gains = ideal_gains(table, gain_kind)
    if k is not None:
        gains = gains * (rank <= k)
    return np.bincount(query, weights=gains, minlength=table.n_queries)


def ncg(table: TieTable, k: int | None = None, gain_kind: str = "linear") -> np.ndarray:
    """``NCG@k``, normalised cumulative gain (Järvelin & Kekäläinen 2002): CG@k, the sum of
    the gains in the top k, over ICG@k, that of the k largest gains of the qrels.

    E[CG@k] = sum_g G_g s_g / n_g with G_g the group's total gain; ICG does not depend on
    the ordering, so E[NCG@k] = E[CG@k] / ICG@k exactly (0 when ICG@k = 0). Best and worst
    order each group by gain (the grade orders; by gain under a gain map).
    """
    group_gain = segment_sum(gain(table.doc_grade, gain_kind), table.group_start)
    cg = per_query_groups(table, group_gain * _slots(table, k) / table.group_size)
    return divide(cg, ideal_cg(table, k, gain_kind))


def scaled_gains(grades: np.ndarray, min_rel: float, max_rel: float) -> np.ndarray:
    """cwl_eval's gains as ir_measures feeds them: the grade clipped at 0 (trec_eval's
    convention for negative grades), then into [min_rel, max_rel], scaled to [0, 1]."""
    if not max_rel > min_rel:
        raise ValueError(f"SDCG: max_rel ({max_rel:g}) must be above min_rel ({min_rel:g}), "
                         "e.g. SDCG(max_rel=3)@10 for grades 0..3")
    clipped = np.clip(np.maximum(grades, 0).astype(np.float64), min_rel, max_rel)
    return (clipped - min_rel) / (max_rel - min_rel)


def sdcg(table: TieTable, k: int, min_rel: float = 0.0, max_rel: float = 1.0) -> np.ndarray:
    """``SDCG@k``, C/W/L's scaled DCG (Moffat et al.; cwl_eval's ``NDCGCWLMetric(k)``, which
    ir_measures' ``SDCG(max_rel=...)@k`` runs): sum_{i <= k} g_i / log2(i + 1) over Z_k =
    sum_{i <= k} 1 / log2(i + 1), the DCG of k documents of the top gain, g the
    :func:`scaled_gains`. The C/W/L weights W_i = (1 / log2(i + 1)) / Z_k come from its
    continuation c_i = log2(i + 1) / log2(i + 2) for i < k, 0 from k on.

    Linear in the gains, so each document takes its group's mean gain at each place:
    E[SDCG@k] = sum_g (mean scaled gain of g) sum_{places p of g in the top k}
    1/log2(p + 1) / Z_k, exact; the grade orders are best and worst (the scaled gain does
    not fall as the grade rises). The denominator does not depend on the qrels: a query
    without a relevant document scores 0.
    """
    group_gain = segment_sum(scaled_gains(table.doc_grade, min_rel, max_rel), table.group_start)
    mean_gain = (group_gain / table.group_size)[table.doc_group]
    inside = table.doc_rank <= k
    total = np.bincount(table.doc_query, weights=mean_gain * discount(table.doc_rank) * inside,
                        minlength=table.n_queries)
    return total / float(np.sum(1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))))
