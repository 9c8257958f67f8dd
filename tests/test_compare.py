"""Tests of tiedrank.compare and tiedrank.cli_compare.

Statistics are checked against scipy called directly on the same vectors (so passing the
wrong arrays, the wrong order or the wrong alternative fails), corrections against
hand-computed examples, and the tie-breaking sampler against exact enumeration.
"""
from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tiedrank import compare as C
from tiedrank.cli_compare import main as compare_main
from tiedrank.data import Qrels, Run
from tiedrank.errors import InputError
from tiedrank.evaluate import evaluate
from tiedrank.metrics import metric_values
from tiedrank.report import render
from tiedrank.spread import enumerate_orderings
from tiedrank.ties import build_tie_table

ROOT = Path(__file__).resolve().parents[1]
LLMJUDGE = next((p for p in (ROOT / "sample_data" / "llmjudge", Path("/work/shared/data/llmjudge"))
                 if (p / "qrels.test.txt").exists()), ROOT / "sample_data" / "llmjudge")


# ---- fixtures ----------------------------------------------------------------------------
@pytest.fixture
def vectors():
    """Two paired vectors with a real, not overwhelming, difference and tied |d| values."""
    rng = np.random.default_rng(42)
    a = rng.random(30).round(2)
    b = np.clip(a - 0.05 + rng.normal(0, 0.15, 30), 0, 1).round(2)
    return a, b


def _per_query(values: dict[str, dict[str, float]], metric="RR", policy="expected") -> pd.DataFrame:
    rows = [(run, q, metric, policy, v) for run, qs in values.items() for q, v in qs.items()]
    return pd.DataFrame(rows, columns=["run", "query", "metric", "policy", "value"])


@pytest.fixture
def three_runs():
    """A clearly above B above C on RR; C misses query q29; a second metric P@5."""
    rng = np.random.default_rng(7)
    queries = [f"q{i}" for i in range(30)]
    base = rng.random(30)
    runs = {"A": base + 0.30, "B": base + 0.10 + rng.normal(0, 0.05, 30),
            "C": base + rng.normal(0, 0.05, 30)}
    frames = []
    for metric, shift in (("RR", 0.0), ("P@5", 0.01)):
        values = {name: dict(zip(queries, v + shift)) for name, v in runs.items()}
        del values["C"]["q29"]
        frames.append(_per_query(values, metric))
    return pd.concat(frames, ignore_index=True)


def _table(name: str, rows: list[tuple[str, str, float]], qrels: Qrels):
    run = Run(name, pd.DataFrame(rows, columns=["query", "doc", "score"]))
    return build_tie_table(run, qrels)


def _qrels(rows: list[tuple[str, str, int]]) -> Qrels:
    return Qrels(pd.DataFrame(rows, columns=["query", "doc", "relevance"]))


@pytest.fixture
def flip_case():
    """A wins under expected/optimistic, loses under trec_eval/pessimistic.

    A ties the relevant doc "a" with "z" on both queries: RR 1 or 1/2, expected 3/4, and
    trec_eval (docno descending) puts "z" first: 1/2. B: RR 1 and 1/3, mean 2/3 whatever
    the tie-break.
    """
    qrels = _qrels([("q1", "a", 1), ("q2", "a", 1)])
    run_a = Run("A", pd.DataFrame([("q1", "a", 1.0), ("q1", "z", 1.0), ("q2", "a", 1.0),
                                   ("q2", "z", 1.0)], columns=["query", "doc", "score"]))
    run_b = Run("B", pd.DataFrame([("q1", "a", 1.0), ("q1", "b", 0.5), ("q2", "c", 0.9),
                                   ("q2", "d", 0.8), ("q2", "a", 0.7)],
                                  columns=["query", "doc", "score"]))
    return run_a, run_b, qrels


