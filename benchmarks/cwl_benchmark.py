"""Time C/W/L's INSQ, INST and BPM (issue 32) beside a measure of the same shape, on one
run's tie-group table.

The run and qrels are ``benchmarks/generate.py``'s (6.98M lines by default). The table is
built once (every tie policy's table is resolved and cached by a first, untimed scoring of
nDCG@10); then each metric is scored alone under every policy (``ties="all"``: expected,
optimistic, pessimistic, trec_eval, input) with
:func:`tiedrank.core.evaluation.score_tables`, ``repeat`` times, and the least wall and CPU
times are printed. The C/W/L kernels cache their (expected, best, worst) on the table they
read, so that cache is emptied before each timing (a fresh evaluation starts without it).

    INSQ(max_rel=4)      / DCG@1000   linear, fixed weights over 1000 places
    BPM(max_rel=4)@10    / nDCG@10    the stopping group's compositions
    BPM(T=3, max_rel=4)@100
    INST(max_rel=4)                   every query's distinct gain sequences (refused past
                                      65,536 for a query: the message is printed instead)

Usage::

    python benchmarks/generate.py --out /tmp/bench7m
    python benchmarks/cwl_benchmark.py --data /tmp/bench7m
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

MEASURES = ("INSQ(max_rel=4)", "DCG@1000", "BPM(max_rel=4)@10", "nDCG@10",
            "BPM(T=3, max_rel=4)@100", "INST(max_rel=4)")


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
    from tiedrank.core.evaluation import build_tables, score_tables

    start = time.perf_counter()
    run = read_run(args.data / "run.txt", name="r")
    qrels = read_qrels(args.data / "qrels.txt")
    options = EvaluationOptions(ties="all")
    tables = build_tables({"r": run}, qrels, options)
    print(f"read and built in {time.perf_counter() - start:.1f} s ({len(run.frame):,} rows)")
    score_tables(tables, ["nDCG@10"], options)  # resolve every policy's table, cache

    def timed(metric: str) -> str:
        """The least wall and CPU seconds of ``repeat`` scorings (CPU: this process's)."""
        wall = cpu = float("inf")
        for _ in range(args.repeat):
            _forget(tables, set())
            start, start_cpu = time.perf_counter(), time.process_time()
            try:
                score_tables(tables, [metric], options)
            except ValueError as error:
                return f"refused: {str(error)[:160]}"
            wall = min(wall, time.perf_counter() - start)
            cpu = min(cpu, time.process_time() - start_cpu)
        return f"{wall:6.2f} {cpu:6.2f}"

    print(f"{'measure':<24} {'wall':>6} {'cpu':>6}")
    for metric in MEASURES:
        print(f"{metric:<24} {timed(metric)}")


if __name__ == "__main__":
    main()
