"""Labels that are identifiers (issue 43, class 4): a LaTeX label is written raw (escaped,
``tab:main_results`` became ``tab:main\\_results`` and ``\\ref`` no longer found it) and a
character LaTeX cannot take in a label is refused with a message; a metric's name keeps its
parameters exactly, so two different metrics never share a name (``%g`` made
``RBP(p=0.1234567)`` and ``RBP(p=0.1234568)`` one row, and ``SDCG(max_rel=2147483647)``
``2.14748e+09``), while the ordinary names stay as they were (benchmarks/snapshot.py
compares every all_trec name and value byte for byte).

Oracle: the names typed; the float each name reads back as."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tiedrank import evaluate, parse_metric

ROOT = Path(__file__).resolve().parents[2]
TREC = ROOT / "sample_data" / "trec_eval"
QRELS = pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "relevance": [1, 0, 1]})
RUNS = {"x": pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [3.0, 2.0, 2.0]}),
        "y": pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]})}


@pytest.fixture(scope="module")
def evaluation():
    return evaluate(RUNS, QRELS, ["RR", "AP"], ties="all")


def test_a_latex_label_is_written_raw(evaluation):
    for latex in (evaluation.to_latex(label="tab:main_results"),
                  evaluation.grid().to_latex(label="tab:main_results")):
        assert r"\label{tab:main_results}" in latex
    assert r"\label{tab:tiedrank}" in evaluation.to_latex()
    assert r"\label" not in evaluation.to_latex(label=None)


@pytest.mark.parametrize("label, shown", [("tab:a&b", "'&'"), ("tab:50%", "'%'"),
                                          ("tab:é", "'é'"), ("tab:{x}", "'{'"),
                                          ("tab:a\\b", "'\\\\\\\\'"), ("tab:a~b", "'~'")])
def test_a_label_latex_cannot_take_is_refused(evaluation, label, shown):
    with pytest.raises(ValueError, match=r"the LaTeX label .* holds " + shown
                                         + r", which LaTeX cannot take"):
        evaluation.to_latex(label=label)


@pytest.mark.parametrize("typed, name", [
    ("RBP(p=0.1234567)", "RBP(p=0.1234567)"), ("RBP(p=0.90000001)", "RBP(p=0.90000001)"),
    ("SDCG(max_rel=2147483647)@10", "SDCG(max_rel=2147483647)@10"),
    ("RBP(p=0.8)", "RBP(p=0.8)"), ("RBP", "RBP(p=0.9)"), ("nDCG@10", "nDCG@10"),
    ("TsRR(alpha=0.5)", "TsRR(alpha=0.5)"), ("TsRR(alpha=1.0)", "TsRR(alpha=1)"),
    ("RBP(p=1e-5)", "RBP(p=1e-05)")])
def test_a_metric_name_keeps_its_parameters_exactly(typed, name):
    metric = parse_metric(typed)
    assert metric.name == name
    assert parse_metric(metric.name) == metric  # the name reads back as the same metric


def test_two_metrics_never_share_a_name_in_python_and_on_the_command_line():
    names = ["RBP(p=0.9)", "RBP(p=0.90000001)"]
    summary = evaluate(RUNS, QRELS, names).summary
    assert sorted(summary["metric"].unique()) == sorted(names)
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", str(TREC / "qrels.test"),
                           str(TREC / "results.test"), "-m", "RBP(p=0.1234567)", "-m",
                           "RBP(p=0.1234568)", "--format", "csv"], capture_output=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "RBP(p=0.1234567)" in out and "RBP(p=0.1234568)" in out
