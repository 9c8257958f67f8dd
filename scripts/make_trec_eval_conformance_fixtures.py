"""Record trec_eval 10's output on random small inputs and copy its own test suite, for
``tests/cli/test_cli_trec_eval_conformance.py``.

Usage (from the repository root; trec_eval built from its source, which is not part of
this repository)::

    git clone https://github.com/usnistgov/trec_eval /tmp/trec_eval_src   # or any copy
    make -C /tmp/trec_eval_src
    python scripts/make_trec_eval_conformance_fixtures.py /tmp/trec_eval_src [COMMIT]

Writes into ``tests/cli/trec_eval_fixtures/``:

* ``conformance.json.xz`` — :data:`N_INPUTS` random small inputs and 10 whose means fall
  on a half-way 4th decimal (:func:`half_way_input`), seeded (the same bytes on every run of
  this script), and trec_eval's standard output and exit status on each, under
  every flag set of :data:`FLAG_SETS`. The inputs are drawn to reach trec_eval's corners:
  ties broken by docno, query ids whose byte order is not their natural order, unjudged
  and pooled-but-unjudged documents (grade -1), queries with nothing judged retrieved
  (``-J`` leaves them empty: trec_eval prints ``-nan``), queries of the qrels the run
  misses (``-c``), grades up to 4, junk after the run tag (trec_eval reads the 6th field),
  scores written as
  integers, decimals, negatives and exponents, per-query values that average to a half-way
  4th decimal. Without ``-c``, trec_eval 10 stops with exit status 4 when a qrels query has
  no results; tiedrank leaves such a query out, as trec_eval 9 did, which is trec_eval 10
  on the qrels without that query: the recorded output is that (``dropped`` names the
  queries) and ``status_with_missed`` trec_eval 10's status on the whole qrels.
* ``suite/`` — trec_eval's own test files (``test/`` of its source: inputs and expected
  outputs of its ``make quicktest``) that ``tiedrank evaluate --format trec_eval`` reads:
  :data:`SUITE` lists them with their flags. The recorder checks that the built trec_eval
  prints them byte for byte first.
"""
from __future__ import annotations

import json
import lzma
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "cli" / "trec_eval_fixtures"
SAMPLE = OUT.parents[2] / "sample_data" / "trec_eval"
SEED = 20261127
N_INPUTS = 60

FLAG_SETS: dict[str, list[str]] = {
    "official": [],
    "q_all": ["-q", "-m", "all_trec"],
    "q_c": ["-q", "-c", "-m", "all_trec"],
    "q_J": ["-q", "-J", "-m", "all_trec"],
    "q_M5": ["-q", "-M5", "-m", "all_trec"],
    "q_l2_params": ["-q", "-l2", "-N", "25", "-m", "all_trec", "-m", "relstring.20",
                    "-m", "ndcg.1=3,2=9,4=4.5", "-m", "11pt_avg..25,.5,.75",
                    "-m", "Rprec_mult.5.0,0.2,0.35", "-m", "utility.1,-1,0,1"],
    "q_c_J_M10": ["-q", "-c", "-J", "-M10", "-m", "all_trec"],
    "q_n_N": ["-q", "-n", "-N", "40", "-m", "all_trec", "-m", "utility.2,-1,0,1",
              "-m", "ndcg_cut.10,20,23.4", "-m", "iprec_at_recall..10,.20,.25,.75,.50",
              "-m", "success.2,5,20", "-m", "rbp.p=0.5", "-m", "set_F.0.25"],
}
"""Eight flag sets: the means (all but q_n_N), -c, -J, -M, -l, -n, -N, parameter forms."""

