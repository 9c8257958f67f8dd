"""Time every dashboard page on a 1M-row uploaded run, through Streamlit's AppTest.

Two runs of 1,000 queries x 1,000 documents with 20 discrete score levels (heavy ties) and
qrels with 1-5 relevant documents per query. For each page: the first run after switching
to it (derived results computed and cached) and a rerun with nothing changed (what a user
waits for after any widget interaction that does not change the data). Usage::

    python benchmarks/dashboard_timings.py          # prints a Markdown table
"""
from __future__ import annotations

import io
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "dashboard")]

from apptest_support import NavigationPagesManager, new_app, upload  # noqa: E402
from streamlit.runtime.scriptrunner import script_runner  # noqa: E402

PAGES = ["overview", "tie_structure", "spread", "tsrr", "learn", "compare", "agreement", "side_by_side",
         "simulator"]


def make_upload(n_queries: int = 1000, depth: int = 1000, seed: int = 0,
                score_seed: int = 0) -> tuple[bytes, bytes]:
    """Qrels and one run; runs with other ``score_seed`` rank the same documents."""
    rng = np.random.default_rng(seed)
    queries = np.repeat(np.arange(n_queries), depth)
    docs = rng.permutation(n_queries * depth)  # unique ids: duplicates are an input error
    scores = np.random.default_rng([seed, score_seed]).integers(0, 20, size=n_queries * depth)
    rank = np.tile(np.arange(1, depth + 1), n_queries)
    run = io.StringIO()
    np.savetxt(run, np.column_stack([queries, docs, rank, scores]), fmt="q%d Q0 D%d %d %d big")
    relevant = [(q, docs[q * depth + j], int(rng.integers(1, 4)))
                for q in range(n_queries) for j in rng.choice(depth, rng.integers(1, 6), replace=False)]
    qrels = "".join(f"q{q} 0 D{d} {g}\n" for q, d, g in relevant)
    return qrels.encode(), run.getvalue().encode()


def main() -> None:
    script_runner.PagesManager = NavigationPagesManager
    qrels, run = make_upload()
    _, other = make_upload(score_seed=1)
    rows = run.count(b"\n")
    at = new_app().run()
    start = time.perf_counter()
    upload(at, ("qrels.txt", qrels, "text/plain"),
           [("big.txt", run, "text/plain"), ("other.txt", other, "text/plain")])
    load = time.perf_counter() - start
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    shown = " ".join(c.value for c in at.caption if "judged" in c.value or "ranked" in c.value)
    print(f"# two {rows:,}-row runs; upload + read + overview: {load:.2f} s ({shown or 'no data caption'})")
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    print("| page | first run s | rerun s | charts shown |\n|---|---:|---:|---:|")
    for page in PAGES:
        start = time.perf_counter()
        at.switch_page(f"pages/{page}.py").run()
        first = time.perf_counter() - start
        start = time.perf_counter()
        at.run()
        again = time.perf_counter() - start
        trouble = [e.value for e in at.exception]
        charts = len(at.get("plotly_chart"))
        print(f"| {page} | {first:.2f} | {again:.2f} | {charts} |"
              + (f" exception: {trouble}" if trouble else ""))


if __name__ == "__main__":
    main()
