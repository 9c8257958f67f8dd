"""Loading: every source becomes UTF-8-checked bytes (or a DataFrame, or an Arrow table)
plus its names.

A source is a path, bytes, a binary file-like (a Streamlit ``UploadedFile`` works), a pandas
DataFrame or anything that exports an Arrow stream (``__arrow_c_stream__``: polars, pyarrow,
DuckDB); gzip and ranx's LZ4 files (:mod:`tiedrank.io._lz4`) are recognised by their magic
bytes and a UTF-8 byte-order mark dropped.
"""
from __future__ import annotations

import codecs
import errno
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ..core import progress
from ..core.data import exports_arrow
from ..core.errors import InputError
from ..core.peers import PEERS
from ._limits import (CHUNK, LIMITS, InputLimits, input_limits,  # noqa: F401  (re-exported)
                      set_input_limits, too_large)
from ._lz4 import LZ4_MAGIC, read_lz4

GZIP_MAGIC = b"\x1f\x8b"
SHOWN_READ_BYTES = 64 << 20  # reading a file larger than this is shown on a terminal
_STDIN_READS: list[str] = []
"""The inputs read from standard input so far (a second '-' finds it empty)."""


def _read_bounded(handle: Any, source: str) -> bytes:
    """Read a file-like to the end, but never more than the limit (/dev/zero, pipes)."""
    try:
        size = os.fstat(handle.fileno()).st_size if hasattr(handle, "fileno") else 0
    except (OSError, ValueError):  # no file descriptor (BytesIO) or not a real file
        size = 0
    if size > LIMITS.max_bytes:
        raise too_large(source, "the input")
    if size:  # a regular file: one read of known size (a line says so on a terminal, until
        # the reader has checked it: tiedrank.io.read ends the step)
        if size > SHOWN_READ_BYTES:
            progress.step(f"reading {source} ({size / (1 << 20):,.0f} MB)", 0, 1)
        data = handle.read()
    else:  # pipes, /dev/zero, in-memory streams: chunks, never past the limit
        chunks, total = [], 0
        while chunk := handle.read(CHUNK):
            chunks.append(chunk)
            total += len(chunk)
            if total > LIMITS.max_bytes:
                raise too_large(source, "the input")
        data = chunks[0][:0].join(chunks) if chunks else b""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > LIMITS.max_bytes:
        raise too_large(source, "the input")
    return data


@dataclass
class Loaded:
    """A source's contents and names, before any parsing."""

    name: str                        # for messages and Run.source
    filename: str | None             # for the extension and the run name; .gz stripped
    data: bytes = b""                # decompressed, BOM stripped
    frame: pd.DataFrame | None = None
    table: pa.Table | None = None    # what an Arrow exporter (polars, pyarrow, DuckDB) gave
    nan_is_missing: bool = True      # a frame's NaN value: pandas' missing value, or (the
                                     # frame of a dict or tuples) a NaN the caller gave
    utf8_checked: bool = False       # data passed check_utf8 (the text readers then need
                                     # not check each field again)


class SourceNotFound(FileNotFoundError):
    """A ``str`` source that names no file, with a hint for Python callers (file contents go
    in as bytes); :meth:`as_path` is the same error for a door whose sources are always paths
    (the CLI)."""

    def as_path(self) -> FileNotFoundError:
        return FileNotFoundError(self.errno, "No such file or directory", self.filename)


def load(source: Any, source_name: str | None) -> Loaded:
    """Read ``source`` into memory (see the module docstring for the accepted kinds)."""
    if isinstance(source, pd.DataFrame):
        return Loaded(name=source_name or "<DataFrame>", filename=None, frame=source)
    if exports_arrow(source):  # polars, pyarrow, DuckDB: read as a table, checked as a file
        name = source_name or object_name(source)
        return Loaded(name=name, filename=None, table=arrow_table(source, name))
    _refuse_contents_as_str(source)
    if isinstance(source, (str, os.PathLike)):
        name, filename, raw = _read_path(source, source_name)
    elif isinstance(source, (bytes, bytearray, memoryview)):
        name, filename, raw = source_name or "<bytes>", source_name, bytes(source)
    elif hasattr(source, "getvalue") or hasattr(source, "read"):
        name, filename, raw = _read_file_like(source, source_name)
    else:
        raise TypeError(f"cannot read from {type(source).__name__}; pass {PEERS.accepted}")
    return _unwrapped(raw, name, filename)


# The steps of load() for the sources read as bytes: each returns (name for messages, file
# name or None, the bytes as stored, perhaps compressed), and _unwrapped does the rest.

