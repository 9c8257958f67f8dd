"""The duplicate check finds the first repeated (query, doc) from hashes, with
memory that does not grow with the number of repeated lines; checked against a plain
dictionary scan, also when every hash collides."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tiedrank.io import duplicates


def _scan(pairs):
    seen = {}
    for row, pair in enumerate(pairs):
        if pair in seen:
            return row, seen[pair]
        seen[pair] = row
    return None


def _columns(pairs, chunks=2):
    cut = len(pairs) // chunks
    parts = [pairs[:cut], pairs[cut:]]
    return (pa.chunked_array([[q for q, _ in p] for p in parts], type=pa.string()),
            pa.chunked_array([[d for _, d in p] for p in parts], type=pa.string()))


PAIRS = st.lists(st.tuples(st.sampled_from(["q1", "q2", "q10"]),
                           st.sampled_from(["d1", "d2", "d3", "doc-long-identifier-4", ""])),
                 min_size=0, max_size=40)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(pairs=PAIRS)
def test_first_repeat_equals_a_dictionary_scan(pairs):
    assert duplicates._first_repeat(*_columns(pairs)) == _scan(pairs)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(pairs=PAIRS)
def test_first_repeat_is_exact_when_every_hash_collides(pairs, monkeypatch_module):
    assert duplicates._first_repeat(*_columns(pairs)) == _scan(pairs)


@pytest.fixture(scope="module")
def monkeypatch_module():
    patch = pytest.MonkeyPatch()
    patch.setattr(duplicates, "_pair_hash", lambda q, d: np.zeros(len(q), dtype=np.uint64))
    yield
    patch.undo()


def test_a_million_repeats_of_one_line_cost_no_strings():
    import tracemalloc

    n = 1_000_000
    query = pa.chunked_array([pa.array(["q1"] * n)])
    doc = pa.chunked_array([pa.array(["d1"] * n)])
    tracemalloc.start()
    try:
        assert duplicates._first_repeat(query, doc) == (1, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # about ten int64/uint64 arrays of n (8 MB each: 83 bytes a row measured), never a
    # Python string per repeated row (the earlier path: 192 bytes a row, plus pandas)
    assert peak < 100 * n, peak


# Runs as they are written: query by query, each query's rows together, of mixed lengths
# (so the block check pads), sometimes with a document repeated inside a query, sometimes
# with a query split in two blocks (the check must then say "not known").
GROUPED = st.lists(
    st.tuples(st.sampled_from(["q1", "q2", "q10", "q3"]),
              st.lists(st.sampled_from(["d1", "d2", "d3", "doc-long-identifier-4", "d5", ""]),
                       min_size=1, max_size=6)),
    min_size=0, max_size=6).map(lambda blocks: [(q, d) for q, docs in blocks for d in docs])


@settings(max_examples=200, deadline=None, derandomize=True)
@given(pairs=GROUPED)
def test_block_check_never_misses_a_repeat(pairs):
    """True only when no (query, doc) repeats (oracle: a dictionary scan); for rows grouped
    by query without repeats it says True (the fast path is taken). Checked whole and in
    slices of a few queries (the check goes slice by slice on large runs)."""
    distinct = duplicates._distinct_in_query_blocks(*_columns(pairs))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(duplicates, "_HASH_ROWS", 5)  # slices of one or a few queries
        assert duplicates._distinct_in_query_blocks(*_columns(pairs)) == distinct
    assert not distinct or _scan(pairs) is None
    queries = [q for q, _ in pairs]
    grouped = all(queries.index(q) == i or queries[i - 1] == q for i, q in enumerate(queries))
    lengths = [queries.count(q) for q in dict.fromkeys(queries)]
    padded = len(lengths) * max(lengths, default=0) <= 2 * len(pairs) + 1024
    if grouped and padded and _scan(pairs) is None:
        assert distinct


def test_block_check_pads_queries_of_different_lengths():
    """A repeat in a short query (its row padded) and in the longest one are both seen."""
    long = [("q1", f"d{i}") for i in range(50)]
    for pairs in (long + [("q2", "a"), ("q2", "b"), ("q2", "a")],
                  long[:-1] + [("q1", "d3")] + [("q2", "a")]):
        assert not duplicates._distinct_in_query_blocks(*_columns(pairs))
        assert duplicates._first_repeat(*_columns(pairs)) == _scan(pairs)
    assert duplicates._distinct_in_query_blocks(*_columns(long + [("q2", "a"), ("q2", "b")]))
