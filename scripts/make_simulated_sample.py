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
import gzip
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file from a checkout without installing
    sys.path.insert(0, str(ROOT))

from tiedrank.io import write_qrels, write_run
from tiedrank.simulate import PRESETS, make_queries, simulate_run

SEED = 2026
N_QUERIES = 50
DOCS_PER_QUERY = 100
DEFAULT_OUT = ROOT / "sample_data" / "simulated"
CORPUS_NAME = "corpus.tsv.gz"


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
    write_corpus(qrels, out / CORPUS_NAME, seed=seed)  # not listed: callers expect qrels + runs
    return written


# Generated passages: a few words whose topicality follows the grade, so a reader of the
# dashboard sees why a document was judged as it was.  No real text is involved.
_TOPIC_WORDS = ("ranking", "ties", "evaluation", "rerankers", "relevance", "scores",
                "judgements", "metrics", "queries", "retrieval", "expectation", "ordering")
_FILLER = ("weather", "recipes", "football", "gardening", "travel", "music", "furniture",
           "pottery", "cycling", "astronomy", "knitting", "trains")
_OPENINGS = {0: "An off-topic passage on {f1} and {f2}",
             1: "A passage mostly on {f1}, mentioning {t1} once",
             2: "A passage on {t1} and {t2}, with an aside on {f1}",
             3: "A focused passage explaining {t1}, {t2} and {t3} for topic {query}"}


def write_corpus(qrels, path: Path, seed: int = SEED) -> Path:
    """Write ``docno<TAB>text`` for every judged document, gzip with a fixed header (same bytes)."""
    import numpy as np

    rng = np.random.default_rng([seed, 7])  # its own stream: the qrels and runs are unchanged
    frame = qrels.frame
    picks_t = rng.integers(0, len(_TOPIC_WORDS), size=(len(frame), 3))
    picks_f = rng.integers(0, len(_FILLER), size=(len(frame), 2))
    lines = []
    for i, (query, doc, grade) in enumerate(zip(frame["query"], frame["doc"], frame["relevance"])):
        t1, t2, t3 = (_TOPIC_WORDS[j] for j in picks_t[i])
        f1, f2 = (_FILLER[j] for j in picks_f[i])
        text = _OPENINGS[min(max(int(grade), 0), 3)].format(
            t1=t1, t2=t2, t3=t3, f1=f1, f2=f2, query=query)
        lines.append(f"{doc}\t{text} (synthetic document {doc}, grade {int(grade)}).\n")
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                               mtime=0) as fh:
        fh.write("".join(lines).encode("utf-8"))
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    parser.add_argument("--queries", type=int, default=N_QUERIES)
    parser.add_argument("--docs-per-query", type=int, default=DOCS_PER_QUERY)
    args = parser.parse_args(argv)
    for path in generate(args.out, args.seed, args.queries, args.docs_per_query):
        print(path)
    print(Path(args.out) / CORPUS_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main())
