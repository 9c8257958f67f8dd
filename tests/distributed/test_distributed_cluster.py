"""A real Dask cluster, started as a user starts one on machines: ``dask scheduler`` and two
``dask worker`` processes (one thread each, 127.0.0.1), separate OS processes that only the
scheduler's address ties together. The CLI (``--dask tcp://...``, in its own process) and
``tiedrank.distributed.evaluate(client=...)`` must give what the one-process
:func:`tiedrank.evaluate` gives, bit for bit, also when a worker process is killed (SIGKILL,
from outside) while it runs a task and a fresh worker joins.

Every other Dask test uses a ``LocalCluster`` started inside the test process; this one
checks the path where nothing is shared but the address and the file system.
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

import tiedrank  # noqa: E402
from tiedrank import distributed as D  # noqa: E402
from tiedrank import evaluate  # noqa: E402
from tiedrank.cli import main  # noqa: E402

# one xdist worker runs every Dask module (-n with --dist loadgroup): they share two cores
# Deep profile (`--slow`): CI's lowest-versions step runs every core `slow` test.
# Real `dask scheduler` and `dask worker` processes, killed and restarted: 15 s of a worker.
pytestmark = [pytest.mark.xdist_group("dask"), pytest.mark.slow]

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "simulated"
CHECKOUT = str(Path(tiedrank.__file__).resolve().parents[1])
METRICS = ["RR", "AP", "nDCG@10", "P@5", "TsRR"]
TIES = ["expected", "best", "worst", "trec_eval", "random(seed=5)"]
START_TIMEOUT = 60.0  # s: a process importing Dask on two busy cores
RUN_TIMEOUT = 90.0


def _dask_command(role: str) -> list[str]:
    """``dask scheduler`` / ``dask worker``: the venv's entry point, as a user types it."""
    entry = Path(sys.executable).with_name("dask")
    if entry.exists():
        return [str(entry), role]
    return [sys.executable, "-m", f"distributed.cli.dask_{role}"]


class Cluster:
    """A scheduler and its workers as child processes; :meth:`close` ends every one."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.scheduler_file = root / "scheduler.json"
        # the workers import this checkout's tiedrank (the entry point's sys.path has no cwd)
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [CHECKOUT, *filter(None, [os.environ.get("PYTHONPATH")])]))
        self.processes: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []

    def _start(self, role: str, *args: str) -> subprocess.Popen:
        log = open(self.root / f"{role}-{len(self.processes)}.log", "wb")
        with log:
            process = subprocess.Popen(_dask_command(role) + list(args), env=self.env,
                                       cwd=self.root, stdout=log, stderr=subprocess.STDOUT)
        self.processes.append(process)
        return process

    def start_scheduler(self) -> str:
        self._start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", str(self.scheduler_file))
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.processes[0].poll() is not None:
                raise RuntimeError(f"dask scheduler exited:\n{self.logs()}")
            try:
                return json.loads(self.scheduler_file.read_text())["address"]
            except (OSError, ValueError, KeyError):
                time.sleep(0.1)  # not written yet, or half written
        raise TimeoutError(f"no scheduler address after {START_TIMEOUT:g} s:\n{self.logs()}")

    def start_worker(self) -> subprocess.Popen:
        """One worker process, no nanny: the OS process that runs the tasks is the one
        started here, so killing it kills a worker (a nanny would restart it)."""
        worker = self._start(
            "worker", "--scheduler-file", str(self.scheduler_file), "--nthreads", "1",
            "--no-nanny", "--host", "127.0.0.1", "--no-dashboard",
            "--local-directory", str(self.root / "worker-space"),
            "--death-timeout", "30")  # if the test process died, workers still end
        self.workers.append(worker)
        return worker

    def logs(self) -> str:
        return "\n".join(f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}"
                         for path in sorted(self.root.glob("*.log")))

    def close(self) -> None:
        """Workers killed (nothing of theirs is kept; a graceful close takes seconds), then
        the scheduler asked to stop, and killed if it has not within 10 s."""
        for process in self.workers:
            process.kill()
        for process in self.processes:
            if process.poll() is None and process not in self.workers:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("cluster")
    processes = Cluster(root)
    try:
        address = processes.start_scheduler()
        for _ in range(2):
            processes.start_worker()
        with D.connect(address, timeout=START_TIMEOUT) as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT)
            yield processes, address, client
    finally:
        processes.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The simulated sample runs (5 rerankers, heavy ties) and qrels, copied under tmp."""
    root = tmp_path_factory.mktemp("cluster-data")
    runs = []
    for path in sorted((SAMPLE / "runs").glob("*.txt")):
        runs.append(str(shutil.copy(path, root / path.name)))
    qrels = str(shutil.copy(SAMPLE / "qrels.txt", root / "qrels.txt"))
    return {"runs": runs, "qrels": qrels, "root": root}


@pytest.fixture(scope="module")
def one_pass(files):
    return evaluate(files["runs"], files["qrels"], METRICS, ties=TIES)


def _csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False, float_format="%.17g")


