"""Query groups: reading the group file, and the per-group means."""
from __future__ import annotations

import pandas as pd
import pytest
from stats_support import per_query

from tiedrank import stats as S
from tiedrank.core.errors import InputError
from tiedrank.io import read_groups


def test_read_groups_inputs_and_errors(tmp_path):
    path = tmp_path / "groups.csv"
    path.write_text("query,group,note\nq1,short,x\n\nNA,long,y\n")
    frame = read_groups(path)
    assert frame.values.tolist() == [["q1", "short"], ["NA", "long"]]
    assert read_groups({"q1": "x"}).values.tolist() == [["q1", "x"]]
    assert read_groups(pd.DataFrame({"query": [1], "group": ["g"]})).values.tolist() == [["1", "g"]]
    path.write_text("query,group\nq1,a\nq2,b\n\nq1,c\n")
    with pytest.raises(InputError) as info:
        read_groups(path)
    assert info.value.line == 5 and "first on line 2" in str(info.value) and str(path) in str(info.value)
    with pytest.raises(InputError, match="missing column"):
        read_groups(b"qid,group\nq1,a\n")
    with pytest.raises(InputError, match="empty group"):
        read_groups(b"query,group\nq1,\n")
    with pytest.raises(InputError, match="empty file"):
        read_groups(b"")


def test_group_breakdown_constructed():
    values = {"A": {"q1": 1.0, "q2": 0.5, "q3": 0.0, "q4": 0.25},
              "B": {"q1": 0.5, "q2": 0.5, "q3": 1.0, "q4": 0.75}}
    pq = pd.concat([per_query(values, "RR", "expected"),
                    per_query({r: {q: v / 2 for q, v in qs.items()} for r, qs in values.items()},
                               "RR", "trec_eval")], ignore_index=True)
    groups = pd.DataFrame({"query": ["q1", "q2", "q3", "q9"], "group": ["x", "x", "y", "y"]})
    result = S.group_breakdown(pq, groups)
    table = result.table.set_index(["run", "metric", "policy", "group"])
    assert table.loc[("A", "RR", "expected", "x"), "value"] == pytest.approx(0.75)
    assert table.loc[("A", "RR", "expected", "x"), "n_queries"] == 2
    assert table.loc[("B", "RR", "expected", "y"), "value"] == pytest.approx(1.0)
    assert table.loc[("B", "RR", "trec_eval", "y"), "value"] == pytest.approx(0.5)
    assert table.loc[("B", "RR", "expected", "y"), "n_queries"] == 1  # q9 unknown, q4 ungrouped
    assert len(result.table) == 8
    kinds = {f.kind: f for f in result.findings}
    assert kinds["group_queries_not_evaluated"].queries == ("q9",)
    assert kinds["queries_without_group"].queries == ("q4",)
