"""Columns: which of a file's columns holds each field, and the typing of every field.

Every reader hands over raw columns (:class:`RawColumns`); the checks here are the same for
all formats: ids become non-empty strings, scores finite float64, grades int64, and the
first bad value raises an :class:`~tiedrank.core.errors.InputError` naming its line.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from ..core.errors import InputError, Remedy
from ._arrow import decode, first_true, integral, is_text
from ._text import BLANKS, FLOAT_RE, INT_RE, NONFINITE_MATCH, Locator, fail

# Our column name -> names accepted in a tabular file's header (case-insensitive).  The
# id-specific names come first because some tools put *text* in a column called "query"
# (PyTerrier: qid = id, query = text) or an internal number in "docid" (PyTerrier: docno is
# the external id), so when both are present the id-specific one must win. ranx's Parquet
# files (Run.save / Qrels.save "*.parquet") name their columns q_id, doc_id and score, also
# for the grades of qrels: "score" is the last name tried for a grade.
ALIASES: dict[str, tuple[str, ...]] = {
    "query": ("qid", "query_id", "q_id", "topic", "query"),
    "doc": ("docno", "doc_id", "docid", "pid", "passage_id", "doc"),
    "score": ("score", "sim", "similarity"),
    "relevance": ("relevance", "rel", "grade", "label", "judgement", "judgment", "score"),
}


@dataclass
class RawColumns:
    """Raw columns from a reader, before type checks."""

    query: pa.ChunkedArray
    doc: pa.ChunkedArray
    value: pa.ChunkedArray
    locate: Locator
    second: pa.ChunkedArray | None = None
    """TREC qrels' second column (trec_eval's ignored iteration; ndeval's subtopic id)."""


@dataclass(frozen=True)
class ValueRule:
    """How a value column is typed: run scores are finite floats, qrels grades integers."""

    noun: str          # "score" or "grade", in messages
    integer: bool
    expected: str      # what the messages say was expected

    @property
    def invalid(self) -> str:
        """The problem of a value of the wrong kind."""
        return f"non-integer {self.noun}" if self.integer else f"non-numeric {self.noun}"

    @property
    def nonfinite(self) -> str:
        """The problem of a NaN or an infinity."""
        return f"NaN or infinite {self.noun}"


SCORE = ValueRule("score", integer=False, expected="a finite number")
MAX_GRADE = 2**31 - 1
"""Largest |grade|: linear gains of this size summed over millions of documents stay exact
integers in float64, so no kernel rounds a grade (exp gain has its own limit, 1023)."""
GRADE = ValueRule("grade", integer=True,
                  expected=f"an integer grade from -{MAX_GRADE:,} to {MAX_GRADE:,}")


def columns_remedy(roles: tuple[str, ...], missing: list[str]) -> Remedy:
    """The remedy for unmapped columns: the reader's ``columns=`` mapping of the missing
    roles, as fields each door words (the CLI: ``--columns score=<column>``).

    >>> columns_remedy(("query", "doc", "score"), ["score"]).python()
    "or pass columns={'score': '<column>'} to read_run"
    """
    reader = "read_qrels" if "relevance" in roles else "read_run"
    return Remedy("columns", {role: "<column>" for role in missing}, function=reader, lead="or")


def resolve_columns(found: list[str], roles: tuple[str, ...],
                    mapping: Mapping[str, str] | None, source: str) -> dict[str, str]:
    """Our role -> the file's column name, by explicit mapping, else by alias.

    Examples
    --------
    >>> resolve_columns(["QID", "docno", "bm25"], ("query", "doc", "score"),
    ...                 {"score": "bm25"}, "run.csv")
    {'query': 'QID', 'doc': 'docno', 'score': 'bm25'}
    """
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
    missing_roles: list[str] = []
    for role in roles:
        if role in mapping:
            wanted = str(mapping[role])
            hit = wanted if wanted in found else folded.get(wanted.strip().casefold())
            label = f"{role} (mapped to {wanted!r})"
        else:
            hit = next((folded[a] for a in ALIASES[role] if a in folded), None)
            label = role
        if hit is None:
            missing.append(label)
            missing_roles.append(role)
        else:
            resolved[role] = hit
    repeated = [hit for hit in resolved.values()
                if sum(f.strip().casefold() == hit.strip().casefold() for f in found) > 1]
    if repeated:  # which of two 'score' columns? never guess
        raise InputError(f"column {repeated[0]!r} appears more than once in the header",
                         source=source, line=1, expected="each column name once (rename one, "
                         "or map the roles to distinct columns)")
    if missing:
        wanted = "; ".join(f"{role}: one of {', '.join(ALIASES[role])}" for role in roles)
        raise InputError(
            f"missing required columns: {', '.join(missing)}", source=source,
            expected=(f"columns named ({wanted}); found columns: "
                      f"{', '.join(repr(f) for f in found) or 'none'}"),
            remedy=columns_remedy(roles, missing_roles))
    return resolved


