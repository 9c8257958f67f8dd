"""trec_eval's inferred AP (``infAP``) and normalized gain (``G``), tie-aware: the exact
expectation over the orderings inside tie groups, and the exact best and worst.

Both read counts of what lies above a document, so neither is linear in per-position
weights. Each kernel states trec_eval's C loop (``m_infap.c``, ``m_G.c`` of trec_eval 10.0)
as a sum of per-document terms that depend on the counts above the document only, then:

* **expectation**: inside a tie group the documents above a given one are a uniformly
  random subset of the group's others (its place is uniform, and given the place every
  subset of that size is equally likely), so the counts above follow a multivariate
  hypergeometric law; kinds that enter a term the same way are collapsed, and the
  expectation is a finite sum over count vectors, in log space (log-factorials), with no
  enumeration of orderings;
* **best and worst**: a group's value is a sum of per-step terms that depend only on the
  counts placed so far, so the best (worst) order inside a group is a maximum (minimum)
  path through the lattice of count vectors (a dynamic programme with one state per count
  vector); an exchange argument fixes the kinds whose place is decided (each function says
  which) before the programme runs. Groups are independent: what a later group sees of an
  earlier one is its totals, the same in every order.

On a resolved table (one document per group) both give the value of that single ordering,
the convention of :mod:`tiedrank.metrics.kernels`. Everything is vectorised over the groups:
sums stream their terms in chunks of at most :data:`BATCH_ELEMENTS`, programmes run on
batches of groups of about that many states, so memory is bounded by what one group needs
at most: G's lattice (at most :data:`LATTICE_LIMIT` states) and, for a tie group past rank
50,000 only, infAP's (k_n + 1)(m + 1) grid.

Examples
--------
>>> import pandas as pd
>>> from tiedrank.core.data import Qrels, Run
>>> from tiedrank.core.ties import build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcd"), "score": 1.0}))
>>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["a", "b"], "relevance": [-1, 1]}))
>>> table = build_tie_table(run, qrels)  # b relevant, a pooled but unjudged, c and d not pooled
>>> inferred_ap(table), inferred_ap_extreme(table, True), inferred_ap_extreme(table, False)
(array([0.60069444]), array([1.]), array([0.33333333]))
>>> inferred_ap(table.resolve("worst"))  # a, c, d, b: a pooled document above b lifts it
array([0.375])
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..core.errors import Remedy, RemediedValueError
from ..core.segments import segment_sum
from ..core.ties import TieTable
from .blocks import divide
from .trec_gains import ideal_gains, trec_gains

INFAP_EPSILON = 0.00001
"""trec_eval's ``INFAP_EPSILON`` (trec_eval.h): keeps infAP's ratio defined with nothing
judged above a relevant document."""

BATCH_ELEMENTS = 1 << 20
"""Elements (terms of a sum, states of a programme) computed at once: the memory bound."""

LATTICE_LIMIT = 1 << 21
"""Largest lattice of one tie group's positive grade counts for ``G`` (count vectors of
its expectation, states of its best/worst programme): about 2 million, a second and half a
gigabyte (the largest of the LLMJudge runs, ~300 documents tied, is 154,512; three grade
levels of 128 documents each in one group reach it). A group past it is refused with a
message, never approximated."""


# ---- building blocks -------------------------------------------------------------------------
def _ragged(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For blocks of the given lengths laid end to end: each element's block and its
    offset inside the block."""
    lengths = np.asarray(lengths, dtype=np.int64)
    block = np.repeat(np.arange(len(lengths)), lengths)
    return block, np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)


