"""Out-of-core buckets and Dask: the same bits as one pass, whatever happens.

The oracle is the one-process :func:`tiedrank.evaluate` on the same files: bucketed and
Dask evaluations must reproduce its per-query frame, summary and report bit for bit (CSV at
17 significant digits), for every tie policy, with shuffled input, with a worker killed in
the middle, and never leave a temporary bucket file behind.
"""
from __future__ import annotations

import glob
import gzip
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tiedrank import distributed as D
from tiedrank import evaluate, read_qrels, read_run
from tiedrank.core.errors import InputError

# one xdist worker runs the whole module (-n with --dist loadgroup): its Dask cluster and files
pytestmark = pytest.mark.xdist_group("dask")

METRICS = ["RR", "RR@10", "Success@5", "P@10", "R@10", "AP", "AP@10", "nDCG", "nDCG@10",
           "DCG@10", "Rprec", "TsRR", "TsRR2", "MTRR_GRAG", "TMHits_GRAG@10"]
POLICIES = ["expected", "best", "worst", "trec_eval", "input", "random(seed=3)"]
NOT_INPUT = [p for p in POLICIES if p != "input"]
SMALL_BLOCKS = 4000  # bytes: every file is read in many blocks


def _run_lines(rng: np.random.Generator, tag: str, n_queries: int) -> list[str]:
    lines = []
    for q in [f"{i}" for i in range(n_queries)] + ["x1", "x2"]:  # x*: not in the qrels
        n = int(rng.integers(3, 50))
        docs = rng.choice(3000, n, replace=False)
        scores = np.round(rng.integers(0, 4, n) / 4, 2)
        lines += [f"{q} Q0 d{d} {r} {s} {tag}\n" for r, (d, s) in enumerate(zip(docs, scores), 1)]
    return lines


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two runs (one gzip, lines in random order, ties everywhere) and graded qrels."""
    rng = np.random.default_rng(7)
    root = tmp_path_factory.mktemp("dist")
    a, b = _run_lines(rng, "A", 90), _run_lines(rng, "B", 90)
    rng.shuffle(a)
    (root / "a.txt").write_text("".join(a))
    with gzip.open(root / "b.txt.gz", "wt") as handle:
        handle.write("".join(b))
    shuffled = list(a)
    rng.shuffle(shuffled)
    (root / "a_shuffled.txt").write_text("".join(shuffled))
    qrels = []
    for q in range(95):  # 90..94: no results in the runs
        for d in rng.choice(3000, int(rng.integers(1, 25)), replace=False):
            qrels.append(f"{q} 0 d{d} {int(rng.integers(-1, 4))}\n")
    (root / "qrels.txt").write_text("".join(qrels))
    # a_shuffled.txt has tag A too: it becomes "A (2)", and the random policy keys on that
    return {"root": root, "runs": [str(root / "a.txt"), str(root / "b.txt.gz"),
                                   str(root / "a_shuffled.txt")],
            "shuffled": [str(root / "a_shuffled.txt"), str(root / "b.txt.gz")],
            "qrels": str(root / "qrels.txt")}


@pytest.fixture(scope="module")
def one_pass(files):
    return evaluate(files["runs"], files["qrels"], METRICS, ties=POLICIES)


def _csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False, float_format="%.17g")


def _assert_same(ev, reference) -> None:
    pd.testing.assert_frame_equal(ev.per_query, reference.per_query)
    pd.testing.assert_frame_equal(ev.summary, reference.summary)
    assert _csv(ev.per_query) == _csv(reference.per_query)
    assert _csv(ev.report()) == _csv(reference.report())
    counted = lambda e: sorted((f.kind, f.count) for f in e.findings)
    assert counted(ev) == counted(reference)


def open_lines(path: str) -> list[str]:
    with open(path) as handle:
        return handle.readlines()


def _leftovers(directory) -> list[str]:
    return glob.glob(os.path.join(directory, "tiedrank-buckets-*"))


# ---- buckets on one machine ---------------------------------------------------------------
@pytest.mark.parametrize("buckets", [1, 2, 6])
def test_buckets_equal_one_pass_for_every_policy(files, one_pass, buckets, tmp_path):
    ev = D.evaluate(files["runs"], files["qrels"], METRICS, ties=POLICIES, buckets=buckets,
                    block_bytes=SMALL_BLOCKS, spill_dir=tmp_path)
    _assert_same(ev, one_pass)
    assert _leftovers(tmp_path) == []


def test_shuffled_file_gives_identical_output(files, one_pass, tmp_path):
    ev = D.evaluate(files["shuffled"], files["qrels"], METRICS, ties=NOT_INPUT, buckets=4,
                    block_bytes=SMALL_BLOCKS, spill_dir=tmp_path)
    rows = one_pass.per_query
    reference = rows[(rows["policy"] != "input") & rows["run"].isin(["A", "B"])]
    assert _csv(ev.per_query.astype({"run": str, "policy": str})) == \
        _csv(reference.astype({"run": str, "policy": str}).reset_index(drop=True))


def test_per_query_rows_written_to_out_and_read_back(files, one_pass, tmp_path):
    out = tmp_path / "out"
    ev = D.evaluate(files["runs"], files["qrels"], METRICS, ties=POLICIES, buckets=3, out=out,
                    spill_dir=tmp_path)
    assert len(ev.per_query) == 0
    pd.testing.assert_frame_equal(ev.summary, one_pass.summary)
    pd.testing.assert_frame_equal(D.read_per_query(out), one_pass.per_query)


def test_bucket_files_removed_after_an_error(files, tmp_path):
    bad = tmp_path / "bad.txt"
    lines = open_lines(files["runs"][0])
    bad.write_text("".join(lines[:500] + ["7 Q0 dX 1 abc A\n"] + lines[500:]))
    with pytest.raises(InputError, match=r"bad.txt, line 501: non-numeric score"):
        D.evaluate([str(bad)], files["qrels"], ["RR"], buckets=3, block_bytes=SMALL_BLOCKS,
                   spill_dir=tmp_path)
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("policy", ["error", "max"])
def test_a_duplicate_split_across_blocks_is_caught(files, tmp_path, policy):
    lines = open_lines(files["runs"][0])
    query, _, doc, *_ = lines[0].split()
    duplicate = tmp_path / "dup.txt"
    duplicate.write_text("".join(lines + [f"{query} Q0 {doc} 1 99.0 A\n"]))
    if policy == "error":
        with pytest.raises(InputError, match="duplicate document within a query"):
            D.evaluate([str(duplicate)], files["qrels"], ["RR"], buckets=2,
                       block_bytes=SMALL_BLOCKS, spill_dir=tmp_path)
    else:
        one = evaluate([read_run(str(duplicate), duplicates="max")], files["qrels"], METRICS,
                       ties=POLICIES)
        ev = D.evaluate([str(duplicate)], files["qrels"], METRICS, ties=POLICIES, buckets=2,
                        block_bytes=SMALL_BLOCKS, duplicates="max", spill_dir=tmp_path)
        assert _csv(ev.per_query) == _csv(one.per_query)
    assert _leftovers(tmp_path) == []


def test_in_memory_inputs_and_parquet_are_split_too(files, tmp_path):
    run = read_run(files["runs"][0])
    qrels = read_qrels(files["qrels"])
    parquet = tmp_path / "a.parquet"
    run.frame.to_parquet(parquet)
    one = evaluate({"A": run}, qrels, ["AP", "nDCG@10"], ties=NOT_INPUT)
    from_memory = D.evaluate({"A": run}, qrels, ["AP", "nDCG@10"], ties=NOT_INPUT, buckets=3)
    from_parquet = D.evaluate({"A": str(parquet)}, qrels.frame, ["AP", "nDCG@10"],
                              ties=NOT_INPUT, buckets=3, block_bytes=1 << 16)
    assert _csv(from_memory.per_query) == _csv(one.per_query) == _csv(from_parquet.per_query)


def test_automatic_bucket_count(files, monkeypatch):
    from tiedrank.distributed import scaled

    assert D.choose_buckets(files["runs"], files["qrels"]) == 0  # small: one pass
    monkeypatch.setattr(scaled, "AUTO_THRESHOLD_BYTES", 1000)
    monkeypatch.setattr(scaled, "BUCKET_BYTES", 20_000)
    size = max(os.path.getsize(files["runs"][0]), 4 * os.path.getsize(files["runs"][1]))
    largest = size + os.path.getsize(files["qrels"])
    monkeypatch.setattr(scaled, "WHOLE_RUN_BYTES", largest - 1)
    expected = -(-largest // 20_000)
    assert expected > 1
    assert D.choose_buckets(files["runs"], files["qrels"]) == expected
    # runs that a task can hold whole: one task per run, no split (splitting them only
    # reads and writes every row once more), however small the buckets would be
    monkeypatch.setattr(scaled, "WHOLE_RUN_BYTES", largest)
    assert D.choose_buckets(files["runs"], files["qrels"]) == 1


# ---- Dask ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client():
    pytest.importorskip("distributed")
    with D.connect("local:2") as dask_client:
        yield dask_client


@pytest.mark.parametrize("buckets", [1, 5])
def test_dask_equals_one_pass_for_every_policy(files, one_pass, client, tmp_path, buckets):
    """1 bucket: one task per run reads it whole; 5: split tasks, then (run, bucket) tasks."""
    assert len(client.scheduler_info()["workers"]) == 2
    assert list(one_pass.summary["run"].cat.categories) == ["A", "B", "A (2)"]
    ev = D.evaluate(files["runs"], files["qrels"], METRICS, ties=POLICIES, buckets=buckets,
                    client=client, block_bytes=SMALL_BLOCKS, spill_dir=tmp_path)
    _assert_same(ev, one_pass)
    assert _leftovers(tmp_path) == []


def test_dask_shuffled_input_and_out_dir(files, one_pass, client, tmp_path):
    out = tmp_path / "out"
    ev = D.evaluate(files["shuffled"], files["qrels"], METRICS, ties=NOT_INPUT, buckets=4,
                    client=client, out=out, spill_dir=tmp_path)
    reference = evaluate(files["runs"][:2], files["qrels"], METRICS, ties=NOT_INPUT)
    assert len(ev.per_query) == 0
    assert _csv(D.read_per_query(out)) == _csv(reference.per_query)
    assert _csv(ev.summary) == _csv(reference.summary)
    assert _leftovers(tmp_path) == []


def test_a_killed_worker_changes_nothing(files, one_pass, tmp_path):
    """A worker plugin kills its worker process (os._exit) when the first bucket task
    starts; Dask re-runs the lost tasks and the result is complete and identical."""
    distributed = pytest.importorskip("distributed")

    class KillOnce(distributed.WorkerPlugin):  # local class: cloudpickle ships it by value
        def __init__(self, marker: str) -> None:
            self.marker = marker

        def transition(self, key, start, finish, **kwargs) -> None:
            if finish == "executing" and "tiedrank-bucket" in str(key) \
                    and not os.path.exists(self.marker):
                open(self.marker, "w").close()
                os._exit(1)  # the worker process dies mid-task; its nanny starts a new one

    marker = tmp_path / "killed-once"
    with D.connect("local:2") as dask_client:
        dask_client.register_plugin(KillOnce(str(marker)), name="kill-once")
        ev = D.evaluate(files["runs"], files["qrels"], METRICS, ties=POLICIES, buckets=6,
                        client=dask_client, spill_dir=tmp_path)
        # the replacement worker is set up like the first ones (Arrow and numpy helpers at
        # one thread)
        assert set(dask_client.run(lambda: __import__("pyarrow").cpu_count()).values()) == {1}
        assert set(dask_client.run(
            lambda: __import__("tiedrank.io._parallel").io._parallel.WORKERS).values()) == {1}
    assert marker.exists()  # a worker really died
    _assert_same(ev, one_pass)
    assert _leftovers(tmp_path) == []


def test_unreachable_scheduler_fails_fast_with_one_message(files, tmp_path):
    pytest.importorskip("distributed")
    started = time.monotonic()
    with pytest.raises(D.SchedulerUnreachable, match=r"tcp://127\.0\.0\.1:9 within 2 s.*dask "
                                                     "scheduler"):
        D.evaluate(files["runs"], files["qrels"], ["RR"], buckets=2,
                   client="tcp://127.0.0.1:9", timeout=2, spill_dir=tmp_path)
    assert time.monotonic() - started < 15
    assert _leftovers(tmp_path) == []


def test_bad_address_and_missing_dask_are_explained(monkeypatch):
    with pytest.raises(ValueError, match="'local:N'.*'tcp://host:port'"), D.connect("my laptop"):
        pass
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"tiedrank\[dask\]"), D.connect("local:1"):
        pass


def test_sweeps_as_dask_tasks_equal_sequential_sweeps(client):
    from tiedrank.simulate import make_queries, sweep

    qrels = make_queries(n_queries=12, seed=4)
    values, seeds = [2, 5, None], [0, 1, 2]
    on_dask = D.sweep("levels", values, seeds=seeds, qrels=qrels, client=client)
    sequential = pd.concat([sweep("levels", values, qrels=qrels, seed=s).assign(seed=s)
                            for s in seeds], ignore_index=True)
    sequential = sequential[on_dask.columns]
    assert _csv(on_dask) == _csv(sequential)
    assert len(on_dask) == 9


def test_verdict_stability_as_dask_tasks_equals_one_process(files, client):
    from tiedrank.stats import verdict_stability

    runs = {"A": read_run(files["runs"][0]), "B": read_run(files["runs"][1]),
            "A2": read_run(files["shuffled"][0])}
    qrels = read_qrels(files["qrels"])
    ev = evaluate(runs, qrels, ["RR", "AP"], ties="all")
    one = verdict_stability(ev, "A", n_draws=200, seed=3, n_resamples=499)
    on_dask = D.verdict_stability(runs, qrels, ["RR", "AP"], baseline="A", client=client,
                                  n_draws=200, seed=3, n_resamples=499)
    pd.testing.assert_frame_equal(on_dask.sort_values(["run", "metric"]).reset_index(drop=True),
                                  one.sort_values(["run", "metric"]).reset_index(drop=True))


# ---- command line ---------------------------------------------------------------------------
def _main(argv: list[str]) -> int:
    from tiedrank.cli import main

    return main(argv)


def test_cli_buckets_print_what_one_pass_prints(files, capsys, tmp_path):
    # two runs with distinct tags: the current CLI labels a repeated tag "A (path)", not
    # "A (2)" as evaluate does (issue 8 unifies this), and random keys include the name
    common = ["evaluate", files["qrels"], *files["runs"][:2], "-m", "AP", "-m", "RR@10",
              "--ties", "all,random(seed=2)", "--format", "csv", "--digits", "17"]
    assert _main(common) == 0
    one = capsys.readouterr().out
    assert _main(common + ["--buckets", "3", "--out", str(tmp_path / "o")]) == 0
    assert capsys.readouterr().out == one
    assert (tmp_path / "o" / "report.csv").exists()
    reference = evaluate(files["runs"][:2], files["qrels"], ["AP", "RR@10"],
                         ties=["all", "random(seed=2)"])
    assert _csv(D.read_per_query(tmp_path / "o")) == _csv(reference.per_query)


TREC_EVAL_FIXTURES = Path(__file__).parents[1] / "cli" / "trec_eval_fixtures"
COUNT_LINES = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret"}


@pytest.mark.parametrize("door", ["--buckets 3", "--dask"])
@pytest.mark.parametrize("flags, theirs", [(["-q", "-m", "all_trec"], "out.q.all_trec.txt"),
                                           (["-q", "-J", "-m", "all_trec"],
                                            "out.q.J.all_trec.txt"),
                                           ([], "out.default.txt")])
def test_cli_trec_eval_format_at_scale_prints_every_line(client, capsys, tmp_path, door,
                                                         flags, theirs):
    """--format trec_eval under --buckets / --dask prints what one pass prints, the count
    lines (runid, num_q, num_ret, num_rel, num_rel_ret, per query with -q) included, and
    those are trec_eval's own lines on the same files (its output, made by trec_eval 10.0)."""
    common = ["evaluate", "--format", "trec_eval", *flags, str(TREC_EVAL_FIXTURES / "qrels.txt"),
              str(TREC_EVAL_FIXTURES / "run.txt")]
    assert _main(common) == 0
    one = capsys.readouterr().out
    scaled = ["--buckets", "3", "--spill-dir", str(tmp_path)]
    if door == "--dask":
        scaled += ["--dask", client.scheduler.address]
    assert _main(common + scaled) == 0
    out = capsys.readouterr()
    # relstring (text, -q with all_trec) is read off one pass's tie tables: the scaled paths
    # leave those lines out and say so; every other line is one pass's
    text_free = "".join(line for line in one.splitlines(keepends=True)
                        if not line.startswith("relstring"))
    assert out.out == text_free
    assert ("relstring lines" in out.err) == (text_free != one)
    assert "count lines" not in out.err
    expected = (TREC_EVAL_FIXTURES / theirs).read_text().splitlines()
    counts = [line for line in out.out.splitlines() if line.split("\t")[0].rstrip() in COUNT_LINES]
    assert {line.split("\t")[0].rstrip() for line in counts} == COUNT_LINES
    assert counts == [line for line in expected if line.split("\t")[0].rstrip() in COUNT_LINES]


