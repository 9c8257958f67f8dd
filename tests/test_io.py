"""Tests for tiedrank.io: readers, writers, format detection and every bad-input message."""
from __future__ import annotations

import gzip
import io
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tiedrank import io as tio
from tiedrank.data import Qrels, Run
from tiedrank.errors import InputError
from tiedrank.io import (detect_format, list_columns, read_qrels, read_run, write_qrels,
                         write_run)

REPO = Path(__file__).resolve().parents[1]
STR = pd.Series(["x"]).dtype  # pandas' default string dtype ("str")


def data_file(relative: str) -> Path:
    """A real data file: the repo's sample_data/ copy, else the shared data directory."""
    for base in (REPO / "sample_data", REPO.parent / "shared" / "data"):
        path = base / relative
        if path.exists():
            return path
    pytest.skip(f"{relative} not available")


def error_of(call, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    return info.value


def run_frame(rows) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["query", "doc", "score"])
    return frame.astype({"query": STR, "doc": STR, "score": "float64"})


def assert_run_frame(frame: pd.DataFrame) -> None:
    assert list(frame.columns) == ["query", "doc", "score"]
    assert frame["query"].dtype == STR and frame["doc"].dtype == STR
    assert frame["score"].dtype == np.float64
    assert isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0


def assert_qrels_frame(frame: pd.DataFrame) -> None:
    assert list(frame.columns) == ["query", "doc", "relevance"]
    assert frame["query"].dtype == STR and frame["doc"].dtype == STR
    assert frame["relevance"].dtype == np.int64
    assert isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0


# ------------------------------------------------------------------------------------------
# Real data
# ------------------------------------------------------------------------------------------

def test_trec_eval_results_mixed_whitespace():
    path = data_file("trec_eval/results.test")
    raw = path.read_bytes()
    assert b"\t" in raw and b"  " in raw  # the file really has tabs plus runs of spaces
    run = read_run(path)
    assert_run_frame(run.frame)
    assert len(run) == 1500
    assert run.frame["query"].nunique() == 3
    assert sorted(run.frame["query"].unique()) == ["301", "302", "303"]
    assert run.name == "STANDARD"
    assert run.source == str(path)
    # every row equals a plain Python parse of the same line, in file order, floats exact
    expected = [line.split() for line in raw.decode().splitlines() if line.strip()]
    assert run.frame["doc"].tolist() == [f[2] for f in expected]
    assert run.frame["score"].tolist() == [float(f[4]) for f in expected]


def test_trec_eval_qrels():
    qrels = read_qrels(data_file("trec_eval/qrels.test"))
    assert_qrels_frame(qrels.frame)
    assert len(qrels) == 3681
    assert set(qrels.frame["relevance"].unique()) <= {0, 1}


def test_llmjudge_label_file_reads_as_run():
    path = data_file("llmjudge/runs/Olz-gpt4o.txt")
    run = read_run(path)
    assert_run_frame(run.frame)
    assert len(run) == 4423
    assert set(run.frame["score"].unique()) <= {0.0, 1.0, 2.0, 3.0}
    assert run.name == "Olz-gpt4o"  # no tag column: the file stem
    assert detect_format(path.read_bytes(), path.name) == "trec_qrels"


def test_llmjudge_qrels():
    qrels = read_qrels(data_file("llmjudge/qrels.test.txt"))
    assert_qrels_frame(qrels.frame)
    assert len(qrels) == 4423
    assert qrels.frame["query"].nunique() == 25
    assert set(qrels.frame["relevance"].unique()) <= {0, 1, 2, 3}


@pytest.mark.parametrize("judge", ["h2oloo-fewself", "RMITIR-llama38b", "RMITIR-llama70B",
                                   "Olz-gpt4o", "willia-umbrela1", "TREMA-all",
                                   "prophet-setting1", "NISTRetrieval-instruct0"])
