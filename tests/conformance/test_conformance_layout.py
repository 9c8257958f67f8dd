"""Layout independence: the order of the rows in the files, and which queries are evaluated
together (one file, one query at a time, buckets), never change a per-query value, for every
policy but ``input`` (the file order is its definition).

The comparison is exact (``assert_frame_equal`` after sorting rows): the random policy keys
on (seed, run name, query, doc), so it is included.
"""
from __future__ import annotations

import pandas as pd
from conformance_cases import cases, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tiedrank
from tiedrank import distributed as D

METRICS = ["RR", "Success@2", "Hits@2", "P@2", "R@3", "AP", "AP@2", "nDCG", "nDCG@3", "DCG@3",
           "Rprec", "TsRR(alpha=2)", "TsRR2", "MTRR_GRAG", "TMHits_GRAG@2", "Judged@2",
           "ERR@3"]
QUIET = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.assign(run=frame["run"].astype(str), metric=frame["metric"].astype(str),
                         policy=frame["policy"].astype(str))
    return frame.sort_values(["run", "query", "metric", "policy"]).reset_index(drop=True)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=QUIET)
@given(case=cases(), data=st.data(), seed=st.integers(0, 2**31),
       judged_only=st.booleans(), depth=st.sampled_from([None, 2]), complete=st.booleans())
def test_row_order_and_query_grouping_change_nothing(case, data, seed, judged_only, depth,
                                                     complete, tmp_path_factory):
    opts = dict(ties=["all", f"random(seed={seed})"], judged_only=judged_only, depth=depth,
                complete=complete)
    root = tmp_path_factory.mktemp("layout")
    run, qrels = case.write(root / "a")
    reference = tiedrank.evaluate(run, qrels, METRICS, **opts)
    expected = _sorted(reference.per_query)
    # 1. rows of both files shuffled
    shuffled_run = data.draw(st.permutations(case.run))
    shuffled_qrels = data.draw(st.permutations(case.qrels))
    run2, qrels2 = case.write(root / "b", run_rows=shuffled_run, qrels_rows=shuffled_qrels)
    pd.testing.assert_frame_equal(_sorted(tiedrank.evaluate(run2, qrels2, METRICS,
                                                            **opts).per_query), expected)
    # 2. each query evaluated on its own (its run rows and its qrels rows only)
    parts = []
    for q in sorted({r[0] for r in case.run} | {r[0] for r in case.qrels}):
        rows = tuple(r for r in case.run if r[0] == q)
        judged = tuple(r for r in case.qrels if r[0] == q)
        if not judged or (not rows and not complete):
            continue
        if not rows:  # a qrels-only query: the run file needs a row; use another query's
            rows = (("__elsewhere__", "d1", 1.0),)
        run3, qrels3 = case.write(root / f"q-{len(parts)}", run_rows=rows, qrels_rows=judged)
        parts.append(tiedrank.evaluate(run3, qrels3, METRICS, **opts).per_query)
    pd.testing.assert_frame_equal(_sorted(pd.concat(parts, ignore_index=True)), expected)
    # 3. the shuffled files split into 3 buckets
    buckets = D.evaluate(run2, qrels2, METRICS, buckets=3, spill_dir=root, **opts)
    pd.testing.assert_frame_equal(_sorted(buckets.per_query), expected)
