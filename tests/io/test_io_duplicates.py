"""Duplicate (query, doc) rows: the error, duplicates='max', and the hash behind them."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from tiedrank.core.validation import InvalidParameterError
from tiedrank.io import _parallel, duplicates, read_run

from io_support import GOOD, error_of


def test_duplicate_message_names_first_line():
    exc = error_of(read_run, GOOD + b"q2 Q0 d1 1 1 t\n\nq1 Q0 d1 2 1 t\n")
    assert "first seen for query 'q1' on line 1" in str(exc)
    assert "duplicates='max'" in str(exc)


def test_duplicate_in_different_parse_blocks(monkeypatch):
    """Rows far apart (different pyarrow chunks) are compared too."""
    monkeypatch.setattr(_parallel, "BLOCK_SIZE", 4096)
    lines = [f"q{i % 7} Q0 d{i} 1 {i} run" for i in range(5000)]
    lines.append("q3 Q0 d10 1 5 run")  # d10 was first seen for q3 (10 % 7 == 3) on line 11
    exc = error_of(read_run, ("\n".join(lines) + "\n").encode())
    assert (exc.problem, exc.line) == ("duplicate document within a query", 5001)
    assert "on line 11" in str(exc)


def test_hash_collisions_are_checked_exactly(monkeypatch):
    monkeypatch.setattr(duplicates, "hash_strings", lambda column: np.zeros(len(column), np.uint64))
    run = read_run(b"q Q0 a 1 1 t\nq Q0 b 1 2 t\nr Q0 a 1 3 t\n")
    assert len(run) == 3
    exc = error_of(read_run, b"q Q0 a 1 1 t\nq Q0 b 1 2 t\nq Q0 a 1 3 t\n")
    assert exc.line == 3


def test_hash_strings_handles_slices_and_lengths():
    values = ["", "a", "abcdefgh", "abcdefghi", "abcdefgh\u00e9", "x" * 40, "a"]
    column = pa.chunked_array([pa.array(values[:3]), pa.array(values[3:])])
    hashes = duplicates.hash_strings(column)
    assert hashes[1] == hashes[6] and len(set(hashes.tolist())) == 6
    sliced = pa.chunked_array([pa.array(["zz"] + values)]).slice(1)
    assert np.array_equal(duplicates.hash_strings(sliced), hashes)
    large = pa.chunked_array([pa.array(values, pa.large_string())])
    assert np.array_equal(duplicates.hash_strings(large), hashes)


# ------------------------------------------------------------------------------------------
# duplicates="max"
# ------------------------------------------------------------------------------------------

def test_duplicates_max_keeps_highest_in_place():
    data = (b"q1 Q0 a 1 1.0 t\nq1 Q0 b 2 5.0 t\nq1 Q0 a 3 3.0 t\n"
            b"q2 Q0 a 1 2.0 t\nq1 Q0 a 4 2.0 t\nq2 Q0 a 2 2.0 t\n")
    run = read_run(data, duplicates="max")
    assert run.frame.to_dict("list") == {"query": ["q1", "q1", "q2"], "doc": ["b", "a", "a"],
                                         "score": [5.0, 3.0, 2.0]}
    assert isinstance(run.frame.index, pd.RangeIndex)
    (finding,) = run.findings
    assert finding.kind == "duplicates_kept_max"
    assert finding.count == 2 and set(finding.queries) == {"q1", "q2"}
    assert "3 duplicate" in finding.message


def test_duplicates_max_without_duplicates_has_no_finding():
    assert read_run(GOOD, duplicates="max").findings == ()


def test_duplicates_argument_checked():
    with pytest.raises(InvalidParameterError) as info:
        read_run(GOOD, duplicates="first")
    assert str(info.value) == ("read_run(): duplicates= must be one of 'error', 'max'; "
                               "got 'first'")
    assert isinstance(info.value, ValueError)
