"""Benchmark tiedrank against pytrec_eval, ranx and TRM on the same TREC files.

Every tool runs in its own fresh Python subprocess, on the same run/qrels files, in the
same invocation of this script. For each tool we record

* ``wall s``      - wall-clock time of the whole child process (interpreter start,
                    imports, reading both files, evaluating, averaging);
* ``read s``      - time spent reading/parsing the two files into the tool's input
                    structures (measured inside the child);
* ``eval s``      - time spent evaluating (measured inside the child);
* ``peak RSS MB`` - peak resident memory of the child process image (``VmHWM`` from
                    ``/proc/self/status``; ``ru_maxrss`` via ``os.wait4`` as a
                    fallback), i.e. including the interpreter and imported libraries.

ranx compiles its numba kernels on first use and caches them on disk; unless
``--no-warmup`` is given, an untimed ranx child on a 50-query subsample runs first so
that the timed run measures the cached (steady-state) case, and the cold time is
reported in a note.

Metrics (the common denominator of the four tools):

=============  =================  ===============  ==========================
tiedrank       pytrec_eval        ranx             TRM (tie-aware-retrieval-metrics)
=============  =================  ===============  ==========================
RR             recip_rank         mrr              mrr   @ k = depth
P@10           P_10               precision@10     precision @ 10
R@100          recall_100         recall@100       recall @ 100
AP             map                map              map   @ k = depth
nDCG@10        ndcg_cut_10        ndcg@10          ndcg  @ 10 (binary gains only)
TsRR           -                  -                -
=============  =================  ===============  ==========================

tiedrank evaluates every metric under four tie policies (expected, optimistic,
pessimistic, trec_eval); TRM returns expected, maximum, minimum and tie-oblivious values
in one pass; pytrec_eval and ranx compute one tie-breaking each.

Usage::

    python benchmarks/run_benchmark.py --quick            # 700 queries, smoke run
    python benchmarks/run_benchmark.py                    # 6,980 queries x 1,000 docs
    python benchmarks/run_benchmark.py --tools ranx,trm   # a subset

Results are printed as a Markdown table and appended to ``benchmarks/RESULTS.md``.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SAMPLE = ROOT / "sample_data" / "llmjudge"

TOOLS = ("tiedrank", "pytrec_eval", "ranx", "trm", "tiedrank-llmjudge", "tiedrank-all_trec",
         "pytrec_eval-all_trec")
ALL_TREC_TIES = ["expected", "best", "worst", "trec_eval"]
"""``tiedrank-all_trec``: every measure of trec_eval's ``all_trec`` tiedrank has, under the
exact expectation, best, worst and trec_eval's order; against ``pytrec_eval-all_trec``,
pytrec_eval's ``all_trec`` (trec_eval's order only) — issue 21's goal is <= 0.5x its time."""
TIEDRANK_METRICS = ["RR", "P@10", "R@100", "AP", "nDCG@10", "TsRR"]
TIEDRANK_TIES = ["expected", "best", "worst", "trec_eval"]
PYTREC_MEASURES = {"recip_rank", "P_10", "recall_100", "map", "ndcg_cut_10"}
RANX_METRICS = ["mrr", "precision@10", "recall@100", "map", "ndcg@10"]
# TRM metric key -> cutoff (None = the run depth, i.e. no cutoff)
TRM_METRICS = {"mrr": None, "precision": 10, "recall": 100, "map": None, "ndcg": 10}

DISTRIBUTIONS = {
    "tiedrank": "tiedrank",
    "pytrec_eval": "pytrec-eval-terrier",
    "ranx": "ranx",
    "numba": "numba",
    "trm": "tie-aware-retrieval-metrics",
    "numpy": "numpy",
    "pandas": "pandas",
    "pyarrow": "pyarrow",
}


# =====================================================================================
# children: one function per tool, each returns (read_seconds, eval_seconds, summary)
# =====================================================================================

def _import_tiedrank():
    """tiedrank from the installed package, else from this checkout."""
    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))


