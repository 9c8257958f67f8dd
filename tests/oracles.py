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


def make_inputs(queries: dict[str, tuple[list[float], list[int], list[int]]]) -> tuple[Run, Qrels]:
    """{qid: (scores, grades of the retrieved docs, grades of extra unretrieved judged docs)}."""
    run_rows, qrel_rows = [], []
    for qid, (scores, grades, extra) in queries.items():
        for i, (s, g) in enumerate(zip(scores, grades)):
            run_rows.append((qid, f"{qid}-d{i:03d}", float(s)))
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
