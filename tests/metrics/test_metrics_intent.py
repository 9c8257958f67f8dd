"""The intent-aware measures against ndeval itself (pyndeval 0.0.8, ndeval.c 4.5), on every
ordering of small random tied queries with subtopic qrels: the expectation is the mean over
the orderings, best and worst their max and min, and a tie-free ordering (trec_eval's,
the input's) ndeval's value of it. Cases hold documents judged for no subtopic, unjudged
documents, queries without a relevant subtopic and cutoffs inside tie groups."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from tiedrank.core.data import Run
from tiedrank.core.ties import build_tie_table
from tiedrank.io.subtopics import qrels_from_subtopics
from tiedrank.metrics import metric_values, parse_metric
from tiedrank.metrics.entries_intent import NDEVAL

pyndeval = pytest.importorskip("pyndeval")

CUT = (1, 2, 3, 5)
MEASURES = ([f"{family}@{k}" for family in ("alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA",
                                             "P_IA", "StRecall") for k in CUT]
            + ["NRBP", "nNRBP", "AP_IA"])


def ndeval_name(metric: str) -> str:
    family, _, k = metric.partition("@")
    return NDEVAL[family] + (f"@{k}" if k else "")


def random_case(rng: np.random.Generator, most: int = 7, subtopics_most: int = 4):
    """Two queries: docs d0.. with scores from few values (ties), subtopic judgements for
    most of them (grades 0..2, some judged for no subtopic, some unjudged, some judged but
    not retrieved); the second query may have no relevant subtopic."""
    rows, run = [], []
    for q in ("1", "2"):
        n_docs = int(rng.integers(2, most))
        n_sub = int(rng.integers(1, subtopics_most))
        for d in range(n_docs + 1):  # the last is judged, never retrieved
            if rng.random() < 0.2 and d < n_docs:
                continue  # unjudged
            for s in range(1, n_sub + 1):
                if rng.random() < 0.8:
                    grade = 0 if q == "2" and rng.random() < 0.5 else int(rng.integers(0, 3))
                    rows.append((q, str(s), f"d{d}", grade))
        run += [(q, f"d{d}", float(rng.integers(0, 3))) for d in range(n_docs)]
    if not rows:
        rows.append(("1", "1", "d0", 1))
    subtopics = pd.DataFrame(rows, columns=["query", "subtopic", "doc", "relevance"])
    return subtopics, pd.DataFrame(run, columns=["query", "doc", "score"])


def orderings(run: pd.DataFrame):
    """Every ranking of ``run`` that breaks its ties: per query, the product of the
    permutations of its score groups (score descending)."""
    per_query = []
    for _, frame in run.groupby("query", sort=True):
        groups = [list(g["doc"]) for _, g in frame.groupby("score", sort=True)][::-1]
        per_query.append([sum(map(list, choice), []) for choice in
                          itertools.product(*(itertools.permutations(g) for g in groups))])
    return per_query


def ndeval_values(subtopics, query, ranking, measures, rel=1, alpha=0.5, beta=0.5):
    qrels = [tuple(r) for r in subtopics[subtopics["query"] == query].itertuples(index=False)]
    evaluator = pyndeval.RelevanceEvaluator(qrels, [ndeval_name(m) for m in measures],
                                            relevance_level=rel, alpha=alpha, beta=beta)
    run = [(query, doc, float(len(ranking) - i)) for i, doc in enumerate(ranking)]
    values = evaluator.evaluate(run)[query]
    return [0.0 if math.isnan(values[ndeval_name(m)]) else values[ndeval_name(m)]
            for m in measures]


def check_case(seed: int, measures=MEASURES, rel=1, alpha=0.5, beta=0.5, most=7,
               subtopics_most=4):
    rng = np.random.default_rng(seed)
    subtopics, run_frame = random_case(rng, most, subtopics_most)
    if sum(len(o) for o in orderings(run_frame)) > 6000:
        return  # keep each case to seconds
    qrels = qrels_from_subtopics(subtopics, "<test>")
    table = build_tie_table(Run("r", run_frame), qrels)
    table = table.view(rel_level=rel)
    named = [parse_metric(m) for m in measures]
    if alpha != 0.5 or beta != 0.5:
        named = [type(m)(**{**m.__dict__, **({"alpha": alpha} if m.alpha is not None else {}),
                            **({"beta": beta} if m.beta is not None else {})}) for m in named]
    for query, rankings in zip(sorted(run_frame["query"].unique()), orderings(run_frame)):
        index = int(np.searchsorted(table.queries, query))
        oracle = np.array([ndeval_values(subtopics, query, r, measures, rel, alpha, beta)
                           for r in rankings])
        for column, metric in enumerate(named):
            got = {policy: metric_values(table, metric, extreme=policy)[index]
                   for policy in ("best", "worst")}
            got["expected"] = metric_values(table, metric)[index]
            want = {"expected": oracle[:, column].mean(), "best": oracle[:, column].max(),
                    "worst": oracle[:, column].min()}
            for policy in want:
                assert got[policy] == pytest.approx(want[policy], rel=1e-9, abs=1e-12), \
                    (seed, query, metric.name, policy)
        # trec_eval's order (docno descending in a tie) is one ordering: ndeval's value of it
        trec = table.resolve("trec_eval")
        frame = run_frame[run_frame["query"] == query].assign(
            key=lambda f: f["doc"].map(lambda d: d.encode()))
        order = frame.sort_values(["score", "key"], ascending=False)["doc"].tolist()
        want = ndeval_values(subtopics, query, order, measures, rel, alpha, beta)
        for column, metric in enumerate(named):
            assert metric_values(trec, metric)[index] == pytest.approx(
                want[column], rel=1e-9, abs=1e-12), (seed, query, metric.name, "trec_eval")
        # the input order (file order inside a tie) likewise
        file_order = frame.sort_values("score", ascending=False, kind="stable")["doc"].tolist()
        want = ndeval_values(subtopics, query, file_order, measures, rel, alpha, beta)
        for column, metric in enumerate(named):
            assert metric_values(table.resolve("input"), metric)[index] == pytest.approx(
                want[column], rel=1e-9, abs=1e-12), (seed, query, metric.name, "input")


@pytest.mark.parametrize("seed", range(8))  # more in the slow test below
def test_every_measure_matches_ndeval_over_the_orderings(seed):
    check_case(seed)


@pytest.mark.parametrize("names", [("a", "b", "c"), ("c", "b", "a"), ("b", "c", "a")])
def test_the_ideal_ranking_breaks_ties_of_gain_as_ndeval_by_the_larger_docno(names):
    # three documents of equal first gain (two fresh subtopics each); which one the greedy
    # ideal takes first changes its gains ([2, 2, 1] or [2, 1.5, 1.5]), hence alpha-nDCG
    first, second, third = names
    subtopics = pd.DataFrame([("1", "1", first, 1), ("1", "2", first, 1),
                              ("1", "3", second, 1), ("1", "4", second, 1),
                              ("1", "1", third, 1), ("1", "3", third, 1)],
                             columns=["query", "subtopic", "doc", "relevance"])
    run = pd.DataFrame({"query": "1", "doc": [third, first, second], "score": [3.0, 2.0, 1.0]})
    table = build_tie_table(Run("r", run), qrels_from_subtopics(subtopics, "<test>"))
    measures = ["alpha_nDCG@2", "alpha_nDCG@3", "nERR_IA@3", "nNRBP"]
    want = ndeval_values(subtopics, "1", [third, first, second], measures)
    got = [metric_values(table, m)[0] for m in measures]
    assert got == pytest.approx(want, rel=1e-12)


DEEP = ([f"{family}@{k}" for family in ("alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA",
                                         "P_IA", "StRecall") for k in (1, 4, 6, 7, 10, 20)]
        + ["NRBP", "nNRBP", "AP_IA"])


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1000, 1060))
def test_larger_groups_and_cutoffs_match_ndeval(seed):
    """Up to 8 documents and 5 subtopics a query (groups of up to 7, thousands of
    orderings), cutoffs to ndeval's depth 20; alpha and beta drawn."""
    rng = np.random.default_rng(seed)
    check_case(seed, DEEP, rel=int(rng.integers(1, 3)),
               alpha=float(rng.choice([0.5, 0.1, 1.0, 0.0])),
               beta=float(rng.choice([0.5, 0.9])), most=9, subtopics_most=6)


