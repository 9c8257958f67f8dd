"""The work and memory budgets of issue 43 (class 1), measured: each case in a fresh child
process under an address-space limit and a timeout, its CPU seconds and peak resident
memory reported (``resource.getrusage`` of the child).

Cases:

* ``rbo_20000_tied``: rank-biased overlap of one query of 20,000 documents, one run all
  tied, the other a strict order of the same documents (the per-item ramp took 32 n^2
  bytes: 12.8 GB at this size);
* ``cbor_chain``: ``read_run`` of a ranx ``.lz4`` file whose score is a chain of 40 CBOR
  shared references (before: > 300 s and climbing past 1.5 GB);
* ``alpha_ndcg_150x17`` / ``alpha_ndcg_150x17_expected``: ``alpha_nDCG@20`` on 150
  queries of 17 tied documents with distinct subtopic profiles, under ``ties="all"`` (the
  best and worst searches: refused by the work budget) and ``ties="expected"``;
* ``greedy_ideal_50000``: ``alpha_nDCG@20`` on one query with 50,000 relevant documents
  (74 s before: the greedy ideal ran every rank, not the 20 read).

    python benchmarks/hostile_budgets.py            # prints one JSON line per case
    python benchmarks/hostile_budgets.py --markdown # the table for benchmarks/RESULTS.md
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 4 << 30  # address space of a child
TIMEOUT = 300

SETUP = """
import time, resource
import numpy as np, pandas as pd
"""
CASES = {
    "rbo_20000_tied": """
from tiedrank.stats import rank_biased_overlap
n = 20_000
docs = [f"d{i}" for i in range(n)]
a = pd.DataFrame({"query": "q", "doc": docs, "score": 1.0})
b = pd.DataFrame({"query": "q", "doc": docs, "score": -np.arange(n, dtype=float)})
began = time.process_time()
result = rank_biased_overlap(a, b, p=0.9)
outcome = f"RBO^a min {result.per_query.set_index('variant').loc['a', 'min']:.6g}"
""",
    "cbor_chain": """
import cbor2, lz4.frame as frame
from tiedrank import read_run
value = [1.0]
for _ in range(40):
    value = [value, value]
raw = frame.compress(frame.compress(b"\\xa1\\x61q\\xa1\\x61d" + cbor2.dumps(value, value_sharing=True)))
began = time.process_time()
try:
    read_run(raw)
    outcome = "read"
except Exception as error:
    outcome = f"refused ({len(raw)} bytes): " + str(error)[:90]
""",
    "alpha_ndcg_150x17": """
from tiedrank import evaluate
rows = [(str(q), str(d + 1), f"d{d}", 1) for q in range(150) for d in range(17)]
rows += [(str(q), str((d + 1) % 17 + 1), f"d{d}", 1) for q in range(150) for d in range(17)]
qrels = "".join(f"{q} {s} {d} {g}\\n" for q, s, d, g in rows).encode()
run = pd.DataFrame({"query": np.repeat([str(q) for q in range(150)], 17),
                    "doc": [f"d{d}" for d in range(17)] * 150, "score": 1.0})
began = time.process_time()
try:
    ev = evaluate(run, qrels, ["alpha_nDCG@20"], ties=TIES)
    outcome = "scored: " + str(round(float(ev.summary["value"].iloc[0]), 4))
except Exception as error:
    outcome = "refused: " + str(error)[:90]
""",
    "greedy_ideal_50000": """
from tiedrank import evaluate
n = 50_000
qrels = "".join(f"0 {d % 7 + 1} d{d} 1\\n0 {d % 5 + 8} d{d} 1\\n" for d in range(n)).encode()
run = pd.DataFrame({"query": "0", "doc": [f"d{d}" for d in range(1000)],
                    "score": np.arange(1000.0, 0, -1)})
began = time.process_time()
ev = evaluate(run, qrels, ["alpha_nDCG@20"], ties="expected")
outcome = "scored: " + str(round(float(ev.summary["value"].iloc[0]), 4))
""",
}
VARIANTS = {"alpha_ndcg_150x17": ("alpha_nDCG@20", {"TIES": "'all'"}),
            "alpha_ndcg_150x17_expected": ("alpha_nDCG@20", {"TIES": "'expected'"})}
TAIL = """
seconds = time.process_time() - began
import json
print(json.dumps({"cpu_s": round(seconds, 3), "outcome": outcome,
                  "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def run_case(name: str) -> dict:
    body = CASES.get(name) or CASES[name.replace("_expected", "")]
    for key, value in VARIANTS.get(name, ("", {}))[1].items():
        body = body.replace(key, value)
    code = SETUP + textwrap.dedent(body) + TAIL
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, timeout=TIMEOUT, preexec_fn=_limit)
    except subprocess.TimeoutExpired:
        return {"case": name, "outcome": f"timeout after {TIMEOUT} s"}
    if done.returncode != 0:
        return {"case": name, "outcome": "failed: " + done.stderr.strip().splitlines()[-1][:120]}
    return {"case": name, **json.loads(done.stdout.strip().splitlines()[-1])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--only", nargs="*", default=None, help="cases to run")
    args = parser.parse_args(argv)
    names = args.only or ["rbo_20000_tied", "cbor_chain", "alpha_ndcg_150x17",
                          "alpha_ndcg_150x17_expected", "greedy_ideal_50000"]
    results = [run_case(name) for name in names]
    if args.markdown:
        print("| case | CPU s (work measured) | peak MiB (child) | outcome |")
        print("|---|---|---|---|")
        for r in results:
            print(f"| {r['case']} | {r.get('cpu_s', '')} | {r.get('peak_mib', '')} | "
                  f"{r['outcome'].replace('|', '/')} |")
    else:
        for r in results:
            print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
