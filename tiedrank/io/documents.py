"""Document text beside the tie groups: one query's ranked list, its groups with grade,
score and text.

Core code (no dashboard import): ``tiedrank docs`` and the Tie structure and Side by side
pages all call :func:`query_documents` / :func:`group_documents`; :func:`load_texts` reads
only the docnos shown from a corpus (:func:`tiedrank.io.read_corpus`).
"""
from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..core.ties import TieTable
from .corpus import read_corpus

__all__ = ["group_documents", "load_texts", "query_documents"]

def query_documents(table: TieTable, query: str, depth: int | None = None) -> pd.DataFrame:
    """The ranked list of one query, one row per document, in the table's order.

    Columns: rank, doc, score, grade, judged, relevant, group (1-based inside the query),
    group_first (rank of the group's first document), group_size, group_relevant. Inside
    a tie group the order is the file order and carries no meaning for the expectation.
    Empty when the run has no results for the query; ``KeyError`` for an unknown query.
    """
    span = table.query_slice(query)
    stop = span.stop if depth is None else min(span.stop, span.start + depth)
    positions = np.arange(span.start, stop)
    groups = table.doc_group[positions] if len(positions) else np.zeros(0, dtype=np.int64)
    first_group = int(groups[0]) if len(groups) else 0
    return pd.DataFrame({
        "rank": table.doc_rank[positions],
        "doc": table.doc_ids(positions).astype(str) if len(positions) else np.zeros(0, dtype=str),
        "score": table.doc_score[positions],
        "grade": table.doc_grade[positions],
        "judged": table.doc_judged[positions],
        "relevant": table.doc_grade[positions] >= table.rel_level,
        "group": groups - first_group + 1,
        "group_first": table.group_above[groups] + 1 if len(groups) else np.zeros(0, dtype=np.int64),
        "group_size": table.group_size[groups],
        "group_relevant": table.group_relevant[groups],
    })


def load_texts(source: bytes | str | os.PathLike | None, table: TieTable,
               query: str, depth: int | None = None) -> dict[str, str]:
    """The texts of one query's documents down to ``depth`` (only those docnos are kept)."""
    docs = query_documents(table, query, depth)
    return read_corpus(source, docnos=docs["doc"].tolist()) if source is not None else {}


def group_documents(table: TieTable, query: str, texts: Mapping[str, str] | None = None,
                    depth: int | None = None) -> pd.DataFrame:
    """One query's tie groups, one row per document: group, ranks, grade, score, text.

    ``ranks`` is the span of ranks the group occupies (``"3-7"``): any order inside it is
    equally likely, so a document's own rank means nothing.  ``text`` is empty for a
    document missing from ``texts``.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]}))
    >>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["c"], "relevance": [1]}))
    >>> groups = group_documents(build_tie_table(run, qrels), "q", {"c": "see"})
    >>> groups[["group", "ranks", "doc", "grade"]]
       group ranks doc  grade
    0      1     1   a      0
    1      2   2-3   b      0
    2      2   2-3   c      1
    >>> groups["text"].tolist()
    ['', '', 'see']
    """
    docs = query_documents(table, query, depth)
    last = docs["group_first"] + docs["group_size"] - 1
    ranks = docs["group_first"].astype(str).where(
        docs["group_size"] == 1, docs["group_first"].astype(str) + "-" + last.astype(str))
    texts = texts or {}
    return pd.DataFrame({
        "group": docs["group"], "ranks": ranks, "group_size": docs["group_size"],
        "doc": docs["doc"], "grade": docs["grade"], "score": docs["score"],
        "text": [texts.get(d, "") for d in docs["doc"]],
    })
