"""trec_eval's infAP and G (tiedrank/metrics/inferred.py) against independent oracles:
trec_eval's C loops (m_infap.c, m_G.c) transcribed below and run on every tie ordering
(expected = mean, best = max, worst = min), and pytrec_eval (trec_eval's C code) per query.
trec_eval's own output on the fixtures (a pooled-unjudged one among them) is compared line
by line in tests/cli/test_cli_trec_format.py.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from oracles import all_orderings, check_per_query_against_pytrec_eval, make_inputs
from tiedrank import EvaluationOptions
from tiedrank.core.data import Qrels, Run
from tiedrank.evaluation import evaluate
from tiedrank.metrics import inferred, metric_values, parse_metric
from tiedrank.core.ties import build_tie_table

NONPOOL, UNJUDGED = -1, -2  # trec_eval.h: RELVALUE_NONPOOL, RELVALUE_UNJUDGED
INFAP_EPSILON = 0.00001     # trec_eval.h


# ---- trec_eval 10's loops, line by line, on one ranked list ------------------------------------
def _codes(ranked: list) -> list[int]:
    """Our grades (None: absent from the qrels; < 0: pooled, unjudged) as trec_eval's codes."""
    return [NONPOOL if g is None else UNJUDGED if g < 0 else g for g in ranked]


def trec_eval_infap(ranked: list, judged: list[int], rel_level: int, start: int = 0) -> float:
    """m_infap.c. ``start``: documents not in the pool ranked above the list (only j counts
    them), so that a list deep in a run costs its own length only."""
    rels = _codes(ranked)
    num_rel = sum(g >= rel_level for g in judged)
    nonrel_so_far = rel_so_far = pool_unjudged_so_far = 0
    inf_ap = 0.0
    for j in range(start, start + len(rels)):
        rel = rels[j - start]
        if rel == NONPOOL:
            continue
        if rel == UNJUDGED:
            pool_unjudged_so_far += 1
            continue
        if 0 <= rel < rel_level:
            nonrel_so_far += 1
        else:
            rel_so_far += 1
            if j == 0:
                inf_ap += 1.0
            else:
                fj = float(j)
                inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                    (rel_so_far - 1 + nonrel_so_far + pool_unjudged_so_far) / fj) * (
                    (rel_so_far - 1 + INFAP_EPSILON)
                    / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON))
    return inf_ap / num_rel if num_rel else inf_ap


def trec_eval_g(ranked: list, judged: list[int]) -> float:
    """m_G.c with gain_init.c's default gains (level i has gain i, for 0..top judged grade)."""
    rels = _codes(ranked)
    top = max([g for g in judged if g >= 0], default=-1)
    levels = [(level, float(level), sum(g == level for g in judged)) for level in range(top + 1)]

    def get_gain(rel: int) -> float:
        return next((gain for level, gain, _ in levels if level == rel), 0.0)

    results_g = sum_results = sum_ideal = sum_cost = 0.0
    cur_level = len(levels) - 1
    ideal_gain = levels[cur_level][1] if cur_level >= 0 else 0.0
    num_at_level, min_cost, i = 0, 1.0, 0
    while i < len(rels) and ideal_gain > 0.0:
        results_gain = get_gain(rels[i])
        sum_results += results_gain
        num_at_level += 1
        while cur_level >= 0 and num_at_level > levels[cur_level][2]:
            num_at_level, cur_level = 1, cur_level - 1
            ideal_gain = levels[cur_level][1] if cur_level >= 0 else 0.0
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
        sum_cost += ideal_gain if ideal_gain >= min_cost else min_cost
        if results_gain != 0:
            results_g += results_gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    while i < len(rels):
        results_gain = get_gain(rels[i])
        sum_results += results_gain
        sum_cost += min_cost
        if results_gain != 0:
            results_g += results_gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    while ideal_gain > 0.0:
        num_at_level += 1
        while cur_level >= 0 and num_at_level > levels[cur_level][2]:
            num_at_level, cur_level = 1, cur_level - 1
            ideal_gain = levels[cur_level][1] if cur_level >= 0 else 0.0
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def loop(name: str, ranked: list, judged: list[int], rel_level: int) -> float:
    if name == "infAP":
        return trec_eval_infap(ranked, judged, rel_level)
    return trec_eval_g(ranked, judged)


def orderings(name, scores, grades, extra, rel_level, judged_only=False) -> np.ndarray:
    """The measure under every ordering of the tie groups; ``judged_only``: trec_eval -J,
    which drops documents not judged with a grade >= 0 after ranking."""
    judged = [g for g in grades if g is not None] + list(extra)
    values = []
    for order in all_orderings(scores):
        ranked = [grades[i] for i in order]
        if judged_only:
            ranked = [g for g in ranked if g is not None and g >= 0]
        values.append(loop(name, ranked, judged, rel_level))
    return np.array(values)


