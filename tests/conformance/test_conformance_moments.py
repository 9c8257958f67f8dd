"""Exact moments and the samplers of every metric family against enumeration of orderings.

``query_moments`` must give, per query, the mean and the population variance of the metric
over every ordering of the tie groups (brute force of ``conformance_oracle.py``, inputs of at
most 720 orderings per query), to 1e-12. The tie-aware metrics are constant: variance 0,
mean = their formula. The sampler's per-query draws (``sample_query_values``) only take
values that some ordering gives, and their mean is within 5 standard errors of the exact
mean (fixed seeds; the standard error from the enumeration's variance); ``sample_run_means``
agrees with the per-query draws averaged over the evaluated queries.
"""
from __future__ import annotations

import numpy as np
from conformance_cases import cases, examples
from conformance_oracle import Spec, all_values, build_query, tie_aware_value, TIE_AWARE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tiedrank
from tiedrank.evaluation import build_tables
from tiedrank.core.options import EvaluationOptions
from tiedrank.sampling import query_moments, sample_query_values, sample_run_means

METRICS = ["RR", "RR@2", "Success@1", "Success@3", "Hits@2", "P@3", "R@2", "AP", "AP@2",
           "nDCG", "nDCG@2", "DCG@3", "Rprec", "TsRR(alpha=0.5)", "TsRR2", "MTRR_GRAG",
           "TMHits_GRAG@2"]
N_DRAWS = 400
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]


def _queries(case, rel_level, judged_only):
    judged = {}
    for q, d, g in case.qrels:
        judged.setdefault(q, {})[d] = g
    out = {}
    for q in case.evaluable():
        rows = [(d, s) for qq, d, s in case.run if qq == q]
        out[q] = build_query(rows, judged[q], judged_only=judged_only)
    return out


@settings(max_examples=examples(100), deadline=None, suppress_health_check=QUIET)
@given(case=cases(), rel_level=st.integers(1, 2), gain=st.sampled_from(["linear", "exp"]),
       judged_only=st.booleans(), seed=st.integers(0, 2**31))
def test_moments_and_draws_equal_enumeration(case, rel_level, gain, judged_only, seed):
    options = EvaluationOptions(rel_level=rel_level, gain=gain, judged_only=judged_only)
    table = build_tables({"r": case.run_frame()}, case.qrels_frame(), options)["r"]
    position = {q: i for i, q in enumerate(table.queries)}
    queries = _queries(case, rel_level, judged_only)
    for name in METRICS:
        spec = Spec.of(name)
        moments = query_moments(table, name, gain=gain)
        draws = sample_query_values(table, name, N_DRAWS, seed, gain=gain)
        for q, query in queries.items():
            i = position[q]
            if spec.family in TIE_AWARE:
                values = np.array([tie_aware_value(spec, query, rel_level)])
            else:
                values = all_values(spec, query, rel_level, gain)
            mean, variance = values.mean(), values.var()
            assert abs(moments.mean[i] - mean) <= 1e-12, (name, q, case)
            assert abs(moments.variance[i] - variance) <= 1e-12, (name, q, case)
            support = np.unique(values)
            column = draws[:, i]
            nearest = np.abs(column[:, None] - support[None, :]).min(axis=1)
            assert nearest.max() <= 1e-12, (name, q, "a draw no ordering gives", case)
            error = np.sqrt(variance / N_DRAWS)
            assert abs(column.mean() - mean) <= 5 * error + 1e-12, (name, q, case)
        # run means: the draws averaged over the evaluated queries, draw by draw
        included = table.evaluated
        if included.any():
            means = sample_run_means(table, name, N_DRAWS, seed, gain=gain)
            assert np.allclose(means, draws[:, included].mean(axis=1), rtol=0, atol=1e-12)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=QUIET)
@given(case=cases(), seed=st.integers(0, 2**31))
def test_random_policy_takes_an_ordering_of_the_enumeration(case, seed):
    """``ties="random(seed=…)"`` is one ordering: its value is among the enumerated ones."""
    ev = tiedrank.evaluate({"r": case.run_frame()}, case.qrels_frame(), METRICS[:13],
                           ties=f"random(seed={seed})")
    queries = _queries(case, 1, False)
    for row in ev.per_query.itertuples():
        values = all_values(Spec.of(row.metric), queries[row.query], 1)
        assert np.abs(values - row.value).min() <= 1e-12, (row, case)
