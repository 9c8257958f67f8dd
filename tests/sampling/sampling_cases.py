"""Small random cases and brute-force oracles shared by the sampling tests.

Everything here enumerates orderings with the independent oracles of ``tests/oracles.py``
(plain Python over one explicit ordering); nothing reuses tiedrank's samplers or laws.
"""
from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
from hypothesis import strategies as st
from oracles import all_orderings, make_inputs, metric_of_ordering

from tiedrank import EvaluationOptions
from tiedrank.metrics import parse_metric
from tiedrank.core.ties import build_tie_table

EVERY_METRIC = ["RR", "RR@2", "Success@1", "Success@3", "P@1", "P@3", "R@2", "R@5", "Rprec",
                "AP", "AP@3", "DCG@3", "nDCG", "nDCG@2", "nDCG@4"]
LATTICE_METRICS = ["Success@1", "Success@3", "P@2", "P@3", "R@2", "Rprec"]


@st.composite
def small_query(draw, max_docs: int = 7):
    n = draw(st.integers(1, max_docs))
    scores = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=n, max_size=n))
    grades = draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(0, 3), max_size=2))
    return scores, grades, extra


def table_of(spec: dict, rel_level: int = 1):
    run, qrels = make_inputs(spec)
    return build_tie_table(run, qrels, EvaluationOptions(rel_level=rel_level))


def query_values(spec_query, metric: str, rel_level: int = 1, gain: str = "linear") -> np.ndarray:
    """The metric under every ordering of one query (brute force)."""
    scores, grades, extra = spec_query
    m = parse_metric(metric)
    all_grades = list(grades) + list(extra)
    return np.array([metric_of_ordering(m.family, m.k, [grades[i] for i in order], all_grades,
                                        rel_level, gain)
                     for order in all_orderings(scores)])


def joint_mean_law(spec: dict, metric: str, included, rel_level: int = 1,
                   gain: str = "linear") -> dict[float, float]:
    """{run mean: probability} over every *joint* ordering of the included queries."""
    per_query = [query_values(spec[q], metric, rel_level, gain) for q in sorted(spec)
                 if included[q]]
    count = len(per_query)
    law: dict[float, float] = defaultdict(float)
    weight = 1.0 / np.prod([len(v) for v in per_query])
    for combo in itertools.product(*per_query):
        law[round(sum(combo) / count, 9)] += weight
    return dict(law)