@pytest.mark.parametrize("seed", range(2))
def test_parameters_and_relevance_levels_match_ndeval(seed):
    check_case(100 + seed, alpha=0.3, beta=0.8)
    check_case(200 + seed, rel=2)


def test_a_search_too_large_is_refused_naming_the_query_and_ranks(monkeypatch):
    from tiedrank.metrics import intent_extremes

    monkeypatch.setattr(intent_extremes, "MAX_STATES", 5)
    subtopics = pd.DataFrame([("q7", str(s), f"d{d}", int((d + s) % 2 == 0))
                              for d in range(6) for s in range(1, 4)],
                             columns=["query", "subtopic", "doc", "relevance"])
    run = pd.DataFrame({"query": "q7", "doc": [f"d{d}" for d in range(6)], "score": 1.0})
    table = build_tie_table(Run("r", run), qrels_from_subtopics(subtopics, "<test>"))
    with pytest.raises(ValueError, match=r"query 'q7' \(ranks 1-6\) needs 10 states.*"
                                         r"pass ties='expected,trec_eval'"):
        metric_values(table, "alpha_nDCG@3", extreme="best")
    assert metric_values(table, "alpha_nDCG@3")[0] > 0  # the expectation needs no search


def test_intent_measures_on_plain_qrels_say_what_they_need():
    run = pd.DataFrame({"query": "1", "doc": ["a"], "score": [1.0]})
    from tiedrank.core.data import Qrels

    table = build_tie_table(Run("r", run), Qrels(pd.DataFrame(
        {"query": ["1"], "doc": ["a"], "relevance": [1]})))
    with pytest.raises(ValueError, match="alpha_nDCG needs diversity qrels"):
        metric_values(table, "alpha_nDCG@10")


