"""The engine against external references: the spec's test vectors, pytrec_eval (trec_eval's
own C code), trec_eval's published ``out.test``, and scikit-learn's tie-averaged nDCG."""
from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from oracles import make_inputs
from tiedrank.evaluation import evaluate
from tiedrank.metrics import metric_values, parse_metric
from tiedrank.sampling import first_relevant_distribution
from tiedrank.core.ties import build_tie_table

ROOT = Path(__file__).resolve().parents[2]

# metrics-reference.md section 7 (K = 3)
VECTORS = {
    "S1": ([.9, .8, .7, .6, .5], [0, 1, 0, 0, 0], dict(RR_input=F(1, 2), RR=F(1, 2), MTRR_GRAG=F(1, 2), Success=1, TMHits=1, tsrr=(.5, .5, .5, .5), TsRR2=F(1, 2))),
    "S2": ([.9, .8, .8, .6, .5], [0, 1, 0, 0, 0], dict(RR_input=F(1, 2), RR=F(5, 12), MTRR_GRAG=F(2, 5), Success=1, TMHits=1, tsrr=(.4072588512, .2846617210, .1718702398, .0949507683), TsRR2=F(8, 21))),
    "S3": ([.8, .8, .8, .6, .5], [0, 1, 0, 0, 0], dict(RR_input=F(1, 2), RR=F(11, 18), MTRR_GRAG=F(1, 2), Success=1, TMHits=1, tsrr=(.5340487832, .3173938055, .1738001486, .0910446373), TsRR2=F(2, 5))),
    "S4": ([.9, .8, .8, .6, .6], [0, 0, 1, 0, 0], dict(RR_input=F(1, 3), RR=F(5, 12), MTRR_GRAG=F(2, 5), Success=1, TMHits=1, tsrr=(.4072588512, .2846617210, .1718702398, .0949507683), TsRR2=F(8, 21))),
    "V5": ([.9, .7, .7, .7, .7, .1], [0, 0, 0, 1, 0, 1], dict(RR_input=F(1, 4), RR=F(77, 240), MTRR_GRAG=F(19, 84), Success=F(1, 2), TMHits=F(1, 4), tsrr=(.1290354047, .0693234419, .0359544429, .0183125717), TsRR2=F(8, 37))),
    "V6": ([.5] * 5, [0, 0, 1, 0, 0], dict(RR_input=F(1, 3), RR=F(137, 300), MTRR_GRAG=F(1, 3), Success=F(3, 5), TMHits=F(3, 5), tsrr=(0, 0, 0, 0), TsRR2=F(1, 5))),
    "V8": ([.99, .97, .97, .97, .95], [0, 1, 0, 1, 0], dict(RR_input=F(1, 2), RR=F(4, 9), MTRR_GRAG=F(1, 3), Success=1, TMHits=F(2, 3), tsrr=(.375, .25, .1464466094, .0795517924), TsRR2=F(9, 23))),
}
EXTRA = {  # further values of section 7
    "S2": {"AP": F(5, 12), "P@3": F(1, 3), "nDCG@3": 0.5654648768},
    "S4": {"AP": F(5, 12), "P@3": F(1, 3), "nDCG@3": 0.5654648768},
    "S3": {"AP": F(11, 18), "nDCG@3": 0.7103099179},
    "V5": {"AP": F(157, 480), "AP@3": F(5, 48), "nDCG@3": 0.1733566009},
    "V6": {"AP": F(137, 300), "nDCG@3": 0.4261859507},
    "V8": {"AP": F(1, 2), "P@3": F(4, 9), "nDCG@3": 0.4622842691, "nDCG@5": 0.6383},
}


def table_of(scores, grades, **kw):
    run, qrels = make_inputs({"q": (scores, grades, [])})
    return build_tie_table(run, qrels, **kw)


