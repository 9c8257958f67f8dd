"""Intent-aware (diversity) measures as ndeval computes them, tie-aware: alpha-DCG,
alpha-nDCG, ERR-IA, nERR-IA, NRBP, nNRBP, P-IA, MAP-IA and subtopic recall.

Every one of them is a sum over the (document, subtopic) pairs a ranking holds, each pair
weighted by a function of how many documents relevant to the same subtopic rank above it
(``c``) and discounted by its rank ``r``:

    value = sum over ranks r, subtopics s the document at r is relevant to:  w_s(c_s(r)) d(r)

alpha-DCG: ``w = (1 - alpha)^c``, ``d = 1 / log2(r + 1)``; ERR-IA: the same ``w``, ``d = 1/r``;
NRBP: ``d = beta^(r - 1)``; MAP-IA: ``w = (c + 1) / R_s``, ``d = 1/r``; P-IA@k:
``w = 1``, ``d = [r <= k]``; subtopic recall@k: ``w = [c = 0]``, ``d = [r <= k]`` (each
then scaled as ndeval scales it, :func:`scaled`).

Over the tie orderings (uniform, independent per group) the count from the groups above a
group, ``C``, is fixed; inside a group of ``n`` documents ``m`` of which are relevant to
``s``, the i-th of those ``m`` (0-based) stands at offset ``j`` with probability
``C(j, i) C(n-1-j, m-1-i) / C(n, m)`` and sees ``C + i`` above it, so the pair (group,
subtopic) adds exactly

    sum_{i < m} w_s(C + i) sum_j d(a + 1 + j) C(j, i) C(n-1-j, m-1-i) / C(n, m)

(``a`` documents above the group). :func:`expected_sum` evaluates it for every pair at
once, on a flat grid of (pair, i, j) cells (bounded in memory: cut in slices); on a
resolved table every group is one document, and the same sum is the value of that ordering.
The best and worst orders are in :mod:`tiedrank.metrics.intent_extremes`; the closed forms
and ndeval's scalings are in docs/metrics-reference.md ("Intent-aware measures").
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.errors import Remedy, RemediedValueError
from ..core.intents import TableIntents, novelty_powers
from ..core.segments import segment_cumsum
from ..core.ties import TieTable

Weight = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``weight(subtopic, count) -> w_s(c)``, elementwise."""
Discount = Callable[[np.ndarray], np.ndarray]
"""``discount(rank) -> d(r)``, elementwise, ranks 1-based."""

_CELLS = 1 << 22  # (pair, i, j) cells per slice: ~100 MB of temporaries at most
MAX_CELLS = 1 << 25
"""Most (pair, i, j) cells one expectation sums (about 6 s of one core: 190 ns a cell
measured, 2.4 s for 12.9 million; 2^29, the bound before issue 43, was about 100 s): a
larger sum is refused, naming the query and group that need the most (every cell is needed
for an exact value; a cutoff bounds them)."""

NEEDS_SUBTOPICS = ("needs diversity qrels, ndeval's 'query subtopic docno grade' lines (a "
                   "document judged once per subtopic); these qrels carry no subtopics. A "
                   "TREC qrels file is read as diversity qrels when a document is "
                   "judged under two subtopics of a query, and in any case with "
                   "read_qrels(path, subtopics=True) in Python, --subtopics on the CLI)")


def table_intents(table: TieTable, name: str) -> TableIntents:
    """The table's subtopic judgements, or the one error saying what the measure needs."""
    if table.intents is None:
        raise ValueError(f"{name} {NEEDS_SUBTOPICS}")
    return table.intents


@dataclass(frozen=True)
class Pairs:
    """One row per (tie group, subtopic) with a document of the group relevant to it:
    ``query``, ``group``, ``subtopic``, ``m`` (such documents in the group), ``above``
    (``C``: such documents in the groups above), ``size`` (``n``) and ``start`` (``a``,
    documents above the group). Rows by subtopic, then group (rank order)."""

    query: np.ndarray
    group: np.ndarray
    subtopic: np.ndarray
    m: np.ndarray
    above: np.ndarray
    size: np.ndarray
    start: np.ndarray


