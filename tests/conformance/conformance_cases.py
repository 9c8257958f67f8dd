"""Random small tied runs + qrels for the conformance suite, and ways to hand them to each door.

A :class:`Case` is plain Python data (no tiedrank object), so the oracles of
``conformance_oracle.py`` read exactly what the doors read:

* several queries; scores from a few discrete levels (many ties; two levels that only merge
  under ``round=3``); graded labels -1..3;
* judged documents never retrieved, retrieved documents never judged;
* queries of the qrels the run misses, run queries absent from the qrels, queries whose
  judged documents are all grade <= 0;
* document ids whose byte order differs from any "natural" order (``d10`` < ``d9``,
  upper case before lower case, a prefix before its extensions, UTF-8 above ASCII), so
  trec_eval's docno tie-break (descending ``strcmp``) is exercised;
* run rows in a random file order (the ``input`` policy's order).

``TIEDRANK_DEEP=1`` multiplies the example counts (:func:`examples`).
"""
from __future__ import annotations

import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from hypothesis import strategies as st

DEEP = os.environ.get("TIEDRANK_DEEP", "") not in ("", "0")

SCORE_LEVELS = (2.0, 1.25, 1.2504, 1.0, 0.5, 0.0, -0.75)
"""1.25 and 1.2504 are distinct but equal under ``round=3`` (np.round: 1.25, 1.25)."""
DOC_IDS = ("d1", "d10", "d9", "d2", "D1", "D10", "a", "aa", "Z", "z9", "0x", "_u", "doc-\u00e9",
           "\u00e91", "b.1", "b-1")
"""Byte order differs from natural/case-folded order on purpose (strcmp on UTF-8)."""
QUERY_IDS = ("q1", "q2", "q10", "Q3", "7")
KINDS = ("normal", "normal", "normal", "all_zero", "not_in_qrels", "qrels_only")
MAX_DOCS = 6
"""At most 6 retrieved documents per query: at most 6! = 720 orderings to enumerate."""


def examples(n: int) -> int:
    """``n`` examples, or 10 n with ``TIEDRANK_DEEP=1``."""
    return n * 10 if DEEP else n


@dataclass(frozen=True)
class Case:
    """Run rows (query, doc, score) in file order, and qrels rows (query, doc, grade)."""

    run: tuple[tuple[str, str, float], ...]
    qrels: tuple[tuple[str, str, int], ...]
    kinds: dict = field(default_factory=dict, compare=False)

    # ---- views ------------------------------------------------------------------------
    def run_frame(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.run), columns=["query", "doc", "score"]).astype(
            {"query": "str", "doc": "str", "score": "float64"})

    def qrels_frame(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.qrels), columns=["query", "doc", "relevance"]).astype(
            {"query": "str", "doc": "str", "relevance": "int64"})

    def run_dict(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for q, d, s in self.run:
            out.setdefault(q, {})[d] = s
        return out

    def qrels_dict(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for q, d, g in self.qrels:
            out.setdefault(q, {})[d] = g
        return out

    def write(self, directory: Path, tag: str = "r", run_rows=None, qrels_rows=None
              ) -> tuple[str, str]:
        """TREC text files (run: ``q Q0 doc rank score tag``; qrels: ``q 0 doc grade``)."""
        directory.mkdir(parents=True, exist_ok=True)
        run_path, qrels_path = directory / f"{tag}.run", directory / "qrels.txt"
        rows = self.run if run_rows is None else run_rows
        # repr: the shortest text that reads back to the same float64
        run_path.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} {tag}\n"
                                    for i, (q, d, s) in enumerate(rows)), encoding="utf-8")
        qrows = self.qrels if qrels_rows is None else qrels_rows
        qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrows), encoding="utf-8")
        return str(run_path), str(qrels_path)

    # ---- facts the tests use --------------------------------------------------------------
    def evaluable(self) -> list[str]:
        """Queries with results and judgements (trec_eval's query set without -c)."""
        judged = {q for q, _, _ in self.qrels}
        return sorted({q for q, _, _ in self.run} & judged)

    def orderings(self, query: str) -> int:
        counts = Counter(s for q, _, s in self.run if q == query)
        return math.prod(math.factorial(c) for c in counts.values())


@st.composite
def cases(draw, min_queries: int = 1, max_queries: int = 4, max_docs: int = MAX_DOCS,
          require_evaluable: bool = True) -> Case:
    """A random :class:`Case` (see the module docstring)."""
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=min_queries,
                            max_size=max_queries, unique=True))
    kinds = {}
    run_rows: list[tuple[str, str, float]] = []
    qrels_rows: list[tuple[str, str, int]] = []
    for i, q in enumerate(queries):
        kind = "normal" if i == 0 and require_evaluable else draw(st.sampled_from(KINDS))
        kinds[q] = kind
        n = draw(st.integers(1, max_docs))
        docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=n + 2, max_size=n + 2,
                             unique=True)) if len(DOC_IDS) >= n + 2 else list(DOC_IDS[:n + 2])
        retrieved, extra = docs[:n], docs[n:]
        scores = draw(st.lists(st.sampled_from(SCORE_LEVELS), min_size=n, max_size=n))
        if kind != "qrels_only":
            run_rows += [(q, d, s) for d, s in zip(retrieved, scores)]
        if kind == "not_in_qrels":
            continue
        top = 0 if kind == "all_zero" else 3
        # None: retrieved but unjudged
        grades = draw(st.lists(st.one_of(st.none(), st.integers(-1, top)), min_size=n,
                               max_size=n))
        if kind == "normal" and not any(g is not None for g in grades):
            grades[0] = draw(st.integers(-1, top))
        extra_grades = draw(st.lists(st.integers(-1, top), max_size=2))
        qrels_rows += [(q, d, g) for d, g in zip(retrieved, grades) if g is not None]
        qrels_rows += [(q, d, g) for d, g in zip(extra, extra_grades)]
        if kind == "qrels_only" and not any(r[0] == q for r in qrels_rows):
            qrels_rows.append((q, extra[0], 1))
    # file order: rows of the queries interleaved at random
    run_rows = draw(st.permutations(run_rows))
    qrels_rows = draw(st.permutations(qrels_rows))
    case = Case(tuple(run_rows), tuple(qrels_rows), kinds)
    if require_evaluable and not case.evaluable():  # all-unjudged first query: keep it judged
        q, d, _ = run_rows[0]
        case = Case(case.run, case.qrels + ((q, d, 1),), kinds)
    return case


def one_query_frames(case: Case, query: str) -> pd.DataFrame:
    """Learn's toy input (doc, score, grade) for one query; unjudged documents grade 0."""
    grades = {d: g for q, d, g in case.qrels if q == query}
    rows = [(d, s, grades.get(d, 0)) for q, d, s in case.run if q == query]
    return pd.DataFrame(rows, columns=["doc", "score", "grade"])
