"""TREC text files: runs ``qid Q0 docno rank score tag`` and qrels ``qid iter docno grade``.

Files are parsed by ``pyarrow.csv`` (multi-threaded) with a single-space or single-tab
delimiter.  Files whose whitespace is irregular (runs of spaces, mixed tabs and spaces,
leading/trailing blanks, CR line ends) are first normalised with a chunked numpy pass, then
parsed the same way.  Line-by-line Python only runs on the error path, to name the exact
offending line.

Comment lines are skipped as trec_eval 9.0.8 skips them (:func:`~tiedrank.io._text.blank_comments`:
in a run any line whose first non-blank character is ``#``; in qrels one line starting with
``#`` at a time).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..core.errors import InputError
from . import _parallel
from ._load import Loaded
from ._text import (FIELD_BLANKS, INT_MATCH, blank_comments, blank_split, first_line, is_number,
                    nonblank_lines, single_spaced, text_locator)
from .columns import GRADE, SCORE, RawColumns

RUN_EXPECTED = "6 whitespace-separated columns: qid Q0 docno rank score tag"
QRELS_EXPECTED = "4 whitespace-separated columns: qid iter docno grade"

# Byte tables for the whitespace pass: which bytes are blanks (tab, VT, FF, space; CR is
# turned into a newline first) and what each byte becomes (every blank a space).
_IS_BLANK = np.zeros(256, dtype=bool)
_IS_BLANK[list(FIELD_BLANKS)] = True
_TO_SPACE = np.arange(256, dtype=np.uint8)
_TO_SPACE[list(FIELD_BLANKS)] = 32


def read_trec(loaded: Loaded, *, ncols: int, value_col: int,
              value_type: pa.DataType) -> tuple[RawColumns, str | None]:
    """Parse a TREC run (``ncols=6``) or qrels (``ncols=4``); returns the raw columns and the
    first line's tag (runs).  ``value_type`` string means the values are integer grades,
    checked as text (pyarrow's integer parser would also accept hexadecimal such as "0x10").
    """
    source = loaded.name
    data = blank_comments(loaded.data, source, qrels=ncols == 4)
    expected = RUN_EXPECTED if ncols == 6 else QRELS_EXPECTED
    first, tag = _first_row(data, data is loaded.data, source, ncols, expected)
    # the fast path when the blanks are regular, else the whitespace pass and a parse again
    table = _parse_regular(data, first, source, ncols, value_col, value_type, expected)
    if table is None:
        table = _parse_squeezed(data, source, ncols, value_col, value_type, expected)
    utf8 = loaded.utf8_checked
    return RawColumns(_as_text(table.column("f0"), utf8), _as_text(table.column("f2"), utf8),
                      table.column(f"f{value_col}"), text_locator(data),
                      _as_text(table.column("f1"), utf8) if ncols == 4 else None), tag


def _first_row(data: bytes, uncommented: bool, source: str, ncols: int,
               expected: str) -> tuple[str, str | None]:
    """The first data line and its tag (runs; None for qrels), after checking its column
    count: pyarrow takes the column count from the first row. ``uncommented``: ``data`` is
    the input as given (no comment line was blanked), for the message of an empty one."""
    line_no, first = first_line(data)
    if first is None:
        raise InputError("empty input" if uncommented else "no data lines (only comments)",
                         source=source, expected="at least one data row")
    fields = blank_split(first)
    if len(fields) != ncols and not (ncols == 6 and len(fields) > 6):
        raise InputError(f"wrong number of columns (found {len(fields)})", source=source,
                         line=line_no, text=first, expected=expected)
    # the tag is the 6th field, as trec_eval reads it: text after it ("STANDARD more junk")
    # is skipped. The first line names the run, at every scale (the scaled paths read only
    # a file's head for its name); trec_eval's runid is the last line's 6th field, which
    # differs only in a file whose tag changes between lines
    return first, fields[5] if ncols == 6 else None


def _single_delimiter(first: str, data: bytes, ncols: int) -> str | None:
    """The one blank that separates the fields, if the first line splits into ``ncols``
    fields on it and no other blank byte is anywhere (a vertical tab or form feed is a
    blank too: "d1\v 1" is two fields); None otherwise."""
    for delimiter in (" ", "\t"):
        if len(first.split(delimiter)) == ncols and not any(
                bytes([b]) in data for b in FIELD_BLANKS if b != ord(delimiter)):
            return delimiter
    return None


def _parse_regular(data: bytes, first: str, source: str, ncols: int, value_col: int,
                   value_type: pa.DataType, expected: str) -> pa.Table | None:
    """Fast path: one delimiter character throughout. Blank runs, leading or trailing
    blanks show up as empty fields (or a column-count error): None, and the caller
    normalises and parses again. A bad value raises its message here."""
    delimiter = _single_delimiter(first, data, ncols)
    if delimiter is None:
        return None
    try:
        table = _parse(data, delimiter, ncols, value_col, value_type,
                       _columns_to_convert(data, delimiter, ncols, value_col))
    except pa.ArrowInvalid as exc:
        # Irregular blanks only ever cause column-count errors or empty fields; a failed
        # conversion means a bad value, so look for it right away (this raises).
        if "conversion error" in str(exc):
            _scan(data, source, ncols, value_col, value_type, expected)
        return None
    return None if _has_empty_field(table) else table


def _parse_squeezed(data: bytes, source: str, ncols: int, value_col: int,
                    value_type: pa.DataType, expected: str) -> pa.Table:
    """Irregular whitespace: normalised to single spaces (:func:`_squeeze_blanks`), then
    parsed; a parse error names its line (:func:`_scan`)."""
    try:
        return _parse(_squeeze_blanks(data, tag_field=5 if ncols == 6 else None), " ",
                      ncols, value_col, value_type)
    except pa.ArrowInvalid as exc:
        _scan(data, source, ncols, value_col, value_type, expected)
        raise InputError(f"unreadable TREC file: {exc}", source=source,
                         expected=expected) from None


def _as_text(column: pa.ChunkedArray, utf8_checked: bool) -> pa.ChunkedArray:
    """A column parsed as bytes, as strings: viewed as they are when the whole input is
    known to be UTF-8 (:func:`~tiedrank.io._load.check_utf8` passed; a field of it is then
    UTF-8 too, blanks and line ends being ASCII), else cast (which checks it)."""
    if not utf8_checked:
        return column.cast(pa.string())
    return pa.chunked_array([chunk.view(pa.string()) for chunk in column.chunks],
                            type=pa.string())


def _columns_to_convert(data: bytes, delimiter: str, ncols: int,
                        value_col: int) -> list[str] | None:
    """The columns of a run an evaluator reads (query, doc, score) when no field of it is
    empty (single spaces, no carriage return): only those are converted, the others costing
    as much again; None (every column, each checked for empty fields) otherwise."""
    if ncols == 6 and delimiter == " " and b"\r" not in data and single_spaced(data):
        return ["f0", "f2", f"f{value_col}"]
    return None


def _parse(data: bytes | np.ndarray, delimiter: str, ncols: int, value_col: int,
           value_type: pa.DataType, keep: list[str] | None = None) -> pa.Table:
    names = [f"f{i}" for i in range(ncols)]
    # The ignored columns are read too (unless ``keep`` names the columns to convert: see
    # _columns_to_convert) so that an empty field, i.e. two delimiters in a row, is noticed
    # in any column; they are dropped right after the check. Text is read as
    # bytes: the input was checked as UTF-8 once as a whole (pyarrow's string columns check
    # every field again, a tenth of the parse), and the ids are viewed as text afterwards.
    types = {name: pa.binary() for name in names}
    types[f"f{value_col}"] = value_type
    return pacsv.read_csv(
        pa.py_buffer(data),
        read_options=pacsv.ReadOptions(column_names=names, block_size=_parallel.BLOCK_SIZE),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                          double_quote=False, escape_char=False,
                                          newlines_in_values=False, ignore_empty_lines=True),
        convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                             strings_can_be_null=False,
                                             quoted_strings_can_be_null=False,
                                             include_columns=keep or []),
    )


def _has_empty_field(table: pa.Table) -> bool:
    for name in table.column_names:
        column = table.column(name)
        if (pa.types.is_string(column.type) or pa.types.is_binary(column.type)) and len(column) and \
                pc.min(pc.binary_length(column)).as_py() == 0:
            return True
    return False


def _squeeze_blanks(data: bytes, tag_field: int | None = None) -> np.ndarray:
    """Rewrite irregular whitespace so that single spaces separate fields.

    Runs of blanks become one space; blanks at the start or end of a line are removed (so
    blank-only lines become empty and are skipped); \\r\\n and \\r become \\n.  Newlines
    are kept, so line numbers do not change.  Works on 16 MB slices cut at line ends (bounded
    memory), on two threads (numpy releases the GIL).  With ``tag_field`` (a run's tag, the
    last field), the spaces inside the text from that field on become unit separators
    (0x1f), so the rest of the line stays one field, as trec_eval reads it.

    Examples
    --------
    >>> bytes(_squeeze_blanks(b" q1 \\t Q0 d1\\r\\n\\t\\nq2  Q0 d2 \\n"))
    b'q1 Q0 d1\\n\\nq2 Q0 d2\\n'
    """
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    buffer = np.frombuffer(data, dtype=np.uint8)
    bounds, start, size = [], 0, len(buffer)
    while start < size:
        end = min(start + _parallel.BLOCK_SIZE, size)
        if end < size:
            newline = data.find(b"\n", end)
            end = size if newline < 0 else newline + 1
        bounds.append((start, end))
        start = end
    def squeeze(bound: tuple[int, int]) -> np.ndarray:
        chunk = _squeeze_chunk(buffer[bound[0]:bound[1]])
        return chunk if tag_field is None else _join_tail(chunk, tag_field)

    pieces = _parallel.parallel_map(squeeze, bounds)
    return np.concatenate(pieces) if len(pieces) != 1 else pieces[0]


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


def _join_tail(chunk: np.ndarray, field: int) -> np.ndarray:
    """Turn the spaces after the ``field``-th one of every line into 0x1f (in a copy).

    >>> bytes(_join_tail(np.frombuffer(b"a b c d\\ne f\\n", dtype=np.uint8), 2))
    b'a b c\\x1fd\\ne f\\n'
    """
    space = chunk == 32
    if int(space.sum()) == 0:
        return chunk
    newline = chunk == 10
    seen = np.cumsum(space, dtype=np.int64)
    at_line_start = np.concatenate(([0], seen[newline]))[np.cumsum(newline)]
    tail = space & (seen - at_line_start > field)
    if not tail.any():
        return chunk
    out = chunk.copy()
    out[tail] = 0x1F
    return out


def _scan(data: bytes, source: str, ncols: int, value_col: int,
          value_type: pa.DataType, expected: str) -> None:
    """Error path: find the first bad line in Python and raise for it."""
    integer = pa.types.is_string(value_type)  # qrels grades are read as text, then checked
    for number, line in nonblank_lines(data):
        fields = blank_split(line)
        if len(fields) != ncols and not (ncols == 6 and len(fields) > 6):
            raise InputError(f"wrong number of columns (found {len(fields)})", source=source,
                             line=number, text=line, expected=expected)
        value = fields[value_col]
        if integer and not INT_MATCH(value):
            raise InputError("non-integer grade", source=source, line=number, text=line,
                             expected=GRADE.expected)
        if not integer and not is_number(value):
            what = "non-numeric score" if ncols == 6 else "non-numeric grade"
            raise InputError(what, source=source, line=number, text=line,
                             expected=SCORE.expected)
