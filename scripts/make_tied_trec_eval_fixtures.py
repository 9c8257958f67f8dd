"""Record trec_eval's own interpolated precision on a small tied run, and on every ordering.

Usage (from the repository root, with a built trec_eval 10)::

    python scripts/make_tied_trec_eval_fixtures.py /path/to/trec_eval

Writes into ``tests/cli/trec_eval_fixtures/``:

* ``qrels.ties.txt``, ``run.ties.txt`` — five queries with tie groups (the spec below):
  graded qrels (0-2), judged documents the run never retrieves, retrieved documents the
  qrels never judge, a query with no relevant document retrieved, one with no relevant
  document at all;
* ``out.ties.q.iprec.txt`` and ``out.ties.q.l2.iprec.txt`` — ``trec_eval -q -m
  iprec_at_recall -m 11pt_avg`` (and ``-l2``) on that run: trec_eval breaks the ties its
  own way (docno descending), which is tiedrank's ``trec_eval`` policy;
* ``out.orderings.q.iprec.txt.gz`` and ``out.orderings.q.l2.iprec.txt.gz`` — the same
  command on a run with one query per arrangement of the grades inside every tie group
  (query ``t1.o0007``: the 8th arrangement of ``t1``; ties resolved by distinct scores).
  Every arrangement of the grade labels stands for the same number of document orders, so
  the mean, the largest and the smallest value over a query's arrangements are the exact
  expectation, the best and the worst case over its tie orderings.

The orderings run itself is not kept: the query ids carry all the test needs.
"""
from __future__ import annotations

import gzip
import itertools
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "cli" / "trec_eval_fixtures"

# query -> (tie groups in rank order, each a list of grades (None: not in the qrels),
#           grades of judged documents the run does not retrieve)
SPEC = {
    "t1": ([[2, 1, 0, None, 1], [0], [1], [None]], [2, 0]),
    "t2": ([[1, 0, 2], [1], [1, None, 0, 1], [0]], [1]),
    "t3": ([[0, None, 0], [None]], [1, 2]),  # nothing relevant retrieved
    "t4": ([[0, 0], [None, 0]], [0]),  # no relevant document at all
    "t5": ([[1, 1, 2], [0, 1]], []),  # a tie group of relevant documents only
}


def _arrangements(grades: list) -> list[tuple]:
    """The distinct orders of a multiset of grades (None sorts as -1)."""
    return sorted(set(itertools.permutations(grades)), key=lambda g: [-1 if x is None else x
                                                                       for x in g])


def _write(qrels_rows, run_rows, qrels_path: Path, run_path: Path) -> None:
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels_rows))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s:g} ties\n" for q, d, s in run_rows))


def main(trec_eval: str) -> None:
    qrels_rows, run_rows, order_qrels, order_run = [], [], [], []
    for query, (groups, extra) in SPEC.items():
        docs = []  # (doc id, grade, score) in rank order
        for g, group in enumerate(groups):
            docs += [(f"{query}-g{g}d{i}", grade, float(len(groups) - g))
                     for i, grade in enumerate(group)]
        qrels_rows += [(query, d, grade) for d, grade, _ in docs if grade is not None]
        qrels_rows += [(query, f"{query}-u{j}", grade) for j, grade in enumerate(extra)]
        run_rows += [(query, d, score) for d, _, score in docs]
        # one pseudo-query per arrangement of the grades inside every group
        for n, combo in enumerate(itertools.product(*[_arrangements(g) for g in groups])):
            pseudo = f"{query}.o{n:04d}"
            grades = [grade for part in combo for grade in part]
            order_run += [(pseudo, f"d{i:02d}", float(len(grades) - i))
                          for i in range(len(grades))]
            order_qrels += [(pseudo, f"d{i:02d}", grade) for i, grade in enumerate(grades)
                            if grade is not None]
            order_qrels += [(pseudo, f"u{j}", grade) for j, grade in enumerate(extra)]
    _write(qrels_rows, run_rows, OUT / "qrels.ties.txt", OUT / "run.ties.txt")
    measures = ["-m", "iprec_at_recall", "-m", "11pt_avg"]
    for level, suffix in (([], ""), (["-l2"], "l2.")):
        done = subprocess.run([trec_eval, "-q", *level, *measures, str(OUT / "qrels.ties.txt"),
                               str(OUT / "run.ties.txt")], check=True, capture_output=True,
                              text=True)
        (OUT / f"out.ties.q.{suffix}iprec.txt").write_text(done.stdout)
    with tempfile.TemporaryDirectory() as scratch:
        qrels_path, run_path = Path(scratch, "qrels"), Path(scratch, "run")
        _write(order_qrels, order_run, qrels_path, run_path)
        for level, suffix in (([], ""), (["-l2"], "l2.")):
            done = subprocess.run([trec_eval, "-q", *level, *measures, str(qrels_path),
                                   str(run_path)], check=True, capture_output=True, text=True)
            # no name and no time in the gzip header: the same run, the same bytes
            with open(OUT / f"out.orderings.q.{suffix}iprec.txt.gz", "wb") as raw, \
                    gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
                out.write(done.stdout.encode())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "trec_eval")
