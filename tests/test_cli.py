"""The ``tiedrank`` command line, end to end in a subprocess (as a user runs it)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LLMJUDGE = ROOT / "sample_data" / "llmjudge"
TREC = ROOT / "sample_data" / "trec_eval"


def tiedrank(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tiedrank.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_evaluate_table_on_llm_judges():
    done = tiedrank("evaluate", LLMJUDGE / "qrels.test.txt", LLMJUDGE / "runs" / "Olz-gpt4o.txt",
                    "-m", "RR", "-m", "nDCG@10", "--rel-level", "2")
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.strip().splitlines()
    assert header.split() == ["run", "metric", "queries", "expected", "best", "worst", "trec_eval", "bias"]
    rr = rows[0].split()
    assert rr[:3] == ["Olz-gpt4o", "RR", "25"]
    expected, best, worst, trec = map(float, rr[3:7])
    assert worst <= expected <= best and worst <= trec <= best
    assert "grade >= 2" in done.stderr  # the query-set rule is stated


def test_evaluate_json_matches_trec_eval_reference():
    done = tiedrank("evaluate", TREC / "qrels.test", TREC / "results.test", "-m", "AP", "-m", "P@10",
                    "--ties", "trec_eval", "--format", "json")
    assert done.returncode == 0, done.stderr
    records = {r["metric"]: r for r in json.loads(done.stdout)}
    assert round(records["AP"]["trec_eval"], 4) == 0.1785  # out.test: map
    assert round(records["P@10"]["trec_eval"], 4) == 0.3000  # out.test: P_10


@pytest.mark.parametrize("fmt, marker", [("csv", "run,query,metric,expected,best,worst,trec_eval"), ("latex", r"\begin{tabular}"),
                                         ("markdown", "| run |")])
def test_evaluate_formats_and_per_query(fmt, marker):
    done = tiedrank("evaluate", TREC / "qrels.test", TREC / "results.test", "-m", "RR",
                    "--per-query", "--format", fmt)
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout
    assert "301" in done.stdout and "303" in done.stdout


def test_bad_input_is_one_line_without_traceback(tmp_path):
    bad = tmp_path / "run.txt"
    bad.write_text("301 Q0 d1 1 1.5 x\n301 Q0 d2 2 abc x\n")
    done = tiedrank("evaluate", TREC / "qrels.test", bad)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    message = done.stderr.strip()
    assert message.count("\n") == 0
    assert "run.txt, line 2" in message and "abc" in message


def test_unknown_metric_lists_valid_names():
    done = tiedrank("evaluate", TREC / "qrels.test", TREC / "results.test", "-m", "nDGC@10")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "Did you mean 'nDCG'" in done.stderr and "TsRR(alpha=a)" in done.stderr


def test_unknown_policy_and_missing_file():
    done = tiedrank("evaluate", TREC / "qrels.test", TREC / "results.test", "--ties", "median")
    assert done.returncode == 2 and "unknown tie policy 'median'" in done.stderr
    done = tiedrank("evaluate", TREC / "qrels.test", TREC / "nope.txt")
    assert done.returncode == 2 and "nope.txt" in done.stderr and "Traceback" not in done.stderr
