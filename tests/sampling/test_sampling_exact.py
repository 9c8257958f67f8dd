"""Exact moments and lattice laws against brute-force enumeration of tie orderings."""
from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from sampling_cases import (
    EVERY_METRIC,
    LATTICE_METRICS,
    joint_mean_law,
    query_values,
    small_query,
    table_of,
)

from tiedrank.metrics import metric_values
from tiedrank.sampling import (
    difference_law,
    lattice_win_probability,
    query_moments,
    run_mean_law,
    run_moments,
)

CHECKED = {"moments": 0, "laws": 0}


@pytest.fixture(scope="module", autouse=True)
def report_counts():
    yield
    print(f"\n[sampling] per-query (mean, variance) pairs checked against enumeration: "
          f"{CHECKED['moments']}; run-mean laws checked against joint enumeration: {CHECKED['laws']}")


@settings(max_examples=examples(80, deep=400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(small_query(), min_size=1, max_size=3), rel_level=st.integers(1, 2),
       gain=st.sampled_from(["linear", "exp"]))
def test_moments_match_enumeration(queries, rel_level, gain):
    spec = {f"q{i}": q for i, q in enumerate(queries)}
    table = table_of(spec, rel_level)
    for metric in EVERY_METRIC:
        moments = query_moments(table, metric, gain=gain)
        kernel = metric_values(table, metric, gain=gain)
        for i, qid in enumerate(table.queries):
            values = query_values(spec[qid], metric, rel_level, gain)
            assert moments.mean[i] == pytest.approx(values.mean(), abs=1e-12), (metric, qid)
            assert moments.mean[i] == pytest.approx(kernel[i], abs=1e-12), (metric, qid)
            assert moments.variance[i] == pytest.approx(values.var(), abs=1e-12), (metric, qid)
            CHECKED["moments"] += 1


def test_tie_defined_metrics_have_no_variance():
    table = table_of({"q": ([0.5, 0.5, 0.5, 0.1], [0, 1, 0, 1], [])})
    for metric in ["TsRR(alpha=2)", "TsRR2", "MTRR_GRAG", "TMHits_GRAG@2"]:
        moments = query_moments(table, metric)
        assert moments.variance.tolist() == [0.0]
        assert moments.mean[0] == metric_values(table, metric)[0]


def test_large_group_reference_vectors():
    """1000 tied, 3 relevant (reference section 7): E[Success@10] = 82337/2769450 and a
    hypergeometric P@10 variance 10 (3/1000)(997/1000)(990/999) / 100."""
    grades = [0] * 1000
    grades[10] = grades[500] = grades[900] = 1
    table = table_of({"q": ([0.5] * 1000, grades, [])})
    success = query_moments(table, "Success@10")
    assert success.mean[0] == pytest.approx(82337 / 2769450, rel=1e-12)
    p = 82337 / 2769450
    assert success.variance[0] == pytest.approx(p * (1 - p), rel=1e-12)
    precision = query_moments(table, "P@10")
    assert precision.variance[0] == pytest.approx(10 * 0.003 * 0.997 * 990 / 999 / 100, rel=1e-12)
    assert query_moments(table, "AP").mean[0] == pytest.approx(0.0094724869, abs=1e-10)


def test_run_moments_are_sums_over_independent_queries():
    spec = {"a": ([1, 1, 1, 0], [1, 0, 0, 1], []), "b": ([1, 1, 0.5], [0, 1, 1], [1]),
            "c": ([0.5, 0.5], [0, 0], [])}
    table = table_of(spec)
    # trec_eval's query set: c (no relevant document) counts, scoring 0
    law = joint_mean_law(spec, "AP", {"a": True, "b": True, "c": True})
    values, probs = np.array(list(law)), np.array(list(law.values()))
    moments = run_moments(table, "AP")
    assert moments.n_queries == 3
    assert moments.mean == pytest.approx(values @ probs, abs=1e-9)
    assert moments.variance == pytest.approx(probs @ (values - values @ probs) ** 2, abs=1e-9)


def _assert_law_matches(law, expected: dict[float, float]):
    got: dict[float, float] = defaultdict(float)
    for value, p in zip(law.values(), law.pmf):
        if p > 1e-15:
            got[round(float(value), 9)] += float(p)
    assert set(got) == set(expected)
    for value, p in expected.items():
        assert got[value] == pytest.approx(p, abs=1e-12), value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(small_query(max_docs=5), min_size=1, max_size=3),
       metric=st.sampled_from(LATTICE_METRICS))
