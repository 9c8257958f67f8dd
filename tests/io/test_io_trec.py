"""TREC runs and qrels: real files, parsing details and every bad-line message."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tiedrank.io import _parallel, detect_format, read_qrels, read_run

from io_support import (GOOD, assert_qrels_frame, assert_run_frame, data_file, error_of,
                        tricky_scores)

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


@pytest.mark.parametrize("data, problem, line, text", [
    # wrong column count: later line, after blank lines, too many
    (GOOD + b"q1 Q0 d2 1 2.5\n", "wrong number of columns (found 5)", 2, "q1 Q0 d2 1 2.5"),
    (GOOD + b"\n\n  \nq1 Q0 d2 1 2\n", "wrong number of columns (found 5)", 5,
     "q1 Q0 d2 1 2"),  # 7 or more columns are a tag with text after it, as in trec_eval
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


def test_bad_value_far_into_a_big_file():
    """Fast path failure + Python re-scan: the line number counts the blank lines too."""
    lines = [f"q{i // 100} Q0 d{i} 1 {i * 0.5} run" for i in range(20000)]
    lines[15000] = "q150 Q0 d15000 1 oops run"
    data = ("\n".join(lines[:100]) + "\n\n\n" + "\n".join(lines[100:]) + "\n").encode()
    exc = error_of(read_run, data)
    assert (exc.problem, exc.line, exc.text) == ("non-numeric score", 15003,
                                                 "q150 Q0 d15000 1 oops run")


def test_larger_file_spanning_parse_blocks(monkeypatch):
    """Many pyarrow blocks and the whitespace normaliser's slices give the same frame."""
    monkeypatch.setattr(_parallel, "BLOCK_SIZE", 1 << 12)
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
