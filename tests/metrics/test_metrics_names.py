"""Metric names of the peers: trec_eval's and ranx's spellings, and Hits@k as a count.

``hits@k`` is a count in ranx and TRM (the number of relevant documents in the top k); it
must never come out as Success@k, a rate. Checked against the definition on every ordering
(brute force) and against ranx itself.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from oracles import all_orderings, make_inputs
from tiedrank import evaluate, parse_metric, read_qrels, read_run
from tiedrank.core.data import Qrels, Run

LLM = "sample_data/llmjudge"
SPELLINGS = {  # peer spelling -> ours
    "recip_rank": "RR", "P_10": "P@10", "P.10": "P@10", "map": "AP", "map_cut_10": "AP@10",
    "map_cut.10": "AP@10", "ndcg": "nDCG", "ndcg_cut_10": "nDCG@10", "ndcg_cut.10": "nDCG@10",
    "recall_100": "R@100", "recall.100": "R@100", "Rprec": "Rprec", "success_10": "Success@10",
    "success.10": "Success@10", "mrr": "RR", "mrr@10": "RR@10", "ndcg@10": "nDCG@10",
    "precision@10": "P@10", "recall@100": "R@100", "map@100": "AP@100", "r-precision": "Rprec",
    "hit_rate@10": "Success@10", "hits@10": "Hits@10",
}


@pytest.mark.parametrize("spelling, ours", SPELLINGS.items())
def test_peer_spellings_parse_to_ours(spelling, ours):
    assert parse_metric(spelling).name == ours


def test_peer_spellings_give_the_same_numbers():
    qrels = read_qrels(f"{LLM}/qrels.test.txt")
    run = read_run(f"{LLM}/runs/Olz-gpt4o.txt", format="trec_qrels")
    ours = evaluate(run, qrels, sorted(set(SPELLINGS.values())), ties="all", rel_level=2).summary
    for spelling, name in SPELLINGS.items():
        theirs = evaluate(run, qrels, [spelling], ties="all", rel_level=2).summary
        expected = ours[ours["metric"] == name]["value"].to_numpy()
        np.testing.assert_array_equal(theirs["value"].to_numpy(), expected, err_msg=spelling)


def _hits(order, grades, k, rel_level=1):
    return sum(1 for i in order[:k] if grades[i] >= rel_level)


@pytest.mark.parametrize("seed", range(40))
def test_hits_is_the_count_over_every_ordering(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    scores = list(rng.integers(0, 3, n).astype(float))
    grades = list(rng.integers(0, 3, n))
    k = int(rng.integers(1, n + 1))
    run, qrels = make_inputs({"q": (scores, grades, [])})
    report = evaluate(run, qrels, [f"Hits@{k}"], ties="all").report().iloc[0]
    values = [_hits(o, grades, k) for o in all_orderings(scores)]
    assert report["expected"] == pytest.approx(np.mean(values), abs=1e-12)
    assert report["best"] == max(values) and report["worst"] == min(values)
    p_at_k = evaluate(run, qrels, [f"P@{k}"], ties="expected").report().iloc[0]["expected"]
    assert report["expected"] == pytest.approx(k * p_at_k, abs=1e-12)


def test_hits_equals_ranx_hits_and_success_equals_ranx_hit_rate():
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(7)
    queries = [f"q{i}" for i in range(30)]
    run_rows = [(q, f"d{j}", float(s)) for q in queries
                for j, s in enumerate(rng.permutation(40) + 0.5)]  # no ties
    qrel_rows = [(q, f"d{j}", int(rng.integers(1, 3))) for q in queries
                 for j in rng.choice(40, size=20, replace=False)]
    run = Run("r", pd.DataFrame(run_rows, columns=["query", "doc", "score"]))
    qrels = Qrels(pd.DataFrame(qrel_rows, columns=["query", "doc", "relevance"]))
    ours = evaluate(run, qrels, ["hits@10", "hit_rate@10"], ties="trec_eval").summary
    ranx_run = ranx.Run({q: {d: s for _, d, s in rows} for q, rows in
                         itertools.groupby(run_rows, key=lambda r: r[0])})
    ranx_qrels = ranx.Qrels({q: {d: g for _, d, g in rows} for q, rows in
                             itertools.groupby(qrel_rows, key=lambda r: r[0])})
    theirs = ranx.evaluate(ranx_qrels, ranx_run, ["hits@10", "hit_rate@10"])
    got = dict(zip(ours["metric"].astype(str), ours["value"]))
    assert got["Hits@10"] == pytest.approx(theirs["hits@10"], abs=1e-12)
    assert got["Success@10"] == pytest.approx(theirs["hit_rate@10"], abs=1e-12)
    assert got["Hits@10"] > 1  # a count, not a rate
