"""Numbers that survive a round trip (issue 44, item 6): ``--format json`` writes every float
as its shortest round-trip text, and ``--digits full`` prints that in the CSV and text
formats, so what is read back is the evaluation's float64, bit for bit."""
from __future__ import annotations

import csv
import io
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate
from tiedrank.cli import main
from tiedrank.report import render

ROOT = Path(__file__).resolve().parents[2]
TREC = ROOT / "sample_data" / "trec_eval"
LLMJUDGE = ROOT / "sample_data" / "llmjudge"
POLICIES = "expected,best,worst,trec_eval,input,random"
CASES = {"trec_eval": (TREC / "qrels.test", TREC / "results.test"),
         "llmjudge": (LLMJUDGE / "qrels.test.txt", LLMJUDGE / "runs" / "Olz-gpt4o.txt")}


def bits(value) -> int | None:
    """The float64's bits (None for a missing value: NaN, an empty cell, JSON's null)."""
    if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
        return None
    return int(np.float64(float(value)).view(np.int64))


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    qrels, run = CASES[request.param]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # all_trec's measures not yet tie-aware: named
        ev = evaluate(str(run), str(qrels), ["all_trec"], ties=POLICIES.split(","))
    return qrels, run, ev


def cli(capsys, qrels, run, *flags) -> str:
    status = main(["evaluate", str(qrels), str(run), "-m", "all_trec", "--ties", POLICIES,
                   *flags])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def records(out: str, fmt: str) -> list[dict]:
    return json.loads(out) if fmt == "json" else list(csv.DictReader(io.StringIO(out)))


def expected_per_query(ev) -> dict:
    frame = ev.per_query
    return {(str(r), str(q), str(m), str(p)): bits(v) for r, q, m, p, v in zip(
        frame["run"], frame["query"], frame["metric"], frame["policy"], frame["value"])}


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_per_query_values_read_back_bit_for_bit(case, capsys, fmt):
    qrels, run, ev = case
    rows = records(cli(capsys, qrels, run, "-q", "--format", fmt,
                       *(["--digits", "full"] if fmt == "csv" else [])), fmt)
    want = expected_per_query(ev)
    got = {}
    for row in rows:
        for policy in POLICIES.split(","):
            label = next(c for c in row if c.startswith(policy))  # random's label has its seed
            got[str(row["run"]), str(row["query"]), str(row["metric"]), label] = bits(row[label])
    labelled = {(r, q, m, next(c for c in rows[0] if c.startswith(p))): v
                for (r, q, m, p), v in want.items()}
    assert len(got) == len(labelled) > 1000
    assert got == labelled


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_summary_values_read_back_bit_for_bit(case, capsys, fmt):
    qrels, run, ev = case
    rows = records(cli(capsys, qrels, run, "--format", fmt,
                       *(["--digits", "full"] if fmt == "csv" else [])), fmt)
    report = ev.report()
    numbers = [c for c in report.columns if c not in ("run", "metric")]
    want = {(str(r["run"]), str(r["metric"]), c): bits(r[c])
            for r in report.to_dict("records") for c in numbers}
    got = {(str(row["run"]), str(row["metric"]), c): bits(row[c]) for row in rows for c in numbers}
    assert len(got) == len(want) > 100
    assert got == want
    summary = ev.summary  # and the report's columns are the summary's values
    for row in summary.itertuples():
        label = next(c for c in numbers if c.startswith(str(row.policy)))
        assert got[str(row.run), str(row.metric), label] == bits(row.value)


def test_digits_full_in_every_text_format():
    frame = pd.DataFrame({"metric": ["RR", "AP", "P@10"], "value": [2 / 3, 1e-20, np.nan],
                          "n": [1, 2, 3]})
    for fmt in ("table", "markdown", "latex", "html", "csv"):
        text = render(frame, fmt, digits="full")
        assert "0.6666666666666666" in text and "1e-20" in text and "nan" not in text.lower()
    assert render(frame, "csv", digits=4).splitlines()[1] == "RR,0.6667,1"  # decimals as ever
    assert render(frame, "csv", digits=17).splitlines()[2] == "AP,0.00000000000000000,2"
    assert json.loads(render(frame, "json"))[1]["value"] == 1e-20


def test_json_keeps_pandas_bytes_but_the_floats():
    frame = pd.DataFrame({"run": pd.Categorical(["a/b", "é\"x\ue000"]), "v": [0.5, np.inf],
                          "w": [1.0, 123456.75], "n": [1, 2], "b": [True, False]})
    assert render(frame, "json") == frame.to_json(orient="records", indent=1, double_precision=15)
    thirds = frame.assign(v=[1 / 3, -0.0])
    back = json.loads(render(thirds, "json"))
    assert [bits(r["v"]) for r in back] == [bits(1 / 3), bits(-0.0)]


def test_digits_flag(capsys):
    qrels, run = CASES["trec_eval"]
    for bad in ("fully", "-1", "18"):
        try:
            status = main(["evaluate", str(qrels), str(run), "-m", "RR", "--digits", bad])
        except SystemExit as exit:  # argparse's refusal
            status = exit.code
        assert status == 2
        assert "'full'" in capsys.readouterr().err
    out = cli(capsys, qrels, run, "--digits", "FULL", "--format", "table")
    assert "0.40640" not in out and "0.4064" in out  # full text, not 4 decimals padded


def test_json_of_a_frame_pandas_writes_otherwise():
    """A nested object in a cell spans lines: the floats are written through a mark."""
    from tiedrank.report.formats import _marked_json, json_records

    nested = pd.DataFrame({"d": [{"a": 1}, {"b": [2, 3]}], "v": [0.1, 1 / 3]})
    assert [r["v"] for r in json.loads(json_records(nested))] == [0.1, 1 / 3]
    plain = pd.DataFrame({"k:\"/": ["x\n\ue000", None], "v": [2 / 3, np.nan], "w": [1e-300, 5.0]})
    assert json_records(plain) == _marked_json(plain, [1, 2])