def _refuse_contents_as_str(source: Any) -> None:
    """Raise for a str that holds file contents rather than a path."""
    if isinstance(source, str) and ("\n" in source or len(source) > 4096) \
            and not os.path.lexists(source):
        # file contents given as str, most likely (a path may hold a newline: one that
        # exists is read); an OSError, so that the CLI says it in one line
        raise SourceNotFound(errno.ENOENT, "No such file or directory (a str source is a "
                             "path; file contents go in as bytes)", source)


def _read_path(source: str | os.PathLike,
               source_name: str | None) -> tuple[str, str | None, bytes]:
    """A file, or standard input for ``"-"``."""
    path = os.fspath(source)
    if path == "-":  # standard input, as trec_eval users pipe runs
        return _read_stdin(source_name)
    name = source_name or str(path)
    with open(path, "rb") as handle:
        return name, str(path), _read_bounded(handle, name)


def _read_stdin(source_name: str | None) -> tuple[str, None, bytes]:
    """Standard input, once: a second '-' would find it empty."""
    import sys

    raw = _read_bounded(sys.stdin.buffer, "<stdin>")
    name = source_name or "<stdin>"
    if not raw and _STDIN_READS:  # an earlier '-' took it all
        raise InputError(
            "standard input was already read: '-' is given more than once, and only "
            "the first '-' gets the data", source=name,
            expected="'-' for at most one input (the others as files)")
    _STDIN_READS.append(name)
    return name, None, raw


def _read_file_like(source: Any, source_name: str | None) -> tuple[str, str | None, bytes]:
    """A binary file-like: getvalue() first, as it returns the whole upload even if someone
    already read it."""
    file_name = getattr(source, "name", None)
    file_name = str(file_name) if isinstance(file_name, (str, os.PathLike)) else None
    name, filename = source_name or file_name or "<file>", file_name or source_name
    raw = source.getvalue() if hasattr(source, "getvalue") else _read_bounded(source, name)
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    return name, filename, raw


def _unwrapped(raw: bytes, name: str, filename: str | None) -> Loaded:
    """The bytes decompressed (gzip, then ranx's LZ4) and without a UTF-8 byte-order mark;
    the file name without the compression suffixes (for the extension and the run name)."""
    if raw[:2] == GZIP_MAGIC:
        raw = gunzip(raw, name)
    if raw[:4] == LZ4_MAGIC:  # ranx's Run.save("run.lz4"): LZ4 frames around CBOR or JSON
        raw = read_lz4(raw, name)
    if filename:
        filename = without_gzip_suffix(filename)
        if filename.lower().endswith(".lz4"):
            filename = filename[:-4]
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    return Loaded(name=name, filename=filename, data=raw)


def object_name(source: Any) -> str:
    """How messages name an in-memory object: ``<polars.DataFrame>``, ``<pyarrow.Table>``.

    >>> import pyarrow as pa
    >>> object_name(pa.table({"a": [1]})), object_name({})
    ('<pyarrow.Table>', '<dict>')
    """
    kind = type(source)
    module = kind.__module__.split(".")[0]
    return f"<{kind.__name__}>" if module == "builtins" else f"<{module}.{kind.__name__}>"


def arrow_table(source: Any, name: str) -> pa.Table:
    """An Arrow exporter's data as one table, read batch by batch and never past the input
    limit (a DuckDB relation over a large file streams; a table in memory is taken as is)."""
    if isinstance(source, pa.Table):
        return source
    try:
        reader = pa.RecordBatchReader.from_stream(source)
        batches, total = [], 0
        for batch in reader:
            total += batch.nbytes
            if total > LIMITS.max_bytes:
                break
            batches.append(batch)
        table = pa.Table.from_batches(batches, schema=reader.schema)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise InputError("cannot read its Arrow stream", source=name, text=str(exc),
                         expected="an object whose __arrow_c_stream__ gives a table "
                                  "(a polars DataFrame, a pyarrow Table, a DuckDB relation)") \
            from None
    if total > LIMITS.max_bytes:
        raise too_large(name, "the table")
    if not batches and isinstance(source, pa.RecordBatchReader):  # one-shot: read already?
        raise InputError("no rows: a RecordBatchReader gives its rows once, and this one is "
                         "empty or was read already", source=name,
                         expected="a pyarrow Table (reader.read_all()) where the rows are "
                                  "read more than once (buckets= reads a run twice)")
    return table


def without_gzip_suffix(filename: str) -> str:
    """``run.txt.gz`` -> ``run.txt`` (also ``.gzip``, any case); other names unchanged."""
    if filename.lower().endswith((".gz", ".gzip")):
        return filename.rsplit(".", 1)[0]
    return filename


