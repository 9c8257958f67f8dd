"""Generate a synthetic MS MARCO-dev-scale run and qrels for the benchmark.

Default: 6,980 queries x 1,000 documents = 6.98M run lines (the size of an MS MARCO
passage dev run), written as TREC files::

    run.txt    qid Q0 docno rank score tag     (single spaces, grouped by query)
    qrels.txt  qid 0 docno grade

Shape of the data (seeded, fully reproducible with ``numpy.random.default_rng(seed)``):

* 1-3 relevant passages per query (70% / 20% / 10%), grade 1, about one in five
  graded 2 or 3; about 15% of the relevant passages are not retrieved at all.
* Retrieved relevant passages sit at log-uniform latent ranks 1..1000, so every
  part of the ranking (top, middle, tail) contains relevant passages.
* About 70% of the queries have continuous scores (a dense/BM25-like float rounded
  to 5 decimals: ties are rare); about 30% have LLM-style discrete scores, half on a
  0-10 scale and half on a 0-3 scale, derived from the latent rank with noise, so a
  query has a handful of large tie groups with relevant passages inside them.
* Document ids look like ``D1234567`` (a 8.8M-passage collection), unique per query.

The writer is vectorised (numpy + pyarrow CSV writer); no Python loop per line.

Usage::

    python benchmarks/generate.py                      # full size -> benchmarks/data/
    python benchmarks/generate.py --queries 700 --out benchmarks/data/quick
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

COLLECTION_SIZE = 8_841_823  # passages in MS MARCO v1
QID_SPACE = 1_102_432  # MS MARCO qids are integers below this
HERE = Path(__file__).resolve().parent


def _unique_doc_ids(rng: np.random.Generator, n_q: int, depth: int, extra: int) -> np.ndarray:
    """(n_q, depth + extra) int64 doc numbers, distinct inside each row."""
    width = depth + extra
    docs = rng.integers(0, COLLECTION_SIZE, size=(n_q, width), dtype=np.int64)
    while True:
        order = np.argsort(docs, axis=1, kind="stable")
        srt = np.take_along_axis(docs, order, axis=1)
        dup_sorted = np.zeros_like(srt, dtype=bool)
        dup_sorted[:, 1:] = srt[:, 1:] == srt[:, :-1]
        if not dup_sorted.any():
            return docs
        rows, cols = np.nonzero(dup_sorted)
        docs[rows, order[rows, cols]] = rng.integers(0, COLLECTION_SIZE, size=rows.size)


def generate(n_queries: int = 6980, depth: int = 1000, seed: int = 20240714,
             llm_fraction: float = 0.30, tag: str = "synthetic") -> tuple[pa.Table, pa.Table, dict]:
    rng = np.random.default_rng(seed)
    n_q, d = n_queries, depth

    qids = np.sort(rng.choice(QID_SPACE, size=n_q, replace=False)).astype(np.int64)

    # --- relevant passages -------------------------------------------------------
    n_rel = rng.choice([1, 2, 3], size=n_q, p=[0.7, 0.2, 0.1])
    max_rel = 3
    rel_mask = np.arange(max_rel)[None, :] < n_rel[:, None]            # (n_q, 3)
    retrieved = rel_mask & (rng.random((n_q, max_rel)) >= 0.15)
    grades = np.where(rng.random((n_q, max_rel)) < 0.2,
                      rng.integers(2, 4, size=(n_q, max_rel)), 1)

    # latent rank (0-based) of each retrieved relevant passage: log-uniform 1..depth,
    # made distinct inside a query by moving collisions to free slots
    lat = np.floor(np.exp(rng.random((n_q, max_rel)) * np.log(d))).astype(np.int64) - 1
    lat = np.clip(lat, 0, d - 1)
    for j in range(1, max_rel):
        for i in range(j):
            clash = retrieved[:, j] & retrieved[:, i] & (lat[:, j] == lat[:, i])
            lat[clash, j] = (lat[clash, j] + 1 + j) % d

    # doc ids: columns 0..d-1 are the retrieved passages in latent-rank order,
    # columns d..d+2 are candidates for unretrieved relevant passages
    docs = _unique_doc_ids(rng, n_q, d, max_rel)

    is_rel_pos = np.zeros((n_q, d), dtype=bool)
    grade_pos = np.zeros((n_q, d), dtype=np.int64)
    qi, ji = np.nonzero(retrieved)
    is_rel_pos[qi, lat[qi, ji]] = True
    grade_pos[qi, lat[qi, ji]] = grades[qi, ji]
    rel_doc = np.where(retrieved, docs[np.arange(n_q)[:, None], np.clip(lat, 0, d - 1)],
                       docs[:, d:d + max_rel])

    # --- scores ---------------------------------------------------------------------
    ranks = np.arange(1, d + 1, dtype=np.float64)
    is_llm = rng.random(n_q) < llm_fraction
    scale10 = rng.random(n_q) < 0.5
    # continuous: a decreasing curve in latent rank plus noise, 5 decimals (rare ties)
    base = 30.0 - 4.0 * np.log(ranks)[None, :] + rng.normal(0.0, 0.8, size=(n_q, d))
    cont = np.round(base, 5)
    # LLM-style labels from the latent rank, +-1 noise
    noise = rng.choice([-1, 0, 0, 0, 1], size=(n_q, d))
    lab10 = np.clip(10 - np.floor(np.log2(ranks)).astype(np.int64)[None, :] + noise, 0, 10)
    lab3_base = np.select([ranks <= 5, ranks <= 30, ranks <= 200], [3, 2, 1], 0)
    lab3 = np.clip(lab3_base[None, :] + noise, 0, 3)
    labels = np.where(scale10[:, None], lab10, lab3)
    scores = np.where(is_llm[:, None], labels.astype(np.float64), cont)

    # --- sort each query by score desc (ties in random order) -> file order ---------
    # shuffle each row, then a stable sort by descending score
    tiebreak = rng.random((n_q, d))
    o1 = np.argsort(tiebreak, axis=1)
    s1 = np.take_along_axis(scores, o1, axis=1)
    o2 = np.argsort(-s1, axis=1, kind="stable")
    order = np.take_along_axis(o1, o2, axis=1)
    scores_f = np.take_along_axis(scores, order, axis=1)
    docs_f = np.take_along_axis(docs[:, :d], order, axis=1)

    # --- Arrow tables ------------------------------------------------------------------
    n = n_q * d
    doc_str = pc.binary_join_element_wise(
        "D", pc.utf8_lpad(pc.cast(pa.array(docs_f.ravel()), pa.string()), 7, "0"), "")
    score_flat = scores_f.ravel()
    llm_flat = np.repeat(is_llm, d)
    # LLM labels as integers ("7"), continuous scores as shortest float repr
    score_str = pc.if_else(
        pa.array(llm_flat),
        pc.cast(pa.array(score_flat.astype(np.int64)), pa.string()),
        pc.cast(pa.array(score_flat), pa.string()),
    )
    run = pa.table({
        "qid": pa.array(np.repeat(qids, d)),
        "q0": pa.array(np.full(n, "Q0", dtype=object), pa.string()),
        "docno": doc_str,
        "rank": pa.array(np.tile(np.arange(1, d + 1, dtype=np.int64), n_q)),
        "score": score_str,
        "tag": pa.array(np.full(n, tag, dtype=object), pa.string()),
    })

    qr_q, qr_j = np.nonzero(rel_mask)
    qrels = pa.table({
        "qid": pa.array(qids[qr_q]),
        "zero": pa.array(np.zeros(qr_q.size, dtype=np.int64)),
        "docno": pc.binary_join_element_wise(
            "D", pc.utf8_lpad(pc.cast(pa.array(rel_doc[qr_q, qr_j]), pa.string()), 7, "0"), ""),
        "grade": pa.array(grades[qr_q, qr_j]),
    })

    # --- facts for the README / RESULTS ----------------------------------------------
    new_group = np.ones_like(scores_f, dtype=bool)
    new_group[:, 1:] = scores_f[:, 1:] != scores_f[:, :-1]
    n_groups = new_group.sum(axis=1)
    stats = {
        "seed": seed,
        "queries": int(n_q),
        "depth": int(d),
        "run_lines": int(n),
        "qrels_lines": int(qr_q.size),
        "llm_style_queries": int(is_llm.sum()),
        "relevant": int(rel_mask.sum()),
        "relevant_retrieved": int(retrieved.sum()),
        "mean_tie_groups_per_query_llm": float(n_groups[is_llm].mean()) if is_llm.any() else None,
        "mean_tie_groups_per_query_continuous":
            float(n_groups[~is_llm].mean()) if (~is_llm).any() else None,
    }
    return run, qrels, stats


def write_space_separated(table: pa.Table, path: Path) -> None:
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none",
                              batch_size=1 << 16)
    pacsv.write_csv(table, str(path), write_options=opts)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=6980)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20240714)
    ap.add_argument("--llm-fraction", type=float, default=0.30)
    ap.add_argument("--out", type=Path, default=HERE / "data")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    run, qrels, stats = generate(args.queries, args.depth, args.seed, args.llm_fraction)
    t1 = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    write_space_separated(run, args.out / "run.txt")
    write_space_separated(qrels, args.out / "qrels.txt")
    t2 = time.perf_counter()
    stats.update({
        "generate_seconds": round(t1 - t0, 2),
        "write_seconds": round(t2 - t1, 2),
        "run_bytes": (args.out / "run.txt").stat().st_size,
        "qrels_bytes": (args.out / "qrels.txt").stat().st_size,
    })
    (args.out / "stats.json").write_text(json.dumps(stats, indent=2) + "\n")
    print(json.dumps(stats, indent=2))
    return stats


if __name__ == "__main__":
    main()