# ==== 1. paired tests against scipy ==========================================================
def test_t_test_matches_scipy(vectors):
    a, b = vectors
    expected = stats.ttest_rel(a, b)
    assert C.t_test(a, b) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    # orientation: the statistic is for a - b, so swapping flips its sign only
    swapped = C.t_test(b, a)
    assert swapped[0] == pytest.approx(-expected.statistic) and swapped[1] == pytest.approx(expected.pvalue)


def test_wilcoxon_matches_scipy(vectors):
    a, b = vectors
    expected = stats.wilcoxon(a, b, alternative="two-sided")
    assert C.wilcoxon_test(a, b) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    # a one-sided call would differ: guards against the wrong alternative
    assert C.wilcoxon_test(a, b)[1] != pytest.approx(stats.wilcoxon(a, b, alternative="greater").pvalue)


def test_randomization_matches_scipy_and_is_reproducible(vectors):
    a, b = vectors
    ours = C.randomization_test(a, b, seed=11, n_resamples=4999)
    expected = stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
        vectorized=True, n_resamples=4999, alternative="two-sided", rng=np.random.default_rng(11))
    assert ours == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    assert ours[0] == pytest.approx(np.mean(a - b))
    assert C.randomization_test(a, b, seed=11, n_resamples=4999) == ours  # same seed, same p
    # 2^30 sign patterns >> 4999: the draw is random and the seed is really used
    ps = {C.randomization_test(a, b, seed=s, n_resamples=4999)[1] for s in range(5)}
    assert len(ps) > 1


def test_randomization_small_n_is_exact_enumeration():
    a = np.array([0.9, 0.7, 0.8, 0.6, 0.5])
    b = np.array([0.5, 0.6, 0.3, 0.65, 0.2])
    d = a - b
    observed = abs(d.mean())
    flips = np.array(list(itertools.product([1, -1], repeat=5)))
    exact = np.mean(np.abs((flips * d).mean(axis=1)) >= observed - 1e-12)  # hand enumeration
    assert C.randomization_test(a, b, seed=0)[1] == pytest.approx(exact)
    assert C.randomization_test(a, b, seed=123)[1] == pytest.approx(exact)  # seed irrelevant


def test_bootstrap_ci_matches_scipy_and_is_reproducible(vectors):
    a, b = vectors
    ours = C.bootstrap_ci(a, b, seed=5, n_resamples=2999)
    expected = stats.bootstrap((a - b,), np.mean, n_resamples=2999, confidence_level=0.95,
                               method="BCa", rng=np.random.default_rng(5)).confidence_interval
    assert ours == pytest.approx((expected.low, expected.high), rel=1e-12)
    assert ours[0] < np.mean(a - b) < ours[1]
    assert C.bootstrap_ci(a, b, seed=5, n_resamples=2999) == ours


def test_cohens_d_is_paired_t_over_sqrt_n(vectors):
    a, b = vectors
    # d_z = mean(d)/sd(d) = t / sqrt(n) for the paired t statistic
    assert C.cohens_d(a, b) == pytest.approx(stats.ttest_rel(a, b).statistic / math.sqrt(len(a)))
    assert C.cohens_d(a, b) == pytest.approx(np.mean(a - b) / np.std(a - b, ddof=1))


def test_mann_whitney_matches_scipy():
    rng = np.random.default_rng(3)
    x, y = rng.random(12), rng.random(17) + 0.2
    expected = stats.mannwhitneyu(x, y, alternative="two-sided")
    assert C.mann_whitney(x, y) == pytest.approx((expected.statistic, expected.pvalue))
    assert C.mann_whitney(y, x)[0] == pytest.approx(len(x) * len(y) - expected.statistic)


