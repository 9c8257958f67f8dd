"""The row-wide steps of the table build against plain oracles: the run's query codes (from
blocks of one query id, or each distinct id) against pandas' factorize, and the judged rows
placed in the table's order against a dense join reordered; rows taken chunk by chunk
against pyarrow's own take."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pyarrow as pa

from tiedrank.core.joins import place_grades, run_query_codes, take_rows

QUERIES = np.array(["q1", "q10", "q2", "q3"], dtype=object)  # the qrels' (sorted) ids

# query ids of a run: written query by query (blocks: looked up by block when they average 8
# rows or more), or in any order
ROWS = st.one_of(
    st.lists(st.tuples(st.sampled_from(["q1", "q10", "q2", "q3", "x", "q9"]),
                       st.integers(1, 20)), max_size=8).map(
        lambda blocks: [q for q, size in blocks for _ in range(size)]),
    st.lists(st.sampled_from(["q1", "q10", "q2", "x", "q9"]), max_size=30))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(ids=ROWS)
@example(ids=["x"] * 9 + ["q1"] * 9 + ["q9"] * 9)  # first appearance, not sorted order
@example(ids=["x", "q9", "q1", "q9", "x"] * 3)
def test_query_codes_equal_a_factorize_lookup(ids):
    series = pd.Series(ids, dtype=pd.StringDtype(storage="pyarrow", na_value=np.nan))
    codes, unknown = run_query_codes(series, QUERIES)
    expected = pd.Index(QUERIES).get_indexer(pd.Index(ids, dtype=object)) if ids else []
    assert codes.tolist() == list(expected)
    assert unknown.tolist() == list(dict.fromkeys(q for q in ids if q not in set(QUERIES)))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(data=st.data(), n=st.integers(0, 30))
def test_placed_grades_equal_the_dense_join_reordered(data, n):
    grade = np.array(data.draw(st.lists(st.integers(-2, 3), min_size=n, max_size=n)), np.int64)
    judged = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    kept = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    rows = np.flatnonzero(kept)[np.array(data.draw(st.permutations(range(int(kept.sum())))),
                                         dtype=np.int64)] if n else np.zeros(0, np.int64)
    judged_rows = np.flatnonzero(judged)
    doc_grade, doc_judged = place_grades(rows, n, judged_rows, grade[judged_rows])
    assert doc_grade.tolist() == np.where(judged, grade, 0)[rows].tolist()
    assert doc_judged.tolist() == judged[rows].tolist()
    every_grade, every_judged = place_grades(None, n, judged_rows, grade[judged_rows])
    assert every_grade.tolist() == np.where(judged, grade, 0).tolist()
    assert every_judged.tolist() == judged.tolist()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(chunks=st.lists(st.lists(st.text(max_size=3), max_size=5), min_size=0, max_size=5),
       data=st.data())
def test_rows_taken_chunk_by_chunk_equal_pyarrows_take(chunks, data):
    """Any rows (repeated, in any order) of a chunked array with empty chunks."""
    array = pa.chunked_array(chunks, type=pa.large_string())
    n = len(array)
    rows = np.array(data.draw(st.lists(st.integers(0, max(n - 1, 0)),
                                       max_size=12 if n else 0)), dtype=np.int64)
    expected = array.take(pa.array(rows, type=pa.int64())).to_pylist()
    assert take_rows(array, rows).to_pylist() == expected
    assert take_rows(array.combine_chunks(), rows).to_pylist() == expected
