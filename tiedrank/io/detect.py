"""Which format a file is in: magic bytes, then the extension, then the first line."""
from __future__ import annotations

import csv
from typing import Any

from ..core.errors import InputError
from ..core.validation import Options
from ._lz4 import LZ4_MAGIC
from ._load import (GZIP_MAGIC, Loaded, check_utf8, gunzip, input_limits, wide_encoding,
                    wide_text_error, without_gzip_suffix)
from .nested_json import looks_nested
from ._text import BLANKS, INT_MATCH, blank_comments, blank_split, first_line, is_number

FORMATS = ("trec_run", "trec_qrels", "csv", "tsv", "parquet", "jsonl", "json")

ACCEPTED = ("a TREC run (qid Q0 docno rank score tag), TREC qrels (qid iter docno grade), "
            "CSV or TSV with a header row, Parquet, JSON lines, or one JSON object "
            "{query: {doc: value}} as ranx saves it (optionally gzip-compressed)")

_PARQUET_MAGIC = b"PAR1"
_EXTENSIONS = (((".parquet", ".pq"), "parquet"), ((".jsonl", ".ndjson"), "jsonl"),
               ((".csv",), "csv"), ((".tsv",), "tsv"))
_SNIFF_BYTES = 1 << 16


class _AnyCase(Options):
    """One of the values, in any letter case and with blanks around (``"TREC_RUN "``)."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and value.strip().lower() in self.values


FORMAT_OPTION = [_AnyCase(*FORMATS), None]
"""The constraint of every reader's ``format=`` (:func:`tiedrank.core.validation.check` form)."""


