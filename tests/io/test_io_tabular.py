"""CSV, TSV, Parquet and JSON lines, and list_columns."""
from __future__ import annotations

import gzip
import io

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tiedrank.io import detect_format, list_columns, read_qrels, read_run

from io_support import (RUN_ROWS, FakeUpload, assert_qrels_frame, assert_run_frame, error_of,
                        tabular_bytes)

# ------------------------------------------------------------------------------------------
# Tabular formats
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
def test_tabular_with_aliases(fmt):
    data = tabular_bytes(fmt, ("QID", " DocNo", "Similarity"))
    assert detect_format(data) == fmt
    run = read_run(data)
    assert_run_frame(run.frame)
    assert run.frame.to_dict("list") == RUN_ROWS
    assert read_run(gzip.compress(data)).frame.to_dict("list") == RUN_ROWS


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
def test_tabular_with_mapping(fmt):
    data = tabular_bytes(fmt, ("topic_no", "passage", "bm25"))
    assert list_columns(data) == ["topic_no", "passage", "bm25"]
    exc = error_of(read_run, data)
    assert exc.problem == "missing required columns: query, doc, score"
    assert "found columns: 'topic_no', 'passage', 'bm25'" in exc.expected
    assert "qid" in exc.expected and "docno" in exc.expected and "similarity" in exc.expected
    run = read_run(data, columns={"query": "topic_no", "doc": "PASSAGE", "score": "bm25"},
                   source_name=f"run.{fmt}")
    assert run.frame.to_dict("list") == RUN_ROWS
    assert run.name == "run"


def test_qrels_tabular():
    data = b"query_id,doc_id,relevance,iteration\n1,a,2,0\n1,b,-1,0\n"
    qrels = read_qrels(data)
    assert_qrels_frame(qrels.frame)
    assert qrels.frame.to_dict("list") == {"query": ["1", "1"], "doc": ["a", "b"],
                                           "relevance": [2, -1]}
    lines = b'{"topic": 1, "pid": 5, "judgment": 3}\n{"topic": 2, "pid": "x", "judgment": 0}\n'
    assert read_qrels(lines).frame.to_dict("list") == {"query": ["1", "2"], "doc": ["5", "x"],
                                                       "relevance": [3, 0]}


@pytest.mark.parametrize("data, problem, line, text", [
    (b"qid,docno,score\nq,a,1\n\nq,b,x\n", "non-numeric score", 4, "q,b,x"),
    (b"qid,docno,score\nq,a,1\nq,b,nan\n", "NaN or infinite score", 3, "q,b,nan"),
    (b"qid,docno,score\nq,a,1\nq,b\n", "wrong number of columns (found 2)", 3, "q,b"),
    (b"qid,docno,score\nq,a,1\nq,,2\n", "empty document id", 3, "q,,2"),
    (b'qid,docno,score\nq,"multi\nline",1\nq,b,\n', "non-numeric score", 4, "q,b,"),
    (b"qid,docno,score\nq,a,1\nq,a,2\n", "duplicate document within a query", 3, "q,a,2"),
    (b"qid\tdocno\tscore\nq\ta\t1\nq\tb\tInfinity\n", "NaN or infinite score", 3,
     "q\tb\tInfinity"),
    (b'{"qid": "q", "docno": "a", "score": 1}\n{"qid": "q", "docno": "b", "score": 1\n',
     "invalid JSON (Expecting ',' delimiter)", 2,
     '{"qid": "q", "docno": "b", "score": 1'),
    (b'{"qid": "q", "docno": "a", "score": 1}\n\n[1, 2]\n', "not a JSON object", 3, "[1, 2]"),
    (b'{"qid": "q", "docno": "a", "score": 1}\n{"qid": "q", "docno": "b"}\n', "missing score",
     2, '{"qid": "q", "docno": "b"}'),
    (b'{"qid": 1, "docno": "a", "score": 1}\n{"qid": "q", "docno": "b", "score": "z"}\n',
     "non-numeric score", 2, '{"qid": "q", "docno": "b", "score": "z"}'),
])
def test_bad_tabular(data, problem, line, text):
    exc = error_of(read_run, data)
    assert (exc.problem, exc.line, exc.text) == (problem, line, text)


def test_bad_tabular_qrels():
    exc = error_of(read_qrels, b"qid,docno,rel\nq,a,1\nq,b,2.5\n")
    assert (exc.problem, exc.line, exc.text) == ("non-integer grade", 3, "q,b,2.5")
    exc = error_of(read_qrels, b"qid,docno,rel\nq,a,1\nq,a,1\n")
    assert (exc.problem, exc.line) == ("duplicate judgement", 3)


def test_bad_parquet():
    exc = error_of(read_run, b"PAR1 this is not parquet")
    assert exc.problem == "unreadable Parquet file"
    sink = io.BytesIO()
    pq.write_table(pa.table({"qid": ["a", "b"], "docno": ["x", "y"], "score": [1.0, None]}),
                   sink)
    exc = error_of(read_run, sink.getvalue())
    assert (exc.problem, exc.line, exc.text) == ("missing score", 2,
                                                 "qid='b', docno='y', score=None")


def test_csv_quoting_and_spaces():
    data = b'qid, docno , score\n"q1","d, 1",1.5\nq1 , d2, 2 \n'
    run = read_run(data)
    assert run.frame.to_dict("list") == {"query": ["q1", "q1"], "doc": ["d, 1", "d2"],
                                         "score": [1.5, 2.0]}


@pytest.mark.parametrize("data", [b"qid,docno,score\n", b"qid\tdocno\tscore\n\n"])
def test_header_only_is_empty(data):
    assert error_of(read_run, data).problem == "empty input"


def test_empty_parquet_and_dataframe():
    sink = io.BytesIO()
    pq.write_table(pa.table({"qid": pa.array([], pa.string()), "docno": pa.array([], pa.string()),
                             "score": pa.array([], pa.float64())}), sink)
    assert error_of(read_run, sink.getvalue()).problem == "empty input"
    empty = pd.DataFrame({"qid": [], "docno": [], "score": []})
    assert error_of(read_run, empty).problem == "empty input"


def test_list_columns():
    assert list_columns(b"qid, docno ,bm25\n1,a,2\n") == ["qid", "docno", "bm25"]
    assert list_columns(b"a\tb c\n1\t2\n") == ["a", "b c"]
    assert list_columns(tabular_bytes("parquet")) == ["qid", "docno", "score"]
    assert list_columns(b'{"a": 1, "b": 2}\n{"c": 3, "a": 0}\n') == ["a", "b", "c"]
    assert list_columns(pd.DataFrame({"x": [1], 2: [3]})) == ["x", "2"]
    assert list_columns(gzip.compress(b"qid,docno\n")) == ["qid", "docno"]
    assert list_columns(b"q Q0 d 1 1.5 tag\n") == []
    assert list_columns(FakeUpload("u.csv", b"a;b\n1;2\n")) == ["a;b"]
