"""trec_eval 10's further measures of ``all_trec``, tie-aware: utility, unj, rbp (graded),
rbp_resid, binG, ndcg_rel and Rndcg.

Each kernel reads trec_eval's C loop (``m_<name>.c`` of trec_eval 10.0) and states it as a
sum over documents, so that on the *expected* table it gives the exact mean over every
ordering inside the tie groups and on a resolved table (one document per group) the value
of that single ordering — the convention of :mod:`tiedrank.metrics.kernels`.

trec_eval's classes of a retrieved document (form_res_rels.c): *judged* with a grade >= 0,
*in the pool but unjudged* (a negative grade in the qrels) and *not in the pool* (absent
from the qrels). Both of the last two are "unjudged" for ``unj`` and ``rbp_resid``; a judged
document is *relevant* when its grade >= the relevance level (``-l``). The graded measures
(rbp, ndcg_rel, Rndcg) use trec_eval's default gains, gain = grade (unjudged: 0), read from
the query's qrels whatever ``-l`` says (gain_init.c).

Best and worst: for rbp, binG, ndcg_rel and Rndcg a higher gain (a relevant document)
earlier in a group never lowers the value (each function's docstring gives the exchange
argument), so the grade orders of :meth:`~tiedrank.core.ties.TieTable.resolve` are the extremes.
``unj`` and ``rbp_resid`` count unjudged documents, which the grade orders leave where they
are among grade-0 documents: their families compute the extremes themselves
(:func:`unjudged_extreme`, :func:`rbp_residual_extreme`; registry field ``extremes``).

Examples
--------
>>> import pandas as pd
>>> from tiedrank.core.data import Qrels, Run
>>> from tiedrank.core.ties import build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abc"), "score": [1.0, 1.0, 0.5]}))
>>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["a", "c"], "relevance": [2, 0]}))
>>> table = build_tie_table(run, qrels)   # a (grade 2) tied with b (not judged), then c
>>> unjudged_at(table, 1), unjudged_extreme(table, 1, best=True)   # b first half the time
(array([0.5]), array([1.]))
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..core.segments import segment_cumsum, segment_sum
from ..core.ties import TieTable
from .blocks import divide, per_query_docs, per_query_groups
from .gain_maps import is_gain_map, map_gains, parse_gain_map, sorted_descending
from .kernels import discount

UTILITY_DEFAULTS = (1.0, -1.0, 0.0, 0.0)
"""trec_eval's default utility coefficients (m_utility.c): +1 a relevant document retrieved,
-1 a non-relevant one, 0 a relevant one missed, 0 a non-relevant one not retrieved."""


# ---- building blocks ---------------------------------------------------------------------


def _group_mean(table: TieTable, doc_values: np.ndarray) -> np.ndarray:
    """Per document: the mean of ``doc_values`` over its tie group (each document's share of
    the group's positions under a uniform ordering)."""
    return (segment_sum(doc_values.astype(np.float64), table.group_start)
            / table.group_size)[table.doc_group]


def _running_sum(values: np.ndarray, starts: np.ndarray, exclusive: bool = False) -> np.ndarray:
    """Running sum of ``values`` restarted at each segment (``starts``: the first index of
    each), each segment on its own (:func:`~tiedrank.core.ties.segment_cumsum`), in long
    double so that a long segment does not lose the digits of its short terms."""
    return segment_cumsum(values, starts, exclusive=exclusive,
                          dtype=np.longdouble).astype(np.float64)


def unjudged_docs(table: TieTable) -> np.ndarray:
    """Per document: unjudged in trec_eval's sense (absent from the qrels, or a negative
    grade: "in the pool but unjudged")."""
    return ~table.doc_judged | (table.doc_grade < 0)


def trec_gains(table: TieTable, gain: str | None = None) -> np.ndarray:
    """Per document: trec_eval's default gain, the grade of a judged document (0 otherwise),
    or under a gain map ``gain`` (trec_eval's ``ndcg_rel.1=3,2=9``) the map's gain of it."""
    judged = table.doc_judged & (table.doc_grade > 0)
    if gain is not None and is_gain_map(gain):
        return np.where(judged, map_gains(table.doc_grade, gain), 0.0)
    return np.where(judged, table.doc_grade, 0).astype(np.float64)


def ideal_gains(table: TieTable, gain: str | None = None) -> np.ndarray:
    """The gains of the qrels' judged documents per query, descending (CSR on
    ``ideal_start``): a map need not follow the grades, so the ideal sorts by gain."""
    if gain is None or not is_gain_map(gain):
        return np.maximum(table.ideal_grade, 0).astype(np.float64)
    counts = np.diff(table.ideal_start)
    query = np.repeat(np.arange(table.n_queries), counts)
    return sorted_descending(query, map_gains(table.ideal_grade, gain))


# ---- utility: a set measure ------------------------------------------------------------------
def utility(table: TieTable, coefficients: tuple[float, float, float, float] = UTILITY_DEFAULTS,
            docs: float | None = 0.0) -> np.ndarray:
    """trec_eval's ``utility`` (m_utility.c): a weighted contingency table of the retrieved set.

    utility = c1 * rel_ret + c2 * (ret - rel_ret) + c3 * (R - rel_ret)
    + c4 * (D + rel_ret - ret - R)

    with ret documents retrieved, rel_ret of them relevant, R relevant in the qrels and D the
    collection size ``docs``, which trec_eval reads from ``-N`` and takes as 0 by default (so
    does tiedrank: with c4 != 0 and no ``docs`` the last term is trec_eval's,
    -c4 (ret + R - rel_ret)). The value
    depends on the retrieved set only, never on the order: every tie policy gives it. ``-M``
    keeps trec_eval's first M documents before the table is built, so a group it splits is
    split as trec_eval splits it.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abc"), "score": [1.0, 1.0, 0.5]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["a", "x"], "relevance": [1, 1]}))
    >>> utility(build_tie_table(run, qrels))               # 1 - 2
    array([-1.])
    >>> utility(build_tie_table(run, qrels), (2, -1, -1, 0))   # 2 - 2 - 1
    array([-1.])
    """
    c1, c2, c3, c4 = (float(c) for c in coefficients)
    ret = table.n_retrieved.astype(np.float64)
    rel = table.n_relevant.astype(np.float64)
    rel_ret = table.relevant_retrieved.astype(np.float64)
    # trec_eval's order of operations (m_utility.c); the last count is an integer there
    value = (c1 * rel_ret + c2 * (ret - rel_ret) + c3 * (rel - rel_ret)
             + c4 * (float(docs or 0) + rel_ret - ret - rel))
    # -c: a query the run misses scores 0, as trec_eval.c resets utility for its empty ranking
    answered = table.n_retrieved > 0 if table.in_run is None else table.in_run
    return np.where(answered, value, 0.0)


# ---- unj@k: unjudged documents in the top k --------------------------------------------------
def _slots(table: TieTable, k: int) -> np.ndarray:
    """Per group: how many of its positions lie in the top k."""
    return np.clip(k - table.group_above, 0, table.group_size)


def _judged_per_group(table: TieTable) -> np.ndarray:
    """Per group: its judged documents (in the qrels with a grade >= 0), the complement of
    :func:`unjudged_docs`."""
    return segment_sum((~unjudged_docs(table)).astype(np.int64), table.group_start)


def unjudged_at(table: TieTable, k: int) -> np.ndarray:
    """trec_eval's ``unj_k`` (m_unjudged.c): unjudged documents in the top k, over k.

    k is the denominator even when fewer than k documents are retrieved (trec_eval fills the
    list with judged ones). The top k hold min(k, N) retrieved documents, so unj_k =
    (min(k, N) - judged documents in the top k) / k. Tie-aware: E[#judged in the top k] =
    sum_g j_g s_g / n_g, with j_g the judged documents of group g and s_g = clip(k - a_g, 0,
    n_g) of its positions in the top k. Groups without a judged document add nothing to that
    sum, so the kernel reads the groups holding a qrels document (registry ``view="qrels"``),
    ranks and N kept.
    """
    judged = _judged_per_group(table).astype(np.float64)
    shown = np.minimum(table.n_retrieved, k).astype(np.float64)
    return (shown - per_query_groups(table, judged * _slots(table, k) / table.group_size)) / k


def unjudged_extreme(table: TieTable, k: int, best: bool) -> np.ndarray:
    """The largest (``best``) or smallest ``unj_k`` over the tie orderings.

    The grade orders do not decide it (unjudged and judged non-relevant documents share grade
    0), so: at least max(0, s_g - (n_g - j_g)) judged documents of a group are in its s_g
    top-k positions (judged last: the most unjudged) and at most min(j_g, s_g) (judged
    first). Groups are independent, so the sums are the extremes.
    """
    judged = _judged_per_group(table)
    slots = _slots(table, k)
    count = (np.maximum(0, slots - (table.group_size - judged)) if best
             else np.minimum(judged, slots))
    shown = np.minimum(table.n_retrieved, k).astype(np.float64)
    return (shown - per_query_groups(table, count.astype(np.float64))) / k


# ---- rank-biased precision, trec_eval's: graded gains and the residual -----------------------
def rbp_gains(table: TieTable, gain: str | None = None) -> np.ndarray:
    """Per document: trec_eval's rbp gain, grade / top grade of the query's qrels when the
    top grade exceeds 1 (m_rbp.c scales the gains into [0, 1]), the grade otherwise.

    m_rbp.c scales by the min and max of the gains but leaves both variables uninitialised;
    the binary (trec_eval 10.0-rc3, gcc) behaves as if both started at 0, which is what
    reproduces its output on ``tests/cli/trec_eval_fixtures`` (q1: 0.2683 graded, not the
    binary 0.3541), so the minimum is 0 and grades >= 0 map to grade / max(top grade, 1).

    Under a gain map (``rbp.p=0.8,1=3,2=9``) the top is the largest gain of setup_gains'
    levels: every grade the map names (whether the query has it or not) and the grades 0 to
    the query's top grade, each gaining the map's gain or itself.
    """
    counts = np.diff(table.ideal_start)
    top = np.zeros(table.n_queries)
    has = counts > 0
    top_grade = np.maximum(table.ideal_grade[table.ideal_start[:-1][has]], 0)  # sorted descending
    if gain is not None and is_gain_map(gain):
        pairs = dict(parse_gain_map(gain))
        levels = np.arange(int(top_grade.max(initial=0)) + 1)
        level_gain = np.array([pairs.get(int(g), float(g)) for g in levels])  # grades, not queries
        named = max(pairs.values())
        top[has] = np.maximum(np.maximum.accumulate(level_gain)[top_grade], named)
        top = np.where(top > 1, top, 1.0)
    else:
        top[has] = np.maximum(top_grade, 1)
    return trec_gains(table, gain) / np.where(has, top, 1.0)[table.doc_query]


def rbp_graded(table: TieTable, p: float = 0.9, gain: str | None = None) -> np.ndarray:
    """trec_eval 10's ``rbp`` (m_rbp.c): (1 - p) sum_i gain_i p^(i - 1), gains of
    :func:`rbp_gains` (graded, in [0, 1]); p default 0.9.

    Linear in per-position weights: E = sum over documents of the group's mean gain times
    (1 - p) p^(i - 1) at the document's own rank i. Best / worst: the weights decrease with
    the rank, so gains in descending (ascending) order inside each group, which the grade
    orders give.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("ab"), "score": [1.0, 1.0]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["a", "b"], "relevance": [2, 1]}))
    >>> rbp_graded(build_tie_table(run, qrels), 0.5)  # gains 1, 1/2; mean 3/4 at weights 1/2, 1/4
    array([0.5625])
    """
    # trec_eval's order of operations: sum += gain * cur_p, rank by rank, with cur_p = p^(i-1)
    # by repeated multiplication; then (1 - p) * sum. The values are often decimals that end
    # in 5 (0.1 * 0.9^3 / 2 = 0.03645), so the last bit decides the 4th decimal printed.
    weight = persistence_powers(p, int(table.doc_rank.max(initial=1)))[table.doc_rank - 1]
    return (1.0 - p) * per_query_docs(table, _group_mean(table, rbp_gains(table, gain)) * weight)


@lru_cache(maxsize=8)
def _powers(p: float, length: int) -> np.ndarray:
    powers = np.empty(length)
    powers[0] = 1.0
    np.cumprod(np.full(length - 1, p), out=powers[1:])  # in order: cur_p = cur_p * p
    powers.setflags(write=False)
    return powers


def persistence_powers(p: float, count: int) -> np.ndarray:
    """p^0, p^1, ..., p^count as trec_eval's rbp loops make them (m_rbp.c: ``cur_p = cur_p *
    p`` once a rank), which can differ from ``p ** i`` in the last bit. Cached, read-only."""
    return _powers(float(p), 1 << max(int(count), 1).bit_length())[:count + 1]


def _rbp_judged_mass(table: TieTable, p: float, judged_first: "bool | None") -> np.ndarray:
    """Per query: sum over judged documents of (1 - p) p^(i - 1); ``None``: the mean over
    orderings, else judged first (True) or last (False) in each group. A run of positions
    a+1 .. a+m carries (1 - p) sum p^(i-1) = p^a - p^(a+m)."""
    judged = _judged_per_group(table).astype(np.float64)
    a = table.group_above.astype(np.float64)
    n = table.group_size.astype(np.float64)
    if judged_first is None:
        mass = judged / n * (np.power(p, a) - np.power(p, a + n))
    elif judged_first:
        mass = np.power(p, a) - np.power(p, a + judged)
    else:
        mass = np.power(p, a + n - judged) - np.power(p, a + n)
    return per_query_groups(table, mass)


def _rbp_residual(table: TieTable, p: float, judged_first: "bool | None") -> np.ndarray:
    # p^N + (1 - p) sum over the unjudged of p^(i-1) = p^N + (1 - p^N) - the judged's mass:
    # the judged documents are few, the unjudged the rest of the run
    judged = per_query_groups(table, _judged_per_group(table).astype(np.float64))
    any_unjudged = table.n_retrieved > judged
    return np.where(any_unjudged, 1.0 - _rbp_judged_mass(table, p, judged_first), 0.0)


def _rbp_residual_in_order(table: TieTable, p: float) -> np.ndarray:
    """rbp_resid of a resolved table (one ordering) as m_rbp_resid.c computes it: over every
    rank i of the N retrieved, ``sum += cur_p`` where the document is unjudged, then
    ``cur_p + (1 - p) * sum``, with cur_p = p^(i-1) by repeated multiplication. Only the
    judged documents need be in the table (the qrels view): the unjudged ranks are the
    others. Queries go in chunks of a few million ranks, so memory stays bounded."""
    retrieved = table.n_retrieved.astype(np.int64)
    judged = table.doc_judged & (table.doc_grade >= 0)
    judged_count = np.bincount(table.doc_query[judged], minlength=table.n_queries)
    powers = persistence_powers(p, int(retrieved.max(initial=0)))
    sums = np.zeros(table.n_queries)
    judged_query, judged_rank = table.doc_query[judged], table.doc_rank[judged]
    ends = np.cumsum(retrieved)
    first = 0
    while first < table.n_queries:
        last = max(int(np.searchsorted(ends, ends[first] - retrieved[first] + _CHUNK, "right")),
                   first + 1)  # queries [first, last): about _CHUNK ranks, at least one query
        lengths = retrieved[first:last]
        starts = np.cumsum(lengths) - lengths
        weights = powers[np.arange(int(lengths.sum())) - np.repeat(starts, lengths)]
        inside = (judged_query >= first) & (judged_query < last)
        weights[starts[judged_query[inside] - first] + judged_rank[inside] - 1] = 0.0
        sums[first:last] = np.bincount(np.repeat(np.arange(last - first), lengths),
                                       weights=weights, minlength=last - first)
        first = last
    value = powers[retrieved] + (1.0 - p) * sums
    return np.where(retrieved > judged_count, value, 0.0)


_CHUNK = 1 << 18
"""Ranks per chunk of :func:`_rbp_residual_in_order` (2 MB of weights; a query is never
split, so the sums do not depend on it): chunks of 2**22 ranks made each of their arrays
fresh pages to fault in (7M lines: 36,000 page faults)."""


def rbp_residual(table: TieTable, p: float = 0.9) -> np.ndarray:
    """trec_eval's ``rbp_resid`` (m_rbp_resid.c): how much rbp could still rise if every
    unjudged document were fully relevant, p^N + (1 - p) sum_{i unjudged} p^(i - 1), with N
    documents retrieved; 0 when no retrieved document is unjudged.

    The positions 1..N carry 1 - p^N in all, so rbp_resid = 1 - (1 - p) sum_{i judged}
    p^(i - 1): the judged documents are few. Tie-aware: linear in the judged indicator, so
    group g (a_g above, n_g tied, j_g judged) takes away (j_g / n_g)(p^a_g - p^(a_g + n_g)).
    Groups without a judged document take nothing away, so the kernel reads the groups
    holding a qrels document (registry ``view="qrels"``), ranks and N kept; its extremes are
    :func:`rbp_residual_extreme`. On a resolved table (one ordering), the value is computed
    in trec_eval's order of operations (:func:`_rbp_residual_in_order`): it is often a
    decimal that ends in 5, so the last bit decides the 4th decimal printed.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("ab"), "score": [1.0, 1.0]}))
    >>> table = build_tie_table(run, Qrels(pd.DataFrame({"query": "q", "doc": ["a"],
    ...                                                  "relevance": [1]})))
    >>> rbp_residual(table, 0.5)   # 0.25 + (1/2)(1 - 0.25): b first or second
    array([0.625])
    >>> rbp_residual_extreme(table, 0.5, best=True), rbp_residual_extreme(table, 0.5, best=False)
    (array([0.75]), array([0.5]))
    """
    if table.policy != "expected":
        return _rbp_residual_in_order(table, p)
    return _rbp_residual(table, p, None)


def rbp_residual_extreme(table: TieTable, p: float, best: bool) -> np.ndarray:
    """The largest (``best``: unjudged documents first in every group, judged last) or
    smallest (unjudged last) ``rbp_resid``: the weights p^(i-1) decrease with the rank, and
    p^N and whether any document is unjudged do not depend on the order."""
    return _rbp_residual(table, p, not best)


# ---- binG -------------------------------------------------------------------------------------
def binary_g(table: TieTable) -> np.ndarray:
    """trec_eval's ``binG`` (m_binG.c): (1/R) sum over relevant retrieved documents of
    1 / log2(2 + non-relevant documents ranked above it); 0 with none retrieved.

    Tie-aware: a relevant document of group g has B_g = a_g - K_{g-1} non-relevant documents
    in the groups above and Y of its own group's n_g - k_g, where Y is uniform on
    0..n_g - k_g (its place among itself and them is uniform), so

        E[binG] = (1/R) sum_g k_g / (n_g - k_g + 1) sum_{y=0}^{n_g-k_g} 1 / log2(2 + B_g + y).

    Each group with a relevant document costs its size (one term per y). Best / worst: the
    term falls as Y grows, so relevant documents first (Y = 0) or last (Y = n_g - k_g): the
    grade orders.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("ab"), "score": [1.0, 1.0]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["a"], "relevance": [1]}))
    >>> binary_g(build_tie_table(run, qrels))   # (1/log2 2 + 1/log2 3) / 2
    array([0.81546488])
    """
    groups = np.flatnonzero(table.group_relevant > 0)
    k = table.group_relevant[groups]
    others = table.group_size[groups] - k
    above = table.group_above[groups] - table.relevant_above[groups]
    length = others + 1
    segment = np.repeat(np.arange(len(groups)), length)
    y = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
    term = (k / length)[segment] / np.log2(2.0 + above[segment] + y)
    total = np.bincount(table.group_query[groups][segment], weights=term,
                        minlength=table.n_queries)
    return divide(total, table.n_relevant.astype(np.float64))


# ---- ndcg_rel and Rndcg: nDCG read at the relevant documents or at the R levels ---------------
def _ideal_dcg_at(table: TieTable, gain: str | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ideal DCG after each ideal position, per query (CSR on ``ideal_start``), the
    number P of judged documents of positive gain per query, and the ideal gains."""
    counts = np.diff(table.ideal_start)
    first = np.repeat(table.ideal_start[:-1], counts)
    position = np.arange(len(table.ideal_grade)) - first + 1
    gains = ideal_gains(table, gain)
    running = (_running_sum(gains * discount(position), np.unique(first)) if len(gains)
               else gains)
    positive = np.bincount(np.repeat(np.arange(table.n_queries), counts),
                           weights=(gains > 0), minlength=table.n_queries).astype(np.int64)
    return running, positive, gains


def ndcg_rel(table: TieTable, gain: str | None = None) -> np.ndarray:
    """trec_eval's ``ndcg_rel`` (m_ndcg_rel.c): nDCG averaged over the relevant documents.

    With P the judged documents of positive grade, J(i) = IDCG@min(i, P), DCG@i the run's
    DCG at rank i (gain = grade, discount 1/log2(i+1)) and n+ the positively graded documents
    retrieved,

        ndcg_rel = (1/P) [ sum_{d retrieved, gain > 0} DCG@rank(d) / J(rank(d))
                           + (P - n+) DCG@N / IDCG@P ]

    (0 when P = 0). It reads the grades whatever ``-l`` says, as trec_eval. ``gain``: a
    gain map (trec_eval's ``ndcg_rel.1=3,2=9``), the gains and P read through it.

    Tie-aware: DCG@rank(d) / J(rank(d)) = sum over documents e at or above d of
    g_e disc(rank e) / J(rank d), a sum over pairs. For d in group g (n_g tied, k_g of
    positive gain, G_g their gains): e = d gives the group's mean gain times
    disc(i)/J(i) at each of its positions; e in a group above is independent of d, so
    E = (sum of the groups above' expected DCG) k_g mean_i 1/J(i); e another document of
    g adds (k_g - 1) G_g T_g with T_g = (1 / (n_g (n_g - 1))) sum_{i<j in g} disc(i) / J(j),
    the mean over ordered pairs of positions. The last term is linear (E[DCG@N]).

    Best / worst: swapping two neighbours so that the higher gain comes first never lowers
    the value (the first one's own term gains (g2 - g1) disc(q) / J(q), later prefixes gain
    (g2 - g1)(disc(q) - disc(q + 1)), and a gain-0 document moved down lets the positive
    one be read at a smaller J), so the grade orders are the extremes (under a gain map,
    the orders by gain).

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("ab"), "score": [1.0, 1.0]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["a"], "relevance": [1]}))
    >>> ndcg_rel(build_tie_table(run, qrels))  # a first: 1; second: (1/log2 3) / 1
    array([0.81546488])
    """
    ideal, positive, _ = _ideal_dcg_at(table, gain)
    gains = trec_gains(table, gain)
    query = table.doc_query
    has = positive[query] > 0
    at = np.minimum(table.doc_rank, np.maximum(positive[query], 1)) - 1
    inverse_ideal = np.zeros(len(gains))
    inverse_ideal[has] = 1.0 / ideal[table.ideal_start[query][has] + at[has]]
    disc = discount(table.doc_rank)
    mean_gain = _group_mean(table, gains)
    own = mean_gain * disc * inverse_ideal

    group_gain = segment_sum(gains, table.group_start)
    group_positive = segment_sum((gains > 0).astype(np.int64), table.group_start)
    group_dcg = segment_sum(mean_gain * disc, table.group_start)  # E[the group's DCG share]
    group_inverse = segment_sum(inverse_ideal, table.group_start)
    above = group_positive * table.sum_above(group_dcg) * group_inverse / table.group_size
    # pairs inside a group: disc of the earlier position over J of the later one
    disc_before = _running_sum(disc, table.group_start, exclusive=True)
    pairs = segment_sum(disc_before * inverse_ideal, table.group_start)
    n = table.group_size.astype(np.float64)
    within = (group_positive - 1).clip(0) * group_gain * divide(pairs, n * (n - 1))

    retrieved_positive = per_query_groups(table, group_positive.astype(np.float64))
    total_ideal = np.zeros(table.n_queries)
    last = table.ideal_start[:-1] + positive - 1
    total_ideal[positive > 0] = ideal[last[positive > 0]]
    missed = (positive - retrieved_positive) * divide(per_query_groups(table, group_dcg),
                                                       total_ideal)
    total = per_query_docs(table, own) + per_query_groups(table, above + within) + missed
    return divide(total, positive.astype(np.float64))


def _r_levels(table: TieTable, gain: str | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rndcg's cutoffs: (query, cutoff c, 1 / IDCG@c) sorted by query then c.

    The cutoffs are the ideal positions c in 1..P after which the ideal gain changes (the
    last positive one included), plus N (documents retrieved) when N > P + 1 — trec_eval's
    loop adds that final point only then."""
    ideal, positive, grade = _ideal_dcg_at(table, gain)  # the ideal gains decide the levels
    counts = np.diff(table.ideal_start)
    query = np.repeat(np.arange(table.n_queries), counts)
    position = np.arange(len(table.ideal_grade)) - table.ideal_start[query] + 1
    following = np.append(grade[1:], 0)
    last_of_query = position == counts[query]
    boundary = (grade > 0) & ((following != grade) | last_of_query)
    cut_query = query[boundary]
    cut_at = position[boundary]
    cut_inverse = 1.0 / ideal[boundary]
    retrieved = table.n_retrieved
    extra = np.flatnonzero((positive > 0) & (retrieved > positive + 1))
    total_ideal = ideal[table.ideal_start[extra] + positive[extra] - 1]
    cut_query = np.concatenate([cut_query, extra])
    cut_at = np.concatenate([cut_at, retrieved[extra]])
    cut_inverse = np.concatenate([cut_inverse, 1.0 / total_ideal])
    order = np.lexsort((cut_at, cut_query))
    return cut_query[order], cut_at[order], cut_inverse[order]


def r_level_ndcg(table: TieTable, gain: str | None = None) -> np.ndarray:
    """trec_eval's ``Rndcg`` (m_Rndcg.c): nDCG averaged over the R levels,
    (1/|C|) sum_{c in C} DCG@min(c, N) / IDCG@c, over the cutoffs C where the ideal gain
    changes (see :func:`_r_levels`); 0 when no judged document reaches the relevance level
    (the one place ``-l`` enters), and 0 too when a gain map gives every relevant document
    gain 0 (trec_eval then divides 0 by 0 and prints nan).

    The cutoffs depend on the qrels only, so the measure is linear in per-position weights:
    a document at rank i weighs w(i) = disc(i) / |C| sum_{c in C, c >= i} 1 / IDCG@c, and
    E = sum over documents of the group's mean gain times w at the document's rank. w falls
    with the rank, so the grade orders are the extremes.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abc"), "score": [1.0, 1.0, 0.5]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["a"], "relevance": [1]}))
    >>> r_level_ndcg(build_tie_table(run, qrels))  # C = {1, 3}: ((1/2) + (1 + 1/log2 3)/2) / 2
    array([0.65773244])
    """
    cut_query, cut_at, cut_inverse = _r_levels(table, gain)
    count = np.bincount(cut_query, minlength=table.n_queries)
    # suffix sums of 1/IDCG@c inside each query, then the first cutoff >= each rank
    suffix = np.zeros(len(cut_query) + 1)
    if len(cut_query):
        backwards = cut_query[::-1]  # each query's cutoffs summed from its last, on their own
        starts = np.flatnonzero(np.append(True, backwards[1:] != backwards[:-1]))
        suffix[:-1] = _running_sum(cut_inverse[::-1], starts)[::-1]
    span = int(max(cut_at.max(initial=0), table.doc_rank.max(initial=0))) + 1
    keys = cut_query.astype(np.int64) * span + cut_at
    query = table.doc_query
    found = np.searchsorted(keys, query.astype(np.int64) * span + table.doc_rank)
    inside = np.zeros(len(query), dtype=bool)
    ok = found < len(keys)
    inside[ok] = cut_query[found[ok]] == query[ok]
    weight = np.where(inside, suffix[np.minimum(found, len(keys))], 0.0) * discount(table.doc_rank)
    total = per_query_docs(table, _group_mean(table, trec_gains(table, gain)) * weight)
    value = divide(total, count.astype(np.float64))
    return np.where(table.n_relevant > 0, value, 0.0)


# ---- relstring: the grades of the top documents, as text -------------------------------------
def relevance_strings(table: TieTable, length: int = 10) -> np.ndarray:
    """trec_eval's ``relstring`` (m_relstring.c) of each query: one character per document of
    the top ``length`` in the table's order: the grade 0-9, ``>`` above 9, ``-`` for a
    document absent from the qrels, ``.`` for one in the pool but unjudged (negative grade).

    It is text, not a number: it has no expectation over tie orderings (no mean of strings),
    and best and worst have no meaning, so it is read off one ordering, that of a resolved
    table (trec_eval's order in ``--format trec_eval``). On the expected table it shows the
    file order inside each group.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcd"),
    ...                              "score": [0.9, 0.8, 0.7, 0.6]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": list("acd"), "relevance": [2, -1, 12]}))
    >>> relevance_strings(build_tie_table(run, qrels).resolve("trec_eval")).tolist()
    ['2-.>']
    """
    grade = table.doc_grade
    code = np.where(~table.doc_judged, ord("-"), np.where(
        grade < 0, ord("."), np.where(grade > 9, ord(">"), ord("0") + np.clip(grade, 0, 9))))
    shown = np.minimum(table.n_retrieved, max(int(length), 0))
    text = code.astype(np.uint8).tobytes()
    start = table.query_start[:-1]
    return np.array([text[s:s + n].decode("ascii") for s, n in zip(start.tolist(), shown.tolist())],
                    dtype=object)
