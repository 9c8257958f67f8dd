"""C/W/L's INSQ, INST and BPM as cwl_eval computes them (ir_measures' ``INSQ``, ``INST``
and ``BPM`` objects run cwl_eval), exact under ties.

cwl_eval scores a ranking cut or padded to ``max_n`` = :data:`CWL_DEPTH` = 1000 places
(padding: gain 0), gains g_i in [0, 1] (ir_measures: the grade clipped at 0, then into
[min_rel, max_rel], scaled by (grade - min_rel) / (max_rel - min_rel); an unjudged document
0). A measure is a continuation vector C_i (0-based place i); the weights are the running
products P_i = prod_{j < i} C_j over the 1000 places, normalised:

    W_i = P_i / sum_{k < 1000} P_k,      value = sum_i W_i g_i   (the expected rate of gain)

* INSQ(T): C_i = ((i + 2T) / (i + 1 + 2T))^2, no gain in it, so P_i = (2T / (i + 2T))^2
  (the product telescopes) and the value is linear in the gains: E[INSQ] takes each group's
  mean gain at each of its places, exact at any size; the grade orders are the extremes
  (the weights fall with the place, the gain never falls as the grade rises).
* INST(T): C_i = ((i + 2T - G_i) / (i + 1 + 2T - G_i))^2 with G_i the gain gathered up to
  and including place i (cwl_eval's T_i = T - G_i): adaptive, and the value is a ratio of
  two sums that both depend on the whole order.
* BPM(T)@K (static, cwl_eval's ``BPMCWLMetric(T, K)``, ir_measures' cutoff is K): C_i = 1
  while G_i < T and i + 1 < K, 0 from the first place failing either; the user reads places
  0..s, W = 1/(s + 1) each, so BPM = G_s / (s + 1), s = min(first place with G_i >= T,
  K - 1, 999). Places at or past K never count, so BPM reads the top min(K, 1000).
  The registry scores BPM by :mod:`.cwl_bpm` (exact at any size: one tie group per query
  decides it); :func:`BPM_SHAPE` enumerates it here too (the tests' second exact method;
  it compares float sums with T, as cwl_eval).

Exact expectation, best and worst of INST (docs/metrics-reference.md, 3i). INST's ratio
does not factor over the tie groups (the weights of every later place depend on the order
inside an earlier group), and no linear statistic carries it. It is computed by
enumerating the
*distinct gain sequences* each tie group can put on the places the measure reads (a group
of n documents with 2 relevant has C(n, 2) of them, not n!), each with its probability
under a uniform order of the group (prod_t (documents of that gain left) / (documents
left): uniform over the sequences of a whole group, not over those of a group the depth
cuts, which are prefixes), independently per group: a query's joint sequences are the
product over its groups with more than one gain inside the depth. Each joint sequence is one
row of gains; the rows are scored by cwl_eval's own formula, vectorised over rows, and the
query's expected value is the probability-weighted mean of its rows, its best and worst
their maximum and minimum (exact: every enumerated row is an ordering that occurs). A query
needing more than :data:`MAX_ORDERINGS` rows is refused with a message naming it, its
largest tie group, and what to write instead; never approximated. The loops are over the
distinct group shapes (gains, counts, places inside the depth) and over chunks of rows,
never per query or group.

Examples
--------
>>> import pandas as pd
>>> from tiedrank.core.data import Qrels, Run
>>> from tiedrank.core.ties import build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("ab"), "score": [1.0, 1.0]}))
>>> table = build_tie_table(run, Qrels(pd.DataFrame({"query": "q", "doc": ["a"],
...                                                  "relevance": [1]})))
>>> [float(v[0]) for v in orderings_summary(table, BPM_SHAPE(1.0, 10), "BPM")]  # 1 or 1/2
[0.75, 1.0, 0.5]
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.errors import Remedy, RemediedValueError
from ..core.segments import segment_cumsum, segment_sum
from ..core.ties import TieTable
from .peer_kernels import scaled_gains

CWL_DEPTH = 1000
"""cwl_eval's ``max_n``: rankings are cut and zero-padded to 1000 places (ir_measures' cwl
provider passes ``max_n=1000``)."""
MAX_ORDERINGS = 2**16
"""The most distinct gain sequences one query may need (the product over its tie groups of
each group's distinct sequences on the places the measure reads): 65,536 rows of 1,000
places, about 0.5 GB of float64 in chunks; a query needing more is refused."""
MAX_SEQUENCE_CELLS = 2**24
"""The most cells (distinct sequences x places) one group shape's enumeration may hold (its
level indices, parents and probabilities: about 100 MB)."""
MAX_TOTAL_CELLS = 2**27
"""The most cells all group shapes of a table may hold at once (level indices of 2 bytes:
256 MB)."""
_CHUNK_CELLS = 2**22
"""Cells (rows x places) scored at once: 32 MB of float64 per array."""


@dataclass(frozen=True)
class Shape:
    """A C/W/L measure as the enumeration needs it: the places it reads (``depth``), the
    per-row formula (gains rows x depth -> value per row), and the words of a refusal: why
    no closed form helps (``why``), and what else to write besides one ordering
    (``instead``)."""

    depth: int
    rows: Callable[[np.ndarray], np.ndarray]
    why: str
    instead: str
    key: tuple


def rate_of_gain(continuation: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """cwl_eval's expected utility per row: W = P / sum P with P_i = prod_{j<i} C_j (the last
    place's C is never used), value = sum_i W_i g_i."""
    running = np.ones_like(gains)
    np.cumprod(continuation[:, :-1], axis=1, out=running[:, 1:])
    return (running * gains).sum(axis=1) / running.sum(axis=1)


