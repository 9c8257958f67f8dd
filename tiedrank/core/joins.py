"""The steps of building a tie-group table that touch every row: the qrels side (R and the
ideal grades), the run's query codes, the join of the qrels grades onto the run's rows and
the one sort (:func:`tiedrank.core.ties.build_tie_table` calls them in this order; each is
a phase of ``benchmarks/profile_phases.py``).

Examples
--------
>>> import pandas as pd
>>> side = qrels_side(pd.DataFrame({"query": ["q2", "q1", "q2"], "doc": ["a", "b", "c"],
...                                 "relevance": [1, 2, 0]}), rel_level=1)
>>> side.queries.tolist(), side.n_relevant.tolist(), side.ideal_grade.tolist()
(['q1', 'q2'], [1, 1], [2, 1, 0])
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


@dataclass(frozen=True)
class QrelsSide:
    """What a table keeps of the qrels: their queries (sorted ids), each judgement's query
    code and grade, R per query and the CSR of each query's grades sorted descending."""

    queries: np.ndarray
    query_code: np.ndarray
    grade: np.ndarray
    n_relevant: np.ndarray
    ideal_start: np.ndarray
    ideal_grade: np.ndarray
    memo: dict = field(default_factory=dict, compare=False, repr=False)
    """What :func:`join_grades` makes of the qrels alone, kept for the next run of a kept side."""


_KEPT: dict[int, tuple[weakref.ref, dict[int, QrelsSide]]] = {}
"""The qrels frames whose sides are kept (:func:`keep_qrels_sides`): id -> (the frame, weakly;
its sides by relevance level)."""


def keep_qrels_sides(qframe: pd.DataFrame) -> None:
    """Keep the side :func:`qrels_side` makes of ``qframe`` at each relevance level (and
    the qrels' half of :func:`join_grades`), for every table built on it after, until the
    frame is let go. For a frame nothing changes any more: the
    :class:`~tiedrank.evaluation.evaluator.Evaluator`'s own copy of its qrels."""
    key = id(qframe)
    _KEPT[key] = (weakref.ref(qframe, lambda _, key=key: _KEPT.pop(key, None)), {})


def qrels_side(qframe: pd.DataFrame, rel_level: int) -> QrelsSide:
    """Codes, R and ideal grades of the qrels frame ``qframe`` at ``rel_level`` (the kept
    one, for a frame of :func:`keep_qrels_sides`)."""
    kept = _KEPT.get(id(qframe))
    if kept is None or kept[0]() is not qframe:
        return _qrels_side(qframe, rel_level)
    if rel_level not in kept[1]:
        kept[1][rel_level] = _qrels_side(qframe, rel_level)
    return kept[1][rel_level]


def _qrels_side(qframe: pd.DataFrame, rel_level: int) -> QrelsSide:
    queries = np.unique(qframe["query"].to_numpy(dtype=object)).astype(object)  # sorted ids
    n_queries = len(queries)
    q_query = pd.Index(queries).get_indexer(qframe["query"])
    q_grade = qframe["relevance"].to_numpy(dtype=np.int64)
    n_relevant = np.bincount(q_query[q_grade >= rel_level], minlength=n_queries).astype(np.int64)
    ideal_order = np.lexsort((-q_grade, q_query))
    ideal_grade = q_grade[ideal_order]  # negatives kept: the gains clip them, bpref needs them
    ideal_start = np.searchsorted(q_query[ideal_order], np.arange(n_queries + 1))
    return QrelsSide(queries, q_query, q_grade, n_relevant, ideal_start, ideal_grade)


