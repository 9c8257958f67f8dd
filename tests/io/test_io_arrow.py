"""What researchers hold, read like a file: a polars DataFrame, a pyarrow Table (or a
RecordBatchReader), a DuckDB relation (anything with ``__arrow_c_stream__``), and the files ranx
saves as Parquet (columns ``q_id, doc_id, score``) and LZ4 (CBOR in LZ4 frames).

Oracle: the TREC file each came from, read by tiedrank's TREC reader (tested against
trec_eval elsewhere). The polars frame and the DuckDB relation are built by polars and DuckDB
reading the TREC file themselves; the pyarrow table from the file's lines split by plain
Python. The ranx files in ranx_fixtures/ were written by ranx 0.3.21 itself (README.md there).
"""
from __future__ import annotations

import datetime
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from io_support import error_of
from tiedrank import evaluate, read_qrels, read_run
from tiedrank.io import list_columns, set_input_limits

RANX = Path(__file__).parent / "ranx_fixtures"
RUN_TXT, QRELS_TXT = RANX / "run.txt", RANX / "qrels.txt"
RUN_NAMES = ["qid", "q0", "docno", "rank", "score", "tag"]
QRELS_NAMES = ["qid", "iter", "docno", "relevance"]


def _in_key_order(frame: pd.DataFrame) -> pd.DataFrame:
    """ranx keeps a dict per query: its files hold the pairs in its own order."""
    return frame.sort_values(["query", "doc"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def trec():
    """(run frame, qrels frame) of the TREC files, as the TREC reader gives them."""
    return read_run(RUN_TXT).frame, read_qrels(QRELS_TXT).frame


def _split_lines(path: Path, names: list[str]) -> pa.Table:
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    columns = {name: [row[i] for row in rows] for i, name in enumerate(names)}
    if "score" in columns:
        columns["score"] = [float(v) for v in columns["score"]]
    else:
        columns["relevance"] = [int(v) for v in columns["relevance"]]
    return pa.table(columns)


def test_polars_frames_equal_the_trec_files(trec):
    pl = pytest.importorskip("polars")
    options = {"separator": " ", "has_header": False}
    run = pl.read_csv(RUN_TXT, new_columns=RUN_NAMES, schema_overrides={"qid": pl.Utf8},
                      **options)
    qrels = pl.read_csv(QRELS_TXT, new_columns=QRELS_NAMES, schema_overrides={"qid": pl.Utf8},
                        **options)
    read = read_run(run)
    assert read.frame.equals(trec[0]) and read.source == "<polars.DataFrame>"
    assert read_qrels(qrels).frame.equals(trec[1])
    assert list_columns(run) == RUN_NAMES


def test_pyarrow_tables_and_readers_equal_the_trec_files(trec):
    run, qrels = _split_lines(RUN_TXT, RUN_NAMES), _split_lines(QRELS_TXT, QRELS_NAMES)
    assert read_run(run).frame.equals(trec[0])
    assert read_qrels(qrels).frame.equals(trec[1])
    batches = pa.RecordBatchReader.from_batches(run.schema, run.to_batches(max_chunksize=7))
    read = read_run(batches)
    assert read.frame.equals(trec[0]) and read.source == "<pyarrow.RecordBatchReader>"
    assert "gives its rows once" in str(error_of(read_run, batches))  # not "empty input"


def test_duckdb_relations_equal_the_trec_files(trec):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    options = "delim=' ', header=false, all_varchar=true"
    run = con.sql(f"select column0 as qid, column2 as docno, column4 as score "
                  f"from read_csv('{RUN_TXT}', {options})")
    qrels = con.sql(f"select column0 as qid, column2 as docno, column3 as relevance "
                    f"from read_csv('{QRELS_TXT}', {options})")
    read = read_run(run)
    assert read.frame.equals(trec[0]) and read.source == "<duckdb.DuckDBPyRelation>"
    assert read_qrels(qrels).frame.equals(trec[1])


@pytest.mark.parametrize("name", ["run.parquet", "run.lz4", "qrels.parquet", "qrels.lz4"])
def test_ranx_files_read_as_they_are(trec, name):
    if name.endswith(".lz4"):
        pytest.importorskip("lz4")
        pytest.importorskip("cbor2")
    is_run = name.startswith("run")
    read = (read_run if is_run else read_qrels)(RANX / name)
    assert _in_key_order(read.frame).equals(_in_key_order(trec[0 if is_run else 1]))


def test_arrow_tables_take_the_column_mapping_and_the_checks():
    table = pa.table({"topic": ["301", "301"], "docno": ["d1", "d2"], "bm25": [1.5, None]})
    missing = error_of(read_run, table.drop_columns(["bm25"]).append_column(
        "bm25", pa.array([1.5, 2.0])))
    assert missing.source == "<pyarrow.Table>" and "missing required columns: score" in str(missing)
    assert "columns={'score': '<column>'}" in str(missing)
    null = error_of(read_run, table, columns={"score": "bm25"})
    assert null.problem == "missing score" and null.line == 2
    read = read_run(table.slice(0, 1), columns={"score": "bm25"}, source_name="my table")
    assert read.frame.values.tolist() == [["301", "d1", 1.5]] and read.source == "my table"


def test_evaluate_takes_arrow_runs_and_qrels():
    run, qrels = _split_lines(RUN_TXT, RUN_NAMES), _split_lines(QRELS_TXT, QRELS_NAMES)
    from_tables = evaluate({"bm25": run}, qrels, ["RR", "nDCG@10"], ties="all").summary
    from_files = evaluate(RUN_TXT, QRELS_TXT, ["RR", "nDCG@10"], ties="all").summary
    pd.testing.assert_frame_equal(from_tables, from_files)


def test_an_arrow_stream_past_the_input_limit_is_refused():
    table = pa.table({"qid": ["q"] * 1000, "docno": ["d"] * 1000, "score": [1.0] * 1000})
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=10))
    old = set_input_limits(max_bytes=2_000)
    try:
        error = error_of(read_run, reader)
    finally:
        set_input_limits(max_bytes=old.max_bytes)
    assert "larger than the input limit of 2,000 bytes" in str(error)


