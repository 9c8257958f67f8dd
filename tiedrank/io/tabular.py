"""Tabular sources: CSV, TSV, Parquet, JSON lines, pandas DataFrames and Arrow tables
(what a polars DataFrame, a pyarrow Table or a DuckDB relation exports).

Columns are found by name (:data:`~tiedrank.io.columns.ALIASES` or a ``columns=`` mapping).
Text formats are read as text throughout, so ids keep leading zeros (``"0301"``) and
numbers are checked by the same rules for every format (:mod:`tiedrank.io.columns`).
"""
from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq

from ..core.errors import InputError
from . import _parallel
from ._json import check_json_depth, check_json_record
from ._load import Loaded
from ._text import Locator, first_line, nonblank_lines, text_locator
from .columns import RawColumns, resolve_columns

_DELIMITERS = {"csv": ",", "tsv": "\t"}
_LISTED_JSON_LINES = 1000


def read_tabular(loaded: Loaded, fmt: str, roles: tuple[str, str, str],
                 mapping: Mapping[str, str] | None) -> RawColumns:
    """The raw columns of ``roles`` (e.g. query, doc, score) from a tabular source."""
    if fmt in _DELIMITERS:
        table, locate = _read_csv(loaded, fmt, roles, mapping)
    elif fmt == "parquet":
        table, locate = _read_parquet(loaded, roles, mapping)
    elif fmt == "arrow":  # Parquet's path, from the table in memory
        table, locate = _mapped_table(loaded.table, roles, mapping, loaded.name)
    elif fmt == "jsonl":
        table, locate = _read_jsonl(loaded, roles, mapping)
    elif fmt == "dataframe":
        frame = loaded.frame
        resolved = resolve_columns([str(c) for c in frame.columns], roles, mapping, loaded.name)
        by_name = {str(c): c for c in frame.columns}
        keep_nan = not loaded.nan_is_missing
        table = pa.table({role: _arrow_from_series(frame[by_name[resolved[role]]],
                                                   keep_nan=keep_nan and role == roles[2])
                          for role in roles})
        locate = _row_locator(table, resolved)
    else:  # pragma: no cover - choose_format only returns known formats
        raise AssertionError(fmt)
    if table.num_rows == 0:
        raise InputError("empty input", source=loaded.name, expected="at least one data row")
    columns = [table.column(role) for role in roles]
    return RawColumns(columns[0], columns[1], columns[2], locate)


def header_names(loaded: Loaded, fmt: str) -> list[str]:
    """A tabular source's column names (see :func:`tiedrank.io.list_columns`); ``[]`` for
    TREC files, which have no header."""
    if fmt == "dataframe":
        return [str(c) for c in loaded.frame.columns]
    if fmt in _DELIMITERS:
        return [name.strip() for name in _csv_header(loaded, fmt)]
    if fmt == "parquet":
        return list(_parquet_file(loaded).schema_arrow.names)
    if fmt == "arrow":
        return [str(name) for name in loaded.table.column_names]
    if fmt == "jsonl":
        names: dict[str, None] = {}
        for count, (line_no, text) in enumerate(nonblank_lines(loaded.data)):
            if count >= _LISTED_JSON_LINES:
                break
            names.update(dict.fromkeys(_json_object(text, line_no, loaded.name)))
        return list(names)
    return []


# --------------------------------------------------------------------------------------------
# CSV and TSV
# --------------------------------------------------------------------------------------------

def _csv_header(loaded: Loaded, fmt: str) -> list[str]:
    """The header fields as written (pyarrow keeps them verbatim; matching strips them)."""
    _, line = first_line(loaded.data)
    if line is None:
        raise InputError("empty input", source=loaded.name, expected="a header row")
    return next(csv.reader([line], delimiter=_DELIMITERS[fmt]))


