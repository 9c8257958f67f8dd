"""``round=`` / ``--round`` stays in float64's domain: rounding never merges scores that
rounding to d decimals keeps apart (1e300 and 2e300 with ``round=15`` overflowed in
np.round's scaling and became one tie), and no numpy warning leaks (issue 19, item 2)."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tiedrank import evaluate, read_qrels, read_run
from tiedrank.core.rounding import round_scores

RUN = b"q1 Q0 d1 1 2e300 r\nq1 Q0 d2 2 1e300 r\n"
QRELS = b"q1 0 d1 1\n"


def test_huge_scores_stay_apart_in_evaluate():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = evaluate(read_run(RUN), read_qrels(QRELS), ["RR"], round=15)
    assert got.report()["expected"].tolist() == [1.0]


def test_huge_scores_stay_apart_in_the_cli(tmp_path):
    (tmp_path / "run").write_bytes(RUN)
    (tmp_path / "qrels").write_bytes(QRELS)
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", str(tmp_path / "qrels"),
                           str(tmp_path / "run"), "-m", "RR", "--round", "15", "--format", "csv",
                           "--ties", "expected"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "RuntimeWarning" not in done.stderr
    assert "r,RR,1,1.0000" in done.stdout.splitlines()


@pytest.mark.parametrize("decimals", [0, 3, 15])
def test_ordinary_scores_round_as_numpy(decimals):
    values = np.array([0.123456789, -2.5, 1234.56789, 1e-20, 0.0, np.nan, np.inf, -np.inf])
    got, want = round_scores(values, decimals), np.round(values, decimals)
    assert np.array_equal(got, want, equal_nan=True)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(allow_nan=False,
       allow_infinity=False), st.integers(0, 15))
def test_rounding_never_merges_what_mathematics_keeps_apart(a, b, decimals):
    """Rounded equal only if the exact decimal roundings are within float64's reach."""
    ra, rb = round_scores(np.array([a, b]), decimals)
    assert np.isfinite(ra) and np.isfinite(rb)
    if ra == rb and a != b:
        # both are then small enough to be rounded, and truly within 10**-d of each other
        assert abs(a - b) <= 10.0 ** -decimals * (1 + 1e-9)
    with np.errstate(all="raise"):
        round_scores(np.array([a, b]), decimals)