def _child_tiedrank(run_path: str, qrels_path: str, **_):
    _import_tiedrank()
    try:
        from tiedrank import evaluate, read_qrels, read_run
    except ImportError as exc:  # the library is being written in parallel
        raise _NotAvailable(f"tiedrank API not importable: {exc}") from exc
    t0 = time.perf_counter()
    run = read_run(run_path)
    qrels = read_qrels(qrels_path)
    t1 = time.perf_counter()
    ev = evaluate(run, qrels, TIEDRANK_METRICS, ties=TIEDRANK_TIES)
    summary = ev.summary
    t2 = time.perf_counter()
    out = {}
    for row in summary.itertuples(index=False):
        out[f"{row.metric}|{row.policy}"] = float(row.value)
    return t1 - t0, t2 - t1, out


def _child_tiedrank_llmjudge(run_path: str, qrels_path: str, **_):
    """All eight LLMJudge runs at relevance level 2 (reference point on real data)."""
    _import_tiedrank()
    try:
        from tiedrank import evaluate, read_qrels, read_run
    except ImportError as exc:
        raise _NotAvailable(f"tiedrank API not importable: {exc}") from exc
    paths = sorted((SAMPLE / "runs").glob("*.txt"))
    t0 = time.perf_counter()
    runs = []
    for p in paths:
        try:
            runs.append(read_run(p))
        except Exception:  # qrels-like 4-column file: say so explicitly
            runs.append(read_run(p, format="trec_qrels"))
    qrels = read_qrels(SAMPLE / "qrels.test.txt")
    t1 = time.perf_counter()
    ev = evaluate(runs, qrels, TIEDRANK_METRICS, ties=TIEDRANK_TIES, rel_level=2)
    summary = ev.summary
    t2 = time.perf_counter()
    out = {"runs": len(paths), "rows": int(len(summary))}
    return t1 - t0, t2 - t1, out


def _child_pytrec_eval(run_path: str, qrels_path: str, **_):
    import pytrec_eval

    t0 = time.perf_counter()
    with open(qrels_path) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    t1 = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, PYTREC_MEASURES)
    per_query = evaluator.evaluate(run)
    # mean over the qrels' queries (a query without results scores 0, like trec_eval -c)
    out = {m: sum(per_query.get(q, {}).get(m, 0.0) for q in qrel) / len(qrel)
           for m in sorted(PYTREC_MEASURES)}
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, out


def _child_ranx(run_path: str, qrels_path: str, **_):
    from ranx import Qrels, Run, evaluate

    t0 = time.perf_counter()
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    t1 = time.perf_counter()
    out = evaluate(qrels, run, RANX_METRICS)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, {k: float(v) for k, v in out.items()}


def _child_trm(run_path: str, qrels_path: str, **_):
    """TRM takes per-query Python lists (scores, binary labels); it has no file reader.

    Reading: pandas' C parser, then per-query lists. TRM counts the relevant documents
    of a query from the candidate list only, so each query's unretrieved relevant
    documents are appended with score -inf (rank > depth: outside every cutoff), which
    gives R@k / AP / nDCG the qrels' denominator, as in trec_eval.
    Relevance: grade >= 1 (binary; TRM has no graded gains).
    """
    import numpy as np
    import pandas as pd
    import trm

    t0 = time.perf_counter()
    run = pd.read_csv(run_path, sep=r"\s+", header=None, usecols=[0, 2, 4],
                      names=["q", "d", "s"], dtype={"q": str, "d": str, "s": np.float64},
                      engine="c")
    qrels = pd.read_csv(qrels_path, sep=r"\s+", header=None, usecols=[0, 2, 3],
                        names=["q", "d", "g"], dtype={"q": str, "d": str, "g": np.int64},
                        engine="c")
    rel = qrels.loc[qrels["g"] >= 1, ["q", "d"]].drop_duplicates()
    run = run.merge(rel.assign(r=True), on=["q", "d"], how="left", sort=False)
    run["r"] = run["r"].fillna(False).astype(bool)
    found = rel.merge(run[["q", "d"]], on=["q", "d"], how="left", indicator=True)
    missing = found.loc[found["_merge"] == "left_only", "q"].value_counts().to_dict()
    queries = list(dict.fromkeys(qrels["q"]))  # qrels queries, in file order
    by_q = {q: (g["s"].tolist(), g["r"].tolist()) for q, g in run.groupby("q", sort=False)}
    scores, labels = [], []
    for q in queries:
        s, r = by_q.get(q, ([], []))
        m = missing.get(q, 0)
        scores.append(s + [float("-inf")] * m)
        labels.append(r + [True] * m)
    depth = int(run.groupby("q", sort=False).size().max())
    t1 = time.perf_counter()
    out = {}
    for metric, k in TRM_METRICS.items():
        k = depth if k is None else k
        res = trm.evaluate(scores, labels, metrics=[metric], k_list=[k]).metrics[metric][k]
        for field in ("expected", "maximum", "minimum", "oblivious"):
            out[f"{metric}@{k}|{field}"] = getattr(res, field)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, out


