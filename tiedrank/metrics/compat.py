"""Compatibility (Clarke, Vtyurina & Smucker 2020, "Assessing top-k preferences"), exact under
ties.

Compat is rank-biased overlap (Webber, Moffat & Zobel 2010) between the run and an ideal
ranking, as ir_measures' ``compat`` provider computes it: the ideal ranking is the query's
documents with a positive grade sorted by grade descending, the documents of one grade in
the run's order (those the run misses after them); with D = max(n, R) (n documents
retrieved, R graded above 0) and A_i, B_i the run's and the ideal's top i,

    RBO(run, ideal) = sum_{i=1}^{D} p^(i-1) |A_i & B_i| / i  /  sum_{i=1}^{D} p^(i-1),

and ``normalize=True`` (the default) divides by RBO(ideal, ideal). 0 when R = 0.

Exact expectation (docs/metrics-reference.md, section 3h). A document at rank r in the run
and q in the ideal is in A_i & B_i for every i >= max(r, q), so the numerator is
sum_d W(max(r_d, q_d)) over the relevant retrieved documents, W(t) = sum_{i=t}^{D}
p^(i-1) / i: linear in the documents. Take the m documents of grade x in tie group g (a_g
documents above it, n_g in it): their ideal ranks are b + 1 .. b + m in their run order, b =
(documents of the qrels graded above x) + (retrieved documents of grade x in the groups
above g), the same under every ordering. Under a uniform ordering of the group the k-th of
them (k = 0..m-1) sits at place j of the group with the law of the (k+1)-th smallest of m
uniform distinct places among n_g, C(j, k) C(n_g-1-j, m-1-k) / C(n_g, m), so

    E[their share] = sum_{k=0}^{m-1} sum_{j=k}^{k+n_g-m} C(j,k) C(n_g-1-j, m-1-k) / C(n_g, m)
                     W(max(a_g + 1 + j, b + 1 + k)),

m (n_g - m + 1) terms per (group, grade); the denominators do not depend on the ordering.
A (group, grade) needing more than :data:`MAX_TERMS` terms is refused with a message naming
the query and the group's ranks, never approximated.

Best and worst (proved in the reference): W is decreasing and convex, so W(max(r, q)) is
"anti-Monge": pairing the sorted places with the sorted ideal ranks is the largest, and
swapping adjacent documents of a lower grade above a higher one can only lower the sum. The
largest value puts each group's documents by grade descending (the ``best`` grade
order), the smallest by grade ascending with the non-positive grades first (``worst``).

ir_measures' own run order breaks score ties by docno ascending and orders the ideal's tied
documents of one grade by qrels order, not by the run: on a tied run its value may fall
below every ordering's (it pairs the run and the ideal crosswise); on a run without ties and
with positive scores it is the value here (docs/metrics-reference.md).

Examples
--------
>>> import pandas as pd
>>> from tiedrank.core.data import Qrels, Run
>>> from tiedrank.core.ties import build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("ab"), "score": [1.0, 1.0]}))
>>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["a"], "relevance": [1]}))
>>> float(compat(build_tie_table(run, qrels), 0.5, True)[0])  # (W(1) + W(2)) / 2 / W(1)
0.6
"""
from __future__ import annotations

import numpy as np

from ..core.errors import Remedy, RemediedValueError
from ..core.segments import segment_cumsum
from ..core.ties import TieTable
from .blocks import divide

MAX_TERMS = 2**24
"""The most terms one (tie group, grade) may need, m (n_g - m + 1): about 16 million (a few
seconds); the memory is bounded by :data:`_CHUNK` whatever the cell."""
_BLOCK = 2**16
"""Terms of one block: a cell's rows k are cut into blocks of about this many terms, summed
on their own and then in order, so a cell's bits depend on the cell alone."""
_CHUNK = 2**20
"""Terms computed at once across blocks (blocks are batched up to this many; about 100 MB)."""


