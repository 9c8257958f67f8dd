"""trec_eval's -m syntax and groups, ranx's level suffix, ir_measures' wrapper strings.

Every form must give the number its owner gives: trec_eval's forms against pytrec_eval fed
the same spelling (``P.5,10``), the wrappers against tiedrank's policies and against the
ir_measures objects they spell, ranx's ``-l2`` against ranx (in ``tests/interop``, where
ranx is compiled once). The run is tie-free where the peers are the oracle, so every
policy agrees with them.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate, read_qrels, read_run
from tiedrank.core.data import Qrels, Run
from tiedrank.evaluation import parse_metrics
from tiedrank.interop.trec_eval import GROUPS, MEASURES, expand_metrics
from tiedrank.metrics import REGISTRY, parse_metric

LLM = "sample_data/llmjudge"


def _tie_free(seed: int = 11) -> tuple[Run, Qrels, dict, dict]:
    rng = np.random.default_rng(seed)
    run_rows, qrel_rows = [], []
    for q in (f"q{i}" for i in range(12)):
        for j, s in enumerate(rng.permutation(60) + 0.5):
            run_rows.append((q, f"d{j}", float(s)))
        for j in rng.choice(80, size=25, replace=False):  # some judged documents unretrieved
            qrel_rows.append((q, f"d{j}", int(rng.integers(0, 4))))
    run = Run("r", pd.DataFrame(run_rows, columns=["query", "doc", "score"]))
    qrels = Qrels(pd.DataFrame(qrel_rows, columns=["query", "doc", "relevance"]))
    as_dict = {q: dict(zip(g["doc"], g["score"])) for q, g in run.frame.groupby("query")}
    qrels_dict = {q: dict(zip(g["doc"], g["relevance"].astype(int)))
                  for q, g in qrels.frame.groupby("query")}
    return run, qrels, as_dict, qrels_dict


@pytest.mark.parametrize("form, names", [
    ("P.5,10", ["P@5", "P@10"]),
    ("P.10,5", ["P@5", "P@10"]),  # trec_eval sorts the cutoffs
    ("ndcg_cut.5,10", ["nDCG@5", "nDCG@10"]),
    ("map_cut.10", ["AP@10"]),
    ("success.1,5", ["Success@1", "Success@5"]),
    ("recall.5", ["R@5"]),
    ("recip_rank", ["RR"]), ("map", ["AP"]), ("ndcg", ["nDCG"]), ("Rprec", ["Rprec"]),
    ("P", [f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]),
    ("success", ["Success@1", "Success@5", "Success@10"]),
    ("Expected(nDCG@10)", ["Expected(nDCG@10)"]), ("TrecEval(RR)", ["TrecEvalOrder(RR)"]),
    ("map-l2", ["AP(rel=2)"]), ("precision@5-l2", ["P(rel=2)@5"]),
])
def test_forms_expand_to_tiedranks_metrics(form, names):
    assert [m.name for m in expand_metrics(form).metrics] == names


def test_groups_keep_every_member_and_note_what_is_missing():
    for group, members in GROUPS.items():
        request = expand_metrics(group)
        covered = set(request.counts) | set(request.not_yet) | {
            m.name for m in MEASURES if m.name in members and m.tiedrank is not None}
        assert covered == set(members), group  # nothing dropped silently
        assert all(m.tiedrank in REGISTRY for m in MEASURES if m.tiedrank)  # rows name families
    official = expand_metrics("official")
    assert [m.name for m in official.metrics][:5] == ["AP", "gm_map", "Rprec", "bpref", "RR"]
    assert official.not_yet == ()  # trec_eval's default set is wholly tie-aware
    assert expand_metrics("all_trec").not_yet == ()  # so is every measure of all_trec
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_metrics(["all_trec"])  # no note when nothing is left out
        parse_metrics(["P.5,10", "ndcg_cut.10"])


def test_trec_eval_forms_equal_pytrec_eval_with_the_same_spelling():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels, as_dict, qrels_dict = _tie_free()
    forms = ["P.5,10", "ndcg_cut.5,10", "map_cut.10", "success.1,5", "recall.5", "recip_rank",
             "map", "ndcg", "Rprec"]
    theirs = pytrec_eval.RelevanceEvaluator(qrels_dict, set(forms)).evaluate(as_dict)
    ev = evaluate(run, qrels, forms, ties="all")
    assert set(ev.per_query["policy"]) == {"expected", "best", "worst", "trec_eval"}
    for line in ev.to_trec_eval("expected").splitlines():
        name, query, value = (part.strip() for part in line.split("\t"))
        if query != "all":
            assert float(value) == pytest.approx(theirs[query][name], abs=5e-5), (name, query)
    names = {m: parse_metric(m).name for m in ("P_5", "ndcg_cut_10", "recip_rank")}
    for policy, rows in ev.per_query.groupby("policy", observed=True):
        for theirs_name, ours in names.items():
            values = rows[rows["metric"] == ours].set_index("query")["value"]
            expected = pd.Series({q: theirs[q][theirs_name] for q in values.index})
            np.testing.assert_allclose(values.sort_index(), expected.sort_index(), atol=1e-12)


def test_every_form_gives_its_canonical_forms_number():
    run, qrels = read_run(f"{LLM}/runs/Olz-gpt4o.txt", format="trec_qrels"), \
        read_qrels(f"{LLM}/qrels.test.txt")  # heavy ties: policies differ
    pairs = {"P.10": "P@10", "ndcg_cut.10": "nDCG@10", "map-l2": "AP(rel=2)",
             "mrr-l2": "RR(rel=2)", "precision@5-l2": "P(rel=2)@5", "hits@10-l2": "Hits(rel=2)@10",
             "Expected(nDCG@10)": "nDCG@10", "Best(AP)": "AP", "Worst(P@5)": "P@5",
             "TrecEval(nDCG@10)": "nDCG@10", "Expected(map_cut.10)": "AP@10"}
    policy = {"Expected": "expected", "Best": "best", "Worst": "worst",
              "TrecEval": "trec_eval"}
    canonical = evaluate(run, qrels, sorted(set(pairs.values())), ties="all").summary
    ours = evaluate(run, qrels, list(pairs), ties="all").summary
    for form, name in pairs.items():
        wrapper = form.split("(")[0] if form.split("(")[0] in policy else None
        mine = ours[ours["metric"] == parse_metric(form).name]
        if wrapper:
            assert list(mine["policy"]) == [policy[wrapper]], form  # its own policy only
        reference = canonical[canonical["metric"] == name].set_index("policy")["value"]
        for row in mine.itertuples():
            assert row.value == reference[row.policy], (form, row.policy)
    spread = canonical[canonical["metric"] == "AP"]["value"]
    assert spread.max() > spread.min()  # the wrappers were checked where policies differ


def test_wrapper_strings_equal_the_ir_measures_objects():
    ir_measures = pytest.importorskip("ir_measures")
    from tiedrank.interop.measures import Best, Expected, TrecEvalOrder, Worst

    nDCG, AP, P, RR = ir_measures.nDCG, ir_measures.AP, ir_measures.P, ir_measures.RR
    objects = [Expected(nDCG @ 10), Best(AP), Worst(P @ 5), TrecEvalOrder(RR(rel=2))]
    strings = ["Expected(nDCG@10)", "Best(AP)", "Worst(P@5)", "TrecEval(RR(rel=2))"]
    assert [parse_metric(o) for o in objects] == [parse_metric(s) for s in strings]
    run, qrels = read_run(f"{LLM}/runs/Olz-gpt4o.txt", format="trec_qrels"), \
        read_qrels(f"{LLM}/qrels.test.txt")
    ours = evaluate(run, qrels, strings).summary.set_index("metric")["value"]
    theirs = ir_measures.calc_aggregate(objects, qrels.frame.rename(columns={
        "query": "query_id", "doc": "doc_id"}), run.frame.rename(columns={
            "query": "query_id", "doc": "doc_id"}))
    for obj, text in zip(objects, strings):
        assert ours[parse_metric(text).name] == pytest.approx(theirs[obj], abs=1e-12), text


@pytest.mark.parametrize("text, words", [
    ("ndcg@10-l2", "uses every grade"),
    ("map-l0", "level >= 1"),
    ("RR(rel=3)-l2", "relevance level twice"),
    ("Best(Worst(AP))", "one wrapper"),
    ("P.5,10", "names several metrics"),
])
def test_refused_forms_say_what_to_write(text, words):
    with pytest.raises(ValueError, match=words):
        parse_metric(text)


@pytest.mark.parametrize("items, words", [
    ("yaap", "not yet tie-aware in tiedrank"), ("P.5,5", "repeated"), ("P.x", "integers"),
    ("Rprec_mult.x", "numbers separated by commas"), ("set_F.0.5,1", "one number"),
    ("ndcg.x=4", "does not read x="), ("rbp_resid.p=0.8,1=3", "gain pairs such as rbp_resid.1=4.0"),
    ("ndcg.0=2", "grades >= 1"), ("map.5", "takes no parameters"),
    ("P.5", ["P.10"]), ("P_avgjg", "unknown metric"),
    ("runid.2", "takes no parameters"),
])
def test_trec_eval_refusals(items, words):
    if isinstance(words, list):  # two parameter lists for one measure: trec_eval reads one
        items, words = [items, *words], "two parameter lists"
    with pytest.raises(ValueError, match=words):
        expand_metrics(items)


@pytest.mark.parametrize("form, names, printed", [
    # trec_eval's own test suite (its Makefile's quicktest)
    ("ndcg_cut.10,20,23.4", ["nDCG@10", "nDCG@20", "nDCG@23"], {}),  # atol: 23.4 is 23
    ("Rprec_mult.5.0,0.2,0.35", ["Rprec_mult(mult=0.2)", "Rprec_mult(mult=0.35)",
                                 "Rprec_mult(mult=5)"], {}),
    ("utility.2,-1,0,0", ["utility(rel_ret=2, nonrel_ret=-1, rel_missed=0, nonrel_missed=0)"],
     {"utility(rel_ret=2, nonrel_ret=-1, rel_missed=0, nonrel_missed=0)": "utility_2,-1,0,0"}),
    ("ndcg.1=3,2=9,4=4.5", ["nDCG(gain=1:3 2:9 4:4.5)"],
     {"nDCG(gain=1:3 2:9 4:4.5)": "ndcg_1=3,2=9,4=4.5"}),
    ("11pt_avg..25,.5,.75", ["11pt_avg(levels=0.25 0.5 0.75)"],
     {"11pt_avg(levels=0.25 0.5 0.75)": "11pt_avg_.25,.5,.75"}),
    ("iprec_at_recall..10,.20", ["iprec_at_recall(recall=0.1)", "iprec_at_recall(recall=0.2)"],
     {}),
    ("set_F.1", ["set_F(beta=1)"], {"set_F(beta=1)": "set_F_1"}),  # as typed, not "set_F"
    ("rbp.p=0.80", ["RBP_graded(p=0.8)"], {"RBP_graded(p=0.8)": "rbp_p=0.80"}),
    # trec_eval's printed names, read back
    ("Rprec_mult_0.40", ["Rprec_mult(mult=0.4)"], {}),
    ("iprec_at_recall_0.30", ["iprec_at_recall(recall=0.3)"], {}),
    ("relative_P_5", ["relative_P@5"], {}),
    ("utility_2,-1,0,0", ["utility(rel_ret=2, nonrel_ret=-1, rel_missed=0, nonrel_missed=0)"],
     {"utility(rel_ret=2, nonrel_ret=-1, rel_missed=0, nonrel_missed=0)": "utility_2,-1,0,0"}),
    ("rbp_resid_p=0.5", ["rbp_resid(p=0.5)"], {"rbp_resid(p=0.5)": "rbp_resid_p=0.5"}),
    ("11pt_avg_.25,.5,.75", ["11pt_avg(levels=0.25 0.5 0.75)"],
     {"11pt_avg(levels=0.25 0.5 0.75)": "11pt_avg_.25,.5,.75"}),
])
def test_trec_evals_parameter_forms_and_printed_names(form, names, printed):
    request = expand_metrics(form)
    assert [m.name for m in request.metrics] == names
    assert dict(request.names) == printed


def test_relstring_length_and_parameters_replacing_a_groups_defaults():
    assert expand_metrics("relstring.20").relstring == (20, "relstring_20")
    assert expand_metrics("relstring_20").relstring == (20, "relstring_20")
    assert expand_metrics("all_trec").relstring == (10, "relstring")
    # as in trec_eval, a measure named with parameters takes them wherever else it is named
    request = expand_metrics(["all_trec", "P.5", "ndcg.1=3"])
    names = [m.name for m in request.metrics]
    assert [n for n in names if n.startswith("P@")] == ["P@5"]
    assert "nDCG" not in names and "nDCG(gain=1:3)" in names
    assert names.count("nDCG(gain=1:3)") == 1 and "nDCG@10" in names  # ndcg_cut keeps its own
    assert [m.name for m in expand_metrics(["P", "P.5"]).metrics] == ["P@5"]


def _gain_orders(scores, grades, extra, gains):
    """nDCG of every ordering inside the tie groups, gain = ``gains`` of the grade (the grade
    itself where not named, 0 for grades <= 0), ideal = the judged gains sorted: brute force."""
    import itertools

    def gain(g):
        return 0.0 if g is None or g <= 0 else float(gains.get(g, g))

    ideal = sorted((gain(g) for g in list(grades) + list(extra) if g is not None), reverse=True)
    idcg = sum(v / np.log2(i + 2) for i, v in enumerate(ideal))
    levels = sorted(set(scores), reverse=True)
    groups = [[i for i, s in enumerate(scores) if s == v] for v in levels]
    values = []
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for part in parts for i in part]
        dcg = sum(gain(grades[i]) / np.log2(r + 2) for r, i in enumerate(order))
        values.append(dcg / idcg if idcg > 0 else 0.0)
    return np.array(values)


@pytest.mark.parametrize("seed", range(6))
def test_a_gain_map_that_does_not_follow_the_grades_under_every_policy(seed):
    """trec_eval's ndcg.1=3,2=9,4=4.5: grade 3 gains 3, less than grade 2's 9, so the ideal
    sorts by gain and the best and worst case put the highest (lowest) gain first, not the
    highest grade. Oracle: every ordering enumerated."""
    from oracles import make_inputs

    rng = np.random.default_rng(seed)
    gains = {1: 3.0, 2: 9.0, 4: 4.5}
    queries = {}
    for q in range(3):
        n = int(rng.integers(2, 7))
        scores = list(rng.integers(0, 3, n).astype(float))
        grades = [None if rng.random() < 0.2 else int(rng.integers(0, 5)) for _ in range(n)]
        queries[f"q{q}"] = (scores, grades, [int(rng.integers(0, 5))])
    run, qrels = make_inputs(queries)
    ev = evaluate(run, qrels, ["ndcg.1=3,2=9,4=4.5"], ties=["expected", "best",
                                                            "worst"])
    for (query, policy), value in ev.per_query.set_index(["query", "policy"])["value"].items():
        scores, grades, extra = queries[query]
        every = _gain_orders(scores, grades, extra, gains)
        reference = {"expected": every.mean(), "best": every.max(),
                     "worst": every.min()}[policy]
        assert value == pytest.approx(reference, abs=1e-12), (query, policy)
