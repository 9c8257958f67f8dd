"""Every metric cutoff is bounded with the one message form;
in-memory inputs get the checks a file gets (one door: the DataFrame reader); unclear
messages made clear (comment-only runs, '-' twice, --seed, TsRR's alpha)."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate, parse_metric, read_qrels, read_run
from tiedrank.core.errors import InputError
from tiedrank.metrics import Metric
from tiedrank.metrics.registry import MAX_CUTOFF
from tiedrank.core.validation import InvalidParameterError

QRELS, RUN = "sample_data/trec_eval/qrels.test", "sample_data/trec_eval/results.test"


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tiedrank", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


# ---- item 10: cutoffs -----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["TMHits_GRAG@9223372036854775808", "P@" + "1" + "0" * 30,
                                  "RR@0", "nDCG@2147483648", "Hits@99999999999999999999"])
def test_a_cutoff_out_of_range_is_one_message(name):
    with pytest.raises(InvalidParameterError, match=r"k= must be an integer in \[1, 2,147,483,647\]"):
        parse_metric(name)
    done = _cli("evaluate", QRELS, RUN, "-m", name)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "must be an integer in [1, 2,147,483,647]" in done.stderr


def test_the_largest_cutoff_works_everywhere():
    run, qrels = read_run(RUN), read_qrels(QRELS)
    names = [f"{m}@{MAX_CUTOFF}" for m in ("P", "RR", "Hits", "Success", "nDCG", "AP",
                                           "TMHits_GRAG", "R", "DCG")]
    ev = evaluate(run, qrels, names)
    assert np.isfinite(ev.summary["value"]).all()
    with pytest.raises(InvalidParameterError):
        Metric("P", k=MAX_CUTOFF + 1)


# ---- item 13: in-memory inputs get the file's checks ---------------------------------------
def test_a_huge_grade_in_a_dict_is_grade_out_of_range():
    with pytest.raises(InputError, match="line 1: grade out of range"):
        evaluate({"q": {"d": 1.0}}, {"q": {"d": 10**30}}, ["RR"])
    with pytest.raises(InputError, match="line 2: grade out of range"):
        read_qrels(pd.DataFrame({"query": ["q", "q"], "doc": ["a", "b"],
                                 "relevance": [1, 10**30]}))
    with pytest.raises(InputError, match="line 1: grade out of range"):
        read_qrels([("q", "d", -10**19)])


@pytest.mark.parametrize("score", [1 + 2j, np.complex128(1)])
def test_complex_scores_are_an_input_error(score):
    with pytest.raises(InputError, match="non-numeric score"):
        evaluate({"q": {"d": score}}, {"q": {"d": 1}}, ["RR"])
    with pytest.raises(InputError, match="non-numeric score"):
        read_run(pd.DataFrame({"query": ["q"], "doc": ["d"], "score": [score]}))


def test_a_nan_score_is_called_nan_not_missing():
    for source in ({"q": {"d": float("nan")}}, [("q", "d", np.nan)]):
        with pytest.raises(InputError, match=r"NaN or infinite score: .*score=nan"):
            read_run(source)
    with pytest.raises(InputError, match="missing score"):  # None is missing
        read_run({"q": {"d": None}})
    # in a DataFrame NaN is pandas' missing value (an emptied cell of the dashboard editor)
    with pytest.raises(InputError, match="missing score"):
        read_run(pd.DataFrame({"query": ["q"], "doc": ["d"], "score": [np.nan]}))
    with pytest.raises(InputError, match="NaN or infinite score"):  # as a file says it
        read_run(b"q Q0 d 1 nan r\n")


# ---- item 15: unclear messages --------------------------------------------------------------
def test_a_run_of_only_comments_says_so(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("# a comment\n# another\n")
    with pytest.raises(InputError, match=r"no data lines \(only comments\)"):
        read_run(path)
    for extra in ((), ("--buckets", "2", "--spill-dir", str(tmp_path))):
        done = _cli("evaluate", QRELS, str(path), *extra)
        assert done.returncode == 2 and "no data lines (only comments)" in done.stderr
        assert "unknown format" not in done.stderr


def test_dash_twice_names_the_repetition():
    text = open(RUN).read()
    for args in (("evaluate", "-", "-"), ("evaluate", QRELS, "-", "-")):
        done = _cli(*args, stdin=text)
        assert done.returncode == 2
        assert "'-' is given more than once" in done.stderr, done.stderr


@pytest.mark.parametrize("seed", ["-1", str(2**70)])
def test_seed_is_one_rule_in_evaluate_and_compare(seed):
    """Both accept any integer (the seed keys a stable hash; it is never a count)."""
    evaluated = _cli("evaluate", QRELS, RUN, "-m", "RR", "--ties", "random", "--seed", seed)
    compared = _cli("compare", QRELS, RUN, RUN, "-m", "RR", "--seed", seed, "--draws", "20")
    assert evaluated.returncode == 0, evaluated.stderr
    assert compared.returncode == 0, compared.stderr
    for command in ("evaluate", "compare") if seed == "-1" else ():  # the same for any seed
        done = _cli(command, QRELS, RUN, RUN, "--seed", "x")
        assert done.returncode == 2 and "--seed" in done.stderr


def test_tsrr_with_a_subnormal_alpha_leaks_no_warning():
    run, qrels = read_run(RUN), read_qrels(QRELS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny = evaluate(run, qrels, ["TsRR(alpha=1e-320)"]).summary["value"]
        small = evaluate(run, qrels, ["TsRR(alpha=1e-300)"]).summary["value"]
    assert np.isfinite(tiny).all()
    assert tiny.tolist() == small.tolist()  # the limit, already reached at 1e-300
