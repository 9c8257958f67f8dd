"""tiedrank's policies as ir_measures measures (tiedrank.interop.measures) and ir_measures objects as
metrics of tiedrank.evaluate.

Oracles: tiedrank.evaluate on the same files read by tiedrank's readers; ir_measures' own
providers (pytrec_eval) on data without ties; the mean over every tie ordering (brute force)
where a tie straddles the cutoff; scipy's paired t-test for PyTerrier's p-values.
"""
from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from oracles import all_orderings, make_inputs, metric_of_ordering
from tiedrank import evaluate, read_qrels, read_run

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import AP, NERR8, P, R, RR, Rprec, Success, nDCG  # noqa: E402

from tiedrank.interop.measures import Best, Expected, TrecEvalOrder, Worst  # noqa: E402

LLM = "sample_data/llmjudge"
SIM = "sample_data/simulated"
POLICIES = {Expected: "expected", Best: "best", Worst: "worst",
            TrecEvalOrder: "trec_eval"}
MEASURES = [nDCG@10, RR(rel=2), P(rel=2)@10, nDCG(judged_only=True)@10, AP@100, R@100,
            Success@10, Rprec, RR, "TsRR2"]


def _peer_run(path: str) -> list:
    """A run in the qrels-like format of the LLMJudge files, read by ir_measures' reader."""
    return [ir_measures.ScoredDoc(q.query_id, q.doc_id, float(q.relevance))
            for q in ir_measures.read_trec_qrels(path)]


@pytest.fixture(scope="module")
def llm():
    qrels_path, run_path = f"{LLM}/qrels.test.txt", f"{LLM}/runs/Olz-gpt4o.txt"
    ours = evaluate(read_run(run_path, format="trec_qrels"), read_qrels(qrels_path),
                    [m if isinstance(m, str) else m for m in MEASURES], ties="all")
    return list(ir_measures.read_trec_qrels(qrels_path)), _peer_run(run_path), ours


def _ours(evaluation, metric: str, policy: str) -> pd.Series:
    rows = evaluation.per_query[(evaluation.per_query["metric"] == metric)
                                & (evaluation.per_query["policy"] == policy)]
    return rows.set_index(rows["query"].astype(str))["value"]


# (1) calc_aggregate and iter_calc equal tiedrank.evaluate ------------------------------------
def test_iter_calc_and_calc_aggregate_equal_evaluate(llm):
    qrels, run, ours = llm
    wrapped = [policy(m) for policy in POLICIES for m in MEASURES]
    per_query = {}
    queries = {q.query_id for q in qrels}
    for value in ir_measures.iter_calc(wrapped, qrels, run):
        if not math.isnan(value.value):  # NaN: no value in tiedrank (checked below)
            per_query.setdefault(value.measure, {})[value.query_id] = value.value
        else:
            assert value.query_id not in _ours(ours, value.measure.metric.name,
                                               POLICIES[type(value.measure)]).index
    # every measure has a row for every qrels query (what pt.Experiment's means rely on)
    rows = list(ir_measures.iter_calc(wrapped, qrels, run))
    assert len(rows) == len(wrapped) * len(queries)
    aggregate = ir_measures.calc_aggregate(wrapped, qrels, run)
    summary = ours.summary.set_index(["metric", "policy"])["value"]
    for measure in wrapped:
        expected = _ours(ours, measure.metric.name, POLICIES[type(measure)])
        assert per_query[measure] == expected.to_dict(), measure  # the same floats, per query
        assert aggregate[measure] == pytest.approx(
            summary[measure.metric.name, POLICIES[type(measure)]], abs=1e-12), measure
    assert str(Expected(RR(rel=2))) == "Expected(RR(rel=2))"  # parameters kept in the name


def test_mixed_with_another_providers_measure(llm):
    qrels, run, ours = llm
    result = ir_measures.calc_aggregate([Expected(RR(rel=2)), AP], qrels, run)
    assert result[Expected(RR(rel=2))] == pytest.approx(
        _ours(ours, "RR(rel=2)", "expected").mean(), abs=1e-12)
    assert result[AP] == pytest.approx(ir_measures.pytrec_eval.calc_aggregate([AP], qrels, run)[AP])


