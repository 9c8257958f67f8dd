"""Other tools' objects as runs and qrels: ranx, pytrec_eval dicts, ir_measures / ir_datasets
tuples (PyTerrier frames are DataFrames: ``qid, docno, score`` and ``qid, docno, label`` are
read by column name through :data:`~tiedrank.io.ALIASES`).

Each becomes a DataFrame ``query, doc, score|relevance`` that then goes through the same
checks as a file (duplicates, NaN scores, grade range), so an object and the file it came
from give the same numbers.

Examples
--------
>>> frame, name = as_table({"q1": {"d1": 2.0, "d2": 1.0}}, "score")
>>> frame.values.tolist(), name
([['q1', 'd1', 2.0], ['q1', 'd2', 1.0]], None)
>>> as_table([("q1", "d1", 1)], "relevance")[0].values.tolist()
[['q1', 'd1', 1]]
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from ..core.data import exports_arrow

ACCEPTED = ("a path, bytes, a binary file object, a pandas DataFrame (also PyTerrier's qid/docno/"
            "score|label), an Arrow table (polars, pyarrow, DuckDB), a ranx Run/Qrels, a dict {query: {doc: value}} (pytrec_eval), or an "
            "iterable of (query_id, doc_id, value) tuples (ir_measures ScoredDoc/Qrel, "
            "ir_datasets qrels_iter())")
_FIELDS = {"score": ("query_id", "doc_id", "score"), "relevance": ("query_id", "doc_id", "relevance")}


def is_peer_object(source: Any) -> bool:
    """True for the objects :func:`as_table` converts (not paths, bytes, files, frames or
    Arrow exporters such as a polars DataFrame, which the readers take as tables)."""
    if isinstance(source, (str, bytes, bytearray, memoryview, os.PathLike, pd.DataFrame)) \
            or exports_arrow(source):
        return False
    if hasattr(source, "read") or hasattr(source, "getvalue"):
        return False
    return _is_ranx(source) or isinstance(source, (Mapping, Iterable))


def _is_ranx(source: Any) -> bool:
    return type(source).__module__.startswith("ranx.") and hasattr(source, "to_dict")


def peer_role(source: Any) -> str | None:
    """``"run"`` or ``"qrels"`` for another tool's object that says which it is (a ranx
    ``Run`` or ``Qrels``), None for anything else: how a swapped ``evaluate(qrels, run)``,
    ranx's order, is told from a label run.

    >>> peer_role({"q1": {"d1": 1}}) is None
    True
    """
    if _is_ranx(source):
        return {"Run": "run", "Qrels": "qrels"}.get(type(source).__name__)
    return None


def as_table(source: Any, value: str) -> tuple[pd.DataFrame, str | None]:
    """``(frame, name)`` of a peer object; ``value`` is ``"score"`` (runs) or ``"relevance"``.

    Raises
    ------
    TypeError
        For anything else, naming what is accepted.
    """
    name = None
    if _is_ranx(source):
        name = getattr(source, "name", None) or None
        source = source.to_dict()
    if isinstance(source, Mapping):
        return _from_nested(source, value), name
    if isinstance(source, Iterable):
        return _from_rows(source, value), name
    raise TypeError(f"cannot read {type(source).__name__}; pass {ACCEPTED}")


def _from_nested(nested: Mapping, value: str) -> pd.DataFrame:
    bad = next((q for q, docs in nested.items() if not isinstance(docs, Mapping)), None)
    if bad is not None:
        raise TypeError(f"a {{query: {{doc: {value}}}}} dict was expected; query {bad!r} maps to "
                        f"{type(nested[bad]).__name__}, not a dict")
    queries = [str(q) for q, docs in nested.items() for _ in range(len(docs))]
    docs = [str(d) for ranking in nested.values() for d in ranking]
    values = list(itertools.chain.from_iterable(ranking.values() for ranking in nested.values()))
    return pd.DataFrame({"query": queries, "doc": docs, value: values})


def _from_rows(rows: Iterable, value: str) -> pd.DataFrame:
    names = _FIELDS[value]
    records, iterations = [], []
    for row in rows:
        if hasattr(row, "_fields") and all(f in row._fields for f in names):
            records.append(tuple(getattr(row, f) for f in names))
            if value == "relevance" and "iteration" in row._fields:  # ir_measures' Qrel:
                iterations.append(row.iteration)  # diversity qrels' subtopic (pyndeval's)
        elif isinstance(row, (tuple, list)) and len(row) >= 3:
            records.append(tuple(row[:3]))
        else:
            raise TypeError(f"an iterable of ({', '.join(names)}) tuples was expected; got an "
                            f"item of type {type(row).__name__}: {row!r:.80}")
    frame = pd.DataFrame.from_records(records, columns=["query", "doc", value])
    if iterations and len(iterations) == len(records):  # read_qrels takes it as subtopics
        frame["iteration"] = pd.Series(iterations, dtype=object).astype(str)
    return frame.astype({"query": str, "doc": str})


def is_nested_runs(source: Any) -> bool:
    """True for ``{name: {query: {doc: score}}}``: several named pytrec_eval runs."""
    if not isinstance(source, Mapping) or not source:
        return False
    first = next(iter(source.values()))
    return isinstance(first, Mapping) and bool(first) and isinstance(next(iter(first.values())), Mapping)
