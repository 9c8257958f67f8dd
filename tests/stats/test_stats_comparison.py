"""Pairing on query ids, compare_pair and compare_runs (corrections per metric, markers)."""
from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy import stats

from tiedrank import stats as S
from tiedrank.evaluation import evaluate
from tiedrank.report import render
from tiedrank.core.validation import InvalidParameterError


def test_pairing_is_inner_join_on_query_ids(three_runs):
    pairs = S.paired_values(three_runs, "A", "C", "RR")
    assert len(pairs.queries) == 29 and pairs.only_a == ("q29",) and pairs.only_b == ()
    # the values are matched by query id, not by row position
    frame = three_runs[three_runs.metric == "RR"]
    a = frame[frame.run == "A"].set_index("query")["value"]
    c = frame[frame.run == "C"].set_index("query")["value"]
    common = c.index
    expected = stats.ttest_rel(a[common], c[common])
    result = S.compare_pair(three_runs.sample(frac=1, random_state=0), "A", "C", "RR")
    assert (result.statistic, result.p_value) == pytest.approx((expected.statistic, expected.pvalue))
    assert result.n_queries == 29 and result.only_a == ("q29",)
    assert result.mean_diff == pytest.approx((a[common] - c[common]).mean())
    assert result.ci_low < result.mean_diff < result.ci_high


def test_compare_pair_accepts_evaluation_policy_and_metric_alias(flip_case):
    run_a, run_b, qrels = flip_case
    ev = evaluate({"A": run_a, "B": run_b}, qrels, ["RR", "nDCG@3"], ties="all")
    result = S.compare_pair(ev, "A", "B", "ndcg@3", policy="trec_eval", test="wilcoxon")
    assert result.metric == "nDCG@3" and result.policy == "trec_eval"
    with pytest.raises(ValueError, match="not evaluated"):
        S.compare_pair(ev, "A", "B", "RR", policy="input")
    with pytest.raises(ValueError, match="not found"):
        S.compare_pair(ev, "A", "X", "RR")


def test_compare_runs_against_baseline(three_runs):
    cmp = S.compare_runs(three_runs, baseline="C", test="t", correction="holm")
    table = cmp.table
    assert list(table.columns) == ["run", "key", "metric", "mean", "diff", "p_value",
                                   "p_corrected", "significant", "effect_size", "n_queries", "marker"]
    assert cmp.keys == {"C": "a", "A": "b", "B": "c"}
    rr = table[table.metric == "RR"].set_index("run")
    assert rr.loc["C", "diff"] == 0 and math.isnan(rr.loc["C", "p_value"])
    for run in ("A", "B"):
        expected = S.compare_pair(three_runs, run, "C", "RR")
        assert rr.loc[run, "p_value"] == pytest.approx(expected.p_value)
        assert rr.loc[run, "diff"] == pytest.approx(expected.mean_diff)
    # the family is the metric's two tests
    assert rr.loc[["A", "B"], "p_corrected"].to_numpy() == pytest.approx(
        S.holm(rr.loc[["A", "B"], "p_value"].to_numpy()))
    assert rr.loc["A", "marker"] == "a" and rr.loc["B", "marker"] == "a" and rr.loc["C", "marker"] == ""
    assert rr.loc["A", "mean"] == pytest.approx(
        three_runs.query("run == 'A' and metric == 'RR'")["value"].mean())
    assert len(cmp.pairs) == 4 and {f.kind for f in cmp.findings} == {"queries_dropped_by_pairing"}


def test_compare_runs_all_pairs_markers(three_runs):
    cmp = S.compare_runs(three_runs, pairs="all", correction="bonferroni", metrics=["RR"])
    rr = cmp.table.set_index("run")
    assert cmp.keys == {"A": "a", "B": "b", "C": "c"}
    assert rr.loc["A", "marker"] == "bc" and rr.loc["B", "marker"] == "c" and rr.loc["C", "marker"] == ""
    assert cmp.pairs["p_corrected"].to_numpy() == pytest.approx(S.bonferroni(cmp.pairs["p_value"]))
    # with A as baseline, the B row reads B - A (sign flipped from the (A, B) test)
    assert rr.loc["B", "diff"] == pytest.approx(rr.loc["B", "mean"] - rr.loc["A", "mean"], abs=0.02)
    assert rr.loc["B", "diff"] < 0
    for fmt in ("csv", "latex", "markdown", "table", "json"):
        assert "A" in render(cmp.table, fmt)


def test_compare_runs_randomization_reproducible(three_runs):
    first = S.compare_runs(three_runs, test="randomization", seed=3, n_resamples=999)
    second = S.compare_runs(three_runs, test="randomization", seed=3, n_resamples=999)
    pd.testing.assert_frame_equal(first.table, second.table)
    pd.testing.assert_frame_equal(first.pairs, second.pairs)


def test_run_keys():
    assert S.run_keys(3) == ["a", "b", "c"]
    keys = S.run_keys(28)
    assert keys[25:] == ["z", "aa", "ab"] and len(set(keys)) == 28


