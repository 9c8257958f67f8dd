"""The two in-memory inputs of an evaluation: a run and a set of relevance judgements.

Both wrap a pandas DataFrame with fixed column names and dtypes so that every later stage
(tie-group table, kernels, pages) can rely on them without re-validating:

========  ===================  =====================================================
class     columns              dtypes
========  ===================  =====================================================
Run       query, doc, score    str, str, float64 (finite; one row per (query, doc))
Qrels     query, doc, relevance  str, str, int64 (negative grades allowed)
========  ===================  =====================================================

Diversity qrels (ndeval's ``query subtopic doc grade``) are a :class:`Qrels` whose
``subtopics`` frame holds the judgements per subtopic (query, subtopic, doc, relevance) and
whose ``frame`` holds each document once with its largest grade over the subtopics (ndeval's
"relevant to the topic": relevant to any subtopic), so every measure reads them.

Rows keep the order of the file (the ``input`` tie policy depends on it).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import pandas as pd

from .errors import Finding

RUN_COLUMNS = ("query", "doc", "score")
QRELS_COLUMNS = ("query", "doc", "relevance")


@dataclass(frozen=True, eq=False)
class Run:
    """A scored ranking for a set of queries.

    Attributes
    ----------
    name : str
        Display name (the TREC tag, or the file stem).
    frame : pandas.DataFrame
        Columns ``query`` (str), ``doc`` (str), ``score`` (float64), in file order.
    source : str
        Where it was read from (file name, ``"<bytes>"`` or ``"<DataFrame>"``).
    findings : tuple of Finding
        Non-fatal observations made while reading (e.g. duplicates resolved by max).
    """

    name: str
    frame: pd.DataFrame
    source: str = "<DataFrame>"
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    def __len__(self) -> int:
        return len(self.frame)


@dataclass(frozen=True, eq=False)
class Qrels:
    """Graded relevance judgements.

    Attributes
    ----------
    frame : pandas.DataFrame
        Columns ``query`` (str), ``doc`` (str), ``relevance`` (int64), in file order.
    source : str
        Where it was read from.
    findings : tuple of Finding
        Non-fatal observations made while reading.
    subtopics : pandas.DataFrame or None
        Diversity qrels only: columns ``query``, ``subtopic``, ``doc`` (str) and
        ``relevance`` (int64), one row per (query, subtopic, doc), in file order; the
        intent-aware measures (:mod:`tiedrank.metrics.intent`) read them. None: one
        judgement per document.
    """

    frame: pd.DataFrame
    source: str = "<DataFrame>"
    findings: tuple[Finding, ...] = field(default_factory=tuple)
    subtopics: pd.DataFrame | None = None

    def __len__(self) -> int:
        return len(self.frame)


def own_source(source: object) -> bool:
    """True for what tiedrank reads itself: a path, bytes, a file object, a DataFrame, an
    Arrow exporter, a :class:`Run` or :class:`Qrels`. Only anything else is offered to the
    peers' socket (:data:`~tiedrank.core.peers.PEERS`), so reading tiedrank's own inputs never
    loads the layer that translates other tools' objects (:mod:`tiedrank.plugins`).

    >>> own_source(pd.DataFrame()), own_source(b"q 0 d 1"), own_source({"q": {"d": 1.0}})
    (True, True, False)
    """
    return isinstance(source, (str, bytes, bytearray, memoryview, os.PathLike, pd.DataFrame,
                               Run, Qrels)) \
        or exports_arrow(source) or hasattr(source, "read") or hasattr(source, "getvalue")


def exports_arrow(source: object) -> bool:
    """True for an object that hands out its data as an Arrow stream (the Arrow PyCapsule
    interface, ``__arrow_c_stream__``): a polars DataFrame, a pyarrow Table or
    RecordBatchReader, a DuckDB relation. A pandas DataFrame, which has it too from pandas
    2.2 on, is read as a DataFrame (its NaN is pandas' missing value).

    >>> import pyarrow as pa
    >>> exports_arrow(pa.table({"a": [1]})), exports_arrow(pd.DataFrame({"a": [1]}))
    (True, False)
    """
    return hasattr(type(source), "__arrow_c_stream__") and not isinstance(source, pd.DataFrame)