def test_degenerate_conventions():
    a = np.array([0.5, 0.25, 1.0])
    for test in C.TESTS:
        assert C.paired_test(a, a, test) == (0.0, 1.0)
    assert C.cohens_d(a, a) == 0.0
    assert C.bootstrap_ci(a, a) == (0.0, 0.0)
    assert C.bootstrap_ci(a + 0.25, a) == (0.25, 0.25)
    assert all(math.isnan(v) for v in C.t_test([1.0], [0.0]))
    with pytest.raises(ValueError):
        C.t_test([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="unknown test"):
        C.paired_test(a, a, "z")


def test_pairing_is_inner_join_on_query_ids(three_runs):
    pairs = C.paired_values(three_runs, "A", "C", "RR")
    assert len(pairs.queries) == 29 and pairs.only_a == ("q29",) and pairs.only_b == ()
    # the values are matched by query id, not by row position
    frame = three_runs[three_runs.metric == "RR"]
    a = frame[frame.run == "A"].set_index("query")["value"]
    c = frame[frame.run == "C"].set_index("query")["value"]
    common = c.index
    expected = stats.ttest_rel(a[common], c[common])
    result = C.compare_pair(three_runs.sample(frac=1, random_state=0), "A", "C", "RR")
    assert (result.statistic, result.p_value) == pytest.approx((expected.statistic, expected.pvalue))
    assert result.n_queries == 29 and result.only_a == ("q29",)
    assert result.mean_diff == pytest.approx((a[common] - c[common]).mean())
    assert result.ci_low < result.mean_diff < result.ci_high


def test_compare_pair_accepts_evaluation_policy_and_metric_alias(flip_case):
    run_a, run_b, qrels = flip_case
    ev = evaluate({"A": run_a, "B": run_b}, qrels, ["RR", "nDCG@3"], ties="all")
    result = C.compare_pair(ev, "A", "B", "ndcg@3", policy="trec_eval", test="wilcoxon")
    assert result.metric == "nDCG@3" and result.policy == "trec_eval"
    with pytest.raises(ValueError, match="not evaluated"):
        C.compare_pair(ev, "A", "B", "RR", policy="input")
    with pytest.raises(ValueError, match="not found"):
        C.compare_pair(ev, "A", "X", "RR")


# ==== 2. corrections ==========================================================================
P_EXAMPLE = [0.01, 0.04, 0.03, 0.005]


def test_holm_hand_checked_with_monotonicity():
    # sorted .005 .01 .03 .04 -> x4 .02, x3 .03, x2 .06, x1 .04 -> running max .06
    assert C.holm(P_EXAMPLE) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # a p-value pushed above 1 is capped; ties keep equal adjusted values
    assert C.holm([0.3, 0.3, 0.6]) == pytest.approx([0.9, 0.9, 0.9])
    assert C.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_holm_matches_sequential_procedure():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = rng.random(rng.integers(1, 12)) ** 3
        alpha = 0.05
        order = np.argsort(p)
        reject = np.zeros(len(p), dtype=bool)
        for i, j in enumerate(order):  # textbook step-down: stop at the first acceptance
            if p[j] <= alpha / (len(p) - i):
                reject[j] = True
            else:
                break
        adjusted = C.holm(p)
        assert np.array_equal(adjusted <= alpha, reject)
        assert np.all(np.diff(adjusted[order]) >= 0) and np.all(adjusted >= p)


def test_bonferroni_and_bh_hand_checked():
    assert C.bonferroni(P_EXAMPLE) == pytest.approx([0.04, 0.16, 0.12, 0.02])
    # sorted .005 .01 .03 .04: x4/1 .02, x4/2 .02, x4/3 .04, x4/4 .04 (then running min)
    assert C.benjamini_hochberg(P_EXAMPLE) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert C.benjamini_hochberg([0.01, 0.02, 0.9]) == pytest.approx([0.03, 0.03, 0.9])


def test_bh_matches_scipy_false_discovery_control():
    rng = np.random.default_rng(1)
    for size in (1, 2, 7, 50):
        p = rng.random(size) ** 2
        assert C.benjamini_hochberg(p) == pytest.approx(stats.false_discovery_control(p, method="bh"))


def test_corrections_ignore_nan():
    p = [0.01, np.nan, 0.04]
    for method in ("holm", "bonferroni", "bh"):
        adjusted = C.correct_pvalues(p, method)
        assert math.isnan(adjusted[1])
        assert adjusted[[0, 2]] == pytest.approx(C.correct_pvalues([0.01, 0.04], method))
    with pytest.raises(ValueError):
        C.correct_pvalues([1.5], "holm")
    with pytest.raises(ValueError, match="unknown correction"):
        C.correct_pvalues([0.1], "sidak")


def test_compare_runs_against_baseline(three_runs):
    cmp = C.compare_runs(three_runs, baseline="C", test="t", correction="holm")
    table = cmp.table
    assert list(table.columns) == ["run", "key", "metric", "mean", "diff", "p_value",
                                   "p_corrected", "significant", "effect_size", "n_queries", "marker"]
    assert cmp.keys == {"C": "a", "A": "b", "B": "c"}
    rr = table[table.metric == "RR"].set_index("run")
    assert rr.loc["C", "diff"] == 0 and math.isnan(rr.loc["C", "p_value"])
    for run in ("A", "B"):
        expected = C.compare_pair(three_runs, run, "C", "RR")
        assert rr.loc[run, "p_value"] == pytest.approx(expected.p_value)
        assert rr.loc[run, "diff"] == pytest.approx(expected.mean_diff)
    # the family is the metric's two tests
    assert rr.loc[["A", "B"], "p_corrected"].to_numpy() == pytest.approx(
        C.holm(rr.loc[["A", "B"], "p_value"].to_numpy()))
    assert rr.loc["A", "marker"] == "a" and rr.loc["B", "marker"] == "a" and rr.loc["C", "marker"] == ""
    assert rr.loc["A", "mean"] == pytest.approx(
        three_runs.query("run == 'A' and metric == 'RR'")["value"].mean())
    assert len(cmp.pairs) == 4 and {f.kind for f in cmp.findings} == {"queries_dropped_by_pairing"}


def test_compare_runs_all_pairs_markers(three_runs):
    cmp = C.compare_runs(three_runs, pairs="all", correction="bonferroni", metrics=["RR"])
    rr = cmp.table.set_index("run")
    assert cmp.keys == {"A": "a", "B": "b", "C": "c"}
    assert rr.loc["A", "marker"] == "bc" and rr.loc["B", "marker"] == "c" and rr.loc["C", "marker"] == ""
    assert cmp.pairs["p_corrected"].to_numpy() == pytest.approx(C.bonferroni(cmp.pairs["p_value"]))
    # with A as baseline, the B row reads B - A (sign flipped from the (A, B) test)
    assert rr.loc["B", "diff"] == pytest.approx(rr.loc["B", "mean"] - rr.loc["A", "mean"], abs=0.02)
    assert rr.loc["B", "diff"] < 0
    wide = cmp.superscript_table("latex")
    assert wide.loc[wide.run == "A", "RR"].item().endswith("$^{bc}$")
    for fmt in ("csv", "latex", "markdown", "table", "json"):
        assert "A" in render(cmp.table, fmt)
    assert r"\$" not in render(wide, "latex")  # the superscript survives LaTeX escaping


def test_compare_runs_randomization_reproducible(three_runs):
    first = C.compare_runs(three_runs, test="randomization", seed=3, n_resamples=999)
    second = C.compare_runs(three_runs, test="randomization", seed=3, n_resamples=999)
    pd.testing.assert_frame_equal(first.table, second.table)
    pd.testing.assert_frame_equal(first.pairs, second.pairs)


def test_run_keys():
    assert C.run_keys(3) == ["a", "b", "c"]
    keys = C.run_keys(28)
    assert keys[25:] == ["z", "aa", "ab"] and len(set(keys)) == 28


# ==== 3. verdict stability ===================================================================
@pytest.fixture
def tiny_tables():
    """Two runs on three queries with ties at the top; one relevant doc not retrieved."""
    qrels = _qrels([("q1", "a", 2), ("q1", "b", 1), ("q2", "c", 1), ("q2", "x", 1),
                    ("q3", "e", 3), ("q3", "f", 0)])
    a = _table("A", [("q1", "a", 1.0), ("q1", "b", 1.0), ("q1", "n", 1.0), ("q1", "m", 0.5),
                     ("q2", "n", 0.9), ("q2", "c", 0.9), ("q2", "m", 0.1),
                     ("q3", "f", 0.7), ("q3", "e", 0.7), ("q3", "g", 0.7)], qrels)
    b = _table("B", [("q1", "n", 2.0), ("q1", "a", 1.0), ("q1", "b", 1.0),
                     ("q2", "m", 0.5), ("q2", "n", 0.5), ("q2", "c", 0.5), ("q2", "k", 0.5),
                     ("q3", "e", 0.2), ("q3", "g", 0.2)], qrels)
    return a, b


@pytest.mark.parametrize("metric", ["RR", "P@2", "nDCG@3", "AP", "Success@1"])
def test_sampler_matches_exact_enumeration(tiny_tables, metric):
    a, b = tiny_tables
    exact = C.exact_win_probability(a, b, metric)
    est = C.win_probability(a, b, metric, n_draws=4000, seed=2)
    assert 0 <= exact <= 1
    assert abs(est.probability - exact) <= 4 * max(est.standard_error, 1 / 4000)
    assert est.standard_error == pytest.approx(math.sqrt(est.probability * (1 - est.probability) / 4000))


def test_exact_distribution_means_equal_expected_metric(tiny_tables):
    a, _ = tiny_tables
    for metric in ("RR", "P@2", "nDCG@3", "AP", "R@2"):
        law = C.run_mean_distribution(a, metric)
        assert law["probability"].sum() == pytest.approx(1.0)
        expected = metric_values(a, metric)[a.n_relevant > 0].mean()
        assert (law["value"] * law["probability"]).sum() == pytest.approx(expected, abs=1e-12)


def test_exact_distribution_is_joint_enumeration(tiny_tables):
    """The convolution equals the literal enumeration of every joint ordering of all queries."""
    a, _ = tiny_tables
    per_query = []
    for q in range(a.n_queries):  # the value of every ordering of each query
        orderings = C._query_orderings(a, q, 1000)
        per_query.append(metric_values(C._ordering_table(a, q, orderings), "RR"))
    means = [np.mean(combo) for combo in itertools.product(*per_query)]
    values, counts = np.unique(np.round(means, 12), return_counts=True)
    law = C.run_mean_distribution(a, "RR")
    assert law["value"].to_numpy() == pytest.approx(values)
    assert law["probability"].to_numpy() == pytest.approx(counts / counts.sum())


def test_query_distribution_agrees_with_spread_enumerator():
    qrels = _qrels([("q", "b", 1), ("q", "d", 2)])
    table = _table("R", [("q", "a", 0.9), ("q", "b", 0.8), ("q", "c", 0.8), ("q", "d", 0.8),
                         ("q", "e", 0.1)], qrels)
    ours = C.query_value_distribution(table, "RR", "q")
    theirs = enumerate_orderings([0.9, 0.8, 0.8, 0.8, 0.1], [0, 1, 0, 2, 0], "RR")["RR"]
    values, counts = np.unique(theirs.round(12), return_counts=True)
    assert ours["value"].to_numpy() == pytest.approx(values)
    assert ours["probability"].to_numpy() == pytest.approx(counts / counts.sum())


def test_win_probability_seeding(tiny_tables):
    a, b = tiny_tables
    first = C.win_probability(a, b, "RR", n_draws=500, seed=9)
    assert C.win_probability(a, b, "RR", n_draws=500, seed=9) == first
    # a run against itself: the two tie-breaks are independent draws, not shared ones
    self_cmp = C.win_probability(a, a, "RR", n_draws=2000, seed=9)
    assert self_cmp.p_equal < 1 and abs(self_cmp.probability - 0.5) < 4 * self_cmp.standard_error


def test_exact_enumeration_refuses_large_groups():
    qrels = _qrels([("q", "d0", 1)])
    table = _table("R", [("q", f"d{i}", 1.0) for i in range(9)], qrels)
    with pytest.raises(ValueError, match="above the limit"):
        C.exact_win_probability(table, table, "RR")


def test_flip_case_verdicts(flip_case):
    run_a, run_b, qrels = flip_case
    ev = evaluate({"A": run_a, "B": run_b}, qrels, ["RR"], ties="all")
    verdicts = C.policy_verdicts(ev, "A", "B", "RR").set_index("policy")
    assert verdicts["winner"].to_dict() == {"expected": "A", "optimistic": "A",
                                            "pessimistic": "B", "trec_eval": "B"}
    assert verdicts.loc["trec_eval", "diff"] == pytest.approx(0.5 - 2 / 3)
    assert verdicts["agrees"].tolist() == [True, True, False, False]
    # A's mean is 1, 3/4, 1/2 w.p. 1/4, 1/2, 1/4 against B's 2/3: P(A beats B) = 3/4
    assert C.exact_win_probability(ev.tables["A"], ev.tables["B"], "RR") == pytest.approx(0.75)
    stab = C.verdict_stability(ev, "B", n_draws=2000, seed=4)
    row = stab.iloc[0]
    assert row["run"] == "A" and row["baseline"] == "B"
    assert [row[p] for p in ("expected", "optimistic", "pessimistic", "trec_eval")] == \
        ["win", "win", "loss", "loss"]
    assert not row["same_verdict"] and not row["significance_survives"]
    assert abs(row["p_win"] - 0.75) <= 4 * row["se"]
    # the row is exactly win_probability(run, baseline) with the same seed
    assert row["p_win"] == C.win_probability(ev.tables["A"], ev.tables["B"], "RR",
                                             n_draws=2000, seed=4).probability


def test_policy_rankings_and_kendall_tau(flip_case):
    run_a, run_b, qrels = flip_case
    # C: RR 1/2 and 1/3, mean 5/12 under every policy; A: 3/4 expected, 1/2 trec_eval; B: 2/3
    run_c = Run("C", pd.DataFrame([("q1", "y", 1.0), ("q1", "a", 0.5), ("q2", "y", 1.0),
                                   ("q2", "w", 0.9), ("q2", "a", 0.5)],
                                  columns=["query", "doc", "score"]))
    ev = evaluate({"A": run_a, "B": run_b, "C": run_c}, qrels, ["RR"], ties="all")
    ranking = C.policy_rankings(ev, "RR").set_index("run")
    assert ranking["rank_expected"].to_dict() == {"A": 1, "B": 2, "C": 3}
    assert ranking["rank_trec_eval"].to_dict() == {"A": 2, "B": 1, "C": 3}
    means = ev.summary[ev.summary.metric == "RR"].pivot(index="run", columns="policy", values="value")
    assert ranking.loc["A", "trec_eval"] == pytest.approx(means.loc["A", "trec_eval"])
    agreement = C.ranking_agreement(ev, "RR").set_index(["policy_a", "policy_b"])
    expected = stats.kendalltau(ranking["expected"], ranking["trec_eval"], variant="b")
    assert agreement.loc[("expected", "trec_eval"), "kendall_tau"] == pytest.approx(expected.statistic)
    assert agreement.loc[("expected", "trec_eval"), "kendall_tau"] == pytest.approx(1 / 3)
    assert agreement.loc[("expected", "optimistic"), "kendall_tau"] == pytest.approx(1.0)
    assert len(agreement) == 6


# ==== 4. rank correlation ====================================================================
def test_rank_correlation_matches_scipy_with_ties():
    a = pd.DataFrame({"query": ["q1"] * 6 + ["q2"] * 4 + ["q3"],
                      "doc": list("abcdef") + list("wxyz") + ["s"],
                      "score": [3, 3, 2, 2, 2, 1, 0.5, 0.4, 0.4, 0.1, 1.0]})
    b = pd.DataFrame({"query": ["q1"] * 5 + ["q2"] * 4 + ["q3"],
                      "doc": list("abcdg") + list("zyxw") + ["s"],  # e, f only in a; g only in b
                      "score": [1, 2, 2, 3, 3, 0.2, 0.2, 0.2, 0.9, 5.0]})
    result = C.rank_correlation(Run("A", a), b)
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
    qrels = _qrels([("q", "a", 1)])
    rows = [("q", "a", 2.0), ("q", "b", 1.0), ("q", "c", 1.0)]
    table = _table("A", rows, qrels)
    other = pd.DataFrame(rows, columns=["query", "doc", "score"])
    result = C.rank_correlation(table, other)
    assert result.per_query["kendall_tau_b"].item() == pytest.approx(1.0)


# ==== 5. groups ==============================================================================
def test_read_groups_inputs_and_errors(tmp_path):
    path = tmp_path / "groups.csv"
    path.write_text("query,group,note\nq1,short,x\n\nNA,long,y\n")
    frame = C.read_groups(path)
    assert frame.values.tolist() == [["q1", "short"], ["NA", "long"]]
    assert C.read_groups({"q1": "x"}).values.tolist() == [["q1", "x"]]
    assert C.read_groups(pd.DataFrame({"query": [1], "group": ["g"]})).values.tolist() == [["1", "g"]]
    path.write_text("query,group\nq1,a\nq2,b\n\nq1,c\n")
    with pytest.raises(InputError) as info:
        C.read_groups(path)
    assert info.value.line == 5 and "first on line 2" in str(info.value) and str(path) in str(info.value)
    with pytest.raises(InputError, match="missing column"):
        C.read_groups(b"qid,group\nq1,a\n")
    with pytest.raises(InputError, match="empty group"):
        C.read_groups(b"query,group\nq1,\n")
    with pytest.raises(InputError, match="empty file"):
        C.read_groups(b"")


def test_group_breakdown_constructed():
    values = {"A": {"q1": 1.0, "q2": 0.5, "q3": 0.0, "q4": 0.25},
              "B": {"q1": 0.5, "q2": 0.5, "q3": 1.0, "q4": 0.75}}
    pq = pd.concat([_per_query(values, "RR", "expected"),
                    _per_query({r: {q: v / 2 for q, v in qs.items()} for r, qs in values.items()},
                               "RR", "trec_eval")], ignore_index=True)
    groups = pd.DataFrame({"query": ["q1", "q2", "q3", "q9"], "group": ["x", "x", "y", "y"]})
    result = C.group_breakdown(pq, groups)
    table = result.table.set_index(["run", "metric", "policy", "group"])
    assert table.loc[("A", "RR", "expected", "x"), "value"] == pytest.approx(0.75)
    assert table.loc[("A", "RR", "expected", "x"), "n_queries"] == 2
    assert table.loc[("B", "RR", "expected", "y"), "value"] == pytest.approx(1.0)
    assert table.loc[("B", "RR", "trec_eval", "y"), "value"] == pytest.approx(0.5)
    assert table.loc[("B", "RR", "expected", "y"), "n_queries"] == 1  # q9 unknown, q4 ungrouped
    assert len(result.table) == 8
    kinds = {f.kind: f for f in result.findings}
    assert kinds["group_queries_not_evaluated"].queries == ("q9",)
    assert kinds["queries_without_group"].queries == ("q4",)


# ==== 6. CLI end to end =======================================================================
def _cli_args(*extra: str) -> list[str]:
    runs = LLMJUDGE / "runs"
    return [str(LLMJUDGE / "qrels.test.txt"), str(runs / "Olz-gpt4o.txt"),
            str(runs / "RMITIR-llama70B.txt"), "-m", "RR", "-m", "nDCG@10", "--rel-level", "2",
            *extra]


def test_cli_end_to_end_on_llmjudge(capsys):
    assert compare_main(_cli_args("--draws", "300")) == 0
    out = capsys.readouterr().out
    assert "Olz-gpt4o" in out and "RMITIR-llama70B" in out and "p_win" in out
    assert "trec_eval" in out and "pessimistic" in out

    assert compare_main(_cli_args("--draws", "300", "--format", "json")) == 0
    payload = json.loads(capsys.readouterr().out)
    report = pd.DataFrame(payload["report"])
    # the report's means are evaluate's expected means
    from tiedrank.io import read_qrels, read_run
    runs = [read_run(LLMJUDGE / "runs" / f"{n}.txt") for n in ("Olz-gpt4o", "RMITIR-llama70B")]
    ev = evaluate(runs, read_qrels(LLMJUDGE / "qrels.test.txt"), ["RR", "nDCG@10"], rel_level=2)
    summary = ev.summary.set_index(["run", "metric"])["value"]
    for row in report.itertuples():
        assert row.mean == pytest.approx(summary.loc[(row.run, row.metric)])
    expected = C.compare_pair(ev, "RMITIR-llama70B", "Olz-gpt4o", "RR")
    rr = report.set_index(["run", "metric"]).loc[("RMITIR-llama70B", "RR")]
    assert rr["p_value"] == pytest.approx(expected.p_value)
    assert {r["metric"] for r in payload["stability"]} == {"RR", "nDCG@10"}
    assert payload["baseline"] == "Olz-gpt4o" and payload["keys"]["RMITIR-llama70B"] == "b"


def test_cli_is_reproducible_and_renders_formats(capsys):
    args = _cli_args("--test", "randomization", "--draws", "200", "--resamples", "999", "--seed", "5")
    outputs = []
    for _ in range(2):
        assert compare_main(args) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    for fmt, token in (("csv", "run,key,metric"), ("latex", r"\begin{tabular}"), ("markdown", "| run |")):
        assert compare_main(_cli_args("--draws", "50", "--resamples", "99", "--format", fmt)) == 0
        assert token in capsys.readouterr().out


def test_cli_groups(tmp_path, capsys):
    queries = sorted({line.split()[0] for line in (LLMJUDGE / "qrels.test.txt").read_text().splitlines()})
    groups = tmp_path / "groups.csv"
    groups.write_text("query,group\n" + "".join(f"{q},{'A' if i % 2 else 'B'}\n" for i, q in enumerate(queries)))
    assert compare_main(_cli_args("--draws", "50", "--groups", str(groups), "--format", "json")) == 0
    payload = json.loads(capsys.readouterr().out)
    frame = pd.DataFrame(payload["groups"])
    assert set(frame["group"]) == {"A", "B"}
    assert frame.groupby(["run", "metric"])["n_queries"].sum().eq(len(queries)).all()


def test_cli_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "dup.csv"
    bad.write_text("query,group\nq1,a\nq1,b\n")
    for extra in (["--groups", str(bad)], ["-m", "nope"], ["--ties", "sometimes"]):
        assert compare_main(_cli_args(*extra)) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("tiedrank compare: error:") and "\n" not in err
    assert compare_main([str(LLMJUDGE / "qrels.test.txt"), str(tmp_path / "missing.txt"), str(bad)]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cli_registered_in_main_parser():
    proc = subprocess.run([sys.executable, "-m", "tiedrank.cli", "compare", *_cli_args("-m", "bogus")],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
