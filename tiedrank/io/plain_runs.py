"""A pytrec_eval run ``{query: {doc: score}}`` as a training loop holds it (str ids, float or
int scores) read in one pass: the :class:`~tiedrank.evaluation.evaluator.Evaluator`'s fast
path. Anything else (another key type, a bool or text score, NaN, an id with blanks around
it, an empty id or dict) gives None, and :func:`~tiedrank.io.read_run` reads it, or refuses
it with its own message, as ever. What is read here is what ``read_run`` reads: the same
frame (dtypes, row order), name ``"run"``, source ``"<dict>"``, no finding (a dict cannot
list a document twice for a query).

>>> run = read_plain_run({"q1": {"d1": 2.0, "d2": 1}, "q2": {"d3": 0.5}})
>>> run.name, run.source, run.frame["query"].tolist(), run.frame["score"].tolist()
('run', '<dict>', ['q1', 'q1', 'q2'], [2.0, 1.0, 0.5])
>>> read_plain_run({"q1": {"d1": float("nan")}}) is None, read_plain_run({1: {"d": 1.0}}) is None
(True, True)
"""
from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.data import RUN_COLUMNS, Run
from ._arrow import to_frame
from ._text import BLANKS


def read_plain_run(nested: Any) -> Run | None:
    """``nested`` read as :func:`~tiedrank.io.read_run` reads it, when it is a plain dict
    of dicts of str ids and finite float or int scores; None otherwise."""
    if type(nested) is not dict or not nested:
        return None
    rankings = list(nested.values())
    if not all(type(ranking) is dict for ranking in rankings):
        return None
    lengths = np.fromiter(map(len, rankings), dtype=np.int64, count=len(rankings))
    if not lengths.all():  # a query without documents: read_run's business
        return None
    try:
        queries = pa.array(list(nested))
        docs = pa.array(list(itertools.chain.from_iterable(rankings)))
        scores = pa.array(list(itertools.chain.from_iterable(r.values() for r in rankings)))
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
        return None
    if not (pa.types.is_string(queries.type) and pa.types.is_string(docs.type)) or \
            not (pa.types.is_float64(scores.type) or pa.types.is_int64(scores.type)) or \
            scores.null_count or not _plain_ids(queries) or not _plain_ids(docs):
        return None
    scores = scores.cast(pa.float64(), safe=False)  # as read_run casts integer scores
    if not pc.all(pc.is_finite(scores)).as_py():
        return None
    query_rows = queries.take(pa.array(np.repeat(np.arange(len(lengths)), lengths)))
    columns = [pa.chunked_array([column]) for column in
               (query_rows.cast(pa.large_string()), docs.cast(pa.large_string()), scores)]
    return Run(name="run", frame=to_frame(columns, RUN_COLUMNS), source="<dict>")


def _plain_ids(ids: pa.Array) -> bool:
    """No null, no empty id and none with blanks around it (read_run would trim or refuse)."""
    if ids.null_count or (len(ids) and pc.min(pc.binary_length(ids)).as_py() == 0):
        return False
    return bool(pc.all(pc.equal(pc.utf8_trim(ids, BLANKS), ids)).as_py())
