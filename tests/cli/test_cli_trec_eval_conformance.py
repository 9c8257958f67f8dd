"""``tiedrank evaluate --format trec_eval`` against trec_eval 10 built from its source, line for
line: trec_eval's own test suite and 70 small inputs under 8 flag sets.

The oracle is recorded (trec_eval's code is not part of this repository, and building it
takes seconds): ``scripts/make_trec_eval_conformance_fixtures.py`` builds nothing itself,
it runs a trec_eval built with ``make`` and writes ``trec_eval_fixtures/conformance.json.xz``
(the inputs, the flags, trec_eval's output and exit status) and copies trec_eval's
``test/`` files into ``trec_eval_fixtures/suite/`` (see the README there). With
``TIEDRANK_TREC_EVAL=/path/to/trec_eval`` the deep test runs that binary instead of reading
the recorded outputs.

The classes these inputs reach (issue 29): half-way means (trec_eval adds the per-query
doubles one by one; the correctly rounded mean prints the other side of x.xxxx5), set_map's
formula, rbp and rbp_resid in trec_eval's order of operations, ``-nan`` with ``-J``,
runid (the 6th field: text after it is skipped), trec_eval's parameter forms (``relstring.20``,
``ndcg.1=3,2=9,4=4.5``, ``11pt_avg..25,.5,.75``, ``ndcg_cut.10,20,23.4``, ...), ``-n``,
``-N``, ``-c``, ``-M``, ``-l``, and queries of the qrels the run misses (trec_eval 10 stops
with status 4 without ``-c``; tiedrank leaves them out, as trec_eval 9 did).

The default suite runs trec_eval's suite and a quick set (:data:`QUICK`: the inputs that
tell each class apart); ``--slow`` runs all 560 cases.
"""
from __future__ import annotations

import contextlib
import io
import json
import lzma
import os
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

from tiedrank.cli import main

FIXTURES = Path(__file__).parent / "trec_eval_fixtures"
SUITE_DIR = FIXTURES / "suite"
BUNDLED = Path("sample_data/trec_eval")

SUITE = [  # trec_eval's Makefile (quicktest): expected output, flags, qrels, results
    ("out.test", [], "qrels.test", "results.test"),
    ("out.test.a", ["-m", "all_trec"], "qrels.test", "results.test"),
    ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"], "qrels.rel_level",
     "results.test"),
    ("out.test.meas_params", ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3",
                              "-m", "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35",
                              "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
                              "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4",
                              "-msuccess.2,5,20"], "qrels.test", "results.test"),
]

ALL = None
QUICK = {  # input -> the flag sets it runs under in the default suite (None: all eight)
    1: ALL,  # -nan, a qrels query the run misses, junk after the tag
    4: ALL,  # recall_5's mean is half-way under -c
    25: ALL,  # P_200's mean half-way (with -l2 and the parameter forms)
    66: ALL,  # P_200's mean half-way under five flag sets
    68: ALL,  # P_1000's mean half-way under -c -J -M10
    21: ("q_J",),  # set_map: rel_ret^2 / (ret R), not set_P * set_recall
    38: ("q_c_J_M10",),  # rbp: trec_eval's order of operations
    23: ("q_M5",),  # rbp_resid: likewise
}


def _path(name: str) -> Path:
    return BUNDLED / name if (BUNDLED / name).exists() else SUITE_DIR / name