def test_every_llmjudge_run(judge):
    run = read_run(data_file(f"llmjudge/runs/{judge}.txt"))
    assert len(run) == 4423 and run.name == judge


# ------------------------------------------------------------------------------------------
# TREC parsing details
# ------------------------------------------------------------------------------------------

def test_trec_run_basics_and_file_order():
    data = b"q2 Q0 b 1 1.5 tagA\nq1 Q0 a 7 3.25 tagB\nq2 Q0 c 2 -2e-3 tagA\n"
    run = read_run(data)
    assert_run_frame(run.frame)
    assert run.frame.to_dict("list") == {"query": ["q2", "q1", "q2"], "doc": ["b", "a", "c"],
                                         "score": [1.5, 3.25, -0.002]}
    assert run.name == "tagA"  # tags differ: the first one, no failure
    assert run.source == "<bytes>"
    assert read_run(data, name="mine").name == "mine"


def test_rank_column_is_ignored():
    run = read_run(b"q Q0 a 99 1 t\nq Q0 b x 2 t\nq Q0 c -1.5 3 t\n")
    assert run.frame["score"].tolist() == [1.0, 2.0, 3.0]


def test_numeric_ids_stay_strings():
    run = read_run(b"301 Q0 0042 1 1 t\n")
    assert run.frame["query"].tolist() == ["301"] and run.frame["doc"].tolist() == ["0042"]


@pytest.mark.parametrize("data", [
    b"q Q0 a 1 1.5 t\r\nq Q0 b 2 0.5 t\r\n",                # CRLF
    b"q Q0 a 1 1.5 t\rq Q0 b 2 0.5 t\r",                    # old Mac line ends
    b"q\tQ0\ta\t1\t1.5\tt\nq\tQ0\tb\t2\t0.5\tt\n",          # tabs only
    b"  q  Q0 a\t 1 \t1.5   t  \n\t q Q0\tb 2 0.5 t\n",      # mixed, leading and trailing
    b"\n\nq Q0 a 1 1.5 t\n   \n\nq Q0 b 2 0.5 t",            # blank lines, no final newline
    b"\xef\xbb\xbfq Q0 a 1 1.5 t\nq Q0 b 2 0.5 t\n",        # UTF-8 byte-order mark
])
def test_whitespace_variants(data):
    run = read_run(data)
    assert run.frame.to_dict("list") == {"query": ["q", "q"], "doc": ["a", "b"],
                                         "score": [1.5, 0.5]}
    assert run.name == "t"


def test_non_ascii_ids():
    run = read_run("q1 Q0 café 1 1 t\nq1 Q0 日本 2 0.5 t\n".encode())
    assert run.frame["doc"].tolist() == ["café", "日本"]


def test_qrels_grades():
    qrels = read_qrels(b"1 0 a -1\n1 0 b +2\n2 Q0 a 007\n")
    assert qrels.frame["relevance"].tolist() == [-1, 2, 7]
    assert qrels.frame["query"].tolist() == ["1", "1", "2"]


def test_label_file_with_fractional_scores():
    run = read_run(b"q 0 a 0.75\nq 0 b 1\n")
    assert run.frame["score"].tolist() == [0.75, 1.0]


# ------------------------------------------------------------------------------------------
# Bad input: every class, its message and its line
# ------------------------------------------------------------------------------------------

def test_message_format():
    exc = error_of(read_run, b"q1 Q0 d1 1 1 x\nq1 Q0 d2 1 abc x\n", source_name="run.txt")
    assert str(exc) == ("run.txt, line 2: non-numeric score: 'q1 Q0 d2 1 abc x' "
                        "(expected a finite number)")
    assert (exc.problem, exc.source, exc.line, exc.text) == (
        "non-numeric score", "run.txt", 2, "q1 Q0 d2 1 abc x")


GOOD = b"q1 Q0 d1 1 2.5 t\n"