@pytest.mark.parametrize(("option", "message"), [
    ({"test": "z"}, "test= must be one of 't', 'wilcoxon', 'randomization'"),
    ({"correction": "sidak"}, "correction= must be one of 'holm', 'bonferroni', 'bh', 'none'"),
    ({"alpha": 0}, "alpha= must be a number in (0, 1)"),
    ({"pairs": "some"}, "pairs= must be one of 'baseline', 'all'"),
    ({"confidence": 95}, "confidence= must be a number in (0, 1)"),
])
def test_compare_runs_names_the_allowed_values(three_runs, option, message):
    with pytest.raises(InvalidParameterError) as info:
        S.compare_runs(three_runs, **option)
    assert str(info.value).startswith("compare_runs(): " + message)


def test_outcome_tolerates_only_rounding():
    total = sum([0.1] * 10)  # 0.9999999999999999: the same sum added in another order
    assert total != 1.0 and S.outcome(total - 1.0, 1.0) == 0
    assert S.outcome_word([1e-9, -1e-9, 0.0]).tolist() == ["win", "loss", "tie"]
    # relative: a gap of 1e-10 between two values near 1e3 is still rounding (tol 1e-9)
    assert S.outcome(1e-10, 1e3) == 0 and S.outcome(1e-8, 1e3) == 1


# ---- metrics summarised by a geometric mean (gm_map, gm_bpref) ------------------------------
def _geometric_case():
    """Two runs' per-query values with zeros (floored at 1e-5 by trec_eval's geometric mean),
    under the same values as AP (arithmetic mean) and as gm_map (geometric mean)."""
    import numpy as np
    from stats_support import per_query

    rng = np.random.default_rng(11)
    queries = [f"q{i}" for i in range(40)]
    a = rng.random(40) ** 2
    b = np.clip(a * rng.uniform(0.4, 1.6, 40), 0, 1)
    a[:4], b[3:9] = 0.0, 0.0
    frames = [per_query({"A": dict(zip(queries, a)), "B": dict(zip(queries, b))}, metric)
              for metric in ("AP", "gm_map")]
    return pd.concat(frames, ignore_index=True), a, b


def test_a_geometric_summary_is_tested_on_the_floored_logs():
    """The paired tests of gm_map are scipy's on log(max(x, 1e-5)); its means are scipy's
    geometric means; the same values as AP are tested as they are."""
    import numpy as np

    frame, a, b = _geometric_case()
    la, lb = np.log(np.maximum(a, 1e-5)), np.log(np.maximum(b, 1e-5))
    references = {"t": stats.ttest_rel(la, lb),
                  "wilcoxon": stats.wilcoxon(la, lb, zero_method="wilcox")}
    for test, reference in references.items():
        result = S.compare_pair(frame, "A", "B", "gm_map", test=test)
        assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    result = S.compare_pair(frame, "A", "B", "gm_map")
    assert result.statistic == pytest.approx(references["t"].statistic, rel=1e-9)
    assert result.mean_a == pytest.approx(stats.gmean(np.maximum(a, 1e-5)), rel=1e-12)
    assert result.mean_b == pytest.approx(stats.gmean(np.maximum(b, 1e-5)), rel=1e-12)
    assert result.mean_diff == pytest.approx(math.log(result.mean_a / result.mean_b), rel=1e-9)
    assert result.effect_size == pytest.approx((la - lb).mean() / (la - lb).std(ddof=1), rel=1e-9)
    assert result.ci_low < result.mean_diff < result.ci_high
    plain = S.compare_pair(frame, "A", "B", "AP")
    assert plain.p_value == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
    assert plain.p_value != pytest.approx(result.p_value)


def test_every_stats_door_summarises_gm_map_by_its_geometric_mean(flip_case):
    """compare_runs (the CLI's and the Compare page's report), policy_rankings and
    group_breakdown: gm_map's numbers are Evaluation.summary's geometric means, bit for bit,
    and rank the runs by them (here the opposite order of the arithmetic mean)."""
    import numpy as np
    from stats_support import per_query

    run_a, run_b, qrels = flip_case
    ev = evaluate({"A": run_a, "B": run_b}, qrels, ["gm_map", "AP"], ties="all")
    table = S.compare_runs(ev, baseline="B", metrics=["gm_map", "AP"]).table
    summary = ev.summary[ev.summary["policy"] == "expected"].set_index(["run", "metric"])["value"]
    for row in table.itertuples():
        assert row.mean == summary[(row.run, row.metric)]

    # A: 1 and 0 (arithmetic 0.5, geometric sqrt(1e-5)); B: 0.3 twice
    values = {"A": {"q1": 1.0, "q2": 0.0}, "B": {"q1": 0.3, "q2": 0.3}}
    frame = pd.concat([per_query(values, m) for m in ("AP", "gm_map")], ignore_index=True)
    ap = S.policy_rankings(frame, "AP").set_index("run")
    gm = S.policy_rankings(frame, "gm_map").set_index("run")
    assert ap["rank_expected"].to_dict() == {"A": 1.0, "B": 2.0}
    assert gm["rank_expected"].to_dict() == {"A": 2.0, "B": 1.0}
    assert gm.loc["A", "expected"] == pytest.approx(stats.gmean([1.0, 1e-5]), rel=1e-12)

    groups = S.group_breakdown(frame, {"q1": "x", "q2": "x"}).table
    by = groups.set_index(["run", "metric"])["value"]
    assert by[("A", "gm_map")] == pytest.approx(stats.gmean([1.0, 1e-5]), rel=1e-12)
    assert by[("A", "AP")] == 0.5 and np.isclose(by[("B", "gm_map")], 0.3)