def inst_rows(T: float) -> Callable[[np.ndarray], np.ndarray]:
    """INST(T) of each row of gains (1000 places): cwl_eval's ``INSTCWLMetric.c_vector``."""
    def rows(gains: np.ndarray) -> np.ndarray:
        place = np.arange(1, gains.shape[1] + 1, dtype=np.float64)  # cwl_eval's i + 1
        wanted = T - np.cumsum(gains, axis=1)                        # T_i = T - G_i
        continuation = ((place + T + wanted - 1.0) / (place + T + wanted)) ** 2
        return rate_of_gain(continuation, gains)
    return rows


def bpm_rows(T: float, K: int) -> Callable[[np.ndarray], np.ndarray]:
    """BPM(T)@K of each row of gains (the top min(K, 1000) places): cwl_eval's static
    ``BPMCWLMetric.c_vector``, unit costs (the cost of place i is i + 1)."""
    def rows(gains: np.ndarray) -> np.ndarray:
        cost = np.arange(1, gains.shape[1] + 1, dtype=np.float64)
        continuation = ((np.cumsum(gains, axis=1) < T) & (cost < K)).astype(np.float64)
        return rate_of_gain(continuation, gains)
    return rows


def INST_SHAPE(T: float) -> Shape:
    """The enumeration of INST(T): all 1000 places (every weight depends on the order)."""
    return Shape(CWL_DEPTH, inst_rows(T), "INST stops by the gain gathered so far and is a "
                 "ratio of sums over all 1000 places, so no closed form exists; ",
                 ", or use INSQ (exact at any size)", ("INST", T))


def BPM_SHAPE(T: float, K: int) -> Shape:
    """The enumeration of BPM(T)@K: the top min(K, 1000) places."""
    return Shape(min(K, CWL_DEPTH), bpm_rows(T, K), "",
                 ", or ask for a smaller cutoff", ("BPM", T, K))


def check_bounds(min_rel: float, max_rel: float, name: str) -> None:
    """max_rel above min_rel (ir_measures' cwl provider asserts it)."""
    if not max_rel > min_rel:
        raise ValueError(f"{name}: max_rel ({max_rel:g}) must be above min_rel ({min_rel:g}), "
                         f"e.g. max_rel=3 for grades 0..3")


def cwl_gains(table: TieTable, min_rel: float, max_rel: float, name: str) -> np.ndarray:
    """Each document's gain as ir_measures gives it to cwl_eval (in [0, 1])."""
    check_bounds(min_rel, max_rel, name)
    return scaled_gains(table.doc_grade, min_rel, max_rel)


# ---- INSQ: linear, closed form -------------------------------------------------------------
def insq_weights(T: float) -> np.ndarray:
    """INSQ(T)'s W_i, i = 0..999: (i + 2T)^-2 over its sum (P_i = (2T / (i + 2T))^2)."""
    weight = (np.arange(CWL_DEPTH, dtype=np.float64) + 2.0 * T) ** -2.0
    return weight / weight.sum()


