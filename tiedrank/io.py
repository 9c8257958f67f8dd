"""Readers and writers for runs and relevance judgements (qrels).

Every reader returns a validated :class:`~tiedrank.data.Run` or :class:`~tiedrank.data.Qrels`
(columns, dtypes and row order as documented in :mod:`tiedrank.data`) or raises
:class:`~tiedrank.errors.InputError` naming the source, the 1-based file line, the offending
line and what was expected.  No row is ever dropped silently, and nothing read is executed
(no pickle, no eval; Parquet and JSON are parsed by pyarrow as plain data).

Accepted formats
----------------
``trec_run``    ``qid Q0 docno rank score tag`` (whitespace separated; rank is ignored)
``trec_qrels``  ``qid iter docno grade`` (integer grades, negative allowed).  Passed to
                :func:`read_run` it is a *label file*: the grade becomes the score.
``csv``/``tsv`` header row required; columns found by name (see ``columns`` / aliases)
``parquet``     columns found by name
``jsonl``       one JSON object per line; keys found by name

Any of them may be gzip-compressed (detected by the magic bytes, not the extension).

Speed
-----
TREC files are parsed by ``pyarrow.csv`` (multi-threaded) with a single-space or
single-tab delimiter.  Files whose whitespace is irregular (runs of spaces, mixed tabs and
spaces, leading/trailing blanks, CR line ends) are first normalised with a chunked numpy pass,
then parsed the same way.  Line-by-line Python only runs on the error path, to name the exact
offending line.
"""
from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import math
import os
import re
import zlib
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq

from .data import QRELS_COLUMNS, RUN_COLUMNS, Qrels, Run
from .errors import Finding, InputError

__all__ = [
    "FORMATS",
    "detect_format",
    "list_columns",
    "read_qrels",
    "read_run",
    "write_qrels",
    "write_run",
]

FORMATS = ("trec_run", "trec_qrels", "csv", "tsv", "parquet", "jsonl")

# Our column name -> names accepted in a tabular file's header (case-insensitive).  The
# id-specific names come first because some tools put *text* in a column called "query"
# (PyTerrier: qid = id, query = text) or an internal number in "docid" (PyTerrier: docno is
# the external id), so when both are present the id-specific one must win.
ALIASES: dict[str, tuple[str, ...]] = {
    "query": ("qid", "query_id", "topic", "query"),
    "doc": ("docno", "doc_id", "docid", "pid", "passage_id", "doc"),
    "score": ("score", "sim", "similarity"),
    "relevance": ("relevance", "rel", "grade", "label", "judgement", "judgment"),
}

_TREC_RUN_EXPECTED = "6 whitespace-separated columns: qid Q0 docno rank score tag"
_TREC_QRELS_EXPECTED = "4 whitespace-separated columns: qid iter docno grade"
_ACCEPTED = ("a TREC run (qid Q0 docno rank score tag), TREC qrels (qid iter docno grade), "
             "CSV or TSV with a header row, Parquet, or JSON lines (optionally gzip-compressed)")
_FINITE = "a finite number"
_INTEGER = "an integer grade (negative allowed)"

_GZIP_MAGIC = b"\x1f\x8b"
_PARQUET_MAGIC = b"PAR1"
# The ASCII blanks TREC tools split on (what C's isspace() accepts, minus the newline).
_BLANKS = " \t\v\f\r"
_BLANK_SPLIT = re.compile(f"[{_BLANKS}]+")
# The finite numbers pyarrow's float parser accepts (checked against it), so that the
# vectorised check, the cast and the line-by-line error scan agree.
_FLOAT_RE = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_NONFINITE_RE = r"^[+-]?(?i:nan|inf|infinity)$"
_INT_RE = r"^[+-]?[0-9]+$"
_FLOAT_MATCH = re.compile(_FLOAT_RE).match
_NONFINITE_MATCH = re.compile(_NONFINITE_RE).match
_INT_MATCH = re.compile(_INT_RE).match

# pyarrow parses text in blocks of this size on its thread pool; 16 MB keeps the number of
# chunks small (fewer Python-level loops later) while still splitting big files across cores.
_BLOCK_SIZE = 16 << 20
# pandas' default string dtype in pandas 3 ("str"): pyarrow-backed, NaN as missing value.
_STR_DTYPE = pd.StringDtype(storage="pyarrow", na_value=np.nan)
# Threads for the numpy part of the duplicate check (numpy releases the GIL).
_WORKERS = max(1, min(2, os.cpu_count() or 1))

Locator = Callable[[int], tuple[int | None, str | None]]
"""Maps a 0-based data row to its (1-based file line, line text); only used on error paths."""


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------

def read_run(source: Any, *, format: str | None = None, name: str | None = None,
             columns: Mapping[str, str] | None = None, duplicates: str = "error",
             source_name: str | None = None) -> Run:
    """Read a run (a scored ranking per query).

    Parameters
    ----------
    source : str, os.PathLike, bytes, binary file-like or pandas.DataFrame
        The run.  File-like objects may be Streamlit ``UploadedFile`` s (``.name`` and
        ``.getvalue()``).  Gzip-compressed input is decompressed transparently.
    format : str, optional
        One of :data:`FORMATS`; detected with :func:`detect_format` when omitted.  A
        ``"trec_qrels"`` file is read as a *label file*: its grade becomes the score.
    name : str, optional
        Run name; default the TREC tag of the first line, else the file stem, else ``"run"``.
    columns : mapping, optional
        For tabular formats, ``{"query": ..., "doc": ..., "score": ...}`` naming the file's
        columns; unmapped roles are found through :data:`ALIASES`.  Ignored for TREC files.
    duplicates : {"error", "max"}
        What to do with a document listed twice for one query: raise (as trec_eval does) or
        keep the row with the highest score and record a ``"duplicates_kept_max"`` finding.
    source_name : str, optional
        Name used in messages and ``Run.source`` (default: the path, the file object's
        ``.name``, ``"<bytes>"`` or ``"<DataFrame>"``).

    Returns
    -------
    Run
        ``frame`` has columns query (str), doc (str), score (float64) in file order.

    Raises
    ------
    InputError
        On any unusable input, naming the line and what was expected there.

    Examples
    --------
    >>> run = read_run(b"q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.0 bm25\\n")
    >>> run.name, run.frame["score"].tolist()
    ('bm25', [2.5, 1.0])
    """
    if duplicates not in ("error", "max"):
        raise ValueError(f"duplicates must be 'error' or 'max', not {duplicates!r}")
    loaded = _load(source, source_name)
    fmt = _choose_format(loaded, format)
    if fmt == "trec_run":
        columns_, tag = _read_trec(loaded, ncols=6, value_col=4, value_type=pa.float64())
    elif fmt == "trec_qrels":
        # A label file (e.g. an LLM judge's grades): the grade is used as a float score.
        columns_, tag = _read_trec(loaded, ncols=4, value_col=3, value_type=pa.float64())
    else:
        columns_, tag = _read_tabular(loaded, fmt, ("query", "doc", "score"), columns), None
    trim = not fmt.startswith("trec")
    query = _as_ids(columns_.query, "query id", columns_.locate, loaded.name, trim)
    doc = _as_ids(columns_.doc, "document id", columns_.locate, loaded.name, trim)
    score = _as_float(columns_.value, columns_.locate, loaded.name)
    table = pa.table({"query": query, "doc": doc, "score": score})
    table, findings = _check_duplicates(table, columns_.locate, loaded.name, duplicates, "run")
    run_name = name or tag or _stem(loaded.filename) or "run"
    return Run(name=run_name, frame=_to_frame(table, RUN_COLUMNS), source=loaded.name,
               findings=tuple(findings))