@pytest.mark.parametrize("data, problem, line, text", [
    # wrong column count: later line, after blank lines, too many
    (GOOD + b"q1 Q0 d2 1 2.5\n", "wrong number of columns (found 5)", 2, "q1 Q0 d2 1 2.5"),
    (GOOD + b"\n\n  \nq1 Q0 d2 1 2 t x\n", "wrong number of columns (found 7)", 5,
     "q1 Q0 d2 1 2 t x"),
    # a doubled space is not an empty column: whitespace separates
    (GOOD + b"q1 Q0  1 2.5 t\n", "wrong number of columns (found 5)", 2, "q1 Q0  1 2.5 t"),
    (GOOD + b"q1  d2 1 2.5 t\n", "wrong number of columns (found 5)", 2, "q1  d2 1 2.5 t"),
    (GOOD + b"q1 Q0 d2 1 2.5 \n", "wrong number of columns (found 5)", 2, "q1 Q0 d2 1 2.5 "),
    # scores
    (GOOD + b"\nq1 Q0 d2 1 abc t\n", "non-numeric score", 3, "q1 Q0 d2 1 abc t"),
    (GOOD + b"q1 Q0 d2 1 1,5 t\n", "non-numeric score", 2, "q1 Q0 d2 1 1,5 t"),
    (GOOD + b"q1 Q0 d2 1 NaN t\n", "NaN or infinite score", 2, "q1 Q0 d2 1 NaN t"),
    (GOOD + b"q1 Q0 d2 1 -inf t\n", "NaN or infinite score", 2, "q1 Q0 d2 1 -inf t"),
    (GOOD + b"q1 Q0 d2 1 1e999 t\n", "NaN or infinite score", 2, "q1 Q0 d2 1 1e999 t"),
    # the same on the irregular-whitespace path
    (b"q1\tQ0 d1 1  2.5 t\n\nq1\tQ0 d2 1  abc t\n", "non-numeric score", 3,
     "q1\tQ0 d2 1  abc t"),
    (b"q1\tQ0 d1 1  2.5 t\n\nq1\tQ0 d2 1  nan t\n", "NaN or infinite score", 3,
     "q1\tQ0 d2 1  nan t"),
    (b"q1\tQ0 d1 1  2.5 t\r\n\r\nq1\tQ0 1  2 t\r\n", "wrong number of columns (found 5)", 3,
     "q1\tQ0 1  2 t"),
    # duplicates (default: error, as trec_eval)
    (GOOD + b"q2 Q0 d1 1 1 t\n\nq1 Q0 d1 2 1 t\n", "duplicate document within a query", 4,
     "q1 Q0 d1 2 1 t"),
    # undecodable bytes
    (GOOD + b"q1 Q0 d\xff 1 1 t\n", "undecodable bytes (not UTF-8)", 2, "q1 Q0 d\ufffd 1 1 t"),
])
def test_bad_trec_run(data, problem, line, text):
    exc = error_of(read_run, data)
    assert (exc.problem, exc.line, exc.text) == (problem, line, text)
    assert exc.source == "<bytes>"
    assert f"line {line}: {problem}" in str(exc)


def test_bad_first_line():
    # undetectable without a format; with one, the column count is reported
    exc = error_of(read_run, b"\nq1 Q0 d1 2.5 t\n")
    assert (exc.problem, exc.line, exc.text) == ("unknown format", 2, "q1 Q0 d1 2.5 t")
    exc = error_of(read_run, b"\nq1 Q0 d1 2.5 t\n", format="trec_run")
    assert (exc.problem, exc.line, exc.text) == ("wrong number of columns (found 5)", 2,
                                                 "q1 Q0 d1 2.5 t")


def test_duplicate_message_names_first_line():
    exc = error_of(read_run, GOOD + b"q2 Q0 d1 1 1 t\n\nq1 Q0 d1 2 1 t\n")
    assert "first seen for query 'q1' on line 1" in str(exc)
    assert "duplicates='max'" in str(exc)