SUITE: dict[str, tuple[list[str], str, str]] = {
    # trec_eval's expected output -> (flags, qrels, results), as in its Makefile's quicktest
    "out.test": ([], "qrels.test", "results.test"),
    "out.test.a": (["-m", "all_trec"], "qrels.test", "results.test"),
    "out.test.aq": (["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    "out.test.aqc": (["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    "out.test.aqcM": (["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc"),
    "out.test.aql": (["-m", "all_trec", "-mrelstring.20", "-q", "-l2"], "qrels.rel_level",
                     "results.test"),
    "out.test.meas_params": (["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3",
                              "-m", "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35",
                              "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
                              "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4",
                              "-msuccess.2,5,20"], "qrels.test", "results.test"),
}
"""trec_eval's own tests that read TREC qrels and results (the prefs, qrels_jg and -Z tests
read formats tiedrank does not); ``qrels.test.with-comments`` gives ``out.test`` too."""

_QUERY_IDS = ["1", "2", "10", "q1", "q2", "q10", "Q3", "301", "a.b", "q-7", "z"]


def _score_text(rng, value: float) -> str:
    form = rng.integers(0, 4)
    if form == 0 and value == int(value):
        return str(int(value))
    if form == 1:
        return f"{value:.6f}"
    if form == 2:
        return f"{value:e}"
    return repr(value)


def random_input(rng) -> tuple[str, str]:
    """One small (qrels, run) pair as TREC text."""
    queries = list(rng.choice(_QUERY_IDS, size=int(rng.integers(1, 8)), replace=False))
    qrels_lines, run_lines = [], []
    tied = rng.random() < 0.7
    tag = str(rng.choice(["run1", "STANDARD", "tiedrank"]))
    top = int(rng.choice([2, 3, 4]))
    for q in queries:
        missed = len(queries) > 1 and rng.random() < 0.12  # a qrels query with no results
        n = int(rng.integers(1, 22))
        docs = [f"{rng.choice(['d', 'D', 'doc'])}{k}" for k in
                rng.choice(200, size=n + 6, replace=False)]
        if tied:
            scores = rng.integers(-2, 4, size=n) / float(rng.choice([1, 2, 4]))
        else:
            scores = np.round(rng.normal(size=n) * 10, 4)
        style = rng.random()
        for i, doc in enumerate(docs[:n + int(rng.integers(0, 7))]):
            retrieved = i < n
            if retrieved and style < 0.1:
                continue  # a query whose retrieved documents are all unjudged
            if rng.random() < (0.3 if retrieved else 0.0):
                continue  # retrieved, never judged
            grade = int(rng.choice([-1, 0, 0, 1, 1, 2, 3, 4][:5 + top - 1]))
            qrels_lines.append(f"{q} 0 {doc} {grade}")
        if not missed:
            for i in range(n):
                run_lines.append(f"{q} Q0 {docs[i]} {i + 1} {_score_text(rng, float(scores[i]))} {tag}")
    if rng.random() < 0.2:  # a query of the run only: neither tool evaluates it
        run_lines += [f"zz Q0 d{k} {k} {k} {tag}" for k in range(1, 4)]
    if not run_lines or not qrels_lines:  # at least one query with results and judgements
        q = queries[0]
        qrels_lines.append(f"{q} 0 dx 1")
        run_lines.append(f"{q} Q0 dx 1 1 {tag}")
    order = rng.permutation(len(run_lines))
    run_lines = [run_lines[i] for i in order]
    if rng.random() < 0.2:  # junk after the tag (trec_eval reads the 6th field only)
        run_lines[0] += " more junk"
    if rng.random() < 0.15:  # one more draw, so the inputs stay those recorded at first
        pass  # (a tag changing between lines: tiedrank names a run by its first line)
    qrels_lines = [qrels_lines[i] for i in rng.permutation(len(qrels_lines))]
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


def half_way_input(rng, total: int) -> tuple[str, str]:
    """Four queries holding ``total`` relevant documents in all (odd, not a multiple of 5),
    so that the mean of P_1000 (and P_500, ...) is a decimal ending in 5 at the 5th place,
    e.g. 7 / 4000 = 0.00175: which side of it the mean falls on is decided by how the
    per-query doubles are added up (trec_eval: one by one, in its query order)."""
    shares = np.bincount(rng.integers(0, 4, size=total), minlength=4)
    qrels_lines, run_lines = [], []
    for q, share in zip(["h1", "h10", "h2", "h3"], shares):
        n = int(share) + int(rng.integers(1, 8))
        relevant = set(rng.choice(n, size=int(share), replace=False).tolist())
        for i in range(n):
            qrels_lines.append(f"{q} 0 d{i} {1 if i in relevant else 0}")
            run_lines.append(f"{q} Q0 d{i} {i + 1} {n - i} half")
        qrels_lines.append(f"{q} 0 missed{q} 1")  # R > share: recall is not 1
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


HALF_WAY_TOTALS = (1, 3, 7, 9, 11, 13, 17, 19, 21, 23)


def _run(trec_eval: Path, flags: list[str], qrels: Path, run: Path) -> tuple[int, str]:
    done = subprocess.run([str(trec_eval), *flags, str(qrels), str(run)], capture_output=True,
                          text=True)
    return done.returncode, done.stdout


def _record_cases(trec_eval: Path) -> list[dict]:
    rng = np.random.default_rng(SEED)
    cases = []
    with tempfile.TemporaryDirectory() as scratch:
        qrels_path, run_path, kept_path = (Path(scratch, n) for n in ("qrels", "run", "kept"))
        inputs = [random_input(rng) for _ in range(N_INPUTS)]
        inputs += [half_way_input(rng, total) for total in HALF_WAY_TOTALS]
        for number, (qrels, run) in enumerate(inputs):
            qrels_path.write_text(qrels)
            run_path.write_text(run)
            answered = {line.split()[0] for line in run.splitlines()}
            judged = {line.split()[0] for line in qrels.splitlines()}
            dropped = sorted(judged - answered)
            kept_path.write_text("".join(line + "\n" for line in qrels.splitlines()
                                         if line.split()[0] in answered))
            outputs = {}
            for name, flags in FLAG_SETS.items():
                status, stdout = _run(trec_eval, flags, qrels_path, run_path)
                entry = {"status": status, "stdout": stdout}
                if dropped and "-c" not in flags:
                    entry = {"status_with_missed": status, "dropped": dropped}
                    entry["status"], entry["stdout"] = _run(trec_eval, flags, kept_path, run_path)
                assert entry["status"] == 0, (number, name, entry)
                outputs[name] = entry
            cases.append({"case": number, "qrels": qrels, "run": run, "outputs": outputs})
    return cases


def main(source: str, commit: str | None = None) -> None:
    source_dir = Path(source)
    trec_eval = source_dir / "trec_eval"
    version = subprocess.run([str(trec_eval), "-v"], capture_output=True, text=True).stderr.strip()
    commit = commit or subprocess.run(["git", "-C", str(source_dir), "rev-parse", "HEAD"],
                                      capture_output=True, text=True).stdout.strip() or "unknown"
    suite = OUT / "suite"
    suite.mkdir(exist_ok=True)
    for expected, (flags, qrels, results) in SUITE.items():
        test = source_dir / "test"
        status, stdout = _run(trec_eval, flags, test / qrels, test / results)
        assert status == 0 and stdout == (test / expected).read_text(), expected
        for name in (expected, qrels, results):
            bundled = SAMPLE / name  # trec_eval's qrels.test and results.test ship already
            if bundled.exists():
                assert bundled.read_bytes() == (test / name).read_bytes(), name
            else:
                shutil.copyfile(test / name, suite / name)
    payload = {"trec_eval": version, "commit": commit, "seed": SEED, "flag_sets": FLAG_SETS,
               "cases": _record_cases(trec_eval)}
    with lzma.open(OUT / "conformance.json.xz", "wt", preset=9 | lzma.PRESET_EXTREME) as out:
        json.dump(payload, out, indent=0, sort_keys=True)


if __name__ == "__main__":  # SOURCE_DIR [COMMIT] (the commit, when SOURCE_DIR is no git clone)
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/trec_eval_src",
         sys.argv[2] if len(sys.argv) > 2 else None)