def insq(table: TieTable, T: float, min_rel: float = 0.0, max_rel: float = 1.0,
         name: str = "INSQ") -> np.ndarray:
    """E[INSQ(T)] per query: each document of group g takes the group's mean gain at its
    place (the weights do not depend on the gains), places past 1000 weigh 0; on a resolved
    table, that ordering's value.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": ["a"], "score": [1.0]}))
    >>> table = build_tie_table(run, Qrels(pd.DataFrame({"query": "q", "doc": ["a"],
    ...                                                  "relevance": [1]})))
    >>> bool(insq(table, 1.0)[0] == insq_weights(1.0)[0])
    True
    """
    gains = cwl_gains(table, min_rel, max_rel, name)
    mean = (segment_sum(gains, table.group_start) / table.group_size)[table.doc_group]
    rank = table.doc_rank
    inside = rank <= CWL_DEPTH
    weight = np.where(inside, insq_weights(T)[np.minimum(rank, CWL_DEPTH) - 1], 0.0)
    return np.bincount(table.doc_query, weights=mean * weight, minlength=table.n_queries)


# ---- INST and BPM: the distinct gain sequences of each tie group -----------------------------
class _TooMany(Exception):
    """A group shape has more distinct sequences than :data:`MAX_ORDERINGS`, or more cells
    than :data:`MAX_SEQUENCE_CELLS`."""


