"""System rankings per policy with Kendall's tau, and two runs' rank correlation, against scipy."""
from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy import stats
from stats_support import qrels_of, tie_table

from tiedrank import stats as S
from tiedrank.core.data import Run
from tiedrank.evaluation import evaluate


def test_policy_rankings_and_kendall_tau(flip_case):
    run_a, run_b, qrels = flip_case
    # C: RR 1/2 and 1/3, mean 5/12 under every policy; A: 3/4 expected, 1/2 trec_eval; B: 2/3
    run_c = Run("C", pd.DataFrame([("q1", "y", 1.0), ("q1", "a", 0.5), ("q2", "y", 1.0),
                                   ("q2", "w", 0.9), ("q2", "a", 0.5)],
                                  columns=["query", "doc", "score"]))
    ev = evaluate({"A": run_a, "B": run_b, "C": run_c}, qrels, ["RR"], ties="all")
    ranking = S.policy_rankings(ev, "RR").set_index("run")
    assert ranking["rank_expected"].to_dict() == {"A": 1, "B": 2, "C": 3}
    assert ranking["rank_trec_eval"].to_dict() == {"A": 2, "B": 1, "C": 3}
    means = ev.summary[ev.summary.metric == "RR"].pivot(index="run", columns="policy", values="value")
    assert ranking.loc["A", "trec_eval"] == pytest.approx(means.loc["A", "trec_eval"])
    agreement = S.ranking_agreement(ev, "RR").set_index(["policy_a", "policy_b"])
    expected = stats.kendalltau(ranking["expected"], ranking["trec_eval"], variant="b")
    assert agreement.loc[("expected", "trec_eval"), "kendall_tau"] == pytest.approx(expected.statistic)
    assert agreement.loc[("expected", "trec_eval"), "kendall_tau"] == pytest.approx(1 / 3)
    assert agreement.loc[("expected", "best"), "kendall_tau"] == pytest.approx(1.0)
    assert len(agreement) == 6


def test_rank_correlation_matches_scipy_with_ties():
    a = pd.DataFrame({"query": ["q1"] * 6 + ["q2"] * 4 + ["q3"],
                      "doc": list("abcdef") + list("wxyz") + ["s"],
                      "score": [3, 3, 2, 2, 2, 1, 0.5, 0.4, 0.4, 0.1, 1.0]})
    b = pd.DataFrame({"query": ["q1"] * 5 + ["q2"] * 4 + ["q3"],
                      "doc": list("abcdg") + list("zyxw") + ["s"],  # e, f only in a; g only in b
                      "score": [1, 2, 2, 3, 3, 0.2, 0.2, 0.2, 0.9, 5.0]})
    result = S.rank_correlation(Run("A", a), b)
    per_query = result.per_query.set_index("query")
    x1, y1 = [3, 3, 2, 2], [1, 2, 2, 3]  # common documents a, b, c, d in a's doc order
    assert per_query.loc["q1", "n_common"] == 4
    assert per_query.loc["q1", "kendall_tau_b"] == pytest.approx(stats.kendalltau(x1, y1, variant="b").statistic)
    assert per_query.loc["q1", "spearman"] == pytest.approx(stats.spearmanr(x1, y1).statistic)
    x2, y2 = [0.5, 0.4, 0.4, 0.1], [0.9, 0.2, 0.2, 0.2]  # w x y z
    assert per_query.loc["q2", "kendall_tau_b"] == pytest.approx(stats.kendalltau(x2, y2, variant="b").statistic)
    assert math.isnan(per_query.loc["q3", "kendall_tau_b"])  # one common document
    summary = result.summary.set_index("statistic")
    taus = per_query["kendall_tau_b"].dropna()
    assert summary.loc["kendall_tau_b", "mean"] == pytest.approx(taus.mean())
    assert summary.loc["kendall_tau_b", "median"] == pytest.approx(taus.median())
    assert summary.loc["kendall_tau_b", "n_undefined"] == 1


def test_rank_correlation_accepts_tie_tables():
    qrels = qrels_of([("q", "a", 1)])
    rows = [("q", "a", 2.0), ("q", "b", 1.0), ("q", "c", 1.0)]
    table = tie_table("A", rows, qrels)
    other = pd.DataFrame(rows, columns=["query", "doc", "score"])
    result = S.rank_correlation(table, other)
    assert result.per_query["kendall_tau_b"].item() == pytest.approx(1.0)