def test_scaled_counts_equal_pytrec_evals(files, tmp_path):
    """Evaluation.counts of a bucketed run: pytrec_eval's num_ret, num_rel, num_rel_ret per
    query and its query set (num_q), at rel_level 1 and 2."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = read_qrels(files["qrels"]).frame
    run = read_run(files["runs"][0]).frame
    for level in (1, 2):
        ev = D.evaluate(files["runs"][:1], files["qrels"], ["RR"], ties="trec_eval",
                        rel_level=level, buckets=4, block_bytes=SMALL_BLOCKS, spill_dir=tmp_path)
        judged = {q: {d: int(r) for d, r in zip(g["doc"], g["relevance"])}
                  for q, g in qrels.groupby("query")}
        ranked = {q: {d: float(s) for d, s in zip(g["doc"], g["score"])}
                  for q, g in run.groupby("query")}
        theirs = pytrec_eval.RelevanceEvaluator(
            judged, {"num_ret", "num_rel", "num_rel_ret"}, relevance_level=level).evaluate(ranked)
        ours = ev.counts.set_index("query")
        assert sorted(ours.index) == sorted(theirs)  # num_q: the same queries
        for query, values in theirs.items():
            for name in ("num_ret", "num_rel", "num_rel_ret"):
                assert ours.at[query, name] == values[name], (level, query, name)


def test_cli_unreachable_scheduler_is_one_line(files, capsys):
    pytest.importorskip("distributed")
    assert _main(["evaluate", files["qrels"], files["runs"][0], "--dask",
                  "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tiedrank: error: cannot reach the Dask scheduler") and "\n" not in err


def test_local_workers_start_ready_and_single_threaded(client):
    """The start-up choices that the scale benchmark's figures rest on (issue 10): workers
    forked from a fork server that preloaded the task modules (not spawned, each importing
    them), glibc's adaptive allocator thresholds kept (Dask's MALLOC_TRIM_THRESHOLD_=65536
    made a sweep point 40% slower), and Arrow sized to the worker's one thread (also after
    other tests have run in this process: CI found 2 threads there, with Dask's
    OMP_NUM_THREADS=1 alone), as are tiedrank's numpy helper threads (sized at import, in
    the unpinned fork server: two per worker made 1M-line tasks 0.30-0.45 s, not 0.25)."""
    import multiprocessing

    def describe():
        import pyarrow

        return {"parent_is_client": os.getppid() == CLIENT_PID,  # spawned by the nanny here
                "trim": os.environ.get("MALLOC_TRIM_THRESHOLD_"),
                "arrow_threads": pyarrow.cpu_count(),
                "numpy_helper_threads": __import__("tiedrank.io._parallel").io._parallel.WORKERS,
                # true on every path (warm_up imports them too): the fork-server evidence
                # is the parent check below, this one that the modules are there at all
                "preloaded": "tiedrank.distributed.evaluation" in sys.modules,
                "omp": os.environ.get("OMP_NUM_THREADS")}

    CLIENT_PID = os.getpid()  # noqa: N806 - read by describe() on the worker (cloudpickled)
    facts = list(client.run(describe).values())
    assert len(facts) == 2
    for fact in facts:
        assert fact["trim"] is None
        assert fact["arrow_threads"] == 1, fact
        assert fact["numpy_helper_threads"] == 1, fact
        assert fact["preloaded"]
        if "forkserver" in multiprocessing.get_all_start_methods():
            assert not fact["parent_is_client"]


def test_cli_starts_a_local_cluster_ahead_and_prints_what_one_pass_prints(files, capsys,
                                                                          monkeypatch):
    """``--dask local:N``: the command starts the cluster before it imports its subcommands
    (the fork server preloads the task modules meanwhile), the evaluation's connect takes
    it, and it is closed by the end of the command; the output is one pass's, byte for byte."""
    pytest.importorskip("distributed")
    from tiedrank.distributed import cluster

    started, connected = [], []
    start_ahead, connect = cluster.start_ahead, cluster.connect
    monkeypatch.setattr(cluster, "start_ahead",
                        lambda *args: started.append(args) or start_ahead(*args))

    def counting_connect(*args, **kwargs):
        connected.append(dict(cluster._AHEAD))
        return connect(*args, **kwargs)

    monkeypatch.setattr(cluster, "connect", counting_connect)
    monkeypatch.setattr("tiedrank.distributed.scaled.connect", counting_connect)
    common = ["evaluate", files["qrels"], *files["runs"][:2], "-m", "AP", "-m", "RR@10",
              "--ties", "all,random(seed=2)", "-q", "--format", "csv", "--digits", "17"]
    assert _main(common) == 0
    one = capsys.readouterr().out
    assert _main(common + ["--dask", "local:2"]) == 0
    assert capsys.readouterr().out == one
    assert started == [("local:2", cluster.EVALUATION_MODULES)]
    assert [list(waiting) for waiting in connected] == [[2]]  # taken by the connect
    assert cluster._AHEAD == {} and cluster._CLOSING == []
    # a cluster started ahead that no connect takes (the input is refused) is closed too
    assert _main(["evaluate", files["qrels"], "missing-run.txt", "--dask=local:1"]) == 2
    assert "missing-run.txt" in capsys.readouterr().err
    assert cluster._AHEAD == {} and cluster._CLOSING == []


def test_the_command_with_a_local_cluster_prints_what_one_pass_prints(files, tmp_path):
    """The console script's path (``python -m tiedrank``: :func:`tiedrank.cli.run`), in a
    process of its own: the cluster started ahead, the same bytes as one pass."""
    pytest.importorskip("distributed")
    import subprocess

    common = [sys.executable, "-m", "tiedrank", "evaluate", files["qrels"], *files["runs"][:2],
              "-m", "AP", "-q", "--format", "csv", "--digits", "17"]
    one = subprocess.run(common, capture_output=True, text=True, check=True, cwd=tmp_path)
    dask = subprocess.run(common + ["--dask", "local:2"], capture_output=True, text=True,
                          check=True, cwd=tmp_path, timeout=120)
    assert dask.stdout == one.stdout and one.stdout.count("\n") > 100