def read_qrels(source: Any, *, format: str | None = None,
               columns: Mapping[str, str] | None = None,
               source_name: str | None = None) -> Qrels:
    """Read graded relevance judgements.

    Parameters
    ----------
    source : str, os.PathLike, bytes, binary file-like or pandas.DataFrame
        The judgements (TREC ``qid iter docno grade`` or a tabular file); gzip is accepted.
    format : str, optional
        One of :data:`FORMATS` (not ``"trec_run"``); detected when omitted.
    columns : mapping, optional
        For tabular formats, ``{"query": ..., "doc": ..., "relevance": ...}``.
    source_name : str, optional
        Name used in messages and ``Qrels.source``.

    Returns
    -------
    Qrels
        ``frame`` has columns query (str), doc (str), relevance (int64) in file order.

    Raises
    ------
    InputError
        Bad input, including a grade that is not an integer and a (query, doc) judged twice.

    Examples
    --------
    >>> qrels = read_qrels(b"301 0 d1 2\\n301 0 d2 -1\\n")
    >>> qrels.frame["relevance"].tolist()
    [2, -1]
    """
    loaded = _load(source, source_name)
    fmt = _choose_format(loaded, format)
    if fmt == "trec_run":
        line, text = _first_line(loaded.data)
        raise InputError("a TREC run (6 columns) was given where qrels are expected",
                         source=loaded.name, line=line, text=text, expected=_TREC_QRELS_EXPECTED)
    if fmt == "trec_qrels":
        # Grades are read as text and validated here: pyarrow's integer parser would also
        # accept hexadecimal ("0x10"), which is not a TREC grade.
        columns_, _ = _read_trec(loaded, ncols=4, value_col=3, value_type=pa.string())
    else:
        columns_ = _read_tabular(loaded, fmt, ("query", "doc", "relevance"), columns)
    trim = not fmt.startswith("trec")
    query = _as_ids(columns_.query, "query id", columns_.locate, loaded.name, trim)
    doc = _as_ids(columns_.doc, "document id", columns_.locate, loaded.name, trim)
    relevance = _as_int(columns_.value, columns_.locate, loaded.name)
    table = pa.table({"query": query, "doc": doc, "relevance": relevance})
    table, findings = _check_duplicates(table, columns_.locate, loaded.name, "error", "qrels")
    return Qrels(frame=_to_frame(table, QRELS_COLUMNS), source=loaded.name,
                 findings=tuple(findings))


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
    tag = _BLANK_SPLIT.sub("_", (tag or run.name or "tiedrank").strip()) or "tiedrank"
    score_text = pc.cast(pa.array(score), pa.string())
    rank_text = pc.cast(pa.array(rank), pa.string())
    # The last field carries the newline, so the joined array's data buffer *is* the file.
    lines = pc.binary_join_element_wise(query, "Q0", doc, rank_text, score_text, tag + "\n", " ")
    _write_lines(lines, dest)


def write_qrels(qrels: Qrels, dest: Any) -> None:
    """Write judgements as a 4-column TREC qrels file ``qid 0 docno grade``, in frame order.

    Parameters
    ----------
    qrels : Qrels
        The judgements to write.
    dest : str, os.PathLike or file-like
        A path (``.gz`` suffix: gzip-compressed) or an open binary or text file.

    Examples
    --------
    >>> import io
    >>> buf = io.BytesIO()
    >>> write_qrels(read_qrels(b"301 0 d1 2\\n"), buf)
    >>> buf.getvalue()
    b'301 0 d1 2\\n'
    """
    frame = qrels.frame
    query = _writable_ids(frame["query"], "query id", qrels.source)
    doc = _writable_ids(frame["doc"], "document id", qrels.source)
    grade = pc.cast(pa.array(frame["relevance"].to_numpy(dtype=np.int64)), pa.string())
    grade = pc.binary_join_element_wise(grade, "\n", "")
    lines = pc.binary_join_element_wise(query, "0", doc, grade, " ")
    _write_lines(lines, dest)


def detect_format(data: bytes, name: str | None = None) -> str:
    """Guess the format of raw file contents.

    Order: magic bytes (gzip is looked through, then Parquet's ``PAR1``), then the file
    extension (``.parquet``, ``.jsonl``/``.ndjson``, ``.csv``, ``.tsv``; others such as
    ``.txt``, ``.run``, ``.qrels`` say nothing), then the first non-empty line: ``{`` means
    JSON lines, a comma- or tab-separated header means CSV or TSV, 6 whitespace-separated
    fields a TREC run and 4 a TREC qrels file.

    Parameters
    ----------
    data : bytes
        File contents (possibly gzip-compressed).
    name : str, optional
        File name, for the extension and for messages.

    Returns
    -------
    str
        One of :data:`FORMATS`.

    Raises
    ------
    InputError
        ``"unknown format"`` (saying which formats are accepted), or ``"empty input"``.

    Examples
    --------
    >>> detect_format(b"301 Q0 d1 1 12.5 bm25\\n")
    'trec_run'
    >>> detect_format(b"qid,docno,score\\n301,d1,12.5\\n")
    'csv'
    """
    source = name or "<bytes>"
    if data[:2] == _GZIP_MAGIC:
        data = _gunzip_head(data, source)
    if data[:4] == _PARQUET_MAGIC:
        return "parquet"
    by_extension = _format_from_extension(name)
    if by_extension:
        return by_extension
    return _sniff(data[:1 << 16], source)


