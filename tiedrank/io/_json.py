"""Bounds on JSON before any parser sees it: nesting depth and the size of one record.

Arrow's JSON reader (RapidJSON) recurses once per ``[`` or ``{`` without a limit: 10,000
nested brackets, 20 KB of text, overflow the C stack and kill the process (a segmentation
fault, a notebook kernel gone); Python's :mod:`json` raises ``RecursionError`` a little later.
So every JSON path (JSON lines, ranx's nested JSON, a corpus's JSON lines, the dashboard's
uploads, which go through the same readers) first measures the nesting here, in C-speed
passes over the bytes, and refuses more than :data:`MAX_JSON_DEPTH` levels with one
:class:`~tiedrank.core.errors.InputError` naming the line. A run or qrels needs two levels
(``{"qid": ..., "score": [..]}`` is already wrong); 64 leaves room for metadata fields.

A JSON-lines record that Python's :mod:`json` parses (the line-by-line path: mixed types,
listing columns, a corpus) is also bounded in size (:data:`MAX_JSON_RECORD`), so that what
one record expands to in Python objects stays bounded whatever the line holds.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import InputError

MAX_JSON_DEPTH = 64
"""The most arrays and objects one JSON value may nest."""
MAX_JSON_RECORD = 16 << 20
"""The most bytes one JSON-lines record parsed by Python's json may hold (pyarrow's reader
takes records up to its block size, the same 16 MiB)."""

_CHUNK = 16 << 20
_STRUCTURE = b'"[]{}\n'
_DROP = bytes(b for b in range(256) if b not in _STRUCTURE)
_NOT_OPEN_OR_NEWLINE = bytes(b for b in range(256) if b not in b"[{\n")
_STEP = np.zeros(256, dtype=np.int8)  # +1 opens an array or object, -1 closes one
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1


def check_json_depth(data: bytes, source: str, *, lines: bool,
                     first_line: int = 1) -> None:
    """Raise an :class:`InputError` if any JSON value in ``data`` nests deeper than
    :data:`MAX_JSON_DEPTH`.

    ``lines``: ``data`` holds one JSON value per line (the depth restarts at every line);
    otherwise one value over all lines. Brackets inside strings do not count (escapes
    ``\\\\`` and ``\\"`` are taken off first; a string never spans a line in valid JSON,
    so quotes pair up line by line, as every parser pairs them up to its first error).
    Memory: a copy of one 16 MB slice at a time, and arrays of its bracket and quote bytes.

    Examples
    --------
    >>> check_json_depth(b'{"q": "[[[[", "s": [[1]]}\\n', "r.jsonl", lines=True)
    >>> try:
    ...     check_json_depth(b'{"s": 1}\\n{"s": ' + b"[" * 65 + b"]" * 65 + b"}\\n", "r.jsonl",
    ...                      lines=True)
    ... except InputError as error:
    ...     print(error)
    r.jsonl, line 2: JSON nested 66 levels deep (expected at most 64 nested arrays and objects: one record of plain values per line)
    """
    if len(data) <= _CHUNK and data.count(b"[") + data.count(b"{") <= MAX_JSON_DEPTH:
        return  # cannot nest deeper
    depth, deepest, line, start, bad_line = 0, 0, first_line, 0, None
    while start < len(data):
        end = data.find(b"\n", min(start + _CHUNK, len(data)))
        end = len(data) if end < 0 else end + 1
        chunk = data[start:end]
        if lines:  # a line cannot nest deeper than it has brackets: most chunks stop here
            most, newlines = _most_opened_on_a_line(chunk)
            if most > MAX_JSON_DEPTH:
                _, deepest, bad_line = _scan(chunk, lines, 0, line)
        else:  # one value: its depth goes on from slice to slice (to its deepest, to say it)
            depth, most, at = _scan(chunk, lines, depth, line)
            deepest, bad_line = max(deepest, most), bad_line or at
            newlines = chunk.count(b"\n")
        if bad_line is not None and lines:
            break
        line += newlines
        start = end
    if bad_line is not None:
        raise InputError(
            f"JSON nested {deepest} levels deep", source=source, line=bad_line,
            expected=f"at most {MAX_JSON_DEPTH} nested arrays and objects: "
                     + ("one record of plain values per line" if lines else
                        '{"query": {"doc": value}} with plain values'))


def _most_opened_on_a_line(chunk: bytes) -> tuple[int, int]:
    """The most ``[`` and ``{`` any line of ``chunk`` holds, strings included (a bound on
    its depth that costs one C pass: almost every line of a JSON-lines file has one or two),
    and the number of newlines."""
    kept = np.frombuffer(chunk.translate(None, _NOT_OPEN_OR_NEWLINE), dtype=np.uint8)
    newlines = np.flatnonzero(kept == 10)
    opened = np.diff(newlines, prepend=-1, append=len(kept)) - 1  # bytes between newlines
    return int(opened.max()), len(newlines)


def _scan(chunk: bytes, lines: bool, depth: int, line: int) -> tuple[int, int, int | None]:
    """Of ``chunk`` (whole lines), starting at ``depth``: the depth at its end, the deepest
    level (with ``lines``: of the first line past the limit) and the first line past the
    limit (None: none)."""
    if b"\\" in chunk:  # escapes pair up left to right: drop '\\' pairs, then '\"'
        chunk = chunk.replace(b"\\\\", b"").replace(b'\\"', b"")
    kept = np.frombuffer(chunk.translate(None, _DROP), dtype=np.uint8)
    step = _STEP[kept]
    brackets = np.flatnonzero(step)
    quotes = np.cumsum(kept == 34, dtype=np.int64)
    newlines = np.flatnonzero(kept == 10)
    line_of = np.searchsorted(newlines, brackets)  # lines since the chunk's start
    previous_end = newlines[np.maximum(line_of - 1, 0)] if len(newlines) else line_of
    before_line = np.where(line_of > 0, quotes[previous_end], 0)
    outside = (quotes[brackets] - before_line) % 2 == 0  # an even number of quotes before
    step, line_of = step[brackets[outside]].astype(np.int64), line_of[outside]
    if not len(step):
        return (0 if lines else depth), depth, None
    level = depth + np.cumsum(step)
    if lines:  # every line starts at depth 0: subtract the level before its first bracket
        first = np.flatnonzero(np.diff(line_of, prepend=-1))
        starts = np.repeat(first, np.diff(first, append=len(line_of)))
        level -= level[starts] - step[starts]
    past = level > MAX_JSON_DEPTH
    if not past.any():
        return (0 if lines else int(level[-1])), int(level.max()), None
    at = int(np.argmax(past))
    deepest = int(level[line_of == line_of[at]].max() if lines else level.max())
    return (0 if lines else int(level[-1])), deepest, line + int(line_of[at])


def check_json_record(text: str, source: str, line: int) -> None:
    """Bound one JSON-lines record before Python's :mod:`json` parses it: its size
    (:data:`MAX_JSON_RECORD`) and its depth (:func:`check_json_depth`)."""
    if len(text) > MAX_JSON_RECORD // 4 and len(text.encode("utf-8")) > MAX_JSON_RECORD:
        raise InputError(f"a JSON record of {len(text.encode('utf-8')):,} bytes", source=source,
                         line=line, text=text[:80],
                         expected=f"at most {MAX_JSON_RECORD:,} bytes a record: one record "
                                  "of plain values per line")
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:
        check_json_depth(text.encode("utf-8"), source, lines=True, first_line=line)
