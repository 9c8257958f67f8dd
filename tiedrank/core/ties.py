"""The tie-group table: the single input of every metric kernel.

A run is sorted once by (query, score descending). Documents with exactly equal float64
scores inside a query form a *tie group*. The table keeps three aligned levels:

Per query (``Q`` queries: the qrels' queries, sorted by id)
    ``queries``        query ids (object array of str)
    ``n_relevant``     R: documents in the qrels with grade >= ``rel_level`` (retrieved or not)
    ``n_retrieved``    documents the run returns for the query (0 if the run misses it)
    ``query_start``    CSR offsets (length Q + 1) of each query's documents in the doc arrays
    ``ideal_start``, ``ideal_grade``  CSR of the query's judged grades sorted descending (IDCG
                       clips them at 0; a negative grade, "in the pool but unjudged", is
                       kept, so that bpref can count the judged non-relevant documents)

Per tie group (``G`` groups, in ranked order)
    ``group_query``    query index of the group
    ``group_start``    index of the group's first document in the doc arrays
    ``group_size``     n_g
    ``group_above``    a_g: documents of the same query strictly above the group (stored in
                       a compact view, so that it keeps true ranks, see
                       :meth:`TieTable.scoring`; a table of every document may be given
                       None, and derives it on first use)
    ``group_relevant`` k_g: relevant documents (grade >= rel_level) in the group
    ``relevant_above`` K_{g-1}: relevant documents of the same query above the group

Per document (``N`` retrieved documents, sorted by query then score descending; inside a
group the order is the file order, or the policy's order after :meth:`TieTable.resolve`)
    ``doc_score``, ``doc_grade`` (0 for unjudged), ``doc_judged``, ``doc_row`` (row in the
    run's frame, so ids are looked up lazily and never copied; int32 for runs of fewer than
    2**31 rows), ``doc_rank`` (1-based rank)

A *resolved* table (``policy != "expected"``) has one group per document; the same kernels
then return the metric of that single ordering, which is how every tie policy shares one
implementation.

Examples
--------
>>> import pandas as pd
>>> from tiedrank.core.data import Run, Qrels
>>> run = Run("r", pd.DataFrame({"query": ["q"] * 4, "doc": list("abcd"),
...                              "score": [0.9, 0.5, 0.5, 0.1]}))
>>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["c"], "relevance": [1]}))
>>> table = build_tie_table(run, qrels)
>>> table.group_size.tolist(), table.group_relevant.tolist()
([1, 2, 1], [0, 1, 0])
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .data import Qrels, Run
from .errors import Finding
from .hashing import hash_ids, mix, seed_word
from .first_use import MadeOnFirstUse
from .intents import table_intents
from .joins import as_arrow_strings, byte_order, join_grades as _join_grades, narrow_offsets, \
    place_grades, qrels_side as _qrels_side, ranking_order as _ranking_order, \
    run_query_codes as _run_query_codes, take_rows
from .machine import release_arrow_memory, release_unused_memory
from .policies import POLICIES, canonical_policy
from .rounding import round_scores
from .segments import segment_count, segment_cumsum, segment_sum
from .truncation import truncate_run  # noqa: F401  (also tiedrank.core.ties.truncate_run)

if TYPE_CHECKING:  # pragma: no cover
    from .options import EvaluationOptions
    from .intents import TableIntents


_MAX_LISTED = 20  # query ids listed in a Finding; the count is always complete
_ITSELF = object()
"""Cached as a table's scoring view when the table is its own: a table that referred to
itself would be a reference cycle, freed only when the garbage collector next runs (one
such table per tie policy kept each bucket's run in memory: 2.2 GB on 50M rows)."""


@dataclass(frozen=True, eq=False)
class TieTable:
    """Tie groups of one run against one set of qrels (see the module docstring)."""

    run_name: str
    rel_level: int
    policy: str
    queries: np.ndarray
    n_relevant: np.ndarray
    n_retrieved: np.ndarray
    query_start: np.ndarray
    ideal_start: np.ndarray
    ideal_grade: np.ndarray
    group_query: np.ndarray
    group_start: np.ndarray
    group_size: np.ndarray
    # a table of every document (the build's) is given None and derives it on first use:
    # 37 MB on 7M lines that the compact views never need (they take their groups' values
    # with above_of)
    group_above: np.ndarray = MadeOnFirstUse(  # type: ignore[assignment]
        lambda table, stored: table.above_of(slice(None)))
    doc_score: np.ndarray
    doc_grade: np.ndarray
    doc_judged: np.ndarray
    doc_row: np.ndarray
    run_docs: pa.Array = field(repr=False)
    findings: tuple[Finding, ...] = ()
    in_run: np.ndarray | None = None
    """Per query: the run returned at least one document for it (before ``judged_only``);
    None means every query with a retrieved document."""
    judged_only: bool = False
    complete: bool = False
    query_set: str = "trec_eval"
    intents: "TableIntents | None" = field(default=None, repr=False)
    """Diversity qrels' subtopic judgements, keyed by run row (:mod:`tiedrank.core.intents`),
    for the intent-aware measures; None for qrels without subtopics."""

    # ---- the query set ----------------------------------------------------------------
    @cached_property
    def evaluated(self) -> np.ndarray:
        """Per query: whether it counts in the run's mean (see :mod:`tiedrank.core.options`).

        trec_eval's set by default: the qrels queries the run answers, with or without a
        relevant document; ``complete`` adds the ones it misses (scoring 0);
        ``query_set="relevant"`` keeps only queries with a relevant document.
        """
        answered = self.n_retrieved > 0 if self.in_run is None else self.in_run
        mask = np.ones(self.n_queries, dtype=bool) if self.complete else answered.copy()
        if self.query_set == "relevant":
            mask &= self.n_relevant > 0
        return mask

    def view(self, rel_level: int | None = None, judged_only: bool | None = None) -> "TieTable":
        """This table at another relevance level, or with only judged documents (-J).

        Derived without re-reading or re-sorting the run: R comes from the qrels grades the
        table keeps, and dropping unjudged documents keeps every group's order (trec_eval
        drops them after ranking too). A judged-only table goes back to all documents only
        if it was derived from one. Views are cached on the table they were derived from
        (see :meth:`drop_views`).
        """
        level = self.rel_level if rel_level is None else int(rel_level)
        judged = self.judged_only if judged_only is None else bool(judged_only)
        if (level, judged) == (self.rel_level, self.judged_only):
            return self
        base = self.__dict__.get("_base", self)
        if (level, judged) == (base.rel_level, base.judged_only):
            return base  # cached nowhere: a table naming itself would be a reference cycle
        # one attribute per view (not a dict), so the dashboard's read-only wrapper keeps
        # the cached table as it is
        views, slot = base.__dict__, f"_view_{level}_{int(judged)}"
        if slot not in views:
            if base.judged_only and not judged:
                raise ValueError("a judged-only table has no unjudged documents to restore; "
                                 "build the table with judged_only=False")
            table = base._judged_view() if judged and not base.judged_only else base
            if level != table.rel_level:
                table = replace(table, rel_level=level,
                                n_relevant=segment_count(table.ideal_grade >= level,
                                                          table.ideal_start),
                                group_above=table.__dict__["_group_above"])  # not derived
            table.__dict__["_base"] = base
            views[slot] = table
        return views[slot]

    def drop_views(self) -> None:
        """Forget the views cached on this table's base (they are derived again when asked).

        A view keeps its base (it may need its documents back) and the base caches the
        view, so the two refer to each other: a reference cycle, which Python frees only
        when its garbage collector next runs, not when the last name of them goes. A caller
        done with a table, as each bucket task of :mod:`tiedrank.distributed` is, calls
        this so the whole table is freed at once (else every bucket of a ``judged_only``
        evaluation stayed in memory until a collection). The table and its views stay
        usable.

        Examples
        --------
        >>> run = Run("r", pd.DataFrame({"query": ["q"] * 2, "doc": ["a", "b"],
        ...                              "score": [1.0, 1.0]}))
        >>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["a"], "relevance": [2]}))
        >>> judged = build_tie_table(run, qrels).view(judged_only=True)
        >>> judged.drop_views()
        >>> judged.view(judged_only=False).n_retrieved.tolist()
        [2]
        """
        base = self.__dict__.get("_base", self)
        for slot in [key for key in base.__dict__ if key.startswith("_view_")]:
            del base.__dict__[slot]

    def _judged_view(self) -> "TieTable":
        """The table without its unjudged documents (groups that empty out disappear)."""
        if self.policy != "expected":
            raise ValueError("views are taken of the expected table")
        # trec_eval -J keeps the documents judged with a grade >= 0: a negative grade means
        # "in the pool but not judged" (form_res_rels.c; pytrec_eval agrees)
        keep = np.flatnonzero(self.doc_judged & (self.doc_grade >= 0))
        # the groups of those few documents, from their positions (a per-group sum over
        # every document cost 0.14 s on 7M lines)
        groups, size = np.unique(np.searchsorted(self.group_start, keep, side="right") - 1,
                                 return_counts=True)
        size, group_query = size.astype(np.int64), self.group_query[groups]
        n_retrieved = np.bincount(group_query, weights=size,
                                  minlength=self.n_queries).astype(np.int64)
        query_start = np.zeros(self.n_queries + 1, dtype=np.int64)
        np.cumsum(n_retrieved, out=query_start[1:])
        group_start = (np.cumsum(size) - size).astype(np.int64)
        return replace(
            self, judged_only=True, n_retrieved=n_retrieved, query_start=query_start,
            group_query=group_query, group_start=group_start, group_size=size,
            group_above=group_start - query_start[group_query],
            doc_score=self.doc_score[keep], doc_grade=self.doc_grade[keep],
            doc_judged=self.doc_judged[keep], doc_row=self.doc_row[keep],
            in_run=self.n_retrieved > 0 if self.in_run is None else self.in_run,
            findings=tuple(f for f in self.findings if f.kind != "unjudged_documents"))

    # ---- derived arrays (computed once, on first use) ---------------------------------
    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def n_groups(self) -> int:
        return len(self.group_start)

    @cached_property
    def doc_query(self) -> np.ndarray:
        return self.group_query[self.doc_group]

    @cached_property
    def doc_rank(self) -> np.ndarray:
        """1-based rank of each document inside its query."""
        offset = np.arange(len(self.doc_score), dtype=np.int64) - self.group_start[self.doc_group]
        return self.group_above[self.doc_group] + offset + 1

    def above_of(self, groups: np.ndarray | slice) -> np.ndarray:
        """``group_above[groups]``, without deriving the whole array when it is not stored."""
        stored = self.__dict__["_group_above"]
        if stored is not None:
            return stored[groups]
        query = self.group_query[groups]
        return _above(self.group_start[groups], self.query_start, query)

    @cached_property
    def doc_relevant(self) -> np.ndarray:
        return self.doc_grade >= self.rel_level

    @cached_property
    def doc_group(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_groups, dtype=np.int64), self.group_size)

    @cached_property
    def group_relevant(self) -> np.ndarray:
        return segment_sum(self.doc_relevant.astype(np.int64), self.group_start)

    @cached_property
    def relevant_above(self) -> np.ndarray:
        return self.sum_above(self.group_relevant)

    def sum_above(self, group_values: np.ndarray) -> np.ndarray:
        """Per group: the sum of ``group_values`` over the groups above it in its query, a
        function of the query's own groups alone (:func:`segment_cumsum`): the same bits
        whatever queries come before it in the table (one pass, buckets, Dask)."""
        if self.n_groups == 0:
            return np.zeros(0, dtype=group_values.dtype)
        first = np.ones(self.n_groups, dtype=bool)
        first[1:] = self.group_query[1:] != self.group_query[:-1]
        return segment_cumsum(group_values, np.flatnonzero(first), exclusive=True)

    @cached_property
    def relevant_retrieved(self) -> np.ndarray:
        return np.bincount(self.group_query, weights=self.group_relevant,
                           minlength=self.n_queries).astype(np.int64)

    def doc_ids(self, positions: np.ndarray | slice | None = None) -> np.ndarray:
        """Document ids (str) of the given positions in ranked order (all by default)."""
        rows = self.doc_row if positions is None else self.doc_row[positions]
        return np.asarray(take_rows(self.run_docs, rows).to_numpy(zero_copy_only=False),
                          dtype=object)

    def query_slice(self, query: str) -> slice:
        """Positions of ``query``'s documents in the doc arrays."""
        index = int(np.searchsorted(self.queries, query))
        if index >= self.n_queries or self.queries[index] != query:
            raise KeyError(f"query {query!r} is not among the evaluated queries")
        return slice(int(self.query_start[index]), int(self.query_start[index + 1]))

    # ---- the part of the ranking that can score -------------------------------------------
    def scoring(self) -> "TieTable":
        """The groups holding a document with a positive grade, ranks kept.

        Every metric here depends only on where relevant or positively graded documents
        fall (plus per-query counts, which are kept), so kernels run on this compact view:
        with a few relevant documents per query it is orders of magnitude smaller than
        the run. A resolved table's view keeps just its positively graded documents.
        """
        return self._groups_holding(lambda: self.doc_grade > 0, "_scoring")

    def qrels_groups(self) -> "TieTable":
        """The groups holding a document of the qrels (judged, or pooled with a negative
        grade), ranks kept.

        For measures of the qrels documents' places and of the counts of each kind above
        them (infAP): a group without a qrels document adds nothing to those counts, and the
        ranks of the others are kept (:attr:`group_above`), so it can be left out. Cached
        on the table, like :meth:`scoring`.
        """
        return self._groups_holding(lambda: self.doc_judged, "_qrels_groups")

    def _groups_holding(self, marked: Callable[[], np.ndarray], slot: str) -> "TieTable":
        """The groups holding a document ``marked()`` marks, ranks and per-query counts kept
        (the mask is made only when the view is not cached yet: kernels ask hundreds of
        times, and each mask is the size of the run)."""
        cached = self.__dict__.get(slot)
        if cached is _ITSELF:
            return self
        if cached is not None:
            return cached
        # the groups of the marked documents, found from those few documents (a per-group
        # reduction and a per-document mask cost two passes over the run's size)
        keep = np.unique(np.searchsorted(self.group_start, np.flatnonzero(marked()),
                                         side="right") - 1)
        if len(keep) == self.n_groups:
            compact = self
        else:
            size = self.group_size[keep]
            docs = np.repeat(self.group_start[keep] - (np.cumsum(size) - size), size) \
                + np.arange(int(size.sum()), dtype=np.int64)
            query = self.group_query[keep]
            query_start = np.zeros(self.n_queries + 1, dtype=np.int64)
            np.cumsum(np.bincount(query, weights=size, minlength=self.n_queries).astype(np.int64),
                      out=query_start[1:])
            compact = replace(
                self, query_start=query_start, group_query=query,
                group_start=(np.cumsum(size) - size).astype(np.int64), group_size=size,
                group_above=self.above_of(keep), doc_score=self.doc_score[docs],
                doc_grade=self.doc_grade[docs], doc_judged=self.doc_judged[docs],
                doc_row=self.doc_row[docs])
            compact.__dict__[slot] = _ITSELF
        # derived data: cache on the frozen table
        self.__dict__[slot] = _ITSELF if compact is self else compact
        return compact

    # ---- tie policies -----------------------------------------------------------------
    def resolve(self, policy: str, seed: int | None = None) -> "TieTable":
        """Break every tie by ``policy``; the result has one group per document.

        ``best`` puts relevant documents first (grade descending), ``worst``
        last (grade ascending), ``trec_eval`` orders by docno descending by byte
        comparison (trec_eval's ``comp_sim_docno``), ``input`` keeps file order and
        ``random`` orders each group by a 64-bit key hashed from (``seed``, run name,
        query id, doc id), ties of keys by docno: a uniform permutation per group that
        depends on those ids alone, never on the file order or on the other queries in
        the table. Resolving :meth:`scoring` gives the same metric values at a fraction
        of the cost.
        """
        if policy == "expected":
            return self
        return self._resolved(policy, seed, positive_only=False)

    def resolve_scoring(self, policy: str, seed: int | None = None) -> "TieTable":
        """``self.resolve(policy, seed).scoring()``, without the resolved table of every
        document on the way: the positively graded documents in the policy's order, one
        group each, ranks kept. All that the kernels of :meth:`scoring` read; resolving a
        7M-line run's scoring view whole took 18 MB a policy for them to look past."""
        if policy == "expected":
            return self.scoring()
        return self._resolved(policy, seed, positive_only=True)

    def _resolved(self, policy: str, seed: int | None, positive_only: bool) -> "TieTable":
        policy = canonical_policy(policy, "policy")  # resolve("optimistic"): in earlier versions
        if self.policy != "expected":
            raise ValueError("this table is already resolved; resolve the expected table")
        order = self.policy_order(policy, seed)
        label = policy if policy != "random" else f"random(seed={seed})"
        # the positions kept (all, or the positive grades'), in the policy's order: a
        # position's group is its group before (policies only move documents inside one)
        if positive_only:
            kept = np.flatnonzero(self.doc_grade[order] > 0)
            group, picked = self.doc_group[kept], order[kept]
            query = self.group_query[group]
            query_start = np.zeros(self.n_queries + 1, dtype=np.int64)
            np.cumsum(np.bincount(query, minlength=self.n_queries), out=query_start[1:])
        else:  # every position: the cached per-document arrays as they are
            kept = np.arange(len(order), dtype=np.int64)
            group, picked, query, query_start = self.doc_group, order, self.doc_query, \
                self.query_start
        n = len(kept)
        table = replace(
            self, policy=label, query_start=query_start, group_query=query,
            group_start=np.arange(n, dtype=np.int64), group_size=np.ones(n, dtype=np.int64),
            group_above=self.group_above[group] + kept - self.group_start[group],
            doc_score=self.doc_score[picked], doc_grade=self.doc_grade[picked],
            doc_judged=self.doc_judged[picked], doc_row=self.doc_row[picked])
        if positive_only:
            table.__dict__["_scoring"] = _ITSELF  # its own scoring view
        return table

    def policy_order(self, policy: str, seed: int | None = None) -> np.ndarray:
        """Positions of the documents in ranked order under ``policy`` (a permutation that
        only moves documents inside their tie group)."""
        tied = np.repeat(self.group_size > 1, self.group_size)
        positions = np.flatnonzero(tied)
        order = np.arange(len(self.doc_score))
        if len(positions) and policy == "random":
            order[positions] = positions[self._random_order(positions, seed)]
        elif len(positions):
            key = self._tie_break_key(policy, positions, seed)
            group = self.doc_group[positions]
            span = int(key.max()) + 1  # keys are dense ranks: span <= len(positions)
            if (int(group[-1]) + 1) * span < 2**62:
                # Groups are contiguous, so one stable sort of group * span + key orders by
                # group, then key, then file order: what a two-key lexsort gives, several
                # times faster. The bound above keeps the composite key exact in int64.
                order[positions] = positions[np.argsort(group * span + key, kind="stable")]
            else:
                order[positions] = positions[np.lexsort((key, group))]
        return order

    def _random_order(self, positions: np.ndarray, seed: int | None) -> np.ndarray:
        """Sort order of the tied ``positions`` under ``random(seed)``: by group, then a
        key hashed from (seed, run name, query id, doc id), then docno (one Arrow sort).

        Every input of the key is an id, so a query's order is the same whatever the file
        order or the other queries of the table (layout independence; see
        :mod:`tiedrank.core.hashing`). Keys are iid uniform 64-bit words, so the order inside a
        group is a uniform permutation (a key collision, odds ~n^2/2^65, falls back to
        docno order, still a function of the ids).
        """
        rows, inverse = np.unique(self.doc_row[positions], return_inverse=True)
        doc_ids = take_rows(self.run_docs, rows)
        doc_hash = hash_ids(doc_ids.to_numpy(zero_copy_only=False))[inverse]
        run_word = mix(hash_ids(np.array([self.run_name], dtype=object))[0]
                       ^ seed_word(0 if seed is None else seed))
        query_hash = mix(hash_ids(self.queries) ^ run_word)
        key = mix(query_hash[self.doc_query[positions]] ^ doc_hash)
        sort_table = pa.table({"group": self.doc_group[positions], "key": key,
                               "doc": doc_ids.take(pa.array(inverse))})
        return pc.sort_indices(sort_table, sort_keys=[("group", "ascending"),
                                                      ("key", "ascending"),
                                                      ("doc", "ascending")]).to_numpy()

    def _tie_break_key(self, policy: str, positions: np.ndarray, seed: int | None) -> np.ndarray:
        """Non-negative integer sort key of each tied document under ``policy``."""
        if policy in ("best", "worst"):
            grade = self.doc_grade[positions]
            low, high = (int(grade.min()), int(grade.max())) if len(grade) else (0, 0)
            if high - low < len(positions):
                # grades span a small range (always, for real qrels): the offset from the
                # lowest grade is a key as small as a dense rank, without np.unique's sort
                offset = grade.astype(np.int64) - low
                return high - low - offset if policy == "best" else offset
            # dense rank of the grade, never the grade itself: grades near 2**63 would
            # overflow a difference, and a key as large as the grade would overflow the
            # composite group * span + key
            rank = np.unique(grade, return_inverse=True)[1].astype(np.int64)
            return int(rank.max()) - rank if policy == "best" else rank
        if policy == "input":
            return np.argsort(np.argsort(self.doc_row[positions], kind="stable"), kind="stable")
        if policy == "trec_eval":
            ids = take_rows(self.run_docs, self.doc_row[positions])
            ascending = byte_order(ids)  # byte order, as strcmp
            rank = np.empty(len(positions), dtype=np.int64)
            rank[ascending] = np.arange(len(positions))
            return len(positions) - 1 - rank  # docno descending
        raise ValueError(f"unknown tie policy {policy!r}; expected one of {', '.join(POLICIES)}")


