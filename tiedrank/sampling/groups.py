r"""AP and DCG as sums of independent per-group terms, with their exact moments.

Under a uniform random tie-break each group's documents are permuted independently of the
other groups. Both families split into one term per tie group g (n_g slots at ranks
a_g + 1 .. a_g + n_g, weight w(rho) of rank rho, zero beyond the cutoff K):

* DCG@K: Y_g = sum_i c_i w(a_g + pi(i)), c_i the gains of the group's documents,
  w(rho) = [rho <= K] / log2(rho + 1), pi a uniform permutation. A *linear permutation
  statistic*, whose moments are classical (Hoeffding 1951):

      E[Y_g] = n c_bar d_bar,       Var[Y_g] = S_c S_d / (n - 1),

  with d_j = w(a_g + j), S_c = sum_i (c_i - c_bar)^2, S_d = sum_j (d_j - d_bar)^2.
  nDCG divides by IDCG (not random); the run value is the sum over groups.

* AP@K times R: the relevant documents above group g are a fixed number C = K_{g-1} (the
  groups above hold the same documents in every ordering), so with x_j = 1 when slot j of
  the group holds a relevant document (a uniform k_g-subset of the n_g slots) and
  w_j = [a_g + j <= K] / (a_g + j):

      Y_g = sum_j x_j w_j (C + 1 + N_j),  N_j = sum_{i<j} x_i
          = (C + 1) L + Q,  L = sum_j x_j w_j,  Q = sum_{i<j} x_i x_j w_j.

  Moments of a uniform k-subset: E[x_{j1} ... x_{jm}] = p_m = k^(m) / n^(m) (falling
  factorials) for distinct slots. With W = sum w_j, P_j = sum_{i<j} w_i,
  S_j = sum_{i>j} w_i, V = sum_j (j-1) w_j:

      E[L] = p1 W                       E[Q] = p2 V
      E[L^2] = p1 sum w^2 + p2 (W^2 - sum w^2)
      E[LQ] = p2 sum_j w_j P_j + p2 sum_j (j-1) w_j^2 + p3 sum_j w_j ((j-1)(W - w_j) - P_j)
      E[Q^2] = p4 (V^2 - T_share) + p3 (T_share - T_same) + p2 T_same
      T_same = sum_j (j-1) w_j^2
      T_share = sum_j S_j^2 + sum_j (j-1)^2 w_j^2 + 2 sum_j (j-1) w_j S_j - T_same

  (pairs of pairs (i<j), (i'<j') are identical, share one index, or are disjoint; T_share
  sums w_j w_j' over those sharing at least one index). Then
  E[Y^2] = (C+1)^2 E[L^2] + 2 (C+1) E[LQ] + E[Q^2]. E[Y] reproduces McSherry & Najork.

Groups are independent, so a query's variance is the sum of its groups' variances (times
1/R^2 for AP, 1/IDCG^2 for nDCG): there are no cross-group terms.

Examples
--------
Five documents tied, one relevant (V6 of the reference): E[AP] = 137/300.

>>> import pandas as pd
>>> from tiedrank import Run, Qrels, build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcde"), "score": 0.5}))
>>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["c"], "relevance": [1]}))
>>> sums = group_sums(build_tie_table(run, qrels), "AP")
>>> float(sums.query_mean()[0] * 300)
137.0
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..metrics import Metric, discount, gain, ideal_dcg, parse_metric
from ..core.segments import segment_sum
from ..core.ties import TieTable

GROUP_FAMILIES = ("AP", "DCG", "nDCG")
"""Metric families handled as sums of independent group terms."""


@dataclass(frozen=True)
class GroupSums:
    """A metric as ``sum_g scale_g Y_g`` over the groups that can score (see module doc).

    Per group (only groups with a marked document above the cutoff): ``query``, ``above``
    a_g, ``size`` n_g, ``cutoff`` K (``inf`` when none), ``relevant_above`` C (AP),
    ``scale`` (1/R, 1/IDCG or 1), exact ``mean`` and ``variance`` of Y_g, ``random``
    (False when every ordering gives the same Y_g). Marked documents (relevant for AP,
    positive gain for DCG) in CSR form: ``mark_start`` (per group) and ``mark_weight``
    (1 for AP, the gain for DCG).
    """

    family: str
    n_queries: int
    query: np.ndarray
    above: np.ndarray
    size: np.ndarray
    cutoff: np.ndarray
    relevant_above: np.ndarray
    scale: np.ndarray
    mark_start: np.ndarray
    mark_weight: np.ndarray
    mean: np.ndarray
    variance: np.ndarray
    random: np.ndarray

    @property
    def marks(self) -> np.ndarray:
        """Marked documents per group (k_g for AP)."""
        return np.diff(self.mark_start)

    def slot_weight(self, rank: np.ndarray, group: np.ndarray | None = None) -> np.ndarray:
        """w(rank) of the family, zero beyond each group's cutoff."""
        cutoff = self.cutoff if group is None else self.cutoff[group]
        rank = np.asarray(rank)
        inside = rank <= cutoff
        if self.family == "AP":
            return inside / rank
        return inside * discount(rank.ravel()).reshape(rank.shape)

    def query_mean(self) -> np.ndarray:
        return np.bincount(self.query, weights=self.scale * self.mean,
                           minlength=self.n_queries).astype(np.float64)

    def query_variance(self) -> np.ndarray:
        return np.bincount(self.query, weights=self.scale ** 2 * self.variance,
                           minlength=self.n_queries).astype(np.float64)


