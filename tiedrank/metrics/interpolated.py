"""trec_eval's interpolated precision, ``iprec_at_recall`` and ``11pt_avg``, exact under ties.

Definition (trec_eval 10, ``m_iprec_at_recall.c`` and ``m_11pt_avg.c``). For a recall level
rho the cutoff is c = lround(rho R) relevant documents (R = relevant documents in the qrels;
half away from zero: trec_eval 9 and pytrec_eval used (long)(rho R + 0.9) instead). With the
j-th relevant document retrieved at rank rank_j,

    iprec(rho) = max_{j >= max(c, 1)} j / rank_j        (0 when c > num_rel_ret)

trec_eval's backward loop also sees the precision at non-relevant ranks, but between the
j-th and the (j+1)-th relevant document it is j / rank < j / rank_j, and after the last one
num_rel_ret / rank < num_rel_ret / rank_{num_rel_ret}: those never win. c = 0 gives the
value of c = 1. A query with no relevant document retrieved scores 0; one whose retrieved
list is empty (``-J`` dropped every document) scores 0 too, where trec_eval prints -nan (its
0 / 0). ``11pt_avg`` is the mean of iprec over the 11 levels 0.0, 0.1, ..., 1.0, summed from
1.0 down as trec_eval sums them.

Under ties (notation of :mod:`tiedrank.core.ties`): a tie group g with n documents, m of them
relevant, s documents and c0 relevant documents above it. The ranks of its relevant
documents are s + P_i, i = 1..m, where P_1 < ... < P_m is a uniformly random m-subset of
1..n, independently across groups; the index of a relevant document (c0 + i) never depends
on the order. So with G_g = max over the group's i >= i0 = max(1, c - c0) of
(c0 + i) / (s + P_i),

    iprec = max_g G_g,        P(iprec <= t) = prod_g P(G_g <= t)

over the groups holding the c-th relevant document or later ones. A group whose order is
fixed (one document, or only relevant ones: P_i = i) is a constant; so is a group's
smallest value, reached when its relevant documents come last: (c0 + m) / (s + n). The
largest of those, L, is the worst case, and iprec >= L in every ordering.

For one group, G_g <= t = a / b iff every P_i >= ceil(b (c0 + i) / a) - s for i >= i0: a
lattice-path count. In r_i = P_i - i (non-decreasing, in [0, n - m]) with the bound
l_i(t) = max(0, ceil(b (c0 + i) / a) - s - i), a backward pass over i counts the valid
suffixes, U_m(r) = [r >= l_m], U_i(r) = [r >= l_i] sum_{r' >= r} U_{i+1}(r') (one cumulative
sum a row), and for any i0 the indices below it only need P_1 < ... < P_{i0-1} < P_{i0}:

    P(G_g <= t | i0) = sum_r U_{i0}(r) C(i0 - 1 + r, i0 - 1) / C(n, m),

so one pass gives every i0, hence every recall level. G_g's values are
(c0 + i) / (s + i + r); F(t) = prod_g P(G_g <= t) is a step function jumping only there, so
with t_1 = L < t_2 < ... < t_K the union of those values above L (t_K: the best case,
F(t_K) = 1),

    E[iprec] = t_K - sum_{k < K} F(t_k) (t_{k+1} - t_k),

a sum of non-negative terms. Best and worst are the best and worst orders:
relevant documents first makes every P_i = i, its smallest possible value, for all i at
once, so every j / rank_j is at its largest at once, and so is their maximum over any set
of j (the set j >= c does not depend on the order); relevant documents last makes every
P_i = n - m + i, the largest, and every ratio the smallest.

Cost. A tie-free query (or a resolved table) is one masked segment maximum: O(documents).
A tie group with m relevant among n documents has up to m (n - m + 1) values t, those above
L only (smaller ones cannot be the maximum). At t the pass counts only r < l_m(t): from
l_m on no bound binds and the counts are binomials (see :func:`_count_chunk`), so a value
costs sum_i (l_m(t) - l_i(t)) <= m (n - m + 1) numbers, few for the large t, whose bounds
are low: O(m^2 (n - m + 1)^2) per group at worst. The values are vectorised in chunks of
at most ``_CHUNK_CELLS`` numbers (memory bounded), with one numpy call per row of a step.
Counts are float64 up to C(n, m) = e^700 (1e304) and the 80-bit long double beyond (with
m ~ n / 2, past about 1,015 documents; several times slower). benchmarks/RESULTS.md has the
timings of one group of 1,000 documents with 100 relevant (27,000 values: 1.7 s), larger
groups and the LLMJudge sample (about 0.3 s a run).

Examples
--------
Four documents tied at the top, two of them relevant (R = 2). Over the 6 orderings the
relevant pair sits at ranks (1,2) (1,3) (1,4) (2,3) (2,4) (3,4), so iprec at recall 0
(c = 0: the largest j / rank_j) is 1, 1, 1, 2/3, 1/2, 1/2: its mean is 7/9.

>>> import pandas as pd
>>> from tiedrank.core.data import Qrels, Run
>>> from tiedrank.core.ties import build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcd"), "score": 1.0}))
>>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": list("bd"), "relevance": 1}))
>>> table = build_tie_table(run, qrels)
>>> round(float(interpolated_precision(table, 0.0)[0]), 12) == round(7 / 9, 12)
True
>>> interpolated_precision(table.resolve("best"), 0.0), interpolated_precision(
...     table.resolve("worst"), 0.0)
(array([1.]), array([0.5]))
"""
from __future__ import annotations