def _child_tiedrank_all_trec(run_path: str, qrels_path: str, **_):
    _import_tiedrank()
    import warnings

    from tiedrank import evaluate, read_qrels, read_run
    from tiedrank.interop.trec_eval import expand_metrics
    t0 = time.perf_counter()
    run = read_run(run_path)
    qrels = read_qrels(qrels_path)
    t1 = time.perf_counter()
    with warnings.catch_warnings():  # the measures not yet tie-aware are named in the output
        warnings.simplefilter("ignore")
        ev = evaluate(run, qrels, "all_trec", ties=ALL_TREC_TIES)
    summary = ev.summary
    t2 = time.perf_counter()
    request = expand_metrics("all_trec")
    out = {"metrics": len(request.metrics), "policies": len(ALL_TREC_TIES),
           "not_yet": ",".join(request.not_yet) or "none"}
    for row in summary.itertuples(index=False):
        if row.metric in ("AP", "nDCG", "bpref"):
            out[f"{row.metric}|{row.policy}"] = round(float(row.value), 4)
    return t1 - t0, t2 - t1, out


def _child_pytrec_eval_all_trec(run_path: str, qrels_path: str, **_):
    import pytrec_eval

    t0 = time.perf_counter()
    with open(qrels_path) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    t1 = time.perf_counter()
    per_query = pytrec_eval.RelevanceEvaluator(qrel, {"all_trec"}).evaluate(run)
    names = next(iter(per_query.values())).keys()
    out = {"measures": len(names)}
    for m in ("map", "ndcg", "bpref"):
        out[m] = round(sum(v[m] for v in per_query.values()) / len(per_query), 4)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, out


class _NotAvailable(Exception):
    pass


CHILDREN = {
    "tiedrank": _child_tiedrank,
    "tiedrank-llmjudge": _child_tiedrank_llmjudge,
    "pytrec_eval": _child_pytrec_eval,
    "ranx": _child_ranx,
    "trm": _child_trm,
    "tiedrank-all_trec": _child_tiedrank_all_trec,
    "pytrec_eval-all_trec": _child_pytrec_eval_all_trec,
}


