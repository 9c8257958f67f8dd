"""tiedrank.evaluate, the dashboard's evaluation and Learn's toy against brute force.

The oracle (``conformance_oracle.py``) enumerates every ordering of every tie group in plain
Python: ``expected`` must be the mean over orderings, ``best`` the maximum,
``worst`` the minimum, ``trec_eval`` the value of the docno-descending order and
``input`` the value of the file order; the tie-aware metrics (TsRR, TsRR2, MTRR_GRAG,
TMHits_GRAG) their formulas on the tie groups. Options varied: relevance level, gain, -J,
-M, -c, the query set and rounding. Tolerance 1e-12 (the oracle sums in another order).
"""
from __future__ import annotations

import pandas as pd
import pytest
from conformance_cases import Case, cases, examples, one_query_frames
from conformance_oracle import reference
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import tiedrank
from tiedrank.dashboard.learn import evaluate_toy
from tiedrank.dashboard.settings import Settings
from tiedrank.dashboard.my_runs import make_run_set
from tiedrank.dashboard.simulator import evaluate_set
from tiedrank.core.data import Qrels, Run

METRICS = ["RR", "RR@2", "Success@2", "Hits@3", "P@2", "R@3", "AP", "AP@3", "nDCG", "nDCG@3",
           "DCG@2", "Rprec", "TsRR(alpha=2)", "TsRR2", "MTRR_GRAG", "TMHits_GRAG@2",
           "Judged@2", "Judged", "F1@3", "NCG@2", "ERR@3", "nERR@2", "SDCG(max_rel=3)@2",
           "INSQ(max_rel=3)", "INST(max_rel=3)", "BPM(max_rel=3)@2"]
POLICIES = ["expected", "best", "worst", "trec_eval", "input"]
TOL = 1e-12
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]


def _values(per_query):
    return {(r.query, r.metric, r.policy): r.value for r in per_query.itertuples()}


def _assert_matches(got: dict, expected: dict, context) -> None:
    assert set(got) == set(expected), (sorted(set(got) ^ set(expected)), context)
    for key, value in expected.items():
        assert abs(got[key] - value) <= TOL, (key, got[key], value, context)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=QUIET)
@given(case=cases(), rel_level=st.integers(1, 2), gain=st.sampled_from(["linear", "exp"]),
       judged_only=st.booleans(), depth=st.sampled_from([None, 1, 3]), complete=st.booleans(),
       query_set=st.sampled_from(["trec_eval", "relevant"]), round_=st.sampled_from([None, 3]))
def test_evaluate_equals_enumeration(case, rel_level, gain, judged_only, depth, complete,
                                     query_set, round_):
    ev = tiedrank.evaluate({"r": case.run_frame()}, case.qrels_frame(), METRICS, ties=POLICIES,
                           rel_level=rel_level, gain=gain, judged_only=judged_only, depth=depth,
                           complete=complete, query_set=query_set, round=round_)
    expected = reference(case, METRICS, POLICIES, rel_level=rel_level, gain=gain,
                         judged_only=judged_only, depth=depth, complete=complete,
                         which=query_set, round_=round_)
    _assert_matches(_values(ev.per_query), expected, case)
    # the summary is the mean of the oracle's per-query values, n_queries their count
    for row in ev.summary.itertuples():
        mine = [v for (q, m, p), v in expected.items() if m == row.metric and p == row.policy]
        assert row.n_queries == len(mine)
        assert abs(row.value - sum(mine) / len(mine)) <= TOL if mine else row.value != row.value


def test_depth_applies_to_the_rounded_scores():
    """``round=3`` makes d9, d2 and D1 one tie group (1.25); ``depth=3`` should then keep
    d1, d10 and the first of that group in trec_eval's order (d9), as trec_eval -M 3 on the
    rounded run does, so the relevant D1 is cut and RR = 0. Cutting on the raw scores
    first gave RR = 1/3 under every policy (it kept D1, 1.2504 > 1.25)."""
    case = Case(run=(("q", "d1", 2.0), ("q", "d10", 2.0), ("q", "d9", 1.25), ("q", "d2", 1.25),
                     ("q", "D1", 1.2504)), qrels=(("q", "D1", 1),))
    ev = tiedrank.evaluate({"r": case.run_frame()}, case.qrels_frame(), ["RR"], ties="all",
                           depth=3, round=3)
    rounded = case.run_frame().assign(score=lambda f: f["score"].round(3))
    on_rounded = tiedrank.evaluate({"r": rounded}, case.qrels_frame(), ["RR"], ties="all",
                                   depth=3)
    assert reference(case, ["RR"], ["trec_eval"], depth=3, round_=3)["q", "RR", "trec_eval"] == 0
    pd.testing.assert_frame_equal(ev.per_query, on_rounded.per_query)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=QUIET)
@given(case=cases(), rel_level=st.integers(1, 2), gain=st.sampled_from(["linear", "exp"]),
       round_=st.sampled_from([None, 3]))
def test_dashboard_evaluation_equals_enumeration(case, rel_level, gain, round_):
    """The pages' evaluation (``Settings.options`` through ``evaluate_set``)."""
    settings_ = Settings(rel_level=rel_level, gain=gain, k=3, round=round_)
    run_set = make_run_set(Qrels(case.qrels_frame()), {"r": Run("r", case.run_frame())},
                           "conformance", rel_level=rel_level)
    ev = evaluate_set(run_set, METRICS, settings_)
    policies = ["expected", "best", "worst", "trec_eval"]
    expected = reference(case, METRICS, policies, rel_level=rel_level, gain=gain,
                         round_=round_)
    _assert_matches(_values(ev.per_query), expected, case)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=QUIET)
@given(case=cases(max_queries=1), rel_level=st.integers(1, 2),
       gain=st.sampled_from(["linear", "exp"]))
def test_learn_toy_equals_enumeration(case, rel_level, gain):
    """Learn's toy: one query given as (doc, score, grade); unjudged = grade 0 there."""
    query = case.evaluable()[0]
    frame = one_query_frames(case, query)
    toy = evaluate_toy(frame, rel_level=rel_level, gain=gain, metrics=METRICS)
    # the toy judges every listed document; its extra judged documents are its rows only
    grades = dict(zip(frame["doc"], frame["grade"]))
    single = Case(tuple(("t", d, s) for d, s in zip(frame["doc"], frame["score"])),
                  tuple(("t", d, int(g)) for d, g in grades.items()))
    expected = reference(single, METRICS, POLICIES, rel_level=rel_level, gain=gain)
    values = toy.values.set_index("metric")
    got = {("t", m, p): float(values.loc[m, p]) for m in METRICS for p in POLICIES}
    _assert_matches(got, expected, frame)
