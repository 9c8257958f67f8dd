"""Compat (tiedrank/metrics/compat.py) against ir_measures' compat provider on every tie
ordering, and against plain transcriptions of its definition.

The random tied queries of tests/metrics/test_metrics_peer_measures.py (graded 0..4,
documents absent from the qrels, pooled but unjudged (-1), judged documents never retrieved,
queries without a relevant document); every ordering of every query becomes a query of its own
with distinct positive scores and ir_measures scores all of them in one call (its ideal ranking
then follows that ordering). Expected == mean, best == max, worst == min over the orderings;
on tie-free runs the trec_eval-order value equals ir_measures'.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import tiedrank
from tiedrank.core.data import Qrels, Run
from tiedrank.core.ties import build_tie_table
from tiedrank.metrics import metric_values
from tiedrank.metrics import compat as C
from test_metrics_peer_measures import (assert_matches, by_query, draw_queries, frames,
                                        ir_measures_values, peer_inputs)

ir_measures = pytest.importorskip("ir_measures")
TIED = draw_queries(seed=20261128, count=90)
SETTINGS = [(0.95, True), (0.95, False), (0.5, True), (0.8, False)]


def metric_name(p: float, normalize: bool) -> str:
    return f"Compat(p={p}, normalize={normalize})"


def compat_definition(ranked: list, ideal: list, p: float, normalize: bool) -> float:
    """Clarke et al.'s compatibility written from its definition: RBO to depth max(n, R),
    set overlaps of the prefixes, over the finite weight sum (and over RBO(ideal, ideal))."""
    depth = max(len(ranked), len(ideal))

    def rbo(x, y):
        return sum(p ** (i - 1) * len(set(x[:i]) & set(y[:i])) / i
                   for i in range(1, depth + 1)) / sum(p ** (i - 1) for i in range(1, depth + 1))
    if not ideal:
        return 0.0
    return rbo(ranked, ideal) / rbo(ideal, ideal) if normalize else rbo(ranked, ideal)


@pytest.fixture(scope="module")
def peer_run():
    return peer_inputs(TIED)


@pytest.mark.parametrize("p, normalize", SETTINGS)
def test_compat_equals_ir_measures_on_every_ordering(peer_run, p, normalize):
    run, qrels, owner = peer_run
    values = ir_measures_values(ir_measures.Compat(p=p, normalize=normalize), run, qrels)
    assert_matches(TIED, metric_name(p, normalize), by_query(values, owner), 1e-12,
                   "ir_measures compat")


def test_tie_free_trec_eval_order_equals_ir_measures():
    queries = draw_queries(seed=11, count=30, tie_free=True)
    run, qrels = frames(queries)
    measures = [ir_measures.Compat, ir_measures.Compat(p=0.7, normalize=False)]
    ev = tiedrank.evaluate({"r": run}, qrels, measures, ties=["trec_eval", "input"])
    got = ev.per_query.set_index(["query", "metric", "policy"])["value"]
    peer_run, peer_qrels, _ = peer_inputs(queries)
    for measure in measures:
        name = tiedrank.parse_metric(measure).name
        want = ir_measures_values(measure, peer_run, peer_qrels)
        for q in queries:
            for policy in ("trec_eval", "input"):
                assert got[q, name, policy] == pytest.approx(want[f"{q}0000"], abs=1e-12)


def test_one_large_group_equals_every_permutation():
    """Seven tied documents of grades 3, 2, 2, 1, 1, 0, unjudged behind one untied
    document, two relevant documents never retrieved: the mean, max and min of the definition
    over all 5,040 orderings (cells with m > 1 and n - m > 0, which the draw reaches rarely)."""
    grades = [3, 2, 2, 1, 1, 0, None]
    docs = [f"d{i}" for i in range(7)]
    judged = {d: g for d, g in zip(docs, grades) if g is not None} | {"u0": 2, "u1": 4}
    ideal_of = lambda ranked: sorted((d for d in judged if judged[d] > 0),  # noqa: E731
                                     key=lambda d: (-judged[d], ranked.index(d)
                                                    if d in ranked else len(ranked)))
    for p, normalize in [(0.9, True), (0.6, False)]:
        values = np.array([compat_definition(["top", *perm], ideal_of(["top", *perm]), p,
                                             normalize)
                           for perm in itertools.permutations(docs)])
        run = pd.DataFrame({"query": "1", "doc": ["top", *docs], "score": [2.0] + [1.0] * 7})
        qrels = pd.DataFrame({"query": "1", "doc": list(judged), "relevance": list(judged.values())})
        table = build_tie_table(Run("r", run), Qrels(qrels))
        name = metric_name(p, normalize)
        got = [float(metric_values(table, name, extreme=e)[0])
               for e in (None, "best", "worst")]
        assert got == pytest.approx([values.mean(), values.max(), values.min()], abs=1e-13)


def test_ir_measures_tied_run_can_fall_below_every_ordering():
    """ir_measures orders the ideal's tied documents of one grade by the qrels, not by the run:
    two tied relevant documents, qrels listing them the other way round, give 2 W(2) over
    W(1) + W(2), below the one value every ordering gives (the reference explains)."""
    run = {"1": {"a": 1.0, "b": 1.0}}
    qrels = {"1": {"b": 1, "a": 1}}
    peer = ir_measures_values(ir_measures.Compat(p=0.5), run, qrels)["1"]
    frame = pd.DataFrame({"query": "1", "doc": ["a", "b"], "score": [1.0, 1.0]})
    ev = tiedrank.evaluate({"r": frame}, pd.DataFrame({"query": "1", "doc": ["b", "a"],
                                                       "relevance": [1, 1]}),
                           ["Compat(p=0.5)"], ties=["expected", "best", "worst"])
    assert set(ev.per_query["value"].round(12)) == {1.0}
    assert peer == pytest.approx(2 * 0.25 / (1.25 + 0.25), abs=1e-12)


def test_names_parameters_and_refusals():
    assert tiedrank.parse_metric(ir_measures.Compat).name == "Compat(p=0.95)"
    assert tiedrank.parse_metric(ir_measures.Compat(p=0.8, normalize=False)).name == \
        "Compat(p=0.8, normalize=False)"
    assert tiedrank.parse_metric("compat(0.5, False)").normalize == 0.0
    with pytest.raises(ValueError, match="p must be in"):
        tiedrank.parse_metric("Compat(p=1)")
    with pytest.raises(ValueError, match="normalize"):
        tiedrank.parse_metric("Compat(normalize=maybe)")
    with pytest.raises(ValueError, match="gain="):
        tiedrank.parse_metric("Compat(gain=exp)")
    with pytest.raises(ValueError, match="rel="):
        tiedrank.parse_metric("Compat(rel=2)")
    with pytest.raises(ValueError, match="takes no cutoff"):
        tiedrank.parse_metric("Compat@10")


def test_refuses_a_cell_too_large_to_score_exactly(monkeypatch):
    monkeypatch.setattr(C, "MAX_TERMS", 50)
    run = pd.DataFrame({"query": "7", "doc": [f"d{i}" for i in range(20)], "score": 1.0})
    qrels = pd.DataFrame({"query": "7", "doc": [f"d{i}" for i in range(10)], "relevance": 1})
    table = build_tie_table(Run("r", run), Qrels(qrels))
    with pytest.raises(ValueError, match=r"Compat\(p=0.95\): query '7' has a tie group of 20 "
                                         r"documents at ranks 1..20, 10 of them of one grade"):
        metric_values(table, "Compat")
    assert metric_values(table.resolve("trec_eval"), "Compat")[0] > 0  # one ordering: fine


def test_query_tails_are_the_sums_they_stand_for():
    p, depth = 0.9, np.array([40, 0, 7])
    tail, offset = C.query_tails(p, depth)
    for q, d in enumerate(depth):
        for t in range(1, d + 2):
            want = sum(p ** (i - 1) / i for i in range(t, d + 1))
            assert tail[offset[q] + t - 1] == pytest.approx(want, rel=1e-14, abs=1e-300)


def test_a_query_has_the_same_bits_alone_and_among_others():
    queries = draw_queries(seed=3, count=12)
    run, qrels = frames(queries)
    together = tiedrank.evaluate({"r": run}, qrels, ["Compat", "Compat(p=0.5, normalize=False)"],
                                 ties=["expected", "trec_eval"]).per_query
    for q in ("1003", "1007"):
        alone = tiedrank.evaluate({"r": run[run["query"] == q]}, qrels[qrels["query"] == q],
                                  ["Compat", "Compat(p=0.5, normalize=False)"],
                                  ties=["expected", "trec_eval"]).per_query
        mine = together[together["query"] == q].reset_index(drop=True)
        assert mine["value"].tolist() == alone["value"].tolist()  # bit for bit


@pytest.mark.slow  # deep profile: a double sum over exact binomials of a 400-document group
def test_large_group_against_exact_binomials():
    """One tie group of 400 documents (grades 0..3) behind a grade-2 document, a grade-3
    document never retrieved: the kernel's log-binomial law against math.comb's exact one."""
    import math
    rng = np.random.default_rng(1)
    n, p = 400, 0.95
    grades = rng.choice([0, 0, 1, 2, 3], size=n)
    docs = [f"d{i}" for i in range(n)]
    run = pd.DataFrame({"query": "1", "doc": ["top", *docs], "score": [2.0] + [1.0] * n})
    qrels = pd.DataFrame({"query": "1", "doc": [*docs, "top", "u1"],
                          "relevance": [*grades.tolist(), 2, 3]})
    got = float(metric_values(build_tie_table(Run("r", run), Qrels(qrels)),
                              "Compat(p=0.95, normalize=False)")[0])
    relevant = int((grades > 0).sum()) + 2
    depth = max(n + 1, relevant)
    tail = [0.0] * (depth + 2)
    for t in range(depth, 0, -1):
        tail[t] = tail[t + 1] + p ** (t - 1) / t
    above = {3: 1, 2: int((grades == 3).sum()) + 1, 1: int((grades >= 2).sum()) + 2}
    numerator = tail[above[2] + 1]  # "top": rank 1, first of grade 2 in the ideal
    for grade in (3, 2, 1):
        m = int((grades == grade).sum())
        b = above[grade] - (grade == 3) + (grade == 2)  # u1 is missed; top is above the group
        total = math.comb(n, m)
        numerator += sum(math.comb(j, k) * math.comb(n - 1 - j, m - 1 - k) / total
                         * tail[max(2 + j, b + 1 + k)]
                         for k in range(m) for j in range(k, k + n - m + 1))
    assert got == pytest.approx(numerator * (1 - p) / (1 - p ** depth), rel=1e-12)


def test_blocks_and_batches_do_not_change_the_value(monkeypatch):
    """Cells cut into blocks of a few terms and batched a few blocks at a time (the path of
    large tie groups) give the values of the single pass, on the tied draw and a 7-document
    group with one grade (m = 4 of n = 7: 16 terms)."""
    queries = dict(TIED)
    queries["9999"] = ([1.0] * 7, [2, 2, 0, 2, None, 2, 1], [3])
    run, qrels = frames(queries)
    table = build_tie_table(Run("r", run), Qrels(qrels))
    whole = metric_values(table, "Compat(p=0.9)")
    monkeypatch.setattr(C, "_BLOCK", 3)
    monkeypatch.setattr(C, "_CHUNK", 20)
    np.testing.assert_allclose(metric_values(table, "Compat(p=0.9)"), whole, rtol=1e-14, atol=0)