def _vmhwm_kb() -> int | None:
    """Peak RSS of this process image (VmHWM). Unlike ru_maxrss it does not inherit
    the parent's RSS at fork/exec time."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def child_main(tool: str, run_path: str, qrels_path: str) -> None:
    t_start = time.perf_counter()
    try:
        t_read, t_eval, summary = CHILDREN[tool](run_path, qrels_path)
        res = {"status": "ok", "read_s": t_read, "eval_s": t_eval,
               "child_total_s": time.perf_counter() - t_start,
               "vmhwm_kb": _vmhwm_kb(), "summary": summary}
    except _NotAvailable as exc:
        res = {"status": "not available", "error": str(exc)}
    except Exception as exc:  # report, do not crash the whole benchmark
        res = {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
    sys.stdout.write("\n@@RESULT@@" + json.dumps(res) + "\n")
    sys.stdout.flush()


# =====================================================================================
# parent
# =====================================================================================

def run_child(tool: str, run_path: Path, qrels_path: Path, timeout: float,
              env: dict | None = None) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", tool,
           "--run", str(run_path), "--qrels", str(qrels_path)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=None if env is None else {**os.environ, **env})
    timed_out = threading.Event()

    def _kill():
        timed_out.set()
        proc.kill()

    timer = threading.Timer(timeout, _kill)
    timer.start()
    # drain the pipes in threads so that os.wait4 cannot deadlock on a full pipe
    chunks: dict[str, list[str]] = {"out": [], "err": []}
    readers = [threading.Thread(target=lambda s=s, k=k: chunks[k].append(s.read()))
               for s, k in ((proc.stdout, "out"), (proc.stderr, "err"))]
    for r in readers:
        r.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    timer.cancel()
    for r in readers:
        r.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    stdout, stderr = "".join(chunks["out"]), "".join(chunks["err"])
    res: dict = {"tool": tool, "wall_s": wall, "peak_rss_mb": usage.ru_maxrss / 1024.0,
                 "returncode": proc.returncode}
    if timed_out.is_set():
        res.update(status=f"timeout after {timeout:.0f} s")
        return res
    marker = stdout.rfind("@@RESULT@@")
    if marker < 0:
        res.update(status="crashed", error=stderr.strip().splitlines()[-1:] or ["?"])
        return res
    res.update(json.loads(stdout[marker + len("@@RESULT@@"):].strip().splitlines()[0]))
    if res.get("vmhwm_kb"):
        # ru_maxrss (wait4) also counts the parent's RSS inherited at fork/exec;
        # VmHWM of the child's own image is exact
        res["peak_rss_mb"] = res["vmhwm_kb"] / 1024.0
    return res


def subsample(run_path: Path, qrels_path: Path, n_queries: int, out_dir: Path) -> tuple[Path, Path]:
    """First ``n_queries`` queries of the run (file order) and their qrels."""
    out_dir.mkdir(parents=True, exist_ok=True)
    run_out, qrels_out = out_dir / "run.txt", out_dir / "qrels.txt"
    keep: set[str] = set()
    with open(run_path) as src, open(run_out, "w") as dst:
        for line in src:
            q = line.split(" ", 1)[0]
            if q not in keep:
                if len(keep) == n_queries:
                    break
                keep.add(q)
            dst.write(line)
    with open(qrels_path) as src, open(qrels_out, "w") as dst:
        for line in src:
            if line.split(None, 1)[0] in keep:
                dst.write(line)
    return run_out, qrels_out


def count_queries(path: Path) -> int:
    with open(path) as f:
        return len({line.split(None, 1)[0] for line in f if line.strip()})


def ensure_data(quick: bool, data_dir: Path | None) -> tuple[Path, Path]:
    if data_dir is None:
        data_dir = HERE / "data" / ("quick" if quick else "")
    run_path, qrels_path = data_dir / "run.txt", data_dir / "qrels.txt"
    if not run_path.exists() or not qrels_path.exists():
        # in a subprocess: keeps this parent process small (see peak_rss_kb)
        cmd = [sys.executable, str(HERE / "generate.py"), "--out", str(data_dir)]
        cmd += ["--queries", "700"] if quick else []
        print(f"generating benchmark data: {' '.join(cmd[1:])}", file=sys.stderr)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return run_path, qrels_path


def versions() -> dict[str, str]:
    from importlib import metadata
    out = {"python": platform.python_version()}
    for key, dist in DISTRIBUTIONS.items():
        try:
            out[key] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[key] = "not installed" if key != "tiedrank" else "checkout (not installed)"
    return out


def machine() -> dict[str, str]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                ram = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    return {"nproc": str(os.cpu_count()), "affinity": str(len(os.sched_getaffinity(0))),
            "cpu": cpu, "ram": ram, "os": platform.platform()}


def _fmt(x, nd=1):
    return "—" if x is None else f"{x:,.{nd}f}"


def _headline(tool: str, summary: dict) -> str:
    """A few values, for a cross-check between tools."""
    if not summary:
        return ""
    tool = tool.split()[0]
    if tool == "tiedrank":
        keys = [("RR|expected", "E[RR]"), ("RR|trec_eval", "RR(trec)"),
                ("nDCG@10|expected", "E[nDCG@10]"), ("AP|expected", "E[AP]")]
    elif tool == "pytrec_eval":
        keys = [("recip_rank", "RR"), ("ndcg_cut_10", "nDCG@10"), ("map", "AP")]
    elif tool == "ranx":
        keys = [("mrr", "RR"), ("ndcg@10", "nDCG@10"), ("map", "AP")]
    elif tool.startswith("trm"):
        mrr = next((k.split("|")[0] for k in summary if k.startswith("mrr@")), "mrr")
        ap = next((k.split("|")[0] for k in summary if k.startswith("map@")), "map")
        keys = [(f"{mrr}|expected", "E[RR]"), (f"{mrr}|oblivious", "RR(input)"),
                ("ndcg@10|expected", "E[nDCG@10] bin"), (f"{ap}|expected", "E[AP]")]
    else:
        return ", ".join(f"{k}={v}" for k, v in summary.items())
    return ", ".join(f"{label}={summary[k]:.4f}" for k, label in keys if k in summary)


def markdown_table(rows: list[dict]) -> str:
    head = ("| tool | input | status | wall s | read s | eval s | peak RSS MB | values (cross-check) |\n"
            "|---|---|---|---:|---:|---:|---:|---|")
    lines = [head]
    for r in rows:
        ok = r.get("status") == "ok"
        lines.append("| {tool} | {inp} | {status} | {wall} | {read} | {ev} | {rss} | {vals} |".format(
            tool=r["tool"], inp=r.get("input", ""), status=r.get("status", "?"),
            wall=_fmt(r.get("wall_s") if ok or "timeout" in r.get("status", "") else None),
            read=_fmt(r.get("read_s"), 2), ev=_fmt(r.get("eval_s"), 2),
            rss=_fmt(r.get("peak_rss_mb") if ok else None, 0),
            vals=_headline(r["tool"], r.get("summary", {})) if ok else r.get("error", "")))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="tiedrank vs pytrec_eval vs ranx vs TRM")
    ap.add_argument("--quick", action="store_true", help="700-query data set (smoke run)")
    ap.add_argument("--tools", default=",".join(TOOLS[:5]),
                    help=f"comma-separated subset of {','.join(TOOLS)}")
    ap.add_argument("--data-dir", type=Path, default=None,
                    help="directory with run.txt and qrels.txt (default: benchmarks/data[/quick])")
    ap.add_argument("--timeout", type=float, default=1200.0,
                    help="per-tool time limit in seconds (default 1200)")
    ap.add_argument("--trm-queries", type=int, default=None,
                    help="run TRM on the first N queries only and extrapolate its time "
                         "linearly to the full query count (default: full data; on timeout "
                         "the script retries on 700 queries and extrapolates)")
    ap.add_argument("--no-warmup", action="store_true",
                    help="do not run the untimed ranx warm-up (numba JIT cache) first")
    ap.add_argument("--ranx-cold", action="store_true",
                    help="also time ranx with an empty numba cache (NUMBA_CACHE_DIR = new "
                         "temp dir): the first-run cost including JIT compilation")
    ap.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true", help="do not append to RESULTS.md")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--run", help=argparse.SUPPRESS)
    ap.add_argument("--qrels", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        child_main(args.child, args.run, args.qrels)
        return 0

    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = set(tools) - set(TOOLS)
    if unknown:
        ap.error(f"unknown tool(s): {', '.join(sorted(unknown))}")

    run_path, qrels_path = ensure_data(args.quick, args.data_dir)
    n_queries = count_queries(qrels_path)
    n_lines = sum(1 for _ in open(run_path, "rb"))
    label = f"{n_queries:,} q x {n_lines // max(n_queries, 1):,} = {n_lines / 1e6:.2f}M lines"
    print(f"data: {run_path} ({label})", file=sys.stderr)

    rows: list[dict] = []
    notes: list[str] = []
    if "ranx" in tools and not args.no_warmup:
        wr, wq = subsample(run_path, qrels_path, 50, run_path.parent / "sub50")
        print("-- ranx warm-up (untimed, 50 queries) ...", file=sys.stderr, flush=True)
        w = run_child("ranx", wr, wq, args.timeout)
        notes.append(f"- ranx warm-up before timing (50 queries, fills the numba cache): "
                     f"{w.get('status')}, {_fmt(w.get('wall_s'))} s wall. Timed ranx row = "
                     f"warm cache.")
    for tool in tools:
        if tool == "tiedrank-llmjudge":
            inp = "llmjudge sample (8 runs x 4,423)"
            print(f"-- {tool} ...", file=sys.stderr, flush=True)
            r = run_child(tool, SAMPLE / "runs", SAMPLE / "qrels.test.txt", args.timeout)
            r["input"] = inp
            rows.append(r)
            print(f"   {r.get('status')} wall={_fmt(r.get('wall_s'))}s", file=sys.stderr)
            continue
        rp, qp, inp = run_path, qrels_path, label
        factor = None
        if tool == "trm" and args.trm_queries and args.trm_queries < n_queries:
            rp, qp = subsample(run_path, qrels_path, args.trm_queries,
                               run_path.parent / f"sub{args.trm_queries}")
            factor = n_queries / args.trm_queries
            inp = f"first {args.trm_queries:,} queries (extrapolated x{factor:.2f})"
        print(f"-- {tool} ...", file=sys.stderr, flush=True)
        r = run_child(tool, rp, qp, args.timeout)
        if (tool == "trm" and r.get("status", "").startswith("timeout") and factor is None
                and n_queries > 700):
            rows.append(dict(r, input=label))
            n_sub = min(700, n_queries)
            print(f"   TRM timed out; retrying on the first {n_sub} queries", file=sys.stderr)
            rp, qp = subsample(run_path, qrels_path, n_sub, run_path.parent / f"sub{n_sub}")
            factor = n_queries / n_sub
            inp = f"first {n_sub:,} queries (extrapolated x{factor:.2f})"
            r = run_child(tool, rp, qp, args.timeout)
        r["input"] = inp
        if factor is not None and r.get("status") == "ok":
            r["measured"] = {k: r[k] for k in ("wall_s", "read_s", "eval_s")}
            for k in ("wall_s", "read_s", "eval_s"):
                r[k] *= factor
            r["tool"] = "trm (extrapolated)"
        rows.append(r)
        print(f"   {r.get('status')} wall={_fmt(r.get('wall_s'))}s "
              f"rss={_fmt(r.get('peak_rss_mb'), 0)}MB", file=sys.stderr)
        if tool == "ranx" and args.ranx_cold:
            import tempfile
            with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
                print("-- ranx (cold numba cache) ...", file=sys.stderr, flush=True)
                c = run_child(tool, rp, qp, args.timeout, env={"NUMBA_CACHE_DIR": cache})
            c.update(tool="ranx (cold JIT)", input=inp)
            rows.append(c)

    table = markdown_table(rows)
    print(table)

    if not args.no_write:
        v, m = versions(), machine()
        cmd = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__, ROOT)]
                                   + (argv if argv is not None else sys.argv[1:]))
        for r in rows:
            if "measured" in r:
                mm = r["measured"]
                notes.append(f"- TRM was run on a subsample ({r['input']}); measured "
                             f"wall {mm['wall_s']:.1f} s, read {mm['read_s']:.2f} s, eval "
                             f"{mm['eval_s']:.2f} s; the times in the table are scaled "
                             f"linearly, its peak RSS is the subsample's (not scaled).")
        block = [
            f"## {_dt.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')} — "
            f"{'quick' if args.quick else 'full'} ({label})",
            "",
            f"- Machine: {m['cpu']}, nproc {m['nproc']} (affinity {m['affinity']}), "
            f"RAM {m['ram']}, {m['os']}",
            "- Versions: " + ", ".join(f"{k} {val}" for k, val in v.items()),
            f"- Data: `{os.path.relpath(run_path, ROOT)}`, `{os.path.relpath(qrels_path, ROOT)}`"
            + (" (`python benchmarks/generate.py" + (" --queries 700 --out benchmarks/data/quick"
                                                      if args.quick else "") + "`)"
               if args.data_dir is None else ""),
            f"- Command: `{cmd}`",
            "- Each tool in a fresh subprocess; wall = whole process (start-up, imports, "
            "read, evaluate); peak RSS = that process's VmHWM (/proc/self/status; "
            "ru_maxrss from wait4 if unavailable).",
            *notes,
            "",
            table,
            "",
        ]
        header = "" if args.results.exists() else RESULTS_HEADER
        with open(args.results, "a") as f:
            f.write(header + "\n".join(block) + "\n")
        print(f"appended to {args.results}", file=sys.stderr)
    return 0


RESULTS_HEADER = """# Benchmark results

Produced by `benchmarks/run_benchmark.py` (see its docstring for what is measured and
which metric of each tool corresponds to which tiedrank metric). Newest runs at the end.

Work done per tool:
- **tiedrank**: RR, P@10, R@100, AP, nDCG@10 and TsRR, each under four tie policies
  (expected, optimistic, pessimistic, trec_eval) = 24 values per query.
- **pytrec_eval**: recip_rank, P_10, recall_100, map, ndcg_cut_10 (trec_eval's tie order).
- **ranx**: mrr, precision@10, recall@100, map, ndcg@10 (one tie order; numba JIT, cached
  on disk after the first run).
- **TRM** (`tie-aware-retrieval-metrics`): mrr, precision@10, recall@100, map, ndcg@10
  (binary relevance), each with expected / maximum / minimum / tie-oblivious values.
  TRM has no file reader: files are parsed with pandas and turned into its per-query
  lists (counted as read time).

"""


if __name__ == "__main__":
    sys.exit(main())
