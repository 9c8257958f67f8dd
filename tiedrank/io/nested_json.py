"""One JSON object ``{query: {doc: value}}``: what ``ranx.Run.save("run.json")`` and
``ranx.Qrels.save("qrels.json")`` write, and a pytrec_eval dict dumped with ``json.dump``.

The object is parsed as plain data (Python's ``json``: nothing is executed), flattened to
query, doc and value columns, and the values go through the checks of every other format
(:mod:`tiedrank.io.columns`: a score must be a finite number, a grade an integer), so the
file and the ranx object it came from give the same numbers.

Examples
--------
>>> from tiedrank.io._load import load
>>> raw = read_nested_json(load(b'{"q1": {"d1": 2.5, "d2": 1}}', None))
>>> raw.query.to_pylist(), raw.doc.to_pylist(), raw.value.to_pylist()
(['q1', 'q1'], ['d1', 'd2'], ['2.5', '1'])
"""
from __future__ import annotations

import json
import re

import pyarrow as pa

from ..core.errors import InputError
from ._json import check_json_depth
from ._load import Loaded
from ._text import Locator
from .columns import RawColumns
from .tabular import json_cell

EXPECTED = 'one JSON object {"query": {"doc": value, ...}, ...} (ranx\'s Run.save / Qrels.save)'
_NESTED_START = re.compile(rb'\A\s*\{\s*(?:\Z|"(?:[^"\\]|\\.)*"\s*:\s*\{)')


def looks_nested(head: bytes) -> bool:
    """True when ``head`` starts like ``{"q1": {`` (or a lone ``{`` line, as ranx indents
    it): one nested object, never JSON lines (whose values are not objects)."""
    return bool(_NESTED_START.match(head))


def read_nested_json(loaded: Loaded) -> RawColumns:
    """The query, doc and value columns of a ``{query: {doc: value}}`` file, as text (the
    value checked later by the reader's rule).

    Raises
    ------
    InputError
        Invalid JSON (with its line), an outer or inner value that is not an object, or no
        (query, doc) pair at all.
    """
    check_json_depth(loaded.data, loaded.name, lines=False)  # before json recurses
    text = loaded.data.decode("utf-8")
    try:
        nested = json.loads(text)
    except ValueError as error:
        line = getattr(error, "lineno", None)
        shown = text.splitlines()[line - 1] if line and line <= len(text.splitlines()) else None
        raise InputError(f"invalid JSON ({getattr(error, 'msg', str(error))})",
                         source=loaded.name, line=line, text=shown, expected=EXPECTED) from None
    if not isinstance(nested, dict):
        raise InputError(f"a JSON {type(nested).__name__} where an object was expected",
                         source=loaded.name, expected=EXPECTED)
    bad = next((q for q, docs in nested.items() if not isinstance(docs, dict)), None)
    if bad is not None:
        raise InputError(f"query {bad!r} maps to {json.dumps(nested[bad])[:60]}, not an object",
                         source=loaded.name, expected=EXPECTED)
    queries = [q for q, docs in nested.items() for _ in docs]
    docs = [d for ranking in nested.values() for d in ranking]
    values = [json_cell(v) for ranking in nested.values() for v in ranking.values()]
    if not queries:
        raise InputError("empty input", source=loaded.name, expected="at least one (query, doc) "
                         "pair in the object")

    def locate(row: int) -> tuple[int | None, str | None]:
        # the object has no line per pair in general: name the pair instead
        return None, f"query {queries[row]!r}, doc {docs[row]!r}: {values[row]}"

    locator: Locator = locate
    return RawColumns(pa.chunked_array([pa.array(queries, pa.string())]),
                      pa.chunked_array([pa.array(docs, pa.string())]),
                      pa.chunked_array([pa.array(values, pa.string())]), locator)