@pytest.mark.parametrize("vector", sorted(VECTORS))
def test_reference_vectors(vector):
    scores, grades, want = VECTORS[vector]
    t = table_of(scores, grades)
    value = lambda m, table=t: float(metric_values(table, m)[0])
    assert value("RR", t.resolve("input")) == pytest.approx(float(want["RR_input"]), abs=1e-10)
    assert value("RR") == pytest.approx(float(want["RR"]), abs=1e-12)
    assert value("MTRR_GRAG") == pytest.approx(float(want["MTRR_GRAG"]), abs=1e-12)
    assert value("Success@3") == pytest.approx(float(want["Success"]), abs=1e-12)
    assert value("TMHits_GRAG@3") == pytest.approx(float(want["TMHits"]), abs=1e-12)
    for alpha, expected in zip((0.5, 1, 2, 4), want["tsrr"]):
        assert value(f"TsRR(alpha={alpha})") == pytest.approx(expected, abs=1e-10)
    assert value("TsRR2") == pytest.approx(float(want["TsRR2"]), abs=1e-12)
    for metric, expected in EXTRA.get(vector, {}).items():
        tol = 1e-4 if metric == "nDCG@5" else 1e-10
        assert value(metric) == pytest.approx(float(expected), abs=tol), metric


def test_reference_pmf_and_graded_vector():
    s2 = first_relevant_distribution(table_of(*VECTORS["S2"][:2]))
    assert dict(zip(s2["rank"], s2["probability"])) == pytest.approx({2: .5, 3: .5})
    s3 = first_relevant_distribution(table_of(*VECTORS["S3"][:2]))
    assert dict(zip(s3["rank"], s3["probability"])) == pytest.approx({1: 1 / 3, 2: 1 / 3, 3: 1 / 3})
    v10 = table_of([.9, .8, .8, .8, .3], [1, 0, 3, 2, 0])
    assert metric_values(v10, "DCG@3")[0] == pytest.approx(2.8848829226, abs=1e-10)
    assert metric_values(v10, "nDCG@3")[0] == pytest.approx(0.6058311713, abs=1e-10)
    assert metric_values(v10, "nDCG@3", gain="exp")[0] == pytest.approx(0.5078114405, abs=1e-10)
    big = table_of([1.0] * 1000, [1, 1, 1] + [0] * 997)
    assert metric_values(big, "RR")[0] == pytest.approx(0.0179923974, abs=1e-10)
    assert metric_values(big, "Success@10")[0] == pytest.approx(82337 / 2769450, rel=1e-12)
    assert metric_values(big, "AP")[0] == pytest.approx(0.0094724869, abs=1e-10)
    assert metric_values(big, "MTRR_GRAG")[0] == pytest.approx(0.001998, abs=1e-6)
    pmf = first_relevant_distribution(big)
    assert (pmf["rank"] * pmf["probability"]).sum() == pytest.approx(250.25, rel=1e-12)


def test_tsrr_pathologies_and_vectorised_alphas():
    tied = table_of([.5] * 6, [0, 1, 0, 0, 1, 0])
    assert np.all(metric_values(tied, "TsRR(alpha=3)") == 0)
    short = table_of([.9, .8, .8, .1], [0, 1, 0, 0])
    longer = table_of([.9, .8, .8, .1, .05, .04], [0, 1, 0, 0, 0, 0])
    assert metric_values(longer, "TsRR")[0] > metric_values(short, "TsRR")[0]
    from tiedrank.metrics import tsrr
    alphas = np.logspace(-2, 2, 101)
    swept = tsrr(table_of(*VECTORS["V5"][:2]), alphas)
    assert swept.shape == (1, 101)
    for j in (0, 50, 100):
        assert swept[0, j] == pytest.approx(metric_values(table_of(*VECTORS["V5"][:2]),
                                                          f"TsRR(alpha={float(alphas[j])!r})")[0])
    with pytest.raises(ValueError, match="alpha"):
        parse_metric("TsRR(alpha=0)")


