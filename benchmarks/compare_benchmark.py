"""Benchmark ``tiedrank compare`` against ``tiedrank evaluate --ties all`` (issue 11 targets).

Targets: ``compare`` with default draws and resamples on two 1M-row runs (10,000 queries x
100 documents, one-decimal scores, graded qrels) takes at most 3x the time of
``evaluate --ties all`` on the same pair, for each of RR, AP, P@10 and nDCG@10; peak RSS at
most 1.5 GB for each, and for ``compare -m AP`` on 50,000 queries x 20 documents.

The runs and qrels are written once to TREC files in a temporary directory (the baseline:
``synthetic_inputs`` of ``benchmarks/sampling_benchmark.py``; the second run: the same
documents with the scores moved by N(0, 0.1) noise, rounded to one decimal again). Each
command then runs in a fresh subprocess (``python -m tiedrank ...``); its wall time is
measured by the parent and its peak RSS is ``ru_maxrss`` of the child from ``os.wait4``.

Usage::

    python benchmarks/compare_benchmark.py                 # full; appends to RESULTS.md
    python benchmarks/compare_benchmark.py --queries 1000 --big-queries 5000 --no-append
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

METRICS = ("RR", "AP", "P@10", "nDCG@10")
TIME_RATIO, RSS_LIMIT_MB = 3.0, 1536.0


def write_pair(directory: Path, n_queries: int, depth: int, relevant_share: float = 0.1,
               seed: int = 7) -> tuple[Path, Path, Path]:
    """Write qrels and two runs (TREC formats) of ``n_queries`` x ``depth`` rows."""
    import numpy as np
    from sampling_benchmark import synthetic_inputs

    run, qrels = synthetic_inputs(n_queries, depth, relevant_share, seed)
    frame = run.frame
    rng = np.random.default_rng(seed + 1)
    other = frame.assign(score=np.clip(np.round(frame["score"].to_numpy()
                                                + rng.normal(0, 0.1, len(frame)), 1), 0, 1))
    paths = directory / "qrels.txt", directory / "base.txt", directory / "other.txt"
    q = qrels.frame
    with open(paths[0], "w") as out:
        out.writelines(f"{query} 0 {doc} {rel}\n" for query, doc, rel in zip(q["query"], q["doc"], q["relevance"]))
    for path, name, data in ((paths[1], "base", frame), (paths[2], "other", other)):
        ranks = data.groupby("query", sort=False).cumcount() + 1
        with open(path, "w") as out:
            out.writelines(f"{query} Q0 {doc} {rank} {score:.1f} {name}\n" for query, doc, rank, score in zip(data["query"], data["doc"], ranks, data["score"]))
    return paths


def measure(args: list[str], timeout: float) -> dict:
    """Wall time (s), peak RSS (MB) and exit status of ``python -m tiedrank ARGS``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "tiedrank", *args], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            child.kill()
            os.wait4(child.pid, 0)
            return {"seconds": float("nan"), "rss_mb": float("nan"), "status": "timeout"}
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    error = child.stderr.read().decode(errors="replace").strip().splitlines()
    code = os.waitstatus_to_exitcode(status)
    return {"seconds": seconds, "rss_mb": usage.ru_maxrss / 1024,
            "status": "ok" if code == 0 else f"exit {code}: {(error or ['?'])[-1][:80]}"}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--big-queries", type=int, default=50_000)
    parser.add_argument("--big-depth", type=int, default=20)
    parser.add_argument("--metrics", nargs="+", default=list(METRICS))
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--no-append", action="store_true", help="do not append to RESULTS.md")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        qrels, base, other = write_pair(Path(tmp), args.queries, args.depth)
        files = [str(qrels), str(base), str(other)]
        for metric in args.metrics:
            ev = measure(["evaluate", *files, "-m", metric, "--ties", "all"], args.timeout)
            cmp = measure(["compare", *files, "-m", metric], args.timeout)
            rows.append((f"{args.queries:,} x {args.depth}", metric, ev, cmp))
            print(rows[-1], flush=True)
        big = Path(tmp) / "big"
        big.mkdir()
        qrels, base, other = write_pair(big, args.big_queries, args.big_depth)
        files = [str(qrels), str(base), str(other)]
        ev = measure(["evaluate", *files, "-m", "AP", "--ties", "all"], args.timeout)
        cmp = measure(["compare", *files, "-m", "AP"], args.timeout)
        rows.append((f"{args.big_queries:,} x {args.big_depth}", "AP", ev, cmp))
        print(rows[-1], flush=True)
    section = _section(rows, args)
    print(section)
    if not args.no_append:
        with open(HERE / "RESULTS.md", "a") as out:
            out.write("\n\n" + section)


def _section(rows, args) -> str:
    load = os.getloadavg()
    lines = [f"## {datetime.now(UTC):%Y-%m-%d %H:%M} UTC — compare vs evaluate --ties all",
             "",
             ("- Command: `python benchmarks/compare_benchmark.py` (each command a fresh "
              "subprocess; peak RSS = ru_maxrss from wait4)"),
             (f"- Machine: {platform.machine()}, Python {platform.python_version()}, "
              f"{os.cpu_count()} cores, shared; load average at the end "
              f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min)"),
             "- Targets: compare <= 3x evaluate; peak RSS <= 1,536 MB", "",
             ("| runs (queries x docs) | metric | evaluate s | compare s | ratio | "
              "evaluate RSS MB | compare RSS MB | status | meets targets |"),
             "|---|---|---:|---:|---:|---:|---:|---|---|"]
    for size, metric, ev, cmp in rows:
        ratio = cmp["seconds"] / ev["seconds"]
        ok = cmp["status"] == "ok" and cmp["rss_mb"] <= RSS_LIMIT_MB and (
            ratio <= TIME_RATIO or size.startswith(f"{args.big_queries:,}"))
        lines.append(f"| {size} | {metric} | {ev['seconds']:.1f} | {cmp['seconds']:.1f} | "
                     f"{ratio:.2f} | {ev['rss_mb']:.0f} | {cmp['rss_mb']:.0f} | "
                     f"{cmp['status']} | {'yes' if ok else 'NO'} |")
    lines.append("")
    lines.append("(The 50,000-query row has an RSS target only; its time ratio is informative.)")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