def _assert_same(ev, reference) -> None:
    pd.testing.assert_frame_equal(ev.per_query, reference.per_query)
    pd.testing.assert_frame_equal(ev.summary, reference.summary)
    assert _csv(ev.report()) == _csv(reference.report())


def test_the_workers_are_separate_processes_on_loopback(cluster):
    processes, address, client = cluster
    assert address.startswith("tcp://127.0.0.1:")
    workers = client.scheduler_info()["workers"]
    assert len(workers) == 2 and all(w.startswith("tcp://127.0.0.1:") for w in workers)
    pids = set(client.run(os.getpid).values())
    assert pids == {w.pid for w in processes.workers}  # the processes started above
    assert os.getpid() not in pids


@pytest.mark.parametrize("buckets", [1, 3])
def test_python_client_equals_one_pass(cluster, files, one_pass, buckets, tmp_path):
    """1 bucket: each worker reads whole runs; 3: split tasks, then (run, bucket) tasks."""
    _, _, client = cluster
    ev = D.evaluate(files["runs"], files["qrels"], METRICS, ties=TIES, buckets=buckets,
                    client=client, spill_dir=tmp_path)
    _assert_same(ev, one_pass)
    assert list(tmp_path.glob("tiedrank-buckets-*")) == []


def test_cli_with_a_scheduler_address_prints_what_one_pass_prints(cluster, files, one_pass,
                                                                  tmp_path, capsys):
    _, address, _ = cluster
    common = ["evaluate", files["qrels"], *files["runs"], *sum((["-m", m] for m in METRICS), []),
              "--ties", ",".join(TIES), "--format", "csv", "--digits", "17"]
    assert main(common) == 0  # one pass, in this process
    expected = capsys.readouterr().out
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "tiedrank", *common, "--dask", address,
                           "--out", str(out), "--spill-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=RUN_TIMEOUT,
                          cwd=CHECKOUT, env=cluster[0].env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
    assert _csv(D.read_per_query(out)) == _csv(one_pass.per_query)


def test_a_worker_killed_mid_task_and_a_fresh_one_change_nothing(cluster, files, one_pass,
                                                                   tmp_path):
    """The first worker to start a bucket task writes its pid and holds the task; the test
    kills that process (SIGKILL, from outside), starts a fresh ``dask worker``, and the
    evaluation still ends complete and equal to one pass."""
    processes, _, client = cluster
    marker = tmp_path / "executing.pid"

    class HoldFirstBucketTask(distributed.WorkerPlugin):  # shipped by value (cloudpickle)
        def __init__(self, path: str) -> None:
            self.path = path

        def transition(self, key, start, finish, **kwargs) -> None:
            if finish != "executing" or "tiedrank-bucket" not in str(key):
                return
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return  # another worker is the one to die
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            time.sleep(20)  # until killed (bounded: a failed test still ends)

    client.register_plugin(HoldFirstBucketTask(str(marker)), name="hold-first-bucket-task")
    try:
        with ThreadPoolExecutor(1) as pool:
            running = pool.submit(D.evaluate, files["runs"], files["qrels"], METRICS,
                                  ties=TIES, buckets=6, client=client, spill_dir=tmp_path)
            deadline = time.monotonic() + RUN_TIMEOUT
            while not marker.exists() or not marker.read_text():
                assert time.monotonic() < deadline, "no bucket task started"
                assert not running.done(), running.result()
                time.sleep(0.05)
            pid = int(marker.read_text())
            victim = next((w for w in processes.workers if w.pid == pid), None)
            assert victim is not None, f"pid {pid} is none of the dask worker processes"
            victim.kill()  # SIGKILL: no goodbye to the scheduler
            victim.wait(timeout=10)
            processes.start_worker()
            ev = running.result(timeout=RUN_TIMEOUT)
        client.wait_for_workers(2, timeout=START_TIMEOUT)  # the fresh worker joined
        alive = set(client.run(os.getpid).values())
        assert pid not in alive and len(alive) == 2
    finally:
        client.unregister_worker_plugin("hold-first-bucket-task")
    _assert_same(ev, one_pass)
    assert list(tmp_path.glob("tiedrank-buckets-*")) == []


def test_a_small_input_on_a_cluster_is_one_task_per_run(cluster, files, one_pass):
    """Below the bucket threshold each run is one task: no split task re-writing the rows
    (splitting two small runs for two workers was slower than one task per run)."""
    _, _, client = cluster
    with distributed.get_task_stream(client) as stream:
        ev = D.evaluate(files["runs"][:2], files["qrels"], METRICS, ties=TIES, client=client)
    kinds = sorted(str(task["key"]).split("-")[1] for task in stream.data)
    assert kinds == ["run", "run"]
    two = evaluate(files["runs"][:2], files["qrels"], METRICS, ties=TIES)
    _assert_same(ev, two)


