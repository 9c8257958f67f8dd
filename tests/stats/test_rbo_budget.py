"""Rank-biased overlap in memory linear in the runs (issue 43, class 1): the expected overlap
X_d of RBO^a and RBO^b was summed item by item over each item's ramp, a place-by-item array of
n^2 entries for one group of n tied documents (10,000: 3.3 GB; the Compare page computes it
for any two uploaded runs).

Oracles: X_d as its definition reads, sum_i c_S,i(d) c_L,i(d) place by place (tiny runs),
and the published and enumerated values of test_rbo.py (unchanged)."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from tiedrank.stats import rank_biased_overlap
from tiedrank.stats.overlap import _Flat, _overlaps


def _x_a_by_definition(short: _Flat, long: _Flat) -> np.ndarray:
    common = set(short.ids) & set(long.ids)
    where_s = {doc: i for i, doc in enumerate(short.ids)}
    where_l = {doc: i for i, doc in enumerate(long.ids)}
    out = []
    for d in range(1, len(long) + 1):
        depth = np.array([d])
        out.append(sum(float(short.share_in_top(depth, np.array([where_s[x]]))[0]
                             * long.share_in_top(depth, np.array([where_l[x]]))[0])
                       for x in common))
    return np.array(out)


@pytest.mark.parametrize("seed", range(40))
def test_the_expected_overlap_is_its_definition(seed):
    rng = np.random.default_rng(seed)
    pool = np.array([f"d{i}" for i in range(14)], dtype=object)
    n_s, n_l = sorted(rng.integers(1, 12, 2))
    short = _Flat.from_scores(rng.choice(pool, n_s, replace=False),
                              rng.integers(0, 4, n_s).astype(float))
    long = _Flat.from_scores(rng.choice(pool, n_l, replace=False),
                             rng.integers(0, 4, n_l).astype(float))
    np.testing.assert_allclose(_overlaps(short, long)[1], _x_a_by_definition(short, long),
                               rtol=0, atol=1e-12)


def test_one_query_of_20000_tied_documents_takes_memory_linear_in_the_run():
    n = 20_000
    docs = [f"d{i}" for i in range(n)]
    tied = pd.DataFrame({"query": "q", "doc": docs, "score": 1.0})
    ordered = pd.DataFrame({"query": "q", "doc": docs, "score": -np.arange(n, dtype=float)})
    tracemalloc.start()
    try:
        result = rank_biased_overlap(tied, ordered, p=0.9)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, peak  # was about 32 n^2 bytes: 12.8 GB
    a = result.per_query.set_index("variant").loc["a"]
    # RBO^a's lower bound against a strict order of the same documents: sum_d (1-p) p^(d-1)
    # E|overlap of the top d| / d, with E = d * d / n for d <= n, so about (1-p)/n sum_d d p^(d-1)
    assert a["min"] == pytest.approx((1 - 0.9) / n / (1 - 0.9) ** 2, rel=1e-6)


def test_the_compare_pages_overlap_of_two_uploads_stays_small():
    """The issue's case: one query x 12,000 documents, one run all tied (6.2 GB before)."""
    from tiedrank import evaluate
    from tiedrank.dashboard.run_overlap import overlap_of_runs

    n = 12_000
    docs = [f"d{i}" for i in range(n)]
    runs = {"tied": pd.DataFrame({"query": "q", "doc": docs, "score": 1.0}),
            "ordered": pd.DataFrame({"query": "q", "doc": docs,
                                     "score": -np.arange(n, dtype=float)})}
    qrels = pd.DataFrame({"query": "q", "doc": docs[:5], "relevance": 1})
    evaluation = evaluate(runs, qrels, ["RR"])
    tracemalloc.start()
    try:
        result = overlap_of_runs(evaluation, "tied", "ordered", 0.9)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, peak
    assert result.per_query["n_a"].tolist() == [n] * 3