def list_columns(source: Any, *, format: str | None = None,
                 source_name: str | None = None) -> list[str]:
    """Column names of a tabular source, e.g. to build a column-mapping form.

    Parameters
    ----------
    source : str, os.PathLike, bytes, binary file-like or pandas.DataFrame
        A CSV, TSV, Parquet or JSON-lines file, or a DataFrame.
    format : str, optional
        Format; detected when omitted.
    source_name : str, optional
        Name used in messages.

    Returns
    -------
    list of str
        The header names (JSON lines: the keys of the first object, then any new keys of
        the next lines up to 1000).  TREC files have no header: ``[]``.

    Examples
    --------
    >>> list_columns(b"qid,docno,bm25\\n301,d1,12.5\\n")
    ['qid', 'docno', 'bm25']
    """
    loaded = _load(source, source_name)
    fmt = _choose_format(loaded, format)
    if fmt == "dataframe":
        return [str(c) for c in loaded.frame.columns]
    if fmt in ("csv", "tsv"):
        return [name.strip() for name in _csv_header(loaded, fmt)]
    if fmt == "parquet":
        return list(_parquet_file(loaded).schema_arrow.names)
    if fmt == "jsonl":
        names: dict[str, None] = {}
        for count, (line_no, text) in enumerate(_nonblank_lines(loaded.data)):
            if count >= 1000:
                break
            names.update(dict.fromkeys(_json_object(text, line_no, loaded.name)))
        return list(names)
    return []


# --------------------------------------------------------------------------------------------
# Loading: every source becomes UTF-8-checked bytes (or a DataFrame) plus names
# --------------------------------------------------------------------------------------------

@dataclass
class _Loaded:
    name: str                        # for messages and Run.source
    filename: str | None             # for the extension and the run name; .gz stripped
    data: bytes = b""                # decompressed, BOM stripped
    frame: pd.DataFrame | None = None


@dataclass
class _Columns:
    """Raw columns from a reader, before type checks."""

    query: pa.ChunkedArray
    doc: pa.ChunkedArray
    value: pa.ChunkedArray
    locate: Locator


def _load(source: Any, source_name: str | None) -> _Loaded:
    if isinstance(source, pd.DataFrame):
        return _Loaded(name=source_name or "<DataFrame>", filename=None, frame=source)
    if isinstance(source, str) and ("\n" in source or len(source) > 4096):
        raise TypeError("a str source is a file path; pass file contents as bytes")
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as handle:
            raw = handle.read()
        name, filename = source_name or str(path), str(path)
    elif isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
        name, filename = source_name or "<bytes>", source_name
    elif hasattr(source, "getvalue") or hasattr(source, "read"):
        # getvalue() first: it returns the whole upload even if someone already read it.
        raw = source.getvalue() if hasattr(source, "getvalue") else source.read()
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        file_name = getattr(source, "name", None)
        file_name = str(file_name) if isinstance(file_name, (str, os.PathLike)) else None
        name, filename = source_name or file_name or "<file>", file_name or source_name
    else:
        raise TypeError(f"cannot read from {type(source).__name__}; pass a path, bytes, "
                        "a binary file object or a pandas DataFrame")
    if raw[:2] == _GZIP_MAGIC:
        raw = _gunzip(raw, name)
    if filename and filename.lower().endswith((".gz", ".gzip")):
        filename = filename.rsplit(".", 1)[0]
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    return _Loaded(name=name, filename=filename, data=raw)


def _gunzip(raw: bytes, source: str) -> bytes:
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError("corrupt gzip data", source=source, text=str(exc),
                         expected="a complete gzip stream") from None


def _gunzip_head(raw: bytes, source: str, size: int = 1 << 16) -> bytes:
    """The first ``size`` decompressed bytes (detection need not inflate everything)."""
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, size)
    except zlib.error as exc:
        raise InputError("corrupt gzip data", source=source, text=str(exc),
                         expected="a complete gzip stream") from None


def _check_utf8(data: bytes, source: str) -> None:
    """Raise on the first byte sequence that is not UTF-8, naming its line."""
    if data.isascii():  # C-speed scan; almost every run and qrels file is pure ASCII
        return
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        raise InputError("undecodable bytes (not UTF-8)", source=source, line=1,
                         expected="UTF-8 text (this file looks like UTF-16)")
    view, position, step = memoryview(data), 0, 1 << 20
    while position < len(data):
        try:
            # final=False: a character cut at the chunk end is left for the next round
            _, used = codecs.utf_8_decode(view[position:position + step], "strict",
                                          position + step >= len(data))
        except UnicodeDecodeError as exc:
            bad = position + exc.start
            line_start = data.rfind(b"\n", 0, bad) + 1
            line_end = data.find(b"\n", bad)
            text = data[line_start:None if line_end < 0 else line_end]
            raise InputError("undecodable bytes (not UTF-8)", source=source,
                             line=data.count(b"\n", 0, bad) + 1,
                             text=text.decode("utf-8", "replace").rstrip("\r"),
                             expected="UTF-8 text") from None
        position += used


def _choose_format(loaded: _Loaded, format: str | None) -> str:
    if loaded.frame is not None:
        return "dataframe"  # a DataFrame is read like a tabular file, whatever format says
    if format is not None:
        fmt = format.strip().lower()
        if fmt not in FORMATS:
            raise InputError("unknown format", source=loaded.name, text=format,
                             expected="one of " + ", ".join(FORMATS))
    if not loaded.data or loaded.data.isspace():  # isspace() stops at the first non-blank
        raise InputError("empty input", source=loaded.name, expected="at least one data row")
    if format is None:
        fmt = detect_format(loaded.data, loaded.filename or loaded.name)
    if fmt != "parquet":
        _check_utf8(loaded.data, loaded.name)
    return fmt


def _format_from_extension(name: str | None) -> str | None:
    if not name:
        return None
    lower = name.lower()
    if lower.endswith((".gz", ".gzip")):
        lower = lower.rsplit(".", 1)[0]
    for suffixes, fmt in (((".parquet", ".pq"), "parquet"), ((".jsonl", ".ndjson"), "jsonl"),
                          ((".csv",), "csv"), ((".tsv",), "tsv")):
        if lower.endswith(suffixes):
            return fmt
    return None


