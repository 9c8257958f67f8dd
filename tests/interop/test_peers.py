"""Other tools' objects in, other tools' formats out: each path against the peer itself.

Inputs (ranx Run/Qrels, pytrec_eval dicts, ir_measures tuples, PyTerrier frames) must give
the numbers of the same data read from files; outputs (trec_eval text, ranx's names) must
equal what the peer computes where it computes the same thing (trec_eval's order, no ties).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate, read_qrels, read_run

TREC = "sample_data/trec_eval"
METRICS = ["AP", "nDCG@10", "RR", "P@5", "Hits@10"]


@pytest.fixture(scope="module")
def files():
    qrels, run = read_qrels(f"{TREC}/qrels.test"), read_run(f"{TREC}/results.test")
    as_dict = {q: dict(zip(g["doc"], g["score"])) for q, g in run.frame.groupby("query")}
    qrels_dict = {q: dict(zip(g["doc"], g["relevance"].astype(int)))
                  for q, g in qrels.frame.groupby("query")}
    reference = evaluate(run, qrels, METRICS, ties="all").summary
    return run, qrels, as_dict, qrels_dict, reference


def _same(evaluation, reference):
    np.testing.assert_array_equal(evaluation.summary["value"].to_numpy(),
                                  reference["value"].to_numpy())


def test_pytrec_eval_dicts(files):
    run, qrels, as_dict, qrels_dict, reference = files
    _same(evaluate(as_dict, qrels_dict, METRICS, ties="all"), reference)
    named = evaluate({"mine": as_dict}, qrels_dict, METRICS, ties="all")
    assert list(named.tables) == ["mine"]
    _same(named, reference)


def test_ranx_objects(files):
    ranx = pytest.importorskip("ranx")
    run, qrels, as_dict, qrels_dict, reference = files
    ev = evaluate(ranx.Run(as_dict, name="bm25"), ranx.Qrels(qrels_dict), METRICS, ties="all")
    assert list(ev.tables) == ["bm25"]
    _same(ev, reference)


def test_ir_measures_tuples_and_generators(files):
    ir_measures = pytest.importorskip("ir_measures")
    run, qrels, as_dict, qrels_dict, reference = files
    scored = [ir_measures.ScoredDoc(q, d, s) for q, docs in as_dict.items() for d, s in docs.items()]
    judged = (ir_measures.Qrel(q, d, g) for q, docs in qrels_dict.items() for d, g in docs.items())
    _same(evaluate(scored, judged, METRICS, ties="all"), reference)


def test_pyterrier_frames(files):
    run, qrels, *_, reference = files
    frame = run.frame.rename(columns={"query": "qid", "doc": "docno"})
    labels = qrels.frame.rename(columns={"query": "qid", "doc": "docno", "relevance": "label"})
    _same(evaluate(frame, labels, METRICS, ties="all"), reference)


def test_anything_else_is_a_type_error_naming_what_is_accepted():
    with pytest.raises(TypeError, match="ranx Run/Qrels.*pytrec_eval.*ScoredDoc"):
        evaluate(3.5, f"{TREC}/qrels.test", ["RR"])
    with pytest.raises(TypeError, match=r"\(query_id, doc_id, score\) tuples was expected"):
        evaluate({"q1": [1, 2]}, f"{TREC}/qrels.test", ["RR"])


def test_trec_eval_text_equals_pytrec_eval(files):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels, as_dict, qrels_dict, _ = files
    ev = evaluate(run, qrels, ["AP", "nDCG@10", "P@5", "RR"], ties="trec_eval")
    rows = [line.split("\t") for line in ev.to_trec_eval("trec_eval").splitlines()]
    theirs = pytrec_eval.RelevanceEvaluator(qrels_dict, {"map", "ndcg_cut_10", "P_5",
                                                         "recip_rank"}).evaluate(as_dict)
    per_query = [(m.strip(), q, float(v)) for m, q, v in rows if q != "all"]
    assert len(per_query) == 4 * len(theirs)
    for measure, query, value in per_query:
        assert value == pytest.approx(theirs[query][measure], abs=5e-5)  # 4 decimals printed
    means = {m.strip(): float(v) for m, q, v in rows if q == "all"}
    assert means["map"] == pytest.approx(np.mean([v["map"] for v in theirs.values()]), abs=5e-5)


def test_to_ranx_equals_ranx_without_ties():
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(3)
    run = {f"q{i}": {f"d{j}": float(s) for j, s in enumerate(rng.permutation(50) + 0.5)}
           for i in range(20)}
    qrels = {q: {f"d{j}": int(rng.integers(1, 3)) for j in rng.choice(50, 8, replace=False)}
             for q in run}
    ours = evaluate(run, qrels, ["hits@10", "hit_rate@10", "ndcg@10", "mrr", "precision@5",
                                 "recall@20", "map"], ties="expected").to_ranx()
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(ours))
    for name, value in ours.items():
        assert value == pytest.approx(theirs[name], abs=1e-9), name
