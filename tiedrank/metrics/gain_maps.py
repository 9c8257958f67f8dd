"""Gains given grade by grade: trec_eval's ``ndcg.1=3,2=9,4=4.5`` (gain_init.c).

A gain map names the gain of some grades; a grade it does not name gains the grade itself
(trec_eval's default), and grade 0, a negative grade and an unjudged document gain 0. It
is written ``1:3 2:9 4:4.5`` (grade:gain, blank-separated, grades ascending) and is a value
of a graded metric's ``gain=`` setting, next to ``linear`` and ``exp``:
``nDCG(gain=1:3 2:9 4:4.5)`` is trec_eval's ``ndcg.1=3,2=9,4=4.5``.

A map need not follow the grades (``2:9`` with grade 3 gaining 3): the ideal ranking then
sorts the judged documents by gain, and the best and worst case over the tie orderings put
the highest (lowest) gain first, not the highest grade (:func:`resolve_by_gain`).

Examples
--------
>>> parse_gain_map("4:4.5 1:3 2:9")
((1, 3.0), (2, 9.0), (4, 4.5))
>>> gain_map_text(parse_gain_map("4:4.5 1:3 2:9"))
'1:3 2:9 4:4.5'
>>> map_gains(np.array([-1, 0, 1, 2, 3, 4]), "1:3 2:9 4:4.5").tolist()
[0.0, 0.0, 3.0, 9.0, 3.0, 4.5]
"""
from __future__ import annotations

import math
import re
from dataclasses import replace
from functools import lru_cache

import numpy as np

from ..core.ties import TieTable

_PAIR = re.compile(r"([+-]?\d+)\s*:\s*([-+0-9.eE]+)", re.ASCII)
EXAMPLE = "1:3 2:9 4:4.5"


@lru_cache(maxsize=64)
def parse_gain_map(text: str) -> tuple[tuple[int, float], ...]:
    """``"1:3 2:9"`` -> ``((1, 3.0), (2, 9.0))``; ``ValueError`` in words otherwise (grades
    are integers >= 1, each named once; gains finite numbers >= 0)."""
    pairs: dict[int, float] = {}
    for item in text.split():
        match = _PAIR.fullmatch(item)
        if match is None:
            raise ValueError(f"{item!r} is not grade:gain (e.g. {EXAMPLE})")
        grade, raw = int(match.group(1)), match.group(2)
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"{raw!r} is not a number (gain of grade {grade})") from None
        if grade < 1:
            raise ValueError(f"grade {grade}: gains are given for grades >= 1 (grade 0, "
                             "negative grades and unjudged documents gain 0)")
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"gain {raw} of grade {grade} must be a finite number >= 0")
        if grade in pairs:
            raise ValueError(f"grade {grade} is given twice; give each grade once")
        pairs[grade] = value
    if not pairs:
        raise ValueError(f"no grade:gain pair (e.g. {EXAMPLE})")
    return tuple(sorted(pairs.items()))


def is_gain_map(kind: str) -> bool:
    """A ``gain=`` value that is a map rather than ``linear`` or ``exp``."""
    return ":" in kind


def gain_map_text(pairs: tuple[tuple[int, float], ...]) -> str:
    """The canonical spelling of a gain map (grades ascending, gains as short as exact)."""
    return " ".join(f"{grade}:{value!r}".removesuffix(".0") for grade, value in pairs)


def canonical_gain_map(text: str) -> str:
    """``text`` checked and spelled canonically: ``"4:4.5 1:3"`` -> ``"1:3 4:4.5"``."""
    return gain_map_text(parse_gain_map(text))


def map_gains(grades: np.ndarray, kind: str) -> np.ndarray:
    """The gain of each grade under the map ``kind`` (unnamed grades: the grade; grades
    <= 0: 0), as float64."""
    pairs = parse_gain_map(kind)
    gains = np.maximum(grades, 0).astype(np.float64)
    for grade, value in pairs:
        gains[grades == grade] = value
    return gains


def sorted_descending(query: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` sorted descending inside each run of equal ``query`` (queries ascending,
    contiguous): an ideal ranking by gain."""
    return values[np.lexsort((-values, query))]


def resolve_by_gain(table: TieTable, kind: str, best: bool) -> TieTable:
    """``table`` (expected) with every tie broken by gain: highest first (``best``) or last.

    The grade orders of :meth:`~tiedrank.core.ties.TieTable.resolve` are the extremes of a
    graded metric whose gain rises with the grade; under a map that does not, the gain
    decides. The resolved table keeps the documents' own grades.
    """
    gains = map_gains(table.doc_grade, kind)
    rank = np.unique(gains, return_inverse=True)[1].astype(table.doc_grade.dtype)
    keyed = replace(table, doc_grade=rank, doc_row=np.arange(len(gains)))
    ordered = keyed.resolve("best" if best else "worst")
    order = ordered.doc_row
    return replace(ordered, doc_grade=table.doc_grade[order], doc_row=table.doc_row[order])


__all__ = ["canonical_gain_map", "gain_map_text", "is_gain_map", "map_gains", "parse_gain_map", "resolve_by_gain",
           "sorted_descending"]
