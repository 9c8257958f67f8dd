"""trec_eval's all_trec measures of tiedrank/metrics/trec_gains.py (utility, unj, rbp graded,
rbp_resid, binG, ndcg_rel, Rndcg, relstring) against independent oracles: trec_eval's C
loops transcribed below and run on every tie ordering (expected = mean, best = max,
worst = min), and pytrec_eval (trec_eval's C code) per query. trec_eval's own output on the
fixtures is compared line by line in tests/cli/test_cli_trec_format.py.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from oracles import all_orderings, check_per_query_against_pytrec_eval, make_inputs
from tiedrank import EvaluationOptions
from tiedrank.evaluation import evaluate
from tiedrank.metrics import metric_values, parse_metric
from tiedrank.metrics.trec_gains import relevance_strings
from tiedrank.core.ties import build_tie_table

NONPOOL, UNJUDGED = -1, -2  # trec_eval.h: RELVALUE_NONPOOL, RELVALUE_UNJUDGED


# ---- trec_eval 10's loops (m_<name>.c), line by line, on one ranked list ---------------------
def _codes(ranked: list) -> list[int]:
    """Our grades (None: absent from the qrels; < 0: pooled, unjudged) as trec_eval's codes."""
    return [NONPOOL if g is None else UNJUDGED if g < 0 else g for g in ranked]


def _gains(judged: list[int]) -> list[tuple[int, float, int]]:
    """gain_init.c's setup_gains: (level, gain = level, judged count) for 0..top grade."""
    top = max([g for g in judged if g >= 0], default=-1)
    return [(level, float(level), sum(g == level for g in judged)) for level in range(top + 1)]


def _gain(rel: int, gains) -> float:
    return next((gain for level, gain, _ in gains if level == rel), 0.0)


class _Ideal:
    """The ideal gain walk of m_ndcg_rel.c / m_Rndcg.c (cur_level, num_at_level)."""

    def __init__(self, gains):
        self.gains, self.level, self.at = gains, len(gains) - 1, 0
        self.gain = gains[-1][1] if gains else 0.0

    def step(self) -> float:
        self.at += 1
        while self.level >= 0 and self.at > self.gains[self.level][2]:
            self.at, self.level = 1, self.level - 1
            self.gain = self.gains[self.level][1] if self.level >= 0 else 0.0
        return self.gain


def trec_eval_loop(name: str, param, ranked: list, judged: list[int], rel_level: int) -> float:
    rels, n = _codes(ranked), len(ranked)
    num_rel = sum(g >= rel_level for g in judged)
    if name == "utility":  # m_utility.c, num_docs_in_coll = 0
        a, b, c, d = param
        rel_ret = sum(r >= rel_level for r in rels)
        return a * rel_ret + b * (n - rel_ret) + c * (num_rel - rel_ret) + d * (rel_ret - n - num_rel)
    if name == "unj":  # m_unjudged.c
        return sum(r < 0 for r in rels[:param]) / param
    if name == "rbp_resid":  # m_rbp_resid.c
        total, weight, unjudged = 0.0, 1.0, 0
        for r in rels:
            if r < 0:
                unjudged, total = unjudged + 1, total + weight
            weight *= param
        return weight + (1 - param) * total if unjudged else 0.0
    if name == "rbp":  # m_rbp.c, gains scaled into [0, 1] (min, max start at 0: see rbp_gains)
        gains = _gains(judged)
        low, high = min([0.0] + [g for _, g, _ in gains]), max([0.0] + [g for _, g, _ in gains])
        if low < 0 or high > 1:
            gains = [(lv, (g - low) / (high - low), c) for lv, g, c in gains]
        total, weight = 0.0, 1.0
        for r in rels:
            total += _gain(r, gains) * weight
            weight *= param
        return (1 - param) * total
    if name == "binG":  # m_binG.c
        rel_so_far, total = 0, 0.0
        for i, r in enumerate(rels):
            if r >= rel_level:
                rel_so_far += 1
                total += 1.0 / math.log2(3 + i - rel_so_far)
        return total / num_rel if rel_so_far else 0.0
    gains = _gains(judged)
    ideal = _Ideal(gains)
    dcg = ideal_dcg = total = 0.0
    i = 0
    if name == "ndcg_rel":  # m_ndcg_rel.c
        rel_ret = num_pos = 0
        while i < n and ideal.gain > 0.0:
            g = _gain(rels[i], gains)
            dcg += g / math.log2(i + 2)
            if ideal.step() > 0.0:
                num_pos += 1
                ideal_dcg += ideal.gain / math.log2(i + 2)
            if g > 0:
                total, rel_ret = total + dcg / ideal_dcg, rel_ret + 1
            i += 1
        while i < n:
            g = _gain(rels[i], gains)
            dcg += g / math.log2(i + 2)
            if g > 0:
                total, rel_ret = total + dcg / ideal_dcg, rel_ret + 1
            i += 1
        while ideal.gain > 0.0:
            if ideal.step() > 0.0:
                num_pos += 1
                ideal_dcg += ideal.gain / math.log2(i + 2)
            i += 1
        if num_pos > rel_ret:
            total += (num_pos - rel_ret) * dcg / ideal_dcg
        return total / num_pos if total > 0.0 else 0.0
    if name == "Rndcg":  # m_Rndcg.c
        if num_rel == 0:
            return 0.0
        changes, old = 0, ideal.gain
        while i < n and ideal.gain > 0.0:
            g = _gain(rels[i], gains)
            if ideal.step() != old:
                if ideal_dcg > 0.0:
                    total, changes = total + dcg / ideal_dcg, changes + 1
                old = ideal.gain
            dcg += g / math.log2(i + 2)
            if ideal.gain > 0.0:
                ideal_dcg += ideal.gain / math.log2(i + 2)
            i += 1
        if i < n:
            while i < n:
                dcg += _gain(rels[i], gains) / math.log2(i + 2)
                i += 1
            if ideal_dcg > 0.0:
                total, changes = total + dcg / ideal_dcg, changes + 1
        while ideal.gain > 0.0:
            if ideal.step() != old:
                if ideal_dcg > 0.0:
                    total, changes = total + dcg / ideal_dcg, changes + 1
                old = ideal.gain
            if ideal.gain > 0.0:
                ideal_dcg += ideal.gain / math.log2(i + 2)
            i += 1
        return total / changes
    raise ValueError(name)