# (2) without ties every policy is ir_measures' own value ------------------------------------
def test_no_ties_all_policies_equal_pytrec_eval():
    qrels_path, run_path = f"{SIM}/qrels.txt", f"{SIM}/runs/fine-grained.txt"
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    run = list(ir_measures.read_trec_run(run_path))
    assert len({(d.query_id, d.score) for d in run}) == len(run)  # the file has no ties
    measures = [RR(rel=2), P(rel=2)@10, nDCG@10, AP]
    theirs = {(v.measure, v.query_id): v.value
              for v in ir_measures.pytrec_eval.iter_calc(measures, qrels, run)}
    wrapped = [policy(m) for m in measures for policy in (Expected, Best, Worst)]
    ours = {(v.measure, v.query_id): v.value for v in ir_measures.iter_calc(wrapped, qrels, run)}
    grade = {(q.query_id, q.doc_id): q.relevance for q in qrels}
    for measure in measures:
        level = measure["rel"] if "rel" in measure.SUPPORTED_PARAMS else 1
        defined = {q for (q, _), g in grade.items() if g >= level}
        for query in {q for (m, q) in theirs if m == measure}:
            if query not in defined:  # no relevant document: trec_eval's 0, and tiedrank's
                assert theirs[measure, query] == 0
                assert all(ours[policy(measure), query] == 0 for policy in (Expected, Best, Worst))
                continue
            for policy in (Expected, Best, Worst):
                assert ours[policy(measure), query] == pytest.approx(theirs[measure, query],
                                                                     abs=1e-12), (measure, query)


# (3) a tie straddling the cutoff: the exact expectation over the whole ranking ----------------
def test_tie_straddling_the_cutoff_is_the_exact_expectation():
    scores, grades = [3, 2, 2, 2, 2, 1], [0, 1, 1, 2, 0, 1]  # ranks 2-5 tie, k = 3 cuts them
    run, qrels = make_inputs({"q": (scores, grades, [2])})
    peer_run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run.frame.itertuples(index=False)]
    peer_qrels = [ir_measures.Qrel(q, d, g) for q, d, g in qrels.frame.itertuples(index=False)]
    cases = {P@3: ("P", 3, 1), nDCG@3: ("nDCG", 3, 1), RR(rel=2)@3: ("RR", 3, 2),
             AP@3: ("AP", 3, 1), Success@2: ("Success", 2, 1), R(rel=2)@3: ("R", 3, 2)}
    wrapped = [policy(m) for m in cases for policy in (Expected, Best, Worst)]
    result = ir_measures.calc_aggregate(wrapped, peer_qrels, peer_run)
    for measure, (name, k, level) in cases.items():
        values = [metric_of_ordering(name, k, [grades[i] for i in order], grades + [2], level)
                  for order in all_orderings(scores)]
        assert len(values) == math.factorial(4)
        assert result[Expected(measure)] == pytest.approx(np.mean(values), abs=1e-12), measure
        assert result[Best(measure)] == pytest.approx(max(values), abs=1e-12), measure
        assert result[Worst(measure)] == pytest.approx(min(values), abs=1e-12), measure
    # not the value of the list cut at k first (the runtime provider's head(k), file order)
    assert result[Expected(P@3)] == pytest.approx(0.5) != sum(g >= 1 for g in grades[:3]) / 3