def run_query_codes(query: pd.Series, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each run row's index in ``queries`` (int32; -1: not in the qrels), and the run's
    queries that are not in the qrels, in order of first appearance.

    A run is written query by query, so the rows are cut into blocks of one query id by
    comparing neighbours, and only the blocks' ids are looked up (a few thousand strings,
    not millions); rows in no such order are looked up through their distinct ids.
    """
    ids = as_arrow_strings(query)
    n = len(ids)
    starts = np.zeros(1 if n else 0, dtype=np.int64)
    if n > 1:
        change = pc.not_equal(ids[1:], ids[:-1])
        change = change.combine_chunks() if isinstance(change, pa.ChunkedArray) else change
        starts = np.concatenate((starts, np.flatnonzero(change.to_numpy(zero_copy_only=False)) + 1))
    if len(starts) > max(n // 8, 1):  # not written query by query: each distinct id once
        codes, values = pd.factorize(query)
        to_qrels = pd.Index(queries).get_indexer(values.astype(object)).astype(np.int32)
        return to_qrels[codes], values[to_qrels < 0]
    values = take_rows(ids, starts).to_numpy(zero_copy_only=False).astype(object)
    block_code = pd.Index(queries).get_indexer(values).astype(np.int32)
    unknown = np.array(list(dict.fromkeys(values[block_code < 0])), dtype=object)
    return np.repeat(block_code, np.diff(np.append(starts, n))), unknown


def join_grades(run_docs: pa.Array | pa.ChunkedArray, qrels_docs: pa.Array | pa.ChunkedArray,
                query_code: np.ndarray, side: QrelsSide
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The run rows the qrels judge (ascending), the grade of each and its row of the qrels
    frame (what the subtopic judgements are keyed by): one hash lookup of the run's
    documents in the judged ones and a binary search of (query, doc) codes. Only those rows
    are kept (a few per query): :func:`place_grades` spreads them over the table.
    ``qrels_docs`` is the doc column of the frame ``side`` was made of; the qrels' half
    of the join is made once per side (``side.memo``)."""
    if "join" not in side.memo:
        judged_doc_values = pc.unique(qrels_docs)
        q_doc_code = _to_numpy(pc.index_in(qrels_docs, value_set=judged_doc_values)).astype(np.int64)
        n_docs = max(len(judged_doc_values), 1)
        qrels_key = side.query_code.astype(np.int64) * n_docs + q_doc_code
        key_order = np.argsort(qrels_key)
        side.memo["join"] = judged_doc_values, n_docs, key_order, qrels_key[key_order]
    judged_doc_values, n_docs, key_order, sorted_keys = side.memo["join"]
    doc_code = _to_numpy(pc.fill_null(pc.index_in(run_docs, value_set=judged_doc_values), -1))
    # keys of the candidate rows only (a document the qrels judge, for a qrels query): a
    # few per query, so nothing the size of the run is made here
    cand_rows = np.flatnonzero((doc_code >= 0) & (query_code >= 0))
    run_key = query_code[cand_rows].astype(np.int64) * n_docs + doc_code[cand_rows].astype(np.int64)
    del doc_code
    slot = np.searchsorted(sorted_keys, run_key)
    slot_ok = slot < len(sorted_keys)
    hit = np.zeros(len(cand_rows), dtype=bool)
    hit[slot_ok] = sorted_keys[slot[slot_ok]] == run_key[slot_ok]
    judged_pairs = key_order[slot[hit]]
    return cand_rows[hit], side.grade[judged_pairs], judged_pairs


