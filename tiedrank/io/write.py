"""Writers: runs and qrels as TREC text files, built as one Arrow string buffer."""
from __future__ import annotations

import gzip
import io
import os
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..core.data import Qrels, Run
from ..core.errors import InputError
from ._arrow import STR_DTYPE, first_true, string_layout
from ._text import blanks_to_underscores
from .outputs import writing

__all__ = ["write_qrels", "write_run"]


def write_run(run: Run, dest: Any, *, tag: str | None = None) -> None:
    """Write a run as a 6-column TREC file ``qid Q0 docno rank score tag``.

    Rows are written in the frame's order (so reading the file back gives an identical
    frame, and the ``input`` tie policy sees the same order); the rank column is 1, 2, ...
    by descending score within each query, ties keeping their frame order.  Scores are
    written as the shortest decimal that parses back to the identical float64.

    Parameters
    ----------
    run : Run
        The run to write.
    dest : str, os.PathLike or file-like
        A path (``.gz`` suffix: gzip-compressed) or an open binary or text file.
    tag : str, optional
        Run tag; default ``run.name``.  Whitespace in it is replaced by ``_``.

    Raises
    ------
    InputError
        If a query or document id is empty or contains whitespace (not representable).

    Examples
    --------
    >>> import io
    >>> from tiedrank.io import read_run
    >>> buf = io.BytesIO()
    >>> write_run(read_run(b"q1 Q0 d1 1 1.5 x\\nq1 Q0 d2 2 2.5 x\\n"), buf)
    >>> print(buf.getvalue().decode(), end="")
    q1 Q0 d1 2 1.5 x
    q1 Q0 d2 1 2.5 x
    """
    frame = run.frame
    query = _writable_ids(frame["query"], "query id", run.source)
    doc = _writable_ids(frame["doc"], "document id", run.source)
    score = frame["score"].to_numpy(dtype=np.float64)
    rank = _ranks(frame["query"], score)
    tag = blanks_to_underscores((tag or run.name or "tiedrank").strip()) or "tiedrank"
    score_text = pc.cast(pa.array(score), pa.string())
    rank_text = pc.cast(pa.array(rank), pa.string())
    # The last field carries the newline, so the joined array's data buffer *is* the file.
    lines = pc.binary_join_element_wise(query, "Q0", doc, rank_text, score_text, tag + "\n", " ")
    _write_lines(lines, dest)


def write_qrels(qrels: Qrels, dest: Any) -> None:
    """Write judgements as a 4-column TREC qrels file ``qid 0 docno grade``, in frame order;
    diversity qrels as ndeval's ``qid subtopic docno grade``, one line per judgement in
    ``Qrels.subtopics`` order (read back, they are the same diversity qrels).

    Parameters
    ----------
    qrels : Qrels
        The judgements to write.
    dest : str, os.PathLike or file-like
        A path (``.gz`` suffix: gzip-compressed) or an open binary or text file.

    Examples
    --------
    >>> import io
    >>> from tiedrank.io import read_qrels
    >>> buf = io.BytesIO()
    >>> write_qrels(read_qrels(b"301 0 d1 2\\n"), buf)
    >>> buf.getvalue()
    b'301 0 d1 2\\n'
    """
    frame = qrels.frame if qrels.subtopics is None else qrels.subtopics
    query = _writable_ids(frame["query"], "query id", qrels.source)
    doc = _writable_ids(frame["doc"], "document id", qrels.source)
    grade = pc.cast(pa.array(frame["relevance"].to_numpy(dtype=np.int64)), pa.string())
    grade = pc.binary_join_element_wise(grade, "\n", "")
    second = ("0" if qrels.subtopics is None else
              _writable_ids(frame["subtopic"], "subtopic id", qrels.source))
    lines = pc.binary_join_element_wise(query, second, doc, grade, " ")
    _write_lines(lines, dest)


def _writable_ids(series: pd.Series, what: str, source: str) -> pa.Array:
    column = pa.array(series.astype(STR_DTYPE), type=pa.string(), from_pandas=True)
    if pa.types.is_large_string(column.type):  # pyarrow < 17 keeps pandas' large_string
        column = column.cast(pa.string())
    bad = pc.or_(pc.match_substring_regex(column, r"\s"), pc.equal(pc.binary_length(column), 0))
    row = first_true(pc.fill_null(bad, True))
    if row is not None:
        raise InputError(f"{what} cannot be written to a TREC file", source=source,
                         line=row + 1, text=str(column[row].as_py()),
                         expected=f"a non-empty {what} without whitespace")
    return column


def _ranks(query: pd.Series, score: np.ndarray) -> np.ndarray:
    """1-based rank by descending score within each query; ties keep frame order.

    Examples
    --------
    >>> _ranks(pd.Series(["a", "b", "a", "a"]), np.array([1.0, 5.0, 3.0, 1.0])).tolist()
    [2, 1, 1, 3]
    """
    n = len(score)
    codes, _ = pd.factorize(query)
    # Arrow's multi-key sort is stable (equal scores keep frame order) and several times
    # faster than np.lexsort on millions of rows.
    keys = pa.table({"query": codes, "score": score})
    order = pc.sort_indices(keys, sort_keys=[("query", "ascending"), ("score", "descending")])
    order = order.to_numpy()
    grouped = codes[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    sizes = np.diff(np.r_[starts, n])
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - np.repeat(starts, sizes) + 1
    return rank


def _write_lines(lines: pa.Array | pa.ChunkedArray, dest: Any) -> None:
    """Write the concatenated text of ``lines`` (each element ends with a newline)."""
    chunks = lines.chunks if isinstance(lines, pa.ChunkedArray) else [lines]
    pieces = []
    for chunk in chunks:
        if len(chunk) == 0:
            continue
        offsets, data_buffer = string_layout(chunk)
        pieces.append(data_buffer[int(offsets[0]):int(offsets[-1])])
    if isinstance(dest, (str, os.PathLike)):
        path = os.fspath(dest)
        opener = gzip.open if str(path).lower().endswith(".gz") else open
        with writing(path), opener(path, "wb") as handle:
            for piece in pieces:
                handle.write(piece)
    elif isinstance(dest, io.TextIOBase):
        for piece in pieces:
            dest.write(piece.to_pybytes().decode("utf-8"))
    else:
        for piece in pieces:
            dest.write(piece)