def group_sums(table: TieTable, metric: str | Metric, gain_kind: str = "linear") -> GroupSums:
    """The :class:`GroupSums` of AP, AP@k, DCG@k, nDCG or nDCG@k on ``table``."""
    m = parse_metric(metric)
    if m.family not in GROUP_FAMILIES:
        raise ValueError(f"metric {m.name!r} is not a sum of group terms; expected one of "
                         f"{', '.join(GROUP_FAMILIES)}")
    table = table.scoring()
    family = "AP" if m.family == "AP" else "DCG"
    doc_weight = (table.doc_relevant.astype(np.float64) if family == "AP"
                  else gain(table.doc_grade, gain_kind))
    cutoff = np.inf if m.k is None else float(m.k)
    marked = doc_weight > 0
    keep = (np.logical_or.reduceat(marked, table.group_start) if table.n_groups
            else np.zeros(0, dtype=bool)) & (table.group_above < cutoff)
    if family == "AP":
        scale = _reciprocal(table.n_relevant.astype(np.float64))
    elif m.family == "nDCG":
        scale = _reciprocal(ideal_dcg(table, m.k, gain_kind))
    else:
        scale = np.ones(table.n_queries)
    docs = np.repeat(keep, table.group_size)
    size = table.group_size[keep]
    start = np.cumsum(size) - size
    above = table.group_above[keep]
    weight = doc_weight[docs]
    slot = np.arange(len(weight)) - np.repeat(start, size) + 1
    rank = np.repeat(above, size) + slot
    in_cut = rank <= cutoff
    slot_w = in_cut / rank if family == "AP" else in_cut * discount(rank)
    moments = _ap_moments if family == "AP" else _dcg_moments
    mean, variance, random = moments(weight, slot_w, slot, start, size,
                                     table.relevant_above[keep].astype(np.float64))
    is_mark = weight > 0
    mark_start = np.zeros(len(size) + 1, dtype=np.int64)
    np.cumsum(segment_sum(is_mark.astype(np.int64), start), out=mark_start[1:])
    query = table.group_query[keep]
    return GroupSums(family, table.n_queries, query, above, size,
                     np.full(len(size), cutoff), table.relevant_above[keep], scale[query],
                     mark_start, weight[is_mark], mean, variance, random)


def _reciprocal(values: np.ndarray) -> np.ndarray:
    out = np.zeros_like(values, dtype=np.float64)
    np.divide(1.0, values, out=out, where=values > 0)
    return out


def _segment_prefix(values: np.ndarray, start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Exclusive prefix sums inside each segment (sum of the earlier values of the segment).

    One running sum in extended precision, reset per segment by subtraction: the rounding
    of the long running total stays far below float64's own.
    """
    running = np.cumsum(values, dtype=np.longdouble)
    before = running[start] - values[start] if len(start) else running[:0]
    return (running - values - np.repeat(before, size)).astype(np.float64)


def _dcg_moments(gains, slot_w, slot, start, size, _relevant_above):
    """Hoeffding's moments of the linear permutation statistic sum_i c_i d_pi(i)."""
    n = size.astype(np.float64)
    c_bar = segment_sum(gains, start) / n
    d_bar = segment_sum(slot_w, start) / n
    c_dev = gains - np.repeat(c_bar, size)
    d_dev = slot_w - np.repeat(d_bar, size)
    s_c = segment_sum(c_dev * c_dev, start)
    s_d = segment_sum(d_dev * d_dev, start)
    variance = np.divide(s_c * s_d, n - 1, out=np.zeros_like(n), where=n > 1)
    random = (s_c > 0) & (s_d > 0)
    return n * c_bar * d_bar, np.maximum(variance, 0.0), random


def _subset_moment(k: np.ndarray, n: np.ndarray, order: int) -> np.ndarray:
    """p_m = k(k-1)...(k-m+1) / (n(n-1)...(n-m+1)): P(m given slots all hold relevant)."""
    p = np.ones_like(n)
    for i in range(order):
        p = p * np.divide(np.maximum(k - i, 0.0), n - i, out=np.zeros_like(n), where=n - i > 0)
    return p


def _ap_moments(is_relevant, w, slot, start, size, relevant_above):
    """Exact E[Y_g] and Var[Y_g] of AP's group terms (formulas in the module docstring)."""
    n = size.astype(np.float64)
    k = segment_sum(is_relevant, start)
    p1, p2, p3, p4 = (_subset_moment(k, n, m) for m in (1, 2, 3, 4))
    before = slot - 1.0                       # j - 1
    prefix = _segment_prefix(w, start, size)  # P_j
    total = segment_sum(w, start)            # W
    suffix = np.repeat(total, size) - prefix - w  # S_j
    seg = lambda values: segment_sum(values, start)
    sum_w2 = seg(w * w)
    v = seg(before * w)
    t_same = seg(before * w * w)
    e_l = p1 * total
    e_q = p2 * v
    e_l2 = p1 * sum_w2 + p2 * (total * total - sum_w2)
    e_lq = (p2 * seg(w * prefix) + p2 * t_same
            + p3 * seg(w * (before * (np.repeat(total, size) - w) - prefix)))
    t_share = (seg(suffix * suffix) + seg(before * before * w * w)
               + 2 * seg(before * w * suffix) - t_same)
    e_q2 = p4 * (v * v - t_share) + p3 * (t_share - t_same) + p2 * t_same
    c1 = relevant_above + 1.0
    mean = c1 * e_l + e_q
    variance = c1 * c1 * e_l2 + 2 * c1 * e_lq + e_q2 - mean * mean
    random = (k > 0) & (k < n) & (total > 0)
    return mean, np.where(random, np.maximum(variance, 0.0), 0.0), random