# (4) PyTerrier's Experiment: the tiedrank values, with baseline and correction ----------------
def test_pyterrier_experiment_with_baseline_and_correction():
    pt = pytest.importorskip("pyterrier", reason="python-terrier is not installed "
                             "(pip install python-terrier==1.0, see requirements-dev.txt)")
    stats = pytest.importorskip("scipy.stats")

    def frame(path):
        return pd.read_csv(path, sep=r"\s+", header=None, names=["qid", "iter", "docno", "x"],
                           dtype={"qid": str, "docno": str}).drop(columns="iter")

    names = ["Olz-gpt4o", "TREMA-all"]
    runs = [frame(f"{LLM}/runs/{n}.txt").rename(columns={"x": "score"}) for n in names]
    qrels = frame(f"{LLM}/qrels.test.txt").rename(columns={"x": "label"})
    topics = pd.read_csv(f"{LLM}/queries.tsv", sep="\t", header=None, names=["qid", "query"],
                         dtype=str)
    measures = [Expected(nDCG@10), Worst(RR(rel=2)), Best(P(rel=2)@10)]
    table = pt.Experiment(runs, topics, qrels, measures, names=names, baseline=0,
                          correction="bonferroni")
    assert not pt.java.started()  # DataFrames only: no JVM
    ours = evaluate({n: read_run(f"{LLM}/runs/{n}.txt", format="trec_qrels") for n in names},
                    read_qrels(f"{LLM}/qrels.test.txt"), [m.metric for m in measures], ties="all")
    for measure in measures:
        column = str(measure)
        policy = POLICIES[type(measure)]
        values = {n: ours.per_query[(ours.per_query["run"] == n) & (ours.per_query["metric"] ==
                                    measure.metric.name) & (ours.per_query["policy"] == policy)]
                  .sort_values("query")["value"].to_numpy() for n in names}
        np.testing.assert_allclose(table[column].to_numpy(),
                                   [values[n].mean() for n in names], atol=1e-12)
        p = stats.ttest_rel(values[names[1]], values[names[0]]).pvalue
        assert table[f"{column} p-value"].iloc[1] == pytest.approx(p, rel=1e-9)
        assert f"{column} p-value corrected" in table and f"{column} reject" in table


# (5) per-measure relevance levels in one call equal separate calls ---------------------------
def test_mixed_relevance_levels_equal_separate_calls():
    run = read_run(f"{LLM}/runs/TREMA-all.txt", format="trec_qrels")
    qrels = read_qrels(f"{LLM}/qrels.test.txt")
    mixed = evaluate(run, qrels, [RR(rel=2), nDCG@10, P(rel=2)@10, "AP"], ties="all").per_query
    at_two = evaluate(run, qrels, ["RR", "P@10"], ties="all", rel_level=2).per_query
    at_one = evaluate(run, qrels, ["nDCG@10", "AP"], ties="all").per_query
    for name, (separate, alone) in {"RR(rel=2)": (at_two, "RR"), "P(rel=2)@10": (at_two, "P@10"),
                                    "nDCG@10": (at_one, "nDCG@10"), "AP": (at_one, "AP")}.items():
        got = mixed[mixed["metric"] == name].drop(columns="metric").reset_index(drop=True)
        want = separate[separate["metric"] == alone].drop(columns="metric").reset_index(drop=True)
        pd.testing.assert_frame_equal(got.astype(str), want.astype(str), obj=name)
    assert list(mixed["metric"].cat.categories) == ["RR(rel=2)", "nDCG@10", "P(rel=2)@10", "AP"]


def test_a_measure_and_the_default_level_are_two_metrics():
    run = read_run(f"{LLM}/runs/TREMA-all.txt", format="trec_qrels")
    qrels = read_qrels(f"{LLM}/qrels.test.txt")
    ev = evaluate(run, qrels, [RR(rel=1), RR(rel=2), RR, "RR"], rel_level=3)
    values = ev.summary.set_index("metric")["value"]
    # a rel= the measure sets is kept; RR without one takes evaluate's rel_level=3, as "RR"
    assert list(values.index) == ["RR(rel=1)", "RR(rel=2)", "RR"]
    assert values["RR"] == evaluate(run, qrels, ["RR"], rel_level=3).summary["value"].item()
    assert len(set(values)) == 3


# (6) what tiedrank cannot honour is refused, saying what to write -----------------------------
@pytest.mark.parametrize("measure, message", [
    (nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7})@10,
     r"measure nDCG\(gains=.*\)@10: gains= must be left out.*write nDCG@10 or "
     r"nDCG\(dcg='exp-log2'\)@10"),
    (NERR8@10, r"ir_measures measure NERR8@10 has no tie-aware counterpart.*RR, P, R, AP, nDCG"),
    (RR(rel=0), r"measure RR\(rel=0\): rel= must be an integer >= 1"),
    ("nDCG(rel=2)@10", r"rel= must be left out: nDCG uses the grades themselves"),
    ("P(gain=exp)@10", r"gain= must be left out: P is a binary metric"),
])
def test_unsupported_parameters_get_one_clear_message(measure, message):
    qrels = f"{LLM}/qrels.test.txt"
    with pytest.raises(ValueError, match=message):
        evaluate(read_run(f"{LLM}/runs/TREMA-all.txt", format="trec_qrels"), qrels, [measure])
    with pytest.raises(ValueError, match=message):
        Expected(measure)  # refused when the measure is built, not deep inside a provider