def trec_eval_relstring(ranked: list, length: int = 10) -> str:
    """m_relstring.c."""
    return "".join(">" if r > 9 else str(r) if r >= 0 else "-" if r == NONPOOL else "."
                   for r in _codes(ranked)[:length])


# ---- every tie ordering ---------------------------------------------------------------------
@st.composite
def tied_query(draw):
    """A small tied graded query: documents absent from the qrels (None), pooled but unjudged
    (-1), grades 0..3, and judged documents the run never retrieves."""
    n = draw(st.integers(1, 7))
    scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
    grades = draw(st.lists(st.one_of(st.none(), st.integers(-1, 3)), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(-1, 3), max_size=3))
    return scores, grades, extra + [0]  # one judged document at least: the query is evaluated


def our_name(family: str, param) -> str:
    if family == "utility":
        return f"utility({', '.join(map(str, param or (1, -1, 0, 0)))})"
    return {"unj": f"unj@{param}", "rbp": f"RBP_graded(p={param})",
            "rbp_resid": f"rbp_resid(p={param})"}.get(family, family)


def orderings(family, param, scores, grades, extra, rel_level) -> np.ndarray:
    judged = [g for g in grades if g is not None] + list(extra)
    return np.array([trec_eval_loop(family, param, [grades[i] for i in order], judged, rel_level)
                     for order in all_orderings(scores)])


FAMILIES = ("utility", "unj", "rbp", "rbp_resid", "binG", "ndcg_rel", "Rndcg")


@settings(max_examples=examples(80, deep=800), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(tied_query(), min_size=1, max_size=3), rel_level=st.integers(1, 2),
       p=st.sampled_from([0.5, 0.8, 0.95]), k=st.integers(1, 8),
       coefficients=st.sampled_from([(1, -1, 0, 0), (2, -1, 0.5, 0.25)]))
def test_policies_match_enumeration(queries, rel_level, p, k, coefficients):
    spec = {f"q{i}": q for i, q in enumerate(queries)}
    table = build_tie_table(*make_inputs(spec), EvaluationOptions(rel_level=rel_level))
    params = {"utility": coefficients, "unj": k, "rbp": p, "rbp_resid": p}
    for family in FAMILIES:
        name = our_name(family, params.get(family))
        expected = metric_values(table, name)
        best = metric_values(table, name, extreme="best")
        worst = metric_values(table, name, extreme="worst")
        for i, qid in enumerate(table.queries):
            oracle = orderings(family, params.get(family), *spec[qid], rel_level)
            assert expected[i] == pytest.approx(oracle.mean(), abs=1e-12), (name, qid)
            assert best[i] == pytest.approx(oracle.max(), abs=1e-12), (name, qid)
            assert worst[i] == pytest.approx(oracle.min(), abs=1e-12), (name, qid)