def place_grades(rows: np.ndarray | None, n_rows: int, judged_rows: np.ndarray,
                 judged_grade: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each table position's grade (int64, 0 when unjudged) and whether it is judged, from
    the judged run rows: ``rows`` is the run row at each position (None: position = row,
    all ``n_rows`` rows kept). The judged rows are found by marking them once, so no
    inverse of the ranking order (an array the size of the run) is made."""
    if rows is None:
        positions, grade_at = judged_rows, judged_grade
    else:
        marked = np.zeros(n_rows, dtype=bool)
        marked[judged_rows] = True
        positions = np.flatnonzero(marked[rows])
        del marked
        grade_at = judged_grade[np.searchsorted(judged_rows, rows[positions])]
    size = n_rows if rows is None else len(rows)
    doc_grade = np.zeros(size, dtype=np.int64)
    doc_judged = np.zeros(size, dtype=bool)
    doc_grade[positions] = grade_at
    doc_judged[positions] = True
    return doc_grade, doc_judged


def as_arrow_strings(series: pd.Series) -> pa.Array | pa.ChunkedArray:
    """The Arrow strings behind a pandas str column (no copy for Arrow-backed columns).

    An empty object column (pandas before 3, e.g. qrels that judge nothing) becomes Arrow's
    null type, which pyarrow 16 cannot look strings up in: typed as strings then."""
    array = pa.array(series)
    return array.cast(pa.string()) if pa.types.is_null(array.type) else array


def narrow_offsets(ids: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """``ids`` with 32-bit offsets where they are 64-bit (pandas keeps its strings as
    ``large_string``): each chunk whose text fits in 2 GiB is cast, its text shared, not
    copied, so only the offsets are made again, at half their size (27 MB less for the
    doc ids of a 7M-line run).

    >>> narrow_offsets(pa.chunked_array([pa.array(["a", "bc"], pa.large_string())])).type
    DataType(string)
    """
    if not pa.types.is_large_string(ids.type):
        return ids
    chunks = ids.chunks if isinstance(ids, pa.ChunkedArray) else [ids]
    if any(chunk.nbytes >= 2**31 - 1 for chunk in chunks):
        return ids  # a 32-bit offset could not reach the end of its text
    narrowed = [chunk.cast(pa.string()) for chunk in chunks]
    return pa.chunked_array(narrowed, pa.string()) if isinstance(ids, pa.ChunkedArray) \
        else narrowed[0]


def take_rows(array: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``array[rows]`` as one Arrow array, taken chunk by chunk.

    pyarrow's ``take`` on a chunked array first concatenates its chunks: a copy of the
    whole column (120 MB of doc ids on 7M lines) to pick a few rows. Here each chunk gives
    its own rows and only those are concatenated, then put back in the order asked.

    >>> ids = pa.chunked_array([["a", "b"], [], ["c", "d"]])
    >>> take_rows(ids, np.array([3, 0, 2])).to_pylist()
    ['d', 'a', 'c']
    """
    rows = np.asarray(rows, dtype=np.int64)
    if not isinstance(array, pa.ChunkedArray):
        return array.take(pa.array(rows))
    if array.num_chunks == 1:
        return array.chunk(0).take(pa.array(rows))
    bounds = np.cumsum([0] + [len(chunk) for chunk in array.chunks])
    chunk_of = np.searchsorted(bounds, rows, side="right") - 1  # empty chunks skipped
    in_order = bool(np.all(chunk_of[1:] >= chunk_of[:-1]))
    order = None if in_order else np.argsort(chunk_of, kind="stable")
    by_chunk = rows if order is None else rows[order]
    cuts = np.searchsorted(chunk_of if order is None else chunk_of[order],
                           np.arange(array.num_chunks + 1))
    parts = [array.chunk(k).take(pa.array(by_chunk[cuts[k]:cuts[k + 1]] - bounds[k]))
             for k in range(array.num_chunks) if cuts[k + 1] > cuts[k]]
    gathered = pa.concat_arrays(parts) if parts else pa.array([], type=array.type)
    if order is None:
        return gathered
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return gathered.take(pa.array(inverse))


def _to_numpy(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return array.to_numpy(zero_copy_only=False)


def ranking_order(query_code: np.ndarray, score: np.ndarray) -> np.ndarray | None:
    """The stable (query asc, score desc) order of the rows, or None if already in it.

    TREC runs are usually written query by query in rank order, so two O(N) checks come
    first: already sorted (no work), or sorted inside contiguous query blocks that are
    merely in another query order (move whole blocks). Anything else takes one stable
    multi-key sort in Arrow, about four times faster than ``np.lexsort`` here.
    """
    n = len(query_code)
    if n < 2:
        return None
    # comparisons of neighbours, not differences: no array of differences the size of the
    # run, and no overflow (score[i + 1] - score[i] <= 0 exactly when score[i + 1] <= score[i])
    query_change = query_code[1:] != query_code[:-1]
    block_start = np.concatenate(([0], np.flatnonzero(query_change) + 1))
    within_sorted = bool(np.all((score[1:] <= score[:-1]) | query_change))
    block_query = query_code[block_start]
    if within_sorted and len(np.unique(block_query)) == len(block_start):
        if np.all(np.diff(block_query) > 0):
            return None
        block_length = np.diff(np.append(block_start, n))
        moved = np.argsort(block_query)
        new_start = np.cumsum(block_length[moved]) - block_length[moved]
        order = np.repeat(block_start[moved] - new_start, block_length[moved])
        # + position, in place and a slice at a time: no second array the size of the run
        # (an arange of 7M positions is 14,000 fresh pages to fault in)
        for start in range(0, n, _STEP):
            order[start:start + _STEP] += np.arange(start, min(start + _STEP, n),
                                                    dtype=order.dtype)
        return order
    return pc.sort_indices(pa.table({"q": query_code, "s": score}),
                           sort_keys=[("q", "ascending"), ("s", "descending")]).to_numpy()


_STEP = 1 << 18
"""Positions a slice of the in-place additions of :func:`ranking_order`."""


def byte_order(ids: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The stable ascending order of the strings ``ids`` by their bytes (C's ``strcmp`` for
    ids without a NUL byte): the positions, as ``pyarrow.compute.sort_indices`` gives them.

    Ids of at most 8 bytes (most document ids: MS MARCO's, the benchmark's) are sorted as
    the big-endian words of their zero-padded bytes, one integer sort, several times faster
    than comparing strings; a longer id or one holding a NUL byte (which the padding would
    confuse with its end) leaves the strings to Arrow's sort.

    >>> byte_order(pa.array(["b", "ab", "a", "ab", "B", "\u00e9"])).tolist()
    [4, 2, 1, 3, 0, 5]
    """
    if isinstance(ids, pa.ChunkedArray):
        ids = ids.combine_chunks()
    text = pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type)
    words = _padded_words(ids) if text and len(ids) else None
    if words is None:
        return pc.sort_indices(ids).to_numpy()
    return np.argsort(words, kind="stable")


def _padded_words(ids: pa.Array) -> np.ndarray | None:
    """Each id's bytes as a big-endian uint64, zero-padded; None when an id is longer than
    8 bytes or holds a NUL byte (or the array has nulls)."""
    if ids.null_count:
        return None
    _, offsets_buffer, data_buffer = ids.buffers()
    width = 8 if pa.types.is_large_string(ids.type) else 4
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if width == 8 else np.int32,
                            count=len(ids) + 1, offset=ids.offset * width).astype(np.int64)
    lengths = offsets[1:] - offsets[:-1]
    if data_buffer is None or int(lengths.max()) > 8 or int(lengths.max()) == 0:
        return None
    data = np.frombuffer(data_buffer, dtype=np.uint8)
    # byte by byte (8 passes over arrays the size of ``ids``), not as an (n, 8) matrix of
    # int64 indices: 400,000 tied ids of a 7M-line run took 62 MB of temporaries that way
    words = np.zeros(len(ids), dtype=np.uint64)
    start = offsets[:-1]
    last = len(data) - 1
    for column in range(8):
        inside = lengths > column
        byte = data[np.minimum(start + column, last)]
        if (inside & (byte == 0)).any():
            return None  # a NUL byte: the padding would read as the id's end
        byte[~inside] = 0
        words <<= np.uint64(8)
        words |= byte
    return words