def test_every_listed_form_moves_with_the_tie_policy_on_a_tied_run():
    """None is policy-invariant (the registry scores those once): each differs between its
    best and worst on a run whose top group ties documents of different subtopics."""
    from tiedrank import evaluate
    from tiedrank.metrics import METRIC_NAMES

    subtopics = pd.DataFrame([("1", "1", "a", 1), ("1", "2", "a", 1), ("1", "2", "b", 1),
                              ("1", "3", "c", 1)],
                             columns=["query", "subtopic", "doc", "relevance"])
    run = pd.DataFrame({"query": "1", "doc": ["z", "a", "b", "c"], "score": [1.0] * 4})
    forms = [f for f in METRIC_NAMES if f.split("@")[0].split("(")[0] in NDEVAL]
    names = [f.replace("@k", "@2") for f in forms] + [
        "alpha_nDCG(alpha=0.3)@2", "alpha_DCG(alpha=0.3)@2", "ERR_IA(alpha=0.3)@2",
        "nERR_IA(alpha=0.3)@2", "NRBP(alpha=0.3, beta=0.8)", "nNRBP(alpha=0.3, beta=0.8)"]
    assert len(names) == 15
    report = evaluate({"r": run}, qrels_from_subtopics(subtopics, "<test>"), names,
                      ties="all").report().set_index("metric")
    assert (report["best"] - report["worst"] > 1e-9).all(), report
    assert not any(parse_metric(n).policy_invariant for n in names)


def test_ir_measures_pyndeval_provider_agrees_on_a_tie_free_run_and_its_objects_are_read():
    ir_measures = pytest.importorskip("ir_measures")
    from tiedrank import evaluate

    subtopics, run = random_case(np.random.default_rng(7))
    run = run.assign(score=-np.arange(len(run), dtype=float))  # no ties
    measures = [ir_measures.alpha_nDCG @ 5, ir_measures.alpha_DCG @ 3, ir_measures.ERR_IA @ 5,
                ir_measures.nERR_IA @ 2, ir_measures.NRBP, ir_measures.nNRBP(alpha=0.3, beta=0.8),
                ir_measures.P_IA @ 3, ir_measures.AP_IA, ir_measures.StRecall @ 2,
                ir_measures.alpha_nDCG(alpha=0.2, rel=2) @ 5]
    qrels = subtopics.rename(columns={"query": "query_id", "subtopic": "iteration",
                                      "doc": "doc_id"})
    # one measure a call: pyndeval keeps alpha and beta in C globals, and ir_measures' several
    # (alpha, beta) evaluators in one call clobber each other (nNRBP(alpha=0.3, beta=0.8)
    # beside NRBP comes out 0 where pyndeval alone gives 0.852)
    peer = {(m.query_id, str(m.measure)): m.value for measure in measures
            for m in ir_measures.iter_calc([measure], qrels, run.rename(
                columns={"query": "query_id", "doc": "doc_id"}))}
    ours = evaluate({"r": run}, qrels_from_subtopics(subtopics, "<test>"), measures,
                    ties="trec_eval").per_query
    assert len(ours) == len(peer) > 0
    for row, measure in zip(ours.itertuples(), np.repeat(measures, 2)):
        want = peer[(row.query, str(measure))]
        assert row.value == pytest.approx(0.0 if math.isnan(want) else want, rel=1e-9,
                                          abs=1e-12), (row.query, str(measure))


