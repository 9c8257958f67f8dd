"""Streamlit-free logic of the Compare page's fragile queries and the Overview's verdict line."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate
from tiedrank.dashboard.compare import fragile_heading, fragile_table
from tiedrank.dashboard.drilldown import selected_row_value
from tiedrank.dashboard.overview import (
    BEST_MARKER,
    best_runs,
    overview_cells,
    overview_styled,
    verdict_sentence,
)


def _two_tied_runs():
    """Query 1: both runs tie the relevant doc with a non-relevant one (either can win P@1);
    query 2: A has it first for sure, B ties it (A wins or ties); query 3: no ties."""
    qrels = pd.DataFrame({"query": ["1", "2", "3"], "doc": "x", "relevance": 1})
    a = pd.DataFrame({"query": ["1", "1", "2", "2", "3"], "doc": ["x", "y", "x", "y", "x"],
                      "score": [1.0, 1.0, 2.0, 1.0, 1.0]})
    b = pd.DataFrame({"query": ["1", "1", "2", "2", "3"], "doc": ["x", "y", "x", "y", "x"],
                      "score": [1.0, 1.0, 1.0, 1.0, 1.0]})
    return evaluate({"A": a, "B": b}, qrels, ["P@1"], ties="all")


def test_fragile_table_keeps_only_the_queries_either_run_can_win():
    table, n = fragile_table(_two_tied_runs(), "A", "B", "P@1", {"1": "first"})
    assert n == 3
    assert table["query"].tolist() == ["1"] and table["text"].tolist() == ["first"]
    row = table.iloc[0]  # A: 1 or 0, B: 1 or 0, independently
    assert (row.best_a, row.worst_a, row.best_b, row.worst_b) == (1.0, 0.0, 1.0, 0.0)
    assert (row.max_diff, row.min_diff) == (1.0, -1.0)
    assert row.winner_expected == "tie" and "fragile" not in table.columns
    assert fragile_table(_two_tied_runs(), "B", "A", "P@1")[0]["query"].tolist() == ["1"]


def test_fragile_table_puts_the_widest_range_first():
    rows = [(run, q, "RR", p, v) for run in ("A", "B")
            for q, (lo, hi) in (("narrow", (0.4, 0.6)), ("wide", (0.0, 1.0)), ("none", (0.5, 0.5)))
            for p, v in (("expected", (lo + hi) / 2), ("trec_eval", lo), ("best", hi),
                         ("worst", lo))]
    frame = pd.DataFrame(rows, columns=["run", "query", "metric", "policy", "value"])
    table, n = fragile_table(frame, "A", "B", "RR")
    assert n == 3 and table["query"].tolist() == ["wide", "narrow"]
    assert table["max_diff"].tolist() == pytest.approx([1.0, 0.2])


def test_fragile_heading():
    assert fragile_heading(4, 50) == "4 of 50 queries can flip on the tie-break alone"
    assert fragile_heading(1, 1) == "1 of 1 query can flip on the tie-break alone"


def test_selected_row_value_reads_positions_in_the_given_frame():
    table = pd.DataFrame({"query": ["q5", "q1", "q3"]})
    assert selected_row_value({"selection": {"rows": [2], "columns": [], "cells": []}}, table) == "q3"
    assert selected_row_value({"selection": {"rows": [7]}}, table) is None  # stale selection
    assert selected_row_value(None, table) is None


def _report(expected, trec):
    runs = [f"r{i}" for i in range(len(expected))]
    return pd.DataFrame({"run": runs, "metric": "RR", "expected": expected,
                         "worst": np.zeros(len(runs)), "best": np.ones(len(runs)),
                         "trec_eval": trec})


def test_best_runs_follow_the_one_equality_rule():
    report = _report([0.5, 0.7, 0.7 + 1e-15, 0.69], [0.1, 0.2, 0.3, 0.4])
    assert best_runs(report, "RR") == ["r1", "r2"]  # equal within 1e-12: both best
    assert best_runs(report, "RR", "trec_eval") == ["r3"]
    assert best_runs(report, "AP") == []


def test_verdict_sentence_names_the_winners():
    rng = np.random.default_rng(3)
    expected, trec = rng.random(6), rng.random(6)
    report = _report(expected, trec)
    text = verdict_sentence(report, "RR")
    e, t = f"r{int(np.argmax(expected))}", f"r{int(np.argmax(trec))}"
    assert f"**{e}**" in text and f"**{t}**" in text
    assert ("changes the winner" in text) == (e != t)
    same = verdict_sentence(_report([0.2, 0.9], [0.3, 0.8]), "RR")
    assert same.startswith("On RR the best run is **r1**, both") and "changes" not in same
    tied = verdict_sentence(_report([0.9, 0.9], [0.3, 0.8]), "RR")
    assert tied == ("On RR the best runs by expectation are **r0** and **r1** (equal, 0.900), but "
                    "in trec_eval's order the best run is **r1** (0.800): the tie-break changes "
                    "the winner.")  # plural where runs tie for best, singular where one wins
    both = verdict_sentence(_report([0.9, 0.9], [0.8, 0.8]), "RR")
    assert both.startswith("On RR the best runs are **r0** and **r1** (equal), both by expectation")
    no_trec = verdict_sentence(_report([0.9, 0.9], [np.nan, np.nan]), "RR")
    assert no_trec == "On RR the best runs by expectation are **r0** and **r1** (equal, 0.900)."
    odd = _report([0.1, 0.9], [0.1, 0.9]).assign(run=["a", "b_*x"])
    assert r"**b\_\*x**" in verdict_sentence(odd, "RR")  # Markdown characters escaped


def test_styled_overview_keeps_numbers_and_shows_the_cells():
    report = pd.concat([_report([0.3, 0.8, 0.5], [0.3, 0.4, 0.9]),
                        _report([0.6, 0.2, 0.6], [0.1, 0.1, 0.1]).assign(metric="AP")])
    cells = overview_cells(report, ["RR", "AP"], best=BEST_MARKER)
    assert [c.startswith(BEST_MARKER) for c in cells["RR"]] == [False, True, False]
    assert [c.startswith(BEST_MARKER) for c in cells["AP"]] == [True, False, True]
    styled = overview_styled(report, cells, ["RR", "AP"])
    assert styled.data["RR"].tolist() == [0.3, 0.8, 0.5]  # sorts by value
    html = styled.to_html()
    for cell in cells["RR"]:
        assert cell in html
    bold = re.search(r"([^{}]*)\{\s*font-weight: bold;", html).group(1)
    cells_in_bold = set(re.findall(r"row(\d+)_col(\d+)", bold))
    assert cells_in_bold == {("1", "1"), ("0", "2"), ("2", "2")}  # (run, column) of the stars
