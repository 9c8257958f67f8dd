"""Column mapping (aliases, columns=) and the typing of ids, scores and grades (DataFrames)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tiedrank.io import read_qrels, read_run

from io_support import assert_run_frame, error_of, tabular_bytes


def test_dataframe_source_with_aliases_and_int_ids():
    frame = pd.DataFrame({"QID": [301, 301, 302], "DocNo": ["a", "b", "a"],
                          "Score": [1, 2.5, 3], "rank": [1, 2, 1]})
    run = read_run(frame)
    assert_run_frame(run.frame)
    assert run.frame.to_dict("list") == {"query": ["301", "301", "302"], "doc": ["a", "b", "a"],
                                         "score": [1.0, 2.5, 3.0]}
    assert run.source == "<DataFrame>" and run.name == "run"


def test_dataframe_source_with_mapping_and_odd_dtypes():
    frame = pd.DataFrame({"topic_no": pd.Categorical(["1", "2"]), "d": [10.0, 11.0],
                          "bm25": ["1.5", " 2 "], "rel": [1, 0]})
    run = read_run(frame, columns={"query": "topic_no", "doc": "d", "score": "bm25"})
    assert run.frame.to_dict("list") == {"query": ["1", "2"], "doc": ["10", "11"],
                                         "score": [1.5, 2.0]}
    qrels = read_qrels(frame, columns={"query": "topic_no", "doc": "d"})
    assert qrels.frame["relevance"].tolist() == [1, 0]
    mixed = pd.DataFrame({"qid": [1, "q2"], "docno": ["a", "b"], "score": [1, 2]},
                         dtype=object)
    assert read_run(mixed).frame["query"].tolist() == ["1", "q2"]
    mixed.loc[1, "qid"] = pd.NA
    exc = error_of(read_run, mixed)
    assert (exc.problem, exc.line) == ("missing query id", 2)


@pytest.mark.parametrize("frame, problem, line", [
    (pd.DataFrame({"qid": ["a", None], "docno": ["x", "y"], "score": [1, 2]}),
     "missing query id", 2),
    (pd.DataFrame({"qid": ["a", "b"], "docno": ["x", ""], "score": [1, 2]}),
     "empty document id", 2),
    (pd.DataFrame({"qid": ["a", "b", "c"], "docno": ["x", "y", "z"], "score": [1, np.nan, 2]}),
     "missing score", 2),
    (pd.DataFrame({"qid": ["a", "b"], "docno": ["x", "y"], "score": [1, np.inf]}),
     "NaN or infinite score", 2),
    (pd.DataFrame({"qid": ["a", "b"], "docno": ["x", "y"], "score": ["1", "high"]}),
     "non-numeric score", 2),
    (pd.DataFrame({"qid": ["a", "a"], "docno": ["x", "x"], "score": [1, 2]}),
     "duplicate document within a query", 2),
])
def test_bad_dataframe(frame, problem, line):
    exc = error_of(read_run, frame)
    assert (exc.problem, exc.line, exc.source) == (problem, line, "<DataFrame>")
    assert "qid=" in exc.text


def test_bad_dataframe_qrels():
    frame = pd.DataFrame({"qid": ["a", "b"], "docno": ["x", "y"], "rel": [1.0, 0.5]})
    exc = error_of(read_qrels, frame)
    assert (exc.problem, exc.line) == ("non-integer grade", 2)
    frame["rel"] = [1.0, 2.0]
    assert read_qrels(frame).frame["relevance"].tolist() == [1, 2]


def test_mapping_to_absent_column():
    exc = error_of(read_run, tabular_bytes("csv"), columns={"score": "bm25"})
    assert exc.problem == "missing required columns: score (mapped to 'bm25')"
    exc = error_of(read_run, tabular_bytes("csv"), columns={"rank": "x"})
    assert exc.problem == "unknown key(s) in columns mapping: rank"


def test_id_specific_aliases_win():
    """PyTerrier layout: qid/docno are the ids, query is text and docid an internal number."""
    frame = pd.DataFrame({"qid": ["1"], "query": ["some text"], "docid": [7], "docno": ["D7"],
                          "score": [0.5], "rank": [0]})
    assert read_run(frame).frame.to_dict("list") == {"query": ["1"], "doc": ["D7"],
                                                     "score": [0.5]}