# ---- every tie ordering ---------------------------------------------------------------------
@st.composite
def tied_query(draw):
    """A small tied graded query: documents absent from the qrels (None), pooled but unjudged
    (-1), grades 0..3 and 5, and judged documents the run never retrieves."""
    n = draw(st.integers(1, 7))
    scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
    grades = draw(st.lists(st.one_of(st.none(), st.sampled_from([-1, 0, 1, 2, 3, 5])),
                           min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(-1, 3), max_size=3))
    return scores, grades, extra + [0]  # one judged document at least: the query is evaluated


@settings(max_examples=examples(60, deep=600), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(tied_query(), min_size=1, max_size=3), rel_level=st.integers(1, 2))
def test_policies_match_enumeration(queries, rel_level):
    spec = {f"q{i}": q for i, q in enumerate(queries)}
    table = build_tie_table(*make_inputs(spec), EvaluationOptions(rel_level=rel_level))
    for name in ("infAP", "G"):
        expected = metric_values(table, name)
        best = metric_values(table, name, extreme="best")
        worst = metric_values(table, name, extreme="worst")
        for i, qid in enumerate(table.queries):
            oracle = orderings(name, *spec[qid], rel_level)
            assert expected[i] == pytest.approx(oracle.mean(), abs=1e-12), (name, qid)
            assert best[i] == pytest.approx(oracle.max(), abs=1e-12), (name, qid)
            assert worst[i] == pytest.approx(oracle.min(), abs=1e-12), (name, qid)