@pytest.mark.parametrize("data, problem, line, text", [
    (b"1 0 a 1\n1 0 b 1.5\n", "non-integer grade", 2, "1 0 b 1.5"),
    (b"1 0 a 1\n1 0 b x\n", "non-integer grade", 2, "1 0 b x"),
    (b"1 0 a 1\n1 0 b 0x10\n", "non-integer grade", 2, "1 0 b 0x10"),
    (b"1 0 a 1\n\n1 0 b 1 extra\n", "wrong number of columns (found 5)", 3, "1 0 b 1 extra"),
    (b"1 0 a 1\n1 0 b 0\n1 0 a 2\n", "duplicate judgement", 3, "1 0 a 2"),
    (b"1 Q0 a 1 2.5 t\n", "a TREC run (6 columns) was given where qrels are expected", 1,
     "1 Q0 a 1 2.5 t"),
])
def test_bad_qrels(data, problem, line, text):
    exc = error_of(read_qrels, data)
    assert (exc.problem, exc.line, exc.text) == (problem, line, text)


def test_bad_label_file():
    exc = error_of(read_run, b"q 0 a 1\nq 0 b high\n")
    assert (exc.problem, exc.line) == ("non-numeric grade", 2)


@pytest.mark.parametrize("data", [b"", b"\n\n", b"  \n\t\n"])
@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_empty_input(data, reader):
    exc = error_of(reader, data)
    assert exc.problem == "empty input" and "at least one data row" in str(exc)


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


@pytest.mark.parametrize("data", [b"hello world\n", b"a,1\nb,2\n", b"1 2 3\n",
                                  b"\x80\x04\x95pickle\x00", b"PK\x03\x04zip"])
def test_unknown_format(data):
    exc = error_of(read_run, data)
    assert exc.problem == "unknown format"
    for accepted in ("TREC run", "TREC qrels", "CSV", "TSV", "Parquet", "JSON lines"):
        assert accepted in exc.expected


def test_unknown_format_name():
    exc = error_of(read_run, GOOD, format="xlsx")
    assert exc.problem == "unknown format" and "trec_run" in exc.expected


def test_non_utf8_detected_by_line():
    exc = error_of(read_qrels, b"1 0 a 1\n1 0 b 1\n1 0 \xe9t\xe9 1\n")
    assert exc.problem == "undecodable bytes (not UTF-8)" and exc.line == 3
    assert exc.expected == "UTF-8 text"


def test_corrupt_gzip():
    exc = error_of(read_run, gzip.compress(GOOD * 10)[:-12])
    assert exc.problem == "corrupt gzip data"


def test_bad_value_far_into_a_big_file():
    """Fast path failure + Python re-scan: the line number counts the blank lines too."""
    lines = [f"q{i // 100} Q0 d{i} 1 {i * 0.5} run" for i in range(20000)]
    lines[15000] = "q150 Q0 d15000 1 oops run"
    data = ("\n".join(lines[:100]) + "\n\n\n" + "\n".join(lines[100:]) + "\n").encode()
    exc = error_of(read_run, data)
    assert (exc.problem, exc.line, exc.text) == ("non-numeric score", 15003,
                                                 "q150 Q0 d15000 1 oops run")


def test_duplicate_in_different_parse_blocks(monkeypatch):
    """Rows far apart (different pyarrow chunks) are compared too."""
    monkeypatch.setattr(tio, "_BLOCK_SIZE", 4096)
    lines = [f"q{i % 7} Q0 d{i} 1 {i} run" for i in range(5000)]
    lines.append("q3 Q0 d10 1 5 run")  # d10 was first seen for q3 (10 % 7 == 3) on line 11
    exc = error_of(read_run, ("\n".join(lines) + "\n").encode())
    assert (exc.problem, exc.line) == ("duplicate document within a query", 5001)
    assert "on line 11" in str(exc)


