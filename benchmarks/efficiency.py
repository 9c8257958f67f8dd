"""Efficiency of ``--dask local:2`` against one process held to one core.

Two experiments, each mode in a fresh child process, timed from outside:

(a) evaluate N runs x M rows (default 12 x 1,000,000, MS MARCO-like runs with LLM-style ties
    from ``benchmarks/generate.py``): ``tiedrank evaluate QRELS RUN... -q --format csv
    --digits 17``, its output (per-query rows and means, 17 digits) written to a file;
(b) a simulator sweep (default 8 tie levels x 8 seeds of 2,000 queries):
    ``tiedrank.distributed.sweep(..., client=None | "local:2")``, the table written as CSV.

Modes:

``one core``
    ``taskset -c 0`` and every thread pool at one thread: ``OMP_NUM_THREADS=1``
    ``OMP_THREAD_LIMIT=1`` (pyarrow sizes its CPU pool from these; it has no
    ``ARROW_NUM_THREADS``), ``ARROW_IO_THREADS=1`` (its I/O pool), ``OPENBLAS_NUM_THREADS=1``
    ``MKL_NUM_THREADS=1``; in the child also ``pyarrow.set_cpu_count(1)``,
    ``set_io_thread_count(1)`` and tiedrank's numpy helper threads at one (it counts the
    machine's cores, not the affinity mask).
``local:2``
    ``--dask local:2`` (``client="local:2"``): two worker processes of one thread each,
    started by the command (both cores, no pinning).

Reported per mode: wall time of the child process (start to exit, interpreter start-up and
imports included for both modes), the local cluster's start-up inside it (connect to ready
workers), speed-up against one core with and without that start-up, CPU seconds of the
whole process tree (the child, the Dask fork server and workers: a small measuring process
starts the child, makes itself the subreaper of its descendants and reaps them all, so
their CPU time is counted, fresh for each mode) and of it the child's own (the client: the
rest is the fork server's and the workers'), cores
busy (CPU / wall), the largest process's peak RSS, and a SHA-256 of the output file; the
modes of an experiment must give the same hash (the script exits 1 otherwise).

Usage::

    python benchmarks/efficiency.py                                # full size: minutes
    python benchmarks/efficiency.py --runs 2 --rows 20000 --depth 100 \\
        --sweep-values 2 --sweep-seeds 2 --sweep-queries 50        # seconds: proves it works
    python benchmarks/efficiency.py --only a --repeat 3            # medians of 3, alternated
    python benchmarks/efficiency.py --only a --dask-buckets 4      # local:2 with --buckets 4

It prints a markdown table ready for ``benchmarks/RESULTS.md``. The machine should be
quiet: on a shared one the spread between rounds is as large as the effects measured
(``--repeat`` alternates the modes so that a slow spell falls on both).
"""
from __future__ import annotations

