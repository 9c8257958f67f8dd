"""Text primitives every reader shares: ASCII blanks, number syntax, lines and error locations.

Readers parse whole files with pyarrow; the helpers here serve format sniffing and the
error paths, which go line by line to name the exact offending line.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator

from ..errors import InputError

# The ASCII blanks TREC tools split on (what C's isspace() accepts, minus the newline).
BLANKS = " \t\v\f\r"
_BLANK_SPLIT = re.compile(f"[{BLANKS}]+")
# The finite numbers pyarrow's float parser accepts (checked against it), so that the
# vectorised check, the cast and the line-by-line error scan agree.
FLOAT_RE = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
NONFINITE_RE = r"^[+-]?(?i:nan|inf|infinity)$"
INT_RE = r"^[+-]?[0-9]+$"
FLOAT_MATCH = re.compile(FLOAT_RE).match
NONFINITE_MATCH = re.compile(NONFINITE_RE).match
INT_MATCH = re.compile(INT_RE).match

Locator = Callable[[int], tuple[int | None, str | None]]
"""Maps a 0-based data row to its (1-based file line, line text); only used on error paths."""


def is_number(text: str) -> bool:
    """Whether ``text`` is a number as the float parser reads it (NaN and infinities too)."""
    return bool(FLOAT_MATCH(text) or NONFINITE_MATCH(text))


def blank_split(line: str) -> list[str]:
    """Split on ASCII blanks only (not on Unicode spaces such as U+00A0), like C tools do.

    Examples
    --------
    >>> blank_split(" q1\\tQ0  d1 ")
    ['q1', 'Q0', 'd1']
    """
    stripped = line.strip(BLANKS)
    return _BLANK_SPLIT.split(stripped) if stripped else []


def blanks_to_underscores(text: str) -> str:
    """Each run of ASCII blanks becomes one ``_`` (a TREC field cannot hold blanks)."""
    return _BLANK_SPLIT.sub("_", text)


def lines(data: bytes) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without line end); \\n, \\r\\n and \\r end a line, as for
    pyarrow.  Lazy, so scanning a big file does not build a list of its lines."""
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline=None)
    for number, line in enumerate(stream, 1):
        yield number, line.rstrip("\n")


def nonblank_lines(data: bytes) -> Iterator[tuple[int, str]]:
    """:func:`lines` without the lines made of blanks only (parsers skip those)."""
    for number, line in lines(data):
        if line.strip(BLANKS):
            yield number, line


def first_line(data: bytes) -> tuple[int | None, str | None]:
    """The first non-blank line as (line number, text), or ``(None, None)``.

    Examples
    --------
    >>> first_line(b"\\n  \\nq1 Q0 d1 1 2.5 x\\n")
    (3, 'q1 Q0 d1 1 2.5 x')
    """
    for number, line in nonblank_lines(data):
        return number, line
    return None, None


def text_locator(data: bytes) -> Locator:
    """Row i -> the i-th non-blank line (blank lines are skipped by parsers)."""
    def locate(row: int) -> tuple[int | None, str | None]:
        for index, (number, line) in enumerate(nonblank_lines(data)):
            if index == row:
                return number, line
        return None, None
    return locate


def fail(problem: str, row: int, locate: Locator, source: str, expected: str) -> InputError:
    """The error for data row ``row``, naming its file line and text."""
    line, text = locate(row)
    return InputError(problem, source=source, line=line, text=text, expected=expected)
