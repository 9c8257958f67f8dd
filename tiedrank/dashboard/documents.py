"""Document text beside the tie groups: one query's groups with grade, score and text.

Streamlit-free: the Tie structure page and ``tiedrank docs`` both call :func:`group_documents`.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ..io import read_corpus
from ..ties import TieTable
from .datasets import BUNDLED, SAMPLE_DIR
from .tie_structure import query_documents

CORPUS_FILE = "corpus.tsv.gz"
"""The name of a bundled dataset's corpus, next to its qrels."""


def bundled_corpus_path(dataset_label: str) -> Path | None:
    """The corpus shipped with the bundled dataset of this label, or None."""
    for dataset in BUNDLED.values():
        if dataset.label == dataset_label:
            path = SAMPLE_DIR / Path(dataset.qrels).parent / CORPUS_FILE
            return path if path.exists() else None
    return None


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
    >>> from tiedrank.data import Qrels, Run
    >>> from tiedrank.ties import build_tie_table
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
