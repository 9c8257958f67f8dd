"""The checkpoint curve (issue 31): checkpoints of a simulated training run (a reranker whose
quality rises by step on a coarse 5-level scale), against the evaluation's own summary, an
interval overlap written out here and scipy's paired t-test between consecutive steps."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from tiedrank import evaluate
from tiedrank.simulate import RerankerSpec, make_queries, simulate_run
from tiedrank.stats import checkpoint_curve, checkpoint_steps

QUALITY = {"splade-epoch10": 2.5, "splade-epoch2": 1.0, "splade-epoch1": 0.5, "splade-epoch3": 1.1}


@pytest.fixture(scope="module")
def evaluation():
    qrels = make_queries(30, 25, seed=4)
    runs = {name: simulate_run(qrels, RerankerSpec(name=name, quality=q, levels=5), seed=i)
            for i, (name, q) in enumerate(QUALITY.items())}
    return evaluate(runs, qrels, ["RR", "nDCG@10"], ties="all")


def test_curve_against_summary_overlap_and_scipy(evaluation):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        curve = checkpoint_curve(evaluation)
    assert curve["run"].tolist()[:4] == ["splade-epoch1", "splade-epoch2", "splade-epoch3",
                                        "splade-epoch10"]
    summary = evaluation.summary.astype({"run": str, "metric": str, "policy": str})
    value = summary.set_index(["run", "metric", "policy"])["value"]
    per_query = evaluation.per_query.astype({"run": str, "metric": str, "policy": str})
    for metric, block in curve.groupby("metric", sort=False):
        expected = per_query[(per_query["metric"] == metric) & (per_query["policy"] == "expected")]
        matrix = expected.pivot(index="query", columns="run", values="value")
        rows = block.to_dict("records")
        for prev, row in zip([None, *rows], rows):
            for column, policy in (("expected", "expected"), ("worst", "worst"),
                                   ("best", "best"), ("trec_eval", "trec_eval")):
                assert row[column] == value[(row["run"], metric, policy)]
            if prev is None:
                assert pd.isna(row["previous"]) and np.isnan(row["p_value_previous"])
                continue
            overlap = not (row["worst"] > prev["best"] or prev["worst"] > row["best"])
            assert row["overlaps_previous"] == overlap
            p = scipy_stats.ttest_rel(matrix[row["run"]], matrix[prev["run"]]).pvalue
            assert row["p_value_previous"] == pytest.approx(p, rel=1e-10)
            assert row["significant_previous"] == (p <= 0.05)
    # the coarse scale: some consecutive checkpoints cannot be told apart under ties, others can
    later = curve[curve["previous"].notna()]
    assert later["overlaps_previous"].any() and not later["overlaps_previous"].all()


def test_steps_from_names_or_given():
    assert checkpoint_steps(["m-step2000.run", "m-step500.run"]) == {"m-step2000.run": 2000.0,
                                                                    "m-step500.run": 500.0}
    with pytest.raises(ValueError, match="no step number in the run name.*'final'.*steps="):
        checkpoint_steps(["m-1", "final"])
    with pytest.raises(ValueError, match="same step 3"):
        checkpoint_steps(["a-3", "b-3"])


def test_given_steps_order_the_curve(evaluation):
    steps = {"splade-epoch10": 0, "splade-epoch1": 1, "splade-epoch2": 2, "splade-epoch3": 3}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        curve = checkpoint_curve(evaluation, ["RR"], steps=steps)
    assert curve["run"].tolist() == list(steps)
    with pytest.raises(ValueError, match="no step for run"):
        checkpoint_curve(evaluation, ["RR"], steps={"splade-epoch1": 1})