def _sniff(head: bytes, source: str) -> str:
    """Decide from the first non-empty line (see :func:`detect_format`)."""
    if b"\0" in head or head[:4] == b"PK\x03\x04":
        raise InputError("unknown format", source=source,
                         text="binary data (zip, xlsx and similar are not read)",
                         expected=_ACCEPTED)
    line_no, line = _first_line(head)
    if line is None:
        raise InputError("empty input", source=source, expected="at least one data row")
    stripped = line.strip()
    if stripped.startswith("{"):
        return "jsonl"
    if _is_trec_shaped(stripped):
        return "trec_run" if len(_blank_split(stripped)) == 6 else "trec_qrels"
    for delimiter, fmt in ((",", "csv"), ("\t", "tsv")):
        if delimiter in stripped and _looks_like_header(stripped, delimiter):
            return fmt
    fields = _blank_split(stripped)
    if len(fields) == 6 and "," not in stripped:
        return "trec_run"
    if len(fields) == 4 and "," not in stripped:
        return "trec_qrels"
    raise InputError("unknown format", source=source, line=line_no, text=line,
                     expected=_ACCEPTED)


def _is_trec_shaped(line: str) -> bool:
    """6 fields with a numeric 5th, or 4 with an integer 4th: never a header."""
    fields = _blank_split(line)
    if len(fields) == 6:
        return bool(_FLOAT_MATCH(fields[4]) or _NONFINITE_MATCH(fields[4]))
    if len(fields) == 4:
        return bool(_INT_MATCH(fields[3]))
    return False


def _looks_like_header(line: str, delimiter: str) -> bool:
    """At least two non-empty names, none of them a number."""
    fields = [f.strip() for f in next(csv.reader([line], delimiter=delimiter))]
    return (len(fields) >= 2 and all(fields)
            and not any(_FLOAT_MATCH(f) or _NONFINITE_MATCH(f) for f in fields))


def _stem(filename: str | None) -> str | None:
    if not filename or filename.startswith("<"):
        return None
    base = Path(filename).name
    return base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base


# --------------------------------------------------------------------------------------------
# Lines (error paths only)
# --------------------------------------------------------------------------------------------

def _lines(data: bytes) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without line end); \\n, \\r\\n and \\r end a line, as for
    pyarrow.  Lazy, so scanning a big file does not build a list of its lines."""
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline=None)
    for number, line in enumerate(stream, 1):
        yield number, line.rstrip("\n")


def _nonblank_lines(data: bytes) -> Iterator[tuple[int, str]]:
    for number, line in _lines(data):
        if line.strip(_BLANKS):
            yield number, line


def _first_line(data: bytes) -> tuple[int | None, str | None]:
    for number, line in _nonblank_lines(data):
        return number, line
    return None, None


def _blank_split(line: str) -> list[str]:
    """Split on ASCII blanks only (not on Unicode spaces such as U+00A0), like C tools do."""
    stripped = line.strip(_BLANKS)
    return _BLANK_SPLIT.split(stripped) if stripped else []


def _text_locator(data: bytes, skip_rows: int = 0) -> Locator:
    """Row i -> the (i + skip_rows)-th non-blank line (blank lines are skipped by parsers)."""
    def locate(row: int) -> tuple[int | None, str | None]:
        for index, (number, line) in enumerate(_nonblank_lines(data)):
            if index == row + skip_rows:
                return number, line
        return None, None
    return locate


def _first_true(mask: pa.ChunkedArray | pa.Array | np.ndarray) -> int | None:
    """Index of the first true value (null counts as false), or None."""
    if isinstance(mask, np.ndarray):
        hits = np.flatnonzero(mask)
        return int(hits[0]) if len(hits) else None
    index = pc.index(pc.fill_null(mask, False), True).as_py()
    return None if index < 0 else index


def _fail(problem: str, row: int, locate: Locator, source: str, expected: str) -> InputError:
    line, text = locate(row)
    return InputError(problem, source=source, line=line, text=text, expected=expected)


# --------------------------------------------------------------------------------------------
# TREC text files
# --------------------------------------------------------------------------------------------

def _read_trec(loaded: _Loaded, *, ncols: int, value_col: int,
               value_type: pa.DataType) -> tuple[_Columns, str | None]:
    """Parse a TREC run/qrels; returns the raw columns and the first line's tag (runs)."""
    data, source = loaded.data, loaded.name
    expected = _TREC_RUN_EXPECTED if ncols == 6 else _TREC_QRELS_EXPECTED
    line_no, first = _first_line(data)
    if first is None:
        raise InputError("empty input", source=source, expected="at least one data row")
    fields = _blank_split(first)
    if len(fields) != ncols:
        # pyarrow takes the column count from the first row, so check it here.
        raise InputError(f"wrong number of columns (found {len(fields)})", source=source,
                         line=line_no, text=first, expected=expected)
    tag = fields[5] if ncols == 6 else None

    # Fast path: one delimiter character throughout.  Blank runs, leading or trailing blanks
    # show up as empty fields (or a column-count error), in which case we normalise and retry.
    has_tab = b"\t" in data
    delimiter = None
    if not has_tab and len(first.split(" ")) == ncols:
        delimiter = " "
    elif has_tab and len(first.split("\t")) == ncols and b" " not in data:
        delimiter = "\t"
    table = None
    if delimiter is not None:
        try:
            table = _parse_trec(data, delimiter, ncols, value_col, value_type)
        except pa.ArrowInvalid as exc:
            # Irregular blanks only ever cause column-count errors or empty fields; a failed
            # conversion means a bad value, so look for it right away (this raises).
            if "conversion error" in str(exc):
                _scan_trec(data, source, ncols, value_col, value_type, expected)
            table = None
        if table is not None and _has_empty_field(table):
            table = None
    if table is None:
        try:
            table = _parse_trec(_squeeze_blanks(data), " ", ncols, value_col, value_type)
        except pa.ArrowInvalid as exc:
            _scan_trec(data, source, ncols, value_col, value_type, expected)
            raise InputError(f"unreadable TREC file: {exc}", source=source,
                             expected=expected) from None
    locate = _text_locator(data)
    value = table.column(f"f{value_col}")
    return _Columns(table.column("f0"), table.column("f2"), value, locate), tag


def _parse_trec(data: bytes | np.ndarray, delimiter: str, ncols: int, value_col: int,
                value_type: pa.DataType) -> pa.Table:
    names = [f"f{i}" for i in range(ncols)]
    # The ignored columns are read too (as cheap strings) so that an empty field, i.e. two
    # delimiters in a row, is noticed in any column; they are dropped right after the check.
    types = {name: pa.string() for name in names}
    types[f"f{value_col}"] = value_type
    return pacsv.read_csv(
        pa.py_buffer(data),
        read_options=pacsv.ReadOptions(column_names=names, block_size=_BLOCK_SIZE),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                          double_quote=False, escape_char=False,
                                          newlines_in_values=False, ignore_empty_lines=True),
        convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                             strings_can_be_null=False,
                                             quoted_strings_can_be_null=False),
    )


