"""Per-call time of ``tiedrank.Evaluator`` beside ``tiedrank.evaluate``, pytrec_eval's
``RelevanceEvaluator`` and ranx, on the small run of a training loop (issue 44, item 1).

The data: ``--queries`` queries (100) x ``--docs`` documents (100), every one judged (grades
0-2), scores tied in 4 levels (0, 0.25, 0.5, 0.75), as plain dicts ``{query: {doc: score}}``.
Measures: RR, nDCG@10, P@10, AP; tiedrank under every policy (``ties="all"``: expected, best,
worst, trec_eval), the peers under their one order. Contenders, each called on the same dict:

    Evaluator        tiedrank.Evaluator(qrels, metrics, ties="all"), built once; ev(run)
                     (and with ties="trec_eval" alone: the one order the peers compute)
    evaluate         tiedrank.evaluate(run, qrels, metrics, ties="all") (qrels as a dict too)
    pytrec_eval      RelevanceEvaluator(qrels, {recip_rank, ndcg_cut.10, P.10, map}), built
                     once; .evaluate(run)
    ranx dicts-in    ranx.evaluate(Qrels(qrels), Run(run), [...]): the objects built in the
                     call, numba's JIT on and warmed up first
    ranx prebuilt    ranx.evaluate(Qrels, Run, [...]) on objects built once

ranx runs with numba's JIT on (the tests turn it off: ``tests/conftest.py``), with its
default threads. The contenders are called in turn, a round at a time, the order rotated
each round, so that a load that comes and goes falls on each alike; each call's wall and CPU
(process) time is kept, and the median and least of each are printed.

Usage::

    python benchmarks/evaluator_benchmark.py [--rounds 200]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ["NUMBA_DISABLE_JIT"] = "0"  # ranx as users run it, compiled

import numpy as np  # noqa: E402

METRICS = ["RR", "nDCG@10", "P@10", "AP"]
TREC = {"recip_rank", "ndcg_cut.10", "P.10", "map"}
RANX = ["mrr", "ndcg@10", "precision@10", "map"]


def make_dicts(n_queries: int, n_docs: int, seed: int = 0) -> tuple[dict, dict]:
    """qrels ``{query: {doc: grade}}`` and a run ``{query: {doc: score}}`` in 4 tie levels."""
    rng = np.random.default_rng(seed)
    qrels: dict = {}
    run: dict = {}
    for q in range(n_queries):
        docs = [f"d{q}_{d}" for d in range(n_docs)]
        qrels[f"q{q}"] = dict(zip(docs, map(int, rng.integers(0, 3, n_docs))))
        run[f"q{q}"] = dict(zip(docs, map(float, rng.integers(0, 4, n_docs) / 4)))
    return qrels, run


def contenders(qrels: dict, run: dict) -> dict:
    import pytrec_eval
    import ranx

    import tiedrank

    ev = tiedrank.Evaluator(qrels, METRICS, ties="all")
    one = tiedrank.Evaluator(qrels, METRICS, ties="trec_eval")
    trec = pytrec_eval.RelevanceEvaluator(qrels, TREC)
    ranx_qrels, ranx_run = ranx.Qrels(qrels), ranx.Run(run)
    return {
        "tiedrank Evaluator": lambda: ev(run),
        "tiedrank Evaluator, ties=trec_eval only": lambda: one(run),
        "tiedrank.evaluate": lambda: tiedrank.evaluate(run, qrels, METRICS, ties="all"),
        "pytrec_eval (built once)": lambda: trec.evaluate(run),
        "ranx dicts-in": lambda: ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), RANX),
        "ranx prebuilt": lambda: ranx.evaluate(ranx_qrels, ranx_run, RANX),
    }


def check(qrels: dict, run: dict) -> None:
    """The Evaluator's numbers are evaluate's, bit for bit; its trec_eval policy is
    pytrec_eval's, to 1e-12 (trec_eval's sums run in another order)."""
    import pandas as pd
    import pytrec_eval

    import tiedrank

    mine = tiedrank.Evaluator(qrels, METRICS, ties="all")(run)
    theirs = tiedrank.evaluate(run, qrels, METRICS, ties="all")
    pd.testing.assert_frame_equal(mine.per_query, theirs.per_query, check_exact=True)
    pd.testing.assert_frame_equal(mine.summary, theirs.summary, check_exact=True)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, TREC).evaluate(run)
    summary = mine.summary.set_index(["metric", "policy"])["value"]
    for name, measure in zip(METRICS, ("recip_rank", "ndcg_cut_10", "P_10", "map")):
        peer = np.mean([values[measure] for values in per_query.values()])
        assert abs(summary[name, "trec_eval"] - peer) < 1e-12, (name, summary[name, "trec_eval"], peer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    qrels, run = make_dicts(args.queries, args.docs)
    check(qrels, run)
    calls = contenders(qrels, run)
    for call in calls.values():  # warm-up: numba's compilation, first imports, caches
        for _ in range(3):
            call()
    names = list(calls)
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for r in range(args.rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            w, c = time.perf_counter(), time.process_time()
            calls[name]()
            cpu[name].append(time.process_time() - c)
            wall[name].append(time.perf_counter() - w)
    load = os.getloadavg()
    print(f"{args.queries} queries x {args.docs} docs, {args.rounds} rounds, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cpus")
    print("| per call (ms) | wall median | wall least | cpu median | cpu least |")
    print("|---|---|---|---|---|")
    for name in names:
        print(f"| {name} | {statistics.median(wall[name]) * 1e3:.2f} | {min(wall[name]) * 1e3:.2f} "
              f"| {statistics.median(cpu[name]) * 1e3:.2f} | {min(cpu[name]) * 1e3:.2f} |")


if __name__ == "__main__":
    main()