LEGACY_TABLE_KEYWORDS = ("rel_level", "judged_only", "round", "complete", "query_set")
"""The options :func:`build_tie_table` took as loose keywords before it took one
:class:`~tiedrank.core.options.EvaluationOptions` (deprecated; they go in the next release)."""


def build_tie_table(run: Run, qrels: Qrels, options: "EvaluationOptions | None" = None,
                    **legacy: Any) -> TieTable:
    """Sort ``run`` once and build its :class:`TieTable` against ``qrels``.

    Parameters
    ----------
    run, qrels : Run, Qrels
        Validated inputs (see :mod:`tiedrank.io`).
    options : EvaluationOptions, optional
        The options of the table, checked once when the value was made: ``rel_level``
        (binary metrics count a document as relevant when its grade >= it),
        ``judged_only`` (drop retrieved documents absent from the qrels before ranking,
        trec_eval ``-J``), ``depth`` (keep the first ``depth`` documents of each query in
        trec_eval's order, trec_eval ``-M``; see :func:`truncate_run`), ``round`` (round
        scores to this many decimals first, so that near-ties merge; ties are otherwise
        exact float64 equality), ``complete`` and ``query_set`` (the query set,
        :attr:`TieTable.evaluated`; see :mod:`tiedrank.core.options`). The policies and
        the gain are the kernels' business, not the table's. Default: ``EvaluationOptions()``.
    **legacy
        Deprecated: ``rel_level=``, ``judged_only=``, ``round=``, ``complete=``,
        ``query_set=`` as loose keywords (a :class:`DeprecationWarning`; pass
        ``EvaluationOptions(rel_level=2)`` instead). They go in the next release.

    Returns
    -------
    TieTable
        One row per qrels query; run queries missing from the qrels are reported in
        ``findings`` and not evaluated. Which rows count in a mean is ``evaluated``.

    Examples
    --------
    >>> from tiedrank import EvaluationOptions
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": ["a", "b", "c"],
    ...                              "score": [0.901, 0.899, 0.5]}))
    >>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [2]}))
    >>> build_tie_table(run, qrels, EvaluationOptions(round=2)).group_size.tolist()
    [2, 1]
    """
    from .options import make_options  # local: the options module imports the metrics

    unknown = sorted(set(legacy) - set(LEGACY_TABLE_KEYWORDS))
    if unknown:
        raise TypeError(f"build_tie_table() got an unexpected keyword argument {unknown[0]!r}")
    if legacy:
        warnings.warn(
            f"build_tie_table(..., {', '.join(f'{k}=' for k in legacy)}) is deprecated: pass "
            f"build_tie_table(run, qrels, EvaluationOptions({', '.join(f'{k}=...' for k in legacy)})) "
            "(tiedrank.EvaluationOptions); the loose keywords go in the next release",
            DeprecationWarning, stacklevel=2)
    return _build(run, qrels, make_options("build_tie_table", options, **legacy), False)