def test_hash_collisions_are_checked_exactly(monkeypatch):
    monkeypatch.setattr(tio, "_hash_strings", lambda column: np.zeros(len(column), np.uint64))
    run = read_run(b"q Q0 a 1 1 t\nq Q0 b 1 2 t\nr Q0 a 1 3 t\n")
    assert len(run) == 3
    exc = error_of(read_run, b"q Q0 a 1 1 t\nq Q0 b 1 2 t\nq Q0 a 1 3 t\n")
    assert exc.line == 3


def test_hash_strings_handles_slices_and_lengths():
    values = ["", "a", "abcdefgh", "abcdefghi", "abcdefgh\u00e9", "x" * 40, "a"]
    column = pa.chunked_array([pa.array(values[:3]), pa.array(values[3:])])
    hashes = tio._hash_strings(column)
    assert hashes[1] == hashes[6] and len(set(hashes.tolist())) == 6
    sliced = pa.chunked_array([pa.array(["zz"] + values)]).slice(1)
    assert np.array_equal(tio._hash_strings(sliced), hashes)
    large = pa.chunked_array([pa.array(values, pa.large_string())])
    assert np.array_equal(tio._hash_strings(large), hashes)


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
    with pytest.raises(ValueError):
        read_run(GOOD, duplicates="first")


# ------------------------------------------------------------------------------------------
# Writers and round trips
# ------------------------------------------------------------------------------------------

def tricky_scores(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)
    special = [0.1, 1 / 3, -0.0, 0.0, 5e-324, 1.7976931348623157e308, 2.0 ** 53 + 2,
               123456.0, 1e16, 1e-7, -2.5]
    scores[:len(special)] = special
    scores[len(special):len(special) + 50] = 7.25  # a tie group
    return scores


def test_run_round_trip_exact(tmp_path):
    n = 3000
    rng = np.random.default_rng(1)
    frame = run_frame({"query": [f"q{int(i)}" for i in rng.integers(0, 17, n)],
                       "doc": [f"doc-{i}" for i in rng.permutation(n)],
                       "score": tricky_scores(n)})
    run = Run(name="my run", frame=frame)
    for dest in (tmp_path / "run.txt", tmp_path / "run.txt.gz"):
        write_run(run, dest)
        back = read_run(dest)
        pd.testing.assert_frame_equal(back.frame, frame, check_exact=True)
        assert np.array_equal(back.frame["score"].to_numpy().view(np.int64),
                              frame["score"].to_numpy().view(np.int64))  # even -0.0
        assert back.name == "my_run"
    assert (tmp_path / "run.txt.gz").read_bytes()[:2] == b"\x1f\x8b"


def test_write_run_ranks_and_layout():
    frame = run_frame([("q2", "a", 1.0), ("q1", "x", 0.5), ("q2", "b", 3.0),
                       ("q2", "c", 1.0), ("q1", "y", 0.7)])
    buf = io.BytesIO()
    write_run(Run(name="r", frame=frame), buf, tag="sys1")
    assert buf.getvalue().decode().splitlines() == [
        "q2 Q0 a 2 1 sys1", "q1 Q0 x 2 0.5 sys1", "q2 Q0 b 1 3 sys1",
        "q2 Q0 c 3 1 sys1", "q1 Q0 y 1 0.7 sys1"]


def test_write_run_text_stream_round_trip():
    run = read_run(data_file("trec_eval/results.test"))
    text = io.StringIO()
    write_run(run, text)
    back = read_run(text.getvalue().encode())
    pd.testing.assert_frame_equal(back.frame, run.frame, check_exact=True)
    assert back.name == "STANDARD"


def test_write_run_rejects_blank_ids():
    frame = run_frame([("q 1", "a", 1.0)])
    exc = error_of(write_run, Run(name="r", frame=frame), io.BytesIO())
    assert exc.problem == "query id cannot be written to a TREC file" and exc.line == 1


