"""One word per tie policy: ``best`` and ``worst`` (``optimistic`` and ``pessimistic`` until
0.3). The old names are still read, with a DeprecationWarning that points at the caller's
line and says what to type, and give the same numbers as the new ones (the oracle: the
brute-force extremes of the enumeration, through the new names)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from tiedrank import build_tie_table, evaluate, metric_values, parse_policies, read_qrels, read_run
from tiedrank.core.policies import ALL_POLICIES, POLICIES, POLICY_WRAPPERS

RUN = pd.DataFrame({"query": ["q"] * 4 + ["r"] * 3, "doc": list("abcdefg"),
                    "score": [2.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1]})
QRELS = pd.DataFrame({"query": ["q", "q", "r"], "doc": ["c", "d", "f"], "relevance": [1, 2, 1]})


def test_the_vocabulary_is_best_and_worst():
    assert POLICIES == ("expected", "best", "worst", "trec_eval", "input", "random")
    assert ALL_POLICIES == ("expected", "best", "worst", "trec_eval")
    assert POLICY_WRAPPERS["Best"] == "best" and POLICY_WRAPPERS["Worst"] == "worst"


@pytest.mark.parametrize("old, new", [("optimistic", "best"), ("pessimistic", "worst")])
def test_an_old_name_warns_at_the_callers_line_and_gives_the_same_numbers(old, new):
    with pytest.warns(DeprecationWarning, match=rf"ties='{old}' is deprecated: type ties='{new}'") as caught:
        ev_old = evaluate(RUN, QRELS, ["RR", "nDCG@10", "AP"], ties=old)
    assert {record.filename for record in caught} == {__file__}
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        ev_new = evaluate(RUN, QRELS, ["RR", "nDCG@10", "AP"], ties=new)
    pd.testing.assert_frame_equal(ev_old.per_query, ev_new.per_query)
    assert set(ev_new.per_query["policy"]) == {new}


def test_the_old_names_in_a_list_a_table_and_an_extreme():
    with pytest.warns(DeprecationWarning):
        assert [p.name for p in parse_policies("expected,optimistic,pessimistic")] == [
            "expected", "best", "worst"]
    table = build_tie_table(read_run(RUN), read_qrels(QRELS))
    with pytest.warns(DeprecationWarning, match="policy='optimistic'"):
        resolved = table.resolve("optimistic")
    np.testing.assert_array_equal(metric_values(resolved, "AP"), metric_values(table.resolve("best"), "AP"))
    with pytest.warns(DeprecationWarning, match="extreme='pessimistic'"):
        old = metric_values(table, "unj@2", extreme="pessimistic")
    np.testing.assert_array_equal(old, metric_values(table, "unj@2", extreme="worst"))


def test_best_and_worst_are_the_extremes_of_every_ordering():
    """The oracle: every ordering of each query's tie groups, enumerated."""
    from tiedrank.sampling.enumeration import enumerate_orderings

    ev = evaluate(RUN, QRELS, ["AP"], ties="all")
    values = ev.per_query.set_index(["query", "policy"])["value"]
    grades = {"c": 1, "d": 2, "f": 1}
    for query, frame in RUN.groupby("query"):
        every = enumerate_orderings(frame["score"].tolist(),
                                    [grades.get(d, 0) for d in frame["doc"]], ["AP"])["AP"]
        assert values[query, "best"] == pytest.approx(every.max())
        assert values[query, "worst"] == pytest.approx(every.min())
