"""A bucket's tie tables and Arrow buffers are freed when its task returns (issue 23).

Peak memory of ``--buckets`` must follow one bucket, not the file. A table caught in a
reference cycle outlives its task until Python's garbage collector next runs, and the
collector runs by counts of objects, not bytes: on 50M rows every finished bucket stayed
(2.2 GB at the end, benchmarks/RESULTS.md). The oracle here is the garbage collector
itself: with it switched off, no tie table and none of the run's Arrow buffers may be
left after an evaluation, whatever makes tables (tie policies whose table is its own
scoring view, judged-only views, measures at their own relevance level).
"""
from __future__ import annotations

import gc

import numpy as np
import pyarrow as pa
import pytest

from tiedrank import distributed as D
from tiedrank.core.ties import TieTable

POLICIES = ["expected", "best", "worst", "trec_eval", "random(seed=1)"]
METRICS = ["RR", "AP", "nDCG@10", "P@10"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A run of 60 queries x 400 documents with ties, graded qrels with unjudged docs."""
    rng = np.random.default_rng(5)
    root = tmp_path_factory.mktemp("memory")
    run, qrels = [], []
    for q in range(60):
        docs = rng.choice(100_000, 400, replace=False)
        scores = rng.integers(0, 8, 400) / 8
        run += [f"q{q} Q0 document-{d:08d} {r} {s} sys\n"
                for r, (d, s) in enumerate(zip(docs, scores), 1)]
        judged = rng.choice(docs, 40, replace=False)
        qrels += [f"q{q} 0 document-{d:08d} {int(rng.integers(-1, 4))}\n" for d in judged]
    (root / "run.txt").write_text("".join(run))
    (root / "qrels.txt").write_text("".join(qrels))
    return str(root / "run.txt"), str(root / "qrels.txt")


def _live_tables() -> int:
    return sum(isinstance(o, TieTable) for o in gc.get_objects())


@pytest.mark.parametrize("metrics, options", [
    (METRICS, {}),
    (METRICS, {"judged_only": True}),  # a judged-only view of each bucket's table
    (METRICS + ["AP(rel=2)", "P(judged_only=False)@10"], {"judged_only": True}),
    (METRICS + ["AP(rel=2)"], {"rel_level": 1}),
])
def test_no_tie_table_or_arrow_buffer_outlives_its_bucket(files, tmp_path, metrics, options):
    run, qrels = files
    gc.collect()
    tables, arrow = _live_tables(), pa.total_allocated_bytes()
    gc.disable()
    try:
        ev = D.evaluate([run], qrels, metrics, ties=POLICIES, buckets=3, spill_dir=tmp_path,
                        **options)
        left_tables = _live_tables() - tables
        left_arrow = pa.total_allocated_bytes() - arrow
    finally:
        gc.enable()
    assert len(ev.per_query) > 0
    assert left_tables == 0
    # what stays is the result (query ids of the per-query rows and counts), not the run's
    # 24,000 document ids (about 400 kB as Arrow strings)
    assert left_arrow < 100_000, left_arrow
