"""``--out DIR`` / ``distributed.evaluate(out=...)`` is a transaction (issue 19, item 5): a
rerun replaces a previous result whole (no stale bucket file survives), a directory that
is not a tiedrank result is refused, a second writer is refused, an interrupted run leaves
the old result as it was, and ``read_per_query`` checks the manifest against the files."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from tiedrank import distributed as D
from tiedrank import evaluate
from tiedrank.distributed.output import OutputError, transaction


def _inputs(n_queries: int = 40, n_runs: int = 2):
    rng = np.random.default_rng(0)
    runs = {}
    for r in range(n_runs):
        rows = [(f"q{q}", f"d{d}", float(rng.integers(0, 4)))
                for q in range(n_queries) for d in range(8)]
        runs[f"run{r}"] = pd.DataFrame(rows, columns=["query", "doc", "score"])
    qrels = pd.DataFrame([(f"q{q}", f"d{q % 8}", 1) for q in range(n_queries)],
                         columns=["query", "doc", "relevance"])
    return runs, qrels


def test_a_rerun_with_fewer_buckets_and_runs_replaces_the_result(tmp_path):
    runs, qrels = _inputs()
    out = tmp_path / "out"
    D.evaluate(runs, qrels, ["RR"], buckets=7, out=out)
    first = sorted(os.listdir(out / "per_query"))
    assert len(first) > 2
    one = {"run0": runs["run0"]}
    D.evaluate(one, qrels, ["RR"], buckets=2, out=out)
    assert len(os.listdir(out / "per_query")) <= 2
    back = D.read_per_query(out)
    expected = evaluate(one, qrels, ["RR"]).per_query
    assert len(back) == len(expected) == 40
    assert back["value"].mean() == expected["value"].mean()
    assert set(os.listdir(out)) == {"manifest.json", "per_query", "report.csv", "summary.csv"}
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".out.")]  # no litter


def test_a_directory_that_is_not_a_result_is_refused(tmp_path):
    runs, qrels = _inputs(5, 1)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious")
    with pytest.raises(OutputError, match="not empty and is not a tiedrank result"):
        D.evaluate(runs, qrels, ["RR"], buckets=2, out=mine)
    assert os.listdir(mine) == ["thesis.tex"]
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="not a directory"):
        D.evaluate(runs, qrels, ["RR"], buckets=2, out=tmp_path / "file")
    empty = tmp_path / "empty"
    empty.mkdir()
    D.evaluate(runs, qrels, ["RR"], buckets=2, out=empty)  # an empty directory is fine
    assert (empty / "manifest.json").exists()


def test_the_cli_refuses_in_one_line(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("x")
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate",
                           "sample_data/trec_eval/qrels.test", "sample_data/trec_eval/results.test",
                           "-m", "RR", "--buckets", "2", "--out", str(mine)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "not a tiedrank result" in done.stderr
    assert str(mine) in done.stderr


def test_a_second_writer_is_refused(tmp_path):
    runs, qrels = _inputs(5, 1)
    out = tmp_path / "out"
    with transaction(out) as temporary:
        assert os.path.dirname(temporary) == str(tmp_path)
        with pytest.raises(OutputError, match="another tiedrank is writing it"):
            D.evaluate(runs, qrels, ["RR"], buckets=2, out=out)
        # and from another process (flock is per open file, so this is the real case)
        code = ("import sys, pandas as pd\nfrom tiedrank import distributed as D\n"
                "q = pd.DataFrame({'query': ['q'], 'doc': ['d'], 'relevance': [1]})\n"
                "r = pd.DataFrame({'query': ['q'], 'doc': ['d'], 'score': [1.0]})\n"
                "try:\n    D.evaluate({'r': r}, q, ['RR'], buckets=2, out=sys.argv[1])\n"
                "except D.OutputError as e:\n    print(e); sys.exit(3)\n")
        done = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 3 and "another tiedrank is writing it" in done.stdout
    D.evaluate(runs, qrels, ["RR"], buckets=2, out=out)  # released: the next writer runs
    assert not (tmp_path / ".out.lock").exists()


def test_an_error_midway_leaves_the_previous_result(tmp_path):
    runs, qrels = _inputs(10, 1)
    out = tmp_path / "out"
    D.evaluate(runs, qrels, ["RR"], buckets=3, out=out)
    before = {p: (out / "per_query" / p).read_bytes() for p in os.listdir(out / "per_query")}
    manifest = (out / "manifest.json").read_text()
    with pytest.raises(KeyboardInterrupt):
        with transaction(out) as temporary:
            (tmp_path / "seen").write_text(temporary)
            raise KeyboardInterrupt  # what Ctrl-C raises in the middle of the work
    assert (out / "manifest.json").read_text() == manifest
    assert {p: (out / "per_query" / p).read_bytes() for p in os.listdir(out / "per_query")} == before
    assert not os.path.exists((tmp_path / "seen").read_text())


def test_read_per_query_checks_the_manifest(tmp_path):
    runs, qrels = _inputs(30, 2)
    out = tmp_path / "out"
    D.evaluate(runs, qrels, ["RR"], buckets=4, out=out)
    files = sorted((out / "per_query").iterdir())
    extra = out / "per_query" / "run00001-b00099.parquet"
    extra.write_bytes(files[0].read_bytes())
    with pytest.raises(OutputError, match="1 file.s. not in the manifest"):
        D.read_per_query(out)
    extra.unlink()
    files[-1].unlink()
    with pytest.raises(OutputError, match="1 listed file.s. missing"):
        D.read_per_query(out)
    (out / "manifest.json").unlink()
    with pytest.raises(OutputError, match="no manifest.json"):
        D.read_per_query(out)


def test_results_of_the_one_pass_path_are_transactions_too(tmp_path):
    runs, qrels = _inputs(5, 1)
    out = tmp_path / "out"
    D.evaluate(runs, qrels, ["RR"], buckets=0, out=out)
    assert len(D.read_per_query(out)) == 5
    D.evaluate(runs, qrels, ["RR", "AP"], buckets=1, out=out)
    assert len(D.read_per_query(out)) == 5 * 2