def test_exp_gain_from_ir_measures_is_tiedranks_exp_gain():
    run = read_run(f"{LLM}/runs/TREMA-all.txt", format="trec_qrels")
    qrels = read_qrels(f"{LLM}/qrels.test.txt")
    theirs = evaluate(run, qrels, [nDCG(dcg="exp-log2")@10]).summary["value"]
    ours = evaluate(run, qrels, ["nDCG@10"], gain="exp").summary["value"]
    assert list(theirs) == list(ours)


def test_cutoff_on_the_wrapper_goes_to_the_measure():
    assert Expected(nDCG)@10 == Expected(nDCG@10) == Expected("nDCG@10")
    assert str(TrecEvalOrder("TsRR(alpha=2)")) == "TrecEvalOrder(TsRR(alpha=2))"
    assert list(itertools.chain([Expected(AP)], [Best(AP)])) != [Expected(AP), Expected(AP)]


def test_pyterrier_experiment_keeps_a_measure_undefined_on_some_queries(tmp_path):
    """RR(rel=3) has no value on a query without a grade-3 document. pt.Experiment takes its
    measure list from the first query's values and averages over every query: before the
    provider gave every query a row (NaN there), the column vanished or a KeyError ended
    the call, depending on the hash seed. Run under two seeds that showed both."""
    pytest.importorskip("pyterrier", reason="python-terrier is not installed")
    script = tmp_path / "experiment.py"
    script.write_text(f'''
import json, pandas as pd, pyterrier as pt
from ir_measures import nDCG, RR
from tiedrank.interop.measures import Expected, Worst
LLM = {str(LLM)!r}
def frame(path):
    return pd.read_csv(path, sep=r"\\s+", header=None, names=["qid", "iter", "docno", "x"],
                       dtype={{"qid": str, "docno": str}}).drop(columns="iter")
names = ["Olz-gpt4o", "TREMA-all"]
runs = [frame(f"{{LLM}}/runs/{{n}}.txt").rename(columns={{"x": "score"}}) for n in names]
qrels = frame(f"{{LLM}}/qrels.test.txt").rename(columns={{"x": "label"}})
topics = pd.read_csv(f"{{LLM}}/queries.tsv", sep="\\t", header=None, names=["qid", "query"],
                     dtype=str)
table = pt.Experiment(runs, topics, qrels, [Expected(nDCG@10), Worst(RR(rel=3))], names=names,
                      baseline=0)
print(json.dumps({{c: [None if v != v else v for v in table[c]] for c in
                  ("Expected(nDCG@10)", "Worst(RR(rel=3))")}}))
''')
    qrels = read_qrels(f"{LLM}/qrels.test.txt").frame
    assert (qrels.groupby("query")["relevance"].max() < 3).any()  # some query has no grade 3
    ours = evaluate({n: read_run(f"{LLM}/runs/{n}.txt", format="trec_qrels")
                     for n in ("Olz-gpt4o", "TREMA-all")}, read_qrels(f"{LLM}/qrels.test.txt"),
                    ["nDCG@10"]).summary["value"].tolist()
    worst = evaluate({n: read_run(f"{LLM}/runs/{n}.txt", format="trec_qrels")
                      for n in ("Olz-gpt4o", "TREMA-all")}, read_qrels(f"{LLM}/qrels.test.txt"),
                     [RR(rel=3)], ties="worst").summary["value"].tolist()
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONHASHSEED=seed), timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        table = json.loads(out.stdout.strip().splitlines()[-1])
        # a query without a grade-3 document scores 0 (trec_eval's query set): a number
        assert table["Worst(RR(rel=3))"] == pytest.approx(worst, abs=1e-12)
        assert table["Expected(nDCG@10)"] == pytest.approx(ours, abs=1e-12)