def _has_empty_field(table: pa.Table) -> bool:
    for name in table.column_names:
        column = table.column(name)
        if pa.types.is_string(column.type) and len(column) and \
                pc.min(pc.binary_length(column)).as_py() == 0:
            return True
    return False


def _squeeze_blanks(data: bytes) -> np.ndarray:
    """Rewrite irregular whitespace so that single spaces separate fields.

    Runs of blanks become one space; blanks at the start or end of a line are removed (so
    blank-only lines become empty and are skipped); \\r\\n and \\r become \\n.  Newlines
    are kept, so line numbers do not change.  Works on 16 MB slices cut at line ends (bounded
    memory), on two threads (numpy releases the GIL).
    """
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    buffer = np.frombuffer(data, dtype=np.uint8)
    bounds, start, size = [], 0, len(buffer)
    while start < size:
        end = min(start + _BLOCK_SIZE, size)
        if end < size:
            newline = data.find(b"\n", end)
            end = size if newline < 0 else newline + 1
        bounds.append((start, end))
        start = end
    pieces = _parallel_map(lambda bound: _squeeze_chunk(buffer[bound[0]:bound[1]]), bounds)
    return np.concatenate(pieces) if len(pieces) != 1 else pieces[0]


_IS_BLANK = np.zeros(256, dtype=bool)
_IS_BLANK[[9, 11, 12, 32]] = True
_TO_SPACE = np.arange(256, dtype=np.uint8)
_TO_SPACE[[9, 11, 12]] = 32


def _parallel_map(function: Callable[[Any], Any], items: Any) -> list[Any]:
    """``list(map(function, items))``, on two threads when there is more than one item.

    Only used for numpy work on large arrays, which releases the GIL.
    """
    items = list(items)
    if len(items) < 2 or _WORKERS < 2:
        return [function(item) for item in items]
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        return list(pool.map(function, items))


def _squeeze_chunk(chunk: np.ndarray) -> np.ndarray:
    blank = _IS_BLANK[chunk]
    size = len(chunk)
    if size == 0 or not blank.any():
        return chunk
    # runs of blanks: [run_start[k], run_end[k]] inclusive
    run_start = np.flatnonzero(blank[1:] & ~blank[:-1]) + 1
    run_end = np.flatnonzero(blank[:-1] & ~blank[1:])
    if blank[0]:
        run_start = np.concatenate(([0], run_start))
    if blank[-1]:
        run_end = np.concatenate((run_end, [size - 1]))
    # A run is leading if it starts the chunk (chunks start at line starts) or follows \n,
    # trailing if it ends the chunk (the last one may lack a final \n) or precedes \n.
    leading = (run_start == 0) | (chunk[run_start - 1] == 10)
    after = np.minimum(run_end + 1, size - 1)
    trailing = (run_end == size - 1) | (chunk[after] == 10)
    keep = ~blank
    keep[run_start[~(leading | trailing)]] = True
    return _TO_SPACE[chunk[keep]]


def _scan_trec(data: bytes, source: str, ncols: int, value_col: int,
               value_type: pa.DataType, expected: str) -> None:
    """Error path: find the first bad line in Python and raise for it."""
    integer = pa.types.is_string(value_type)  # qrels grades are read as text, then checked
    for number, line in _nonblank_lines(data):
        fields = _blank_split(line)
        if len(fields) != ncols:
            raise InputError(f"wrong number of columns (found {len(fields)})", source=source,
                             line=number, text=line, expected=expected)
        value = fields[value_col]
        if integer and not _INT_MATCH(value):
            raise InputError("non-integer grade", source=source, line=number, text=line,
                             expected=_INTEGER)
        if not integer and not (_FLOAT_MATCH(value) or _NONFINITE_MATCH(value)):
            what = "non-numeric score" if ncols == 6 else "non-numeric grade"
            raise InputError(what, source=source, line=number, text=line, expected=_FINITE)


# --------------------------------------------------------------------------------------------
# Tabular files and DataFrames
# --------------------------------------------------------------------------------------------

def _read_tabular(loaded: _Loaded, fmt: str, roles: tuple[str, str, str],
                  mapping: Mapping[str, str] | None) -> _Columns:
    if fmt in ("csv", "tsv"):
        table, locate = _read_csv(loaded, fmt, roles, mapping)
    elif fmt == "parquet":
        parquet = _parquet_file(loaded)
        resolved = _resolve_columns(list(parquet.schema_arrow.names), roles, mapping, loaded.name)
        try:
            table = parquet.read(columns=list(dict.fromkeys(resolved.values())))
        except (pa.ArrowException, OSError) as exc:
            raise InputError("unreadable Parquet file", source=loaded.name, text=str(exc),
                             expected="a valid Parquet file") from None
        table = pa.table({role: table.column(resolved[role]) for role in roles})
        locate = _row_locator(table, resolved)
    elif fmt == "jsonl":
        table, locate = _read_jsonl(loaded, roles, mapping)
    elif fmt == "dataframe":
        frame = loaded.frame
        resolved = _resolve_columns([str(c) for c in frame.columns], roles, mapping, loaded.name)
        by_name = {str(c): c for c in frame.columns}
        table = pa.table({role: _arrow_from_series(frame[by_name[resolved[role]]])
                          for role in roles})
        locate = _row_locator(table, resolved)
    else:  # pragma: no cover - _choose_format only returns known formats
        raise AssertionError(fmt)
    if table.num_rows == 0:
        raise InputError("empty input", source=loaded.name, expected="at least one data row")
    columns = [table.column(role) for role in roles]
    return _Columns(columns[0], columns[1], columns[2], locate)


