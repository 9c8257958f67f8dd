"""Exports are safe (issue 19, item 12): string cells that a spreadsheet would run as a
formula are neutralised in CSV (numbers stay numbers), in ``--format csv`` and in the
``--out`` report.csv; LaTeX escapes its special characters; Markdown escapes ``|``."""
from __future__ import annotations

import csv
import io
import subprocess
import sys

import pandas as pd
import pytest

from tiedrank.report import csv_safe, latex_escape, neutralised, render

HOSTILE = ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tq", "\rq", "\r=1+1"]


@pytest.mark.parametrize("text", HOSTILE)
def test_formula_cells_are_neutralised(text):
    frame = pd.DataFrame({"query": [text], "value": [-0.5]})
    rows = list(csv.reader(io.StringIO(render(frame, "csv"), newline="")))
    assert len(rows) == 2  # a CR inside a cell does not start a row
    assert rows[1][0] == "'" + text.replace("\r", "\n")
    assert rows[1][1] == "-0.5000"  # a negative number stays a number


def test_a_cr_inside_a_cell_starts_no_row():
    rows = list(csv.reader(io.StringIO(render(pd.DataFrame({"q": ["x\r=1+1"]}), "csv"),
                                       newline="")))
    assert rows == [["q"], ["x\n=1+1"]]


def test_numbers_and_plain_ids_stay_as_they_are():
    assert [neutralised(t) for t in ["-1", "+2.5", "-1e-3", "q-1", "d=1", "-inf"]] == \
        ["-1", "+2.5", "-1e-3", "q-1", "d=1", "-inf"]
    frame = pd.DataFrame({"run": pd.Categorical(["=a", "b"]), "n": [-3, 4], "v": [-1.5, 2.0]})
    safe = csv_safe(frame)
    assert safe["run"].tolist() == ["'=a", "b"]
    assert safe["n"].tolist() == [-3, 4] and safe["v"].tolist() == [-1.5, 2.0]


def test_latex_escapes_every_special_character():
    frame = pd.DataFrame({"run": ["a_b&c%d$e#f{g}h~i^j\\k"], "value": [1.0]})
    text = render(frame, "latex")
    row = text.splitlines()[4]
    assert row.startswith(r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j"
                          r"\textbackslash{}k & ")
    assert latex_escape("plain") == "plain"


def test_markdown_escapes_the_pipe():
    frame = pd.DataFrame({"a|b": ["x|y"], "value": [1.0]})
    lines = render(frame, "markdown").splitlines()
    assert lines[0] == r"| a\|b | value |" and lines[2] == r"| x\|y | 1.0000 |"


def _files(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("=1+1 Q0 @doc 1 2.0 -cmd\n=1+1 Q0 d2 2 1.0 -cmd\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("=1+1 0 @doc 1\n")
    return str(qrels), str(run)


def test_the_cli_csv_is_neutralised(tmp_path):
    qrels, run = _files(tmp_path)
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", qrels, run, "-m", "RR",
                           "--format", "csv", "--per-query"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert rows[1][:2] == ["'-cmd", "'=1+1"]
    assert not any(cell.startswith(("=", "@", "+")) for row in rows for cell in row)


def test_the_out_report_is_neutralised(tmp_path):
    qrels, run = _files(tmp_path)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", qrels, run, "-m", "RR",
                           "--buckets", "2", "--out", str(out)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    for name in ("report.csv", "summary.csv"):
        rows = list(csv.reader(open(out / name)))
        assert rows[1][0] == "'-cmd", name
        assert not any(c.startswith(("=", "@", "+", "-")) and c != "-0" and not
                       c.lstrip("-").replace(".", "").replace("e", "").isdigit()
                       for row in rows[1:] for c in row[1:]), name