@settings(max_examples=examples(20, deep=150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(tied_query(), min_size=1, max_size=3), rel_level=st.integers(1, 2),
       judged_only=st.booleans())
def test_evaluate_scores_every_policy(queries, rel_level, judged_only):
    """Through evaluate(): infAP reads non-relevant and unjudged documents in groups without a
    relevant one (the whole table); both take their own best and worst; trec_eval's order is
    score descending, then docno descending; -J drops the unjudged documents first."""
    spec = {f"q{i}": q for i, q in enumerate(queries)}
    run, qrels = make_inputs(spec)
    ev = evaluate({"r": run}, qrels, ["infAP", "G"], ties="all", rel_level=rel_level,
                  judged_only=judged_only)
    got = ev.per_query.set_index(["query", "metric", "policy"])["value"]
    for qid, (scores, grades, extra) in spec.items():
        docs = [f"{qid}-d{i:03d}" for i in range(len(scores))]
        trec_order = sorted(range(len(scores)), key=lambda i: (scores[i], docs[i]), reverse=True)
        judged = [g for g in grades if g is not None] + extra
        for name in ("infAP", "G"):
            oracle = orderings(name, scores, grades, extra, rel_level, judged_only)
            assert got[(qid, name, "expected")] == pytest.approx(oracle.mean(), abs=1e-12)
            assert got[(qid, name, "best")] == pytest.approx(oracle.max(), abs=1e-12)
            assert got[(qid, name, "worst")] == pytest.approx(oracle.min(), abs=1e-12)
            ranked = [grades[i] for i in trec_order]
            if judged_only:
                ranked = [g for g in ranked if g is not None and g >= 0]
            assert got[(qid, name, "trec_eval")] == pytest.approx(
                loop(name, ranked, judged, rel_level), abs=1e-12)


@pytest.mark.parametrize("name, grades, pessimistic, worst", [
    # one relevant document tied with a pooled-unjudged one and two outside the pool: the
    # grade order puts the pooled one (-1) above it, which lifts its term (3/8); the worst
    # puts the two unpooled ones there (1/3)
    ("infAP", [-1, 1, None, None], 3 / 8, 1 / 3),
    # grades 1, 2, 3 tied alone: 1, 2, 3 gives 3/4, but 1, 3, 2 less
    ("G", [1, 2, 3], 0.75, (1 / 2 + 3 / math.log2(3) + 2) / 6),
])
def test_grade_orders_are_not_the_extremes(name, grades, pessimistic, worst):
    spec = {"q": ([1.0] * len(grades), grades, [])}
    table = build_tie_table(*make_inputs(spec))
    assert metric_values(table.resolve("worst"), name)[0] == pytest.approx(pessimistic)
    assert metric_values(table, name, extreme="worst")[0] == pytest.approx(worst)
    assert orderings(name, *spec["q"], 1).min() == pytest.approx(worst)
    assert worst < pessimistic


def test_optimistic_grade_order_is_not_gs_best():
    """A document of grade 1 above the tied grades 1, 2, 3 (cost walk 3, 5, 6, 7): the grade
    order 3, 2, 1 is not the best of the six."""
    spec = {"q": ([2.0, 1.0, 1.0, 1.0], [1, 1, 2, 3], [])}
    table = build_tie_table(*make_inputs(spec))
    oracle = orderings("G", *spec["q"], 1)
    assert metric_values(table, "G", extreme="best")[0] == pytest.approx(oracle.max())
    assert metric_values(table.resolve("best"), "G")[0] < oracle.max() - 1e-3


def test_infap_group_past_rank_50000():
    """Past rank 50,000 a judged non-relevant document placed early can raise infAP's term
    (its eps ratio outweighs one rank), so the kernel searches the whole (B, c) lattice there:
    every ordering of the group, with 120,000 documents outside the pool above it."""
    depth, group = 120_000, [1, 0, None, None, None]
    docs = [f"x{i:06d}" for i in range(depth)] + [f"g{i}" for i in range(len(group))]
    scores = np.concatenate([np.arange(depth, 0, -1) + 10.0, np.ones(len(group))])
    run = Run("r", pd.DataFrame({"query": "q", "doc": docs, "score": scores}))
    pooled = [(f"g{i}", g) for i, g in enumerate(group) if g is not None] + [("z", 2)]
    qrels = Qrels(pd.DataFrame(pooled, columns=["doc", "relevance"]).assign(query="q"))
    table = build_tie_table(run, qrels)
    judged = [g for _, g in pooled]
    oracle = np.array([trec_eval_infap([group[i] for i in order], judged, 1, start=depth)
                       for order in itertools.permutations(range(len(group)))])
    exactly = dict(rel=1e-12, abs=0)  # the values are about 4e-6
    assert inferred.inferred_ap(table)[0] == pytest.approx(oracle.mean(), **exactly)
    # the shortcut's extremes (non-relevant documents last / first) miss these by 1.7e-6 of
    # the value, far above the 1e-12 asked: the whole lattice was searched
    assert inferred.inferred_ap_extreme(table, True)[0] == pytest.approx(oracle.max(), **exactly)
    assert inferred.inferred_ap_extreme(table, False)[0] == pytest.approx(oracle.min(), **exactly)
    shortcut = [oracle[i] for i, order in enumerate(itertools.permutations(range(5)))
                if order.index(1) > order.index(0)]  # the non-relevant one after the relevant
    assert max(shortcut) < oracle.max() * (1 - 1e-6)


def test_large_groups_match_an_independent_sum():
    """A 75-document group (grades 0..3, pooled and unpooled documents) below seven untied
    ones: the kernels' expectations against the sums over what lies above one document (its
    place uniform, the others above it a uniform subset: exact integer binomials)."""
    rng = np.random.default_rng(7)
    above = [1, None, 0, -1, 2, None, 1]
    group = list(rng.choice(np.array([None, -1, 0, 0, 1, 2, 3], dtype=object), size=75))
    grades = above + group
    docs = [f"d{i:03d}" for i in range(len(grades))]
    scores = [10.0 - i for i in range(len(above))] + [1.0] * len(group)
    run = Run("r", pd.DataFrame({"query": "q", "doc": docs, "score": scores}))
    pooled = [(d, g) for d, g in zip(docs, grades) if g is not None] + [("z1", 3), ("z2", 1)]
    qrels = Qrels(pd.DataFrame(pooled, columns=["doc", "relevance"]).assign(query="q"))
    table = build_tie_table(run, qrels)
    judged = [g for _, g in pooled]
    assert inferred.inferred_ap(table)[0] == pytest.approx(
        _infap_by_others(above, group, judged), rel=1e-11)
    assert inferred.normalized_gain(table)[0] == pytest.approx(
        _g_by_others(above, group, judged), rel=1e-11)


def _infap_by_others(above, group, judged) -> float:
    """infAP's expectation from P(A relevant, B non-relevant, C pooled, D unpooled of the
    group above a relevant document) = C(.)C(.)C(.)C(.) / (n C(n - 1, A+B+C+D))."""
    total = trec_eval_infap(above, judged, 1) * sum(g >= 1 for g in judged)
    counts = [sum(g is not None and g >= 1 for g in above), sum(g == 0 for g in above),
              sum(g == -1 for g in above)]
    kinds = [sum(g is not None and g >= 1 for g in group), sum(g == 0 for g in group),
             sum(g == -1 for g in group), sum(g is None for g in group)]
    n, rel = len(group), kinds[0]
    by_size = [n * math.comb(n - 1, t) for t in range(n)]
    for a in range(rel):
        for b in range(kinds[1] + 1):
            for c in range(kinds[2] + 1):
                ways = math.comb(rel - 1, a) * math.comb(kinds[1], b) * math.comb(kinds[2], c)
                r, nr, u = counts[0] + a, counts[1] + b, counts[2] + c
                ratio = (r + INFAP_EPSILON) / (r + nr + 2 * INFAP_EPSILON)
                for d in range(kinds[3] + 1):
                    j = len(above) + a + b + c + d
                    p = ways * math.comb(kinds[3], d) / by_size[a + b + c + d]
                    total += rel * p * (1 + (r + nr + u) * ratio) / (j + 1)
    return total / sum(g >= 1 for g in judged)


def _g_by_others(above, group, judged) -> float:
    """G's expectation: each positive document of gain v, its place uniform and the count
    vector of the others above it multivariate hypergeometric."""
    ideal = sorted((g for g in judged if g >= 0), reverse=True)

    def cost(i):
        return sum(max(ideal[p] if p < len(ideal) else 0, 1) for p in range(i))

    gains_above = [max(g, 0) if g is not None else 0 for g in above]
    total, so_far = 0.0, 0
    for i, v in enumerate(gains_above):
        so_far += v
        total += v / math.log2(2 + cost(i + 1) - so_far) if v else 0.0
    gains = [max(g, 0) if g is not None else 0 for g in group]
    levels = sorted(set(gains))
    n = len(gains)
    costs = [cost(len(above) + t + 1) for t in range(n)]
    for v in (level for level in levels if level > 0):
        others = {level: gains.count(level) - (level == v) for level in levels}
        for counts in itertools.product(*(range(others[level] + 1) for level in levels)):
            t = sum(counts)
            sigma = sum(c * level for c, level in zip(counts, levels))
            ways = math.prod(math.comb(others[level], c) for c, level in zip(counts, levels))
            p = ways / (n * math.comb(n - 1, t))
            total += gains.count(v) * p * v / math.log2(2 + costs[t] - so_far - sigma - v)
    return total / sum(g for g in judged if g > 0)


def test_chunks_and_batches_do_not_change_the_values(monkeypatch):
    """Every sum streams its terms in chunks of BATCH_ELEMENTS and batches groups by size:
    with 5 elements a chunk (blocks split across chunks, one group per batch) the values
    are the same as in one piece."""
    rng = np.random.default_rng(3)
    spec = {f"q{i}": ([float(s) for s in rng.integers(0, 3, size=12)],
                      [None if g == -2 else int(g) for g in rng.integers(-2, 4, size=12)], [2, 0])
            for i in range(4)}
    table = build_tie_table(*make_inputs(spec))
    kernels = [inferred.inferred_ap, inferred.normalized_gain] + [
        lambda t, f=f, best=best: f(t, best)
        for f in (inferred.inferred_ap_extreme, inferred.normalized_gain_extreme)
        for best in (True, False)]
    whole = [kernel(table) for kernel in kernels]
    monkeypatch.setattr(inferred, "BATCH_ELEMENTS", 5)
    for kernel, value in zip(kernels, whole):
        np.testing.assert_allclose(kernel(table), value, rtol=1e-13, atol=0)
    assert (table.group_size > 5).any() and all(np.any(v > 0) for v in whole)


def test_a_lattice_past_the_limit_is_refused_with_a_message(monkeypatch):
    monkeypatch.setattr(inferred, "LATTICE_LIMIT", 11)  # grades 1, 1, 2, 3: 3 x 2 x 2 = 12
    spec = {"q": ([1.0] * 5, [1, 1, 2, 3, 0], [])}
    run, qrels = make_inputs(spec)
    with pytest.raises(ValueError, match=r"ranks 1-5 of query 'q' has 12 count vectors.*"
                                         r"pass ties='trec_eval'"):
        evaluate({"r": run}, qrels, ["G"])
    ev = evaluate({"r": run}, qrels, ["G"], ties="trec_eval")  # one ordering: no lattice
    assert ev.per_query["value"].iloc[0] > 0


# ---- pytrec_eval (trec_eval's C code) per query: tie-free runs under every policy, tied runs
# under trec_eval's order. One evaluator per example, kept alive (trec_eval's global state).
pytrec_eval = pytest.importorskip("pytrec_eval")


@settings(max_examples=examples(20, deep=100), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rel_level=st.integers(1, 2), judged_only=st.booleans())
def test_pytrec_eval_per_query(seed, rel_level, judged_only):
    assert check_per_query_against_pytrec_eval(seed, rel_level, judged_only, {"infAP": "infAP", "G": "G"})


def test_names():
    assert parse_metric("infap").name == "infAP" and parse_metric("g").name == "G"
    with pytest.raises(ValueError, match="takes no cutoff"):
        parse_metric("infAP@10")
    with pytest.raises(ValueError, match="G uses trec_eval's gains, gain = grade, or a gain map, "
                                         r"e.g. G\(gain=1:3 2:9\) .map the grades"):
        parse_metric("G(gain=exp)")  # not "a binary metric": rel= does not make G binary
    assert parse_metric("G(gain=2:9 1:3)").name == "G(gain=1:3 2:9)"  # trec_eval's G.1=3,2=9