def _batches(dims: np.ndarray, cost=None) -> list[np.ndarray]:
    """Consecutive index ranges of the items (rows of ``dims``: the dimensions of each one's
    arrays) whose padded cost, ``cost`` of the running largest dimensions (their product by
    default) times the count, stays within :data:`BATCH_ELEMENTS` (one item at least)."""
    dims = np.asarray(dims)
    dims = dims.reshape(len(dims), -1) if dims.ndim == 1 else dims
    cost = cost or (lambda top: np.prod(top, axis=1))
    out, start, n = [], 0, len(dims)
    while start < n:
        # k items cost at least k times the first one's: look no further than that (the
        # items come sorted by cost, so the scan stays linear overall)
        reach = min(n, start + BATCH_ELEMENTS // max(1, int(cost(dims[start:start + 1])[0])) + 1)
        top = np.maximum.accumulate(dims[start:reach], axis=0)
        padded = cost(top) * np.arange(1, reach - start + 1)
        end = start + max(1, int(np.searchsorted(padded, BATCH_ELEMENTS, side="right")))
        out.append(np.arange(start, end))
        start = end
    return out


def _flat_chunks(lengths: np.ndarray):
    """The elements of blocks of these lengths laid end to end, at most
    :data:`BATCH_ELEMENTS` at a time (a block may span chunks): each element's block and its
    offset inside it."""
    ends = np.cumsum(lengths)
    starts = ends - lengths
    total = int(ends[-1]) if len(ends) else 0
    for low in range(0, total, BATCH_ELEMENTS):
        flat = np.arange(low, min(total, low + BATCH_ELEMENTS))
        block = np.searchsorted(ends, flat, side="right")
        yield block, flat - starts[block]


def _whole_chunks(lengths: np.ndarray) -> list[tuple[int, int]]:
    """Ranges of consecutive blocks holding at most :data:`BATCH_ELEMENTS` elements (one
    block at least): for sums that need a whole block at once."""
    ends = np.cumsum(lengths)
    out, low, base = [], 0, 0
    while low < len(lengths):
        high = max(low + 1, int(np.searchsorted(ends, base + BATCH_ELEMENTS, side="right")))
        out.append((low, high))
        base, low = int(ends[high - 1]), high
    return out


@lru_cache(maxsize=4)
def _log_factorials(n: int) -> np.ndarray:
    """log k! for k = 0..n (read-only; one value per integer up to the largest tie group,
    computed once: scipy.special would cost the CLI a second of imports)."""
    table = np.fromiter((math.lgamma(k + 1.0) for k in range(n + 1)), dtype=np.float64,
                        count=n + 1)
    table.flags.writeable = False
    return table


# ---- infAP ------------------------------------------------------------------------------------
def _infap_counts(table: TieTable) -> tuple[np.ndarray, ...]:
    """Per group: relevant, judged non-relevant, pooled-unjudged (negative grade) and
    not-in-the-pool documents, and the first three summed over the groups above."""
    judged, grade = table.doc_judged, table.doc_grade
    relevant = table.group_relevant
    nonrelevant = segment_sum((judged & (grade >= 0) & (grade < table.rel_level)).astype(np.int64),
                              table.group_start)
    pooled = segment_sum((judged & (grade < 0)).astype(np.int64), table.group_start)
    nonpool = table.group_size - relevant - nonrelevant - pooled
    return (relevant, nonrelevant, pooled, nonpool,
            table.sum_above(relevant), table.sum_above(nonrelevant), table.sum_above(pooled))


def _infap_term(j, r, n, u) -> np.ndarray:
    """m_infap.c's term of a relevant document at 0-based rank j with r relevant, n judged
    non-relevant and u pooled-unjudged documents above it:
    [1 + (r + n + u)(r + eps) / (r + n + 2 eps)] / (j + 1) (1 at j = 0, where r = n = u = 0),
    computed as m_infap.c writes it, 1/(j+1) + (j/(j+1)) ((r+n+u)/j) ((r+eps)/(r+n+2 eps)),
    so that an ordering's value has trec_eval's bits (infAP is rational: a value can end in
    5 at the 5th decimal, and then the last bit decides the 4th one printed)."""
    fj = np.asarray(j, dtype=np.float64)
    later = np.maximum(fj, 1.0)  # j = 0 takes the 1 below; no division by 0
    ratio = (r + INFAP_EPSILON) / ((r + n) + 2 * INFAP_EPSILON)
    term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((r + n + u) / later) * ratio
    return np.where(fj == 0, 1.0, term)


def inferred_ap(table: TieTable) -> np.ndarray:
    """trec_eval's ``infAP`` (m_infap.c, Yilmaz & Aslam 2006), its exact expectation over
    the tie orderings.

    Retrieved documents are relevant (grade >= ``rel_level``), judged non-relevant
    (0 <= grade < ``rel_level``), pooled but unjudged (a negative grade) or not in the pool
    (absent from the qrels: skipped, but counted in the rank). A relevant document at 0-based
    rank j with r relevant (itself excluded), n judged non-relevant and u pooled-unjudged
    documents above it adds

        t(j, r, n, u) = [1 + (r + n + u) (r + eps) / (r + n + 2 eps)] / (j + 1),  eps = 1e-5

    (1 at j = 0), and infAP = (1/R) sum over relevant retrieved documents of t, R the
    relevant documents of the qrels.

    Expectation: a relevant document of group g (a_g documents above the group; R_0, N_0,
    U_0 relevant, non-relevant, pooled-unjudged of them; inside the group k_r relevant, k_n
    non-relevant and m = k_u + k_x pooled-unjudged or not-in-pool documents, n_g in all)
    has A relevant, B non-relevant and c of the m others above it with probability

        P(A, B, c) = C(k_r - 1, A) C(k_n, B) C(m, c) (A+B+c)! (n_g-1-A-B-c)! / n_g!

    (its place is uniform, and the set above it a uniform subset of that size). t is linear
    in u, and given c the pooled-unjudged among them are E = c k_u / m on average, so

        E = (1/R) sum_g k_r sum_{A,B} C(k_r-1, A) C(k_n, B) [alpha S0(A+B) + beta S1(A+B)]

    with alpha = 1 + (R_0+A + N_0+B + U_0) f, beta = f k_u / m, f = (R_0+A+eps) /
    (R_0+A + N_0+B + 2 eps), and S0(q), S1(q) the sums over c of C(m, c) (q+c)!
    (n_g-1-q-c)! / n_g! / (a_g+q+c+1), times c for S1. Cost per group with a relevant
    document: O((k_r + k_n)(m + 1) + k_r (k_n + 1)). Needs the whole table
    (registry ``view="whole"``): non-relevant and unjudged documents count wherever they
    are, the unjudged ones in the ranks.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abc"),
    ...                              "score": [1.0, 0.5, 0.5]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": list("abc"), "relevance": [0, 1, -1]}))
    >>> float(inferred_ap(build_tie_table(run, qrels))[0])  # b 2nd: ~1/2; 3rd: (1 + 2 eps)/3
    0.41667...
    """
    relevant, nonrel, pooled, nonpool, rel_above, nonrel_above, pooled_above = _infap_counts(table)
    size, above = table.group_size, table.group_above
    total = np.zeros(table.n_queries)
    single = np.flatnonzero((size == 1) & (relevant > 0))
    term = _infap_term(above[single], rel_above[single], nonrel_above[single], pooled_above[single])
    total += np.bincount(table.group_query[single], weights=term, minlength=table.n_queries)

    tied = np.flatnonzero((size > 1) & (relevant > 0))
    if len(tied):
        g = tied
        values = _infap_expected_groups(
            _log_factorials(int(size[g].max())), relevant[g], nonrel[g], pooled[g], nonpool[g],
            size[g], above[g], rel_above[g], nonrel_above[g], pooled_above[g])
        total += np.bincount(table.group_query[g], weights=values, minlength=table.n_queries)
    return divide(total, table.n_relevant.astype(np.float64))


def _infap_expected_groups(log_fact, k_r, k_n, k_u, k_x, size, above, r0, n0, u0) -> np.ndarray:
    """Per group: the expected sum of its relevant documents' infAP terms (see
    :func:`inferred_ap`), in chunks of at most :data:`BATCH_ELEMENTS` terms."""
    def log_choose(n, k):
        return log_fact[n] - log_fact[k] - log_fact[n - k]

    m = k_u + k_x
    # S0(q), S1(q) of every (group, q = A + B), q in 0..k_r-1+k_n: sums over c in 0..m
    rows = k_r + k_n
    row_group, q_of_row = _ragged(rows)
    top, s0, s1 = (np.zeros(len(row_group)) for _ in range(3))
    for low, high in _whole_chunks(m[row_group] + 1):
        group, q = row_group[low:high], q_of_row[low:high]
        cell_row, c = _ragged(m[group] + 1)
        cell_group = group[cell_row]
        t = q[cell_row] + c  # documents of the group above the relevant one: A + B + c
        log_w = (log_choose(m[cell_group], c) + log_fact[t]
                 + log_fact[size[cell_group] - 1 - t] - log_fact[size[cell_group]]
                 - np.log(above[cell_group] + t + 1.0))
        first = np.cumsum(m[group] + 1) - (m[group] + 1)
        top[low:high] = np.maximum.reduceat(log_w, first)  # scale by the largest: no underflow
        scaled = np.exp(log_w - top[low:high][cell_row])
        s0[low:high] = np.add.reduceat(scaled, first)
        s1[low:high] = np.add.reduceat(scaled * c, first)

    first_row = np.cumsum(rows) - rows
    out = np.zeros(len(k_r))
    for group, local in _flat_chunks(k_r * (k_n + 1)):  # the pairs (A, B)
        a, b = np.divmod(local, k_n[group] + 1)
        row = first_row[group] + a + b
        r, n = r0[group] + a, n0[group] + b
        ratio = (r + INFAP_EPSILON) / (r + n + 2 * INFAP_EPSILON)
        alpha = 1.0 + (r + n + u0[group]) * ratio
        beta = ratio * divide(k_u[group].astype(np.float64), m[group].astype(np.float64))
        weight = np.exp(log_choose(k_r[group] - 1, a) + log_choose(k_n[group], b) + top[row])
        values = k_r[group] * weight * (alpha * s0[row] + beta * s1[row])
        out += np.bincount(group, weights=values, minlength=len(k_r))
    return out


def inferred_ap_extreme(table: TieTable, best: bool) -> np.ndarray:
    """The largest (``best``) or smallest ``infAP`` over the tie orderings, exactly.

    Sorting by grade is not extreme: a pooled-unjudged document above a relevant one raises
    its term (u counts in the numerator) while a document absent from the pool lowers it
    (only j grows), and the two share grade "unjudged". What is decided by exchange
    arguments, inside each group (swapping two neighbours changes only what the second one
    sees, and non-relevant documents see nothing):

    * a pooled-unjudged document before one not in the pool, for the best (t grows with
      u at the same j); after it, for the worst;
    * a judged non-relevant document after every relevant one, for the best, before them
      for the worst: t(j+1, r, n+1, u) <= t(j, r, n, u) whenever 2 eps (j + 1) <= r + n + 1
      (with u >= 1 the ratio falls; with u = 0 it rises by at most 2 eps / (r + n + 1) of
      the term's 1), which holds for every group with 2 eps (a_g + n_g) <= R_0 + N_0 + 1,
      i.e. any group ending by rank 50,000.

    What is left is a path through the lattice of counts placed so far: the best (worst)
    value of group g is the maximum (minimum) over A = 0..k_r-1 chains of
    sum_A t(a_g + A + B_A + c_A, R_0 + A, N_0 + B_A, U_0 + C(c_A)), (B_A, c_A) nondecreasing,
    C(c) the pooled-unjudged among the first c unjudged documents. The programme keeps
    V_A(B, c) = t(...) + max_{B' <= B, c' <= c} V_{A-1}(B', c') (a running maximum along
    both axes): O(k_r (m + 1)) time and O(m + 1) memory per group, with B fixed (0 or k_n);
    for a group past rank 50,000, B runs over 0..k_n: O(k_r (k_n + 1)(m + 1)) time,
    O((k_n + 1)(m + 1)) memory. Checked against every ordering in
    tests/metrics/test_metrics_inferred.py, a group past rank 50,000 included.
    """
    relevant, nonrel, pooled, nonpool, rel_above, nonrel_above, pooled_above = _infap_counts(table)
    size, above = table.group_size, table.group_above
    total = np.zeros(table.n_queries)
    single = np.flatnonzero((size == 1) & (relevant > 0))
    term = _infap_term(above[single], rel_above[single], nonrel_above[single], pooled_above[single])
    total += np.bincount(table.group_query[single], weights=term, minlength=table.n_queries)

    tied = np.flatnonzero((size > 1) & (relevant > 0))
    judged_above = rel_above[tied] + nonrel_above[tied]
    decided = 2 * INFAP_EPSILON * (above[tied] + size[tied]) <= judged_above + 1
    rows = np.where(decided, 1, nonrel[tied] + 1)  # values of B the programme tries
    cols = nonpool[tied] + pooled[tied] + 1        # values of c
    first_b = np.where(decided & (not best), nonrel[tied], 0)
    cost = rows * cols
    order = np.lexsort((cost, ~decided))  # the decided groups first (one row each), by size
    sorted_decided = decided[order]
    batches = (_batches(np.column_stack([rows, cols])[order][sorted_decided])
               + [np.array([i]) for i in np.flatnonzero(~sorted_decided)])  # rare: one at a time
    for batch in batches:
        pick = order[batch]
        g = tied[pick]
        values = _infap_extreme_groups(
            best, relevant[g], pooled[g], nonpool[g], above[g], rel_above[g], nonrel_above[g],
            pooled_above[g], first_b[pick], rows[pick], cols[pick])
        total += np.bincount(table.group_query[g], weights=values, minlength=table.n_queries)
    return divide(total, table.n_relevant.astype(np.float64))


def _infap_extreme_groups(best, k_r, k_u, k_x, above, r0, n0, u0, first_b, rows, cols
                          ) -> np.ndarray:
    """Per group: the best (worst) sum of its relevant documents' terms, by the lattice
    programme of :func:`inferred_ap_extreme` on arrays padded to the batch's largest group
    (a padded cell lies past the group's last B or c, so the running extremes, which only
    move to larger B and c, never carry it into a real one)."""
    accumulate = np.maximum.accumulate if best else np.minimum.accumulate
    by_relevant = np.argsort(-k_r, kind="stable")  # groups still placing relevant ones first
    k_r, k_u, k_x, above, r0, n0, u0, first_b, rows, cols = (
        x[by_relevant] for x in (k_r, k_u, k_x, above, r0, n0, u0, first_b, rows, cols))
    b = first_b[:, None, None] + np.arange(rows.max())[None, :, None]
    c = np.arange(cols.max())[None, None, :]
    pooled = (np.minimum(c, k_u[:, None, None]) if best
              else np.maximum(0, c - k_x[:, None, None]))  # pooled-unjudged first / last
    n = n0[:, None, None] + b
    u = u0[:, None, None] + pooled
    base = above[:, None, None] + b + c
    value = None
    for placed in range(int(k_r.max())):
        active = int(np.count_nonzero(k_r > placed))
        term = _infap_term(base[:active] + placed, r0[:active, None, None] + placed,
                           n[:active], u[:active])
        if value is None:
            value = term
        else:
            value[:active] = term + accumulate(accumulate(value[:active], axis=1), axis=2)
    value = accumulate(accumulate(value, axis=1), axis=2)
    out = np.empty(len(k_r))
    out[by_relevant] = value[np.arange(len(k_r)), rows - 1, cols - 1]
    return out


# ---- G ----------------------------------------------------------------------------------------
class _GainScale:
    """What m_G.c reads besides the ranking: per query the cost walk sum_cost(i) =
    sum_{p <= i} max(ideal_p, 1) (ideal_p the p-th largest judged gain, 0 past them) and
    the ideal total (the positive judged gains summed); per group the gains above it. The
    gain is the grade, or a gain map's (trec_eval's ``G.1=3,2=9``; its gains are >= 0, so
    gain-0 documents still only delay the others)."""

    def __init__(self, table: TieTable, gain: str | None = None) -> None:
        ideal = ideal_gains(table, gain)  # per query, descending
        self.start = table.ideal_start[:-1]
        self.count = np.diff(table.ideal_start)
        self.extra = np.concatenate(([0.0], np.cumsum(np.maximum(ideal - 1.0, 0.0))))
        self.ideal_total = np.bincount(np.repeat(np.arange(table.n_queries), self.count),
                                       weights=ideal, minlength=table.n_queries)
        self.doc_gain = trec_gains(table, gain)
        self.group_gain = segment_sum(self.doc_gain, table.group_start)
        self.gain_above = table.sum_above(self.group_gain)

    def inverse_log(self, query: np.ndarray, rank: np.ndarray, gain_so_far: np.ndarray
                    ) -> np.ndarray:
        """1 / log2(2 + sum_cost(rank) - gain_so_far): the weight of a document at 1-based
        ``rank`` whose query's gains up to and including it sum to ``gain_so_far``."""
        at = self.start[query] + np.minimum(rank, self.count[query])
        cost = rank + self.extra[at] - self.extra[self.start[query]]
        return 1.0 / np.log2(2.0 + cost - gain_so_far)


def _distinct_per_owner(owner: np.ndarray, values: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (owner, value) pairs, sorted: their owner, value, number among the
    owner's values (0, 1, ...) and count, and each input element's pair."""
    order = np.lexsort((values, owner))
    new = np.ones(len(order), dtype=bool)
    new[1:] = (owner[order][1:] != owner[order][:-1]) | (values[order][1:] != values[order][:-1])
    pair = np.empty(len(order), dtype=np.int64)
    pair[order] = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    pair_owner, pair_value = owner[order][first], values[order][first]
    slot = np.arange(len(first)) - np.searchsorted(pair_owner, pair_owner)
    return pair_owner, pair_value, slot, np.diff(np.append(first, len(order))), pair


def _gain_levels(table: TieTable, scale: _GainScale, groups: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The positive gains of ``groups`` as count vectors: a (len(groups), D) matrix of counts
    per level and one of the levels' gains (count 0 and gain 0 past a group's own D_g
    levels), D the most levels any of them has."""
    docs = np.flatnonzero((scale.doc_gain > 0) & np.isin(table.doc_group, groups))
    where = np.searchsorted(groups, table.doc_group[docs])
    owner, gain, slot, counts, _ = _distinct_per_owner(where, scale.doc_gain[docs])
    depth = int(slot.max()) + 1 if len(slot) else 1
    count = np.zeros((len(groups), depth), dtype=np.int64)
    value = np.zeros((len(groups), depth))
    count[owner, slot], value[owner, slot] = counts, gain
    return count, value


def _lattice(radix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every count vector of each row's lattice (digit d in 0..radix[:, d] - 1): the
    element's row, its digits (first digit least significant) and each row's first element."""
    size = np.prod(radix, axis=1)
    row, rest = _ragged(size)
    digits = np.empty((len(row), radix.shape[1]), dtype=np.int64)
    for d in range(radix.shape[1]):
        rest, digits[:, d] = np.divmod(rest, radix[row, d])
    return row, digits, np.cumsum(size) - size


def _check_lattice(table: TieTable, groups: np.ndarray, size: np.ndarray) -> None:
    if len(size) and size.max() > LATTICE_LIMIT:
        g = groups[int(np.argmax(size))]
        raise RemediedValueError(
            f"G: the tie group at ranks {table.group_above[g] + 1}-"
            f"{table.group_above[g] + table.group_size[g]} of query "
            f"{table.queries[table.group_query[g]]!r} has {int(size.max()):,} count vectors of "
            f"its grades (each grade level's count, multiplied), past tiedrank's limit of "
            f"{LATTICE_LIMIT:,}; ",
            Remedy("ties", "trec_eval", "to score G on one ordering (trec_eval's)"),
            ", or merge grade levels in the qrels")


def normalized_gain(table: TieTable, gain: str | None = None) -> np.ndarray:
    """trec_eval's ``G`` (m_G.c, "normalized gain"), its exact expectation over the tie
    orderings.

    With gain = grade (trec_eval's default gains; documents not judged or judged with a
    negative grade 0), S(i) the gains of ranks 1..i summed and
    cost(i) = sum_{p <= i} max(ideal_p, 1), ideal_p the p-th largest judged grade of the
    query (0 past them),

        G = (1 / sum of the positive judged grades) sum_i gain_i / log2(2 + cost(i) - S(i)).

    (It reads the grades whatever ``-l`` says, as trec_eval; a gain map ``gain``, trec_eval's
    ``-m G.1=3,2=9``, replaces grade by its gain in every term.) Expectation: the first t
    documents of a tie group (a_g above it) are a uniformly random t-subset, and given that
    set the t-th one is any of them alike, so its expected gain is T_t / t, T_t the set's
    gains summed. Hence

        E[group's share] = sum_{t=1}^{n_g} E[ (T_t / t) / log2(2 + cost(a_g + t) - S_0 - T_t) ],

    S_0 the gains above the group. The subset's count vector over the group's grade levels
    is multivariate hypergeometric, prod_l C(k_l, c_l) / C(n_g, t), so with q = c_1 + ... +
    c_L its documents of positive gain (P in the group, n_g - P of gain 0)

        P(T_t = s) = sum_q [C(P, q) C(n_g - P, t - q) / C(n_g, t)] P(s | q),
        P(s | q) = sum over (c_1..c_L) with sum q and gains s of prod_l C(k_l, c_l) / C(P, q).

    Cost per tied group with a positive grade: the lattice of its positive levels,
    prod_{l=1..L} (k_l + 1) (a few grade levels in practice; a group past
    :data:`LATTICE_LIMIT` is refused with a message), plus n_g - P + 1 terms per distinct
    pair (q, s), streamed in chunks.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abc"), "score": 1.0}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": list("abc"), "relevance": [1, 2, 3]}))
    >>> table = build_tie_table(run, qrels)   # cost walk 3, 5, 6; ideal total 6
    >>> normalized_gain(table)
    array([0.84853995])
    >>> normalized_gain_extreme(table, True), normalized_gain_extreme(table, False)
    (array([1.]), array([0.73213154]))
    >>> normalized_gain(table.resolve("worst"))  # 1, 2, 3: not the worst (1, 3, 2 is)
    array([0.75])
    """
    scale = _GainScale(table, gain)
    total = _singletons_gain(table, scale)
    tied = np.flatnonzero((table.group_size > 1) & (scale.group_gain > 0))
    if len(tied):
        count, value = _gain_levels(table, scale, tied)
        lattice = np.prod(count + 1, axis=1)
        _check_lattice(table, tied, lattice)
        log_fact = _log_factorials(int(table.group_size[tied].max()))
        order = np.argsort(lattice, kind="stable")
        for batch in _batches(lattice[order] * (count.shape[1] + 8)):  # a lattice's arrays
            pick = order[batch]
            g = tied[pick]
            values = _expected_gain_groups(table, scale, log_fact, g, count[pick], value[pick])
            total += np.bincount(table.group_query[g], weights=values, minlength=table.n_queries)
    return divide(total, scale.ideal_total)


def _singletons_gain(table: TieTable, scale: _GainScale) -> np.ndarray:
    """Per query: the G terms of the untied documents of positive gain."""
    single = np.flatnonzero((table.group_size == 1) & (scale.group_gain > 0))
    gain = scale.group_gain[single]
    query = table.group_query[single]
    term = gain * scale.inverse_log(query, table.group_above[single] + 1,
                                    scale.gain_above[single] + gain)
    return np.bincount(query, weights=term, minlength=table.n_queries).astype(np.float64)


def _expected_gain_groups(table, scale, log_fact, groups, count, value) -> np.ndarray:
    """Per group: E[its documents' G terms] = sum over t and s of P(T_t = s) (s / t) /
    log2(2 + cost(a_g + t) - S_0 - s) (see :func:`normalized_gain`): the lattice of the
    positive levels' counts collapsed to P(s | q) on the distinct pairs (q, s), then each
    pair expanded over the gain-0 documents among the first t (t = q + 0..n_g - P), in
    chunks of at most :data:`BATCH_ELEMENTS` terms."""
    def log_choose(n, k):
        return log_fact[n] - log_fact[k] - log_fact[n - k]

    size = table.group_size[groups]
    positive = count.sum(axis=1)
    zero = size - positive
    row, digits, _ = _lattice(count + 1)
    q = digits.sum(axis=1)
    keep = q > 0  # nothing gained yet: no term
    row, digits, q = row[keep], digits[keep], q[keep]
    sigma = (digits * value[row]).sum(axis=1)
    share = np.exp(log_choose(count[row], digits).sum(axis=1) - log_choose(positive[row], q))
    span = int(positive.max()) + 1
    owner, gained, _, _, pair = _distinct_per_owner(row * span + q, sigma)
    group, placed = np.divmod(owner, span)
    # per pair (q, s): log of P(s | q) C(P, q) s, and what the weight reads
    pair_log = (np.log(np.bincount(pair, weights=share)) + log_choose(positive[group], placed)
                + np.log(gained))
    pair_query, pair_rank = table.group_query[groups][group], table.group_above[groups][group]
    pair_gain = scale.gain_above[groups][group] + gained

    out = np.zeros(len(groups))
    for low, high in _whole_chunks(zero[group] + 1):
        local, c0 = _ragged(zero[group[low:high]] + 1)  # c0 gain-0 documents among the first t
        at = low + local
        g, t = group[at], placed[at] + c0
        log_term = pair_log[at] + log_choose(zero[g], c0) - log_choose(size[g], t)
        weight = scale.inverse_log(pair_query[at], pair_rank[at] + t, pair_gain[at])
        out += np.bincount(g, weights=np.exp(log_term) / t * weight, minlength=len(groups))
    return out


def normalized_gain_extreme(table: TieTable, best: bool, gain: str | None = None) -> np.ndarray:
    """The largest (``best``) or smallest ``G`` over the tie orderings, exactly.

    A gain-0 document just before a positive one delays it: swapping the two reads the
    positive one at rank i instead of i + 1 with the same gains summed (cost(i) <
    cost(i + 1)), and no other term changes, so the best order puts a group's gain-0
    documents after its positive ones and the worst before them. Among the positive ones the
    grade order is not always extreme (grades 1, 2, 3 tied alone: 1, 3, 2 is the worst, below
    1, 2, 3), so the rest is a path through the lattice of count vectors (c_1..c_L) of the
    levels placed so far: placing one more of gain v_l at count vector c (q = |c| documents,
    gains summed sigma) adds v_l / log2(2 + cost(a_g + o + q) - S_0 - sigma) (o = 0 for the
    best, the group's gain-0 documents for the worst), and V(c) = max_l V(c - e_l) + that
    term (min for the worst).
    O(L prod_{l=1..L} (k_l + 1)) time and memory per group, the lattice of its positive
    grades (refused past :data:`LATTICE_LIMIT`, with a message).
    """
    scale = _GainScale(table, gain)
    total = _singletons_gain(table, scale)
    tied = np.flatnonzero((table.group_size > 1) & (scale.group_gain > 0))
    if len(tied):
        count, value = _gain_levels(table, scale, tied)
        radix = count + 1
        size = np.prod(radix, axis=1)
        _check_lattice(table, tied, size)
        order = np.argsort(size, kind="stable")
        for batch in _batches(size[order]):
            pick = order[batch]
            g = tied[pick]
            values = _extreme_gain_groups(table, scale, g, radix[pick], value[pick], best)
            total += np.bincount(table.group_query[g], weights=values, minlength=table.n_queries)
    return divide(total, scale.ideal_total)


def _extreme_gain_groups(table, scale, groups, radix, value, best) -> np.ndarray:
    """Per group: the best (worst) sum of its G terms, by the lattice programme of
    :func:`normalized_gain_extreme`, layer by layer (q documents placed), every group of the
    batch at once."""
    row, digits, first = _lattice(radix)
    stride = np.cumprod(np.column_stack([np.ones(len(radix), dtype=np.int64), radix[:, :-1]]),
                        axis=1)
    placed = digits.sum(axis=1)
    gain = (digits * value[row]).sum(axis=1)
    zero = table.group_size[groups] - (radix - 1).sum(axis=1)
    rank = table.group_above[groups][row] + placed + (0 if best else zero[row])
    weight = scale.inverse_log(table.group_query[groups][row], rank,
                               scale.gain_above[groups][row] + gain)
    pick = np.max if best else np.min
    state = np.zeros(len(row))
    layer_order = np.argsort(placed, kind="stable")
    bounds = np.searchsorted(placed[layer_order], np.arange(int(placed.max()) + 2))
    for layer in range(1, int(placed.max()) + 1):
        here = layer_order[bounds[layer]:bounds[layer + 1]]
        options = np.full((len(here), radix.shape[1]), -np.inf if best else np.inf)
        for d in range(radix.shape[1]):
            can = digits[here, d] >= 1  # one of level d was the last placed
            at = here[can]
            options[can, d] = state[at - stride[row[at], d]] + value[row[at], d] * weight[at]
        state[here] = pick(options, axis=1)
    return state[first + np.prod(radix, axis=1) - 1]
