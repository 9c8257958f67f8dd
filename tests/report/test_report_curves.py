"""The precision-recall curve with ties (issue 31) against a brute force written here: every
ordering of each query's tied documents, trec_eval's interpolated precision by its
definition (docs/metrics-reference.md 3e), then the mean over orderings, min and max per
query, averaged over queries."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate
from tiedrank.report import RECALL_LEVELS, precision_recall_curve


def _iprec(relevant_flags: list[bool], n_relevant: int, rho: float) -> float:
    c = max(int(math.floor(rho * n_relevant + 0.5)), 1)  # lround, half away from zero
    ranks = [i + 1 for i, rel in enumerate(relevant_flags) if rel]
    if c > len(ranks):
        return 0.0
    return max((j + 1) / ranks[j] for j in range(c - 1, len(ranks)))


def _brute_force(run: pd.DataFrame, qrels: pd.DataFrame, rho: float) -> dict[str, float]:
    relevant = set(zip(qrels["query"], qrels["doc"]))
    per_query = {"expected": [], "worst": [], "best": []}
    for query, block in run.groupby("query"):
        groups = [list(g["doc"]) for _, g in block.groupby("score", sort=True)][::-1]
        n_rel = int((qrels["query"] == query).sum())
        values = []
        for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
            docs = [d for order in orders for d in order]
            values.append(_iprec([(query, d) in relevant for d in docs], n_rel, rho))
        per_query["expected"].append(np.mean(values))
        per_query["worst"].append(min(values))
        per_query["best"].append(max(values))
    return {k: float(np.mean(v)) for k, v in per_query.items()}


def test_curve_is_the_brute_force_per_level():
    rng = np.random.default_rng(11)
    rows, qrels = [], []
    for q in range(5):
        docs = [f"d{j}" for j in range(6)]
        scores = rng.integers(0, 3, size=6).astype(float)  # three score levels: ties
        rows += [(f"q{q}", d, s) for d, s in zip(docs, scores)]
        qrels += [(f"q{q}", d, 1) for d in rng.choice(docs, size=3, replace=False)]
    run = pd.DataFrame(rows, columns=["query", "doc", "score"])
    qrels = pd.DataFrame(qrels, columns=["query", "doc", "relevance"])
    ev = evaluate({"A": run}, qrels, ["AP"], ties="all")
    curve = precision_recall_curve(ev)
    assert curve["recall"].tolist() == list(RECALL_LEVELS)
    for row in curve.itertuples(index=False):
        oracle = _brute_force(run, qrels, row.recall)
        assert row.expected == pytest.approx(oracle["expected"], abs=1e-12)
        assert row.worst == pytest.approx(oracle["worst"], abs=1e-12)
        assert row.best == pytest.approx(oracle["best"], abs=1e-12)
    assert (curve["best"] > curve["worst"]).any()  # the example has a band


def test_unknown_run_is_named():
    run = pd.DataFrame({"query": "1", "doc": ["x"], "score": [1.0]})
    qrels = pd.DataFrame({"query": ["1"], "doc": ["x"], "relevance": 1})
    with pytest.raises(ValueError, match="'B' not in the evaluation"):
        precision_recall_curve(evaluate({"A": run}, qrels, ["AP"]), runs=["B"])