def _tiedrank(args: list[str]) -> tuple[int, str, str]:
    """``tiedrank evaluate --format trec_eval ARGS`` in this process (its own entry point)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["evaluate", "--format", "trec_eval", *args])
    return status, out.getvalue(), err.getvalue()


@lru_cache(maxsize=1)
def _recorded() -> dict:
    with lzma.open(FIXTURES / "conformance.json.xz", "rt") as stream:
        return json.load(stream)


def _differing(expected: str, ours: str) -> list[tuple[str | None, str | None]]:
    theirs, mine = expected.splitlines(), ours.splitlines()
    pairs = [(a, b) for a, b in zip(theirs, mine) if a != b]
    extra = len(mine) - len(theirs)
    return pairs + ([(None, b) for b in mine[len(theirs):]] if extra > 0 else
                    [(a, None) for a in theirs[len(mine):]])


@pytest.mark.parametrize("expected, flags, qrels, results", SUITE, ids=[s[0] for s in SUITE])
def test_trec_evals_own_test_suite_byte_for_byte(expected, flags, qrels, results):
    status, out, err = _tiedrank([*flags, str(_path(qrels)), str(_path(results))])
    assert status == 0, err
    assert out == _path(expected).read_text()


def _check_cases(cases: list[tuple[dict, str]], tmp_path: Path, trec_eval: str | None = None
                 ) -> tuple[int, int, list]:
    """Run every (input, flag set) of ``cases``; returns (cases, lines compared, differences)."""
    flag_sets = _recorded()["flag_sets"]
    qrels, run, kept = tmp_path / "qrels.txt", tmp_path / "run.txt", tmp_path / "kept.txt"
    lines, differences = 0, []
    for case, name in cases:
        qrels.write_text(case["qrels"])
        run.write_text(case["run"])
        flags = flag_sets[name]
        recorded = case["outputs"][name]
        expected = recorded["stdout"]
        if trec_eval is not None:  # the live binary: on the qrels without the missed queries
            answered = {line.split()[0] for line in case["run"].splitlines()}
            kept.write_text("".join(line + "\n" for line in case["qrels"].splitlines()
                                    if "-c" in flags or line.split()[0] in answered))
            expected = subprocess.run([trec_eval, *flags, str(kept), str(run)],
                                      capture_output=True, text=True, check=True).stdout
        status, out, err = _tiedrank([*flags, str(qrels), str(run)])
        assert status == 0, (case["case"], name, err)
        lines += len(expected.splitlines())
        differences += [(case["case"], name, a, b) for a, b in _differing(expected, out)]
    return len(cases), lines, differences


@pytest.mark.parametrize("number", list(QUICK))
def test_quick_set_of_random_inputs_equals_trec_eval(tmp_path, number):
    data = _recorded()
    case = data["cases"][number]
    cases = [(case, name) for name in (QUICK[number] or data["flag_sets"])]
    n_cases, n_lines, differences = _check_cases(cases, tmp_path)
    assert differences == [], f"{len(differences)} of {n_lines} lines differ: {differences[:5]}"


def test_quick_set_reaches_the_classes_it_is_there_for():
    data = _recorded()
    outputs = [data["cases"][number]["outputs"][name] for number, names in QUICK.items()
               for name in (names or data["flag_sets"])]
    assert len(outputs) == 43 and sum(len(o["stdout"].splitlines()) for o in outputs) > 10_000
    assert any("  -nan" in o["stdout"] for o in outputs)
    assert any(o.get("status_with_missed") == 4 for o in outputs)  # trec_eval 10 stops there
    runs = [data["cases"][number]["run"] for number in QUICK]
    assert any(len(run.split("\n", 1)[0].split()) > 6 for run in runs)  # junk after the tag


@pytest.mark.slow
def test_every_recorded_input_under_every_flag_set_equals_trec_eval(tmp_path):
    data = _recorded()
    cases = [(case, name) for case in data["cases"] for name in data["flag_sets"]]
    n_cases, n_lines, differences = _check_cases(cases, tmp_path,
                                                 os.environ.get("TIEDRANK_TREC_EVAL"))
    assert n_cases == 560
    assert differences == [], f"{len(differences)} of {n_lines} lines differ: {differences[:5]}"


def test_out_keeps_the_rows_on_disk_and_says_its_means_are_exact(tmp_path):
    """With --out the per-query rows are written where they are computed, not gathered, so
    the 'all' lines are the exact means, and stderr says so: on input 66 P_200's mean is
    half-way (0.02125), which trec_eval's accumulation prints 0.0213 and the exact mean
    0.0212."""
    case = _recorded()["cases"][66]
    (tmp_path / "q").write_text(case["qrels"])
    (tmp_path / "r").write_text(case["run"])
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    assert "P_200                 \tall\t0.0213" in case["outputs"]["q_all"]["stdout"]
    status, out, err = _tiedrank(["-m", "P.200", *files])
    assert (status, out) == (0, "P_200                 \tall\t0.0213\n") and "exact" not in err
    status, out, err = _tiedrank(["-m", "P.200", "--out", str(tmp_path / "out"), *files])
    assert (status, out) == (0, "P_200                 \tall\t0.0212\n")
    assert "exact means, not trec_eval's accumulation" in err