def test_queries_without_results_or_relevant_subtopics_score_zero():
    from tiedrank import evaluate

    subtopics = pd.DataFrame([("1", "1", "a", 1), ("2", "1", "b", 0), ("3", "1", "c", 1)],
                             columns=["query", "subtopic", "doc", "relevance"])
    run = pd.DataFrame({"query": ["1", "2"], "doc": ["a", "b"], "score": [1.0, 1.0]})
    names = [m.replace("@k", "@3") for m in
             ("alpha_nDCG@k", "alpha_DCG@k", "ERR_IA@k", "nERR_IA@k", "NRBP", "nNRBP",
              "P_IA@k", "AP_IA", "StRecall@k")]
    per_query = evaluate({"r": run}, qrels_from_subtopics(subtopics, "<test>"), names,
                         ties="all", complete=True).per_query
    assert set(per_query["query"]) == {"1", "2", "3"}
    assert (per_query.loc[per_query["query"] != "1", "value"] == 0).all()
    assert (per_query.loc[per_query["query"] == "1", "value"] > 0).all()


def test_judged_only_ranks_the_judged_documents_alone_as_ndeval_on_the_filtered_run():
    # ir_measures' pyndeval provider cannot run judged_only (it indexes a generator), so
    # the oracle is pyndeval on the run without its unjudged documents, as that option means
    from tiedrank import evaluate

    subtopics, run = random_case(np.random.default_rng(11))
    run = run.assign(score=-np.arange(len(run), dtype=float))
    names = ["alpha_nDCG(judged_only=True)@3", "AP_IA(judged_only=True)",
             "P_IA(judged_only=True)@2"]
    ours = evaluate({"r": run}, qrels_from_subtopics(subtopics, "<test>"), names,
                    ties="trec_eval").per_query
    judged = set(zip(subtopics["query"], subtopics["doc"]))
    for query, frame in run.groupby("query"):
        ranking = [d for d in frame["doc"] if (query, d) in judged]
        want = ndeval_values(subtopics, query, ranking, ["alpha_nDCG@3", "AP_IA", "P_IA@2"])
        got = ours[ours["query"] == query]["value"].tolist()
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), query


def test_the_grid_cut_in_slices_gives_the_same_sums(monkeypatch):
    """Large groups are summed in slices of cells (memory bound); slices of a few cells,
    cutting pairs and rows anywhere, must give the one-slice values."""
    from tiedrank.metrics import intent

    rng = np.random.default_rng(5)
    subtopics, run = random_case(rng, most=9, subtopics_most=5)
    table = build_tie_table(Run("r", run), qrels_from_subtopics(subtopics, "<test>"))
    names = ["alpha_nDCG@5", "ERR_IA@3", "NRBP", "AP_IA", "StRecall@4", "P_IA@6"]
    whole = [metric_values(table, m) for m in names]
    monkeypatch.setattr(intent, "_CELLS", 3)
    for name, value in zip(names, whole):
        assert metric_values(table, name) == pytest.approx(value, rel=1e-12, abs=1e-15), name