@settings(max_examples=examples(25, deep=150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(tied_query(), min_size=1, max_size=3), rel_level=st.integers(1, 2))
def test_evaluate_scores_every_policy(queries, rel_level):
    """Through evaluate(): unj and rbp_resid read unjudged documents in groups without a
    relevant one (the whole table) and take their own best and worst; trec_eval's order is
    score descending, then docno descending."""
    spec = {f"q{i}": q for i, q in enumerate(queries)}
    run, qrels = make_inputs(spec)
    names = [our_name(f, {"unj": 3, "rbp": 0.9, "rbp_resid": 0.9}.get(f)) for f in FAMILIES]
    ev = evaluate({"r": run}, qrels, names, ties="all", rel_level=rel_level)
    got = ev.per_query.set_index(["query", "metric", "policy"])["value"]
    for qid, (scores, grades, extra) in spec.items():
        docs = [f"{qid}-d{i:03d}" for i in range(len(scores))]
        trec_order = sorted(range(len(scores)), key=lambda i: (scores[i], docs[i]), reverse=True)
        judged = [g for g in grades if g is not None] + extra
        for family, name in zip(FAMILIES, names):
            param = {"unj": 3, "rbp": 0.9, "rbp_resid": 0.9, "utility": (1, -1, 0, 0)}.get(family)
            oracle = orderings(family, param, scores, grades, extra, rel_level)
            metric = parse_metric(name).name
            assert got[(qid, metric, "expected")] == pytest.approx(oracle.mean(), abs=1e-12)
            assert got[(qid, metric, "best")] == pytest.approx(oracle.max(), abs=1e-12)
            assert got[(qid, metric, "worst")] == pytest.approx(oracle.min(), abs=1e-12)
            at_trec = trec_eval_loop(family, param, [grades[i] for i in trec_order], judged,
                                     rel_level)
            assert got[(qid, metric, "trec_eval")] == pytest.approx(at_trec, abs=1e-12)


def test_unjudged_extremes_are_not_the_grade_orders():
    """An unjudged document tied with a judged non-relevant one: both have grade 0, so the
    grade orders keep the file order, yet unj@1 is 1 with the unjudged one first, 0 after."""
    spec = {"q": ([1.0, 1.0], [0, None], [])}
    table = build_tie_table(*make_inputs(spec))
    assert metric_values(table.resolve("best"), "unj@1")[0] == 0.0  # file order
    assert metric_values(table, "unj@1", extreme="best")[0] == 1.0
    assert metric_values(table, "unj@1", extreme="worst")[0] == 0.0
    assert metric_values(table, "unj@1")[0] == 0.5


def test_relstring_is_read_off_trec_evals_order():
    spec = {"q": ([2.0, 1.0, 1.0, 1.0, 0.5] + [0.1] * 8, [12, None, -1, 2, 0] + [1] * 8, [3])}
    table = build_tie_table(*make_inputs(spec))
    docs = [f"q-d{i:03d}" for i in range(13)]
    scores, grades = spec["q"][0], spec["q"][1]
    order = sorted(range(13), key=lambda i: (scores[i], docs[i]), reverse=True)
    want = trec_eval_relstring([grades[i] for i in order])
    assert relevance_strings(table.resolve("trec_eval")).tolist() == [want]
    assert len(want) == 10 and want.startswith(">")


def test_relstring_lines_only_under_an_ordering(tmp_path):
    """--format trec_eval prints relstring for an ordering (trec_eval's, the best case...),
    never for the expectation: a string has no mean."""
    run, qrels = make_inputs({"q": ([1.0, 1.0, 0.5], [2, None, 0], [])})
    ev = evaluate({"r": run}, qrels, ["binG"], ties="all")
    text = {p: ev.to_trec_eval(p, counts=["relstring"]) for p in ("trec_eval", "expected",
                                                                  "best")}
    assert "relstring             \tq\t'-20'" in text["trec_eval"]  # d001 before d000
    assert "relstring             \tq\t'2-0'" in text["best"]
    assert "relstring" not in text["expected"]


# ---- pytrec_eval (trec_eval's C code) per query: tie-free runs under every policy, tied runs
# under trec_eval's order. One evaluator per example, kept alive (trec_eval's global state).
pytrec_eval = pytest.importorskip("pytrec_eval")
PYTREC = {"binG": "binG", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg", "utility": "utility"}


@settings(max_examples=examples(20, deep=100), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rel_level=st.integers(1, 2), judged_only=st.booleans())
def test_pytrec_eval_per_query(seed, rel_level, judged_only):
    assert check_per_query_against_pytrec_eval(seed, rel_level, judged_only, PYTREC)


def test_parameters_and_names():
    assert parse_metric("rbp_graded(0.8)").name == "RBP_graded(p=0.8)"
    assert parse_metric("unj_5").name == "unj@5"
    with pytest.raises(ValueError, match="p must be in"):
        parse_metric("rbp_resid(p=1.5)")
    with pytest.raises(ValueError, match="needs a cutoff"):
        parse_metric("unj")