def test_lattice_law_matches_joint_enumeration(queries, metric):
    spec = {f"q{i}": q for i, q in enumerate(queries)}
    table = table_of(spec)
    # trec_eval's query set: every query the run answers (from the spec, not the table)
    included = {qid: len(scores) > 0 for qid, (scores, _, _) in spec.items()}
    if not any(included.values()):
        return
    law = run_mean_law(table, metric)
    expected = joint_mean_law(spec, metric, included)
    assert law.exact
    _assert_law_matches(law, expected)
    for value in expected:  # the exact percentile of any attainable mean (e.g. trec_eval's)
        below, equal, above = law.split(value)
        assert below == pytest.approx(sum(p for v, p in expected.items() if v < value), abs=1e-12)
        assert equal == pytest.approx(expected[value], abs=1e-12)
        assert above == pytest.approx(sum(p for v, p in expected.items() if v > value), abs=1e-12)
    CHECKED["laws"] += 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=st.lists(small_query(max_docs=4), min_size=2, max_size=2),
       b_scores=st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=4, max_size=4),
                         min_size=2, max_size=2),
       metric=st.sampled_from(["Success@1", "P@2", "R@2"]))
def test_win_probability_matches_joint_enumeration(a, b_scores, metric):
    """Run B ranks the same documents as A with other scores; P(A > B), P(tie) exact."""
    spec_a = {f"q{i}": q for i, q in enumerate(a)}
    spec_b = {qid: (b_scores[i][:len(q[0])], q[1], q[2]) for i, (qid, q) in enumerate(spec_a.items())}
    table_a, table_b = table_of(spec_a), table_of(spec_b)
    included = {qid: len(scores) > 0 for qid, (scores, _, _) in spec_a.items()}
    if not any(included.values()):
        return
    law_a, law_b = joint_mean_law(spec_a, metric, included), joint_mean_law(spec_b, metric, included)
    wins = sum(pa * pb for va, pa in law_a.items() for vb, pb in law_b.items() if va > vb + 1e-9)
    ties = sum(pa * pb for va, pa in law_a.items() for vb, pb in law_b.items() if abs(va - vb) <= 1e-9)
    outcome = lattice_win_probability(table_a, table_b, metric)
    assert outcome.a_wins == pytest.approx(wins, abs=1e-12)
    assert outcome.tie == pytest.approx(ties, abs=1e-12)
    assert outcome.a_wins + outcome.tie + outcome.b_wins == pytest.approx(1.0, abs=1e-12)
    diff = difference_law(run_mean_law(table_a, metric), run_mean_law(table_b, metric))
    # the oracle's values are rounded to 9 decimals (to merge equal means)
    assert diff.mean() == pytest.approx(sum(v * p for v, p in law_a.items())
                                        - sum(v * p for v, p in law_b.items()), abs=1e-9)


def test_rr_grid_brackets_the_exact_law():
    spec = {"a": ([1, 1, 1, 1, 0], [0, 1, 0, 0, 1], []), "b": ([1, 1, 1], [1, 0, 1], []),
            "c": ([1, 0.5, 0.5, 0.5], [0, 0, 1, 0], [])}
    table = table_of(spec)
    expected = joint_mean_law(spec, "RR", dict.fromkeys(spec, True))
    step = 1e-3
    law = run_mean_law(table, "RR", step=step)
    assert law.error == step / 2
    assert law.mean() == pytest.approx(sum(v * p for v, p in expected.items()), abs=step / 2)
    for value in [0.3, 0.45, 0.5, 0.6, 0.8]:
        true_below = sum(p for v, p in expected.items() if v < value)
        low, high = law.below_bounds(value)
        assert low - 1e-12 <= true_below <= high + 1e-12


def test_lattice_refusals_name_the_way_out():
    table = table_of({"a": ([1, 1, 1], [1, 0, 1], []), "b": ([1, 1], [0, 1], [])})
    with pytest.raises(ValueError, match="no common lattice; pass step="):
        run_mean_law(table, "RR")
    with pytest.raises(ValueError, match="max_cells"):
        run_mean_law(table, "RR", step=1e-9, max_cells=1000)
    with pytest.raises(ValueError, match="no small discrete law"):
        run_mean_law(table, "AP")


def test_lattice_scales_to_many_queries():
    """10,000 queries of P@10 with a straddling tie: the exact law's moments equal the
    exact moments, and its total mass is 1."""
    rng = np.random.default_rng(5)
    spec = {}
    for q in range(10_000):
        n = 14
        grades = (rng.random(n) < 0.3).astype(int).tolist()
        scores = [1.0] * 4 + [0.5] * 8 + [0.0] * 2
        spec[f"q{q:05d}"] = (scores, grades, [1])
    table = table_of(spec)
    law = run_mean_law(table, "P@10")
    moments = run_moments(table, "P@10")
    assert law.pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert law.mean() == pytest.approx(moments.mean, abs=1e-12)
    assert law.variance() == pytest.approx(moments.variance, rel=1e-9)
    assert math.isclose(law.step, 1 / (10 * int((table.n_relevant > 0).sum())))