def group_sequences(counts: np.ndarray, places: int, limit: int = MAX_ORDERINGS,
                    max_cells: int = MAX_SEQUENCE_CELLS) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct sequence of ``places`` levels a uniformly ordered group holding
    ``counts[d]`` documents of level d puts first (level indices, sequences x places, 2
    bytes a cell), and its log-probability.

    Built one place at a time: each partial sequence extends by every level it has left,
    with probability (documents of that level left) / (documents left); parents are kept per
    place and the sequences read back at the end (work and memory ~ sequences x places).
    Raises :class:`_TooMany` past ``limit`` sequences or ``max_cells`` cells (the count
    never falls from one place to the next, so the first place past it is where it is
    caught, before the cells are held).

    >>> seq, logp = group_sequences(np.array([2, 1]), 3)
    >>> seq.tolist(), np.exp(logp).round(4).tolist()
    ([[0, 0, 1], [0, 1, 0], [1, 0, 0]], [0.3333, 0.3333, 0.3333])
    """
    total = int(counts.sum())
    left = counts[None, :].astype(np.int64)
    logp = np.zeros(1)
    parents, levels = [], []
    for t in range(places):
        parent, level = np.nonzero(left > 0)
        if len(parent) > limit or len(parent) * places > max_cells:
            raise _TooMany
        logp = logp[parent] + np.log(left[parent, level]) - np.log(total - t)
        left = left[parent]
        left[np.arange(len(parent)), level] -= 1
        parents.append(parent.astype(np.int32))
        levels.append(level.astype(np.uint16))
    sequence = np.zeros((len(logp), places), dtype=np.uint16)
    row = np.arange(len(logp))
    for t in range(places - 1, -1, -1):  # read the sequences back from the last place
        sequence[:, t] = levels[t][row]
        row = parents[t][row]
    return sequence, logp


@dataclass
class _Groups:
    """The tie groups with more than one gain inside the depth, and their sequences."""

    group: np.ndarray      # group index in the table, in table order (so by query)
    count: np.ndarray      # distinct sequences of each
    places: np.ndarray     # places of each inside the depth
    seq_offset: np.ndarray  # where its shape's sequences start in ``sequences``
    logp_offset: np.ndarray  # where its shape's log-probabilities start in ``logp``
    value_offset: np.ndarray  # where its shape's gain of each level starts in ``values``
    sequences: np.ndarray   # level indices (uint16), shape after shape
    logp: np.ndarray
    values: np.ndarray      # each shape's gain of each level


def _random_groups(table: TieTable, gains: np.ndarray, depth: int, name: str,
                   shape: Shape) -> _Groups:
    """The groups whose order matters inside ``depth``, each with its shape's sequences
    (one enumeration per distinct shape: gains, counts, places)."""
    places = np.clip(depth - table.group_above, 0, table.group_size).astype(np.int64)
    low = np.minimum.reduceat(gains, table.group_start) if table.n_groups else gains[:0]
    high = np.maximum.reduceat(gains, table.group_start) if table.n_groups else gains[:0]
    random = np.flatnonzero((places > 0) & (low != high))
    empty = np.zeros(0, dtype=np.int64)
    if len(random) == 0:
        return _Groups(random, empty, empty, empty, empty, empty, np.zeros(0, dtype=np.uint16),
                       np.zeros(0), np.zeros(0))
    # the distinct (group, gain) pairs of those groups, and how many documents each
    member = np.repeat(np.isin(np.arange(table.n_groups), random), table.group_size)
    group, gain = table.doc_group[member], gains[member]
    order = np.lexsort((gain, group))
    group, gain = group[order], gain[order]
    first = np.flatnonzero(np.concatenate(([True], (group[1:] != group[:-1])
                                           | (gain[1:] != gain[:-1]))))
    level_group, level_gain = group[first], gain[first]
    level_count = np.diff(np.append(first, len(group)))
    owner = np.searchsorted(random, level_group)
    n_levels = np.bincount(owner, minlength=len(random))
    width = int(n_levels.max())
    slot = np.arange(len(owner)) - np.repeat(np.cumsum(n_levels) - n_levels, n_levels)
    layout = np.full((len(random), 1 + 2 * width), -1.0)  # places, gains, counts (pad -1)
    layout[:, 0] = places[random]
    layout[owner, 1 + slot] = level_gain
    layout[owner, 1 + width + slot] = level_count
    shapes, which = np.unique(layout, axis=0, return_inverse=True)
    which = which.ravel()
    counts, sequences, logps, values = [], [], [], []
    held = 0
    for s, row in enumerate(shapes):  # one enumeration per distinct shape
        used = row[1:1 + width] >= 0
        try:
            seq, logp = group_sequences(row[1 + width:][used].astype(np.int64), int(row[0]),
                                        max_cells=min(MAX_SEQUENCE_CELLS,
                                                      MAX_TOTAL_CELLS - held))
        except _TooMany:
            _refuse(table, random[int(np.flatnonzero(which == s)[0])], gains, depth, None,
                    name, shape)
        held += seq.size
        counts.append(len(logp))
        sequences.append(seq.ravel())
        logps.append(logp)
        values.append(row[1:1 + width][used])
    count = np.array(counts, dtype=np.int64)
    seq_start = np.cumsum([0] + [len(s) for s in sequences])[:-1]
    logp_start = np.cumsum(np.concatenate(([0], count)))[:-1]
    value_start = np.cumsum([0] + [len(v) for v in values])[:-1]
    return _Groups(random, count[which], places[random], seq_start[which], logp_start[which],
                   value_start[which], np.concatenate(sequences), np.concatenate(logps),
                   np.concatenate(values))


def _refuse(table: TieTable, g: int, gains: np.ndarray, depth: int, rows: float | None,
            name: str, shape: Shape) -> None:
    """The one message of a query too large to enumerate, naming it and group ``g``."""
    start, size, above = int(table.group_start[g]), int(table.group_size[g]), \
        int(table.group_above[g])
    values, counts = np.unique(gains[start:start + size], return_counts=True)
    held = ", ".join(f"{c} of gain {v:g}" for v, c in zip(values, counts))
    needs = (f"its distinct gain sequences alone are more than the {MAX_ORDERINGS:,} (or "
             f"{MAX_SEQUENCE_CELLS:,} sequence places)" if rows is None else
             f"its tie groups have {rows:,.0f} joint gain sequences, more than the "
             f"{MAX_ORDERINGS:,}")
    raise RemediedValueError(
        f"{name}: query {table.queries[table.group_query[g]]!r} has a tie group of {size} "
        f"documents at ranks {above + 1}..{above + size} ({held}) inside the {depth} places "
        f"{name} reads; {needs} its exact expectation enumerates; "
        f"{shape.why}", Remedy("ties", "trec_eval", "to score one ordering (trec_eval's)"),
        shape.instead)


def orderings_summary(table: TieTable, shape: Shape, name: str, min_rel: float = 0.0,
                      max_rel: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(expected, best, worst) per query of a C/W/L measure over the tie orderings (one
    ordering's value, three times, on a resolved table). Cached on the table per measure."""
    cache = table.__dict__.setdefault("_cwl_summaries", {})
    key = (shape.key, min_rel, max_rel)
    if key not in cache:
        cache[key] = _summary(table, shape, name, min_rel, max_rel)
    return cache[key]


