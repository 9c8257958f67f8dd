"""The same run and diversity qrels through every door (issue 43, class 3): pandas, polars
(plain, Categorical, Enum), pyarrow (dictionary of string, string_view or integer values,
string_view, large_string), DuckDB and the TREC files. polars' Categorical and Enum id
columns crashed every Python door with ``ArrowNotImplementedError: Unsupported cast from
dictionary<values=string_view...>``; a qrels ``iteration`` (subtopic) column was read from
pandas only (polars, pyarrow and DuckDB refused the qrels as duplicate judgements).

Oracle: the TREC text files of the same rows, read by the TREC readers."""
from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from tiedrank import evaluate, read_qrels, read_run

QRELS_ROWS = [("q1", "1", "a", 1), ("q1", "2", "a", 1), ("q1", "1", "b", 1),
              ("q1", "2", "c", 1), ("q2", "1", "a", 0), ("q2", "3", "d", 1)]
RUN_ROWS = [("q1", "a", 1.0), ("q1", "b", 1.0), ("q1", "c", 0.5), ("q2", "a", 2.0),
            ("q2", "d", 1.0)]
QRELS = pd.DataFrame(QRELS_ROWS, columns=["query", "iteration", "doc", "relevance"])
RUN = pd.DataFrame(RUN_ROWS, columns=["query", "doc", "score"])
METRICS = ["alpha_nDCG@5", "AP", "RR"]


def _text_files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in QRELS_ROWS))
    run.write_text("".join(f"{q} Q0 {d} {i + 1} {s} r\n" for i, (q, d, s) in enumerate(RUN_ROWS)))
    return run, qrels


def _arrow(frame: pd.DataFrame, kind: str) -> pa.Table:
    table = pa.Table.from_pandas(frame, preserve_index=False)
    columns = []
    for name in table.column_names:
        column = table.column(name)
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            if kind == "dictionary":
                column = column.dictionary_encode()
            elif kind == "view_dictionary":
                column = pa.chunked_array([pa.DictionaryArray.from_arrays(
                    chunk.dictionary_encode().indices,
                    chunk.dictionary_encode().dictionary.cast(pa.string_view()))
                    for chunk in column.chunks])
            elif kind == "string_view":
                column = column.cast(pa.string_view())
            elif kind == "large_string":
                column = column.cast(pa.large_string())
        columns.append(column)
    return pa.table(columns, names=table.column_names)


def _casts_to_views() -> bool:
    try:
        pa.array(["x"]).cast(pa.string_view())
    except pa.ArrowNotImplementedError:
        return False
    return True


def _doors(tmp_path):
    run_file, qrels_file = _text_files(tmp_path)
    doors = {"trec files": (run_file, qrels_file), "pandas": (RUN, QRELS)}
    kinds = ["plain", "dictionary", "large_string"]
    if _casts_to_views():  # pyarrow 16, the lowest claimed, cannot make views by a cast
        kinds += ["view_dictionary", "string_view"]
    for kind in kinds:
        doors[f"pyarrow {kind}"] = (_arrow(RUN, kind), _arrow(QRELS, kind))
    doors["pyarrow integer dictionary"] = (
        pa.table({"query": pa.array([1, 1, 1, 2, 2]).dictionary_encode(),
                  "doc": [d for _, d, _ in RUN_ROWS], "score": [s for *_, s in RUN_ROWS]}),
        pa.table({"query": pa.array([1, 1, 1, 1, 2, 2]).dictionary_encode(),
                  "iteration": pa.array([int(s) for _, s, _, _ in QRELS_ROWS]),
                  "doc": [d for _, _, d, _ in QRELS_ROWS],
                  "relevance": [g for *_, g in QRELS_ROWS]}))
    try:
        import polars as pl
    except ImportError:
        pass
    else:
        ids = ["query", "doc"]
        doors["polars"] = (pl.from_pandas(RUN), pl.from_pandas(QRELS))
        doors["polars Categorical"] = (
            pl.from_pandas(RUN).with_columns([pl.col(c).cast(pl.Categorical) for c in ids]),
            pl.from_pandas(QRELS).with_columns([pl.col(c).cast(pl.Categorical)
                                                for c in ids + ["iteration"]]))
        doors["polars Enum"] = (
            pl.from_pandas(RUN).with_columns(pl.col("query").cast(pl.Enum(["q1", "q2"]))),
            pl.from_pandas(QRELS).with_columns(pl.col("query").cast(pl.Enum(["q1", "q2"])),
                                               pl.col("doc").cast(pl.Enum(list("abcd")))))
    try:
        import duckdb
    except ImportError:
        pass
    else:
        doors["duckdb"] = (duckdb.from_df(RUN), duckdb.from_df(QRELS))
    return doors


def test_every_door_gives_the_numbers_of_the_files(tmp_path):
    doors = _doors(tmp_path)
    run_file, qrels_file = doors.pop("trec files")
    expected = evaluate(read_run(run_file), read_qrels(qrels_file), METRICS).summary
    assert read_qrels(qrels_file).subtopics is not None
    for name, (run, qrels) in doors.items():
        if name == "pyarrow integer dictionary":  # query ids 1, 2: the same, renamed
            run = read_run(run).frame.replace({"query": {"1": "q1", "2": "q2"}})
            qrels = read_qrels(qrels).subtopics.replace({"query": {"1": "q1", "2": "q2"}}) \
                .rename(columns={"subtopic": "iteration"})
        read = read_qrels(qrels)
        assert read.subtopics is not None, name
        got = evaluate(run, qrels, METRICS).summary
        pd.testing.assert_frame_equal(got.drop(columns="run").reset_index(drop=True),
                                      expected.drop(columns="run").reset_index(drop=True),
                                      obj=name)  # the run's name: the file's, or a frame's


def test_a_categorical_id_column_reads_as_its_values():
    pl = pytest.importorskip("polars")
    frame = pl.from_pandas(RUN).with_columns(pl.col("query").cast(pl.Categorical),
                                             pl.col("doc").cast(pl.Categorical))
    assert read_run(frame).frame.values.tolist() == [list(r) for r in RUN_ROWS]
