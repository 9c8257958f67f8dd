"""``tiedrank dashboard``: the flags it passes to Streamlit, the ones it refuses, the
sample data's folder, and the one line when the dashboard's packages are missing.
(Starting the server from an installed wheel is CI's third step, .ci/package-check.)"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tiedrank.app_files import APP_SCRIPT, SAMPLE_DIR
from tiedrank.cli import main
from tiedrank.cli.dashboard import streamlit_arguments

ROOT = Path(__file__).resolve().parents[2]
TREC = ROOT / "sample_data" / "trec_eval"


def test_sample_data_dir_prints_the_bundled_data(capsys):
    assert main(["dashboard", "--sample-data-dir"]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed == SAMPLE_DIR and (printed / "llmjudge" / "qrels.test.txt").is_file()


def test_streamlit_flags_pass_through_in_both_spellings():
    flags = ["--server.port", "8502", "--server.headless=true", "--theme.base", "dark",
             "--client.toolbarMode", "viewer"]
    assert streamlit_arguments(flags) == ["run", str(APP_SCRIPT), *flags]


@pytest.mark.parametrize("argv, expected", [
    # a word that is not a flag is a path (QRELS RUN|DIR): one file alone is not enough
    (["dashboard", "app.py"], "give the qrels and at least one run file or folder"),
    (["dashboard", "--server.port", "1", "2"], "give the qrels and at least one run file"),
    (["dashboard", "-x"], "not '-x'"),
    (["dashboard", "--server.port"], "--server.port needs a value"),
])
def test_anything_else_is_one_line_naming_the_flags_it_takes(argv, expected, capsys):
    assert main(argv) == 2
    message = capsys.readouterr().err
    assert expected in message and message.count("\n") == 1 and "Traceback" not in message


def test_other_subcommands_still_refuse_unknown_arguments(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["evaluate", str(TREC / "qrels.test"), str(TREC / "results.test"),
              "--server.port", "8502"])
    assert stop.value.code == 2
    assert "unrecognized arguments: --server.port 8502" in capsys.readouterr().err


def test_without_streamlit_one_line_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "streamlit", None)  # find_spec: not installed
    assert main(["dashboard", "--server.headless", "true"]) == 2
    message = capsys.readouterr().err
    assert message.startswith("tiedrank: error: the dashboard needs streamlit")
    assert "pip install 'tiedrank[app]'" in message and message.count("\n") == 1