def _read_csv(loaded: Loaded, fmt: str, roles: tuple[str, ...],
              mapping: Mapping[str, str] | None) -> tuple[pa.Table, Locator]:
    delimiter = _DELIMITERS[fmt]
    header = _csv_header(loaded, fmt)
    resolved = resolve_columns(header, roles, mapping, loaded.name)
    wanted = list(dict.fromkeys(resolved.values()))
    try:
        # Everything is read as text: ids keep leading zeros ("0301"), numbers are checked
        # by columns.as_values with the same rules for every format.
        table = pacsv.read_csv(
            pa.py_buffer(loaded.data),
            read_options=pacsv.ReadOptions(block_size=_parallel.BLOCK_SIZE),
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


def _scan_csv(loaded: Loaded, delimiter: str, width: int) -> None:
    kind = "CSV" if delimiter == "," else "TSV"
    for index, (number, raw, fields) in enumerate(_csv_records(loaded.data, delimiter)):
        if index and len(fields) != width:
            raise InputError(f"wrong number of columns (found {len(fields)})",
                             source=loaded.name, line=number, text=raw,
                             expected=f"{width} {kind} fields per row, as in the header")


# --------------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------------

def _unreadable_parquet(exc: Exception, source: str) -> InputError:
    return InputError("unreadable Parquet file", source=source, text=str(exc),
                      expected="a valid Parquet file")


def _parquet_file(loaded: Loaded) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(pa.BufferReader(loaded.data))
    except (pa.ArrowException, OSError) as exc:
        raise _unreadable_parquet(exc, loaded.name) from None


def _read_parquet(loaded: Loaded, roles: tuple[str, ...],
                  mapping: Mapping[str, str] | None) -> tuple[pa.Table, Locator]:
    parquet = _parquet_file(loaded)
    resolved = resolve_columns(list(parquet.schema_arrow.names), roles, mapping, loaded.name)
    try:
        table = parquet.read(columns=list(dict.fromkeys(resolved.values())))
    except (pa.ArrowException, OSError) as exc:
        raise _unreadable_parquet(exc, loaded.name) from None
    table = pa.table({role: table.column(resolved[role]) for role in roles})
    return table, _row_locator(table, resolved)


def _mapped_table(table: pa.Table, roles: tuple[str, ...], mapping: Mapping[str, str] | None,
                  source: str) -> tuple[pa.Table, Locator]:
    """The columns of ``roles`` of an Arrow table, found by name as in a Parquet file."""
    resolved = resolve_columns([str(n) for n in table.column_names], roles, mapping, source)
    table = pa.table({role: table.column(resolved[role]) for role in roles})
    return table, _row_locator(table, resolved)


# --------------------------------------------------------------------------------------------
# JSON lines
# --------------------------------------------------------------------------------------------

def _json_object(text: str, line_no: int, source: str) -> dict:
    check_json_record(text, source, line_no)
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise InputError(f"invalid JSON ({exc.args[0].split(':')[0]})", source=source,
                         line=line_no, text=text, expected="one JSON object per line") from None
    if not isinstance(value, dict):
        raise InputError("not a JSON object", source=source, line=line_no, text=text,
                         expected="one JSON object per line")
    return value


def _read_jsonl(loaded: Loaded, roles: tuple[str, ...],
                mapping: Mapping[str, str] | None) -> tuple[pa.Table, Locator]:
    locate = text_locator(loaded.data)
    check_json_depth(loaded.data, loaded.name, lines=True)  # before Arrow's reader recurses
    try:
        table = pajson.read_json(pa.BufferReader(loaded.data),
                                 read_options=pajson.ReadOptions(block_size=_parallel.BLOCK_SIZE))
    except pa.ArrowInvalid:
        table = None  # bad JSON, or a key whose type varies between lines: go line by line
    if table is not None:
        resolved = resolve_columns(table.column_names, roles, mapping, loaded.name)
        # ids that Arrow read as floats (a 30-digit number) lost digits: read them exactly,
        # line by line, as Python's json keeps integers whole
        if not any(pa.types.is_floating(table.column(resolved[r]).type)
                   for r in roles if r in ("query", "doc")):
            return pa.table({role: table.column(resolved[role]) for role in roles}), locate
    resolved: dict[str, str] | None = None
    values: dict[str, list[Any]] = {role: [] for role in roles}
    for line_no, text in nonblank_lines(loaded.data):
        record = _json_object(text, line_no, loaded.name)
        if resolved is None:
            resolved = resolve_columns(list(record), roles, mapping, loaded.name)
        for role in roles:
            values[role].append(json_cell(record.get(resolved[role])))
    if resolved is None:
        raise InputError("empty input", source=loaded.name, expected="at least one data row")
    # Mixed types were turned into text; as_ids/as_values check them as for CSV.
    return pa.table({role: pa.array(values[role], pa.string()) for role in roles}), locate


def json_cell(value: Any) -> str | None:
    """A JSON value (or a cell of a mixed-type DataFrame column) as text.

    Examples
    --------
    >>> [json_cell(v) for v in (None, True, 2.0, 2.5, [1], "d1")]
    [None, '1', '2', '2.5', '[1]', 'd1']
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value)  # reported as non-numeric / odd id by the checks
    return str(value)


# --------------------------------------------------------------------------------------------
# DataFrames (and the row locator Parquet shares)
# --------------------------------------------------------------------------------------------

def _arrow_from_series(series: pd.Series, *, keep_nan: bool = False) -> pa.ChunkedArray:
    """A DataFrame column as Arrow, for the checks every file goes through (the one door of
    in-memory inputs: DataFrames, and the dicts and tuples :mod:`tiedrank.interop.adapters` turns
    into DataFrames).

    A NaN is pandas' missing value ("missing score", as an emptied cell of the dashboard's
    editor is), unless ``keep_nan`` (the value column of a dict or tuples: a NaN the caller
    gave, named as a file's ``nan`` is: "NaN or infinite score").  What Arrow cannot hold
    as numbers (Python ints past int64, complex numbers, mixed objects) is compared as
    text, so the checks name the row: "grade out of range", "non-numeric score".
    """
    try:
        return pa.chunked_array([pa.array(series, from_pandas=not keep_nan)])
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        text = [None if _is_missing(v, nan=not keep_nan) else json_cell(v) for v in series]
        return pa.chunked_array([pa.array(text, pa.string())])


def _is_missing(value: Any, nan: bool = True) -> bool:
    return (value is None or value is pd.NA or value is pd.NaT
            or (nan and isinstance(value, float) and math.isnan(value)))


def _row_locator(table: pa.Table, resolved: Mapping[str, str]) -> Locator:
    """For Parquet and DataFrames: row i is 'line' i + 1; text shows the mapped fields."""
    def locate(row: int) -> tuple[int | None, str | None]:
        cells = [f"{resolved[role]}={table.column(role)[row].as_py()!r}"
                 for role in table.column_names]
        return row + 1, ", ".join(cells)
    return locate
