"""Generate ``sample_data/simulated/``: synthetic qrels and one run per reranker preset.

Usage (from the repository root)::

    python scripts/make_simulated_sample.py                 # seed 2026 -> sample_data/simulated
    python scripts/make_simulated_sample.py --seed 7 --out /tmp/sim

Writes ``qrels.txt`` (``qid 0 docno grade``) and ``runs/<preset>.txt``
(``qid Q0 docno rank score tag``) for every key of :data:`tiedrank.simulate.PRESETS`:
50 queries x 100 judged candidates, the same queries and the same noise for every
preset (one seed), so the runs differ only in how their scores tie. Same seed, same
bytes (numpy's PCG64 streams are stable for a pinned numpy version).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file from a checkout without installing
    sys.path.insert(0, str(ROOT))

from tiedrank.io import write_qrels, write_run  # noqa: E402
from tiedrank.simulate import PRESETS, make_queries, simulate_run  # noqa: E402

SEED = 2026
N_QUERIES = 50
DOCS_PER_QUERY = 100
DEFAULT_OUT = ROOT / "sample_data" / "simulated"


def generate(out: Path = DEFAULT_OUT, seed: int = SEED, n_queries: int = N_QUERIES,
             docs_per_query: int = DOCS_PER_QUERY) -> list[Path]:
    """Write the qrels and one run per preset under ``out``; return the paths written."""
    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    qrels = make_queries(n_queries, docs_per_query, seed=seed)
    written = [out / "qrels.txt"]
    write_qrels(qrels, written[0])
    for key, spec in PRESETS.items():
        path = out / "runs" / f"{key}.txt"
        write_run(simulate_run(qrels, spec, seed=seed), path)
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    parser.add_argument("--queries", type=int, default=N_QUERIES)
    parser.add_argument("--docs-per-query", type=int, default=DOCS_PER_QUERY)
    args = parser.parse_args(argv)
    for path in generate(args.out, args.seed, args.queries, args.docs_per_query):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
