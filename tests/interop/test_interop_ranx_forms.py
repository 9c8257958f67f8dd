"""ranx's own spellings and files: the ``-lN`` level suffix gives ranx's number, and a run
and qrels saved by ``ranx.Run.save`` / ``Qrels.save`` read as the objects themselves.

On a tie-free run (every policy is then ranx's single ordering).
"""
from __future__ import annotations

import numpy as np
import pytest

from tiedrank import evaluate, read_qrels, read_run

pytestmark = pytest.mark.xdist_group("ranx")  # the worker that has already compiled ranx


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


def test_ranx_json_files_read_as_the_objects(tie_free, tmp_path):
    ranx = pytest.importorskip("ranx")
    run, qrels = tie_free
    ranx_run, ranx_qrels = ranx.Run(run, name="bm25"), ranx.Qrels(qrels)
    ranx_run.save(str(tmp_path / "run.json"))
    ranx_qrels.save(str(tmp_path / "qrels.json"))
    from_file = read_run(tmp_path / "run.json")
    from_object = read_run(ranx_run)
    by_key = ["query", "doc"]
    assert from_file.frame.sort_values(by_key).reset_index(drop=True).equals(
        from_object.frame.sort_values(by_key).reset_index(drop=True))
    assert read_qrels(tmp_path / "qrels.json").frame.sort_values(by_key).reset_index(
        drop=True).equals(read_qrels(ranx_qrels).frame.sort_values(by_key).reset_index(drop=True))
    metrics = ["ndcg@10", "map", "mrr"]
    ours = evaluate(tmp_path / "run.json", tmp_path / "qrels.json", metrics).to_ranx()
    theirs = ranx.evaluate(ranx_qrels, ranx_run, metrics)
    for name in metrics:
        assert ours[name] == pytest.approx(float(theirs[name]), abs=1e-12), name