def test_qrels_round_trip(tmp_path):
    qrels = read_qrels(data_file("llmjudge/qrels.test.txt"))
    frame = pd.concat([qrels.frame, pd.DataFrame({"query": ["x"], "doc": ["y"],
                                                  "relevance": [-2]})], ignore_index=True)
    frame = frame.astype({"query": STR, "doc": STR})
    dest = tmp_path / "qrels.txt"
    write_qrels(Qrels(frame=frame), dest)
    assert dest.read_text().splitlines()[-1] == "x 0 y -2"
    pd.testing.assert_frame_equal(read_qrels(dest).frame, frame, check_exact=True)
    original = data_file("llmjudge/qrels.test.txt").read_bytes()
    buf = io.BytesIO()
    write_qrels(qrels, buf)
    assert buf.getvalue() == original  # the file was already in our layout


def test_round_trip_through_gzip_bytes():
    run = read_run(data_file("llmjudge/runs/TREMA-all.txt"))
    buf = io.BytesIO()
    write_run(run, buf)
    back = read_run(gzip.compress(buf.getvalue()))
    pd.testing.assert_frame_equal(back.frame, run.frame, check_exact=True)
    assert back.name == "TREMA-all"


# ------------------------------------------------------------------------------------------
# Sources: paths, bytes, file-likes, gzip, DataFrames
# ------------------------------------------------------------------------------------------

class FakeUpload:
    """Like streamlit's UploadedFile: .name, .getvalue(), .read()."""

    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self._buffer = io.BytesIO(data)

    def getvalue(self) -> bytes:
        return self._buffer.getvalue()

    def read(self, size: int = -1) -> bytes:
        return self._buffer.read(size)


def test_sources_agree(tmp_path):
    path = data_file("llmjudge/runs/Olz-gpt4o.txt")
    raw = path.read_bytes()
    reference = read_run(path).frame
    upload = FakeUpload("Olz-gpt4o.txt", raw)
    upload.read()  # already consumed by someone: getvalue() still has everything
    sources = [str(path), raw, bytearray(raw), memoryview(raw), io.BytesIO(raw), upload,
               gzip.compress(raw)]
    for source in sources:
        pd.testing.assert_frame_equal(read_run(source).frame, reference, check_exact=True)
    assert read_run(upload).source == "Olz-gpt4o.txt"
    assert read_run(upload).name == "Olz-gpt4o"
    with open(path, "rb") as handle:
        assert read_run(handle).source == str(path)
    assert read_run(io.BytesIO(raw)).source == "<file>"
    assert read_run(raw, source_name="judge.txt").name == "judge"
    gz = tmp_path / "judge.txt.gz"
    gz.write_bytes(gzip.compress(raw))
    assert read_run(gz).name == "judge"
    hidden = tmp_path / "judge.dat"  # gzip recognised by magic bytes, not the extension
    hidden.write_bytes(gzip.compress(raw))
    pd.testing.assert_frame_equal(read_run(hidden).frame, reference)


def test_source_name_in_errors():
    exc = error_of(read_run, FakeUpload("up.txt", b"q Q0 d 1 x t\n"))
    assert str(exc).startswith("up.txt, line 1: non-numeric score")
    exc = error_of(read_run, b"q Q0 d 1 x t\n", source_name="mine")
    assert exc.source == "mine"


def test_str_source_is_a_path():
    with pytest.raises(FileNotFoundError):
        read_run("/nonexistent/run.txt")
    with pytest.raises(TypeError):
        read_run("q Q0 d 1 1 t\n")


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


# ------------------------------------------------------------------------------------------
# Tabular formats
# ------------------------------------------------------------------------------------------

RUN_ROWS = {"query": ["0301", "0301", "302"], "doc": ["d1", "d,2", "d1"], "score": [2.5, -1.0, 3.0]}


def tabular_bytes(fmt: str, names=("qid", "docno", "score")) -> bytes:
    frame = pd.DataFrame(dict(zip(names, RUN_ROWS.values())))
    if fmt == "csv":
        return frame.to_csv(index=False).encode()
    if fmt == "tsv":
        return frame.to_csv(index=False, sep="\t").encode()
    if fmt == "jsonl":
        return frame.to_json(orient="records", lines=True).encode()
    sink = io.BytesIO()
    frame.to_parquet(sink, index=False)
    return sink.getvalue()


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


