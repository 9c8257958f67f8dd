"""Subtopic (intent) judgements on the tie-group table, for the intent-aware measures.

Diversity qrels (:attr:`Qrels.subtopics <tiedrank.core.data.Qrels.subtopics>`) judge a
document once per subtopic. :func:`qrels_intents` turns them, once per qrels, into CSR
arrays over the qrels' (query, doc) pairs (the rows of ``Qrels.frame``): each pair's
subtopics and grades, subtopics numbered globally and contiguously per query (the table's
query order). :class:`TableIntents` adds, per table, which run rows are such pairs; it is
keyed by the run row (:attr:`TieTable.doc_row <tiedrank.core.ties.TieTable.doc_row>`), which
every view and resolved table keeps, so no view re-derives it.

The ideal ranking of the normalised measures is ndeval's greedy one (:meth:`QrelsIntents.ideal`):
at each rank the document whose relevant subtopics add the most (1 - alpha)^(documents
already placed relevant to the subtopic), ties to the larger docno (strcmp, as ndeval); one
step per rank for all queries at once.

Examples
--------
>>> import pandas as pd
>>> from tiedrank.io import read_qrels
>>> qrels = read_qrels(b"1 1 a 1\\n1 2 a 1\\n1 1 b 1\\n1 3 c 1\\n")
>>> intents = qrels_intents(qrels)
>>> intents.n_subtopics.tolist(), intents.actual_subtopics(1).tolist()
([3], [3])
>>> start, gain = intents.ideal(1, 0.5)
>>> gain.tolist()   # a (two fresh subtopics), c (one), b (subtopic 1 again)
[2.0, 1.0, 0.5]
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .data import Qrels

_SLOT = "_intents"  # where a Qrels keeps its QrelsIntents (derived data, computed once)
MAX_IDEAL_WORK = 1 << 28
"""Most (rank step x relevant judgement) terms the greedy ideal ranking may take (about 5 s
of one core, at 18 ns a term): beyond it the normalised measures are refused, naming the
query with the most relevant documents (the number of steps). A cutoff k bounds the steps
at k (the greedy's first k ranks are all alpha-nDCG@k and nERR-IA@k read)."""


@dataclass(frozen=True, eq=False)
class QrelsIntents:
    """The subtopic judgements of one qrels, as arrays (see the module docstring).

    ``pair_start`` (CSR over the pairs, the rows of ``Qrels.frame``) delimits each pair's
    ``entry_subtopic`` (global subtopic number) and ``entry_grade``; ``subtopic_query`` is
    each subtopic's query (index into the sorted query ids ``queries``), ``pair_query`` each
    pair's, and ``pair_doc_rank`` the rank of the pair's docno in byte order (ndeval's
    tie-break of the ideal ranking).
    """

    queries: np.ndarray
    pair_start: np.ndarray
    entry_subtopic: np.ndarray
    entry_grade: np.ndarray
    subtopic_query: np.ndarray
    pair_query: np.ndarray
    pair_doc_rank: np.ndarray
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def n_subtopics(self) -> np.ndarray:
        """Per query: the subtopics named in the qrels (with or without a relevant document)."""
        return np.bincount(self.subtopic_query, minlength=self.n_queries).astype(np.int64)

    def relevant(self, rel_level: int) -> tuple[np.ndarray, np.ndarray]:
        """``(start, subtopic)``: the CSR over pairs of the subtopics each pair is relevant
        to (grade >= ``rel_level``; ndeval's judgements are binary)."""
        key = ("relevant", rel_level)
        if key not in self.cache:
            keep = self.entry_grade >= rel_level
            running = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
            start = running[self.pair_start]  # kept entries before each pair's first
            self.cache[key] = (start, self.entry_subtopic[keep])
        return self.cache[key]

    def relevant_per_subtopic(self, rel_level: int) -> np.ndarray:
        """Per subtopic: the documents of the qrels relevant to it (ndeval's nrelSub)."""
        _, subtopic = self.relevant(rel_level)
        return np.bincount(subtopic, minlength=len(self.subtopic_query)).astype(np.int64)

    def actual_subtopics(self, rel_level: int) -> np.ndarray:
        """Per query: subtopics with a relevant document (ndeval's actualSubtopics, the
        number every intent-aware measure averages over; 0: every measure is 0)."""
        has = self.relevant_per_subtopic(rel_level) > 0
        return np.bincount(self.subtopic_query[has], minlength=self.n_queries).astype(np.int64)

    def ideal(self, rel_level: int, alpha: float, depth: int | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
        """ndeval's greedy ideal ranking: ``(start, gain)``, CSR over the queries of the
        gain sum_s (1 - alpha)^(c_s) of the document at each ideal rank (the documents
        relevant to some subtopic; the rest add nothing at any rank), its first ``depth``
        ranks only when a depth is given (a greedy's prefix is the same whatever its length).

        One step per rank, vectorised over the queries: each step scores every document
        not yet placed, takes per query the largest score, ties to the largest docno.
        """
        key = ("ideal", rel_level, float(alpha), depth)
        if key not in self.cache:
            self.cache[key] = self._greedy(rel_level, float(alpha), depth)
        return self.cache[key]

    def _greedy(self, rel_level: int, alpha: float, depth: int | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        start, subtopic = self.relevant(rel_level)
        size = np.diff(start)
        candidate = np.flatnonzero(size > 0)  # pairs relevant to a subtopic
        # candidates by query, then by docno byte rank (the tie-break)
        candidate = candidate[np.lexsort((self.pair_doc_rank[candidate],
                                          self.pair_query[candidate]))]
        n = len(candidate)
        query = self.pair_query[candidate]
        doc_rank = self.pair_doc_rank[candidate].astype(np.int64)
        entry_owner = np.repeat(np.arange(n), size[candidate])
        entry_subtopic = subtopic[_ranges(start, candidate)]
        counts = np.zeros(len(self.subtopic_query), dtype=np.int64)
        placed = np.zeros(n, dtype=bool)
        per_query = np.bincount(query, minlength=self.n_queries)
        q_start = np.zeros(self.n_queries + 1, dtype=np.int64)
        np.cumsum(per_query, out=q_start[1:])
        nonempty = np.flatnonzero(per_query > 0)
        steps_query, steps_gain = [], []
        most = int(per_query.max()) if n else 0
        steps = most if depth is None else min(most, int(depth))
        if steps * len(entry_subtopic) > MAX_IDEAL_WORK:
            largest = self.queries[int(np.argmax(per_query))]
            raise ValueError(
                f"ndeval's greedy ideal ranking of these qrels takes one step per rank over "
                f"every relevant judgement: {steps:,} steps (query {largest!r} has {most:,} "
                f"documents relevant to a subtopic) x {len(entry_subtopic):,} judgements, "
                f"more than the {MAX_IDEAL_WORK:,} terms (about 5 s) tiedrank bounds it at; "
                "a cutoff bounds the steps (alpha_nDCG@20, nERR_IA@20), and the "
                "unnormalised measures (alpha_DCG@k, ERR_IA@k, NRBP, P_IA@k, AP_IA, "
                "StRecall@k) need no ideal ranking")
        powers = novelty_powers(1.0 - alpha, steps)
        for _ in range(steps):  # one step per ideal rank
            # sums each document's gains in subtopic order, as ndeval adds them
            gain = powers[counts[entry_subtopic]]
            score = np.bincount(entry_owner, weights=gain, minlength=n)
            score[placed] = -1.0
            best = np.maximum.reduceat(score, q_start[nonempty])
            active = best >= 0
            top = np.full(self.n_queries, -2.0)
            top[nonempty] = best
            tied = score == top[query]
            rank = np.where(tied, doc_rank, -1)
            best_rank = np.full(self.n_queries, -2, dtype=np.int64)
            best_rank[nonempty] = np.maximum.reduceat(rank, q_start[nonempty])
            chosen = tied & (doc_rank == best_rank[query]) & ~placed
            placed |= chosen
            np.add.at(counts, entry_subtopic[chosen[entry_owner]], 1)
            steps_query.append(nonempty[active])
            steps_gain.append(best[active])
        q = np.concatenate(steps_query) if steps_query else np.zeros(0, np.int64)
        g = np.concatenate(steps_gain) if steps_gain else np.zeros(0)
        order = np.argsort(q, kind="stable")  # by query, ranks in step order
        ideal_start = np.zeros(self.n_queries + 1, dtype=np.int64)
        np.cumsum(np.bincount(q, minlength=self.n_queries), out=ideal_start[1:])
        return ideal_start, g[order]


def novelty_powers(decay: float, top: int) -> np.ndarray:
    """``decay^c`` for c = 0..top, each the previous times ``decay``: ndeval's
    ``subtopicGain *= (1 - alpha)``, bit for bit (a power function may round otherwise, and
    the greedy ideal compares sums of these for equality).

    >>> novelty_powers(0.5, 3).tolist()
    [1.0, 0.5, 0.25, 0.125]
    """
    return np.cumprod(np.concatenate(([1.0], np.full(max(int(top), 0), float(decay)))))


def _ranges(start: np.ndarray, items: np.ndarray) -> np.ndarray:
    """The positions ``start[i]:start[i + 1]`` of each of ``items``, concatenated."""
    lengths = start[items + 1] - start[items]
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(start[items] - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return np.arange(total, dtype=np.int64) + offsets


def _subtopic_sort_key(ids: pd.Series) -> pd.Series:
    """Subtopics in number order when every id is a number (ndeval's ids), text otherwise."""
    numeric = pd.to_numeric(ids, errors="coerce")
    return numeric if not numeric.isna().any() else ids


def qrels_intents(qrels: Qrels) -> QrelsIntents:
    """The :class:`QrelsIntents` of diversity ``qrels`` (computed once, kept on them)."""
    cached = qrels.__dict__.get(_SLOT)
    if cached is not None:
        return cached
    if qrels.subtopics is None:
        raise ValueError("these qrels judge each document once, without subtopics")
    frame, sub = qrels.frame, qrels.subtopics
    queries = np.unique(frame["query"].to_numpy(dtype=object)).astype(object)
    pair_query = pd.Index(queries).get_indexer(frame["query"]).astype(np.int64)
    pairs = pd.MultiIndex.from_arrays([frame["query"].astype(str), frame["doc"].astype(str)])
    entry_pair = pairs.get_indexer(pd.MultiIndex.from_arrays(
        [sub["query"].astype(str), sub["doc"].astype(str)])).astype(np.int64)
    if (entry_pair < 0).any():  # a Qrels made by hand: its two frames must agree
        row = sub.iloc[int(np.flatnonzero(entry_pair < 0)[0])]
        raise ValueError(f"Qrels.subtopics judges document {row['doc']!r} for query "
                         f"{row['query']!r}, which Qrels.frame lacks; build both with "
                         "tiedrank.io.subtopics.qrels_from_subtopics(subtopics, source)")
    entry_query = pair_query[entry_pair]
    # subtopics numbered by (query, subtopic id): contiguous per query, in id order
    sub_key = pd.DataFrame({"q": entry_query, "s": _subtopic_sort_key(sub["subtopic"]),
                            "id": sub["subtopic"].astype(str).to_numpy()})
    distinct = sub_key.drop_duplicates(["q", "id"]).sort_values(["q", "s", "id"], kind="stable")
    number = pd.Series(np.arange(len(distinct)), index=pd.MultiIndex.from_arrays(
        [distinct["q"], distinct["id"]]))
    entry_subtopic = number.reindex(pd.MultiIndex.from_arrays(
        [sub_key["q"], sub_key["id"]])).to_numpy().astype(np.int64)
    order = np.lexsort((entry_subtopic, entry_pair))
    pair_start = np.zeros(len(frame) + 1, dtype=np.int64)
    np.cumsum(np.bincount(entry_pair, minlength=len(frame)), out=pair_start[1:])
    doc_bytes = pa.array(frame["doc"].astype(str).to_numpy(dtype=object), type=pa.string())
    ascending = pc.sort_indices(doc_bytes).to_numpy()  # byte order, as strcmp
    doc_rank = np.empty(len(frame), dtype=np.int64)
    doc_rank[ascending] = np.arange(len(frame))
    intents = QrelsIntents(
        queries=queries, pair_start=pair_start, entry_subtopic=entry_subtopic[order],
        entry_grade=sub["relevance"].to_numpy(dtype=np.int64)[order],
        subtopic_query=distinct["q"].to_numpy(dtype=np.int64), pair_query=pair_query,
        pair_doc_rank=doc_rank)
    qrels.__dict__[_SLOT] = intents
    return intents


@dataclass(frozen=True, eq=False)
class TableIntents:
    """One run's view of its qrels' subtopics: which run rows are judged pairs.

    ``rows`` (ascending) are the run rows judged for some subtopic and ``row_pair`` their
    pair (row of ``Qrels.frame``); ``qrels`` the shared :class:`QrelsIntents`.
    """

    qrels: QrelsIntents
    rows: np.ndarray
    row_pair: np.ndarray

    def entries(self, doc_row: np.ndarray, rel_level: int) -> tuple[np.ndarray, np.ndarray]:
        """``(position, subtopic)``: for the documents at run rows ``doc_row`` (a table's
        doc arrays), each (document position, subtopic it is relevant to), by position."""
        start, subtopic = self.qrels.relevant(rel_level)
        slot = np.searchsorted(self.rows, doc_row)
        slot = np.minimum(slot, max(len(self.rows) - 1, 0))
        found = (self.rows[slot] == doc_row) if len(self.rows) else np.zeros(len(doc_row), bool)
        positions = np.flatnonzero(found)
        pair = self.row_pair[slot[found]]
        lengths = start[pair + 1] - start[pair]
        return np.repeat(positions, lengths), subtopic[_ranges(start, pair)]


def table_intents(qrels: Qrels, judged_rows: np.ndarray, judged_pairs: np.ndarray
                  ) -> TableIntents | None:
    """The :class:`TableIntents` of a run whose rows ``judged_rows`` are the qrels pairs
    ``judged_pairs`` (rows of ``qrels.frame``); None for qrels without subtopics."""
    if qrels.subtopics is None:
        return None
    order = np.argsort(judged_rows, kind="stable")
    return TableIntents(qrels_intents(qrels), judged_rows[order].astype(np.int64),
                        judged_pairs[order].astype(np.int64))