def group_pairs(table: TieTable, name: str) -> Pairs:
    """The :class:`Pairs` of ``table`` (any view; resolved: one document per group)."""
    intents = table_intents(table, name)
    position, subtopic = intents.entries(table.doc_row, table.rel_level)
    groups = max(table.n_groups, 1)
    key = subtopic.astype(np.int64) * groups + table.doc_group[position]
    unique, m = np.unique(key, return_counts=True)
    subtopic, group = unique // groups, unique % groups
    first = np.ones(len(unique), dtype=bool)
    first[1:] = subtopic[1:] != subtopic[:-1]
    above = (segment_cumsum(m, np.flatnonzero(first), exclusive=True) if len(unique)
             else np.zeros(0, dtype=np.int64))
    return Pairs(table.group_query[group], group, subtopic, m.astype(np.int64),
                 above.astype(np.int64), table.group_size[group], table.group_above[group])


def _log_factorials(top: int) -> np.ndarray:
    from scipy.special import gammaln  # scipy only when these measures run

    return gammaln(np.arange(top + 2, dtype=np.float64) + 1.0)


def _ragged(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(owner, offset)``: for rows with ``lengths``, each cell's row and place in it."""
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    return owner, np.arange(total, dtype=np.int64) - starts[owner]


def expected_sum(pairs: Pairs, weight: Weight, discount: Discount, depth: int | None,
                 table: TieTable, name: str) -> np.ndarray:
    """Per query of ``table``: the exact expectation over the tie orderings of
    ``sum w_s(c_s(r)) d(r)`` (see the module docstring), ranks beyond ``depth`` adding 0."""
    n_queries = table.n_queries
    out = np.zeros(n_queries)
    keep = pairs.start < depth if depth is not None else np.ones(len(pairs.m), dtype=bool)
    n, m, a = pairs.size[keep], pairs.m[keep], pairs.start[keep]
    above, subtopic, query = pairs.above[keep], pairs.subtopic[keep], pairs.query[keep]
    if len(n) == 0:
        return out
    if np.all(n == 1):  # a resolved table: one ordering
        np.add.at(out, query, weight(subtopic, above) * discount(a + 1))
        return out
    last = n - 1 if depth is None else np.minimum(n - 1, depth - 1 - a)  # last offset read
    rows_per_pair = np.minimum(m, last + 1)  # the i-th relevant one stands at offset >= i
    pair, i = _ragged(rows_per_pair)
    cells = np.minimum(i + (n - m)[pair], last[pair]) - i + 1  # offsets j = i .. that
    log_fact = _log_factorials(int(n.max()))
    ends = np.cumsum(cells)
    if int(ends[-1]) > MAX_CELLS:
        _refuse(table, name, pairs.group[keep], pair, cells, int(ends[-1]))
    cuts = np.searchsorted(ends, np.arange(_CELLS, int(ends[-1]), _CELLS), side="right")
    for lo, hi in zip(np.concatenate(([0], cuts)), np.concatenate((cuts, [len(cells)]))):
        if hi <= lo:
            continue
        row, step = _ragged(cells[lo:hi])
        row += lo
        p, ii = pair[row], i[row]
        j = ii + step
        nn, mm = n[p], m[p]
        log_p = (log_fact[j] - log_fact[ii] - log_fact[j - ii]
                 + log_fact[nn - 1 - j] - log_fact[mm - 1 - ii] - log_fact[nn - mm - j + ii]
                 - (log_fact[nn] - log_fact[mm] - log_fact[nn - mm]))
        value = weight(subtopic[p], above[p] + ii) * discount(a[p] + 1 + j) * np.exp(log_p)
        out += np.bincount(query[p], weights=value, minlength=n_queries)
    return out


def _refuse(table: TieTable, name: str, group: np.ndarray, pair: np.ndarray, cells: np.ndarray,
            total: int) -> None:
    per_group = np.bincount(group[pair], weights=cells.astype(np.float64))
    worst = int(np.argmax(per_group))
    first = int(table.group_above[worst]) + 1
    raise RemediedValueError(
        f"{name}: the exact expectation needs {total:,} terms, more than the "
        f"{MAX_CELLS:,} tiedrank sums in one evaluation; the largest share, "
        f"{int(per_group[worst]):,}, is the tie group of query "
        f"{table.queries[table.group_query[worst]]!r} at ranks "
        f"{first}-{first + int(table.group_size[worst]) - 1}. A cutoff "
        "bounds the terms (alpha_nDCG@k, ERR_IA@k, ...), as do fewer tied documents; or ",
        Remedy("ties", "trec_eval", "to score it on one ordering (trec_eval's)"))


# ---- the measures' weights, discounts and scalings ------------------------------------------
def novelty_weight(alpha: float) -> Weight:
    """alpha-DCG's, ERR-IA's and NRBP's ``w_s(c) = (1 - alpha)^c``, by repeated products as
    ndeval computes it (:func:`~tiedrank.core.intents.novelty_powers`)."""
    def weight(subtopic: np.ndarray, count: np.ndarray) -> np.ndarray:
        top = int(count.max()) if len(count) else 0
        return novelty_powers(1.0 - alpha, top)[count]

    return weight


def log_discount(rank: np.ndarray) -> np.ndarray:
    """ndeval's DCG discount ``log(2) / log(r + 1)``."""
    return np.log(2.0) / np.log(rank + 1.0)


def reciprocal_discount(rank: np.ndarray) -> np.ndarray:
    return 1.0 / rank


def patience_discount(beta: float) -> Discount:
    return lambda rank: beta ** (rank - 1.0)


def step_discount(rank: np.ndarray) -> np.ndarray:
    return np.ones(len(rank))


def first_weight(subtopic: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Subtopic recall's ``w_s(c) = [c = 0]``: the first document relevant to s counts."""
    return (count == 0).astype(np.float64)


def unit_weight(subtopic: np.ndarray, count: np.ndarray) -> np.ndarray:
    return np.ones(len(count))


def precision_weight(relevant: np.ndarray) -> Weight:
    """MAP-IA's ``w_s(c) = (c + 1) / R_s`` (R_s: the qrels' documents relevant to s)."""
    return lambda subtopic, count: (count + 1.0) / relevant[subtopic]


@dataclass(frozen=True)
class Shape:
    """One intent-aware measure: its weight and discount, the depth its sum reads, and
    how ndeval scales the sum (``scale``: ``"ideal_ideal"``, ``"ideal"``, ``"nrbp"``,
    ``"nnrbp"``, ``"subtopics"`` or ``"precision"``)."""

    weight: Weight
    discount: Discount
    depth: int | None
    scale: str
    alpha: float = 0.5
    beta: float = 0.5


def shape(family: str, table: TieTable, k: int | None, alpha: float | None,
          beta: float | None) -> Shape:
    """The :class:`Shape` of ``family`` (a registry name) at cutoff ``k``."""
    alpha = 0.5 if alpha is None else alpha
    beta = 0.5 if beta is None else beta
    novelty = novelty_weight(alpha)
    if family in ("alpha_DCG", "alpha_nDCG"):
        return Shape(novelty, log_discount, k, "ideal" if family == "alpha_nDCG"
                     else "ideal_ideal", alpha)
    if family in ("ERR_IA", "nERR_IA"):
        return Shape(novelty, reciprocal_discount, k, "ideal" if family == "nERR_IA"
                     else "ideal_ideal", alpha)
    if family in ("NRBP", "nNRBP"):
        return Shape(novelty, patience_discount(beta), None, family.lower(), alpha, beta)
    if family == "P_IA":
        return Shape(unit_weight, step_discount, k, "precision")
    if family == "StRecall":
        return Shape(first_weight, step_discount, k, "subtopics")
    if family == "AP_IA":
        relevant = table_intents(table, family).qrels.relevant_per_subtopic(table.rel_level)
        return Shape(precision_weight(relevant), reciprocal_discount, None, "subtopics")
    raise ValueError(f"unknown intent-aware measure {family!r}")


def scaled(table: TieTable, form: Shape, total: np.ndarray) -> np.ndarray:
    """ndeval's value of a per-query ``total`` (the weighted, discounted sum).

    ``ideal_ideal`` (alpha-DCG, ERR-IA; "collection-independent"): over ``S sum_{r <= k}
    (1 - alpha)^(r-1) d(r)``, the value of a ranking whose every document covers every
    subtopic, S = subtopics with a relevant document; at ``k = 1`` ndeval leaves the sum
    as it is (its loop starts at the second rank). ``ideal`` (alpha-nDCG, nERR-IA): over the
    same sum for ndeval's greedy ideal ranking (0 where the sum is 0). ``nrbp``: times
    ``(1 - (1 - alpha) beta) / S``; ``nnrbp``: over the ideal ranking's NRBP (every rank).
    ``subtopics`` (subtopic recall, MAP-IA): over S; ``precision`` (P-IA): over ``k S``.
    A query without a relevant subtopic (S = 0) scores 0.
    """
    intents = table_intents(table, "")
    S = intents.qrels.actual_subtopics(table.rel_level).astype(np.float64)
    out = np.zeros(len(total))
    has = S > 0
    if form.scale in ("ideal_ideal", "nrbp", "subtopics", "precision"):
        if form.scale == "ideal_ideal":
            if form.depth == 1:
                return np.where(has, total, 0.0)
            ranks = np.arange(1, form.depth + 1, dtype=np.float64)
            denominator = S * np.sum((1.0 - form.alpha) ** (ranks - 1) * form.discount(ranks))
        elif form.scale == "nrbp":  # ndeval multiplies: 0 (not a division by 0) at alpha=0, beta=1
            out[has] = total[has] * (1.0 - (1.0 - form.alpha) * form.beta) / S[has]
            return out
        elif form.scale == "precision":
            denominator = S * form.depth
        else:
            denominator = S
        out[has] = total[has] / denominator[has]
        return out
    start, gain = intents.qrels.ideal(table.rel_level, form.alpha, form.depth)
    rank = np.arange(len(gain)) - np.repeat(start[:-1], np.diff(start)) + 1
    reach = np.ones(len(gain), dtype=bool) if form.depth is None else rank <= form.depth
    query = np.repeat(np.arange(len(start) - 1), np.diff(start))
    ideal = np.bincount(query[reach], weights=gain[reach] * form.discount(rank[reach]),
                        minlength=len(total))
    positive = has & (total != 0) & (ideal > 0)
    out[positive] = total[positive] / ideal[positive]
    return out


def intent_values(table: TieTable, family: str, k: int | None = None,
                  alpha: float | None = None, beta: float | None = None) -> np.ndarray:
    """Per query: the exact expectation over the tie orderings of the intent-aware measure
    ``family`` on ``table`` (on a resolved table, its one ordering's value, as ndeval
    computes it).

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> from tiedrank.io import read_qrels
    >>> qrels = read_qrels(b"1 1 a 1\\n1 2 a 1\\n1 1 b 1\\n1 2 c 1\\n")
    >>> run = Run("r", pd.DataFrame({"query": "1", "doc": list("abc"), "score": [1.0] * 3}))
    >>> table = build_tie_table(run, qrels)
    >>> float(intent_values(table, "StRecall", 1)[0])  # a covers both subtopics 1 time in 3
    0.6666666666666667
    >>> float(intent_values(table.resolve("trec_eval"), "StRecall", 1)[0])  # c first
    0.5
    """
    form = shape(family, table, k, alpha, beta)
    total = expected_sum(group_pairs(table, family), form.weight, form.discount, form.depth,
                         table, family)
    return scaled(table, form, total)
