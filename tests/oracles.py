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

from tiedrank.data import Qrels, Run


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
