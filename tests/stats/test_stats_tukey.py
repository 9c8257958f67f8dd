"""Tukey's HSD in ``compare_runs(test="tukey")`` (ranx's ``stat_test="tukey"``): the
p-values of scipy's ``tukey_hsd`` (and statsmodels' ``pairwise_tukeyhsd`` where installed)
on the same per-query values, each run a group; no second correction; the report grid's
letters follow its verdicts."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tiedrank.stats import compare_runs, paired_test


def _frame(values: dict[str, np.ndarray]) -> pd.DataFrame:
    return pd.concat([pd.DataFrame({"run": run, "query": [f"q{i}" for i in range(len(v))],
                                    "metric": "AP", "policy": "expected", "value": v})
                      for run, v in values.items()], ignore_index=True)


RNG = np.random.default_rng(7)
VALUES = {"a": RNG.beta(2, 5, 40), "b": RNG.beta(2, 3, 40), "c": RNG.beta(2, 5, 40) + 0.02,
          "d": RNG.beta(3, 2, 40)}


@pytest.mark.parametrize("pairs", ["baseline", "all"])
def test_the_p_values_are_scipys_tukey_hsd(pairs):
    comparison = compare_runs(_frame(VALUES), test="tukey", pairs=pairs, correction="holm",
                              intervals=False)
    oracle = stats.tukey_hsd(*VALUES.values()).pvalue
    index = {run: i for i, run in enumerate(VALUES)}
    assert len(comparison.pairs) == (3 if pairs == "baseline" else 6)
    for row in comparison.pairs.itertuples():
        expected = oracle[index[row.run_a], index[row.run_b]]
        assert row.p_value == pytest.approx(expected, rel=1e-12)
        assert row.p_corrected == row.p_value  # adjusted over every pair already
        assert row.significant == (expected <= 0.05)


def test_the_p_values_are_statsmodels_pairwise_tukeyhsd():
    multicomp = pytest.importorskip("statsmodels.stats.multicomp")
    frame = _frame(VALUES)
    result = multicomp.pairwise_tukeyhsd(frame["value"], frame["run"])
    oracle = {tuple(sorted(pair)): p for pair, p in zip(
        itertools.combinations(result.groupsunique, 2), result.pvalues)}
    comparison = compare_runs(frame, test="tukey", pairs="all", intervals=False)
    for row in comparison.pairs.itertuples():
        assert row.p_value == pytest.approx(oracle[tuple(sorted((row.run_a, row.run_b)))], abs=1e-3)


def test_two_runs_alone_and_queries_one_run_lacks():
    two = {"a": VALUES["a"], "b": VALUES["b"]}
    statistic, p = paired_test(two["a"], two["b"], "tukey")
    assert p == pytest.approx(stats.tukey_hsd(*two.values()).pvalue[0, 1])
    assert statistic == pytest.approx(np.mean(two["a"]) - np.mean(two["b"]))
    frame = _frame(VALUES)
    lacking = frame[~((frame["run"] == "c") & (frame["query"] == "q0"))]
    comparison = compare_runs(lacking, test="tukey", pairs="all", intervals=False)
    complete = {run: v[1:] for run, v in VALUES.items()}  # the queries every run has
    oracle = stats.tukey_hsd(*complete.values()).pvalue
    row = comparison.pairs.query("run_a == 'a' and run_b == 'b'").iloc[0]
    assert row.p_value == pytest.approx(oracle[0, 1], rel=1e-12)


def test_constant_values_give_nan_not_an_error():
    flat = {"a": np.full(5, 0.5), "b": np.full(5, 0.5)}
    comparison = compare_runs(_frame(flat), test="tukey", intervals=False)
    assert np.isnan(comparison.pairs["p_value"]).all()
    assert not comparison.pairs["significant"].any()


def test_the_report_grid_letters_follow_tukey():
    from tiedrank.report import build_report  # noqa: F401  (the grid reads compare_runs)

    comparison = compare_runs(_frame(VALUES), test="tukey", pairs="all", intervals=False)
    beats = {row.run: row.marker for row in comparison.table.itertuples()}
    significant = comparison.pairs[comparison.pairs["significant"]]
    for row in significant.itertuples():
        winner, loser = (row.run_a, row.run_b) if row.mean_diff > 0 else (row.run_b, row.run_a)
        assert comparison.keys[loser] in beats[winner]
