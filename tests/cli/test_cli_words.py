"""One word per concept on the CLI (issue 40): ``--ties`` takes expected, best, worst,
trec_eval, input, random; the engine's older keys still work, with a one-line note."""
from __future__ import annotations

from pathlib import Path

import pytest

from tiedrank.cli import build_parser, main
from tiedrank.cli._common import cli_ties
from tiedrank.core.policies import ALL_POLICIES, POLICIES, RENAMED

ROOT = Path(__file__).resolve().parents[2]
TREC = ROOT / "sample_data" / "trec_eval"
LLMJUDGE = ROOT / "sample_data" / "llmjudge"


def _evaluate(capsys, *extra: str) -> tuple[int, str, str]:
    code = main(["evaluate", str(TREC / "qrels.test"), str(TREC / "results.test"), "-m", "AP",
                 "--format", "csv", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_best_and_worst_are_the_engine_policies(capsys):
    code, words, err = _evaluate(capsys, "--ties", "best,worst", "-q")
    assert code == 0 and "deprecated" not in err
    assert words.splitlines()[0] == "run,query,metric,best,worst"


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_an_old_spelling_works_with_one_note(capsys, old):
    code, out, err = _evaluate(capsys, "--ties", old)
    assert code == 0
    notes = [line for line in err.splitlines() if "deprecated" in line]
    assert notes == [f"# note: --ties {old} is deprecated (it goes in a later release): "
                     f"type --ties {RENAMED[old]}"]
    assert out == _evaluate(capsys, "--ties", RENAMED[old])[1]


def test_compare_takes_the_words(capsys):
    args = [str(LLMJUDGE / "qrels.test.txt"), str(LLMJUDGE / "runs" / "Olz-gpt4o.txt"),
            str(LLMJUDGE / "runs" / "TREMA-all.txt"), "-m", "RR", "--draws", "5",
            "--format", "csv"]
    assert main(["compare", *args, "--ties", "worst"]) == 0
    words = capsys.readouterr().out
    assert main(["compare", *args, "--ties", "pessimistic"]) == 0
    assert capsys.readouterr().out == words


def test_cli_ties_leaves_other_items_to_the_options():
    assert cli_ties(["expected", "best", "random(seed=3)", "median", "optimistic"]) == [
        "expected", "best", "random(seed=3)", "median", "best"]


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_help_names_the_cli_words(command):
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices[command]
    text = " ".join(sub.format_help().split())
    for key in [*POLICIES, *ALL_POLICIES]:
        assert key in text
    for old in RENAMED:
        assert old not in text
