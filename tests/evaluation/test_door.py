"""The Python door, :func:`tiedrank.evaluate`: what it says when the data cannot give a
number."""
from __future__ import annotations

import warnings

import pandas as pd
import pytest


def test_evaluate_warns_when_the_run_shares_no_query_with_the_qrels():
    """A run and qrels with no query in common give NaN means: said aloud, naming both sides'
    queries and what to pass instead (a partial overlap is findings only: the means are
    defined); under complete= every query scores 0, also said."""
    from tiedrank import evaluate

    qrels = pd.DataFrame({"query": ["q1", "q2"], "doc": ["a", "b"], "relevance": [1, 1]})
    run = pd.DataFrame({"query": ["q9"], "doc": ["a"], "score": [1.0]})
    with pytest.warns(UserWarning, match=r"^evaluate\(\): run 'run' shares no query with qrels="):
        report = evaluate(run, qrels, "RR").report()
    assert report["expected"].isna().all()
    with pytest.warns(UserWarning, match=r"its 1 query: 'q9'; the qrels' 2: 'q1', 'q2'\), so every "
                      r"query scores 0 \(complete=True\)"):
        assert evaluate(run, qrels, "RR", complete=True).report()["expected"].tolist() == [0.0]


def test_a_partial_overlap_stays_silent_with_its_findings():
    """The contrast the warning above must keep: queries partly shared give a number and
    findings, no warning."""
    from tiedrank import evaluate

    qrels = pd.DataFrame({"query": ["q1", "q2"], "doc": ["a", "b"], "relevance": [1, 1]})
    run = pd.DataFrame({"query": ["q1", "q3"], "doc": ["a", "b"], "score": [1.0, 1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        ev = evaluate(run, qrels, "RR")
    assert ev.report()["expected"].tolist() == [1.0]
    assert {f.kind for f in ev.findings} == {"queries_not_in_qrels", "queries_missing_from_run"}