def test_a_worker_that_cannot_see_a_run_file_names_its_host(cluster, files, tmp_path):
    """Workers read the run files at the client's paths; one on a machine without the
    shared file system says so (here: a path that exists nowhere, read on a worker)."""
    from tiedrank import read_qrels
    from tiedrank.distributed.buckets import split_run
    from tiedrank.distributed.evaluation import Plan, evaluate_source
    from tiedrank.evaluation import parse_metrics
    from tiedrank.core.options import make_options

    _, _, client = cluster
    missing = str(tmp_path / "elsewhere" / "run.txt")
    plan = Plan(tuple(parse_metrics(["RR"])), make_options("evaluate"))
    qrels = read_qrels(files["qrels"])
    for task in (client.submit(evaluate_source, 0, "r", missing, qrels, plan, pure=False),
                 client.submit(split_run, str(tmp_path), 0, None, missing, 2, pure=False)):
        with pytest.raises(FileNotFoundError, match=r"is not visible on the Dask worker's "
                                                    r"host .*same path as the client"):
            task.result(timeout=RUN_TIMEOUT)
    with pytest.raises(FileNotFoundError) as here:  # in this process: the reader's message
        evaluate_source(0, "r", missing, qrels, plan)
    assert "Dask worker" not in str(here.value)


def test_back_to_back_calls_on_one_client_keep_their_qrels(cluster, files):
    """Each call sends the qrels to the workers under a fresh key. Under Dask's default key
    (a hash of the content) a call reused the previous call's key while its release was in
    flight, and its tasks were cancelled for "lost dependencies" (3 calls in 10)."""
    from tiedrank.simulate import make_queries

    _, _, client = cluster
    run = files["runs"][0]
    expected = evaluate([run], files["qrels"], ["RR"]).summary
    for _ in range(8):
        ev = D.evaluate([run], files["qrels"], ["RR"], client=client, buckets=1)
        pd.testing.assert_frame_equal(ev.summary, expected)
    queries = make_queries(n_queries=20, seed=1)
    first = D.sweep("levels", [2, 3], seeds=[0], qrels=queries, client=client)
    for _ in range(7):
        pd.testing.assert_frame_equal(
            D.sweep("levels", [2, 3], seeds=[0], qrels=queries, client=client), first)


def test_every_worker_dying_mid_run_ends_the_wait(cluster, files, tmp_path, capsys):
    """Issue 29 item 3: with every worker killed while it runs a task, Dask waits for a
    worker forever (the tasks sit in "no-worker"); the wait ends --dask-timeout seconds
    after the last worker went, in one line naming the flag, and a fresh worker then
    serves the cluster again. Last in this module: it restarts the workers it kills."""
    processes, address, client = cluster
    marker = tmp_path / "executing"

    class SlowBucketTasks(distributed.WorkerPlugin):  # shipped by value (cloudpickle)
        """The bucket task, slowed down in the worker: it notes its pid, then sleeps (the
        worker's event loop runs on, as in a long task). Buckets on disk, no scattered
        data: the tasks wait for a worker, not for lost data."""

        def __init__(self, path: str) -> None:
            self.path = path

        def setup(self, worker) -> None:
            from tiedrank.distributed import evaluation

            original, path = evaluation.evaluate_bucket, self.path

            def slow(*args, **kwargs):
                with open(path, "a") as note:
                    note.write(f"{os.getpid()}\n")
                time.sleep(20)  # until killed (bounded: a failed test still ends)
                return original(*args, **kwargs)

            evaluation.evaluate_bucket = slow

    client.register_plugin(SlowBucketTasks(str(marker)), name="slow-bucket-tasks")
    outcome: queue.Queue = queue.Queue()
    common = ["evaluate", files["qrels"], files["runs"][0], "-m", "RR", "--buckets", "2",
              "--dask", address, "--dask-timeout", "2", "--spill-dir", str(tmp_path)]
    # a daemon thread, not an executor: on main the call never returns, and the test must
    # fail, not hang in the executor's join
    threading.Thread(target=lambda: outcome.put(main(common)), daemon=True).start()
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        while not marker.exists():
            assert time.monotonic() < deadline, "no task started"
            assert outcome.empty(), outcome.get()
            time.sleep(0.05)
        for worker in processes.workers:  # SIGKILL, the OOM killer's way
            worker.kill()
            worker.wait(timeout=10)
        killed = time.monotonic()
        try:
            status = outcome.get(timeout=45)
        except queue.Empty:
            pytest.fail("still waiting 45 s after the last worker died")
        waited = time.monotonic() - killed
    finally:
        client.unregister_worker_plugin("slow-bucket-tasks")
        processes.workers.clear()
        for _ in range(2):
            processes.start_worker()
    message = capsys.readouterr().err.strip().splitlines()[-1]
    assert status == 2
    assert message.startswith(f"tiedrank: error: no Dask worker for 2 s at {address} while "
                              "its bucket tasks waited"), message
    assert message.endswith("add --dask-timeout SECONDS to wait longer.")
    assert waited < 30
    client.wait_for_workers(2, timeout=START_TIMEOUT)
    assert D.evaluate([files["runs"][0]], files["qrels"], ["RR"], client=client,
                      buckets=1).summary["value"].notna().all()
