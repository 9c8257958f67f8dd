"""Under ``ties="trec_eval"`` tiedrank equals trec_eval's C code (pytrec_eval), per query and
in the mean, on the random tied inputs: zero-relevant queries, qrels queries the run misses,
run queries absent from the qrels, unjudged and negatively judged documents, docno byte order.

pytrec_eval evaluates the queries in both run and qrels (trec_eval without -c). It takes
``relevance_level`` (-l) and ``judged_docs_only_flag`` (-J) but has no -M: -M is emulated by
truncating the run to its first ``depth`` documents in trec_eval's order (score descending,
docno descending) before handing it over.

pytrec_eval caveat: trec_eval's C code keeps global state between evaluators, and a later
evaluator can loop forever once an earlier one is freed; the evaluations therefore run in a
child process of their own, with a deadline (:mod:`conformance_pytrec`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conformance_cases import cases, examples
from conformance_oracle import trec_order
from conformance_pytrec import trec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tiedrank

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = {"recip_rank": "RR", "map": "AP", "P_2": "P@2", "P_5": "P@5", "recall_3": "R@3",
            "ndcg_cut_3": "nDCG@3", "ndcg": "nDCG", "Rprec": "Rprec", "success_1": "Success@1",
            "success_5": "Success@5", "map_cut_3": "AP@3"}
TOL = 1e-12


def _trec_eval(qrels: dict, run: dict, rel_level: int, judged_only: bool) -> dict:
    return trec_eval(qrels, run, list(MEASURES), rel_level, judged_only)


def _truncated(run: dict, depth: int | None) -> dict:
    if depth is None:
        return run
    out = {}
    for q, scored in run.items():
        docs = list(scored)
        out[q] = {docs[i]: scored[docs[i]]
                  for i in trec_order(docs, [scored[d] for d in docs])[:depth]}
    return out


@settings(max_examples=examples(100), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), rel_level=st.integers(1, 3), judged_only=st.booleans(),
       depth=st.sampled_from([None, 1, 2, 4]))
def test_trec_eval_policy_equals_pytrec_eval(case, rel_level, judged_only, depth):
    ev = tiedrank.evaluate({"r": case.run_frame()}, case.qrels_frame(), list(MEASURES.values()),
                           ties="trec_eval", rel_level=rel_level, judged_only=judged_only,
                           depth=depth)
    theirs = _trec_eval(case.qrels_dict(), _truncated(case.run_dict(), depth), rel_level,
                        judged_only)
    ours = {(r.query, r.metric): r.value for r in ev.per_query.itertuples()}
    assert sorted(theirs) == sorted({q for q, _ in ours}) == case.evaluable()
    for q, values in theirs.items():
        for measure, name in MEASURES.items():
            assert abs(ours[q, name] - values[measure]) <= TOL, (q, measure, case)
    summary = ev.summary.set_index(ev.summary["metric"].astype(str))
    for measure, name in MEASURES.items():
        mean = float(np.mean([theirs[q][measure] for q in theirs]))
        assert abs(summary.loc[name, "value"] - mean) <= TOL, measure
        assert summary.loc[name, "n_queries"] == len(theirs)


def test_judged_only_drops_negative_grades_as_trec_eval():
    """trec_eval -J treats a negative qrels grade as "in the pool, not judged" and drops the
    document (form_res_rels.c); tiedrank kept it before (RR 0.5 here instead of 1)."""
    run = pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [2.0, 1.0, 3.0]})
    qrels = pd.DataFrame({"query": "q", "doc": ["a", "b"], "relevance": [-1, 1]})
    ev = tiedrank.evaluate({"r": run}, qrels, ["RR", "P@1"], ties="trec_eval",
                           judged_only=True)
    theirs = _trec_eval({"q": {"a": -1, "b": 1}}, {"q": {"a": 2.0, "b": 1.0, "c": 3.0}}, 1,
                        True)["q"]
    assert theirs["recip_rank"] == 1.0 and theirs["P_2"] == 0.5  # only b is left
    assert ev.per_query["value"].tolist() == [1.0, 1.0]  # RR, P@1