def test_ir_measures_wrappers_read_diversity_qrels_with_their_iteration():
    ir_measures = pytest.importorskip("ir_measures")
    from tiedrank.interop.measures import Best, Expected, Worst

    subtopics, run = random_case(np.random.default_rng(3))
    qrels = subtopics.rename(columns={"query": "query_id", "subtopic": "iteration",
                                      "doc": "doc_id"})
    measures = [wrap(ir_measures.alpha_nDCG @ 3) for wrap in (Expected, Best, Worst)]
    peer = ir_measures.calc_aggregate(measures, qrels, run.rename(
        columns={"query": "query_id", "doc": "doc_id"}))
    table = build_tie_table(Run("r", run), qrels_from_subtopics(subtopics, "<test>"))
    evaluated = table.evaluated
    for measure, extreme in zip(measures, (None, "best", "worst")):
        want = metric_values(table, "alpha_nDCG@3", extreme=extreme)[evaluated].mean()
        assert peer[measure] == pytest.approx(want, rel=1e-12)


def test_large_groups_agree_with_the_single_intent_kernels_one_intent_at_a_time():
    """Beyond enumeration: ERR-IA with alpha = 1/16 is, per subtopic, gdeval's ERR of the
    subtopic's binary judgements (stop probability (2^1 - 1)/16), whose tie-aware kernel
    (metrics/cascade.py) is independent of this one. Groups of up to 40 documents."""
    from tiedrank.core.data import Qrels

    rng = np.random.default_rng(2)
    docs = [f"d{i:02d}" for i in range(60)]
    rows = [("1", str(s), d, int(rng.random() < 0.3)) for d in docs for s in (1, 2, 3)]
    subtopics = pd.DataFrame(rows, columns=["query", "subtopic", "doc", "relevance"])
    run = pd.DataFrame({"query": "1", "doc": docs, "score": rng.integers(0, 3, 60) * 1.0})
    k, x = 25, 15 / 16
    table = build_tie_table(Run("r", run), qrels_from_subtopics(subtopics, "<test>"))
    ours = metric_values(table, parse_metric(f"ERR_IA(alpha={1 / 16!r})@{k}"))[0]
    per_intent = {"ERR": 0.0, "AP": 0.0, "P": 0.0, "Success": 0.0}
    for s in ("1", "2", "3"):
        mine = subtopics[subtopics["subtopic"] == s].drop(columns="subtopic")
        plain = build_tie_table(Run("r", run), Qrels(mine.reset_index(drop=True)))
        for name in per_intent:
            per_intent[name] += metric_values(plain, name if name == "AP" else f"{name}@{k}")[0]
    S = sum(subtopics.groupby("subtopic")["relevance"].max() > 0)
    ideal_ideal = S * sum(x ** (r - 1) / r for r in range(1, k + 1))
    assert table.group_size.max() >= 15 and S == 3
    assert ours == pytest.approx(16 * per_intent["ERR"] / ideal_ideal, rel=1e-10)
    # MAP-IA, P-IA and subtopic recall: means over the subtopics of AP, P@k and Success@k
    for name, peer in (("AP_IA", "AP"), (f"P_IA@{k}", "P"), (f"StRecall@{k}", "Success")):
        assert metric_values(table, name)[0] == pytest.approx(per_intent[peer] / S, rel=1e-10)


def test_an_expectation_beyond_its_bound_is_refused_naming_the_group(monkeypatch):
    from tiedrank.metrics import intent

    monkeypatch.setattr(intent, "MAX_CELLS", 10)
    subtopics = pd.DataFrame([("q3", "1", f"d{d}", d % 2) for d in range(8)],
                             columns=["query", "subtopic", "doc", "relevance"])
    run = pd.DataFrame({"query": "q3", "doc": [f"d{d}" for d in range(8)],
                        "score": [2.0] + [1.0] * 7})
    table = build_tie_table(Run("r", run), qrels_from_subtopics(subtopics, "<test>"))
    with pytest.raises(ValueError, match=r"NRBP: the exact expectation needs 16 terms.*"
                                         r"the tie group of query 'q3' at ranks 2-8"):
        metric_values(table, "NRBP")
    assert metric_values(table, "alpha_nDCG@2")[0] > 0  # a cutoff bounds the terms