import numpy as np

from ..core.ties import TieTable

RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""trec_eval's default recall levels (``iprec_at_recall`` and ``11pt_avg``)."""

_CHUNK_CELLS = 1 << 20
"""Numbers held by one chunk of the lattice-path pass (8 MB in float64): larger chunks
mean fewer numpy calls per number, which is what the pass spends its time on, but past
this size each chunk's arrays are fresh pages to fault in (2**22 on 7M lines: 67,000 page
faults and 0.39 s against 13,800 and 0.26 s; a group of 1,000 documents with 100 relevant:
2.2 s against 2.0 s). Values do not depend on it (the pass is layout independent)."""
_FLOAT64_LOG_COUNT = 700.0
"""Largest log C(n, m) counted in float64 (e^709.78 is float64's largest number; every
count of a group is at most C(n, m))."""


def parse_levels(text: str) -> tuple[float, ...]:
    """``"0.25 0.5 0.75"``: distinct recall levels in [0, 1], ascending (11pt_avg's
    ``levels=``); ``ValueError`` in words otherwise.

    >>> parse_levels("0.5 0.25")
    (0.25, 0.5)
    """
    try:
        levels = tuple(sorted(float(v) for v in text.split()))
    except ValueError:
        levels = ()
    if not levels or not all(0 <= v <= 1 for v in levels):
        raise ValueError("levels must be numbers in [0, 1] separated by blanks, e.g. "
                         "11pt_avg(levels=0.25 0.5 0.75)")
    if len(set(levels)) < len(levels):
        raise ValueError("a recall level is repeated; give each once")
    return levels


def recall_cutoffs(n_relevant: np.ndarray, recall: "float | np.ndarray") -> np.ndarray:
    """trec_eval 10's cutoff of each query: lround(recall * R), half away from zero.

    The product is the float64 one of the C code (double times long); the rounding is done
    exactly (``floor(x + 0.5)`` would round 0.49999999999999994 up).

    Parameters
    ----------
    n_relevant : numpy.ndarray
        R per query.
    recall : float or numpy.ndarray
        One level, or several (the result is then queries x levels).

    Returns
    -------
    numpy.ndarray
        int64 cutoffs, in relevant documents.

    Examples
    --------
    >>> R = np.array([3, 5])
    >>> recall_cutoffs(R, 0.1).tolist(), recall_cutoffs(R, 0.5).tolist()
    ([0, 1], [2, 3])
    """
    levels = np.asarray(recall, dtype=np.float64)
    scaled = (n_relevant.astype(np.float64)[:, None] * levels.reshape(1, -1))
    whole = np.floor(scaled)
    cut = (whole + (scaled - whole >= 0.5)).astype(np.int64)
    return cut if levels.ndim else cut[:, 0]


def interpolated_precision(table: TieTable, recall: float) -> np.ndarray:
    """``iprec_at_recall``: E[max_{j >= max(c, 1)} j / rank_j], c = lround(recall * R).

    The exact expectation over the orderings inside the tie groups on the expected table;
    the value of the single ordering on a resolved one (see the module docstring for the
    definition, the derivation and the cost). Every level of :data:`RECALL_LEVELS` is
    computed in one pass the first time one of them is asked, and kept on the table.

    Parameters
    ----------
    table : TieTable
    recall : float
        The recall level, in [0, 1].

    Returns
    -------
    numpy.ndarray
        One float per query of the table (0 when c > num_rel_ret).

    Examples
    --------
    Ranks 1, 3, 5 hold the relevant documents of R = 4 (the fourth is not retrieved):
    j / rank_j = 1, 2/3, 3/5, so recall 0.5 (c = 2) gives 2/3 and recall 1.0 (c = 4) gives 0.

    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcde"),
    ...                              "score": [5.0, 4.0, 3.0, 2.0, 1.0]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": list("acex"), "relevance": 1}))
    >>> table = build_tie_table(run, qrels)
    >>> [round(float(interpolated_precision(table, r)[0]), 4) for r in (0.0, 0.5, 0.7, 1.0)]
    [1.0, 0.6667, 0.6, 0.0]
    """
    return _levels(table, (float(recall),))[:, 0]