def as_ids(column: pa.ChunkedArray, what: str, locate: Locator, source: str,
           trim: bool) -> pa.ChunkedArray:
    """Query or document ids as non-empty strings (integers become their decimal text).

    ``trim`` strips blanks around ids (spaces after commas in hand-made CSVs); TREC ids
    cannot contain blanks, so the TREC readers skip that pass.
    """
    column = decode(column)
    kind = column.type
    if column.null_count:
        raise fail(f"missing {what}", first_true(pc.is_null(column)), locate, source,
                   f"a {what} in every row")
    if pa.types.is_floating(kind):
        bad = first_true(pc.invert(integral(column)))
        if bad is not None:
            raise fail(f"non-integer {what}", bad, locate, source, f"a text or integer {what}")
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
    if not is_text(kind):
        raise fail(f"unsupported {what} type {kind}", 0, locate, source,
                   f"a text or integer {what}")
    if trim:
        column = pc.utf8_trim(column, BLANKS)
    lengths = pc.binary_length(column)
    if len(column) and pc.min(lengths).as_py() == 0:  # one pass; the row only when it fails
        raise fail(f"empty {what}", first_true(pc.equal(lengths, 0)), locate, source,
                   f"a non-empty {what}")
    return column


def as_values(column: pa.ChunkedArray, rule: ValueRule, locate: Locator,
              source: str) -> pa.ChunkedArray:
    """Scores as finite float64 (``rule=SCORE``) or grades as int64 (``rule=GRADE``).

    Text is checked against the number syntax pyarrow's parser accepts; numeric columns by
    value (a grade must be a whole number, a score finite).

    Examples
    --------
    >>> never = lambda row: (row + 1, None)
    >>> as_values(pa.chunked_array([[" +2", "-1"]]), GRADE, never, "x").to_pylist()
    [2, -1]
    >>> as_values(pa.chunked_array([["1.5", "inf"]]), SCORE, never, "x")
    Traceback (most recent call last):
    ...
    tiedrank.core.errors.InputError: x, line 2: NaN or infinite score (expected a finite number)
    """
    def reject(problem: str, row: int) -> InputError:
        return fail(problem, row, locate, source, rule.expected)

    column = decode(column)
    if column.null_count:
        raise reject(f"missing {rule.noun}", first_true(pc.is_null(column)))
    kind = column.type
    if is_text(kind):
        column = _checked_text(column, rule, reject)
    else:
        column = _checked_numbers(column, kind, rule, reject)
    if rule.integer:
        return _as_grades(column, rule, reject, source)
    # an integer score past 2**53 becomes the nearest float64, as the same digits in a text
    # file parse (Arrow's safe cast refused it with a message naming no file or column)
    column = column.cast(pa.float64(), safe=not pa.types.is_integer(kind))
    bad = first_true(pc.invert(pc.is_finite(column)))
    if bad is not None:  # NaN, inf, or a decimal too large for float64 ("1e999")
        raise reject(rule.nonfinite, bad)
    return column


# The steps of as_values. ``reject(problem, row)`` is the error naming the row's line.

def _checked_text(column: pa.ChunkedArray, rule: ValueRule,
                  reject: Callable[[str, int], InputError]) -> pa.ChunkedArray:
    """Text values checked against the number syntax pyarrow's parser accepts, trimmed for
    the cast that follows."""
    column = pc.utf8_trim(column, BLANKS)
    syntax = INT_RE if rule.integer else FLOAT_RE
    bad = first_true(pc.invert(pc.match_substring_regex(column, syntax)))
    if bad is not None:
        named_nonfinite = not rule.integer and NONFINITE_MATCH(column[bad].as_py())
        raise reject(rule.nonfinite if named_nonfinite else rule.invalid, bad)
    if rule.integer:
        column = pc.utf8_ltrim(column, "+")  # pyarrow's integer cast rejects a plus sign
    return column


def _checked_numbers(column: pa.ChunkedArray, kind: pa.DataType, rule: ValueRule,
                     reject: Callable[[str, int], InputError]) -> pa.ChunkedArray:
    """A numeric column of a type the rule takes: a grade a whole number (a float or
    decimal one as float64, for the cast that follows), a score any number."""
    fractional = pa.types.is_floating(kind) or pa.types.is_decimal(kind)
    if rule.integer and fractional:
        column = column.cast(pa.float64())
        bad = first_true(pc.invert(integral(column)))
        if bad is not None:
            raise reject(rule.invalid, bad)
    elif not (pa.types.is_integer(kind) or pa.types.is_boolean(kind) or (
            not rule.integer and fractional)):
        raise reject(f"{rule.invalid} (type {kind})", 0)
    return column


def _as_grades(column: pa.ChunkedArray, rule: ValueRule,
               reject: Callable[[str, int], InputError], source: str) -> pa.ChunkedArray:
    """Checked grades as int64, each within +-:data:`MAX_GRADE`."""
    original = column
    try:
        column = column.cast(pa.int64())
    except (pa.ArrowInvalid, OverflowError):
        column = None
    if column is None:  # beyond int64: name the first such row (an error path only)
        row = _first_beyond(original)
        if row is not None:
            raise reject(f"{rule.noun} out of range", row)
        raise InputError(f"{rule.noun} out of range", source=source, expected=rule.expected)
    bad = first_true(pc.or_(pc.greater(column, MAX_GRADE), pc.less(column, -MAX_GRADE)))
    if bad is not None:
        raise reject(f"{rule.noun} out of range", bad)
    return column


def _first_beyond(column: pa.ChunkedArray) -> int | None:
    """The first row of a whole-number column whose value is past :data:`MAX_GRADE`."""
    for row, value in enumerate(column.to_pylist()):
        try:
            beyond = value is not None and abs(int(value)) > MAX_GRADE
        except (TypeError, ValueError, OverflowError):
            beyond = True
        if beyond:
            return row
    return None
