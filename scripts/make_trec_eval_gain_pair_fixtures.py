"""Record trec_eval 10's output for its grade=gain pairs on ndcg_rel, Rndcg, rbp, G (and ndcg, the
control), for ``tests/metrics/test_metrics_trec_gain_pairs.py``.

Usage (from the repository root; trec_eval built from its source with ``make``)::

    python scripts/make_trec_eval_gain_pair_fixtures.py /tmp/trec_eval_src/trec_eval

Writes ``tests/cli/trec_eval_fixtures/gain_pairs.json``:

* ``sample``: ``trec_eval -q <measures>`` on ``sample_data/trec_eval`` (qrels.test,
  results.test), per gain map of :data:`MAPS`: the flags and trec_eval's output;
* ``tied``: :data:`N_INPUTS` small tied queries (seeded), each as (scores, grades of the
  retrieved documents, None = not in the qrels; grades of judged documents the run misses),
  and per gain map: trec_eval's per-query values on every ordering of the ties (each
  ordering a query of its own, ``o<i>``, scored with distinct scores) and on the tied run
  itself (trec_eval's own order: score, then docno, descending).
"""
from __future__ import annotations

import itertools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "cli" / "trec_eval_fixtures" / "gain_pairs.json"
SAMPLE = ROOT / "sample_data" / "trec_eval"
SEED = 20261127
N_INPUTS = 12
MAPS = ("1=9,2=1,3=4", "2=5,3=0,5=20", "1=3,2=9")
"""A map against the grades (best order by gain, not grade), one with a gain of 0 for a
positive grade and a grade no query has (rbp's scale reads it), trec_eval's help example.

Every two gains differ by 0 or by 1 or more: gain_init.c's comp_rel_gain returns the
difference of two gains as an int, so qsort sees gains closer than 1 (0.5 and 0) as equal
and trec_eval's ideal ranking then need not be sorted (``ndcg.2=0.5,3=0``: trec_eval prints
0 where the ideal ranking by gain gives a positive nDCG). tiedrank sorts by the gains
themselves; the recorded maps stay where the two agree."""


def measures(gain_map: str) -> list[str]:
    return ["-m", f"ndcg_rel.{gain_map}", "-m", f"Rndcg.{gain_map}",
            "-m", f"rbp.p=0.8,{gain_map}", "-m", f"ndcg.{gain_map}", "-m", f"G.{gain_map}"]


def orderings(scores: list[float]):
    distinct = sorted(set(scores), reverse=True)
    groups = [[i for i, s in enumerate(scores) if s == v] for v in distinct]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for part in parts for i in part]


def tied_input(rng) -> dict:
    while True:
        n = int(rng.integers(2, 7))
        scores = [float(s) for s in rng.choice([0.0, 0.5, 1.0], size=n)]
        grades = [None if g < 0 else int(g) for g in rng.choice([-1, 0, 1, 2, 3], size=n)]
        extra = [int(g) for g in rng.choice([0, 1, 2, 3], size=int(rng.integers(0, 3)))]
        if len(list(orderings(scores))) > 1 and any(g for g in grades if g) \
                and len(list(orderings(scores))) <= 720:
            return {"scores": scores, "grades": grades, "extra": extra}


def values(trec_eval: str, flags: list[str], qrels: str, run: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "q").write_text(qrels)
        (Path(tmp) / "r").write_text(run)
        out = subprocess.run([trec_eval, "-q", *flags, f"{tmp}/q", f"{tmp}/r"], check=True,
                             capture_output=True, text=True).stdout
    found: dict = {}
    for line in out.splitlines():
        name, query, value = line.split()
        if query != "all":
            found.setdefault(name, {})[query] = float(value)
    return found


def qrels_lines(query: str, case: dict) -> list[str]:
    lines = [f"{query} 0 d{i} {g}" for i, g in enumerate(case["grades"]) if g is not None]
    return lines + [f"{query} 0 u{j} {g}" for j, g in enumerate(case["extra"])]


def record_tied(trec_eval: str, case: dict) -> dict:
    scores = case["scores"]
    qrels, run = [], []
    for number, order in enumerate(orderings(scores)):
        query = f"o{number}"
        qrels += qrels_lines(query, case)
        run += [f"{query} Q0 d{i} {rank} {len(order) - rank} r" for rank, i in enumerate(order)]
    tied_run = [f"t Q0 d{i} {i} {s} r" for i, s in enumerate(scores)]
    recorded = {}
    for gain_map in MAPS:
        recorded[gain_map] = {
            "orderings": values(trec_eval, measures(gain_map), "\n".join(qrels) + "\n",
                                "\n".join(run) + "\n"),
            "trec_eval": values(trec_eval, measures(gain_map), "\n".join(qrels_lines("t", case))
                                + "\n", "\n".join(tied_run) + "\n")}
    return recorded


def main(trec_eval: str) -> None:
    rng = np.random.default_rng(SEED)
    sample = {}
    for gain_map in MAPS:
        flags = ["-q", *measures(gain_map)]
        sample[gain_map] = {"flags": flags, "output": subprocess.run(
            [trec_eval, *flags, str(SAMPLE / "qrels.test"), str(SAMPLE / "results.test")],
            check=True, capture_output=True, text=True).stdout}
    tied = []
    for _ in range(N_INPUTS):
        case = tied_input(rng)
        tied.append({**case, "recorded": record_tied(trec_eval, case)})
    version = subprocess.run([trec_eval, "-v"], capture_output=True, text=True)
    OUT.write_text(json.dumps({"trec_eval": (version.stdout + version.stderr).strip(),
                               "maps": MAPS, "sample": sample, "tied": tied}, indent=0) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "trec_eval")
