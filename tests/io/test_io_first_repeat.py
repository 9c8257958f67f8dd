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
