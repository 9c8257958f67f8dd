"""Metric kernels: the math, one function per metric family.

Every kernel takes a :class:`~tiedrank.core.ties.TieTable` and returns one float per query of
the table. On the *expected* table a kernel returns the exact expectation over all
orderings inside the tie groups (closed forms of ``docs/metrics-reference.md`` section 3); on a
*resolved* table (one group per document) the same formula reduces to the metric of that
single ordering. So each metric is written once and serves every tie policy.

Notation (per query): groups g in rank order with size n_g, relevant count k_g, a_g
documents above, K_{g-1} relevant above; R relevant documents in the qrels; g* the first
group holding a relevant document, with a = a_{g*}, t = n_{g*}, r = k_{g*}.

Metrics whose definition already depends on the tie groups (``TsRR``, ``TsRR2``,
``MTRR_GRAG``, ``TMHits_GRAG@k``) take the same value under every policy, and so do
trec_eval's counts and set measures (``num_ret``, ``set_P``, ...), which ignore the order.
bpref reads judged non-relevant documents, so it runs on the whole table rather than the
compact scoring view (``docs/metrics-reference.md`` section 3b).

Names, aliases and parameters live in :mod:`tiedrank.metrics.registry`, which maps each
metric family to its kernel here.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..core.options import GAINS  # noqa: F401  (the vocabulary lives with the options)
from ..core.segments import segment_sum
from ..core.ties import TieTable
from ..core.validation import Options, check
from .blocks import divide, per_query_docs, per_query_groups
from .gain_maps import is_gain_map, map_gains, resolve_by_gain, sorted_descending

# ---- shared building blocks (the rest: tiedrank.metrics.blocks) -------------------------
def _cutoff(table: TieTable, k: int | np.ndarray | None) -> np.ndarray:
    """Per-query cutoff as an array (``None`` means the whole list)."""
    if k is None:
        return table.n_retrieved.astype(np.float64)
    return np.broadcast_to(np.asarray(k, dtype=np.float64), (table.n_queries,))


def gain(grades: np.ndarray, kind: str = "linear") -> np.ndarray:
    """Gain of each grade: ``linear`` = grade, ``exp`` = 2**grade - 1 (negatives count 0), or
    a gain map ``1:3 2:9`` (:mod:`tiedrank.metrics.gain_maps`)."""
    if is_gain_map(kind):
        return map_gains(grades, kind)
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
    return per_query_groups(table, table.group_relevant * slots / table.group_size)


def precision(table: TieTable, k: int) -> np.ndarray:
    """P@k = E[#relevant in the top k] / k (trec_eval: the denominator is k)."""
    return relevant_in_top(table, k) / k


def recall(table: TieTable, k: int) -> np.ndarray:
    """R@k = E[#relevant in the top k] / R."""
    return divide(relevant_in_top(table, k), table.n_relevant)


def r_precision(table: TieTable) -> np.ndarray:
    """Rprec = E[#relevant in the top R] / R."""
    return divide(relevant_in_top(table, table.n_relevant), table.n_relevant)


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
    slope = divide((kg - 1).astype(np.float64), (n - 1).astype(np.float64))
    term = (kg / n) * (table.relevant_above[g] + 1 + (j - 1) * slope) / rank
    total = np.bincount(table.group_query[g], weights=term, minlength=table.n_queries)
    return divide(total, table.n_relevant)


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
    return per_query_docs(table, values)


def ideal_gains(table: TieTable, gain_kind: str = "linear") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ideal ranking of every query's judged documents (retrieved or not): each place's
    query, its rank (1-based) and its gain, highest gain first."""
    counts = np.diff(table.ideal_start)
    query = np.repeat(np.arange(table.n_queries), counts)
    rank = np.arange(len(table.ideal_grade)) - np.repeat(table.ideal_start[:-1], counts) + 1
    gains = gain(table.ideal_grade, gain_kind)
    if is_gain_map(gain_kind):  # a map need not follow the grades: the ideal sorts by gain
        gains = sorted_descending(query, gains)
    return query, rank, gains


def ideal_dcg(table: TieTable, k: int | None = None, gain_kind: str = "linear") -> np.ndarray:
    """IDCG@k from the qrels' grades alone (all judged documents, retrieved or not)."""
    query, rank, gains = ideal_gains(table, gain_kind)
    values = gains * discount(rank)
    if k is not None:
        values = values * (rank <= k)
    return np.bincount(query, weights=values, minlength=table.n_queries)


def ndcg(table: TieTable, k: int | None = None, gain_kind: str = "linear") -> np.ndarray:
    """nDCG@k = E[DCG@k] / IDCG@k (IDCG is not random, so the ratio is exact)."""
    return divide(dcg(table, k, gain_kind), ideal_dcg(table, k, gain_kind))


def graded_extreme(table: TieTable, metric, best: bool) -> np.ndarray:
    """Best (worst) case of a graded metric (nDCG, DCG) under a gain map: its kernel on the
    table resolved by gain, highest (lowest) first (see :mod:`tiedrank.metrics.gain_maps`)."""
    return metric.entry.kernel(resolve_by_gain(table, metric.gain, best), metric, metric.gain)


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
    ratio = divide(np.log1p(t - r), np.log1p(f_total))
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
    tau = divide(t - r, f_total)
    denominator = a + (1 - tau) * (t + 1) / (r + 1) + tau * (t - r + 1)
    return np.where(found, 1.0 / np.where(found, denominator, 1.0), 0.0)


def mtrr_grag(table: TieTable) -> np.ndarray:
    """MTRR of the G-RAG paper (Eq. 11): mean over retrieved positives of 1/middle rank.

    (1/|P+|) sum_g k_g * 2 / (2 a_g + n_g + 1), |P+| = relevant documents retrieved. This is
    1/E[rank], not E[1/rank]: by Jensen it never exceeds the exact expectation.
    """
    values = table.group_relevant * 2.0 / (2 * table.group_above + table.group_size + 1)
    return divide(per_query_groups(table, values), table.relevant_retrieved)


def tmhits_grag(table: TieTable, k: int) -> np.ndarray:
    """TMHits@k of the G-RAG paper (Eq. 12), clipped: (1/|P+|) sum_g k_g clip((K-a_g)/n_g, 0, 1).

    Read literally, Eq. 12 is not clipped and can exceed 1; we clip each group's share.
    """
    share = np.clip((k - table.group_above) / table.group_size, 0.0, 1.0)
    return divide(per_query_groups(table, table.group_relevant * share), table.relevant_retrieved)


# ---- trec_eval's counts and set measures: the same under every ordering ------------------
# None of these looks at the order inside the run, so each value is that of every tie
# policy (the registry marks them ``order_independent``). Only trec_eval's -M can split a
# tie group: evaluate's truncate_run keeps the first M documents in trec_eval's order
# (score descending, docno descending) before the tie table is built, so the retrieved set
# (and hence these values) is trec_eval's under every policy.
def num_retrieved(table: TieTable) -> np.ndarray:
    """``num_ret``: documents retrieved for the query (after -M and -J).

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcd"),
    ...                              "score": [0.9, 0.5, 0.5, 0.1]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": list("bcx"), "relevance": [1, 0, 2]}))
    >>> table = build_tie_table(run, qrels)
    >>> num_retrieved(table), num_relevant(table), num_relevant_retrieved(table)
    (array([4.]), array([2.]), array([1.]))
    >>> set_precision(table), set_recall(table), set_f(table, 1.0), set_map(table)
    (array([0.25]), array([0.5]), array([0.33333333]), array([0.125]))
    """
    return table.n_retrieved.astype(np.float64)


def num_relevant(table: TieTable) -> np.ndarray:
    """``num_rel``: R, the qrels documents with grade >= the relevance level."""
    return table.n_relevant.astype(np.float64)


def num_relevant_retrieved(table: TieTable) -> np.ndarray:
    """``num_rel_ret``: relevant documents retrieved."""
    return table.relevant_retrieved.astype(np.float64)


def num_nonrelevant_judged_retrieved(table: TieTable) -> np.ndarray:
    """``num_nonrel_judged_ret``: retrieved documents judged non-relevant (0 <= grade <
    relevance level); unjudged and negatively graded ones are not counted (trec_eval's
    num_ret - num_nonpool - num_unjudged_in_pool - num_rel_ret). Needs the whole table."""
    # the judged documents are few: found first, then placed in their queries' CSR
    # segments (no array the size of the run is built: a repeat of the query index, or
    # masks, cost 0.2 s of fresh memory on 7M documents)
    judged = np.flatnonzero(table.doc_judged)
    grade = table.doc_grade[judged]
    nonrel = judged[(grade >= 0) & (grade < table.rel_level)]
    query = np.searchsorted(table.query_start, nonrel, side="right") - 1
    return np.bincount(query, minlength=table.n_queries).astype(np.float64)


def set_precision(table: TieTable) -> np.ndarray:
    """``set_P`` = num_rel_ret / num_ret (0 when nothing is retrieved)."""
    return divide(num_relevant_retrieved(table), num_retrieved(table))


def set_recall(table: TieTable) -> np.ndarray:
    """``set_recall`` = num_rel_ret / R (0 when R = 0)."""
    return divide(num_relevant_retrieved(table), num_relevant(table))


def set_f(table: TieTable, beta: float = 1.0) -> np.ndarray:
    """``set_F`` = (beta + 1) P R / (beta P + R) of set precision P and set recall R.

    trec_eval's ``set_F`` (m_set_F.c), parameter default 1 (the harmonic mean); its beta
    weighs recall beta times as much as precision (it is the beta^2 of van Rijsbergen's
    F_beta). 0 when no relevant document is retrieved.
    """
    p, r = set_precision(table), set_recall(table)
    return divide((beta + 1.0) * p * r, beta * p + r)


def set_relative_precision(table: TieTable) -> np.ndarray:
    """``set_relative_P`` = num_rel_ret / min(num_ret, R): precision relative to the best
    possible precision of a set of that size (0 when either count is 0)."""
    return divide(num_relevant_retrieved(table),
                        np.minimum(num_retrieved(table), num_relevant(table)))


def set_map(table: TieTable) -> np.ndarray:
    """``set_map`` = num_rel_ret^2 / (num_ret R) (unranked AP; set_P * set_recall).

    Computed as m_set_map.c computes it, one division of two exact products: the product
    of the two rounded ratios can differ in the last bit, and print the other side of a
    half-way 4th decimal."""
    rel_ret = num_relevant_retrieved(table)
    return divide(rel_ret * rel_ret, num_retrieved(table) * num_relevant(table))


# ---- bpref ---------------------------------------------------------------------------------
def judged_nonrelevant(table: TieTable) -> np.ndarray:
    """Per query: N, the qrels documents judged non-relevant (0 <= grade < relevance level).

    A negative grade ("in the pool, not judged") is neither relevant nor judged
    non-relevant, as in trec_eval (form_res_rels.c counts grades >= 0 only).
    """
    counts = np.diff(table.ideal_start)
    query = np.repeat(np.arange(table.n_queries), counts)
    nonrel = (table.ideal_grade >= 0) & (table.ideal_grade < table.rel_level)
    return np.bincount(query[nonrel], minlength=table.n_queries).astype(np.float64)


def bpref(table: TieTable) -> np.ndarray:
    """bpref (Buckley & Voorhees 2004, trec_eval's m_bpref.c), exact under ties.

    bpref = (1/R) sum_{r relevant retrieved} (1 - min(n_r, R) / min(N, R)), with n_r the
    judged non-relevant documents ranked above r (unjudged and negatively graded documents
    are skipped), N those in the qrels and R the relevant ones; a term is 1 when n_r = 0.
    Only the count n_r matters, capped at R (trec_eval counts every judged non-relevant
    document above r and caps the count; it never picks "the first R" of them).

    Under ties, n_r = A_g + Y for r in group g: A_g judged non-relevant documents in the
    groups above, and Y of the group's own G_g, where Y is uniform on 0..G_g (r's position
    among itself and those G_g documents is uniform). With c = R - A_g and
    m = clip(c, 0, G_g + 1) the number of uncapped values,

        E[min(A_g + Y, R)] = (m A_g + m(m-1)/2 + (G_g + 1 - m) R) / (G_g + 1)

    and E[bpref] = (1/R) sum_g k_g (1 - E[min(A_g + Y, R)] / min(N, R)). Best and worst put
    the relevant documents before or after the group's non-relevant ones (Y = 0 or G_g),
    which the best and worst orders do. The kernel reads the judged documents
    (registry ``view="judged"``: the -J view, where unjudged documents, which bpref skips,
    are dropped), not the compact scoring view.

    Examples
    --------
    Two relevant documents, one tied with two judged non-relevant ones, one non-relevant
    above (R = 2, N = 3): the lone relevant document at the top scores 1; the tied one sees
    A = 1 and Y uniform on 0..2, so E[min(1 + Y, 2)] = (1 + 2 + 2) / 3 and its term is
    1 - 5/6: E[bpref] = (1 + 1/6) / 2.

    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcde"),
    ...                              "score": [0.9, 0.8, 0.5, 0.5, 0.5]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": list("abcde"),
    ...                             "relevance": [1, 0, 1, 0, 0]}))
    >>> table = build_tie_table(run, qrels)
    >>> round(float(bpref(table)[0]), 12) == round(7 / 12, 12)
    True
    """
    nonrel_doc = table.doc_judged & (table.doc_grade >= 0) & ~table.doc_relevant
    group_nonrel = segment_sum(nonrel_doc.astype(np.int64), table.group_start).astype(np.float64)
    above = table.sum_above(group_nonrel)
    n_rel = table.n_relevant.astype(np.float64)[table.group_query]
    cap = np.minimum(judged_nonrelevant(table), table.n_relevant)[table.group_query]
    uncapped = np.clip(n_rel - above, 0.0, group_nonrel + 1.0)
    expected = (uncapped * above + uncapped * (uncapped - 1) / 2
                + (group_nonrel + 1 - uncapped) * n_rel) / (group_nonrel + 1)
    terms = table.group_relevant * (1.0 - divide(expected, cap.astype(np.float64)))
    return divide(per_query_groups(table, terms), table.n_relevant)


# ---- rank-biased precision -----------------------------------------------------------------
def rbp(table: TieTable, p: float = 0.9) -> np.ndarray:
    """Rank-biased precision (Moffat & Zobel 2008): (1 - p) sum_i rel_i p^(i - 1).

    Binary relevance (grade >= the relevance level), as the paper defines it; the
    residual is not reported. The installed trec_eval (pytrec_eval's C code) has no rbp;
    trec_eval 10's ``rbp`` maps grades to gains normalised to [0, 1] instead.

    RBP is linear in per-position weights, so its expectation gives each relevant document
    its group's mean weight (as DCG): E[RBP] = sum_g (k_g / n_g) sum_{i=a_g+1}^{a_g+n_g}
    (1 - p) p^(i - 1). Best and worst order the group by relevance.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abc"), "score": [1.0, 1.0, 0.5]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["b"], "relevance": [1]}))
    >>> float(rbp(build_tie_table(run, qrels), 0.5)[0])   # (0.5 * 1 + 0.5 * 0.5) / 2
    0.375
    """
    if not (0.0 < p < 1.0):
        raise ValueError("rbp: p must be in (0, 1)")
    share = (table.group_relevant / table.group_size)[table.doc_group]
    weight = (1.0 - p) * np.power(p, (table.doc_rank - 1).astype(np.float64))
    return per_query_docs(table, share * weight)


# ---- precision at cutoffs set by R or by the best possible precision -------------------------
def r_precision_mult(table: TieTable, mult: float) -> np.ndarray:
    """``Rprec_mult``: precision at cutoff c = floor(mult * R + 0.9), trec_eval's rounding
    (m_Rprec_mult.c); E[#rel in the top c] / c, 0 when c < 1. ``mult = 1`` is Rprec."""
    cutoff = np.floor(mult * table.n_relevant.astype(np.float64) + 0.9)
    counted = relevant_in_top(table, np.maximum(cutoff, 1.0))
    return np.where(cutoff >= 1, counted / np.maximum(cutoff, 1.0), 0.0)


def relative_precision(table: TieTable, k: int) -> np.ndarray:
    """``relative_P@k`` = E[#rel in the top k] / min(k, R): precision relative to the best
    possible at k (precision up to R, recall beyond); 0 when R = 0.

    Examples
    --------
    One relevant document (R = 1) tied with another at the top: it is first half the time,
    so relative_P@1 = 1/2, while relative_P@2 = 1 (k = 2 > R: recall) and Rprec_mult with
    mult = 2 looks at the top floor(2 + 0.9) = 2 documents: 1/2.

    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abc"), "score": [1.0, 1.0, 0.5]}))
    >>> table = build_tie_table(run, Qrels(pd.DataFrame({"query": "q", "doc": ["b"],
    ...                                                  "relevance": [1]})))
    >>> relative_precision(table, 1), relative_precision(table, 2), r_precision_mult(table, 2.0)
    (array([0.5]), array([1.]), array([0.5]))
    """
    return divide(relevant_in_top(table, k),
                        np.minimum(float(k), table.n_relevant.astype(np.float64)))
