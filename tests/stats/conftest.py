"""Fixtures shared by the tests of tiedrank.stats."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from stats_support import per_query, qrels_of, tie_table

from tiedrank.core.data import Run


@pytest.fixture
def vectors():
    """Two paired vectors with a real, not overwhelming, difference and tied |d| values."""
    rng = np.random.default_rng(42)
    a = rng.random(30).round(2)
    b = np.clip(a - 0.05 + rng.normal(0, 0.15, 30), 0, 1).round(2)
    return a, b


@pytest.fixture
def three_runs():
    """A clearly above B above C on RR; C misses query q29; a second metric P@5."""
    rng = np.random.default_rng(7)
    queries = [f"q{i}" for i in range(30)]
    base = rng.random(30)
    runs = {"A": base + 0.30, "B": base + 0.10 + rng.normal(0, 0.05, 30),
            "C": base + rng.normal(0, 0.05, 30)}
    frames = []
    for metric, shift in (("RR", 0.0), ("P@5", 0.01)):
        values = {name: dict(zip(queries, v + shift)) for name, v in runs.items()}
        del values["C"]["q29"]
        frames.append(per_query(values, metric))
    return pd.concat(frames, ignore_index=True)


@pytest.fixture
def flip_case():
    """A wins under expected/best, loses under trec_eval/worst.

    A ties the relevant doc "a" with "z" on both queries: RR 1 or 1/2, expected 3/4, and
    trec_eval (docno descending) puts "z" first: 1/2. B: RR 1 and 1/3, mean 2/3 whatever
    the tie-break.
    """
    qrels = qrels_of([("q1", "a", 1), ("q2", "a", 1)])
    run_a = Run("A", pd.DataFrame([("q1", "a", 1.0), ("q1", "z", 1.0), ("q2", "a", 1.0),
                                   ("q2", "z", 1.0)], columns=["query", "doc", "score"]))
    run_b = Run("B", pd.DataFrame([("q1", "a", 1.0), ("q1", "b", 0.5), ("q2", "c", 0.9),
                                   ("q2", "d", 0.8), ("q2", "a", 0.7)],
                                  columns=["query", "doc", "score"]))
    return run_a, run_b, qrels


@pytest.fixture
def tiny_tables():
    """Two runs on three queries with ties at the top; one relevant doc not retrieved."""
    qrels = qrels_of([("q1", "a", 2), ("q1", "b", 1), ("q2", "c", 1), ("q2", "x", 1),
                      ("q3", "e", 3), ("q3", "f", 0)])
    a = tie_table("A", [("q1", "a", 1.0), ("q1", "b", 1.0), ("q1", "n", 1.0), ("q1", "m", 0.5),
                        ("q2", "n", 0.9), ("q2", "c", 0.9), ("q2", "m", 0.1),
                        ("q3", "f", 0.7), ("q3", "e", 0.7), ("q3", "g", 0.7)], qrels)
    b = tie_table("B", [("q1", "n", 2.0), ("q1", "a", 1.0), ("q1", "b", 1.0),
                        ("q2", "m", 0.5), ("q2", "n", 0.5), ("q2", "c", 0.5), ("q2", "k", 0.5),
                        ("q3", "e", 0.2), ("q3", "g", 0.2)], qrels)
    return a, b