def _resolve_columns(found: list[str], roles: tuple[str, ...],
                     mapping: Mapping[str, str] | None, source: str) -> dict[str, str]:
    """Our role -> the file's column name, by explicit mapping, else by alias."""
    mapping = dict(mapping or {})
    unknown = sorted(set(mapping) - set(roles))
    if unknown:
        raise InputError(f"unknown key(s) in columns mapping: {', '.join(unknown)}",
                         source=source, expected="keys among " + ", ".join(roles))
    folded: dict[str, str] = {}
    for name in found:
        folded.setdefault(name.strip().casefold(), name)
    resolved: dict[str, str] = {}
    missing: list[str] = []
    for role in roles:
        if role in mapping:
            wanted = str(mapping[role])
            hit = wanted if wanted in found else folded.get(wanted.strip().casefold())
            if hit is None:
                missing.append(f"{role} (mapped to {wanted!r})")
            else:
                resolved[role] = hit
            continue
        hit = next((folded[a] for a in ALIASES[role] if a in folded), None)
        if hit is None:
            missing.append(role)
        else:
            resolved[role] = hit
    if missing:
        wanted = "; ".join(f"{role}: one of {', '.join(ALIASES[role])}" for role in roles)
        raise InputError(
            f"missing required columns: {', '.join(missing)}", source=source,
            expected=(f"columns named ({wanted}), or a columns= mapping; "
                      f"found columns: {', '.join(repr(f) for f in found) or 'none'}"))
    return resolved


def _csv_header(loaded: _Loaded, fmt: str) -> list[str]:
    """The header fields as written (pyarrow keeps them verbatim; matching strips them)."""
    _, line = _first_line(loaded.data)
    if line is None:
        raise InputError("empty input", source=loaded.name, expected="a header row")
    return next(csv.reader([line], delimiter="," if fmt == "csv" else "\t"))


def _read_csv(loaded: _Loaded, fmt: str, roles: tuple[str, ...],
              mapping: Mapping[str, str] | None) -> tuple[pa.Table, Locator]:
    delimiter = "," if fmt == "csv" else "\t"
    header = _csv_header(loaded, fmt)
    resolved = _resolve_columns(header, roles, mapping, loaded.name)
    wanted = list(dict.fromkeys(resolved.values()))
    try:
        # Everything is read as text: ids keep leading zeros ("0301"), numbers are checked
        # by _as_float/_as_int with the same rules for every format.
        table = pacsv.read_csv(
            pa.py_buffer(loaded.data),
            read_options=pacsv.ReadOptions(block_size=_BLOCK_SIZE),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                include_columns=wanted, column_types={c: pa.string() for c in wanted},
                null_values=[], strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except pa.ArrowInvalid as exc:
        _scan_csv(loaded, delimiter, len(header))
        raise InputError(f"unreadable {fmt.upper()} file: {exc}", source=loaded.name,
                         expected=f"{len(header)} fields per row, as in the header") from None
    table = pa.table({role: table.column(resolved[role]) for role in roles})
    return table, _csv_locator(loaded.data, delimiter)


def _csv_records(data: bytes, delimiter: str) -> Iterator[tuple[int, str, list[str]]]:
    """(first line number, raw text, fields) for each non-blank record, header included."""
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline="")
    consumed: list[str] = []

    def feed() -> Iterator[str]:
        for physical in stream:
            consumed.append(physical)
            yield physical

    reader = csv.reader(feed(), delimiter=delimiter)
    for fields in reader:
        raw, count = "".join(consumed), len(consumed)
        consumed.clear()
        if fields:  # csv yields [] for an empty line; pyarrow skips those too
            yield reader.line_num - count + 1, raw.rstrip("\r\n"), fields


def _csv_locator(data: bytes, delimiter: str) -> Locator:
    def locate(row: int) -> tuple[int | None, str | None]:
        for index, (number, raw, _) in enumerate(_csv_records(data, delimiter)):
            if index == row + 1:  # record 0 is the header
                return number, raw
        return None, None
    return locate


def _scan_csv(loaded: _Loaded, delimiter: str, width: int) -> None:
    kind = "CSV" if delimiter == "," else "TSV"
    for index, (number, raw, fields) in enumerate(_csv_records(loaded.data, delimiter)):
        if index and len(fields) != width:
            raise InputError(f"wrong number of columns (found {len(fields)})",
                             source=loaded.name, line=number, text=raw,
                             expected=f"{width} {kind} fields per row, as in the header")


def _parquet_file(loaded: _Loaded) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(pa.BufferReader(loaded.data))
    except (pa.ArrowException, OSError) as exc:
        raise InputError("unreadable Parquet file", source=loaded.name, text=str(exc),
                         expected="a valid Parquet file") from None


