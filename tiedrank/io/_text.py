"""Text primitives every reader shares: ASCII blanks, number syntax, lines and error locations.

Readers parse whole files with pyarrow; the helpers here serve format sniffing and the
error paths, which go line by line to name the exact offending line.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator

from ..core.errors import InputError, Remedy

# The ASCII blanks TREC tools split on (what C's isspace() accepts, minus the newline).
# One rule for every reader path: the fast path (one delimiter) is taken only when the data
# holds no other blank byte (trec.read_trec), the slow path turns every blank into a space
# (trec._squeeze_blanks), the error scan splits with blank_split. A carriage return ends a
# line, as \r\n does (pyarrow's rule; trec_eval's isspace() reads a lone \r as a blank).
BLANKS = " \t\v\f\r"
FIELD_BLANKS = b" \t\v\f"
"""The blank bytes that separate fields within a line (``BLANKS`` without the line end)."""
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


def single_spaced(data: bytes | bytearray, *, first: bool = True, last: bool = True) -> bool:
    """Whether no field of the lines in ``data`` is empty when split at single spaces: no
    space next to a space or a line end (``"  "``, ``"\\n "``, ``" \\n"``), nor, where
    ``data`` is the ``first`` or ``last`` part of a file, at its start or end. (Other blanks
    and ``\\r`` are the caller's to rule out.) Readers use it to parse only the columns
    they keep: a line whose skipped field is empty would otherwise go unnoticed.

    Each pair of neighbouring bytes is one 16-bit word of ``data`` read at an even or an
    odd offset (little-endian: ``b"\\n "`` is 0x200a): numpy compares millions a second.

    Examples
    --------
    >>> single_spaced(b"q1 Q0 d1 1 2.5 t\\n\\nq2 Q0 d1 1 2 t\\n"), single_spaced(b"q1  d1 1 2 t\\n")
    (True, False)
    >>> single_spaced(b"q1 Q0 d1 1 2 \\n"), single_spaced(b" q"), single_spaced(b" q", first=False)
    (False, False, True)
    """
    import numpy as np

    view = memoryview(data)
    # 128 KB at a time (each slice with the next one's first byte, so no pair is missed):
    # the masks then come from the heap and are reused, where masks the size of a large
    # input would each be fresh pages to fault in (64,000 faults for a 273 MB run)
    for start in range(0, len(data), _PAIR_STEP):
        part = view[start:start + _PAIR_STEP + 1]
        for offset in (0, 1):
            pairs = np.frombuffer(part, dtype="<u2", count=(len(part) - offset) // 2,
                                  offset=offset)
            if ((pairs == 0x2020) | (pairs == 0x0A20) | (pairs == 0x200A)).any():
                return False
    return not (first and data[:1] == b" " or last and data[-1:] == b" ")


_PAIR_STEP = 1 << 17


def fail(problem: str, row: int, locate: Locator, source: str, expected: str,
         remedy: Remedy | None = None) -> InputError:
    """The error for data row ``row``, naming its file line and text (and the remedy, kept
    apart for each door to word)."""
    line, text = locate(row)
    return InputError(problem, source=source, line=line, text=text, expected=expected,
                      remedy=remedy)


# ---- comment lines, as trec_eval reads them ---------------------------------------------------
# trec_eval 9.0.8 (the version pytrec_eval bundles; comments came with its PR #23, 2020)
# skips, in a run, every line whose first non-blank character is '#' (get_trec_results.c)
# and, in qrels, a line whose first character is '#', one at a time: the line after it is
# parsed as a judgement (get_qrels.c).  trec_eval reverted comment support in Nov 2024
# (issue #46, commit 4a0dc1a: docnos containing '#').  A '#' inside a field is data.

_INDENTED_COMMENT = re.compile(rb"(?:\A|(?<=[\r\n]))[ \t\v\f]+#")
_BLANK_LINE_STARTS = tuple(end + blank for end in (b"\n", b"\r")
                           for blank in (b" ", b"\t", b"\v", b"\f"))


def blank_comments(data: bytes, source: str, *, qrels: bool) -> bytes:
    """``data`` with the text of its comment lines removed (their line ends kept, so line
    numbers do not change and the parsers skip the now empty lines).

    A comment line is what trec_eval 9.0.8 skips (see the comment above): in a run
    (``qrels=False``) a line whose first non-blank character is ``#``; in qrels a line whose
    first character is ``#``.  A qrels ``#`` line that trec_eval would *not* skip (indented,
    or right after another comment line: trec_eval reads it as a judgement, or rejects the
    file as malformed) raises an :class:`InputError` saying so, rather than being read
    differently from trec_eval.  Costs a few C-speed substring searches when there is no
    comment (a '#' inside docnos, as in MS MARCO, included), and memory only for the copy
    when there is one.

    Examples
    --------
    >>> blank_comments(b"# run of 2024\\nq1 Q0 d#1 1 2.5 x\\n  # note\\n", "r", qrels=False)
    b'\\nq1 Q0 d#1 1 2.5 x\\n\\n'
    >>> blank_comments(b"# judged by NIST\\n301 0 d1 1\\n", "q", qrels=True)
    b'\\n301 0 d1 1\\n'
    """
    if b"#" not in data:  # almost no file has a '#' at all
        return data
    starts = [0] if data[:1] == b"#" else []
    for line_end in (b"\n#", b"\r#"):  # '#' in the first column
        position = data.find(line_end)
        while position >= 0:
            starts.append(position + 1)
            position = data.find(line_end, position + 2)
    if data[:1] in (b" ", b"\t", b"\v", b"\f") or any(b in data for b in _BLANK_LINE_STARTS):
        for match in _INDENTED_COMMENT.finditer(data):  # rare: lines starting with a blank
            if qrels:
                raise _qrels_comment_error(data, match.start(), source, "an indented '#' line")
            starts.append(match.start())
    if not starts:
        return data
    pieces, position, previous_end = [], 0, -2
    for start in sorted(starts):
        ends = [e for e in (data.find(b"\n", start), data.find(b"\r", start)) if e >= 0]
        end = min(ends) if ends else len(data)
        if qrels and _follows(data, previous_end, start):
            raise _qrels_comment_error(data, start, source, "a second comment line in a row")
        pieces.append(data[position:start])
        position, previous_end = end, end
    pieces.append(data[position:])
    return b"".join(pieces)


def _follows(data: bytes, previous_end: int, start: int) -> bool:
    """Whether the line at ``start`` comes right after the line ending at ``previous_end``."""
    if previous_end < 0:
        return False
    gap = data[previous_end:start]
    return gap in (b"\n", b"\r", b"\r\n")


def _qrels_comment_error(data: bytes, start: int, source: str, problem: str) -> InputError:
    end = data.find(b"\n", start)
    text = data[start:len(data) if end < 0 else end].decode("utf-8", "replace").rstrip("\r")
    return InputError(
        f"{problem} in qrels, which trec_eval does not skip: it reads it as a judgement or "
        "rejects the file (trec_eval 9.0.8 skips one line starting with '#' at a time; newer "
        "trec_eval skips none)", source=source, line=data.count(b"\n", 0, start) + 1, text=text,
        expected="at most one comment line in a row, '#' as its first character, or none "
                 "(grep -v '^#' removes them)")
