"""evaluate(): options, query-set rules and result shapes, each against a direct construction."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate, parse_metric, tsrr_sweep
from tiedrank.sampling import sample_run_means

QRELS = pd.DataFrame({"query": ["a", "a", "a", "b", "b", "c"],
                      "doc": ["a1", "a2", "a3", "b1", "b2", "c1"],
                      "relevance": [1, 0, 2, 1, 0, 0]})
RUN = pd.DataFrame({"query": ["a", "a", "a", "a", "b", "b", "x"],
                    "doc": ["a1", "a2", "aU", "a3", "b2", "b1", "x1"],
                    "score": [1.0, 1.0, 0.9, 0.5, 0.30001, 0.3, 1.0]})


def values(ev, metric="RR", policy="expected"):
    frame = ev.per_query[(ev.per_query.metric == metric) & (ev.per_query.policy == policy)]
    return dict(zip(frame["query"], frame["value"]))


def test_query_set_rules_and_findings():
    qrels = pd.concat([QRELS, pd.DataFrame({"query": ["d", "e"], "doc": ["d1", "e1"],
                                            "relevance": [1, 0]})])
    run = pd.concat([RUN, pd.DataFrame({"query": ["e"], "doc": ["e1"], "score": [1.0]})])
    ev = evaluate({"r": run}, qrels, ["RR"])
    # trec_eval's set: queries with results and judgements, e (no relevant document)
    # included with RR 0; c and d are missed by the run (left out without -c); x not in qrels
    assert values(ev) == {"a": pytest.approx(0.75), "b": 0.5, "e": 0.0}
    kinds = {f.kind: f for f in ev.findings}
    assert kinds["queries_without_relevant"].queries == ("c", "e")
    assert kinds["queries_missing_from_run"].queries == ("c", "d")
    assert kinds["queries_not_in_qrels"].queries == ("x",)
    assert kinds["unjudged_documents"].count == 1
    complete = evaluate({"r": run}, qrels, ["RR"], complete=True)  # trec_eval -c
    assert values(complete) == {**values(ev), "c": 0.0, "d": 0.0}
    relevant = evaluate({"r": run}, qrels, ["RR"], query_set="relevant", complete=True)
    assert set(values(relevant)) == {"a", "b", "d"}
    assert "-c" in complete.rule and "without -c" in ev.rule and "included" in ev.rule


def test_a_metric_keeps_its_row_when_no_query_counts():
    with pytest.warns(UserWarning, match="shares no query with qrels="):
        ev = evaluate({"r": RUN}, QRELS.assign(query="zz"), ["RR", "AP"], ties="all")
    assert len(ev.summary) == 8 and (ev.summary["n_queries"] == 0).all()
    assert ev.per_query.empty


def test_judged_only_equals_dropping_unjudged_rows():
    judged = RUN[RUN.doc != "aU"]
    a = evaluate({"r": RUN}, QRELS, ["AP", "nDCG@3", "P@2"], judged_only=True, ties="all")
    b = evaluate({"r": judged}, QRELS, ["AP", "nDCG@3", "P@2"], ties="all")
    pd.testing.assert_frame_equal(a.summary, b.summary)


def test_round_merges_near_ties_like_prerounded_scores():
    rounded = RUN.assign(score=RUN.score.round(3))
    a = evaluate({"r": RUN}, QRELS, ["RR", "AP"], round=3, ties="all")
    b = evaluate({"r": rounded}, QRELS, ["RR", "AP"], ties="all")
    pd.testing.assert_frame_equal(a.summary, b.summary)
    # without rounding b1/b2 are not tied: b's RR is exactly 1/2 under every policy
    exact = evaluate({"r": RUN}, QRELS, ["RR"], ties="all")
    assert {values(exact, policy=p)["b"] for p in ("expected", "best", "worst")} == {0.5}
    assert values(a, policy="expected")["b"] == pytest.approx(0.75)


def test_several_runs_report_and_bias():
    other = RUN.assign(score=np.arange(len(RUN), 0, -1, dtype=float))
    ev = evaluate({"tied": RUN, "strict": other}, QRELS, ["RR", "nDCG@2"], ties="all")
    report = ev.report()
    assert list(report.columns) == ["run", "metric", "expected", "best", "worst", "trec_eval", "bias"]
    assert len(report) == 4
    assert np.allclose(report.bias, report.trec_eval - report.expected)
    assert (report.worst <= report.expected + 1e-12).all() and (report.expected <= report.best + 1e-12).all()
    strict = report[report.run == "strict"]
    assert np.allclose(strict.best, strict.worst)  # no ties: one ordering


def test_random_policy_is_seeded():
    a = evaluate({"r": RUN}, QRELS, ["RR"], ties="random(seed=5)")
    b = evaluate({"r": RUN}, QRELS, ["RR"], ties="random", seed=5)
    assert a.summary["value"].tolist() == b.summary["value"].tolist()
    assert a.summary["policy"].tolist() == ["random(seed=5)"]


def test_tsrr_sweep_matches_per_alpha_evaluation():
    alphas = [0.1, 1.0, 7.5]
    ev = evaluate({"r": RUN}, QRELS, [f"TsRR(alpha={a})" for a in alphas])
    sweep = tsrr_sweep(ev.tables, alphas)
    assert np.allclose(sweep["value"], ev.summary["value"])


def test_sampler_mean_converges_to_expectation():
    ev = evaluate({"r": RUN}, QRELS, ["RR", "nDCG@2"])
    table = ev.tables["r"]
    for metric in ("RR", "nDCG@2"):
        draws = sample_run_means(table, metric, n_draws=4000, seed=1)
        expected = ev.summary.set_index("metric").loc[metric, "value"]
        assert abs(draws.mean() - expected) < 4 * draws.std() / np.sqrt(len(draws)) + 1e-12


@pytest.mark.parametrize("bad, message", [
    ("nDGC@10", "Did you mean 'nDCG'"), ("P", "needs a cutoff"), ("Rprec@5", "takes no cutoff"),
    ("TsRR(alpha=-1)", "alpha must be > 0"), ("RR(alpha=2)", "takes no parameters")])
def test_metric_parse_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        parse_metric(bad)


def test_metric_names_parse_like_ir_measures():
    assert parse_metric("ndcg@10").name == "nDCG@10"
    assert parse_metric("Hits@5").name == "Hits@5"  # a count (ranx, TRM), never Success@5
    assert parse_metric("hit_rate@5").name == "Success@5"
    assert parse_metric("TsRR").name == "TsRR(alpha=1)"
    assert parse_metric("MRR").name == "RR"


def test_option_errors():
    with pytest.raises(ValueError, match="ties= must be one of 'expected'.*; got 'median'"):
        evaluate({"r": RUN}, QRELS, ["RR"], ties="median")
    with pytest.raises(ValueError, match="rel_level"):
        evaluate({"r": RUN}, QRELS, ["RR"], rel_level=0)
    with pytest.raises(ValueError, match="gain"):
        evaluate({"r": RUN}, QRELS, ["RR"], gain="log")


@pytest.mark.parametrize("ties", [None, 5, b"all", {"expected": 1}])
def test_ties_of_another_type_names_the_argument(ties):
    """Issue 29 item 7: ties=None was a bare TypeError ('NoneType' object is not iterable)."""
    from tiedrank.core.validation import InvalidParameterError

    with pytest.raises(InvalidParameterError, match=r"^evaluate\(\): ties= must be one of "
                                                    r"'expected'.*; got " + repr(ties)[:3]):
        evaluate({"r": RUN}, QRELS, ["RR"], ties=ties)


@pytest.mark.parametrize("metric", ["RR", "RR@2", "Success@2", "nDCG@3", "AP"])
def test_sampled_values_follow_the_enumerated_distribution(metric):
    """One query: the frequency of each value over random tie-breaks matches brute force."""
    from tiedrank.sampling import enumerate_orderings

    scores, grades = [0.9, 0.5, 0.5, 0.5, 0.5, 0.1], [0, 0, 2, 0, 1, 1]
    qrels = pd.DataFrame({"query": "q", "doc": [f"d{i}" for i in range(6)], "relevance": grades})
    run = qrels.drop(columns="relevance").assign(score=scores)
    table = evaluate({"r": run}, qrels, [metric]).tables["r"]
    draws = np.round(sample_run_means(table, metric, n_draws=20_000, seed=3), 9)
    exact = np.round(enumerate_orderings(scores, grades, [metric])[parse_metric(metric).name], 9)
    values, counts = np.unique(exact, return_counts=True)
    assert set(np.unique(draws)) <= set(values)
    for value, count in zip(values, counts):
        p = count / len(exact)
        share = np.mean(draws == value)
        assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / len(draws)) + 1e-9, (value, share, p)