def test_many_searches_beyond_their_total_bound_and_a_long_ideal_are_refused(monkeypatch):
    from tiedrank.core import intents
    from tiedrank.metrics import intent_extremes

    subtopics = pd.DataFrame([(q, str(s), f"d{d}", int((d + s) % 2 == 0)) for q in ("a", "b")
                              for d in range(6) for s in range(1, 4)],
                             columns=["query", "subtopic", "doc", "relevance"])
    run = pd.DataFrame({"query": np.repeat(["a", "b"], 6),
                        "doc": [f"d{d}" for d in range(6)] * 2, "score": 1.0})
    table = build_tie_table(Run("r", run), qrels_from_subtopics(subtopics, "<test>"))
    monkeypatch.setattr(intent_extremes, "MAX_SEARCH_WORK", 15)
    with pytest.raises(ValueError, match=r"the best orders of 2 tie groups need 20 states, "
                                         r"[0-9,]+ units of work together.*query 'a', ranks "
                                         r"1-6.*pass ties='expected,trec_eval'"):
        metric_values(table, "alpha_DCG@3", extreme="best")
    monkeypatch.setattr(intents, "MAX_IDEAL_WORK", 5)
    with pytest.raises(ValueError, match=r"greedy ideal ranking.*query 'a' has 6 documents"):
        metric_values(table, "nNRBP")
    assert metric_values(table, "alpha_DCG@3").shape == (2,)  # needs no ideal


def test_the_greedy_ideal_of_a_cutoff_takes_k_steps(monkeypatch):
    """alpha-nDCG@k reads the ideal's first k ranks: the greedy stops there (issue 43: one
    query of 50,000 relevant documents took 74 s for alpha_nDCG@20), with the same values."""
    from tiedrank.core import intents

    subtopics = pd.DataFrame([("a", str(d % 3 + 1), f"d{d}", 1) for d in range(30)]
                             + [("a", "4", f"d{d}", 1) for d in range(0, 30, 4)],
                             columns=["query", "subtopic", "doc", "relevance"])
    run = pd.DataFrame({"query": "a", "doc": [f"d{d}" for d in range(30)],
                        "score": np.arange(30.0) // 5})
    table = build_tie_table(Run("r", run), qrels_from_subtopics(subtopics, "<test>"))
    before = {m: metric_values(table, m)[0] for m in ("alpha_nDCG@3", "nERR_IA@5")}
    table = build_tie_table(Run("r", run), qrels_from_subtopics(subtopics, "<test>"))
    monkeypatch.setattr(intents, "MAX_IDEAL_WORK", 5 * 38)  # 5 steps x 38 judgements
    assert {m: metric_values(table, m)[0] for m in before} == before
    with pytest.raises(ValueError, match=r"30 steps .* a cutoff bounds the steps"):
        metric_values(table, "nNRBP")


def test_many_small_searches_are_refused_before_any_search(tmp_path):
    """The issue's case: 100 queries of 17 tied documents of distinct profiles took 273 s
    for alpha_nDCG@20 under the default ties of the CLI; now refused before any search
    (timed in benchmarks/hostile_budgets.py), in the CLI with its flag's words."""
    import subprocess
    import sys

    rows = [(str(q), str(d + 1), f"d{d}", 1) for q in range(100) for d in range(17)]
    rows += [(str(q), str((d + 1) % 17 + 1), f"d{d}", 1) for q in range(100) for d in range(17)]
    subtopics = pd.DataFrame(rows, columns=["query", "subtopic", "doc", "relevance"])
    run = pd.DataFrame({"query": np.repeat([str(q) for q in range(100)], 17),
                        "doc": [f"d{d}" for d in range(17)] * 100, "score": 1.0})
    table = build_tie_table(Run("r", run), qrels_from_subtopics(subtopics, "<test>"))
    with pytest.raises(ValueError, match=r"the worst orders of 100 tie groups.*more than the "
                                         r"150,000,000 \(about 4 s\).*ties='expected,trec_eval'"):
        metric_values(table, "alpha_nDCG@20", extreme="worst")
    (tmp_path / "q").write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in rows))
    (tmp_path / "r").write_text("".join(f"{q} Q0 d{d} {d + 1} 1.0 tied\n" for q in range(100)
                                        for d in range(17)))
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", "q", "r", "-m",
                           "alpha_nDCG@20"], capture_output=True, cwd=tmp_path, timeout=120)
    message = done.stderr.decode()
    assert done.returncode == 2 and "Traceback" not in message, message
    assert "query '0', ranks 1-17" in message and "--ties expected,trec_eval" in message