def query_tails(p: float, depth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """W_q(t) = sum_{i=t}^{D_q} p^(i-1) / i for every query q and t = 1..D_q + 1 (W_q(D_q + 1)
    = 0): the flat array and each query's offset, W_q(t) = ``tail[offset[q] + t - 1]``
    (queries of one depth share one stretch of the array; the last offset is its length).

    Rank-biased overlap's weight of an item that enters both prefixes at depth t. Each
    query's sums run over its own terms alone, from the smallest up (a reverse
    :func:`~tiedrank.core.segments.segment_cumsum`): a deep tail keeps its relative precision,
    and a query has the same bits alone and among others (layout independence).

    >>> tail, offset = query_tails(0.5, np.array([3, 1, 3]))
    >>> [round(float(v), 4) for v in tail], offset.tolist()
    ([1.3333, 0.3333, 0.0833, 0.0, 1.0, 0.0], [0, 4, 0, 6])
    """
    depth = np.asarray(depth, dtype=np.int64)
    # one tail per distinct D, in order of first appearance: queries of one depth (a run cut
    # at 1,000) share it, and it is the same bits as the query's own (each summed alone)
    _, first, inverse = np.unique(depth, return_index=True, return_inverse=True)
    appearance = np.argsort(first, kind="stable")
    distinct = depth[first[appearance]]
    slot = np.empty(len(appearance), dtype=np.int64)
    slot[appearance] = np.arange(len(appearance))
    length = distinct + 1
    start = np.zeros(len(length) + 1, dtype=np.int64)
    np.cumsum(length, out=start[1:])
    i = np.arange(int(start[-1])) - np.repeat(start[:-1], length) + 1
    terms = np.where(i < np.repeat(length, length), np.power(p, i - 1.0) / i, 0.0)
    backwards = (start[-1] - start[1:])[::-1]  # each depth's first place, read backwards
    tail = segment_cumsum(terms[::-1], backwards)[::-1] if len(terms) else terms
    offset = np.append(start[:-1][slot[inverse.reshape(-1)]], start[-1])
    return tail, offset


def geometric_total(p: float, depth: np.ndarray) -> np.ndarray:
    """sum_{i=1}^{D} p^(i-1) = (1 - p^D) / (1 - p), per D (0 for D = 0)."""
    return -np.expm1(np.asarray(depth, dtype=np.float64) * np.log(p)) / (1.0 - p)


def _log_factorials(largest: int) -> np.ndarray:
    """log(i!) for i = 0..largest, looked up by the binomials (one gammaln per size, not
    three per term)."""
    from scipy.special import gammaln  # scipy only when Compat is computed: tiedrank starts fast

    return gammaln(np.arange(largest + 1, dtype=np.float64) + 1.0)


def _query_counts(table: TieTable) -> tuple[np.ndarray, np.ndarray]:
    """Per query: R, the qrels documents graded above 0, and D = max(retrieved, R)."""
    counts = np.diff(table.ideal_start)
    ideal_query = np.repeat(np.arange(table.n_queries, dtype=np.int64), counts)
    relevant = np.bincount(ideal_query, weights=table.ideal_grade > 0,
                           minlength=table.n_queries).astype(np.int64)
    return relevant, np.maximum(table.n_retrieved.astype(np.int64), relevant)


def _higher_in_qrels(table: TieTable, query: np.ndarray, grade: np.ndarray) -> np.ndarray:
    """Per (query, grade): the query's qrels documents graded strictly above ``grade``."""
    counts = np.diff(table.ideal_start)
    ideal_query = np.repeat(np.arange(table.n_queries, dtype=np.int64), counts)
    levels, inverse = np.unique(np.concatenate([table.ideal_grade, grade]), return_inverse=True)
    span = len(levels) + 1
    # ascending key: query, then grade descending (the ideal's own order)
    key = ideal_query * span + (len(levels) - inverse[:len(ideal_query)])
    asked = query * span + (len(levels) - inverse[len(ideal_query):])
    return np.searchsorted(key, asked, side="left") - table.ideal_start[query]


def _cells(table: TieTable) -> dict[str, np.ndarray]:
    """The (tie group, grade) cells of the positively graded documents: group, m, b."""
    positive = np.flatnonzero(table.doc_grade > 0)
    group, grade = table.doc_group[positive], table.doc_grade[positive]
    query = table.group_query[group]
    # cells by (query, grade, group): the groups above share the query and grade
    order = np.lexsort((group, grade, query))
    group, grade, query = group[order], grade[order], query[order]
    new = np.ones(len(group), dtype=bool)
    new[1:] = (group[1:] != group[:-1]) | (grade[1:] != grade[:-1])
    starts = np.flatnonzero(new)
    m = np.diff(np.append(starts, len(group)))
    group, grade, query = group[starts], grade[starts], query[starts]
    first = np.ones(len(starts), dtype=bool)
    first[1:] = (query[1:] != query[:-1]) | (grade[1:] != grade[:-1])
    same_grade_above = segment_cumsum(m, np.flatnonzero(first), exclusive=True) \
        if len(m) else m
    b = _higher_in_qrels(table, query, grade) + same_grade_above
    return {"group": group, "query": query, "m": m, "b": b}


def _block_sums(cells: dict, blocks: dict, tails: tuple[np.ndarray, np.ndarray],
                log_fact: np.ndarray, part: np.ndarray) -> np.ndarray:
    """sum over the block's rows k and places j of law(j | k) W(max(a + 1 + j, b + 1 + k)),
    for the blocks ``part`` (each: rows k0 .. k0 + rows - 1 of one cell)."""
    cell = blocks["cell"][part]
    m, n, width = cells["m"][cell], cells["n"][cell], cells["width"][cell]
    terms = blocks["rows"][part] * width
    owner = np.repeat(np.arange(len(part)), terms)
    inner = np.arange(len(owner)) - np.repeat(np.cumsum(terms) - terms, terms)
    k = blocks["k0"][part][owner] + inner // width[owner]
    j = k + inner % width[owner]
    mo, no = m[owner], n[owner]
    # C(j, k) C(n-1-j, m-1-k) / C(n, m), from log-factorials
    law = np.exp(log_fact[j] - log_fact[k] - log_fact[j - k]
                 + log_fact[no - 1 - j] - log_fact[mo - 1 - k] - log_fact[no - mo - (j - k)]
                 - log_fact[no] + log_fact[mo] + log_fact[no - mo])
    enters = np.maximum(cells["a"][cell][owner] + 1 + j, cells["b"][cell][owner] + 1 + k)
    tail, offset = tails  # enters <= D: within the query's tail
    weight = tail[offset[cells["query"][cell]][owner] + enters - 1]
    return np.bincount(owner, weights=law * weight, minlength=len(part))


def _blocks(cells: dict) -> dict[str, np.ndarray]:
    """Each cell's rows k cut into blocks of about :data:`_BLOCK` terms (at least one row)."""
    per_block = np.maximum(1, _BLOCK // cells["width"])
    count = -(-cells["m"] // per_block)
    cell = np.repeat(np.arange(len(count)), count)
    index = np.arange(len(cell)) - np.repeat(np.cumsum(count) - count, count)
    k0 = index * per_block[cell]
    return {"cell": cell, "k0": k0, "rows": np.minimum(per_block[cell], cells["m"][cell] - k0)}


def compat_numerator(table: TieTable, p: float, name: str = "Compat"
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """E[sum_{i<=D} p^(i-1) |A_i & B_i| / i] per query, with R, D and :func:`query_tails`."""
    relevant, depth = _query_counts(table)
    table = table.scoring()
    tails = query_tails(p, depth)
    if table.n_groups == 0 or not (table.doc_grade > 0).any():
        return np.zeros(table.n_queries), relevant, depth, tails
    cells = _cells(table)
    n = cells["n"] = table.group_size[cells["group"]].astype(np.int64)
    a = cells["a"] = table.group_above[cells["group"]].astype(np.int64)
    cells["width"] = n - cells["m"] + 1
    terms = cells["m"] * cells["width"]
    refused = terms > MAX_TERMS
    if refused.any():
        c = int(np.flatnonzero(refused)[0])
        raise RemediedValueError(
            f"{name}: query {table.queries[cells['query'][c]]!r} has a tie group of {n[c]} "
            f"documents at ranks {a[c] + 1}..{a[c] + n[c]}, {cells['m'][c]} of them of one "
            f"grade: its exact expectation needs {int(terms[c]):,} terms, more than "
            f"{MAX_TERMS:,}; ", Remedy("ties", "trec_eval", "to score it on one ordering "
                                       "(trec_eval's)"), ", or break the run's ties")
    blocks = _blocks(cells)
    block_terms = blocks["rows"] * cells["width"][blocks["cell"]]
    block_sums = np.zeros(len(block_terms))
    log_fact = _log_factorials(int(n.max()))
    batch = np.cumsum(block_terms) // _CHUNK
    for part in np.split(np.arange(len(block_terms)), np.flatnonzero(np.diff(batch)) + 1):
        if len(part):  # bounded memory: about _CHUNK terms (plus one block) at once
            block_sums[part] = _block_sums(cells, blocks, tails, log_fact, part)
    sums = np.bincount(blocks["cell"], weights=block_sums, minlength=len(terms))  # in order
    numerator = np.bincount(cells["query"], weights=sums, minlength=table.n_queries)
    return numerator, relevant, depth, tails


def compat(table: TieTable, p: float = 0.95, normalize: bool = True,
           name: str = "Compat") -> np.ndarray:
    """Compat(p, normalize) per query: the exact mean over the tie orderings on the expected
    table, the single ordering's value on a resolved one (the module gives the derivation).

    The normaliser RBO(ideal, ideal) = sum_{i<=D} p^(i-1) min(i, R) / i =
    (1 - p^R) / (1 - p) + R W(R + 1) does not depend on the ordering; without
    ``normalize`` the divisor is sum_{i<=D} p^(i-1) = (1 - p^D) / (1 - p).
    """
    numerator, relevant, depth, (tail, offset) = compat_numerator(table, p, name)
    if normalize:
        best = geometric_total(p, relevant) + relevant * tail[offset[:-1] + relevant]
        return divide(numerator, np.where(relevant > 0, best, 0.0))
    return divide(numerator, np.where(relevant > 0, geometric_total(p, depth), 0.0))
