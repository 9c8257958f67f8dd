"""Habits users bring from the peers: ``ties="input,expected"`` as the CLI's ``--ties`` takes
it, and ranx's argument order ``evaluate(qrels, run)`` answered with the order tiedrank takes.

Oracles: the list form of ``ties=`` (tested elsewhere against brute force), and the arguments
in the right order.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tiedrank import EvaluationOptions, evaluate, read_qrels, read_run
from tiedrank.distributed import evaluate as evaluate_scaled

FIXTURES = Path(__file__).resolve().parents[1] / "io" / "ranx_fixtures"
RUN, QRELS = FIXTURES / "run.txt", FIXTURES / "qrels.txt"
SWAPPED = r"did you mean evaluate\(run, qrels\)\?"


def test_ties_takes_the_cli_comma_string():
    as_list = evaluate(RUN, QRELS, ["RR", "AP"], ties=["input", "expected", "random(seed=3)"])
    as_text = evaluate(RUN, QRELS, ["RR", "AP"], ties="input, expected,random(seed=3)")
    pd.testing.assert_frame_equal(as_text.per_query, as_list.per_query)
    assert EvaluationOptions(ties="input,expected") == EvaluationOptions(ties=["input", "expected"])
    with pytest.raises(ValueError, match="ties= must be one of .*got 'median'"):
        evaluate(RUN, QRELS, "RR", ties="input,median")


@pytest.mark.parametrize("door", [evaluate, evaluate_scaled], ids=["evaluate", "distributed"])
def test_qrels_given_as_runs_ask_for_the_other_order(door):
    run, qrels = read_run(RUN), read_qrels(QRELS)
    with pytest.raises(TypeError, match=r"runs= got qrels \(a tiedrank Qrels\); " + SWAPPED):
        door(qrels, run, ["RR"])
    with pytest.raises(TypeError, match=r"qrels= got a run \(a tiedrank Run\); " + SWAPPED):
        door([run], run, ["RR"])
    with pytest.raises(TypeError, match=r"runs= looks like qrels \(columns query, doc, "
                                        r"relevance\) and qrels= like a run .*" + SWAPPED):
        door(qrels.frame, run.frame, ["RR"])


def test_ranx_order_with_ranx_objects():
    ranx = pytest.importorskip("ranx")
    qrels = ranx.Qrels({"q1": {"d1": 1}})
    run = ranx.Run({"q1": {"d1": 2.0, "d2": 1.0}})
    with pytest.raises(TypeError, match=r"runs= got qrels \(a ranx Qrels\); " + SWAPPED):
        evaluate(qrels, run, ["RR"])
    assert evaluate(run, qrels, ["RR"], ties="expected").to_ranx() == {"mrr": 1.0}


def test_polars_frames_in_ranx_order():
    pl = pytest.importorskip("polars")
    run, qrels = read_run(RUN).frame, read_qrels(QRELS).frame
    with pytest.raises(TypeError, match=SWAPPED):
        evaluate(pl.DataFrame(qrels), pl.DataFrame(run), ["RR"])


def test_a_label_run_is_a_run():
    """Grades read as scores (an LLM judge's labels) are a run, not a swap."""
    labels = evaluate(QRELS, QRELS, ["RR"], ties="expected").summary
    assert labels["value"].iloc[0] > 0
    mapped = read_qrels(QRELS).frame.rename(columns={"relevance": "label"})
    by_mapping = evaluate(mapped, read_qrels(QRELS).frame, ["RR"], ties="expected",
                          columns={"score": "label"}).summary
    assert by_mapping["value"].iloc[0] == labels["value"].iloc[0]


def test_files_in_ranx_order_are_named():
    """A qrels path among the runs and a run path as the qrels: named at each door."""
    from tiedrank.cli import main

    trec = Path(__file__).resolve().parents[2] / "sample_data" / "trec_eval"
    with pytest.raises(TypeError, match=r"runs= holds a qrels file .*qrels\.test.*" + SWAPPED):
        evaluate(str(trec / "qrels.test"), str(trec / "results.test"), ["RR"])
    with pytest.raises(TypeError, match=SWAPPED):
        evaluate_scaled([RUN, trec / "qrels.test"], trec / "results.test", ["RR"], buckets=2)
    assert main(["evaluate", str(trec / "results.test"), str(trec / "qrels.test")]) == 2
    # a label file (qrels-shaped) beside a true qrels file is a run, not a swap
    assert evaluate(str(trec / "qrels.test"), str(trec / "qrels.test"), ["RR"]).summary.size


def test_the_command_line_says_the_qrels_come_first(capsys):
    from tiedrank.cli import main

    assert main(["evaluate", str(RUN), str(QRELS), "-m", "RR"]) == 2
    err = capsys.readouterr().err
    assert "TREC qrels: the qrels file comes first, as in trec_eval: tiedrank evaluate QRELS RUN" in err
    assert "did you mean" not in err  # the CLI's words, not Python's
