"""E[gm_map] and E[gm_bpref] themselves (issue 32): against every joint ordering of small tied
runs, each scored by pytrec_eval (trec_eval's C code) and summarised as trec_eval does
(exp of the mean of log max(v, 0.00001)). The evaluation's "expected" gm_map is another
number, the geometric mean of the per-query expectations: the test shows the two apart."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import tiedrank
from tiedrank import Qrels, Run, build_tie_table
from tiedrank.stats import expected_geometric_mean

FLOOR = 0.00001


def _tied_case(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(3):
        docs = [f"d{i}" for i in range(int(rng.integers(2, 6)))]
        scores = rng.integers(0, 3, len(docs)).astype(float)  # ties at three levels
        for doc, score in zip(docs, scores):
            run.append((str(q), doc, score))
            if rng.random() < 0.7:
                qrels.append((str(q), doc, int(rng.integers(0, 3))))
        qrels.append((str(q), "unretrieved", 1))  # every query has a relevant document
    return (pd.DataFrame(qrels, columns=["query", "doc", "relevance"]),
            pd.DataFrame(run, columns=["query", "doc", "score"]))


def _pytrec_gm(qrels: pd.DataFrame, run: pd.DataFrame, measure: str) -> float:
    """The mean over every joint ordering of trec_eval's geometric mean of ``measure``."""
    import pytrec_eval

    judged = {q: dict(zip(g["doc"], g["relevance"].astype(int))) for q, g in qrels.groupby("query")}
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {measure})
    per_query = []
    for q, block in run.groupby("query"):  # every ordering of each query's ties, scored alone
        levels = sorted(set(block["score"]), reverse=True)
        groups = [list(block.loc[block["score"] == s, "doc"]) for s in levels]
        values = []
        for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
            order = [d for part in parts for d in part]
            scored = {q: {d: float(len(order) - i) for i, d in enumerate(order)}}
            values.append(evaluator.evaluate(scored)[q][measure])
        per_query.append(np.array(values))
    n = len(per_query)
    total = 0.0  # the mean over the joint orderings (their product), summed query by query
    for joint in itertools.product(*per_query):
        total += math.exp(sum(math.log(max(v, FLOOR)) for v in joint) / n)
    return total / math.prod(len(v) for v in per_query)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric, measure", [("gm_map", "map"), ("gm_bpref", "bpref")])
def test_expected_geometric_mean_is_the_mean_over_every_joint_ordering(seed, metric, measure):
    qrels, run = _tied_case(seed)
    table = build_tie_table(Run("r", run), Qrels(qrels))
    assert expected_geometric_mean(table, metric) == pytest.approx(
        _pytrec_gm(qrels, run, measure), abs=1e-12)


def test_the_evaluations_expected_gm_is_the_geometric_mean_of_the_expectations():
    qrels, run = _tied_case(1)
    evaluation = tiedrank.evaluate({"r": run}, qrels, ["gm_map", "AP"])
    per_query = evaluation.per_query
    ap = per_query[per_query["metric"] == "AP"]["value"].to_numpy()
    reported = float(evaluation.summary.query("metric == 'gm_map'")["value"].iloc[0])
    assert reported == pytest.approx(math.exp(np.log(np.maximum(ap, FLOOR)).mean()), abs=1e-15)
    exact = expected_geometric_mean(build_tie_table(Run("r", run), Qrels(qrels)))
    assert exact < reported  # Jensen: the tie penalty plus a variance penalty


def test_a_linear_summary_and_too_many_orderings_are_refused():
    qrels, run = _tied_case(0)
    table = build_tie_table(Run("r", run), Qrels(qrels))
    with pytest.raises(ValueError, match="AP is summarised by its mean, which is linear"):
        expected_geometric_mean(table, "AP")
    big = pd.DataFrame({"query": "1", "doc": [f"d{i}" for i in range(9)], "score": 1.0})
    table = build_tie_table(Run("r", big), Qrels(pd.DataFrame({"query": ["1"], "doc": ["d0"],
                                                               "relevance": [1]})))
    with pytest.raises(ValueError, match="query '1' of run 'r' has 362,880 orderings"):
        expected_geometric_mean(table)
