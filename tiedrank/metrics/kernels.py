"""Metric kernels: the math, one function per metric family.

Every kernel takes a :class:`~tiedrank.ties.TieTable` and returns one float per query of
the table. On the *expected* table a kernel returns the exact expectation over all
orderings inside the tie groups (closed forms of ``docs/metrics-reference.md`` section 3); on a
*resolved* table (one group per document) the same formula reduces to the metric of that
single ordering. So each metric is written once and serves every tie policy.

Notation (per query): groups g in rank order with size n_g, relevant count k_g, a_g
documents above, K_{g-1} relevant above; R relevant documents in the qrels; g* the first
group holding a relevant document, with a = a_{g*}, t = n_{g*}, r = k_{g*}.

Metrics whose definition already depends on the tie groups (``TsRR``, ``TsRR2``,
``MTRR_GRAG``, ``TMHits_GRAG@k``) take the same value under every policy.

Names, aliases and parameters live in :mod:`tiedrank.metrics.registry`, which maps each
metric family to its kernel here.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..ties import TieTable, segment_sum
from ..validation import Options, check

GAINS = ("linear", "exp")
"""DCG gains: the grade itself, or 2**grade - 1."""


# ---- shared building blocks --------------------------------------------------------------
def _per_query(table: TieTable, group_values: np.ndarray) -> np.ndarray:
    return np.bincount(table.group_query, weights=group_values, minlength=table.n_queries)


def _per_query_docs(table: TieTable, doc_values: np.ndarray) -> np.ndarray:
    return np.bincount(table.doc_query, weights=doc_values, minlength=table.n_queries)


def _cutoff(table: TieTable, k: int | np.ndarray | None) -> np.ndarray:
    """Per-query cutoff as an array (``None`` means the whole list)."""
    if k is None:
        return table.n_retrieved.astype(np.float64)
    return np.broadcast_to(np.asarray(k, dtype=np.float64), (table.n_queries,))


def _safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros_like(numerator, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def gain(grades: np.ndarray, kind: str = "linear") -> np.ndarray:
    """Gain of each grade: ``linear`` = grade, ``exp`` = 2**grade - 1 (negatives count 0)."""
    check("gain", kind, [Options(*GAINS)])
    clipped = np.maximum(grades, 0).astype(np.float64)
    return clipped if kind == "linear" else np.exp2(clipped) - 1.0


@lru_cache(maxsize=4)
def _discount_table(length: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(length, dtype=np.float64) + 2.0)


def discount(ranks: np.ndarray) -> np.ndarray:
    """1 / log2(rank + 1) for 1-based ranks."""
    if len(ranks) == 0:
        return np.zeros(0)
    table = _discount_table(1 << int(np.ceil(np.log2(max(int(ranks.max()), 2)))))
    return table[ranks - 1]


# ---- first relevant rank: the pmf behind RR, RR@k and Success@k -----------------------------
@dataclass(frozen=True)
class FirstRelevantPmf:
    """Exact distribution of the first relevant rank for every query with one retrieved.

    Flat arrays, one entry per possible rank: ``query`` (index into the table's queries),
    ``rank`` and ``probability``. For g* with a above, t tied and r relevant:
    P(rank = a + j) = C(t-j, r-1) / C(t, r), j = 1..t-r+1, computed by the product
    recurrence p_1 = r/t, p_{j+1} = p_j (t-r-j+1)/(t-j) in log space (never factorials).
    """

    query: np.ndarray
    rank: np.ndarray
    probability: np.ndarray


def first_relevant_pmf(table: TieTable) -> FirstRelevantPmf:
    """The exact pmf of the first relevant rank (see :class:`FirstRelevantPmf`)."""
    table = table.scoring()
    cached = table.__dict__.get("_first_relevant_pmf")
    if cached is not None:
        return cached
    gstar = np.flatnonzero((table.group_relevant > 0) & (table.relevant_above == 0))
    a = table.group_above[gstar]
    t = table.group_size[gstar]
    r = table.group_relevant[gstar]
    length = t - r + 1
    segment = np.repeat(np.arange(len(gstar)), length)
    seg_first = np.cumsum(length) - length
    j = np.arange(length.sum()) - np.repeat(seg_first, length) + 1
    t_, r_ = t[segment], r[segment]
    # log(p_j / p_{j-1}) = log(1 - (r-1)/(t-j+1)) for j >= 2; log1p keeps it exact for r=1.
    step = np.where(j >= 2, np.log1p(-(r_ - 1) / np.maximum(t_ - j + 1, 1)), 0.0)
    # Running sum restarted at every query (a doubling scan: pass d adds the partial sum d
    # places back when it lies in the same segment), so each query's bits depend on its
    # own steps alone, never on the queries before it (a whole-table cumsum minus an offset
    # would). log2(longest segment) vectorised passes; pairwise order, in long double.
    running = step.astype(np.longdouble)
    later, distance = np.flatnonzero(j > 1), 1  # positions with a partner d places back
    while len(later):
        running[later] = running[later] + running[later - distance]
        distance *= 2
        later = later[j[later] > distance]
    log_p = np.log(r_ / t_) + running.astype(np.float64)
    pmf = FirstRelevantPmf(table.group_query[gstar][segment], a[segment] + j, np.exp(log_p))
    table.__dict__["_first_relevant_pmf"] = pmf  # derived data: cache on the frozen table
    return pmf


def _first_relevant_sum(table: TieTable, k: int | None, weight) -> np.ndarray:
    pmf = first_relevant_pmf(table)
    inside = np.ones(len(pmf.rank), dtype=bool) if k is None else pmf.rank <= k
    values = pmf.probability * weight(pmf.rank.astype(np.float64)) * inside
    return np.bincount(pmf.query, weights=values, minlength=table.n_queries)


def reciprocal_rank(table: TieTable, k: int | None = None) -> np.ndarray:
    """RR (RR@k): E[1/rank of the first relevant document], 0 beyond k.

    E[RR@K] = sum_{j: a+j <= K} p_j / (a + j).
    """
    return _first_relevant_sum(table, k, lambda rank: 1.0 / rank)


def success(table: TieTable, k: int) -> np.ndarray:
    """Success@k (ranx's hit_rate@k): probability that a relevant document is in the top k.

    E[Success@K] = sum_{j <= K - a} p_j = 1 - prod_{i<m} (t-r-i)/(t-i), m = K - a.
    """
    return _first_relevant_sum(table, k, np.ones_like)


# ---- counts: P@k, R@k, Rprec ---------------------------------------------------------------
def relevant_in_top(table: TieTable, k: int | np.ndarray | None) -> np.ndarray:
    """E[#relevant in the top k] = sum_g k_g * clip(K - a_g, 0, n_g) / n_g."""
    cutoff = _cutoff(table, k)[table.group_query]
    slots = np.clip(cutoff - table.group_above, 0, table.group_size)
    return _per_query(table, table.group_relevant * slots / table.group_size)


def precision(table: TieTable, k: int) -> np.ndarray:
    """P@k = E[#relevant in the top k] / k (trec_eval: the denominator is k)."""
    return relevant_in_top(table, k) / k


def recall(table: TieTable, k: int) -> np.ndarray:
    """R@k = E[#relevant in the top k] / R."""
    return _safe_divide(relevant_in_top(table, k), table.n_relevant)


def r_precision(table: TieTable) -> np.ndarray:
    """Rprec = E[#relevant in the top R] / R."""
    return _safe_divide(relevant_in_top(table, table.n_relevant), table.n_relevant)


# ---- average precision -------------------------------------------------------------------
def average_precision(table: TieTable, k: int | None = None) -> np.ndarray:
    """AP (AP@k), McSherry & Najork (2008), summed directly per document position.

    E[AP] = (1/R) sum_g (k_g/n_g) sum_{j=1}^{u_g} [K_{g-1} + 1 + (j-1)(k_g-1)/(n_g-1)] / (a_g+j)

    with u_g = n_g (or the part of the group inside the top k). Each term is evaluated at its
    own rank rather than through harmonic-number differences, which lose digits deep down.
    """
    groups = table.group_relevant > 0
    doc_in = groups[table.doc_group]
    g = table.doc_group[doc_in]
    rank = table.doc_rank[doc_in]
    if k is not None:
        inside = rank <= k
        g, rank = g[inside], rank[inside]
    n = table.group_size[g]
    kg = table.group_relevant[g]
    j = rank - table.group_above[g]
    slope = _safe_divide((kg - 1).astype(np.float64), (n - 1).astype(np.float64))
    term = (kg / n) * (table.relevant_above[g] + 1 + (j - 1) * slope) / rank
    total = np.bincount(table.group_query[g], weights=term, minlength=table.n_queries)
    return _safe_divide(total, table.n_relevant)


# ---- DCG / nDCG --------------------------------------------------------------------------
def dcg(table: TieTable, k: int | None = None, gain_kind: str = "linear") -> np.ndarray:
    """E[DCG@k] = sum_g mean_gain_g * sum_{p = a_g+1}^{min(a_g+n_g, k)} 1/log2(p+1).

    The gain is applied per document and then averaged inside the group (the mean of
    2^rel - 1, never 2^mean(rel) - 1).
    """
    group_gain = segment_sum(gain(table.doc_grade, gain_kind), table.group_start)
    mean_gain = (group_gain / table.group_size)[table.doc_group]
    values = mean_gain * discount(table.doc_rank)
    if k is not None:
        values = values * (table.doc_rank <= k)
    return _per_query_docs(table, values)


def ideal_dcg(table: TieTable, k: int | None = None, gain_kind: str = "linear") -> np.ndarray:
    """IDCG@k from the qrels' grades alone (all judged documents, retrieved or not)."""
    counts = np.diff(table.ideal_start)
    query = np.repeat(np.arange(table.n_queries), counts)
    rank = np.arange(len(table.ideal_grade)) - np.repeat(table.ideal_start[:-1], counts) + 1
    values = gain(table.ideal_grade, gain_kind) * discount(rank)
    if k is not None:
        values = values * (rank <= k)
    return np.bincount(query, weights=values, minlength=table.n_queries)


def ndcg(table: TieTable, k: int | None = None, gain_kind: str = "linear") -> np.ndarray:
    """nDCG@k = E[DCG@k] / IDCG@k (IDCG is not random, so the ratio is exact)."""
    return _safe_divide(dcg(table, k, gain_kind), ideal_dcg(table, k, gain_kind))


# ---- metrics defined on the tie groups ---------------------------------------------------
def first_relevant_group(table: TieTable) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per query: (relevant retrieved?, a, t, r) of g*, the first group holding a relevant
    document: a documents above it, t its size, r its relevant count (0 where none)."""
    table = table.scoring()
    gstar = np.flatnonzero((table.group_relevant > 0) & (table.relevant_above == 0))
    found = np.zeros(table.n_queries, dtype=bool)
    a, t, r = (np.zeros(table.n_queries) for _ in range(3))
    q = table.group_query[gstar]
    found[q] = True
    a[q], t[q], r[q] = table.group_above[gstar], table.group_size[gstar], table.group_relevant[gstar]
    return found, a, t, r


def tsrr(table: TieTable, alpha: float | np.ndarray) -> np.ndarray:
    """TsRR (v1): ``(1 - (ln(1+F_G)/ln(1+F_total))^(1/alpha)) / (a + 1)``.

    F_G = t - r irrelevant documents tied with the first relevant one, F_total irrelevant
    documents retrieved; 1/(a+1) when F_total = 0; 0 when nothing relevant is retrieved.
    ``alpha`` may be an array: the result is then (queries, alphas), in one pass.

    Examples
    --------
    Scores .9 .8 .8 .6 .5 with the relevant document at rank 2 (seed scenario S2):
    F_G = 1, F_total = 4, so TsRR(alpha=1) = (1 - ln 2 / ln 5) / 2 = 0.2846617...
    """
    alphas = np.asarray(alpha, dtype=np.float64)
    if np.any(~np.isfinite(alphas)) or np.any(alphas <= 0):
        raise ValueError("TsRR: alpha must be > 0")
    found, a, t, r = first_relevant_group(table)
    f_total = (table.n_retrieved - table.relevant_retrieved).astype(np.float64)
    ratio = _safe_divide(np.log1p(t - r), np.log1p(f_total))
    shaped = ratio[:, None] if alphas.ndim else ratio
    # a subnormal alpha (1e-320) makes 1/alpha inf: ratio**inf is then 0 (ratio < 1) or 1
    # (ratio = 1), the limits the finite power already equals to float64 precision
    with np.errstate(over="ignore"):
        exponent = 1.0 / alphas
    value = (1.0 - shaped ** exponent) / ((a + 1)[:, None] if alphas.ndim else a + 1)
    return np.where(found[:, None] if alphas.ndim else found, value, 0.0)


def tsrr2(table: TieTable) -> np.ndarray:
    """TsRR2 (October 2025 revision): ``1 / (a + (1-tau)(t+1)/(r+1) + tau (t-r+1))``.

    tau = F_G / F_total (0 when F_total = 0); 0 when nothing relevant is retrieved.
    """
    found, a, t, r = first_relevant_group(table)
    f_total = (table.n_retrieved - table.relevant_retrieved).astype(np.float64)
    tau = _safe_divide(t - r, f_total)
    denominator = a + (1 - tau) * (t + 1) / (r + 1) + tau * (t - r + 1)
    return np.where(found, 1.0 / np.where(found, denominator, 1.0), 0.0)


def mtrr_grag(table: TieTable) -> np.ndarray:
    """MTRR of the G-RAG paper (Eq. 11): mean over retrieved positives of 1/middle rank.

    (1/|P+|) sum_g k_g * 2 / (2 a_g + n_g + 1), |P+| = relevant documents retrieved. This is
    1/E[rank], not E[1/rank]: by Jensen it never exceeds the exact expectation.
    """
    values = table.group_relevant * 2.0 / (2 * table.group_above + table.group_size + 1)
    return _safe_divide(_per_query(table, values), table.relevant_retrieved)


def tmhits_grag(table: TieTable, k: int) -> np.ndarray:
    """TMHits@k of the G-RAG paper (Eq. 12), clipped: (1/|P+|) sum_g k_g clip((K-a_g)/n_g, 0, 1).

    Read literally, Eq. 12 is not clipped and can exceed 1; we clip each group's share.
    """
    share = np.clip((k - table.group_above) / table.group_size, 0.0, 1.0)
    return _safe_divide(_per_query(table, table.group_relevant * share), table.relevant_retrieved)
