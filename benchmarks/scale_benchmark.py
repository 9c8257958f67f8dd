"""Benchmark of evaluation past one process (issue 10): buckets and Dask.

Three experiments, each measured in a fresh child process (wall time, the part of it spent
starting a local Dask cluster, and peak RSS from the kernel: VmHWM of the child itself;
for Dask also the largest worker and the workers' CPU time, as each worker reports them at
the end):

(a) one big run: one pass (``tiedrank.evaluate``) vs ``--buckets`` (bucket by bucket);
(b) many runs: one process vs ``--dask local:2`` (one task per run);
(c) a simulator sweep of many rerankers (values x seeds): sequential vs ``local:2``.

(b) and (c) also time a reference with no Dask: two plain processes started together, each
doing half of the work. It shows what two cores of this machine give to two processes at
all (on a shared virtual machine, less than 2x), so a shortfall of ``local:2`` can be told
apart from a shortfall of the machine.

Every pair is also checked for identical results (summaries compared bit for bit), so a
fast wrong answer cannot pass.

Usage::

    python benchmarks/scale_benchmark.py --scale small        # seconds: proves it works
    python benchmarks/scale_benchmark.py --scale medium       # a minute or two: 5M rows
    python benchmarks/scale_benchmark.py --scale full         # (a) 50M rows, (b) 20 x 1M,
                                                              # (c) 8 x 8 = 64 rerankers
    python benchmarks/scale_benchmark.py --only a --buckets 16 --data /big/disk

Data are generated once into ``--data`` (default ``benchmarks/data/scale``) with the
generator of ``benchmarks/generate.py`` (MS MARCO-like runs with LLM-style ties), in
chunks so that generating 50M rows needs little memory.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from contextlib import nullcontext
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
METRICS = ["RR", "RR@10", "AP", "nDCG@10", "P@10"]
TIES = ["expected", "best", "worst", "trec_eval", "random(seed=1)"]

SCALES = {
    # (a) queries x depth of the big run; (b) runs x queries x depth; (c) values x seeds
    "small": {"a": (500, 1000), "b": (4, 50, 1000), "c": (4, 4, 60), "buckets": 4},
    "medium": {"a": (5000, 1000), "b": (8, 200, 1000), "c": (8, 4, 200), "buckets": 8},
    "full": {"a": (50_000, 1000), "b": (20, 1000, 1000), "c": (8, 8, 2000), "buckets": None},
}
SWEEP_VALUES = [2, 3, 4, 6, 8, 11, 16, None]


# ---- data ------------------------------------------------------------------------------------
def write_run(path: Path, n_queries: int, depth: int, seed: int, tag: str,
              qrels_path: Path | None = None, chunk: int = 2000) -> None:
    """A TREC run of ``n_queries`` x ``depth`` lines (and its qrels), written in chunks."""
    sys.path.insert(0, str(HERE))
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv
    from generate import QID_SPACE, generate

    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none",
                                 batch_size=1 << 16)
    with open(path, "wb") as run_file, \
            (open(qrels_path, "wb") if qrels_path else open(os.devnull, "wb")) as qrels_file:
        for start in range(0, n_queries, chunk):
            n = min(chunk, n_queries - start)
            run, qrels, _ = generate(n, depth, seed + start, tag=tag)
            offset = (start // chunk) * QID_SPACE  # chunks never share a query id
            # the generator's unretrieved judged documents may repeat within a query at
            # this size; keep one judgement per (query, doc), as a real qrels file has
            keep = qrels.to_pandas().drop_duplicates(["qid", qrels.column_names[2]]).index
            qrels = qrels.take(pa.array(keep.to_numpy()))
            for table, sink in ((run, run_file), (qrels, qrels_file)):
                qid = pc.add(table.column("qid"), pa.scalar(offset, pa.int64()))
                pacsv.write_csv(table.set_column(0, "qid", qid), sink, write_options=options)


def ensure_data(data: Path, scale: dict, only: str) -> dict:
    data.mkdir(parents=True, exist_ok=True)
    paths = {}
    if "a" in only:
        q, d = scale["a"]
        run, qrels = data / f"a_{q}x{d}.txt", data / f"a_{q}x{d}.qrels"
        if not run.exists():
            write_run(run, q, d, 1, "big", qrels)
        paths["a"] = (str(run), str(qrels))
    if "b" in only:
        k, q, d = scale["b"]
        runs = [data / f"b_{q}x{d}_{i:02d}.txt" for i in range(k)]
        qrels = data / f"b_{q}x{d}.qrels"
        for i, run in enumerate(runs):
            if not run.exists():
                # the generator ties queries, qrels and scores to one seed: every run is the
                # same ranking under its own tag (the same work per run; random(seed) differs)
                write_run(run, q, d, 7, f"sys{i:02d}", qrels if i == 0 else None)
        paths["b"] = ([str(r) for r in runs], str(qrels))
    return paths


# ---- children ----------------------------------------------------------------------------
def _cpu_s() -> float:
    usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(u.ru_utime + u.ru_stime for u in usage)


def _worker_usage() -> tuple[float, float]:
    """CPU seconds and peak RSS (MB) of the calling Dask worker process."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _peak_mb(cpu_before: float, workers: list[tuple[float, float]]) -> dict:
    own = None
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            own = int(line.split()[1]) / 1024
    # workers report themselves (forked from a fork server, they are not our children)
    children = max([rss for _, rss in workers],
                   default=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    # CPU seconds of this process, its reaped children and the workers: cpu_s / wall_s is
    # how many cores the mode kept busy (a "one process" run that already uses 1.3 cores,
    # through Arrow's reader threads, can gain at most 2 / 1.3 = 1.5x from a second core).
    cpu = _cpu_s() - cpu_before + sum(cpu for cpu, _ in workers)
    return {"peak_rss_mb": round(own or 0, 1), "largest_child_rss_mb": round(children, 1),
            "cpu_s": round(cpu, 2)}


def child(task: str, payload: dict) -> dict:
    from tiedrank import distributed as D

    started, cpu_before = time.perf_counter(), _cpu_s()
    client = payload.get("client")
    with (D.connect(client) if client else nullcontext()) as client:
        startup = time.perf_counter() - started  # starting a local cluster, if any
        result = _work(task, payload, client)
        workers = list(client.run(_worker_usage).values()) if client else []
    wall = time.perf_counter() - started
    return {"task": task, "wall_s": round(wall, 2), "startup_s": round(startup, 2),
            **_peak_mb(cpu_before, workers),
            "result": result.astype({c: str for c in result.columns
                                     if str(result[c].dtype) in ("category", "object")})
            .to_json(orient="split", double_precision=15)}


def _work(task: str, payload: dict, client):
    from tiedrank import distributed as D
    from tiedrank import evaluate

    if task == "one_pass":
        from tiedrank import read_qrels, read_run

        runs = [read_run(p) for p in payload["runs"]]
        ev = evaluate(runs, read_qrels(payload["qrels"]), METRICS, ties=TIES)
        result = ev.summary
    elif task == "scaled":
        ev = D.evaluate(payload["runs"], payload["qrels"], METRICS, ties=TIES,
                        buckets=payload.get("buckets"), client=client)
        result = ev.summary
    elif task == "sweep":
        from tiedrank.simulate import make_queries

        qrels = make_queries(n_queries=payload["queries"], seed=3)
        seeds = payload["seeds"]  # a count, or [start, stop) for the reference halves
        seeds = range(*seeds) if isinstance(seeds, list) else range(seeds)
        result = D.sweep("levels", payload["values"], seeds=seeds,
                         qrels=qrels, metric="AP", client=client)
    else:
        raise ValueError(task)
    return result


def _start_child(task: str, payload: dict) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, __file__, "--child", task, json.dumps(payload)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _finish_child(task: str, child_process: subprocess.Popen) -> dict:
    out, err = child_process.communicate()
    if child_process.returncode != 0:
        raise RuntimeError(f"{task} failed:\n{err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


def run_child(task: str, payload: dict | list[dict]) -> dict:
    """One child on ``payload``; or, given a list of payloads, one child per payload all at
    once, measured as one: the slowest one's time, CPU summed, results set aside (a
    reference mode: what the machine gives two plain processes sharing out the work, with
    no Dask at all)."""
    if isinstance(payload, dict):
        return _finish_child(task, _start_child(task, payload))
    children = [_start_child(task, p) for p in payload]
    results = [_finish_child(task, c) for c in children]
    # each child's own clock starts after its imports, like the other modes' (they started
    # together, so the slowest one's time is the pair's)
    return {"wall_s": max(r["wall_s"] for r in results), "startup_s": 0.0,
            "peak_rss_mb": max(r["peak_rss_mb"] for r in results),
            "largest_child_rss_mb": 0.0, "cpu_s": sum(r["cpu_s"] for r in results),
            "result": None}


def _same(a: dict, b: dict) -> bool | None:
    """Identical results: the JSON of the two result frames, all digits kept by to_json
    (None for the reference mode, whose halves are not put together)."""
    if a["result"] is None or b["result"] is None:
        return None
    return json.loads(a["result"]) == json.loads(b["result"])


# ---- experiments -------------------------------------------------------------------------
def _paired(modes: list[tuple[str, str, dict]], repeat: int) -> list[tuple[str, list[dict]]]:
    """Each mode run ``repeat`` times, the modes alternating (one, other, one, other...), so
    that a slow spell of a shared machine falls on both modes rather than on one."""
    measured: dict[str, list[dict]] = {label: [] for label, _, _ in modes}
    for _ in range(repeat):
        for label, task, payload in modes:
            measured[label].append(run_child(task, payload))
    return list(measured.items())


def experiment_a(paths, scale, buckets, repeat=1) -> list[dict]:
    run, qrels = paths["a"]
    return _rows("a", f"{scale['a'][0] * scale['a'][1]:,} rows, 1 run", _paired(
        [("one pass", "one_pass", {"runs": [run], "qrels": qrels}),
         (f"--buckets {buckets or 'auto'}", "scaled",
          {"runs": [run], "qrels": qrels, "buckets": buckets})], repeat))


def experiment_b(paths, scale, repeat=1) -> list[dict]:
    runs, qrels = paths["b"]
    k, q, d = scale["b"]
    return _rows("b", f"{k} runs x {q * d:,} rows", _paired(
        [("one process", "one_pass", {"runs": runs, "qrels": qrels}),
         ("--dask local:2", "scaled", {"runs": runs, "qrels": qrels, "buckets": 1,
                                       "client": "local:2"}),
         ("2 plain processes, half the runs each (reference, no Dask)", "one_pass",
          [{"runs": runs[:k // 2], "qrels": qrels}, {"runs": runs[k // 2:], "qrels": qrels}])],
        repeat))


def experiment_c(scale, repeat=1) -> list[dict]:
    n_values, n_seeds, queries = scale["c"]
    payload = {"values": SWEEP_VALUES[:n_values], "seeds": n_seeds, "queries": queries}
    return _rows("c", f"sweep of {n_values * n_seeds} rerankers ({queries} queries each)",
                 _paired([("sequential", "sweep", payload),
                          ("dask local:2", "sweep", dict(payload, client="local:2")),
                          ("2 plain processes, half the seeds each (reference, no Dask)",
                           "sweep", [dict(payload, seeds=[0, n_seeds // 2]),
                                     dict(payload, seeds=[n_seeds // 2, n_seeds])])], repeat))


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _rows(name: str, what: str, measured: list[tuple[str, list[dict]]]) -> list[dict]:
    """One row per mode: medians over the repeats, each repeat's speed-up against the
    first mode's run of the same round (paired), and whether every result was identical."""
    base = measured[0][1]
    rows = []
    for mode, ms in measured:
        wall = _median([m["wall_s"] for m in ms])
        startup = _median([m["startup_s"] for m in ms])
        paired = [b["wall_s"] / m["wall_s"] for b, m in zip(base, ms)]
        rows.append({
            "experiment": name, "input": what, "mode": mode, "repeats": len(ms),
            "wall_s": round(wall, 2), "wall_s_each": " ".join(f"{m['wall_s']:.2f}" for m in ms),
            "startup_s": round(startup, 2),
            "speedup": round(_median([b["wall_s"] for b in base]) / wall, 2),
            "speedup_each": " ".join(f"{r:.2f}" for r in paired),
            "speedup_after_startup": round(_median([b["wall_s"] for b in base])
                                           / (wall - startup), 2) if wall > startup else None,
            "peak_rss_mb": max(m["peak_rss_mb"] for m in ms),
            "largest_child_rss_mb": max(m["largest_child_rss_mb"] for m in ms),
            "cores_busy": round(_median([m.get("cpu_s", 0) / m["wall_s"] for m in ms]), 2),
            "identical_to_first": _identical([_same(base[0], m) for m in ms])})
    return rows


def _identical(checks: list[bool | None]) -> bool | str:
    return "n/a" if any(c is None for c in checks) else all(checks)


def markdown(rows: list[dict]) -> str:
    head = ["experiment", "input", "mode", "repeats", "wall_s", "wall_s_each", "startup_s",
            "speedup", "speedup_each", "speedup_after_startup", "peak_rss_mb",
            "largest_child_rss_mb", "cores_busy", "identical_to_first"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(r[h]) for h in head) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", choices=sorted(SCALES), default="small")
    parser.add_argument("--only", default="abc", help="experiments to run, e.g. 'a' or 'bc'")
    parser.add_argument("--data", type=Path, default=HERE / "data" / "scale")
    parser.add_argument("--buckets", type=int, default=None,
                        help="buckets for (a) (default: the scale's; 'full' chooses automatically)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each pair of modes this many times, alternating, and report "
                             "medians (a shared machine's speed drifts by 10%% or more)")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows here")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], json.loads(args.child[1]))))
        return 0
    scale = SCALES[args.scale]
    started = time.perf_counter()
    paths = ensure_data(args.data, scale, args.only)
    print(f"data ready in {time.perf_counter() - started:.1f} s under {args.data}", flush=True)
    rows: list[dict] = []
    if "a" in args.only:
        rows += experiment_a(paths, scale, args.buckets or scale["buckets"], args.repeat)
    if "b" in args.only:
        rows += experiment_b(paths, scale, args.repeat)
    if "c" in args.only:
        rows += experiment_c(scale, args.repeat)
    print(markdown(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0 if all(r["identical_to_first"] in (True, "n/a") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
