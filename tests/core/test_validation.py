"""One option checker: the wording of tiedrank.core.validation, in the library and on the CLI."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate, parse_policies
from tiedrank.cli._common import FLAGS, flag_message
from tiedrank.report import render
from tiedrank.simulate import RerankerSpec, make_queries, quantize_run
from tiedrank.sampling import sample_run_means
from tiedrank.core.validation import (Interval, InvalidParameterError, Options, Pattern, check,
                                 check_arguments, validate_params)

ROOT = Path(__file__).resolve().parents[2]
TREC = ROOT / "sample_data" / "trec_eval"
RUN = pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
QRELS = pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})


@pytest.mark.parametrize("constraint, good, bad", [
    (Interval(int, 1, None), [1, np.int64(7)], [0, True, 1.0, "1", None]),
    (Interval(float, 0, 1), [0, 0.5, 1, np.float32(0.25)], [-0.1, 1.01, float("nan"), False]),
    (Interval(float, 0, 1, closed="neither"), [0.5], [0.0, 1.0]),
    (Interval(float, None, None), [-1e300, 3], [float("inf"), float("-inf")]),
    (Options("a", "b"), ["a", "b"], ["A", None, ["a"]]),
    (Pattern(r"random\(seed=\d+\)", "random(seed=N)"), ["random(seed=3)", " random(seed=3) "],
     ["random(seed=x)", 3]),
])
def test_constraints_accept_and_refuse(constraint, good, bad):
    for value in good:
        assert constraint.accepts(value), value
    for value in bad:
        assert not constraint.accepts(value), value


@pytest.mark.parametrize("constraints, value, message", [
    ([Interval(int, 0, 15)], 16, "x= must be an integer in [0, 15]; got 16"),
    ([Interval(int, 1, None)], 0, "x= must be an integer >= 1; got 0"),
    ([Interval(float, 0, 1, closed="left")], 1, "x= must be a number in [0, 1); got 1"),
    ([Interval(float, None, None)], float("inf"), "x= must be a finite number; got inf"),
    ([Options("linear", "exp")], "log", "x= must be one of 'linear', 'exp'; got 'log'"),
    ([None, Interval(int, 1, None)], 0, "x= must be None or an integer >= 1; got 0"),
    ([bool], "yes", "x= must be True or False; got 'yes'"),
])
def test_one_wording_names_the_allowed_values(constraints, value, message):
    with pytest.raises(InvalidParameterError) as info:
        check("x", value, constraints)
    assert str(info.value) == message
    assert info.value.worded("--x") == "--x" + message[2:]


def test_validate_params_names_the_function_and_refuses_unknown_parameters():
    @validate_params({"n": [Interval(int, 1, None)]})
    def draw(n=1):
        return n

    assert draw(3) == 3
    with pytest.raises(InvalidParameterError, match=r"^draw\(\): n= must be an integer >= 1; got 0$"):
        draw(n=0)
    with pytest.raises(InvalidParameterError):
        check_arguments(draw, n=-1)  # the same constraints, without the call
    with pytest.raises(TypeError, match="no parameter"):
        validate_params({"m": [int]})(lambda n: n)


@pytest.mark.parametrize("call, parameter", [
    (lambda: evaluate({"r": RUN}, QRELS, ["RR"], gain="log"), "gain"),
    (lambda: evaluate({"r": RUN}, QRELS, ["RR"], query_set="drop"), "query_set"),
    (lambda: evaluate({"r": RUN}, QRELS, ["RR"], rel_level=0), "rel_level"),
    (lambda: evaluate({"r": RUN}, QRELS, ["RR"], round=1.5), "round"),
    (lambda: parse_policies("median"), "ties"),
    (lambda: render(RUN, "xlsx"), "fmt"),  # html is a format since the report grid
    (lambda: render(RUN, "csv", digits=-1), "digits"),
    (lambda: RerankerSpec(levels=0), "levels"),
    (lambda: RerankerSpec(tie_prob=1.5), "tie_prob"),
    (lambda: make_queries(n_queries=0), "n_queries"),
    (lambda: make_queries(seed=-1), "seed"),
    (lambda: quantize_run(None, levels=3, method="median"), "method"),
])
def test_library_option_errors_share_the_wording(call, parameter):
    with pytest.raises(InvalidParameterError) as info:
        call()
    error = info.value
    assert error.parameter == parameter
    assert f"{parameter}= must be " in str(error) and str(error).endswith(f"got {error.value!r}")
    assert parameter in FLAGS  # every one of them can be set from the CLI


def test_sampler_refuses_zero_draws():
    table = evaluate({"r": RUN}, QRELS, ["RR"]).tables["r"]
    with pytest.raises(InvalidParameterError, match=r"sample_run_means\(\): n_draws= must be an integer >= 1; got 0"):
        sample_run_means(table, "RR", n_draws=0)


@pytest.mark.parametrize("argv, call", [
    (["--rel-level", "0"], lambda: evaluate({"r": RUN}, QRELS, ["RR"], rel_level=0)),
    (["--ties", "median"], lambda: parse_policies("median")),
    (["--digits", "40"], lambda: render(RUN, "table", 40)),
])
def test_cli_rewords_the_library_error_with_its_flag(argv, call):
    """Same allowed values and value as the library's error; only the name differs."""
    with pytest.raises(InvalidParameterError) as info:
        call()
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", str(TREC / "qrels.test"),
                           str(TREC / "results.test"), *argv],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == f"tiedrank: error: {info.value.worded(argv[0])}\n"
    assert done.stderr == f"tiedrank: error: {flag_message(info.value)}\n"
    assert done.stdout == ""  # refused before any output