def _summary(table: TieTable, shape: Shape, name: str, min_rel: float,
             max_rel: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    gains = cwl_gains(table, min_rel, max_rel, name)
    depth, n_queries = shape.depth, table.n_queries
    groups = _random_groups(table, gains, depth, name, shape)
    # each query's joint sequences: the product over its random groups (mixed radix)
    g_query = table.group_query[groups.group]
    log_count = np.log(groups.count.astype(np.float64))
    per_query = np.bincount(g_query, weights=log_count, minlength=n_queries)
    too_many = per_query > np.log(MAX_ORDERINGS) + 1e-9
    if too_many.any():
        q = int(np.flatnonzero(too_many)[0])
        mine = np.flatnonzero(g_query == q)
        _refuse(table, int(groups.group[mine[np.argmax(groups.count[mine])]]), gains, depth,
                float(np.exp(per_query[q])), name, shape)
    rows_of = np.rint(np.exp(per_query)).astype(np.int64)
    row_start = np.concatenate(([0], np.cumsum(rows_of)))
    first_group = np.ones(len(g_query), dtype=bool)
    first_group[1:] = g_query[1:] != g_query[:-1]
    stride = np.rint(np.exp(segment_cumsum(log_count, np.flatnonzero(first_group),
                                           exclusive=True))).astype(np.int64)
    g_start = np.searchsorted(g_query, np.arange(n_queries + 1))
    # the documents whose gain and place are fixed: groups of one gain, inside the depth
    fixed = ~np.isin(table.doc_group, groups.group) & (table.doc_rank <= depth)
    expected, best, worst = np.zeros(n_queries), np.full(n_queries, -np.inf), \
        np.full(n_queries, np.inf)
    chunk = max(1, _CHUNK_CELLS // depth)
    for r0 in range(0, int(row_start[-1]), chunk):  # bounded memory
        rows = np.arange(r0, min(r0 + chunk, int(row_start[-1])))
        query = np.searchsorted(row_start, rows, side="right") - 1
        q0, q1 = int(query[0]), int(query[-1]) + 1
        base = np.zeros((q1 - q0, depth))
        docs = slice(int(table.query_start[q0]), int(table.query_start[q1]))
        keep = fixed[docs]
        base[table.doc_query[docs][keep] - q0, table.doc_rank[docs][keep] - 1] = \
            gains[docs][keep]
        G = base[query - q0]
        # each row's sequence of each of its query's random groups
        n_random = g_start[query + 1] - g_start[query]
        pair_row = np.repeat(np.arange(len(rows)), n_random)
        pair = np.repeat(g_start[query], n_random) + np.arange(len(pair_row)) - \
            np.repeat(np.cumsum(n_random) - n_random, n_random)
        local = rows[pair_row] - row_start[query[pair_row]]
        index = (local // stride[pair]) % groups.count[pair]
        logp = np.bincount(pair_row, weights=groups.logp[groups.logp_offset[pair] + index],
                           minlength=len(rows))
        places = groups.places[pair]
        cell_pair = np.repeat(np.arange(len(pair)), places)
        t = np.arange(len(cell_pair)) - np.repeat(np.cumsum(places) - places, places)
        level = groups.sequences[groups.seq_offset[pair][cell_pair]
                                 + index[cell_pair] * places[cell_pair] + t]
        G[pair_row[cell_pair], table.group_above[groups.group[pair]][cell_pair] + t] = \
            groups.values[groups.value_offset[pair][cell_pair] + level]
        value = shape.rows(G)
        expected += np.bincount(query, weights=np.exp(logp) * value, minlength=n_queries)
        np.maximum.at(best, query, value)
        np.minimum.at(worst, query, value)
    return expected, best, worst


def inst(table: TieTable, T: float, min_rel: float = 0.0, max_rel: float = 1.0,
         name: str = "INST", extreme: bool | None = None) -> np.ndarray:
    """E[INST(T)] per query (``extreme``: True the best, False the worst ordering's)."""
    summary = orderings_summary(table, INST_SHAPE(T), name, min_rel, max_rel)
    return summary[0 if extreme is None else (1 if extreme else 2)]