def eleven_point_average(table: TieTable,
                         levels: tuple[float, ...] = RECALL_LEVELS) -> np.ndarray:
    """``11pt_avg``: the mean of ``iprec_at_recall`` over the 11 levels 0.0, 0.1, ..., 1.0
    (or over ``levels``, ascending: trec_eval's ``11pt_avg..25,.5,.75``).

    (1/11) sum_rho iprec(rho), summed from rho = 1.0 down, as trec_eval adds them; the
    expectation is the mean of the levels' expectations (linearity), and best and worst
    are those of the levels, since one order is the best (worst) for all of them at once.

    Parameters
    ----------
    table : TieTable

    Returns
    -------
    numpy.ndarray
        One float per query of the table.

    Examples
    --------
    The ranking of :func:`interpolated_precision`'s example (R = 4): levels 0.0 to 0.3
    (c = 0 or 1) give 1, 0.4 to 0.6 (c = 2) give 2/3, 0.7 and 0.8 (c = 3) give 3/5, 0.9 and
    1.0 (c = 4) give 0: (4 + 3 * 2/3 + 2 * 3/5) / 11 = 7.2 / 11.

    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcde"),
    ...                              "score": [5.0, 4.0, 3.0, 2.0, 1.0]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": list("acex"), "relevance": 1}))
    >>> round(float(eleven_point_average(build_tie_table(run, qrels))[0]), 4)
    0.6545
    """
    values = _levels(table, tuple(levels))
    total = np.zeros(table.n_queries)
    for column in range(len(levels) - 1, -1, -1):  # trec_eval's order of the sum
        total += values[:, column]
    return total / len(levels)


def _levels(table: TieTable, recalls: tuple[float, ...]) -> np.ndarray:
    """iprec at each of ``recalls`` (queries x levels), kept on the table level by level.

    A level of :data:`RECALL_LEVELS` brings all eleven: one pass serves them together for
    about the price of the first (level 0 sees every group), and ``-m official`` asks for
    them one by one. One attribute a level, never a dict, as :meth:`TieTable.view` keeps
    its views (the dashboard's read-only wrapper then keeps the cached table as it is)."""
    def slot(recall: float) -> str:
        return f"_interpolated_precision_{recall!r}"

    missing = [r for r in recalls if slot(r) not in table.__dict__]
    if missing:
        if any(r in RECALL_LEVELS for r in missing):
            missing = [r for r in dict.fromkeys([*missing, *RECALL_LEVELS])
                       if slot(r) not in table.__dict__]
        values = _expected_levels(table, np.array(missing, dtype=np.float64))
        for column, recall in enumerate(missing):  # derived data: cached on the frozen table
            table.__dict__[slot(recall)] = values[:, column].copy()
    if not recalls:
        return np.zeros((table.n_queries, 0))
    return np.stack([table.__dict__[slot(r)] for r in recalls], axis=1)


# ---- the computation -------------------------------------------------------------------------
def _expected_levels(table: TieTable, recalls: np.ndarray) -> np.ndarray:
    """E[iprec] at every level, queries x levels (a resolved table: the ordering's value)."""
    n_levels = len(recalls)
    relevant_retrieved = table.relevant_retrieved
    need = np.maximum(recall_cutoffs(table.n_relevant, recalls), 1)  # c = 0 counts as 1
    scored = relevant_retrieved[:, None] >= need  # c <= num_rel_ret (hence >= 1 retrieved)
    values = np.zeros((table.n_queries, n_levels))
    holding = np.flatnonzero(table.group_relevant > 0)
    if len(holding) == 0:
        return values
    groups = _Groups(table, holding)
    # a group takes part in a level when it holds the c-th relevant document or later ones
    active = (groups.c0 + groups.m)[:, None] >= need[groups.query]
    active &= scored[groups.query]
    # the worst case, a lower bound in every ordering: each group's value with its relevant
    # documents last, maximised over the groups that take part (0 where none does)
    lower = _per_query_max(groups, np.where(active, groups.last_value[:, None], 0.0),
                           table.n_queries)
    values[:] = lower
    # levels of one query with the same cutoff have the same value (every quantity here is
    # a function of the query and c): each is computed at its first such level and copied
    # (11 levels of R = 1 share c = 1, of R = 3 three cutoffs)
    same = np.stack([np.argmax(need == need[:, [level]], axis=1) for level in range(n_levels)],
                    axis=1)
    random = active & (groups.m < groups.n)[:, None]  # groups whose order matters
    random &= (same == np.arange(n_levels))[groups.query]
    if random.any():
        pairs, expectation = _expectation(groups, random, need, lower)
        values[pairs[:, 0], pairs[:, 1]] = expectation
    return np.take_along_axis(values, same, axis=1)


