"""Independent reference implementations used as test oracles.

Plain Python over one explicit ordering, written from the textbook definitions and sharing
no code with tiedrank's kernels; ``all_orderings`` permutes *documents* (not label patterns,
pitfall 3 of the reference) inside every tie group.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from tiedrank.core.data import Qrels, Run


def make_inputs(queries: dict[str, tuple[list[float], list, list[int]]]) -> tuple[Run, Qrels]:
    """{qid: (scores, grades of the retrieved docs, grades of extra unretrieved judged docs)}.

    A retrieved document's grade may be ``None``: the document is then absent from the qrels
    (unjudged, trec_eval's RELVALUE_NONPOOL)."""
    run_rows, qrel_rows = [], []
    for qid, (scores, grades, extra) in queries.items():
        for i, (s, g) in enumerate(zip(scores, grades)):
            run_rows.append((qid, f"{qid}-d{i:03d}", float(s)))
            if g is not None:
                qrel_rows.append((qid, f"{qid}-d{i:03d}", int(g)))
        for j, g in enumerate(extra):
            qrel_rows.append((qid, f"{qid}-u{j:03d}", int(g)))
    run = Run("r", pd.DataFrame(run_rows, columns=["query", "doc", "score"]).astype(
        {"query": "str", "doc": "str", "score": "float64"}))
    qrels = Qrels(pd.DataFrame(qrel_rows, columns=["query", "doc", "relevance"]).astype(
        {"query": "str", "doc": "str", "relevance": "int64"}))
    return run, qrels


def all_orderings(scores):
    """Every ordering (tuple of indices) consistent with the scores (descending)."""
    distinct = sorted(set(scores), reverse=True)
    groups = [[i for i, s in enumerate(scores) if s == v] for v in distinct]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield tuple(i for part in parts for i in part)


def metric_of_ordering(name: str, k, ranked_grades: list[int], all_grades: list[int],
                       rel_level: int, gain: str = "linear") -> float:
    """Metric of one ranked list. ``all_grades``: every judged grade of the query (for R, IDCG)."""
    rel = [g >= rel_level for g in ranked_grades]
    R = sum(g >= rel_level for g in all_grades)
    n = len(ranked_grades)
    depth = n if k is None else min(k, n)
    g_of = (lambda g: max(g, 0)) if gain == "linear" else (lambda g: 2 ** max(g, 0) - 1)
    if name == "RR":
        for i in range(depth):
            if rel[i]:
                return 1.0 / (i + 1)
        return 0.0
    if name == "Success":
        return float(any(rel[:depth]))
    if name == "P":
        return sum(rel[:depth]) / k
    if name == "R":
        return sum(rel[:depth]) / R if R else 0.0
    if name == "Rprec":
        return sum(rel[:min(R, n)]) / R if R else 0.0
    if name == "AP":
        hits, total = 0, 0.0
        for i in range(depth):
            if rel[i]:
                hits += 1
                total += hits / (i + 1)
        return total / R if R else 0.0
    if name in ("DCG", "nDCG"):
        dcg = sum(g_of(ranked_grades[i]) / math.log2(i + 2) for i in range(depth))
        if name == "DCG":
            return dcg
        ideal = sorted(all_grades, reverse=True)
        idepth = len(ideal) if k is None else min(k, len(ideal))
        idcg = sum(g_of(ideal[i]) / math.log2(i + 2) for i in range(idepth))
        return dcg / idcg if idcg > 0 else 0.0
    raise ValueError(name)


def enumerate_metric(name, k, scores, grades, extra, rel_level, gain="linear") -> np.ndarray:
    """The metric under every ordering of one query (brute force)."""
    all_grades = list(grades) + list(extra)
    return np.array([metric_of_ordering(name, k, [grades[i] for i in order], all_grades,
                                        rel_level, gain)
                     for order in all_orderings(scores)])


# ---- trec_eval's further measures, from trec_eval's C loops (m_bpref.c, m_rbp.c, ...) -------
def trec_measure_of_ordering(name: str, param, ranked: list, judged: list[int],
                             rel_level: int) -> float:
    """One of trec_eval's further measures on one ranked list, by trec_eval's loops.

    ``ranked``: grades in rank order, ``None`` for a document not in the qrels; ``judged``:
    every grade of the query's qrels (retrieved or not). ``param``: set_F's beta, rbp's p,
    Rprec_mult's multiplier, relative_P's cutoff.
    """
    num_ret = len(ranked)
    num_rel = sum(g >= rel_level for g in judged)
    num_nonrel = sum(0 <= g < rel_level for g in judged)
    rel = [g is not None and g >= rel_level for g in ranked]
    rel_ret = sum(rel)
    if name == "num_ret":
        return float(num_ret)
    if name == "num_rel":
        return float(num_rel)
    if name == "num_rel_ret":
        return float(rel_ret)
    if name == "set_P":
        return rel_ret / num_ret if num_ret else 0.0
    if name == "set_recall":
        return rel_ret / num_rel if num_rel else 0.0
    if name == "set_F":
        if not rel_ret:
            return 0.0
        p, r = rel_ret / num_ret, rel_ret / num_rel
        return (param + 1) * p * r / (param * p + r)
    if name == "set_relative_P":
        return rel_ret / min(num_ret, num_rel) if num_ret and num_rel else 0.0
    if name == "set_map":
        return rel_ret ** 2 / (num_ret * num_rel) if num_ret and num_rel else 0.0
    if name == "bpref":  # m_bpref.c, line by line
        nonrel_so_far, total = 0, 0.0
        for g in ranked:
            if g is None or g < 0:  # not in the pool, or in the pool but unjudged
                continue
            if g < rel_level:
                nonrel_so_far += 1
            elif nonrel_so_far > 0:
                total += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
            else:
                total += 1.0
        return total / num_rel if num_rel else 0.0
    if name == "rbp":  # Moffat & Zobel (2008), binary relevance
        return (1 - param) * sum(param ** i for i, r in enumerate(rel) if r)
    if name == "Rprec_mult":  # m_Rprec_mult.c: precision at (long)(mult * R + 0.9)
        cutoff = int(param * num_rel + 0.9)
        return sum(rel[:cutoff]) / cutoff if cutoff >= 1 and num_rel else 0.0
    if name == "relative_P":  # m_rel_P.c
        return sum(rel[:param]) / min(param, num_rel) if num_rel else 0.0
    raise ValueError(name)


# ---- random inputs for the trec_eval measures, and pytrec_eval per query --------------------
def random_trec_inputs(rng, tie_free: bool, *, max_docs: int = 30, extra: int = 6,
                       top_grade: int = 3, forced_grade: int | None = 3
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """1 to 5 queries of 1 to ``max_docs`` - 1 retrieved documents (tied scores in halves,
    or a permutation when ``tie_free``), grades -1..``top_grade`` (``forced_grade`` on one
    document), about 20% of the documents never judged and ``extra`` judged ones per query
    the run misses: run and qrels frames."""
    run_rows, qrels_rows = [], []
    for q in range(int(rng.integers(1, 6))):
        n = int(rng.integers(1, max_docs))
        docs = rng.choice(10_000, size=n + extra, replace=False)
        scores = (rng.permutation(n).astype(float) if tie_free
                  else rng.integers(0, 4, size=n).astype(float) / 2)
        grades = rng.integers(-1, top_grade + 1, size=n + extra)
        if forced_grade is not None:
            grades[int(rng.integers(0, n + extra))] = forced_grade
        judged = rng.random(n + extra) < 0.8  # the rest retrieved but never judged
        run_rows += [(f"{q}", f"D{d}", s) for d, s in zip(docs[:n], scores)]
        qrels_rows += [(f"{q}", f"D{d}", int(g)) for d, g, j in zip(docs, grades, judged) if j]
    return (pd.DataFrame(run_rows, columns=["query", "doc", "score"]),
            pd.DataFrame(qrels_rows, columns=["query", "doc", "relevance"]))


def tied_and_tie_free(rng, **shape) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """One qrels frame and two runs on disjoint queries: ``tied`` and ``free`` (tie-free,
    its query ids prefixed with f)."""
    tied, free = random_trec_inputs(rng, False, **shape), random_trec_inputs(rng, True, **shape)
    qrels = pd.concat([tied[1], free[1].assign(query="f" + free[1]["query"])])
    return qrels, {"tied": tied[0], "free": free[0].assign(query="f" + free[0]["query"])}


_PYTREC_EVALUATORS: list = []  # kept alive: trec_eval's C code keeps global state


def pytrec_eval_values(qrels: pd.DataFrame, runs: dict[str, pd.DataFrame], measures,
                       rel_level: int, judged_only: bool) -> dict[str, dict]:
    """pytrec_eval's (trec_eval's C code) per-query values of ``measures`` for each run of
    ``runs``, from one evaluator (each new one costs, and they are kept alive)."""
    import pytrec_eval
    evaluator = pytrec_eval.RelevanceEvaluator(
        {q: dict(zip(g["doc"], g["relevance"].astype(int))) for q, g in qrels.groupby("query")},
        set(measures), relevance_level=rel_level, judged_docs_only_flag=judged_only)
    _PYTREC_EVALUATORS.append(evaluator)
    return {label: evaluator.evaluate({q: dict(zip(g["doc"], g["score"]))
                                       for q, g in run.groupby("query")})
            for label, run in runs.items()}


def check_per_query_against_pytrec_eval(seed: int, rel_level: int, judged_only: bool,
                                        measures: dict[str, str], *,
                                        geometric: frozenset = frozenset()) -> int:
    """tiedrank's per-query values of ``measures`` (pytrec_eval name -> tiedrank name) equal
    pytrec_eval's to 1e-9: under every policy on a tie-free run, under trec_eval's order on a
    tied one. For the ``geometric`` measures pytrec_eval gives log(max(value, 1e-5)), so
    those compare exp of theirs with ours floored at 1e-5. Returns the values compared."""
    import pytest

    from tiedrank import evaluate
    from tiedrank.metrics import parse_metric
    qrels, runs = tied_and_tie_free(np.random.default_rng(seed))
    theirs_all = pytrec_eval_values(qrels, runs, measures, rel_level, judged_only)
    checked = 0
    for label, run in runs.items():
        ev = evaluate({label: run}, qrels, list(measures.values()), ties="all",
                      rel_level=rel_level, judged_only=judged_only)
        ours = ev.per_query.set_index(["query", "policy", "metric"])["value"]
        policies = ["trec_eval"] if label == "tied" else ["expected", "best",
                                                          "worst", "trec_eval"]
        for q, values in theirs_all[label].items():
            for measure, name in measures.items():
                want = math.exp(values[measure]) if measure in geometric else values[measure]
                for policy in policies:
                    got = ours[(q, policy, parse_metric(name).name)]
                    got = max(got, 1e-5) if measure in geometric else got  # trec_eval's floor
                    assert got == pytest.approx(want, abs=1e-9), (label, q, measure, policy,
                                                                  judged_only)
                    checked += 1
    return checked
