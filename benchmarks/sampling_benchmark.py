"""Benchmark the random tie-break samplers: the legacy ``spread.sample_run_means`` (of
tiedrank/spread.py at LEGACY_COMMIT, since removed; tiling and shuffling whole groups) against
``tiedrank.sampling.sample_run_means`` (exact per-query structure, bounded chunks).

For each dataset x metric x sampler a fresh Python subprocess loads the data, builds the
tie table (``setup``), then draws ``--draws`` run means (``sample``). Reported per child:

* ``setup s`` / ``sample s`` - wall time of the two steps, measured inside the child;
* ``setup RSS MB``           - resident memory after setup (VmRSS);
* ``peak RSS MB``            - peak resident memory of the whole child (VmHWM), so the
                               sampler's own cost is peak - setup;
* ``mean`` / ``sd``          - of the draws (the two samplers must agree within noise).

Datasets:

* ``llmjudge`` - a run of the LLMJudge sample (``sample_data/llmjudge``, relevance level 2);
* ``synthetic`` - generated in memory: ``--queries`` x ``--depth`` documents (default
  10,000 x 100 = 1M rows), scores with one decimal in [0, 1] (so large tie groups),
  graded qrels (grades 1-3 for about ``--relevant-share`` of the documents, half of the
  rest judged 0); the same seed gives the same data in every child.

"Today's" sampler is the one of ``tiedrank/spread.py`` at commit ``LEGACY_COMMIT`` (before
it delegated to :mod:`tiedrank.sampling`), loaded from git so the comparison keeps working.

Usage::

    python benchmarks/sampling_benchmark.py                       # full: 1,000 draws, 1M rows
    python benchmarks/sampling_benchmark.py --queries 1000 --draws 100   # smoke run
    python benchmarks/sampling_benchmark.py --samplers new --metrics AP
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LEGACY_COMMIT = "9e6150f"
METRICS = ("RR", "P@10", "nDCG@10", "AP")
SAMPLERS = ("today", "new")


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def synthetic_inputs(n_queries: int, depth: int, relevant_share: float, seed: int = 7):
    """A run of ``n_queries`` x ``depth`` rows with one-decimal scores, and graded qrels."""
    import numpy as np
    import pandas as pd

    from tiedrank.core.data import Qrels, Run

    rng = np.random.default_rng(seed)
    rows = n_queries * depth
    query = np.repeat(np.arange(n_queries), depth)
    grade = np.where(rng.random(rows) < relevant_share, rng.integers(1, 4, rows), 0)
    score = np.clip(np.round(0.35 + 0.12 * grade + rng.normal(0.0, 0.2, rows), 1), 0.0, 1.0)
    qid = np.char.add("q", query.astype(str)).astype(object)
    doc = np.char.add("d", np.arange(rows).astype(str)).astype(object)
    run = pd.DataFrame({"query": qid, "doc": doc, "score": score}).astype({"query": "str", "doc": "str"})
    judged = (grade > 0) | (rng.random(rows) < 0.5)
    qrels = pd.DataFrame({"query": qid[judged], "doc": doc[judged], "relevance": grade[judged]})
    return Run("synthetic", run), Qrels(qrels.astype({"query": "str", "doc": "str"}))


def _table(args):
    from tiedrank.io import read_qrels, read_run
    from tiedrank.core.options import EvaluationOptions
    from tiedrank.core.ties import build_tie_table

    if args.dataset == "llmjudge":
        base = ROOT / "sample_data" / "llmjudge"
        run = read_run(base / "runs" / f"{args.run}.txt", format="trec_qrels", name=args.run)
        return build_tie_table(run, read_qrels(base / "qrels.test.txt"),
                               EvaluationOptions(rel_level=2))
    run, qrels = synthetic_inputs(args.queries, args.depth, args.relevant_share)
    return build_tie_table(run, qrels)


def _legacy_sampler():
    """``sample_run_means`` of tiedrank/spread.py at LEGACY_COMMIT, imported as a module of
    the current package (its relative imports resolve to today's metrics and ties)."""
    source = subprocess.run(["git", "show", f"{LEGACY_COMMIT}:tiedrank/spread.py"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "legacy_spread.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("tiedrank._legacy_spread", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.sample_run_means


def child(args) -> None:
    """One measurement; prints one JSON line."""
    sys.path.insert(0, str(ROOT))
    started = time.perf_counter()
    table = _table(args)
    table.scoring()
    setup = time.perf_counter() - started
    setup_rss = _status_mb("VmRSS")
    if args.sampler == "today":
        sample = _legacy_sampler()
    else:
        from tiedrank.sampling import sample_run_means as sample
    started = time.perf_counter()
    draws = sample(table, args.metric, n_draws=args.draws, seed=1)
    elapsed = time.perf_counter() - started
    print(json.dumps({"setup_s": setup, "sample_s": elapsed, "setup_rss_mb": setup_rss,
                      "peak_rss_mb": _status_mb("VmHWM"), "mean": float(draws.mean()),
                      "sd": float(draws.std()), "queries": int(table.n_queries),
                      "rows": int(table.n_retrieved.sum())}))


def _run_child(args, dataset: str, metric: str, sampler: str) -> dict:
    cmd = [sys.executable, __file__, "--child", "--dataset", dataset, "--metric", metric,
           "--sampler", sampler, "--draws", str(args.draws), "--queries", str(args.queries),
           "--depth", str(args.depth), "--relevant-share", str(args.relevant_share),
           "--run", args.run]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=args.timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"status": f"timeout > {args.timeout} s"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"status": f"failed: {last[:80]}"}
    return {"status": "ok", **json.loads(done.stdout.strip().splitlines()[-1])}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--relevant-share", type=float, default=0.1)
    parser.add_argument("--run", default="Olz-gpt4o", help="LLMJudge run (file name stem)")
    parser.add_argument("--datasets", default="llmjudge,synthetic")
    parser.add_argument("--metrics", default=",".join(METRICS))
    parser.add_argument("--samplers", default=",".join(SAMPLERS))
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--dataset", help=argparse.SUPPRESS)
    parser.add_argument("--metric", help=argparse.SUPPRESS)
    parser.add_argument("--sampler", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return
    print(f"# {args.draws:,} draws; synthetic = {args.queries:,} queries x {args.depth} documents, "
          f"one-decimal scores, relevant share {args.relevant_share}; LLMJudge run {args.run}")
    print("| dataset | metric | sampler | status | setup s | sample s | setup RSS MB | "
          "peak RSS MB | mean | sd |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    for dataset in args.datasets.split(","):
        for metric in args.metrics.split(","):
            for sampler in args.samplers.split(","):
                r = _run_child(args, dataset, metric, sampler)
                if r["status"] != "ok":
                    print(f"| {dataset} | {metric} | {sampler} | {r['status']} |  |  |  |  |  |  |")
                    continue
                print(f"| {dataset} | {metric} | {sampler} | ok | {r['setup_s']:.2f} | "
                      f"{r['sample_s']:.2f} | {r['setup_rss_mb']:,.0f} | {r['peak_rss_mb']:,.0f} | "
                      f"{r['mean']:.5f} | {r['sd']:.5f} |", flush=True)


if __name__ == "__main__":
    main()