def test_lz4_files_without_the_package_name_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "lz4", None)
    monkeypatch.setitem(sys.modules, "lz4.frame", None)
    error = error_of(read_run, RANX / "run.lz4")
    assert "needs the lz4 package" in str(error) and "pip install lz4" in str(error)
    assert error.source.endswith("run.lz4")


def test_corrupt_and_foreign_lz4_data_are_named():
    frame = pytest.importorskip("lz4.frame")
    whole = (RANX / "run.lz4").read_bytes()
    assert "corrupt LZ4 data" in str(error_of(read_run, whole[:len(whole) // 2]))
    foreign = frame.compress(b"\x01\x02 binary")
    assert "neither CBOR nor JSON" in str(error_of(read_run, foreign))
    cbor2 = pytest.importorskip("cbor2")
    dated = frame.compress(cbor2.dumps({"q": {"d": datetime.date(2026, 1, 1)}}))  # a tag
    assert "a date value" in str(error_of(read_run, dated))
    listed = frame.compress(cbor2.dumps({"q": [1, 2]}))
    assert "not {query: {doc: value}} (a map of list)" in str(error_of(read_run, listed))


def test_lz4_files_are_detected_as_ranx_json():
    """The dashboard inspects an upload with detect_format before reading it."""
    from tiedrank.io import detect_format

    assert detect_format((RANX / "run.lz4").read_bytes(), "run.lz4") == "json"


def test_ranx_json_inside_lz4_is_read():
    frame = pytest.importorskip("lz4.frame")
    data = frame.compress(b'{"q1": {"d1": 2.5, "d2": 1}}')
    assert read_run(data).frame.values.tolist() == [["q1", "d1", 2.5], ["q1", "d2", 1.0]]
