"""Time the exact expectation of iprec_at_recall and 11pt_avg (tiedrank/metrics/interpolated.py).

Each case runs in a fresh Python subprocess: it builds the inputs, then times
``tiedrank.evaluate(run, qrels, ["iprec_at_recall", "11pt_avg"], ties=...)`` (the 11 levels
and their mean, one pass) and reports wall and CPU seconds of that call, the peak resident
memory of the child (VmHWM) and the mean iprec at recall 0 and 11pt_avg (to compare runs).

Cases:

* ``group N M`` - one query whose N retrieved documents all tie, M of them relevant (the
  hard case: a ranking that is one tie group; the cost grows as (M (N - M))^2);
* ``llmjudge RUN LEVEL`` - a run of the LLMJudge sample (sample_data/llmjudge), relevance
  level 1 or 2, expected policy; beside it the same run's AP + nDCG@10 (every policy) for
  scale;
* ``free`` - trec_eval's own sample (sample_data/trec_eval), a run with a few ties.

Usage::

    python benchmarks/interpolated_benchmark.py                  # every case
    python benchmarks/interpolated_benchmark.py --only group     # the tie groups only
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LLMJUDGE = ROOT / "sample_data" / "llmjudge"
GROUPS = ((200, 20), (400, 40), (1000, 100), (1000, 30), (300, 200))


def _peak_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def child(case: list[str]) -> dict:
    """One case, in this process (the parent runs it in a fresh one)."""
    sys.path.insert(0, str(ROOT))
    import pandas as pd

    import tiedrank
    from tiedrank.core.data import Qrels, Run

    metrics = ["iprec_at_recall", "11pt_avg"]
    extra = {}
    if case[0] == "group":
        n, m = int(case[1]), int(case[2])
        run = Run("r", pd.DataFrame({"query": "q", "doc": [f"d{i}" for i in range(n)],
                                     "score": 1.0}))
        qrels = Qrels(pd.DataFrame({"query": "q", "doc": [f"d{i}" for i in range(m)],
                                    "relevance": 1}))
        ties, options = "expected", {}
    elif case[0] == "llmjudge":
        run = tiedrank.read_run(LLMJUDGE / "runs" / case[1])
        qrels = tiedrank.read_qrels(LLMJUDGE / "qrels.test.txt")
        ties, options = "expected", {"rel_level": int(case[2])}
        start = time.perf_counter()
        tiedrank.evaluate(run, qrels, ["AP", "nDCG@10"], ties="all", **options)
        extra["AP+nDCG@10, every policy, s"] = round(time.perf_counter() - start, 3)
    else:
        base = ROOT / "sample_data" / "trec_eval"
        run, qrels = tiedrank.read_run(base / "results.test"), tiedrank.read_qrels(
            base / "qrels.test")
        ties, options = "all", {}
    wall, cpu = time.perf_counter(), time.process_time()
    ev = tiedrank.evaluate(run, qrels, metrics, ties=ties, **options)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    summary = ev.summary[ev.summary["policy"] == ev.summary["policy"].iloc[0]]
    values = summary.set_index(summary["metric"].astype(str))["value"]
    return {"case": " ".join(case), "wall s": round(wall, 3), "cpu s": round(cpu, 3),
            "peak MB": round(_peak_mb()), "iprec(0)": round(float(values.iloc[0]), 4),
            "11pt_avg": round(float(values["11pt_avg"]), 4), **extra}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("group", "llmjudge", "free"))
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return
    cases = [["group", str(n), str(m)] for n, m in GROUPS]
    cases += [["llmjudge", run.name, level] for run in sorted((LLMJUDGE / "runs").glob("*.txt"))
              for level in ("1", "2")]
    cases += [["free"]]
    if args.only:
        cases = [c for c in cases if c[0] == args.only]
    print(f"# {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    rows = []
    for case in cases:
        done = subprocess.run([sys.executable, __file__, "--child", *case], capture_output=True,
                              text=True, check=True)
        rows.append(json.loads(done.stdout))
        print(json.dumps(rows[-1]), flush=True)
    columns = list(dict.fromkeys(key for row in rows for key in row))
    print("\n| " + " | ".join(columns) + " |\n|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row.get(c, "")) for c in columns) + " |")
    print(f"\n# load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