def build_own_tie_table(run: Run, qrels: Qrels, options: "EvaluationOptions") -> TieTable:
    """:func:`build_tie_table` for a run that nothing else holds (one the caller read):
    each column of its frame is dropped from it as soon as the table has what it needs of
    it, so it is freed while the table's arrays are made (the query ids and the scores:
    150 MB of a 7M-line run, a sixth of the evaluation's peak; the doc ids stay in the
    table, with 32-bit offsets). ``options`` is an
    :class:`~tiedrank.core.options.EvaluationOptions`.
    """
    return _build(run, qrels, options, True)


def _build(run: Run, qrels: Qrels, options: "EvaluationOptions", drop_columns: bool) -> TieTable:
    if options.depth is not None:
        # -M keeps the first `depth` of the ranking the table ranks: the rounded one
        run = truncate_run(run, options.depth, options.round)
    rel_level, judged_only, round = options.rel_level, options.judged_only, options.round
    complete, query_set = options.complete, options.query_set
    findings: list[Finding] = []
    qframe = qrels.frame
    side = _qrels_side(qframe, rel_level)
    queries, n_queries, n_relevant = side.queries, len(side.queries), side.n_relevant

    frame = run.frame
    query_code, unknown = _run_query_codes(frame["query"], queries)
    if drop_columns:
        del frame["query"]
    findings += _unknown_queries(run, unknown)
    # the table's doc_score must be an array of its own, never a view of the caller's
    # frame: a copy is made below only where no reordering or rounding made one already
    score = frame["score"].to_numpy(dtype=np.float64)
    owned = round is not None
    if owned:
        score = round_scores(score, round)
    run_docs = as_arrow_strings(frame["doc"])
    if drop_columns:  # the table's doc ids are the frame's no more: 32-bit offsets do
        run_docs = narrow_offsets(run_docs)
        del frame["doc"]
    judged_rows, judged_grade, judged_pairs = _join_grades(
        run_docs, as_arrow_strings(qframe["doc"]), query_code, side)
    # pyarrow's allocator keeps what the join freed (110 MB on 7M lines) for its own reuse;
    # what comes next (the sort, the table's arrays) is numpy's: hand it back first
    release_arrow_memory()

    n_rows = len(query_code)
    keep = query_code >= 0
    in_run = None
    if judged_only:  # a query whose documents are all unjudged still has results (trec_eval)
        in_run = np.bincount(query_code[keep], minlength=n_queries) > 0
        keep[:] = False  # a negative grade is unjudged for -J, as in trec_eval
        keep[judged_rows[judged_grade >= 0]] = True  # (a judged row's query is a qrels one)
    # every judged row is kept without -J (its query is a qrels query); with -J only they are
    findings += _unjudged(run, 0 if judged_only else int(keep.sum()) - len(judged_rows))

    # --- the one sort: query ascending, score descending, file order inside ties --------
    # rows None: every row kept in file order (a run written in rank order, the usual
    # case), so the per-row arrays are used as they are, never copied
    rows = np.flatnonzero(keep) if not keep.all() else None
    qc, sc = (query_code, score) if rows is None else (query_code[rows], score[rows])
    owned |= rows is not None
    del query_code, score, keep  # the table's arrays are made next: free these first
    order = _ranking_order(qc, sc)
    if order is not None:
        rows, qc, sc = order if rows is None else rows[order], qc[order], sc[order]
        owned = True
        del order
    if not owned:
        sc = sc.copy()
    if drop_columns:
        del frame["score"]  # sc is the table's own copy now
        # and the heap's holes (the codes, the sort's order) handed back before the table's
        # arrays are made; a bucket or Dask task (its run not its own) would fault them in
        # again for nothing, so only the one-pass door's build does it
        release_unused_memory()
    # a row number is only looked up (ids, subtopics, file order): 4 bytes hold it; made
    # first, while the table's other arrays are not there yet to add to its copy's peak
    row_type = np.int32 if n_rows < 2**31 else np.int64
    doc_row = np.arange(len(qc), dtype=row_type) if rows is None else rows.astype(row_type)
    doc_grade, doc_judged = place_grades(None if rows is None else doc_row, n_rows,
                                         judged_rows, judged_grade)
    del rows
    # then the table's arrays, in an order that frees the build's own (qc, new_group)
    # before the last ones are made: the peak is the table, not table + temporaries
    n_kept = len(qc)
    new_group = np.empty(n_kept, dtype=bool)
    if n_kept:
        new_group[0] = True
        np.not_equal(qc[1:], qc[:-1], out=new_group[1:])
        new_group[1:] |= sc[1:] != sc[:-1]
    group_start = np.asarray(np.flatnonzero(new_group), dtype=np.int64)
    del new_group
    group_query = np.asarray(qc[group_start], dtype=np.int64)
    del qc
    group_size = np.empty_like(group_start)
    np.subtract(group_start[1:], group_start[:-1], out=group_size[:-1])
    group_size[-1:] = n_kept - group_start[-1:]
    # where each query's first group starts (the groups are in query order): no array the
    # size of the run (a bincount of qc made an int64 copy of it, 56 MB on 7M lines)
    first_group = np.searchsorted(group_query, np.arange(n_queries + 1))
    query_start = np.full(n_queries + 1, n_kept, dtype=np.int64)
    inside = first_group < len(group_start)
    query_start[inside] = group_start[first_group[inside]]
    n_retrieved = np.diff(query_start)

    findings += _qrels_queries(run, queries, n_retrieved > 0 if in_run is None else in_run,
                               n_relevant, options)

    return TieTable(
        run_name=run.name, rel_level=int(rel_level), policy="expected", queries=queries,
        n_relevant=n_relevant, n_retrieved=n_retrieved, query_start=query_start,
        ideal_start=side.ideal_start, ideal_grade=side.ideal_grade,
        group_query=group_query, group_start=group_start,
        group_size=group_size, group_above=None,
        doc_score=sc, doc_grade=doc_grade, doc_judged=doc_judged,
        doc_row=doc_row, run_docs=run_docs,
        findings=tuple(run.findings) + tuple(qrels.findings) + tuple(findings),
        in_run=in_run, judged_only=bool(judged_only), complete=bool(complete),
        query_set=query_set, intents=table_intents(qrels, judged_rows, judged_pairs))


