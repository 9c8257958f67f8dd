"""Diversity qrels: ndeval's ``query subtopic doc grade``, TREC's four columns with the
second one read as the subtopic (intent) id instead of trec_eval's ignored iteration.

A TREC qrels file is read as diversity qrels when a document is judged more than once for a
query under different second-column values (no plain qrels file does that: its reader
refuses a repeated judgement), or when asked (``read_qrels(..., subtopics=True)``; a file
where each document happens to be judged for one subtopic only). The result is a
:class:`~tiedrank.core.data.Qrels` whose ``subtopics`` frame keeps every judgement and whose
``frame`` holds each (query, doc) once with its largest grade over the subtopics, so the
other measures read the same file (ndeval's own MAP counts a document relevant to any
subtopic as relevant). A (query, subtopic, doc) judged twice is refused, naming both lines.

Examples
--------
>>> from tiedrank.io import read_qrels
>>> qrels = read_qrels(b"1 1 d1 1\\n1 2 d1 0\\n1 2 d2 1\\n")
>>> qrels.frame.values.tolist()
[['1', 'd1', 1], ['1', 'd2', 1]]
>>> qrels.subtopics["subtopic"].tolist()
['1', '2', '2']
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core.data import QRELS_COLUMNS, Qrels
from ..core.errors import Finding, InputError
from ._arrow import decode, is_text, to_frame
from ._load import Loaded
from ._text import fail
from .columns import GRADE, RawColumns, as_ids, as_values

SUBTOPIC_COLUMNS = ("query", "subtopic", "doc", "relevance")
"""The columns of :attr:`Qrels.subtopics <tiedrank.core.data.Qrels.subtopics>`."""
SUBTOPIC_EXPECTED = "4 whitespace-separated columns: query subtopic docno grade (ndeval's qrels)"


SUBTOPIC_NAMES = ("subtopic", "subtopic_id", "iteration", "intent")
"""Column names of a frame's subtopic id (ir_measures and PyTerrier call it ``iteration``)."""


def frame_subtopics(raw: RawColumns, loaded: Loaded) -> RawColumns:
    """``raw`` with a frame's subtopic column (:data:`SUBTOPIC_NAMES`, case ignored) as its
    second column, when the frame has one: a pandas frame, or the Arrow table of a polars
    frame, a pyarrow table or a DuckDB relation (dictionary and view columns decoded, other
    types as text)."""
    table = getattr(loaded, "table", None)
    if table is not None:
        names = {str(c).strip().casefold(): c for c in table.column_names}
        name = next((names[n] for n in SUBTOPIC_NAMES if n in names), None)
        if name is None:
            return raw
        second = decode(table.column(name))
        if not is_text(second.type):
            second = second.cast(pa.string())
        return RawColumns(raw.query, raw.doc, raw.value, raw.locate, second)
    frame = getattr(loaded, "frame", None)
    if frame is None:
        return raw
    names = {str(c).strip().casefold(): c for c in frame.columns}
    column = next((names[n] for n in SUBTOPIC_NAMES if n in names), None)
    if column is None:
        return raw
    values = frame[column]
    second = pa.chunked_array([pa.array(values.astype(object).where(values.notna(), None)
                                        .map(lambda v: v if v is None else str(v)),
                                        type=pa.string())])
    return RawColumns(raw.query, raw.doc, raw.value, raw.locate, second)


def subtopic_qrels(raw: RawColumns, loaded: Loaded, subtopics: bool | None,
                   trim: bool = False) -> Qrels | None:
    """The diversity qrels of a TREC qrels file's raw columns, or None for plain qrels.

    ``subtopics``: None detects (a document judged under two second-column values of one
    query), True insists, False never reads subtopics (the caller's plain reader then
    refuses a repeated judgement as it always did).
    """
    if subtopics is False or raw.second is None:
        return None
    source = loaded.name
    query = as_ids(raw.query, "query id", raw.locate, source, trim)
    doc = as_ids(raw.doc, "document id", raw.locate, source, trim)
    if subtopics is None and not _repeats(query, doc):
        return None
    subtopic = as_ids(raw.second, "subtopic id", raw.locate, source, trim)
    grade = as_values(raw.value, GRADE, raw.locate, source)
    frame = to_frame(pa.table({"query": query, "subtopic": subtopic, "doc": doc,
                               "relevance": grade}), SUBTOPIC_COLUMNS)
    _check_unique(frame, raw, source)
    return qrels_from_subtopics(frame, source)


def qrels_from_subtopics(frame: pd.DataFrame, source: str, note: bool = True) -> Qrels:
    """:class:`Qrels` of a checked subtopic frame (columns :data:`SUBTOPIC_COLUMNS`): each
    (query, doc) once, in the order first judged, with its largest grade; ``note``: with
    the finding that says so (the scaled paths keep the one their split made)."""
    collapsed = (frame.groupby(["query", "doc"], sort=False, observed=True)["relevance"]
                 .max().reset_index())
    collapsed = collapsed[list(QRELS_COLUMNS)].astype({"relevance": np.int64})
    n_topics = frame.groupby("query", sort=False)["subtopic"].nunique()
    finding = Finding(
        "subtopic_qrels",
        f"read as diversity qrels (ndeval's query subtopic doc grade): {len(frame):,} "
        f"judgements of {len(collapsed):,} documents, {int(n_topics.sum()):,} subtopics in "
        f"{len(n_topics):,} quer{'y' if len(n_topics) == 1 else 'ies'}; a document's grade "
        "for the other measures is its largest over the subtopics", source, len(n_topics))
    return Qrels(frame=collapsed.reset_index(drop=True), source=source,
                 findings=(finding,) if note else (), subtopics=frame)


def _repeats(query: pa.ChunkedArray, doc: pa.ChunkedArray) -> bool:
    """Whether some (query, doc) is judged twice."""
    pairs = pd.DataFrame({"query": query.to_numpy(zero_copy_only=False),
                          "doc": doc.to_numpy(zero_copy_only=False)})
    return bool(pairs.duplicated().any())


def _check_unique(frame: pd.DataFrame, raw: RawColumns, source: str) -> None:
    """Refuse a (query, subtopic, doc) judged twice, naming both lines."""
    repeated = frame.duplicated(["query", "subtopic", "doc"], keep="first")
    if not repeated.any():
        return
    row = int(np.flatnonzero(repeated.to_numpy())[0])
    key = frame.iloc[row]
    same = ((frame["query"] == key["query"]) & (frame["subtopic"] == key["subtopic"])
            & (frame["doc"] == key["doc"])).to_numpy()
    first_line, _ = raw.locate(int(np.flatnonzero(same)[0]))
    raise fail("duplicate judgement", row, raw.locate, source,
               f"one judgement per (query, subtopic, doc); {key['doc']!r} was first judged "
               f"for query {key['query']!r}, subtopic {key['subtopic']!r} on line {first_line}")


def refuse_subtopics(fmt: str, source: str) -> InputError:
    """The error of ``subtopics=True`` on a source without subtopics: neither TREC's four
    columns nor a frame with a subtopic column."""
    return InputError(f"subtopic qrels are read from TREC's four columns or a DataFrame with "
                      f"a column {', '.join(SUBTOPIC_NAMES)}; this is {fmt} without one",
                      source=source, expected=SUBTOPIC_EXPECTED)
