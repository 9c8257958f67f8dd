"""Compare's "Fragile queries" section through AppTest: its rows against
tiedrank.stats.fragile_queries on an independent evaluation, and a row opening the query on
"Two runs, one query" on the user's dataset."""
from __future__ import annotations

import numpy as np
import pytest

from apptest_support import assert_no_trouble, new_app
from tiedrank import evaluate
from tiedrank.dashboard.datasets import BUNDLED
from tiedrank.io import read_qrels, read_run
from tiedrank.stats import fragile_queries

pytestmark = pytest.mark.usefixtures("navigation_pages")

NUMBERS = ["expected_a", "expected_b", "trec_eval_a", "trec_eval_b", "best_a", "worst_a",
           "best_b", "worst_b", "max_diff", "min_diff"]


def _fragile_element(at):
    tables = [d for d in at.dataframe if {"max_diff", "min_diff"} <= set(d.value.columns)]
    assert len(tables) == 1, [list(d.value.columns) for d in at.dataframe]
    return tables[0]


def _compare(dataset: str):
    at = new_app().run()
    if dataset != "llmjudge":
        at.radio(key="dataset").set_value(dataset).run()
    at.switch_page("pages/compare.py").run()
    assert_no_trouble(at)
    return at


def test_fragile_rows_match_the_library_on_bundled_data():
    at = _compare("llmjudge")
    run, baseline = at.selectbox(key="compare_run").value, at.selectbox(key="compare_baseline").value
    metric = at.selectbox(key="compare_chart_metric").value
    ds = BUNDLED["llmjudge"]
    runs = [read_run(str(ds.path(r)), format=ds.run_format) for r in ds.runs]
    qrels = read_qrels(str(ds.path(ds.qrels)), format=ds.qrels_format)
    ev = evaluate(runs, qrels, [metric], ties="all", rel_level=ds.rel_level)
    library = fragile_queries(ev, run, baseline, metric)
    want = library[library["fragile"]].set_index("query")
    assert 0 < len(want) < len(library)  # LLMJudge has both kinds: the check means something
    heading = [h.value for h in at.header if h.value.startswith("Fragile queries")]
    assert heading == [f"Fragile queries: {len(want)} of {len(library)} queries can flip on "
                       "the tie-break alone"]
    shown = _fragile_element(at).value.set_index("query")
    assert sorted(shown.index) == sorted(want.index)
    np.testing.assert_allclose(shown.loc[want.index, NUMBERS].to_numpy(dtype=float),
                               want[NUMBERS].to_numpy(dtype=float), rtol=0, atol=1e-12)
    for column in ("winner_expected", "winner_trec_eval"):
        assert shown.loc[want.index, column].tolist() == want[column].tolist()
    span = (shown["max_diff"] - shown["min_diff"]).to_numpy()
    assert (np.diff(span) <= 1e-12).all()  # widest range first
    assert any(b.proto.label == "CSV" for b in at.get("download_button")
               if "fragile" in b.proto.id)


def test_a_fragile_row_opens_two_runs_one_query_on_the_users_dataset():
    at = _compare("simulated")
    run, baseline = at.selectbox(key="compare_run").value, at.selectbox(key="compare_baseline").value
    metric = at.selectbox(key="compare_chart_metric").value
    table = _fragile_element(at).value
    assert len(table) >= 2
    query = str(table["query"].iloc[1])
    at.session_state["compare_fragile_table"] = {"selection": {"rows": [1], "columns": [],
                                                               "cells": []}}
    at.run()
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Two runs, one query")
    assert at.session_state["dataset"] == "simulated"
    assert at.selectbox(key="sbs_run_a").value == run
    assert at.selectbox(key="sbs_run_b").value == baseline
    assert at.selectbox(key="sbs_query").value == query
    assert at.query_params["dataset"] == "simulated" and at.query_params["query"] == query
    assert at.query_params["metric"] == metric
