"""A large TREC run read from its path in one pass over the bytes, never held whole.

:func:`~tiedrank.io.trec.read_trec` works on a file's bytes in memory: it needs them to
normalise irregular blanks, to skip comment lines and to name a bad line. A regular run
file of many millions of lines needs none of that, and holding its bytes (a quarter of a
gigabyte for 7M lines) and parsing its six columns cost more than the columns an evaluator
uses. So for a plain (uncompressed) file on disk larger than :data:`STREAM_MIN_BYTES`:

1. one streamed pass checks, 4 MB at a time (in cache) on two threads, that the file is what the
   fast path assumes: ASCII (so UTF-8), fields separated by single spaces with no blank at
   the start or end of a line (so no field is empty, in the three columns skipped too), no
   tab, vertical tab, form feed or carriage return, and no line starting with ``#`` (a
   comment, which trec_eval skips);
2. pyarrow parses the file from its path, block by block, converting only the three
   columns an evaluator reads (query, document, score); it still counts every line's
   fields, so a line of five or seven fields is noticed.

Anything else (a failed check, a parse error, a bad score) returns None, and the caller
reads the file the general way, which gives the exact same result or the message naming
the offending line. Errors found later (a duplicate document, a non-finite score) name
their line through a locator that reads the file again, on that error path only.
"""
from __future__ import annotations

import os
import stat
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv

from ..core import progress
from ..core.errors import InputError
from . import _parallel
from . import _load
from ._load import GZIP_MAGIC, LIMITS, Loaded
from ._lz4 import LZ4_MAGIC
from ._text import Locator, blank_split, first_line, single_spaced, text_locator
from .columns import RawColumns
from .detect import detect_format

STREAM_MIN_BYTES = 32 << 20
"""Files smaller than this are read into memory (the general path costs them little)."""
SCAN_STEP = 4 << 20
"""The bytes the checks of step 1 read at a time (per thread; a test shrinks it)."""
_HEAD_BYTES = 1 << 16
_COLUMNS = [f"f{i}" for i in range(6)]


def stream_trec_run(source: Any, format: str | None,
                    source_name: str | None) -> tuple[Loaded, RawColumns, str] | None:
    """``(loaded, raw columns, tag)`` of a large regular TREC run file at path ``source``,
    or None when the file is not one (the caller then reads it the general way).

    ``loaded`` names the file and holds no bytes (``utf8_checked``: the file is ASCII).
    """
    found = _large_file(source, format)
    first = None if found is None else _plain_first_line(found[0], format)
    if first is None:
        return None
    path, size = found
    name = source_name or path
    if size > _load.SHOWN_READ_BYTES:
        progress.step(f"reading {name} ({size / (1 << 20):,.0f} MB)", 0, 1)
    table = _read_columns(path) if _regular(path, size) else None
    if table is None:
        return None
    loaded = Loaded(name=name, filename=path, utf8_checked=True)
    raw = RawColumns(_text(table.column("f0")), _text(table.column("f2")), table.column("f4"),
                     _file_locator(path))
    return loaded, raw, blank_split(first)[5]


# The steps of stream_trec_run; each None sends the file down the general path, which
# gives the same result or the message naming the offending line.

def _large_file(source: Any, format: str | None) -> tuple[str, int] | None:
    """``(path, size)`` of a regular file read as a run, of a size worth streaming."""
    if not isinstance(source, (str, os.PathLike)) or format not in (None, "trec_run") and \
            str(format).strip().lower() != "trec_run":
        return None
    path = os.fspath(source)
    if path == "-":
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None  # the general path raises the message
    if not stat.S_ISREG(info.st_mode) or not STREAM_MIN_BYTES <= info.st_size <= LIMITS.max_bytes:
        return None
    return path, info.st_size


def _plain_first_line(path: str, format: str | None) -> str | None:
    """The first line of an uncompressed TREC run without a byte-order mark whose first
    line is six fields separated by single spaces, or None."""
    with open(path, "rb") as handle:
        head = handle.read(_HEAD_BYTES)
    if head[:2] == GZIP_MAGIC or head[:4] == LZ4_MAGIC or head[:3] == b"\xef\xbb\xbf":
        return None
    head = head[:head.rfind(b"\n") + 1]
    try:
        if not head or format is None and detect_format(head, path) != "trec_run":
            return None
    except InputError:
        return None  # the general path words it (naming the source as the caller asked)
    _, first = first_line(head)
    if first is None or len(first.split(" ")) != 6 or len(blank_split(first)) != 6:
        return None  # a tag of several words, other blanks: the general path
    return first


def _read_columns(path: str) -> pa.Table | None:
    """pyarrow's parse of the file (module docstring, step 2), or None on a parse error."""
    try:
        return pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=_COLUMNS,
                                           block_size=_parallel.BLOCK_SIZE),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False,
                                              double_quote=False, escape_char=False,
                                              newlines_in_values=False,
                                              ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                column_types={"f0": pa.binary(), "f2": pa.binary(), "f4": pa.float64()},
                include_columns=["f0", "f2", "f4"], null_values=[],
                strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, OSError):
        return None  # a line of other than six fields, a bad score: named by the general path


def _text(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A column parsed as bytes viewed as text (the file was checked to be ASCII)."""
    return pa.chunked_array([chunk.view(pa.string()) for chunk in column.chunks],
                            type=pa.string())


def _file_locator(path: str) -> Locator:
    """Row i -> its (file line, text), reading the file again (error paths only)."""
    def locate(row: int) -> tuple[int | None, str | None]:
        with open(path, "rb") as handle:
            return text_locator(handle.read(LIMITS.max_bytes + 1))(row)
    return locate


def _regular(path: str, size: int) -> bool:
    """Whether the whole file passes the fast path's checks (module docstring, step 1):
    two threads, each over half of the file in 16 MB steps into one reused buffer."""
    half = size // 2
    return all(_parallel.parallel_map(lambda bounds: _regular_range(path, *bounds, size),
                                      [(0, half), (half, size)]))


def _regular_range(path: str, start: int, end: int, size: int) -> bool:
    step = SCAN_STEP
    buffer = bytearray(step + 1)
    with open(path, "rb") as handle:
        # each step also reads the byte before it, so a pair of bytes across two steps
        # (or the two halves) is seen
        position = max(start - 1, 0)
        while True:
            handle.seek(position)
            got = handle.readinto(memoryview(buffer)[:min(step + 1, end - position)])
            if got <= 0:
                return False  # the file shrank while read: the general path sees it
            chunk = buffer if got == len(buffer) else buffer[:got]
            if not _regular_chunk(chunk, at_start=position == 0, at_end=position + got >= size):
                return False
            if position + got >= end:
                return True
            position += got - 1


def _regular_chunk(data: bytearray, *, at_start: bool, at_end: bool) -> bool:
    if not data.isascii() or any(blank in data for blank in (b"\t", b"\v", b"\f", b"\r")):
        return False
    # a comment line (the general path skips it as trec_eval does); '#' alone is found at
    # memchr speed, the pair only searched for when there is one
    if b"#" in data and (b"\n#" in data or at_start and data[:1] == b"#"):
        return False
    return single_spaced(data, first=at_start, last=at_end)