# ------------------------------------------------------------------------------------------
# Detection and column listing
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, name, expected", [
    (b"q Q0 d 1 1.5 tag\n", None, "trec_run"),
    (b"\n\n301\tQ0\td\t1\t  1.5\tSTANDARD\n", "results.test", "trec_run"),
    (b"q 0 d 1\n", "qrels.txt", "trec_qrels"),
    (b"q 0 d,1 1\n", None, "trec_qrels"),                       # a comma inside an id
    (b"q Q0 d 1 1.5 tag\n", "run.csv", "csv"),                  # the extension decides
    (b"anything", "x.parquet", "parquet"),
    (b"anything", "x.ndjson", "jsonl"),
    (b"anything", "x.TSV.gz", "tsv"),
    (b"PAR1....", "run.txt", "parquet"),                        # magic beats extension
    (b'  {"qid": 1}\n', None, "jsonl"),
    (b"qid,docno,score\n1,a,2\n", "run.txt", "csv"),
    (b"qid\tdocno\tscore\n1\ta\t2\n", None, "tsv"),
    (b"query id\tdoc id\tscore\n", None, "tsv"),
    (gzip.compress(b"qid,docno,score\n1,a,2\n"), None, "csv"),
])
def test_detect_format(data, name, expected):
    assert detect_format(data, name) == expected


def test_explicit_format_overrides_detection():
    run = read_run(b"q Q0 d 1 1.5 tag\n", format="TREC_RUN", source_name="x.csv")
    assert len(run) == 1
    exc = error_of(read_run, b"q Q0 d 1 1.5 tag\n", format="trec_qrels")
    assert exc.problem == "wrong number of columns (found 6)"


def test_list_columns():
    assert list_columns(b"qid, docno ,bm25\n1,a,2\n") == ["qid", "docno", "bm25"]
    assert list_columns(b"a\tb c\n1\t2\n") == ["a", "b c"]
    assert list_columns(tabular_bytes("parquet")) == ["qid", "docno", "score"]
    assert list_columns(b'{"a": 1, "b": 2}\n{"c": 3, "a": 0}\n') == ["a", "b", "c"]
    assert list_columns(pd.DataFrame({"x": [1], 2: [3]})) == ["x", "2"]
    assert list_columns(gzip.compress(b"qid,docno\n")) == ["qid", "docno"]
    assert list_columns(b"q Q0 d 1 1.5 tag\n") == []
    assert list_columns(FakeUpload("u.csv", b"a;b\n1;2\n")) == ["a;b"]


def test_docstring_examples():
    import doctest
    failures, _ = doctest.testmod(tio, optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_larger_file_spanning_parse_blocks(monkeypatch):
    """Many pyarrow blocks and the whitespace normaliser's slices give the same frame."""
    monkeypatch.setattr(tio, "_BLOCK_SIZE", 1 << 12)
    rng = np.random.default_rng(5)
    n = 20000
    scores = tricky_scores(n, seed=2)
    lines = [f"q{i // 300} Q0 d{i} {i % 300 + 1} {float(s)!r} exp" for i, s in enumerate(scores)]
    simple = ("\n".join(lines) + "\n").encode()
    messy = ("\n".join(line.replace(" ", "\t " if i % 3 else "  ")
                       for i, line in enumerate(lines)) + "\r\n").encode()
    a, b = read_run(simple), read_run(messy)
    pd.testing.assert_frame_equal(a.frame, b.frame, check_exact=True)
    assert a.frame["score"].tolist() == scores.tolist()
    assert a.frame["doc"].tolist() == [f"d{i}" for i in range(n)]
    assert not math.isnan(a.frame["score"].sum())
    assert rng is not None
