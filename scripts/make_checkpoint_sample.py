"""Generate ``sample_data/checkpoints/``: synthetic qrels and one run per checkpoint of a
simulated training run (a reranker whose quality rises by epoch and then saturates, while its
labels stay on a coarse 5-level scale, so late checkpoints differ by less than their ties).

Usage (from the repository root)::

    python scripts/make_checkpoint_sample.py              # seed 2026 -> sample_data/checkpoints
    python scripts/make_checkpoint_sample.py --out /tmp/ckpt

Writes ``qrels.txt`` (``qid 0 docno grade``) and ``runs/splade-epoch<N>.txt``
(``qid Q0 docno rank score tag``): 30 queries x 30 judged candidates, epoch ``N`` drawn
with seed ``seed + N`` (each checkpoint its own noise, as a retrained model has). Same seed,
same bytes (numpy's PCG64 streams are stable for a pinned numpy version).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file from a checkout without installing
    sys.path.insert(0, str(ROOT))

from tiedrank.io import write_qrels, write_run
from tiedrank.simulate import RerankerSpec, make_queries, simulate_run

SEED = 2026
N_QUERIES = 30
DOCS_PER_QUERY = 30
LEVELS = 5
QUALITY = (0.3, 0.7, 1.0, 1.2, 1.3, 1.35)
"""Quality (signal to noise) of epochs 1, 2, ...: rising fast, then saturating."""
DEFAULT_OUT = ROOT / "sample_data" / "checkpoints"


def generate(out: Path = DEFAULT_OUT, seed: int = SEED) -> list[Path]:
    """Write the qrels and one run per epoch under ``out``; return the paths written."""
    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    qrels = make_queries(N_QUERIES, DOCS_PER_QUERY, seed=seed)
    written = [out / "qrels.txt"]
    write_qrels(qrels, written[0])
    for epoch, quality in enumerate(QUALITY, start=1):
        name = f"splade-epoch{epoch}"
        spec = RerankerSpec(name=name, quality=quality, levels=LEVELS,
                            description=f"epoch {epoch}: quality {quality}, {LEVELS} labels")
        path = out / "runs" / f"{name}.txt"
        write_run(simulate_run(qrels, spec, seed=seed + epoch), path)
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    args = parser.parse_args(argv)
    for path in generate(args.out, args.seed):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