def _json_object(text: str, line_no: int, source: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise InputError(f"invalid JSON ({exc.args[0].split(':')[0]})", source=source,
                         line=line_no, text=text, expected="one JSON object per line") from None
    if not isinstance(value, dict):
        raise InputError("not a JSON object", source=source, line=line_no, text=text,
                         expected="one JSON object per line")
    return value


def _read_jsonl(loaded: _Loaded, roles: tuple[str, ...],
                mapping: Mapping[str, str] | None) -> tuple[pa.Table, Locator]:
    locate = _text_locator(loaded.data)
    try:
        table = pajson.read_json(pa.BufferReader(loaded.data),
                                 read_options=pajson.ReadOptions(block_size=_BLOCK_SIZE))
    except pa.ArrowInvalid:
        table = None  # bad JSON, or a key whose type varies between lines: go line by line
    if table is not None:
        resolved = _resolve_columns(table.column_names, roles, mapping, loaded.name)
        return pa.table({role: table.column(resolved[role]) for role in roles}), locate
    resolved: dict[str, str] | None = None
    values: dict[str, list[Any]] = {role: [] for role in roles}
    for line_no, text in _nonblank_lines(loaded.data):
        record = _json_object(text, line_no, loaded.name)
        if resolved is None:
            resolved = _resolve_columns(list(record), roles, mapping, loaded.name)
        for role in roles:
            values[role].append(_json_cell(record.get(resolved[role])))
    if resolved is None:
        raise InputError("empty input", source=loaded.name, expected="at least one data row")
    # Mixed types were turned into text; _as_ids/_as_float/_as_int check them as for CSV.
    return pa.table({role: pa.array(values[role], pa.string()) for role in roles}), locate


def _json_cell(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value)  # reported as non-numeric / odd id by the checks
    return str(value)


def _arrow_from_series(series: pd.Series) -> pa.ChunkedArray:
    try:
        return pa.chunked_array([pa.array(series, from_pandas=True)])
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # An object column mixing e.g. ints and strings: compare it as text.
        text = [None if _is_missing(v) else _json_cell(v) for v in series]
        return pa.chunked_array([pa.array(text, pa.string())])


def _is_missing(value: Any) -> bool:
    return (value is None or value is pd.NA or value is pd.NaT
            or (isinstance(value, float) and math.isnan(value)))


def _row_locator(table: pa.Table, resolved: Mapping[str, str]) -> Locator:
    """For Parquet and DataFrames: row i is 'line' i + 1; text shows the mapped fields."""
    def locate(row: int) -> tuple[int | None, str | None]:
        cells = [f"{resolved[role]}={table.column(role)[row].as_py()!r}"
                 for role in table.column_names]
        return row + 1, ", ".join(cells)
    return locate


# --------------------------------------------------------------------------------------------
# Column checks (shared by every format)
# --------------------------------------------------------------------------------------------

def _decode(column: pa.ChunkedArray) -> pa.ChunkedArray:
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if pa.types.is_string_view(column.type):
        column = column.cast(pa.string())
    return column


def _as_ids(column: pa.ChunkedArray, what: str, locate: Locator, source: str,
            trim: bool) -> pa.ChunkedArray:
    """Query or document ids as non-empty strings (integers become their decimal text).

    ``trim`` strips blanks around ids (spaces after commas in hand-made CSVs); TREC ids
    cannot contain blanks, so the TREC readers skip that pass.
    """
    column = _decode(column)
    kind = column.type
    if column.null_count:
        raise _fail(f"missing {what}", _first_true(pc.is_null(column)), locate, source,
                    f"a {what} in every row")
    if pa.types.is_floating(kind):
        integral = pc.and_(pc.is_finite(column), pc.equal(pc.floor(column), column))
        bad = _first_true(pc.invert(integral))
        if bad is not None:
            raise _fail(f"non-integer {what}", bad, locate, source, f"a text or integer {what}")
        column = column.cast(pa.int64())
        kind = column.type
    if pa.types.is_integer(kind):
        return column.cast(pa.string())
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        try:
            column = column.cast(pa.string())
        except pa.ArrowInvalid:
            raise InputError(f"undecodable bytes (not UTF-8) in {what}", source=source,
                             expected="UTF-8 text") from None
        kind = column.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        raise _fail(f"unsupported {what} type {kind}", 0, locate, source,
                    f"a text or integer {what}")
    if trim:
        column = pc.utf8_trim(column, _BLANKS)
    empty = _first_true(pc.equal(pc.binary_length(column), 0))
    if empty is not None:
        raise _fail(f"empty {what}", empty, locate, source, f"a non-empty {what}")
    return column


def _as_float(column: pa.ChunkedArray, locate: Locator, source: str) -> pa.ChunkedArray:
    """Scores as finite float64."""
    column = _decode(column)
    if column.null_count:
        raise _fail("missing score", _first_true(pc.is_null(column)), locate, source, _FINITE)
    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        column = pc.utf8_trim(column, _BLANKS)
        bad = _first_true(pc.invert(pc.match_substring_regex(column, _FLOAT_RE)))
        if bad is not None:
            value = column[bad].as_py()
            problem = "NaN or infinite score" if _NONFINITE_MATCH(value) else "non-numeric score"
            raise _fail(problem, bad, locate, source, _FINITE)
    elif not (pa.types.is_integer(kind) or pa.types.is_floating(kind)
              or pa.types.is_decimal(kind) or pa.types.is_boolean(kind)):
        raise _fail(f"non-numeric score (type {kind})", 0, locate, source, _FINITE)
    column = column.cast(pa.float64())
    bad = _first_true(pc.invert(pc.is_finite(column)))
    if bad is not None:  # NaN, inf, or a decimal too large for float64 ("1e999")
        raise _fail("NaN or infinite score", bad, locate, source, _FINITE)
    return column


def _as_int(column: pa.ChunkedArray, locate: Locator, source: str) -> pa.ChunkedArray:
    """Relevance grades as int64."""
    column = _decode(column)
    if column.null_count:
        raise _fail("missing grade", _first_true(pc.is_null(column)), locate, source, _INTEGER)
    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        column = pc.utf8_trim(column, _BLANKS)
        bad = _first_true(pc.invert(pc.match_substring_regex(column, _INT_RE)))
        if bad is not None:
            raise _fail("non-integer grade", bad, locate, source, _INTEGER)
        column = pc.utf8_ltrim(column, "+")  # pyarrow's integer cast rejects a plus sign
    elif pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        column = column.cast(pa.float64())
        integral = pc.and_(pc.is_finite(column), pc.equal(pc.floor(column), column))
        bad = _first_true(pc.invert(integral))
        if bad is not None:
            raise _fail("non-integer grade", bad, locate, source, _INTEGER)
    elif not (pa.types.is_integer(kind) or pa.types.is_boolean(kind)):
        raise _fail(f"non-integer grade (type {kind})", 0, locate, source, _INTEGER)
    try:
        return column.cast(pa.int64())
    except (pa.ArrowInvalid, OverflowError):
        raise InputError("grade out of range", source=source, expected=_INTEGER) from None


def _check_duplicates(table: pa.Table, locate: Locator, source: str, policy: str,
                      kind: str) -> tuple[pa.Table, list[Finding]]:
    """Reject (or, for runs with policy "max", resolve) a (query, doc) seen twice."""
    rows = _duplicate_rows(table.column("query"), table.column("doc"))
    if rows is None:
        return table, []
    sub = pd.DataFrame({
        "query": table.column("query").take(pa.array(rows)).to_pylist(),
        "doc": table.column("doc").take(pa.array(rows)).to_pylist(),
        "row": rows,
    })
    if policy == "error":
        repeat = sub[sub.duplicated(["query", "doc"], keep="first")].iloc[0]
        first = sub[(sub["query"] == repeat["query"]) & (sub["doc"] == repeat["doc"])].iloc[0]
        first_line, _ = locate(int(first["row"]))
        if kind == "run":
            problem = "duplicate document within a query"
            expected = (f"each document at most once per query; {repeat['doc']!r} was first "
                        f"seen for query {repeat['query']!r} on line {first_line}; pass "
                        "duplicates='max' to keep the highest score")
        else:
            problem = "duplicate judgement"
            expected = (f"one judgement per (query, doc); {repeat['doc']!r} was first judged "
                        f"for query {repeat['query']!r} on line {first_line}")
        raise _fail(problem, int(repeat["row"]), locate, source, expected)
    # policy "max": keep the highest-scoring row of each group (the earliest among equals)
    sub["score"] = table.column("score").take(pa.array(rows)).to_numpy()
    ordered = sub.sort_values("score", ascending=False, kind="stable")
    dropped = ordered.loc[ordered.duplicated(["query", "doc"], keep="first")]
    keep = np.ones(table.num_rows, dtype=bool)
    keep[dropped["row"].to_numpy()] = False
    queries = tuple(dict.fromkeys(dropped.sort_values("row")["query"]))  # file order
    finding = Finding(
        kind="duplicates_kept_max",
        message=(f"{len(dropped)} duplicate (query, doc) row(s) in {len(queries)} "
                 f"quer{'y' if len(queries) == 1 else 'ies'} dropped; the highest score was kept"),
        source=source, count=len(queries), queries=queries[:20])
    return table.filter(pa.array(keep)), [finding]


# splitmix64 constants (Steele, Lea & Flood 2014): a cheap, well-mixing 64-bit finaliser.
_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)
_BYTE_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)], dtype=np.uint64)