def _unknown_queries(run: Run, unknown: np.ndarray) -> list[Finding]:
    """The finding of the run's queries the qrels do not hold (none when there are none)."""
    if not len(unknown):
        return []
    return [Finding("queries_not_in_qrels",
                    f"{len(unknown)} quer{'y' if len(unknown) == 1 else 'ies'} of run "
                    f"{run.name!r} not in the qrels; not evaluated", run.source, len(unknown),
                    tuple(map(str, unknown[:_MAX_LISTED])))]


def _unjudged(run: Run, n_unjudged: int) -> list[Finding]:
    """The finding of the retrieved documents the qrels do not judge (none under -J)."""
    if not n_unjudged:
        return []
    return [Finding("unjudged_documents",
                    f"{n_unjudged} retrieved document{'s' if n_unjudged != 1 else ''} of run "
                    f"{run.name!r} not in the qrels; counted as non-relevant", run.source,
                    n_unjudged)]


def _qrels_queries(run: Run, queries: np.ndarray, answered: np.ndarray,
                   n_relevant: np.ndarray, options: "EvaluationOptions") -> list[Finding]:
    """The findings of the qrels queries the run leaves unanswered and of those without a
    relevant document, each saying what becomes of them under ``options``."""
    findings = []
    for kind, mask, text in (
            ("queries_missing_from_run", ~answered, "no results in run {run}; "
             + ("scored 0 (trec_eval -c)" if options.complete else "left out of the means "
                "(trec_eval without -c)")),
            ("queries_without_relevant", n_relevant == 0,
             "no relevant document at relevance level {level}; "
             + ("left out of the means" if options.query_set == "relevant" else
                "scored as trec_eval scores them (0 for RR, AP, P, R)"))):
        missing = queries[mask]
        if len(missing):
            one = len(missing) == 1
            findings.append(Finding(
                kind, f"{len(missing)} qrels quer{'y has' if one else 'ies have'} "
                + text.format(run=repr(run.name), level=options.rel_level),
                run.source, len(missing), tuple(map(str, missing[:_MAX_LISTED]))))
    return findings


def _above(group_start: np.ndarray, query_start: np.ndarray,
           group_query: np.ndarray) -> np.ndarray:
    """Documents ranked above each group in its query, in one array (no temporary)."""
    above = query_start[group_query]
    np.subtract(group_start, above, out=above)
    return above
