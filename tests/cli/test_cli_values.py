"""Values, not namespaces, past the CLI's door (issue 40).

Each subcommand's handler reads the argparse namespace once and hands frozen values on
(:class:`tiedrank.core.options.EvaluationOptions` and the requests of
:mod:`tiedrank.cli.requests`); no other function takes a namespace.
"""
from __future__ import annotations

import ast
import dataclasses
import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from tiedrank.cli import evaluate as evaluate_cli
from tiedrank.cli import main
from tiedrank.cli.requests import CompareRequest, DocsRequest, EvaluateRequest, Output, Scaling
from tiedrank.evaluation import metric_request
from tiedrank.core.options import EvaluationOptions

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tiedrank/cli", "tiedrank/interop", "tiedrank/distributed", "tiedrank/core",
            "tiedrank/evaluation")
TREC = ROOT / "sample_data" / "trec_eval"

DOORS = {
    # the dispatch: reads the handler and the input limits, then calls the handler
    ("tiedrank/cli/_common.py", "run_handler"), ("tiedrank/cli/_common.py", "_run_handler"),
    # each subcommand's door: parses its flags into values, hands them on
    ("tiedrank/cli/evaluate.py", "_evaluate"), ("tiedrank/cli/compare.py", "_compare"),
    ("tiedrank/cli/docs.py", "_docs"), ("tiedrank/cli/metrics.py", "_metrics"),
    ("tiedrank/cli/simulate.py", "_simulate"), ("tiedrank/cli/simulate.py", "_quantize"),
    ("tiedrank/cli/dashboard.py", "_dashboard"),
    # evaluate's scaling flags, read at evaluate's door into a Scaling value
    ("tiedrank/cli/scale.py", "scaling"),
}
"""(file, function) allowed to take an argparse namespace."""


def _takes_namespace(node: ast.AST) -> bool:
    arguments = node.args
    for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
        annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
        if "Namespace" in annotation or (arg.arg == "args" and not annotation):
            return True
    return False


def _namespace_takers() -> set[tuple[str, str]]:
    found = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and \
                        _takes_namespace(node):
                    found.add((path.relative_to(ROOT).as_posix(),
                               getattr(node, "name", f"<lambda line {node.lineno}>")))
    return found


def test_only_the_doors_take_a_namespace():
    takers = _namespace_takers()
    assert takers - DOORS == set(), (
        "past the door, hand on EvaluationOptions and the values of tiedrank.cli.requests, "
        f"not the argparse namespace: {sorted(takers - DOORS)}")


def test_every_door_is_still_there():  # a renamed door must be renamed here too
    assert DOORS - _namespace_takers() == set()


@pytest.mark.parametrize("value", [
    Output(), Scaling(),
    DocsRequest("q", "r", "1", None, None, 5),
])
def test_the_values_are_frozen(value):
    field = dataclasses.fields(value)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, None)


def test_compare_request_is_frozen():
    assert CompareRequest.__dataclass_params__.frozen
    assert EvaluateRequest.__dataclass_params__.frozen


def _captured(call) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        code = call()
    return code, out.getvalue()


@pytest.mark.parametrize("fmt", ["csv", "trec_eval"])
def test_evaluate_runs_from_values_alone(fmt):
    """The values hold everything the command needs: run() from values prints what the
    command line prints."""
    qrels, run = str(TREC / "qrels.test"), str(TREC / "results.test")
    request = metric_request(["map", "P.5,10"])
    ties = "trec_eval" if fmt == "trec_eval" else "expected"
    values = EvaluateRequest(qrels=qrels, runs=(run,), request=request,
                             metrics=tuple(request.metrics),
                             output=Output(format=fmt, digits=4, per_query=True),
                             scaling=Scaling())
    code, printed = _captured(lambda: evaluate_cli.run(values, EvaluationOptions(ties=ties)))
    expected_code, expected = _captured(lambda: main(
        ["evaluate", qrels, run, "-m", "map", "-m", "P.5,10", "-q", "--format", fmt,
         "--ties", ties]))
    assert code == expected_code == 0
    assert printed == expected and printed