def _mix(x: np.ndarray) -> np.ndarray:
    x = x ^ (x >> np.uint64(30))
    x = x * _M2
    x = x ^ (x >> np.uint64(27))
    x = x * _M3
    return x ^ (x >> np.uint64(31))


def _hash_strings(column: pa.ChunkedArray) -> np.ndarray:
    """A 64-bit hash per string, vectorised over Arrow's offset/data buffers.

    Hashing 7 million short ids this way is several times faster than building a hash
    table of the strings themselves (pandas/pyarrow), which is what makes the duplicate
    check affordable on big runs.  Collisions only cost time: candidates are re-checked
    exactly.
    """
    parts = []
    for chunk in column.chunks:
        n = len(chunk)
        if n == 0:
            continue
        large = pa.types.is_large_string(chunk.type)
        width = 8 if large else 4
        _, offsets_buffer, data_buffer = chunk.buffers()
        offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if large else np.int32,
                                count=n + 1, offset=chunk.offset * width).astype(np.int64)
        low, high = int(offsets[0]), int(offsets[-1])
        padded = np.zeros(high - low + 8, dtype=np.uint8)
        if high > low:
            padded[:high - low] = np.frombuffer(data_buffer, dtype=np.uint8,
                                                count=high - low, offset=low)
        # every byte position seen as the start of an (unaligned) little-endian 8-byte word
        words = np.ndarray(shape=(high - low + 1,), dtype="<u8", buffer=padded, strides=(1,))
        starts = offsets[:-1] - low
        lengths = offsets[1:] - offsets[:-1]
        h = _mix(lengths.astype(np.uint64) + _M1)
        for w in range(int((lengths.max() + 7) // 8)):
            remaining = lengths - 8 * w
            word = words[np.minimum(starts + 8 * w, high - low)]
            word = np.where(remaining >= 8, word, word & _BYTE_MASKS[np.clip(remaining, 0, 7)])
            # strings already consumed keep their hash: the result must not depend on the
            # longest string of the chunk (equal ids in different chunks must collide)
            h = np.where(remaining > 0, _mix(h ^ (word * _M1)), h)
        parts.append(h)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


def _duplicate_rows(query: pa.ChunkedArray, doc: pa.ChunkedArray) -> np.ndarray | None:
    """Sorted row numbers of every row whose (query, doc) occurs more than once, or None.

    A 64-bit hash of (query, doc) per row, then a sort of the hashes: equal neighbours are
    candidates, checked exactly.  Hashing works on slices of a million rows and the sort on
    two halves (split by a hash bit, so equal keys stay together), each on a thread: numpy
    releases the GIL, so this uses both cores of a small machine.
    """
    n = len(query)
    if n < 2:
        return None
    step = 1 << 20
    key = np.concatenate(_parallel_map(
        lambda start: _pair_hash(query.slice(start, step), doc.slice(start, step)),
        range(0, n, step)))
    if n > step:
        upper = (key >> np.uint64(63)).astype(bool)
        halves = _parallel_map(np.sort, [key[upper], key[~upper]])
    else:
        halves = [np.sort(key)]
    repeated = np.concatenate([h[1:][h[1:] == h[:-1]] for h in halves])
    if len(repeated) == 0:
        return None
    candidates = np.flatnonzero(np.isin(key, repeated))
    # exact check on the (few) candidates: equal hashes need not be equal ids
    sub = pd.DataFrame({"q": query.take(pa.array(candidates)).to_pylist(),
                        "d": doc.take(pa.array(candidates)).to_pylist()})
    exact = sub.duplicated(keep=False).to_numpy()
    return candidates[exact] if exact.any() else None


def _pair_hash(query: pa.ChunkedArray, doc: pa.ChunkedArray) -> np.ndarray:
    # Queries repeat (a few thousand distinct ids), so hash each distinct one once.
    encoded = query.combine_chunks().dictionary_encode()
    query_hash = _hash_strings(pa.chunked_array([encoded.dictionary]))
    query_hash = query_hash[encoded.indices.to_numpy(zero_copy_only=False)]
    return _mix(query_hash * _M3 ^ _hash_strings(doc))


def _to_frame(table: pa.Table, names: tuple[str, ...]) -> pd.DataFrame:
    frame = table.to_pandas(types_mapper=lambda t: _STR_DTYPE if (
        pa.types.is_string(t) or pa.types.is_large_string(t)) else None)
    frame.columns = list(names)
    return frame


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

def _writable_ids(series: pd.Series, what: str, source: str) -> pa.Array:
    column = pa.array(series.astype(_STR_DTYPE), type=pa.string(), from_pandas=True)
    bad = pc.or_(pc.match_substring_regex(column, r"\s"), pc.equal(pc.binary_length(column), 0))
    row = _first_true(pc.fill_null(bad, True))
    if row is not None:
        raise InputError(f"{what} cannot be written to a TREC file", source=source,
                         line=row + 1, text=str(column[row].as_py()),
                         expected=f"a non-empty {what} without whitespace")
    return column


def _ranks(query: pd.Series, score: np.ndarray) -> np.ndarray:
    """1-based rank by descending score within each query; ties keep frame order."""
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
        large = pa.types.is_large_string(chunk.type)
        offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int64 if large else np.int32,
                                count=len(chunk) + 1, offset=chunk.offset * (8 if large else 4))
        pieces.append(chunk.buffers()[2][int(offsets[0]):int(offsets[-1])])
    if isinstance(dest, (str, os.PathLike)):
        path = os.fspath(dest)
        opener = gzip.open if str(path).lower().endswith(".gz") else open
        with opener(path, "wb") as handle:
            for piece in pieces:
                handle.write(piece)
    elif isinstance(dest, io.TextIOBase):
        for piece in pieces:
            dest.write(piece.to_pybytes().decode("utf-8"))
    else:
        for piece in pieces:
            dest.write(piece)
