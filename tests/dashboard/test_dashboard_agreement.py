"""The Judge agreement page's logic (no Streamlit): which runs are labels, and its tables
checked against scikit-learn on the bundled data."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from tiedrank.dashboard import agreement as view
from tiedrank.dashboard.datasets import BUNDLED
from tiedrank.io import read_qrels, read_run
from tiedrank.stats import judge_agreement


def _dataset(key: str):
    data = BUNDLED[key]
    qrels = read_qrels(data.path(data.qrels), format=data.qrels_format)
    runs = {}
    for relative in data.runs:
        run = read_run(data.path(relative), format=data.run_format)
        runs[run.name] = run
    return qrels, runs


@pytest.fixture(scope="module")
def simulated():
    return _dataset("simulated")


def _pairs(run, qrels) -> pd.DataFrame:
    return run.frame.merge(qrels.frame, on=["query", "doc"])


def test_the_simulated_rankers_split_into_labels_and_scores(simulated):
    qrels, runs = simulated
    labels, others = view.split_label_runs(runs)
    for name, run in runs.items():  # the oracle: integers with at most 20 values
        scores = run.frame["score"].to_numpy()
        is_label = bool(np.all(scores == np.floor(scores))) and len(set(scores)) <= 20
        assert (name in labels) == is_label, name
    assert labels and others  # this dataset has both kinds
    assert all("not an integer" in why or "distinct" in why for why in others.values())
    assert all(f"**{name}**" in view.skipped_note(others) for name in others)


def test_no_label_runs_names_the_dataset():
    message = view.no_label_runs_message("My ranker set", {"bm25": "has the score 0.5, not an "
                                                          "integer label"})
    assert "**My ranker set**" in message and "**bm25** has the score 0.5" in message
    many = view.no_label_runs_message("X", {f"r{i}": "why" for i in range(5)})
    assert "(and 2 more)" in many


def test_kappa_table_matches_sklearn(simulated):
    qrels, runs = simulated
    labels, _ = view.split_label_runs(runs)
    table = view.kappa_table(judge_agreement({n: runs[n] for n in labels}, qrels)).set_index("run")
    assert list(table.index) == labels
    for name in labels:
        pairs = _pairs(runs[name], qrels)
        grades, scores = pairs["relevance"], pairs["score"].astype(int)
        assert table.loc[name, "documents"] == len(pairs)
        assert table.loc[name, "queries"] == pairs["query"].nunique()
        assert table.loc[name, "exact agreement"] == pytest.approx(np.mean(grades == scores))
        for weights, sk in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
            assert table.loc[name, weights] == pytest.approx(
                cohen_kappa_score(grades, scores, weights=sk), abs=1e-12)


def test_query_table_and_partner_and_lowest(simulated):
    qrels, runs = simulated
    labels, _ = view.split_label_runs(runs)
    agreement = judge_agreement({n: runs[n] for n in labels}, qrels)
    run = labels[0]
    table = view.query_table(agreement, run, {"q001": "some text"})
    pairs = _pairs(runs[run], qrels)
    assert set(table["query"]) == set(pairs["query"])
    row = table.set_index("query").loc["q001"]
    one = pairs[pairs["query"] == "q001"]
    assert row["text"] == "some text" and row["documents"] == len(one)
    assert row["exact agreement"] == pytest.approx(np.mean(one["relevance"] == one["score"]))
    assert row["quadratic"] == pytest.approx(cohen_kappa_score(
        one["relevance"], one["score"].astype(int), weights="quadratic"), abs=1e-12)
    assert view.lowest_query(table) == table.loc[table["quadratic"].idxmin(), "query"]
    kappa = view.kappa_table(agreement).set_index("run")["quadratic"].drop(run)
    assert view.best_partner(agreement, run) == kappa.idxmax()
    only = judge_agreement({run: runs[run]}, qrels)
    assert view.best_partner(only, run) is None


def test_confusion_grid_counts_and_shares(simulated):
    qrels, runs = simulated
    labels, _ = view.split_label_runs(runs)
    run = labels[-1]
    agreement = judge_agreement({run: runs[run]}, qrels)
    pairs = _pairs(runs[run], qrels)
    counts = view.confusion_grid(agreement, run)
    np.testing.assert_array_equal(counts.to_numpy(), confusion_matrix(pairs["relevance"],
                                                                       pairs["score"].astype(int)))
    share = view.confusion_grid(agreement, run, share=True)
    rows = share.sum(axis=1)
    assert np.allclose(rows[counts.sum(axis=1) > 0], 1.0)


def test_a_run_judging_nothing_has_an_empty_grid():
    qrels = read_qrels(b"q1 0 a 1\n")
    elsewhere = pd.DataFrame({"query": "q9", "doc": ["x"], "score": [1.0]})
    agreement = judge_agreement({"elsewhere": elsewhere}, qrels)
    assert view.confusion_grid(agreement, "elsewhere").empty
    assert view.query_table(agreement, "elsewhere").empty
    assert np.isnan(view.kappa_table(agreement)["exact agreement"].item())
