"""The engine against independent oracles: brute-force enumeration of every tie ordering.

For thousands of random small runs (several queries, ties, graded labels, unretrieved
relevant documents, cutoffs), per query: expected == mean of the enumeration, best ==
max, worst == min; the input and random policies are one of the enumerated values;
without ties all policies agree.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from oracles import enumerate_metric, make_inputs
from tiedrank import EvaluationOptions
from tiedrank.metrics import metric_values
from tiedrank.core.ties import build_tie_table

ENUMERATED = [("RR", None), ("RR", 2), ("Success", 1), ("Success", 3), ("P", 1), ("P", 3),
              ("R", 2), ("R", 5), ("Rprec", None), ("AP", None), ("AP", 3), ("DCG", 3),
              ("nDCG", None), ("nDCG", 2), ("nDCG", 4)]
CHECKED = {"cases": 0}


@pytest.fixture(scope="module", autouse=True)
def report_case_count():
    yield
    print(f"\n[oracle] per-query metric values checked against full enumeration: {CHECKED['cases']}")


def metric_name(family, k):
    return family if k is None else f"{family}@{k}"


@st.composite
def small_query(draw):
    n = draw(st.integers(1, 7))
    scores = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=n, max_size=n))
    grades = draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(0, 3), max_size=2))
    return scores, grades, extra


@settings(max_examples=examples(100, deep=1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(small_query(), min_size=1, max_size=3), rel_level=st.integers(1, 2),
       gain=st.sampled_from(["linear", "exp"]))
def test_policies_match_enumeration(queries, rel_level, gain):
    spec = {f"q{i}": q for i, q in enumerate(queries)}
    run, qrels = make_inputs(spec)
    table = build_tie_table(run, qrels, EvaluationOptions(rel_level=rel_level))
    resolved = {p: table.resolve(p, seed=7) for p in ("best", "worst", "input", "random")}
    for family, k in ENUMERATED:
        name = metric_name(family, k)
        expected = metric_values(table, name, gain=gain)
        best = metric_values(resolved["best"], name, gain=gain)
        worst = metric_values(resolved["worst"], name, gain=gain)
        for i, qid in enumerate(table.queries):
            scores, grades, extra = spec[qid]
            values = enumerate_metric(family, k, scores, grades, extra, rel_level, gain)
            assert expected[i] == pytest.approx(values.mean(), abs=1e-12), (name, qid)
            assert best[i] == pytest.approx(values.max(), abs=1e-12), (name, qid)
            assert worst[i] == pytest.approx(values.min(), abs=1e-12), (name, qid)
            for policy in ("input", "random"):
                value = metric_values(resolved[policy], name, gain=gain)[i]
                assert np.isclose(values, value, atol=1e-12).any(), (name, policy)
            CHECKED["cases"] += 1


@settings(max_examples=examples(100, deep=300), deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_without_ties_every_policy_agrees(n, data):
    scores = data.draw(st.lists(st.floats(-5, 5, allow_nan=False), min_size=n, max_size=n,
                                unique=True))
    grades = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    run, qrels = make_inputs({"q": (scores, grades, [1])})
    table = build_tie_table(run, qrels)
    for name in ["RR", "P@5", "R@10", "AP", "nDCG@10", "Rprec", "Success@3", "DCG@5"]:
        expected = metric_values(table, name)
        for policy in ("best", "worst", "trec_eval", "input", "random"):
            assert metric_values(table.resolve(policy, seed=1), name) == pytest.approx(expected, abs=1e-12)


def test_policy_tie_break_orders():
    # group of three tied docs: grades 0, 2, 1 with ids q-d000, q-d001, q-d002 (file order)
    run, qrels = make_inputs({"q": ([1.0, 1.0, 1.0], [0, 2, 1], [])})
    table = build_tie_table(run, qrels)
    order = lambda p: list(table.resolve(p, seed=0).doc_grade)
    assert order("best") == [2, 1, 0]
    assert order("worst") == [0, 1, 2]
    assert order("input") == [0, 2, 1]
    assert order("trec_eval") == [1, 2, 0]  # docno descending: d002, d001, d000
    assert sorted(order("random")) == [0, 1, 2]


def test_random_policy_is_uniform_over_orderings():
    run, qrels = make_inputs({"q": ([1.0] * 3, [0, 1, 0], [])})
    table = build_tie_table(run, qrels)
    firsts = [metric_values(table.resolve("random", seed=s), "RR")[0] for s in range(3000)]
    counts = np.unique(np.round(firsts, 6), return_counts=True)[1] / 3000
    assert np.allclose(counts, 1 / 3, atol=0.04)


def test_large_tied_group_is_numerically_stable():
    """100,000 tied documents, 3 relevant, 100,000 documents above: closed forms vs exact sums."""
    t, r, a = 100_000, 3, 100_000
    scores = [2.0] * a + [1.0] * t
    grades = [0] * a + [1] * r + [0] * (t - r)
    run, qrels = make_inputs({"q": (scores, grades, [])})
    table = build_tie_table(run, qrels)
    c = math.comb(t, r)
    p = [math.comb(t - j, r - 1) / c for j in range(1, t - r + 2)]  # exact integer ratios
    assert math.fsum(p) == pytest.approx(1.0, abs=1e-12)
    exact_rr = math.fsum(pj / (a + j) for j, pj in enumerate(p, start=1))
    assert metric_values(table, "RR")[0] == pytest.approx(exact_rr, rel=1e-10)
    # E[AP] = (1/R) sum_j E[#rel in top (a+j) | doc at a+j relevant] ... via linearity:
    # each relevant doc at position j contributes E[(1 + #other relevant above)/(a+j)].
    exact_ap = math.fsum((r / t) * (1 + (j - 1) * (r - 1) / (t - 1)) / (a + j)
                         for j in range(1, t + 1)) / r
    assert metric_values(table, "AP")[0] == pytest.approx(exact_ap, rel=1e-10)
    exact_success = 1 - math.prod((t - r - i) / (t - i) for i in range(500))
    assert metric_values(table, f"Success@{a + 500}")[0] == pytest.approx(exact_success, rel=1e-10)
    assert np.isfinite(metric_values(table, "nDCG@10")[0])


@settings(max_examples=200, deadline=None)
@given(query=small_query(), rel_level=st.integers(1, 2))
def test_teaching_enumerator_matches_oracle(query, rel_level):
    """tiedrank.sampling.enumerate_orderings lists exactly the oracle's orderings and values."""
    from tiedrank.sampling import count_orderings, enumerate_orderings

    scores, grades, extra = query
    names = ["RR", "AP", "nDCG@3", "P@2"]
    table = enumerate_orderings(scores, grades, names, rel_level=rel_level,
                                unretrieved_grades=extra)
    assert len(table) == count_orderings(scores)
    for name, (family, k) in zip(names, [("RR", None), ("AP", None), ("nDCG", 3), ("P", 2)]):
        oracle = enumerate_metric(family, k, scores, grades, extra, rel_level)
        assert np.allclose(np.sort(table[name].to_numpy()), np.sort(oracle), atol=1e-12)


def test_enumerator_refuses_large_inputs():
    from tiedrank.sampling import enumerate_orderings

    with pytest.raises(ValueError, match="3,628,800 orderings exceed the limit of 40,320"):
        enumerate_orderings([1.0] * 10, [1] + [0] * 9, ["RR"])
