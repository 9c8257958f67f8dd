"""Time the ordinary-qrels measures of issue 32 beside the existing family of the same shape,
on one run's tie-group table.

The run and qrels are ``benchmarks/generate.py``'s (6.98M lines by default). The table is
built once (every tie policy's table is resolved and cached by a first, untimed scoring);
then each metric is scored alone under every policy (``ties="all"``: expected, optimistic,
pessimistic, trec_eval, input) with :func:`tiedrank.evaluation.score_tables`, three
times, and the least wall and CPU times are printed beside its peer family's:

    Judged@10 / unj@10     counts of the qrels documents in the top k, own extremes
    F1@10     / P@10       relevant documents in the top k
    NCG@10    / DCG@10     gains in the top k
    ERR@10, nERR@10 / nDCG@10   graded, position-weighted (ERR: the subset recurrences)
    INSQ(max_rel=4) / DCG@1000   C/W/L: linear, fixed weights over cwl_eval's 1000 places
    BPM(max_rel=4)@10 / nDCG@10  the stopping group's compositions
    INST(max_rel=4) / DCG@1000   every query's distinct gain sequences (refused past 65,536
                                 for a query: the message is printed instead)
    Compat / nDCG                rank-biased overlap with the ideal, per (group, grade) cell

The C/W/L kernels cache their (expected, best, worst) on the table they read; that cache is
emptied before each timing (a fresh evaluation starts without it).

Usage::

    python benchmarks/generate.py --out /tmp/bench7m
    python benchmarks/peer_measures_benchmark.py --data /tmp/bench7m
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

PAIRS = (("Judged@10", "unj@10"), ("F1@10", "P@10"), ("NCG@10", "DCG@10"),
         ("ERR@10", "nDCG@10"), ("nERR@10", "nDCG@10"), ("ERR@100", "nDCG@100"),
         ("INSQ(max_rel=4)", "DCG@1000"), ("BPM(max_rel=4)@10", "nDCG@10"),
         ("BPM(T=3, max_rel=4)@100", "nDCG@100"), ("INST(max_rel=4)", "DCG@1000"),
         ("Compat", "nDCG"), ("Compat(p=0.8)", "nDCG"))


def _forget(obj: object, seen: set) -> None:
    """Empty the C/W/L caches of every table reachable from ``obj`` (views, resolutions)."""
    from tiedrank.core.ties import TieTable

    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, TieTable):
        obj.__dict__.pop("_cwl_summaries", None)
        for value in list(obj.__dict__.values()):
            _forget(value, seen)
    elif isinstance(obj, dict):
        for value in obj.values():
            _forget(value, seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / "data")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from tiedrank import EvaluationOptions, read_qrels, read_run
    from tiedrank.evaluation import build_tables, score_tables

    start = time.perf_counter()
    run = read_run(args.data / "run.txt", name="r")
    qrels = read_qrels(args.data / "qrels.txt")
    options = EvaluationOptions(ties="all")
    tables = build_tables({"r": run}, qrels, options)
    print(f"read and built in {time.perf_counter() - start:.1f} s ({len(run.frame):,} rows)")
    score_tables(tables, ["nDCG@10"], options)  # resolve every policy's table, cache

    def timed(metric: str) -> str:
        """The least wall and CPU seconds of ``repeat`` scorings (CPU: this process's, the
        steadier figure on a shared machine)."""
        wall = cpu = float("inf")
        for _ in range(args.repeat):
            _forget(tables, set())
            start, start_cpu = time.perf_counter(), time.process_time()
            try:
                score_tables(tables, [metric], options)
            except ValueError as error:  # INST past its bound: said, not timed
                return f"refused: {str(error)[:120]}"
            wall = min(wall, time.perf_counter() - start)
            cpu = min(cpu, time.process_time() - start_cpu)
        return f"{wall:6.2f} {cpu:6.2f}"

    print(f"{'measure':<24} {'wall':>6} {'cpu':>6}   {'same shape':<10} {'wall':>6} {'cpu':>6}")
    for new, old in PAIRS:
        print(f"{new:<24} {timed(new)}   {old:<10} {timed(old)}")


if __name__ == "__main__":
    main()
