"""Document text beside the tie groups: one query's ranked list, its groups with grade,
score and text.

Core code (no dashboard import): ``tiedrank docs`` and the Tie structure and Side by side
pages all call :func:`query_documents` / :func:`group_documents`; :func:`load_texts` reads
only the docnos shown from a corpus (:func:`tiedrank.io.read_corpus`).
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..core.ties import TieTable
from .corpus import read_corpus

__all__ = ["group_documents", "load_texts", "query_documents"]

_UNSET: Any = object()


def _shown(top: int | None, depth: Any, function: str) -> int | None:
    """``top``, or the deprecated ``depth=`` it replaces (a :class:`DeprecationWarning`):
    ``depth`` is trec_eval's ``-M`` everywhere else (:class:`~tiedrank.core.options.
    EvaluationOptions`), so the ranks shown are called ``top``."""
    if depth is _UNSET:
        return top
    warnings.warn(f"{function}(..., depth=) is deprecated: the ranks shown are top= (depth= "
                  "is trec_eval's -M in EvaluationOptions); depth= goes in the next release",
                  DeprecationWarning, stacklevel=3)
    return depth if top is None else top


def query_documents(table: TieTable, query: str, top: int | None = None, *,
                    depth: Any = _UNSET) -> pd.DataFrame:
    """The ranked list of one query down to rank ``top`` (all by default), one row per
    document, in the table's order.

    Columns: rank, doc, score, grade, judged, relevant, group (1-based inside the query),
    group_first (rank of the group's first document), group_size, group_relevant. Inside
    a tie group the order is the file order and carries no meaning for the expectation.
    Empty when the run has no results for the query; ``KeyError`` for an unknown query.
    ``depth=`` is the deprecated name of ``top``.
    """
    top = _shown(top, depth, "query_documents")
    span = table.query_slice(query)
    stop = span.stop if top is None else min(span.stop, span.start + top)
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
               query: str, top: int | None = None, *, depth: Any = _UNSET) -> dict[str, str]:
    """The texts of one query's documents down to rank ``top`` (only those docnos are
    kept). ``depth=`` is the deprecated name of ``top``."""
    docs = query_documents(table, query, _shown(top, depth, "load_texts"))
    return read_corpus(source, docnos=docs["doc"].tolist()) if source is not None else {}


def group_documents(table: TieTable, query: str, texts: Mapping[str, str] | None = None,
                    top: int | None = None, *, depth: Any = _UNSET) -> pd.DataFrame:
    """One query's tie groups down to rank ``top``, one row per document: group, ranks,
    grade, score, text.

    ``ranks`` is the span of ranks the group occupies (``"3-7"``): any order inside it is
    equally likely, so a document's own rank means nothing.  ``text`` is empty for a
    document missing from ``texts``. ``depth=`` is the deprecated name of ``top``.

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
    docs = query_documents(table, query, _shown(top, depth, "group_documents"))
    last = docs["group_first"] + docs["group_size"] - 1
    ranks = docs["group_first"].astype(str).where(
        docs["group_size"] == 1, docs["group_first"].astype(str) + "-" + last.astype(str))
    texts = texts or {}
    return pd.DataFrame({
        "group": docs["group"], "ranks": ranks, "group_size": docs["group_size"],
        "doc": docs["doc"], "grade": docs["grade"], "score": docs["score"],
        "text": [texts.get(d, "") for d in docs["doc"]],
    })
