"""Verdict stability: the tie-breaking sampler against exact enumeration, the verdicts under
each policy on a case built to flip, and the exact laws against literal enumeration."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from stats_support import qrels_of, tie_table

from tiedrank import stats as S
from tiedrank.evaluation import evaluate
from tiedrank.metrics import metric_values
from tiedrank.sampling import enumerate_orderings
from tiedrank.sampling.enumeration import ordering_table, query_orderings


@pytest.mark.parametrize("metric", ["RR", "P@2", "nDCG@3", "AP", "Success@1"])
def test_sampler_matches_exact_enumeration(tiny_tables, metric):
    a, b = tiny_tables
    exact = S.exact_win_probability(a, b, metric)
    est = S.win_probability(a, b, metric, n_draws=4000, seed=2, method="sampled")
    assert est.method == "sampled"
    assert 0 <= exact <= 1
    assert abs(est.probability - exact) <= 4 * max(est.standard_error, 1 / 4000)
    assert est.standard_error == pytest.approx(math.sqrt(est.probability * (1 - est.probability) / 4000))


def test_exact_distribution_means_equal_expected_metric(tiny_tables):
    a, _ = tiny_tables
    for metric in ("RR", "P@2", "nDCG@3", "AP", "R@2"):
        law = S.run_mean_distribution(a, metric)
        assert law["probability"].sum() == pytest.approx(1.0)
        expected = metric_values(a, metric)[a.n_relevant > 0].mean()
        assert (law["value"] * law["probability"]).sum() == pytest.approx(expected, abs=1e-12)


def test_exact_distribution_is_joint_enumeration(tiny_tables):
    """The convolution equals the literal enumeration of every joint ordering of all queries."""
    a, _ = tiny_tables
    per_query = []
    for q in range(a.n_queries):  # the value of every ordering of each query
        orderings = query_orderings(a, q, 1000)
        per_query.append(metric_values(ordering_table(a, q, orderings), "RR"))
    means = [np.mean(combo) for combo in itertools.product(*per_query)]
    values, counts = np.unique(np.round(means, 12), return_counts=True)
    law = S.run_mean_distribution(a, "RR")
    assert law["value"].to_numpy() == pytest.approx(values)
    assert law["probability"].to_numpy() == pytest.approx(counts / counts.sum())


def test_query_distribution_agrees_with_spread_enumerator():
    qrels = qrels_of([("q", "b", 1), ("q", "d", 2)])
    table = tie_table("R", [("q", "a", 0.9), ("q", "b", 0.8), ("q", "c", 0.8), ("q", "d", 0.8),
                         ("q", "e", 0.1)], qrels)
    ours = S.query_value_distribution(table, "RR", "q")
    theirs = enumerate_orderings([0.9, 0.8, 0.8, 0.8, 0.1], [0, 1, 0, 2, 0], "RR")["RR"]
    values, counts = np.unique(theirs.round(12), return_counts=True)
    assert ours["value"].to_numpy() == pytest.approx(values)
    assert ours["probability"].to_numpy() == pytest.approx(counts / counts.sum())


def test_win_probability_seeding(tiny_tables):
    a, b = tiny_tables
    first = S.win_probability(a, b, "RR", n_draws=500, seed=9)
    assert S.win_probability(a, b, "RR", n_draws=500, seed=9) == first
    # a run against itself: the two tie-breaks are independent draws, not shared ones
    self_cmp = S.win_probability(a, a, "RR", n_draws=2000, seed=9)
    assert self_cmp.p_equal < 1 and abs(self_cmp.probability - 0.5) < 4 * self_cmp.standard_error


def test_exact_enumeration_refuses_large_groups():
    qrels = qrels_of([("q", "d0", 1)])
    table = tie_table("R", [("q", f"d{i}", 1.0) for i in range(9)], qrels)
    with pytest.raises(ValueError, match="above the limit"):
        S.exact_win_probability(table, table, "RR")


def test_flip_case_verdicts(flip_case):
    run_a, run_b, qrels = flip_case
    ev = evaluate({"A": run_a, "B": run_b}, qrels, ["RR"], ties="all")
    verdicts = S.policy_verdicts(ev, "A", "B", "RR").set_index("policy")
    assert verdicts["winner"].to_dict() == {"expected": "A", "best": "A",
                                            "worst": "B", "trec_eval": "B"}
    assert verdicts.loc["trec_eval", "diff"] == pytest.approx(0.5 - 2 / 3)
    assert verdicts["agrees"].tolist() == [True, True, False, False]
    # A's mean is 1, 3/4, 1/2 w.p. 1/4, 1/2, 1/4 against B's 2/3: P(A beats B) = 3/4
    assert S.exact_win_probability(ev.tables["A"], ev.tables["B"], "RR") == pytest.approx(0.75)
    stab = S.verdict_stability(ev, "B", n_draws=2000, seed=4)
    row = stab.iloc[0]
    assert row["run"] == "A" and row["baseline"] == "B"
    assert [row[p] for p in ("expected", "best", "worst", "trec_eval")] == \
        ["win", "win", "loss", "loss"]
    assert not row["same_verdict"] and not row["significance_survives"]
    assert abs(row["p_win"] - 0.75) <= 4 * row["se"]
    # the row is exactly win_probability(run, baseline) with the same seed
    assert row["p_win"] == S.win_probability(ev.tables["A"], ev.tables["B"], "RR",
                                             n_draws=2000, seed=4).probability


def test_pair_stability_is_the_row_of_verdict_stability(flip_case):
    run_a, run_b, qrels = flip_case
    ev = evaluate({"A": run_a, "B": run_b}, qrels, ["RR"], ties="all")
    result = S.pair_stability(ev, "A", "B", "RR", n_draws=1500, seed=6)
    row = S.verdict_stability(ev, "B", n_draws=1500, seed=6).iloc[0]
    assert (result.p_win, result.se) == (row["p_win"], row["se"])
    assert result.p_win == S.win_probability(ev.tables["A"], ev.tables["B"], "RR",
                                             n_draws=1500, seed=6).probability
    assert {p: result.verdict(p) for p in ("expected", "trec_eval")} == {"expected": "win",
                                                                          "trec_eval": "loss"}
    assert result.same_verdict == row["same_verdict"] and not result.significance_survives
    # the draws are A's and B's means: B's RR is 2/3 whatever the tie-break, A's is 1/2, 3/4 or 1
    assert np.allclose(result.draws["baseline"], 2 / 3)
    assert set(np.round(result.draws["run"], 12)) <= {0.5, 0.75, 1.0}
    assert result.p_win == pytest.approx(np.mean(np.sign(result.draws["diff"]) + 1) / 2)
    with pytest.raises(ValueError, match="must differ"):
        S.pair_stability(ev, "A", "A", "RR")
    with pytest.raises(ValueError, match="run 'X' not found"):
        S.pair_stability(ev, "X", "B", "RR")


@pytest.mark.parametrize("metric", ["P@2", "Success@1", "P@1", "R@2", "Rprec"])
def test_exact_win_probability_is_joint_enumeration(tiny_tables, metric):
    """method="auto" on lattice metrics: the exact number, equal to the enumeration of every
    joint ordering of both runs (tiedrank.stats.exact), no standard error."""
    a, b = tiny_tables
    result = S.win_probability(a, b, metric, n_draws=10, seed=1)
    assert result.method == "exact" and result.standard_error == 0.0
    assert result.probability == pytest.approx(S.exact_win_probability(a, b, metric), abs=1e-12)


@pytest.mark.parametrize("metric", ["RR", "AP", "nDCG@3"])
def test_non_lattice_metrics_are_sampled(tiny_tables, metric):
    a, b = tiny_tables
    assert S.win_probability(a, b, metric, n_draws=50).method == "sampled"
    with pytest.raises(ValueError):
        S.win_probability(a, b, metric, n_draws=50, method="exact")


def _large_pair(n_queries=400, depth=12, seed=3):
    """Two runs with one-decimal scores (many ties) over the same graded qrels."""
    import pandas as pd

    from tiedrank.core.data import Qrels, Run
    rng = np.random.default_rng(seed)
    query = np.repeat([f"q{i}" for i in range(n_queries)], depth)
    doc = [f"d{i}" for i in range(depth)] * n_queries
    grade = np.where(rng.random(len(query)) < 0.3, rng.integers(1, 3, len(query)), 0)
    qrels = Qrels(pd.DataFrame({"query": query, "doc": doc, "relevance": grade}))
    runs = {}
    for name, lift in (("A", 0.1), ("B", 0.09)):
        score = np.round(np.clip(0.4 + lift * grade + rng.normal(0, 0.25, len(query)), 0, 1), 1)
        runs[name] = Run(name, pd.DataFrame({"query": query, "doc": doc, "score": score}))
    return evaluate(runs, qrels, ["P@5", "Success@1", "RR", "AP"], ties="all")


def test_exact_agrees_with_sampler_and_normal_on_a_large_case():
    ev = _large_pair()
    a, b = ev.tables["A"], ev.tables["B"]
    for metric in ("P@5", "Success@1"):
        exact = S.win_probability(a, b, metric)
        sampled = S.win_probability(a, b, metric, n_draws=4000, seed=5, method="sampled")
        assert exact.method == "exact" and sampled.method == "sampled"
        assert abs(sampled.probability - exact.probability) <= 4 * max(sampled.standard_error, 1e-3)
    stab = S.verdict_stability(ev, "B", n_draws=3000, seed=2).set_index("metric")
    assert stab["method"].to_dict() == {"P@5": "exact", "Success@1": "exact", "RR": "sampled",
                                        "AP": "sampled"}
    # the normal approximation with exact moments is close to the exact / sampled number
    assert (abs(stab["p_normal"] - stab["p_win"]) <= 0.05).all()
    # the exact SD of the run mean against the SD of the sampler's draws
    for metric in ("RR", "AP", "P@5"):
        draws = S.pair_stability(ev, "A", "B", metric, n_draws=3000, seed=8)
        assert draws.sd_run == pytest.approx(float(draws.draws["run"].std()), rel=0.1)
        assert draws.sd_baseline == pytest.approx(stab.loc[metric, "sd_baseline"])
        assert draws.p_win == pytest.approx(stab.loc[metric, "p_win"]) or metric in ("RR", "AP")


def test_win_probabilities_draw_each_run_once_with_the_numbers_of_each_pair(tiny_tables, monkeypatch):
    """Every pair of three runs, one of which misses a query (so one pair means over fewer
    queries): the numbers of win_probability pair by pair, bit for bit, from at most two
    sets of draws per run and mask, and within sampling error of exact enumeration."""
    from tiedrank.stats import stability

    a, b = tiny_tables
    qrels = qrels_of([("q1", "a", 2), ("q1", "b", 1), ("q2", "c", 1), ("q2", "x", 1),
                      ("q3", "e", 3), ("q3", "f", 0)])
    c = tie_table("C", [("q1", "b", 0.3), ("q1", "a", 0.3), ("q3", "e", 0.1), ("q3", "f", 0.1)], qrels)
    tables = {"A": a, "B": b, "C": c}
    metrics = ["RR", "AP", "P@2"]
    calls = []
    real = stability._draw_means
    monkeypatch.setattr(stability, "_draw_means",
                        lambda table, *args, **kw: calls.append(table.run_name) or real(table, *args, **kw))
    found = S.win_probabilities(tables, metrics, n_draws=3000, seed=4)
    assert [(w.run_a, w.run_b, w.metric) for w in found] == [
        (x, y, m) for x, y in itertools.combinations("ABC", 2) for m in metrics]
    assert len(calls) < 2 * 3 * 2  # pairwise calls would draw 3 pairs x 2 runs x 2 sampled metrics
    monkeypatch.setattr(stability, "_draw_means", real)
    for w in found:
        single = S.win_probability(tables[w.run_a], tables[w.run_b], w.metric, n_draws=3000, seed=4)
        assert w == single
        exact = S.exact_win_probability(tables[w.run_a], tables[w.run_b], w.metric)
        assert abs(w.probability - exact) <= 4 * max(w.standard_error, 1 / 3000)


def test_a_metric_without_sampler_keeps_its_verdicts_and_says_none(flip_case):
    """gm_map has no random tie-break sampler: no made-up P(win) (NaN, method "none"), the
    verdicts under the fixed policies still computed, on the geometric means."""
    run_a, run_b, qrels = flip_case
    ev = evaluate({"A": run_a, "B": run_b}, qrels, ["gm_map", "RR"], ties="all")
    result = S.pair_stability(ev, "A", "B", "gm_map", n_draws=50)
    assert result.method == "none" and math.isnan(result.p_win) and result.draws.empty
    summary = ev.summary.set_index(["run", "metric", "policy"])["value"]
    for row in result.verdicts.itertuples(index=False):
        assert row.run == summary[("A", "gm_map", row.policy)]
        assert row.baseline == summary[("B", "gm_map", row.policy)]
    table = S.verdict_stability(ev, "B", n_draws=50).set_index("metric")
    assert table.loc["gm_map", "method"] == "none" and table.loc["RR", "method"] == "sampled"