# ---- trec_eval: pytrec_eval (trec_eval's C code) on random runs with ties ---------------------
pytrec_eval = pytest.importorskip("pytrec_eval")
TREC_MEASURES = {"recip_rank": "RR", "P_5": "P@5", "P_10": "P@10", "recall_5": "R@5",
                 "recall_10": "R@10", "map": "AP", "map_cut_5": "AP@5", "ndcg": "nDCG",
                 "ndcg_cut_5": "nDCG@5", "ndcg_cut_10": "nDCG@10", "Rprec": "Rprec",
                 "success_1": "Success@1", "success_5": "Success@5"}


@settings(max_examples=examples(100, deep=200), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rel_level=st.integers(1, 2))
def test_trec_eval_policy_matches_pytrec_eval(seed, rel_level):
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for q in range(int(rng.integers(1, 6))):
        n = int(rng.integers(1, 25))
        docs = rng.choice(10_000, size=n + 5, replace=False)
        scores = rng.integers(0, 4, size=n).astype(float) / 2  # heavy ties
        grades = rng.integers(0, 4, size=n + 5)
        grades[int(rng.integers(0, n + 5))] = 3  # at least one relevant at every level
        for d, s in zip(docs[:n], scores):
            run_rows.append((f"{q}", f"D{d}", s))
        for d, g in zip(docs, grades):
            qrels_rows.append((f"{q}", f"D{d}", int(g)))
    run = pd.DataFrame(run_rows, columns=["query", "doc", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["query", "doc", "relevance"])
    ev = evaluate({"r": run}, qrels, list(TREC_MEASURES.values()), ties="trec_eval",
                  rel_level=rel_level)
    ours = ev.per_query.set_index(["query", "metric"])["value"]
    evaluator = pytrec_eval.RelevanceEvaluator(
        {q: dict(zip(g["doc"], g["relevance"].astype(int))) for q, g in qrels.groupby("query")},
        set(TREC_MEASURES), relevance_level=rel_level)
    theirs = evaluator.evaluate({q: dict(zip(g["doc"], g["score"])) for q, g in run.groupby("query")})
    for q, values in theirs.items():
        for measure, name in TREC_MEASURES.items():
            assert ours[(q, name)] == pytest.approx(values[measure], abs=1e-9), (q, measure)


def test_reproduces_trec_eval_out_test():
    base = ROOT / "sample_data" / "trec_eval"
    expected = {}
    for line in (base / "out.test").read_text().splitlines():
        name, _, value = line.split()
        expected[name] = value
    ev = evaluate(base / "results.test", base / "qrels.test",
                  ["AP", "RR", "Rprec", "P@5", "P@10", "P@15", "P@20", "P@30", "P@100", "P@200",
                   "P@500", "P@1000"], ties="trec_eval")
    got = ev.summary.set_index("metric")["value"]
    names = {"map": "AP", "recip_rank": "RR", "Rprec": "Rprec"} | {
        f"P_{k}": f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)}
    for trec_name, ours in names.items():
        assert f"{got[ours]:.4f}" == expected[trec_name], trec_name
    assert int(ev.tables["STANDARD"].n_retrieved.sum()) == int(expected["num_ret"])
    assert int(ev.tables["STANDARD"].n_relevant.sum()) == int(expected["num_rel"])
    assert int(ev.tables["STANDARD"].relevant_retrieved.sum()) == int(expected["num_rel_ret"])


# ---- scikit-learn's tie-averaged nDCG --------------------------------------------------------
sklearn_metrics = pytest.importorskip("sklearn.metrics")


@settings(max_examples=examples(80, deep=300), deadline=None)
@given(data=st.data(), k=st.one_of(st.none(), st.integers(1, 12)), gain=st.sampled_from(["linear", "exp"]))
def test_expected_ndcg_equals_sklearn(data, k, gain):
    n = data.draw(st.integers(2, 15))
    scores = data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0]), min_size=n, max_size=n))
    grades = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n).filter(any))
    table = table_of(scores, grades)
    true = np.asarray(grades, dtype=float)
    true = true if gain == "linear" else 2 ** true - 1
    reference = sklearn_metrics.ndcg_score([true], [scores], k=k)
    ours = metric_values(table, "nDCG" if k is None else f"nDCG@{k}", gain=gain)[0]
    assert ours == pytest.approx(reference, abs=1e-12)
