"""The ``tiedrank`` command line, end to end in a subprocess (as a user runs it)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LLMJUDGE = ROOT / "sample_data" / "llmjudge"
TREC = ROOT / "sample_data" / "trec_eval"


def tiedrank(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tiedrank", *map(str, args)],
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
    assert done.returncode == 2 and "--ties must be one of 'expected'" in done.stderr
    assert done.stderr.strip().endswith("got 'median'")
    done = tiedrank("evaluate", TREC / "qrels.test", TREC / "nope.txt")
    assert done.returncode == 2 and "nope.txt" in done.stderr and "Traceback" not in done.stderr


def _options(subcommand: str) -> dict:
    """Flag -> argparse action of one subcommand of the real parser."""
    from tiedrank.cli import build_parser

    subparsers = next(a for a in build_parser()._actions if a.dest == "command")
    parser = subparsers.choices[subcommand]
    return {flag: action for action in parser._actions for flag in action.option_strings}


def test_choices_and_defaults_come_from_the_library_constants():
    from tiedrank.evaluation import DEFAULT_METRICS
    from tiedrank.core.options import QUERY_SETS
    from tiedrank.metrics import GAINS, METRIC_NAMES
    from tiedrank.report import FORMATS
    from tiedrank.simulate import PRESETS, QUANTIZE_METHODS
    from tiedrank.stats import CORRECTIONS, TESTS

    evaluate, compare = _options("evaluate"), _options("compare")
    # evaluate also writes trec_eval's own three-column output (per-query tables only)
    assert tuple(evaluate["--format"].choices) == FORMATS + ("trec_eval",)
    assert tuple(compare["--format"].choices) == FORMATS
    for options in (evaluate, compare):
        assert tuple(options["--gain"].choices) == GAINS
    assert tuple(evaluate["--query-set"].choices) == QUERY_SETS
    assert tuple(compare["--test"].choices) == TESTS
    assert tuple(compare["--correction"].choices) == CORRECTIONS
    assert list(_options("simulate")["--preset"].choices) == list(PRESETS)
    assert tuple(_options("quantize")["--method"].choices) == QUANTIZE_METHODS
    for options in (evaluate, compare):
        assert ", ".join(DEFAULT_METRICS) in options["--metric"].help
    # the list of measures is `tiedrank metrics` (every form of the registry), named by -m
    assert "`tiedrank metrics`" in evaluate["--metric"].help
    from tiedrank.interop.names import metric_catalogue

    listed = ", ".join(metric_catalogue()["forms"])
    assert listed == ", ".join(METRIC_NAMES)


def test_repeated_run_name_is_disambiguated_as_in_evaluate():
    from tiedrank import evaluate, read_qrels, read_run

    run = TREC / "results.test"
    done = tiedrank("evaluate", TREC / "qrels.test", run, run, "-m", "RR", "--format", "json")
    assert done.returncode == 0, done.stderr
    cli_names = list(dict.fromkeys(r["run"] for r in json.loads(done.stdout)))
    library = evaluate([read_run(run), read_run(run)], read_qrels(TREC / "qrels.test"), "RR")
    assert cli_names == list(library.tables) == ["STANDARD", "STANDARD (2)"]


def test_console_script_points_at_run():
    import tomllib

    from tiedrank.cli import main

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["tiedrank"] == "tiedrank.cli:run"  # main, then exit past Arrow's teardown
    assert main(["evaluate", str(TREC / "qrels.test"), str(TREC / "results.test"),
                 "--ties", "sometimes"]) == 2


@pytest.mark.parametrize("argv, status, stream, text", [
    ([], 2, "stderr", "required: command"),  # argparse's usage error
    (["--version"], 0, "stdout", "tiedrank "),
    (["evaluate", "QRELS_MISSING", "RUN_MISSING"], 2, "stderr", "No such file"),
])
def test_run_keeps_the_status_and_the_output(argv, status, stream, text):
    """``run`` ends with os._exit: the status, the output and the message must survive it."""
    done = subprocess.run([sys.executable, "-m", "tiedrank", *argv], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == status
    assert text in getattr(done, stream)


def test_run_flushes_a_large_output_into_a_pipe():
    judge = ROOT / "sample_data" / "llmjudge"
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", "-q", "-m", "P@5",
                           str(judge / "qrels.test.txt"), *map(str, (judge / "runs").glob("*.txt"))],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0
    assert done.stdout.count("\n") > 150 and done.stdout.endswith("\n")


@pytest.mark.parametrize("argv, address", [
    (["evaluate", "q", "r", "--dask", "local:2"], "local:2"),
    (["evaluate", "q", "r", "-m", "RR", "--dask=local"], "local"),
    (["evaluate", "--dask", "local:3", "q", "r"], "local:3"),
    (["evaluate", "q", "r", "--dask", "tcp://127.0.0.1:8786"], None),
    (["evaluate", "q", "r"], None),
    (["compare", "q", "a", "b", "--dask", "local:2"], None),
    (["evaluate", "q", "-", "--dask", "local:2"], None),  # standard input: refused first
    (["evaluate", "--help", "--dask", "local:2"], None),
    (["evaluate", "q", "r", "--", "--dask", "local:2"], None),
])
def test_a_local_cluster_is_started_ahead_only_when_asked_for(monkeypatch, argv, address):
    """The raw arguments are read before the parser: ``--dask local[:N]`` of ``evaluate``
    starts the cluster ahead, nothing else does."""
    from tiedrank import cli
    from tiedrank.distributed import cluster

    asked = []
    monkeypatch.setattr(cluster, "start_ahead", lambda *args: asked.append(args[0]) or True)
    assert cli._start_cluster_ahead(argv) == (address is not None)
    assert asked == ([] if address is None else [address])