import argparse
import atexit
import contextlib
import ctypes
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
METRICS = ["RR", "RR@10", "AP", "nDCG@10", "P@10"]
TIES = ["expected", "best", "worst", "trec_eval", "random(seed=1)"]
SWEEP_VALUES = [2, 3, 4, 6, 8, 11, 16, None]
ONE_CORE_ENV = {"OMP_NUM_THREADS": "1", "OMP_THREAD_LIMIT": "1", "ARROW_IO_THREADS": "1",
                "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
MODES = ("one core", "local:2")
REAP_TIMEOUT = 60.0  # s for a mode's leftover processes (fork server, workers) to end


# ---- data ------------------------------------------------------------------------------------
def ensure_runs(data: Path, n_runs: int, rows: int, depth: int) -> tuple[list[str], str]:
    """``n_runs`` runs of ``rows`` lines (``rows // depth`` queries) and their qrels, written
    once under ``data`` by the generator of ``scale_benchmark.py`` (one seed: the same
    ranking under each run's own tag, so every run is the same work)."""
    sys.path.insert(0, str(HERE))
    from scale_benchmark import write_run

    queries = max(1, rows // depth)
    data.mkdir(parents=True, exist_ok=True)
    stem = f"{queries}x{depth}"
    qrels = data / f"{stem}.qrels"
    runs = [data / f"{stem}_{i:02d}.txt" for i in range(n_runs)]
    for i, run in enumerate(runs):
        if not run.exists() or (i == 0 and not qrels.exists()):
            partial = run.with_name(run.name + ".partial")  # no half-written run reused
            write_run(partial, queries, depth, 7, f"sys{i:02d}", qrels if i == 0 else None)
            partial.replace(run)
    return [str(r) for r in runs], str(qrels)


# ---- children ------------------------------------------------------------------------------
def _one_core_in_process() -> None:
    import pyarrow

    pyarrow.set_cpu_count(1)
    pyarrow.set_io_thread_count(1)
    from tiedrank.io import set_helper_threads

    set_helper_threads(1)  # as a Dask worker's plugin does (taskset alone already gives 1)


@contextlib.contextmanager
def _timed_connect(record: dict):
    """Record how long ``tiedrank.distributed``'s connect takes to hand over a ready client
    (cluster start-up and worker warm-up), around the CLI's own call. A local cluster the
    command started ahead, at its start (``--dask local:N``), is timed from the connect: the
    wait left, not its whole start-up, most of which overlaps the command's own imports.

    Only the light ``cluster`` module is imported here (and ``scaled``, which takes
    ``connect`` by name, patched if it is already loaded), so that the child imports no more
    before ``main`` than a ``tiedrank`` process does: importing the evaluation here would
    delay the command's early start of the cluster behind pandas and tiedrank."""
    from tiedrank.distributed import cluster

    scaled = sys.modules.get("tiedrank.distributed.scaled")
    original = cluster.connect

    @contextlib.contextmanager
    def connect(*args, **kwargs):
        started = time.perf_counter()
        with original(*args, **kwargs) as client:
            record["startup_s"] = time.perf_counter() - started
            yield client

    cluster.connect = connect
    if scaled is not None:
        scaled.connect = connect
    try:
        yield
    finally:
        cluster.connect = original
        scaled = sys.modules.get("tiedrank.distributed.scaled")
        if scaled is not None and scaled.connect is connect:
            scaled.connect = original


def child(task: str, payload: dict) -> dict:
    """One mode of one experiment, in this (fresh) process; writes ``payload["output"]``."""
    if payload["mode"] == "one core":
        _one_core_in_process()
    record = {"startup_s": 0.0}
    output = Path(payload["output"])
    if task == "evaluate":
        from tiedrank.cli import main

        argv = ["evaluate", payload["qrels"], *payload["runs"],
                *[a for m in METRICS for a in ("-m", m)], "--ties", ",".join(TIES),
                "-q", "--format", "csv", "--digits", "17"]
        if payload["mode"] == "local:2":
            argv += ["--dask", "local:2"]
            if payload.get("buckets"):
                argv += ["--buckets", str(payload["buckets"])]
        with _timed_connect(record), open(output, "w") as sink, \
                contextlib.redirect_stdout(sink):
            status = main(argv)
        if status != 0:
            raise SystemExit(f"tiedrank evaluate ended with status {status}")
    elif task == "sweep":
        from tiedrank import distributed as D
        from tiedrank.simulate import make_queries

        qrels = make_queries(n_queries=payload["queries"], seed=3)
        arguments = dict(seeds=range(payload["seeds"]), qrels=qrels, metric="AP")
        if payload["mode"] == "local:2":
            started = time.perf_counter()
            with D.connect("local:2") as client:
                record["startup_s"] = time.perf_counter() - started
                table = D.sweep("levels", payload["values"], client=client, **arguments)
        else:
            table = D.sweep("levels", payload["values"], **arguments)
        table.to_csv(output, index=False, float_format="%.17g")
    else:
        raise ValueError(task)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    record["client_cpu_s"] = usage.ru_utime + usage.ru_stime  # the rest: fork server, workers
    return record


def _become_subreaper() -> bool:
    """Adopt every orphaned descendant (Linux PR_SET_CHILD_SUBREAPER), so that the fork
    server and the Dask workers a child leaves are reaped here and their CPU time lands in
    this process's RUSAGE_CHILDREN."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _reap_all(deadline: float) -> list[int]:
    """Wait for every remaining descendant; the pids still running at ``deadline``."""
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return []
        if pid == 0:
            time.sleep(0.05)
    return [int(p) for p in os.listdir("/proc") if p.isdigit()
            and _parent(int(p)) == os.getpid()]


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def measure(command: list[str], env: dict) -> dict:
    """Run ``command`` to its end and every process it leaves behind too; wall seconds,
    CPU seconds and the largest peak RSS of the whole tree. Called in a fresh measuring
    process (``--measure``), so that the counts of one mode start from zero."""
    if not _become_subreaper():
        print("# warning: not a subreaper (not Linux?): the CPU of processes the child "
              "leaves behind (Dask's workers) is not counted", file=sys.stderr)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    left = _reap_all(time.monotonic() + REAP_TIMEOUT)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:6])} ... failed:\n{done.stderr[-3000:]}")
    if left:
        raise SystemExit(f"processes left running after the child ended: {left}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_rss_mb": usage.ru_maxrss / 1024}


def run_mode(task: str, mode: str, payload: dict, scratch: Path) -> dict:
    """One child process for ``mode`` (under a measuring process): wall, start-up, CPU of
    its process tree, peak RSS and the hash of what it wrote."""
    output = scratch / f"{task}-{mode.replace(' ', '_').replace(':', '')}.out"
    record_path = output.with_suffix(".json")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    command = [sys.executable, __file__, "--child", task,
               json.dumps(dict(payload, mode=mode, output=str(output))), str(record_path)]
    if mode == "one core":
        env.update(ONE_CORE_ENV)
        command = ["taskset", "-c", "0", *command]
    done = subprocess.run([sys.executable, __file__, "--measure", json.dumps([command, env])],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{task} / {mode} failed:\n{done.stderr[-3000:]}")
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    record = json.loads(record_path.read_text())
    return {**measured, "startup_s": record["startup_s"], "client_cpu_s": record["client_cpu_s"],
            "sha256": hashlib.sha256(output.read_bytes()).hexdigest()}


# ---- experiments -----------------------------------------------------------------------------
def experiment(task: str, what: str, payload: dict, repeat: int, scratch: Path) -> list[dict]:
    """Both modes ``repeat`` times, alternating (one core, local:2, one core, ...)."""
    measured: dict[str, list[dict]] = {mode: [] for mode in MODES}
    for _ in range(repeat):
        for mode in MODES:
            measured[mode].append(run_mode(task, mode, payload, scratch))
            print(f"# {task} / {mode}: {measured[mode][-1]['wall_s']:.2f} s", file=sys.stderr,
                  flush=True)
    base = _median([m["wall_s"] for m in measured[MODES[0]]])
    hashes = {m["sha256"] for ms in measured.values() for m in ms}
    rows = []
    for mode, ms in measured.items():
        wall = _median([m["wall_s"] for m in ms])
        startup = _median([m["startup_s"] for m in ms])
        cpu = _median([m["cpu_s"] for m in ms])
        rows.append({
            "experiment": task, "input": what, "mode": mode, "repeats": len(ms),
            "wall_s": wall, "wall_s_each": " ".join(f"{m['wall_s']:.2f}" for m in ms),
            "startup_s": startup, "speedup": base / wall,
            "speedup_without_startup": base / (wall - startup) if wall > startup else None,
            "cpu_s": cpu, "client_cpu_s": _median([m["client_cpu_s"] for m in ms]),
            "cores_busy": _median([m["cpu_s"] / m["wall_s"] for m in ms]),
            "peak_rss_mb": max(m["peak_rss_mb"] for m in ms),
            "sha256": ms[0]["sha256"][:12], "identical": len(hashes) == 1})
    return rows


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


COLUMNS = [("experiment", "experiment", "{}"), ("input", "input", "{}"), ("mode", "mode", "{}"),
           ("repeats", "repeats", "{}"), ("wall s (median)", "wall_s", "{:.2f}"),
           ("each round", "wall_s_each", "{}"), ("cluster start-up s", "startup_s", "{:.2f}"),
           ("speed-up", "speedup", "{:.2f}"),
           ("speed-up without start-up", "speedup_without_startup", "{:.2f}"),
           ("CPU s", "cpu_s", "{:.1f}"), ("of which the client", "client_cpu_s", "{:.1f}"),
           ("cores busy", "cores_busy", "{:.2f}"),
           ("largest process MB", "peak_rss_mb", "{:,.0f}"), ("output sha256", "sha256", "`{}`"),
           ("identical", "identical", "{}")]


def markdown(rows: list[dict]) -> str:
    lines = ["| " + " | ".join(title for title, _, _ in COLUMNS) + " |",
             "|" + "|".join("---:" if fmt.startswith("{:") else "---"
                            for _, _, fmt in COLUMNS) + "|"]
    for row in rows:
        cells = []
        for _, key, fmt in COLUMNS:
            value = row[key]
            skip = value is None or (key == "startup_s" and row["mode"] == MODES[0]) \
                or (key == "speedup_without_startup" and row["mode"] == MODES[0])
            cells.append("" if skip else fmt.format(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=12, help="runs of experiment (a)")
    parser.add_argument("--rows", type=int, default=1_000_000, help="lines per run")
    parser.add_argument("--depth", type=int, default=1000, help="documents per query")
    parser.add_argument("--dask-buckets", type=int, default=None, metavar="N",
                        help="pass --buckets N to the local:2 mode of (a) (default: the "
                             "automatic choice, one task per run below 256 MB of input)")
    parser.add_argument("--sweep-values", type=int, default=8,
                        help=f"tie levels swept in (b), the first of {SWEEP_VALUES}")
    parser.add_argument("--sweep-seeds", type=int, default=8, help="seeds per level in (b)")
    parser.add_argument("--sweep-queries", type=int, default=2000, help="queries per reranker")
    parser.add_argument("--only", default="ab", help="experiments to run: 'a', 'b' or 'ab'")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds, the modes alternating; the table shows medians")
    parser.add_argument("--data", type=Path, default=HERE / "data" / "efficiency")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows here")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(*json.loads(args.measure))))
        return 0
    if args.child:
        task, payload, record = args.child
        Path(record).write_text(json.dumps(child(task, json.loads(payload))))
        # as the tiedrank command does (tiedrank.cli.run): exit handlers, then no native
        # teardown, where Arrow's thread pools now and then abort a finished process
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    if shutil.which("taskset") is None:
        parser.error("taskset (util-linux) is needed to hold the one-core mode to one core")
    if not 1 <= args.sweep_values <= len(SWEEP_VALUES):
        parser.error(f"--sweep-values must be in [1, {len(SWEEP_VALUES)}]")
    load_before = os.getloadavg()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="tiedrank-efficiency-") as scratch:
        if "a" in args.only:
            started = time.perf_counter()
            runs, qrels = ensure_runs(args.data, args.runs, args.rows, args.depth)
            print(f"# data ready in {time.perf_counter() - started:.1f} s under {args.data}",
                  file=sys.stderr, flush=True)
            what = f"{args.runs} runs x {args.rows:,} rows" + (
                f" (local:2 with --buckets {args.dask_buckets})" if args.dask_buckets else "")
            rows += experiment("evaluate", what,
                               {"runs": runs, "qrels": qrels, "buckets": args.dask_buckets},
                               args.repeat, Path(scratch))
        if "b" in args.only:
            n = args.sweep_values * args.sweep_seeds
            rows += experiment("sweep", f"{n} rerankers x {args.sweep_queries:,} queries",
                               {"values": SWEEP_VALUES[:args.sweep_values],
                                "seeds": args.sweep_seeds, "queries": args.sweep_queries},
                               args.repeat, Path(scratch))
    load_after = os.getloadavg()
    print(f"- {os.cpu_count()} cores; load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after; `python benchmarks/efficiency.py "
          f"{' '.join(argv if argv is not None else sys.argv[1:])}`".rstrip())
    print()
    print(markdown(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0 if all(r["identical"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
