"""ranx's own spellings and files: the ``-lN`` level suffix gives ranx's number, and a run
and qrels saved by ``ranx.Run.save`` / ``Qrels.save`` read as the objects themselves.

On a tie-free run (every policy is then ranx's single ordering).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tiedrank import evaluate, read_qrels, read_run

RANX_FILES = Path(__file__).parent / "ranx_fixtures"  # written by ranx.Run.save / Qrels.save


@pytest.fixture(scope="module")
def tie_free():
    rng = np.random.default_rng(5)
    run = {f"q{i}": {f"d{j}": float(s) for j, s in enumerate(rng.permutation(40) + 0.5)}
           for i in range(15)}
    qrels = {q: {f"d{j}": int(rng.integers(0, 4)) for j in rng.choice(40, 12, replace=False)}
             for q in run}
    return run, qrels


def test_level_suffix_equals_ranx(tie_free):
    ranx = pytest.importorskip("ranx")
    run, qrels = tie_free
    forms = ["map-l2", "mrr-l2", "precision@5-l2", "recall@10-l2", "hits@10-l2",
             "hit_rate@5-l3", "r-precision-l2", "map@10-l3"]
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), forms)
    ours = evaluate(run, qrels, forms, ties="trec_eval", query_set="trec_eval").to_ranx("trec_eval")
    values = list(ours.values())
    for form, value in zip(forms, values):
        assert value == pytest.approx(float(theirs[form]), abs=1e-12), form


def test_ranx_json_files_read_as_the_objects(tie_free):
    """The files are ranx 0.3.21's own ``save`` of this module's tie-free run and qrels (see
    ranx_fixtures/README.md): read by tiedrank they equal the objects, and evaluate as ranx
    evaluates the files it reads back."""
    ranx = pytest.importorskip("ranx")
    run, qrels = tie_free
    run_file, qrels_file = RANX_FILES / "run.json", RANX_FILES / "qrels.json"
    ranx_run, ranx_qrels = ranx.Run(run, name="bm25"), ranx.Qrels(qrels)
    by_key = ["query", "doc"]
    assert read_run(run_file).frame.sort_values(by_key).reset_index(drop=True).equals(
        read_run(ranx_run).frame.sort_values(by_key).reset_index(drop=True))
    assert read_qrels(qrels_file).frame.sort_values(by_key).reset_index(
        drop=True).equals(read_qrels(ranx_qrels).frame.sort_values(by_key).reset_index(drop=True))
    metrics = ["ndcg@10", "map", "mrr"]
    ours = evaluate(run_file, qrels_file, metrics).to_ranx()
    theirs = ranx.evaluate(ranx.Qrels.from_file(str(qrels_file)),
                           ranx.Run.from_file(str(run_file)), metrics)
    for name in metrics:
        assert ours[name] == pytest.approx(float(theirs[name]), abs=1e-12), name