def gunzip(raw: bytes, source: str, size: int | None = None) -> bytes:
    """Decompress gzip data: all of it, or only its first ``size`` bytes (for detection,
    which need not inflate everything).

    Every member is read: ``cat a.gz b.gz`` (what pigz, bgzip and appending tools make) is
    the text of ``a`` then ``b``, as ``gzip -d`` and Python's :mod:`gzip` read it.  Streams
    in 1 MB steps and stops at the first step past :data:`LIMITS` (the total, or the
    expansion ratio of a bomb, counted over all members), so memory never exceeds the limit
    whatever the input.
    """
    try:
        return _gunzip_bounded(raw, source, size)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError("corrupt gzip data", source=source, text=str(exc),
                         expected="a complete gzip stream") from None


def _gunzip_bounded(raw: bytes, source: str, size: int | None = None) -> bytes:
    out = bytearray()
    view, position = memoryview(raw), 0
    while position < len(raw):  # one decompressor per gzip member (files may concatenate)
        if raw[position:position + 2] != GZIP_MAGIC:
            if raw[position:].strip(b"\0"):
                raise zlib.error("trailing garbage after the gzip data")
            break
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending: bytes | memoryview = b""
        while not inflater.eof:
            if not pending:
                if position >= len(raw):
                    raise EOFError("compressed file ended before the end-of-stream marker")
                # never past the end: ``position`` must stay the true offset, or the next
                # member (in ``unused_data``) would be taken for the end of the file
                end = min(position + CHUNK, len(raw))
                pending, position = view[position:end], end
            out += inflater.decompress(pending, CHUNK)
            pending = inflater.unconsumed_tail
            consumed = position - len(pending) - len(inflater.unused_data)
            if size is not None and len(out) >= size:  # detection: the head is enough
                return bytes(out[:size])
            if len(out) > LIMITS.max_bytes:
                raise too_large(source, "the decompressed input")
            if len(out) > LIMITS.ratio_floor and len(out) > LIMITS.max_ratio * max(consumed, 1):
                raise InputError(
                    f"gzip data expands more than {LIMITS.max_ratio} fold (a decompression "
                    f"bomb?): {len(out):,} bytes from {consumed:,}", source=source,
                    expected="an ordinary gzip file of a run or qrels (CLI: --max-input-size "
                             "and --max-ratio raise the limits)")
        position -= len(inflater.unused_data)
    return bytes(out)


_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
               (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


def wide_encoding(head: bytes) -> str | None:
    """``"UTF-16"`` or ``"UTF-32"`` when ``head`` (a file's first bytes) is text in one of
    them: a byte-order mark, or without one the zero bytes of ASCII text in it (every other
    byte, or three of four); None otherwise.

    >>> [wide_encoding(t) for t in ("q1 Q0".encode("utf-16"), "q1 Q0 d1".encode("utf-16-be"),
    ...  "q1 Q0".encode("utf-32-le"), b"q1 Q0 d1 1 2.5 r", b"PK\\x03\\x04\\x00\\x00\\x00\\x00")]
    ['UTF-16', 'UTF-16', 'UTF-32', None, None]
    """
    for bom, name in _WIDE_BOMS:  # UTF-32 LE's mark starts with UTF-16 LE's: it goes first
        if head.startswith(bom):
            return name
    sample = head[:64]
    if len(sample) < 8 or b"\0" not in sample:
        return None
    quad = sample[:len(sample) // 4 * 4]
    lanes = [quad[i::4] for i in range(4)]
    for text_lane in (0, 3):  # little- and big-endian
        if all(not any(lanes[i]) for i in range(4) if i != text_lane) and all(lanes[text_lane]):
            return "UTF-32"
    pair = sample[:len(sample) // 2 * 2]
    for text_lane in (0, 1):
        if not any(pair[1 - text_lane::2]) and all(pair[text_lane::2]):
            return "UTF-16"
    return None


def wide_text_error(encoding: str, source: str) -> InputError:
    """The message of a UTF-16 or UTF-32 file: what it is, and how to make it UTF-8."""
    return InputError(f"{encoding} text", source=source, line=1,
                      expected=f"UTF-8 text: save the file as UTF-8 (e.g. iconv -f {encoding} "
                               "-t UTF-8 FILE > FILE.utf8)")


def check_utf8(data: bytes, source: str) -> None:
    """Raise on the first byte sequence that is not UTF-8, naming its line (UTF-16 and
    UTF-32 text named as such: :func:`wide_encoding`)."""
    encoding = wide_encoding(data[:64]) if b"\0" in data[:64] or data[:1] in (b"\xff", b"\xfe") \
        else None
    if encoding:
        raise wide_text_error(encoding, source)
    if data.isascii():  # C-speed scan; almost every run and qrels file is pure ASCII
        return
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


def stem(filename: str | None) -> str | None:
    """A file name without folder and last extension; None for ``<bytes>``-like names.

    Examples
    --------
    >>> stem("runs/bm25.txt"), stem(".hidden"), stem("<bytes>")
    ('bm25', '.hidden', None)
    """
    if not filename or filename.startswith("<"):
        return None
    base = Path(filename).name
    return base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base
