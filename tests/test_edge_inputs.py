"""Extreme inputs (huge grades, out-of-range numbers, empty results, thirty-digit ids) give right
numbers or one clear message, never silently wrong numbers or a traceback."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate, read_qrels
from tiedrank.core.data import Qrels, Run
from tiedrank.core.errors import InputError

TREC = "sample_data/trec_eval"


def _pairs(n_queries: int, grades) -> tuple[Run, Qrels]:
    """Per query two tied documents, d0 (grade 0) and d1 (``grades``)."""
    q = np.repeat([f"q{i}" for i in range(n_queries)], 2)
    d = np.tile(["d0", "d1"], n_queries)
    g = np.ravel([[0, grades] for _ in range(n_queries)])
    return (Run("r", pd.DataFrame({"query": q, "doc": d, "score": 1.0})),
            Qrels(pd.DataFrame({"query": q, "doc": d, "relevance": g})))


@pytest.mark.parametrize("grade", [10**15, 2**62, 2**63 - 1])
def test_huge_grades_keep_best_above_worst(grade):
    # 10,000 tie groups with grades ~1e15 overflowed a composite sort key: best and worst
    # swapped (RR best 0.5, worst 1.0); 2**63 - 1 raised OverflowError
    run, qrels = _pairs(10_000, grade)
    row = evaluate(run, qrels, ["RR"], ties="all").report().iloc[0]
    assert (row["best"], row["expected"], row["worst"]) == (1.0, 0.75, 0.5)


def test_grades_beyond_the_exact_range_are_refused_with_the_line(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("q1 0 d1 1\nq1 0 d2 9223372036854775807\n")
    with pytest.raises(InputError, match=r"line 2: grade out of range.*-2,147,483,647 to 2,147,483,647"):
        read_qrels(path)


def test_exp_gain_beyond_1023_is_refused_not_inf():
    run, qrels = _pairs(2, 2000)
    with pytest.raises(ValueError, match="gain= must be 'linear' for grades above 1023"):
        evaluate(run, qrels, ["nDCG"], gain="exp")
    run, qrels = _pairs(2, 1023)
    assert np.isfinite(evaluate(run, qrels, ["nDCG"], gain="exp").summary["value"]).all()


def test_repeated_metrics_count_each_query_once():
    qrels = read_qrels(f"{TREC}/qrels.test")
    from tiedrank import read_run
    run = read_run(f"{TREC}/results.test")
    ev = evaluate(run, qrels, ["RR", "RR", "mrr"], ties="expected")
    assert ev.summary["metric"].tolist() == ["RR"]
    assert ev.summary["n_queries"].tolist() == [3]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", f"{TREC}/qrels.test",
                           f"{TREC}/results.test", *args], capture_output=True, text=True)


@pytest.mark.parametrize("args, message", [
    (["--round", "309"], "--round must be an integer in [0, 15]"),
    (["--round", "100000000000000000000"], "--round must be an integer in [0, 15]"),
    (["--round", "-3"], "--round must be an integer in [0, 15]"),
    (["--ties", ","], "--ties must be one of"),
    (["--digits", "-1"], "--digits must be an integer in [0, 17]"),
    (["-m", "TsRR(alpha=1..2)"], "expected TsRR(alpha=<positive number>)"),
])
def test_cli_numbers_out_of_range_get_one_line(args, message):
    done = _cli(*args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_empty_results_are_explained_in_every_format():
    for fmt in ("csv", "json", "table"):
        done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", "-l", "100",
                               "--format", fmt, "sample_data/llmjudge/qrels.test.txt",
                               "sample_data/llmjudge/runs/Olz-gpt4o.txt"],
                              capture_output=True, text=True)
        assert done.returncode == 0 and "no relevant document at relevance level 100" in done.stderr


def test_compare_with_nothing_to_compare_says_why():
    # trec_eval's query set scores every query at level 100 (all 0); leaving out the
    # queries without a relevant document leaves none
    done = subprocess.run([sys.executable, "-m", "tiedrank", "compare", "-l", "100",
                           "--query-set", "relevant", "sample_data/llmjudge/qrels.test.txt",
                           "sample_data/llmjudge/runs/Olz-gpt4o.txt",
                           "sample_data/llmjudge/runs/TREMA-all.txt"], capture_output=True, text=True)
    assert done.returncode == 2 and "nothing to compare" in done.stderr
    assert "was not evaluated" not in done.stderr and "Traceback" not in done.stderr


def test_two_score_columns_are_refused(tmp_path):
    from tiedrank import read_run

    path = tmp_path / "two.csv"
    path.write_text("qid,docno,score,score\nq1,d1,1.0,2.0\n")
    with pytest.raises(InputError, match="line 1: column 'score' appears more than once"):
        read_run(path)


def test_thirty_digit_json_ids_stay_exact(tmp_path):
    from tiedrank import read_run

    path = tmp_path / "long.jsonl"
    path.write_text('{"qid": 123456789012345678901234567890, "docno": "d1", "score": 1.0}\n'
                    '{"qid": 123456789012345678901234567891, "docno": "d1", "score": 2.0}\n')
    assert read_run(path).frame["query"].tolist() == ["123456789012345678901234567890",
                                                      "123456789012345678901234567891"]