def detect_format(data: bytes, name: str | None = None) -> str:
    """Guess the format of raw file contents.

    Order: magic bytes (an LZ4 frame is ranx's ``.lz4`` file, read as ``json``; gzip is
    looked through, then Parquet's ``PAR1``), then the file
    extension (``.parquet``, ``.jsonl``/``.ndjson``, ``.csv``, ``.tsv``; others such as
    ``.txt``, ``.run``, ``.qrels`` say nothing), then the first non-empty line: ``{`` means
    one ``{query: {doc: value}}`` object (ranx's JSON) when the first value is an object or
    the ``{`` stands alone, JSON lines otherwise; a comma- or tab-separated header means CSV or TSV, 6 whitespace-separated
    fields a TREC run and 4 a TREC qrels file.  Leading ``#`` comment lines are looked past
    when the first line after them is a TREC line.

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
    if data[:4] == LZ4_MAGIC:  # ranx's .lz4: always one {query: {doc: value}} object
        return "json"
    head, whole = _head(data, source)
    if head[:4] == _PARQUET_MAGIC:
        return "parquet"
    by_extension = _format_from_extension(name)
    if by_extension:
        return by_extension
    return _sniff(head, source, whole=whole)


def _head(data: bytes, source: str) -> tuple[bytes, bool]:
    """The first :data:`_SNIFF_BYTES` of the (decompressed) input, extended to the end of
    the line they cut: detection always sees whole lines, however long a line is (an id of
    a few MB on line 1 is data, not an unknown format). The flag: the head is the whole
    input."""
    size = _SNIFF_BYTES
    while True:
        head = gunzip(data, source, size=size) if data[:2] == GZIP_MAGIC else data[:size]
        end = head.find(b"\n", _SNIFF_BYTES - 1)
        if end >= 0:
            return head[:end + 1], False
        if len(head) < size:  # the whole input is shorter than asked: all of it
            return head, True
        if data[:2] != GZIP_MAGIC:  # plain bytes: cut at the next newline directly
            end = data.find(b"\n", size)
            return (data, True) if end < 0 else (data[:end + 1], False)
        if size >= input_limits().max_bytes:  # never inflate more than a read would allow
            return head, False
        size = min(size * 4, input_limits().max_bytes)


def choose_format(loaded: Loaded, format: str | None) -> str:
    """The format to read ``loaded`` as: ``format`` (already checked against
    :data:`FORMAT_OPTION`) or the detected one; ``"dataframe"`` for a DataFrame and
    ``"arrow"`` for an Arrow exporter's table, whatever ``format`` says.  Raises on empty
    input and, for text formats, on bytes that are not UTF-8.
    """
    if loaded.frame is not None:
        return "dataframe"
    if loaded.table is not None:
        return "arrow"
    if not loaded.data or loaded.data.isspace():  # isspace() stops at the first non-blank
        raise InputError("empty input", source=loaded.name, expected="at least one data row")
    if format is None:
        try:
            fmt = detect_format(loaded.data, loaded.filename or loaded.name)
        except InputError as error:  # named by the file (run.txt.gz), not its inner name
            if error.source == loaded.name:
                raise
            raise InputError(error.problem, source=loaded.name, line=error.line,
                             text=error.text, expected=error.expected) from None
    else:
        fmt = format.strip().lower()
    if fmt != "parquet":
        check_utf8(loaded.data, loaded.name)
        loaded.utf8_checked = True
    return fmt


def _format_from_extension(name: str | None) -> str | None:
    if not name:
        return None
    lower = without_gzip_suffix(name.lower())
    for suffixes, fmt in _EXTENSIONS:
        if lower.endswith(suffixes):
            return fmt
    return None


def _sniff(head: bytes, source: str, whole: bool = False) -> str:
    """Decide from the first non-empty line (see :func:`detect_format`); ``whole``: ``head``
    is all of the input (so a head of comment lines only is a file without data)."""
    _refuse_binary(head, source)
    line_no, line = first_line(head)
    if line is None:
        raise InputError("empty input", source=source, expected="at least one data row")
    if line.lstrip(BLANKS).startswith("#"):  # comment lines, as trec_eval skips them
        fmt = _format_after_comments(head, source, whole, line_no, line)
        if fmt is not None:
            return fmt
    fmt = _format_of_line(line.strip(), head)
    if fmt is None:
        raise InputError("unknown format", source=source, line=line_no, text=line,
                         expected=ACCEPTED)
    return fmt


def _refuse_binary(head: bytes, source: str) -> None:
    """Raise for UTF-16 or UTF-32 text (named as such) and for binary data."""
    encoding = wide_encoding(head)
    if encoding:  # NUL bytes of text, not binary data
        raise wide_text_error(encoding, source)
    if b"\0" in head or head[:4] == b"PK\x03\x04":
        raise InputError("unknown format", source=source,
                         text="binary data (zip, xlsx and similar are not read)",
                         expected=ACCEPTED)


def _format_after_comments(head: bytes, source: str, whole: bool, line_no: int,
                           line: str) -> str | None:
    """A TREC format when the first line after the leading comments is a TREC line; None
    (the first line decides) otherwise, unless no line but comments is there at all."""
    _, data_line = first_line(blank_comments(head, source, qrels=False))
    if data_line is not None and _is_trec_shaped(data_line.strip()):
        return _trec_format(data_line)
    if data_line is None and whole:
        raise InputError("no data lines (only comments)", source=source, line=line_no,
                         text=line, expected="TREC lines after the '#' comment lines")
    return None


def _format_of_line(stripped: str, head: bytes) -> str | None:
    """The format a first line (stripped) shows, in order: JSON, a TREC line, a CSV or TSV
    header, then a TREC line by its field count alone; None for none of them."""
    if stripped.startswith("{"):  # {"q1": {"d1": 1.0}} (ranx) or one record per line
        return "json" if looks_nested(head) else "jsonl"
    if _is_trec_shaped(stripped):
        return _trec_format(stripped)
    for delimiter, fmt in ((",", "csv"), ("\t", "tsv")):
        if delimiter in stripped and _looks_like_header(stripped, delimiter):
            return fmt
    if "," in stripped:
        return None
    return {6: "trec_run", 4: "trec_qrels"}.get(len(blank_split(stripped)))


def _trec_format(line: str) -> str:
    """A TREC-shaped line's format: six fields or more a run, else qrels."""
    return "trec_run" if len(blank_split(line)) >= 6 else "trec_qrels"


def _is_trec_shaped(line: str) -> bool:
    """6 fields (or more: trec_eval reads text after a run's tag as part of the tag) with a
    numeric 5th, or 4 with an integer 4th: never a header."""
    fields = blank_split(line)
    if len(fields) >= 6:
        return is_number(fields[4]) and fields[1] == "Q0" or len(fields) == 6 and is_number(fields[4])
    if len(fields) == 4:
        return bool(INT_MATCH(fields[3]))
    return False


def _looks_like_header(line: str, delimiter: str) -> bool:
    """At least two non-empty names, none of them a number."""
    fields = [f.strip() for f in next(csv.reader([line], delimiter=delimiter))]
    return len(fields) >= 2 and all(fields) and not any(is_number(f) for f in fields)