class _Groups:
    """The tie groups holding a relevant document, as flat arrays (sorted by query)."""

    def __init__(self, table: TieTable, index: np.ndarray):
        self.query = table.group_query[index]
        self.n = table.group_size[index].astype(np.int64)
        self.m = table.group_relevant[index].astype(np.int64)
        self.s = table.group_above[index].astype(np.int64)
        self.c0 = table.relevant_above[index].astype(np.int64)
        self.last_value = (self.c0 + self.m) / (self.s + self.n)
        first = np.ones(len(index), dtype=bool)
        first[1:] = self.query[1:] != self.query[:-1]
        self.query_start = np.flatnonzero(first)  # segments of one query


def _per_query_max(groups: _Groups, group_values: np.ndarray, n_queries: int) -> np.ndarray:
    """Per query and level, the maximum of ``group_values`` (groups x levels) over its
    groups; queries without a group get 0."""
    out = np.zeros((n_queries, group_values.shape[1]))
    out[groups.query[groups.query_start]] = np.maximum.reduceat(group_values,
                                                                groups.query_start, axis=0)
    return out


def _distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values (a sort and a mask: faster here than numpy's hashing)."""
    values = np.sort(values)
    fresh = np.ones(len(values), dtype=bool)
    fresh[1:] = values[1:] != values[:-1]
    return values[fresh]


def _segments(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For segments of ``lengths``: each element's segment and its offset inside it."""
    owner = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.cumsum(lengths) - lengths
    return owner, np.arange(int(lengths.sum())) - starts[owner]


def _expectation(groups: _Groups, random: np.ndarray, need: np.ndarray,
                 lower: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """E[iprec] of every (query, level) with a group whose order matters.

    Returns the (query, level) pairs and their expectations."""
    rows = np.flatnonzero(random.any(axis=1))  # groups (of ``groups``) with random levels
    level_of = random[rows]
    query = groups.query[rows]
    first_index = np.maximum(need[query] - groups.c0[rows][:, None], 1)  # i0 per level
    big = np.iinfo(np.int64).max
    i0_min = np.where(level_of, first_index, big).min(axis=1)
    floor = np.where(level_of, lower[query], np.inf).min(axis=1)  # smallest L of its levels
    lanes = _Lanes(groups, rows, i0_min, floor)

    # one request per (group, i0) a level needs
    entry_row, entry_level = np.nonzero(level_of)  # (group, level) pairs, sorted by group
    entry_i0 = first_index[entry_row, entry_level]
    width = int(entry_i0.max()) + 1
    request_key, entry_request = np.unique(entry_row * width + entry_i0, return_inverse=True)
    request_group, request_i0 = request_key // width, request_key % width
    cdf, request_offset = _path_counts(lanes, request_group, request_i0)

    # each (query, level) pair: F(t) = prod_g P(G_g <= t) from t = L up
    pair_key = query[entry_row] * need.shape[1] + entry_level
    pair_keys, entry_pair = np.unique(pair_key, return_inverse=True)
    pairs = np.stack([pair_keys // need.shape[1], pair_keys % need.shape[1]], axis=1)
    pair_lower = lower[pairs[:, 0], pairs[:, 1]]
    ranks = _distinct(np.concatenate([lanes.value, pair_lower]))  # dense rank of each value
    n_ranks = len(ranks) + 1
    lane_key = lanes.group * n_ranks + np.searchsorted(ranks, lanes.value)
    lower_rank = np.searchsorted(ranks, pair_lower)
    group_end = np.searchsorted(lanes.group, np.arange(len(rows)), side="right")
    group_first = group_end - lanes.count
    # the first lane above L of each entry's group; P(G <= t) of entry e's group and i0 at
    # lane l is cdf[base[e] + l]
    above = np.searchsorted(lane_key, entry_row * n_ranks + lower_rank[entry_pair], side="right")
    base = request_offset[entry_request] - group_first[entry_row]
    # pairs in blocks of at most _CHUNK_CELLS // 8 steps (the steps hold several arrays)
    by_pair = np.argsort(entry_pair, kind="stable")
    steps_of_pair = np.bincount(entry_pair, weights=group_end[entry_row] - above + 1,
                                minlength=len(pairs))
    expectation = np.empty(len(pairs))
    held = np.cumsum(steps_of_pair)
    start = 0
    while start < len(pairs):
        stop = max(start + 1, int(np.searchsorted(held, (held[start - 1] if start else 0)
                                                   + _CHUNK_CELLS // 8, side="right")))
        first, last = np.searchsorted(entry_pair[by_pair], [start, stop])
        entries = by_pair[first:last]
        expectation[start:stop] = _expected_maximum(
            entry_pair[entries] - start, above[entries], group_end[entry_row[entries]],
            base[entries], lower_rank[start:stop], cdf, lanes.value, ranks)
        start = stop
    return pairs, expectation


def _expected_maximum(entry_pair: np.ndarray, above: np.ndarray, end: np.ndarray,
                      base: np.ndarray, lower_rank: np.ndarray, cdf: np.ndarray,
                      lane_value: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """E[max] of each pair from its groups' P(G_g <= t) (entries sorted by pair).

    F(t) = prod_g P(G_g <= t) from t = L up: at L each group reads its largest lane <= L
    (the lane before ``above``); then every lane above L of one of the pair's groups is a
    step that multiplies F by that group's P at the lane over its P at the lane before.
    E = t_K - sum_{k<K} F(t_k) (t_{k+1} - t_k) over the pair's distinct values."""
    n_pairs = len(lower_rank)
    entries_of_pair = np.bincount(entry_pair, minlength=n_pairs)
    at_lower = np.multiply.reduceat(cdf[base + above - 1],
                                    np.cumsum(entries_of_pair) - entries_of_pair)
    owner, offset = _segments(end - above)
    lane = above[owner] + offset
    step_factor = cdf[base[owner] + lane] / cdf[base[owner] + lane - 1]
    event_pair = np.concatenate([np.arange(n_pairs), entry_pair[owner]])
    event_rank = np.concatenate([lower_rank, np.searchsorted(ranks, lane_value[lane])])
    order = np.lexsort((event_rank, event_pair))  # L first: its rank is the pair's least
    event_pair, event_rank = event_pair[order], event_rank[order]
    cdf_after = _segment_products(np.concatenate([at_lower, step_factor])[order], event_pair)
    # the distinct values of each pair: the last step at each value holds F there
    last_at = np.ones(len(order), dtype=bool)
    last_at[:-1] = (event_pair[1:] != event_pair[:-1]) | (event_rank[1:] != event_rank[:-1])
    point_pair, point_value = event_pair[last_at], ranks[event_rank[last_at]]
    pair_start = np.searchsorted(point_pair, np.arange(n_pairs))
    step = np.zeros(len(point_pair))
    step[:-1] = np.diff(point_value)
    last = np.append(pair_start[1:] - 1, len(point_pair) - 1)
    step[last] = 0.0
    below = np.add.reduceat(cdf_after[last_at] * step, pair_start)
    return point_value[last] - below


def _segment_products(values: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Running products restarted at every segment (``segment`` sorted), by a doubling
    scan: pass d multiplies in the partial product d places back when it lies in the same
    segment. Each segment's numbers depend on its own values alone, never on the segments
    before it (a running product over the whole array would): per-query results stay the
    same whatever else is evaluated with them."""
    out = values.copy()
    fresh = np.ones(len(segment), dtype=bool)
    fresh[1:] = segment[1:] != segment[:-1]
    offset = np.arange(len(segment)) - np.maximum.accumulate(
        np.where(fresh, np.arange(len(segment)), 0))
    later, distance = np.flatnonzero(offset >= 1), 1
    while len(later):
        out[later] = out[later] * out[later - distance]
        distance *= 2
        later = later[offset[later] >= distance]
    return out


class _Lanes:
    """The thresholds t = a / b at which each random group's P(G_g <= t) is counted.

    A group's values (c0 + i) / (s + i + r), i >= its smallest i0, r in 0..n - m, at or above
    ``floor`` (the smallest L of its levels: below it F is 0 whatever this group does), plus
    its largest value under ``floor`` (so a step of this group below L is still known; none
    under its own worst case, which no ordering reaches) and t = 1, where every ordering
    counts: its count is C(n, m), by the same arithmetic. Sorted by (group, value), without
    repeats."""

    def __init__(self, groups: _Groups, rows: np.ndarray, i0_min: np.ndarray, floor: np.ndarray):
        m, n = groups.m[rows], groups.n[rows]
        s, c0 = groups.s[rows], groups.c0[rows]
        width = n - m + 1
        cells = (m - i0_min + 1) * width
        owner, offset = _segments(cells)
        i = i0_min[owner] + offset // width[owner]
        numerator = c0[owner] + i
        denominator = s[owner] + i + offset % width[owner]
        value = numerator / denominator
        # below the worst case (c0 + m) / (s + n) a value is never the maximum: not a step
        possible = value >= groups.last_value[rows][owner]
        under = possible & (value < floor[owner])
        best_under = np.full(len(rows), -1.0)
        np.maximum.at(best_under, owner[under], value[under])
        keep = possible & (~under | (value == best_under[owner]))
        group = np.concatenate([owner[keep], np.arange(len(rows))])
        numerator = np.concatenate([numerator[keep], np.ones(len(rows), dtype=np.int64)])
        denominator = np.concatenate([denominator[keep], np.ones(len(rows), dtype=np.int64)])
        value = np.concatenate([value[keep], np.ones(len(rows))])
        order = np.lexsort((value, group))
        group, value = group[order], value[order]
        fresh = np.ones(len(group), dtype=bool)
        fresh[1:] = (group[1:] != group[:-1]) | (value[1:] != value[:-1])
        self.group, self.value = group[fresh], value[fresh]
        self.numerator, self.denominator = numerator[order][fresh], denominator[order][fresh]
        self.count = np.bincount(self.group, minlength=len(rows))
        self.m, self.n, self.s, self.c0 = m, n, s, c0


def _path_counts(lanes: _Lanes, request_group: np.ndarray,
                 request_i0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(G_g <= t | i0) for every lane t of every requested (group, i0).

    Returns the probabilities, one segment per request (its group's lanes in order), and
    the offset of each request's segment. Each is a function of its group alone (the
    arithmetic, the dtype, the order of every sum): the same bits whatever other groups,
    queries or runs are counted with it."""
    per_request = lanes.count[request_group]
    request_offset = np.cumsum(per_request) - per_request
    group_first = np.cumsum(lanes.count) - lanes.count
    lane_rank = np.arange(len(lanes.group)) - group_first[lanes.group]
    requests_of = np.bincount(request_group, minlength=len(lanes.count))
    first_request = np.cumsum(requests_of) - requests_of
    wide_group = _wide_groups(lanes.n, lanes.m)
    wide = wide_group[lanes.group]
    if wide.any() and np.finfo(np.longdouble).maxexp <= 1024:
        raise ValueError("iprec_at_recall: a tie group is too large to count its orderings "
                         "on this platform (C(n, m) past float64 and no 80-bit long "
                         "double); evaluate with round= fewer decimals, or cut the run "
                         "with depth=")
    top = _bound(lanes, np.arange(len(lanes.group)), lanes.m[lanes.group])  # l_m of each lane
    # each count starts as its orderings with r_{i0} >= l_m, where no bound binds (the pass
    # adds those with r_{i0} < l_m): requests in blocks of one dtype and at most an eighth
    # of _CHUNK_CELLS numbers (the sums hold several arrays of that size at once). A group
    # counts in float64 unless its C(n, m) needs the long double; the array holds both
    # (a float64 count is exact in a long double one)
    counts = np.empty(int(per_request.sum()), dtype=np.longdouble if wide.any() else np.float64)
    request_wide = wide_group[request_group]
    by_width = np.lexsort(((lanes.n - lanes.m)[request_group], request_wide))
    widths = (lanes.n - lanes.m)[request_group][by_width] + 1
    start = 0
    while start < len(by_width):  # widths ascending: a block's widest is its last
        end = start + int(np.searchsorted(request_wide[by_width[start:]], True)
                          if not request_wide[by_width[start]] else len(by_width) - start)
        held = np.arange(1, end - start + 1) * widths[start:end]
        stop = start + max(1, int(np.searchsorted(held, _CHUNK_CELLS // 8, side="right")))
        block = by_width[start:stop]
        owner, offset = _segments(per_request[block])
        tails = _free_ways(lanes, request_group[block], request_i0[block],
                           np.longdouble if request_wide[block[0]] else np.float64)
        counts[request_offset[block][owner] + offset] = tails[
            owner, top[group_first[request_group[block]][owner] + offset]]
        start = stop
    # the pass adds the orderings with r_{i0} < l_m: none when l_m = 0, none for i0 = m
    # (U_m(r) = [r >= l_m]); so the lanes of a group whose every request reads i0 = m (one
    # relevant document: most groups), or whose l_m is 0, have no pass
    least_i0 = request_i0[first_request]  # every group of the lanes has a request
    counted = np.flatnonzero((top > 0) & (least_i0 < lanes.m)[lanes.group])
    # a chunk: lanes whose last bound l_m is close (the rows a step sums run up to the
    # largest), by threshold inside (close bounds at every step)
    order = counted[np.lexsort((lanes.value[counted], top[counted], wide[counted]))]
    top_order, wide_order = top[order], wide[order]
    start = 0
    while start < len(order):
        stop = _chunk_end(top_order, wide_order, start)
        chunk = order[start:stop]
        chunk = chunk[np.argsort(-lanes.m[lanes.group[chunk]], kind="stable")]
        _count_chunk(lanes, chunk, requests_of, first_request, request_i0, request_offset,
                     lane_rank, counts, np.longdouble if wide_order[start] else np.float64)
        start = stop
    # divide by each request's count at t = 1 (C(n, m)), the last lane of its group, in
    # the group's dtype
    normaliser = np.repeat(counts[request_offset + per_request - 1], per_request)
    probability = np.empty(len(counts))
    long = np.repeat(request_wide, per_request)
    probability[~long] = counts[~long].astype(np.float64) / normaliser[~long].astype(np.float64)
    probability[long] = (counts[long] / normaliser[long]).astype(np.float64)
    # a lane is at least the group's worst case, so its probability is positive; one under
    # float64's range (a long double count) stays the smallest float64, never 0, so the
    # steps of F divide by it (the error is below 1e-307)
    return np.maximum(probability, np.finfo(np.float64).tiny), request_offset


def _wide_groups(n: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per group, whether log C(n, m) > ``_FLOAT64_LOG_COUNT`` (its counts need the long
    double). C(n, m) <= 2^n, so a group of at most 1,008 documents never is: scipy's
    gammaln (a third of a second of imports) is only loaded for larger ones."""
    wide = np.zeros(len(n), dtype=bool)
    large = np.flatnonzero(n * np.log(2.0) > _FLOAT64_LOG_COUNT - 1.0)
    if len(large):
        from scipy.special import gammaln  # here, not at import: the CLI starts without scipy

        n, m = n[large], m[large]
        wide[large] = (gammaln(n + 1.0) - gammaln(m + 1.0) - gammaln(n - m + 1.0)
                       > _FLOAT64_LOG_COUNT)
    return wide


def _bound(lanes: _Lanes, lane: np.ndarray, i: np.ndarray) -> np.ndarray:
    """l_i(t) = max(0, ceil(b (c0 + i) / a) - s - i) of each lane (t = a / b), in integers:
    the least r_i = P_i - i whose ratio (c0 + i) / (s + i + r_i) is at most t."""
    group = lanes.group[lane]
    a, b = lanes.numerator[lane], lanes.denominator[lane]
    return np.maximum(-((-b * (lanes.c0[group] + i)) // a) - lanes.s[group] - i, 0)


def _chunk_end(top: np.ndarray, wide: np.ndarray, start: int) -> int:
    """End of the chunk that begins at ``start`` (lanes sorted by dtype, then l_m): one
    dtype, no l_m above twice the first (plus 64: small ones share), at most
    ``_CHUNK_CELLS`` numbers."""
    other = np.flatnonzero(wide[start:] != wide[start])
    limit = start + (int(other[0]) if len(other) else len(top) - start)
    limit = start + int(np.searchsorted(top[start:limit], 2 * top[start] + 64, side="right"))
    return min(limit, start + max(1, _CHUNK_CELLS // (int(top[limit - 1]) + 1)))


def _count_chunk(lanes: _Lanes, lane: np.ndarray, requests_of: np.ndarray,
                 first_request: np.ndarray, request_i0: np.ndarray, request_offset: np.ndarray,
                 lane_rank: np.ndarray, counts: np.ndarray, dtype) -> None:
    """The backward pass over i for ``lane`` (sorted by m descending), into ``counts``.

    Step k is row i = m - k of every lane (the lanes with m > k, a prefix, still run).
    Row r of the lanes' array holds U_i(r) (a lane a column), so the sum over r' >= r is a
    running sum up the rows, one vector add a row. Only r < l_m is counted there: from
    r >= l_m on no bound binds (l_i <= l_m for every i), so U_i(r) = C(K - r + m - i, m - i)
    and their sum is B_i = C(K - l_m + m - i, m - i) (hockey stick), written at row l_m
    before each running sum. A lane's pass is sum_i (l_m - l_i) numbers, not m (K + 1):
    small for the large thresholds, whose bounds are low. Every number of a lane is its
    own column's: the rows above its l_m are 0 and its reads end where its own bounds
    do, so its bits never depend on the lanes it shares the chunk with."""
    group = lanes.group[lane]
    m = lanes.m[group]
    K = (lanes.n - lanes.m)[group]
    top = _bound(lanes, lane, m)  # l_m (<= K: t is at least the group's worst case)
    height = int(top.max())
    # every (lane, i0) to read, by the step k = m - i0 at which row i0 is reached
    owner, offset = _segments(requests_of[group])
    request = first_request[group][owner] + offset
    step = m[owner] - request_i0[request]
    by_step = np.argsort(step, kind="stable")
    owner, request, step = owner[by_step], request[by_step], step[by_step]
    step_start = np.searchsorted(step, np.arange(int(m.max()) + 1))
    table = np.zeros((height + 1, len(lane)), dtype=dtype)
    above = np.ones(len(lane), dtype=dtype)  # B_i; B_m = 1 (nothing after row m)
    done = np.zeros(len(lane), dtype=bool)  # lanes whose every i0 is read
    for k in range(int(m.max())):
        running = int(np.searchsorted(-m, -k, side="left"))  # the lanes with m > k
        rows, column = table[:, :running], np.arange(running)
        bound = _bound(lanes, lane[:running], m[:running] - k)
        if k > 0:  # row m holds nothing below l_m
            above[:running] *= (K[:running] - top[:running] + k) / k
            rows[top[:running], column] = above[:running]
            low = int(bound.min())
            for r in range(height - 1, low - 1, -1):
                np.add(rows[r + 1], rows[r], out=rows[r])
            rows[top[:running], column] = 0.0  # B_i was a sum, not a row of U_i
            masked = min(int(bound.max()), height)  # below a lane's bound: 0
            rows[low:masked] *= np.arange(low, masked)[:, None] >= bound
        # a lane with no bound left at this row (none below it either: l_i falls with i)
        # has this row's orderings at every i0 it has still to read: its reads end here
        free = np.zeros(len(lane), dtype=bool)
        free[:running] = bound == 0
        below = step_start[k + 1] + np.flatnonzero(free[owner[step_start[k + 1]:]])
        here = np.concatenate([np.arange(step_start[k], step_start[k + 1]), below])
        here = here[~done[owner[here]]]
        done |= free
        if len(here):
            who, what = owner[here], request[here]
            i = m[who] - k
            total = np.empty(len(who), dtype=dtype)
            for row in np.unique(i):  # a chunk holds a few m
                chosen = i == row
                # a running sum down the rows, in order whatever the shape (a plain sum of
                # one column is numpy's pairwise one, whose tree follows the chunk's
                # height), never BLAS
                terms = _prefix_ways(int(row), height, dtype)[:, None] * rows[:height,
                                                                              who[chosen]]
                total[chosen] = np.cumsum(terms, axis=0, out=terms)[-1]
            where = request_offset[what] + lane_rank[lane[who]]
            early = request_i0[what] != i  # an i0 below this row: this row's orderings
            counts[where[early]] = _free_ways(lanes, lanes.group[lane[who[early]]],
                                              i[early], dtype)[
                np.arange(int(early.sum())), top[who[early]]]
            counts[where] = counts[where].astype(dtype) + total  # in the lane's dtype
        if done[owner[step_start[k + 1]:]].all():  # nothing left to read
            break


def _prefix_ways(i0: int, rows: int, dtype) -> np.ndarray:
    """C(i0 - 1 + r, i0 - 1) for r = 0..rows - 1: the ways to place the relevant documents
    before the i0-th when r_{i0} = r. Running products of (i0 - 1 + r) / r, so a number
    carries a few roundings and never a factorial."""
    r = np.arange(1, rows, dtype=dtype)
    return np.concatenate([np.ones(min(rows, 1), dtype=dtype), np.cumprod((i0 - 1 + r) / r)])


def _free_ways(lanes: _Lanes, group: np.ndarray, i0: np.ndarray, dtype) -> np.ndarray:
    """T[j, top] = sum_{r = top}^{K} C(i0 - 1 + r, i0 - 1) C(K - r + m - i0, m - i0) for each
    (group, i0) j: the orderings with r_{i0} >= top, where no bound binds (0 past K).

    Running products along r (one row a request, so each row's numbers are its own), then a
    suffix sum."""
    m, K = lanes.m[group], (lanes.n - lanes.m)[group]
    columns = int(K.max()) + 1 if len(K) else 1
    r = np.arange(columns)[None, :]
    inside = r <= K[:, None]
    step = np.ones((len(group), columns), dtype=dtype)
    grow = inside & (r >= 1)
    step[grow] = ((i0[:, None] - 1 + r) / np.maximum(r, 1))[grow]
    before = np.cumprod(step, axis=1)  # C(i0 - 1 + r, i0 - 1)
    step[:] = 1.0
    step[grow] = (((m - i0)[:, None] + r) / np.maximum(r, 1))[grow]
    after = np.cumprod(step, axis=1)  # C(q + m - i0, m - i0) at q = r
    flip = np.take_along_axis(after, np.maximum(K[:, None] - r, 0), axis=1)  # at q = K - r
    terms = np.where(inside, before * flip, 0.0)
    return np.cumsum(terms[:, ::-1], axis=1)[:, ::-1]
