"""AppTest: the "Two runs, one query" page on the bundled data, its link and Compare's click."""
from __future__ import annotations

import pytest

from apptest_support import assert_no_trouble, new_app
from tiedrank.dashboard.drilldown import DRILL_PAIR_KEY

pytestmark = pytest.mark.usefixtures("navigation_pages")
PAGE = "pages/side_by_side.py"


def _groups(at) -> list:
    """The two tie-group tables (A, then B): the frames with the other run's places."""
    return [df.value for df in at.dataframe if "other_ranks" in df.value.columns]


def _simulated(**params):
    at = new_app()
    at.session_state["dataset"] = "simulated"
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    return at


def test_page_renders_and_picking_a_query_shows_its_groups():
    at = _simulated()
    at.switch_page(PAGE).run()
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Two runs, one query")
    assert [h.value for h in at.header][:4] == [
        "Each run's range on this query", "Where each run puts the relevant documents",
        "From run A's ranks to run B's", "The tie groups side by side"]
    assert len(at.get("plotly_chart")) == 1
    at.selectbox(key="sbs_run_a").set_value("3-point")
    at.selectbox(key="sbs_run_b").set_value("fine-grained")
    at.selectbox(key="sbs_query").set_value("q017").run()
    assert_no_trouble(at)
    left, right = _groups(at)
    assert len(left) and len(right)
    assert all(d.startswith("q017-") for d in [*left["doc"], *right["doc"]])
    assert left["ranks"].str.contains("-").any()  # 3-point ties: spans such as 3-45
    assert not right["ranks"].str.contains("-").any()  # fine-grained: one document per group
    # the same document, seen from the other side: its span in the other run
    a_span = dict(zip(left["doc"], left["ranks"]))
    assert all(right.loc[right["doc"] == d, "other_ranks"].item() == a_span[d]
               for d in set(right["doc"]) & set(a_span))
    ranges = next(df.value for df in at.dataframe if "trec_eval" in df.value.columns)
    assert ranges["run"].tolist() == ["3-point", "fine-grained"]
    assert ranges.set_index("run").loc["fine-grained", "range"] == pytest.approx(0.0)
    assert at.query_params["run_a"] == "3-point" and at.query_params["query"] == "q017"


def test_a_link_opens_the_runs_and_the_query():
    at = _simulated(run_a="bf16", run_b="5-point", query="q033", metric="RR")
    at.switch_page(PAGE).run()
    assert_no_trouble(at)
    assert at.selectbox(key="sbs_run_a").value == "bf16"
    assert at.selectbox(key="sbs_run_b").value == "5-point"
    assert at.selectbox(key="sbs_query").value == "q033"
    assert at.selectbox(key="sbs_metric").value == "RR"
    assert all(d.startswith("q033-") for frame in _groups(at) for d in frame["doc"])


def test_bad_values_in_the_link_are_ignored():
    at = _simulated(run_a="nope", query="../../etc", metric="DROP")
    at.switch_page(PAGE).run()
    assert_no_trouble(at)
    assert at.selectbox(key="sbs_run_a").value != "nope"
    assert at.query_params["run_a"] == at.selectbox(key="sbs_run_a").value


def test_a_click_on_compare_opens_the_pair_here():
    """What Compare's per-query differences store on a click (the browser test clicks)."""
    at = _simulated()
    at.session_state[DRILL_PAIR_KEY] = {"sbs_run_a": "0-10", "sbs_run_b": "fine-grained",
                                        "sbs_query": "q005", "sbs_metric": "P@5"}
    at.switch_page(PAGE).run()
    assert_no_trouble(at)
    assert at.selectbox(key="sbs_run_a").value == "0-10"
    assert at.selectbox(key="sbs_query").value == "q005"
    assert at.selectbox(key="sbs_metric").value == "P@5"  # typed on Compare: still offered
    assert at.query_params["run_b"] == "fine-grained" and at.query_params["metric"] == "P@5"


def test_llmjudge_renders():
    at = new_app().run()  # the default dataset: 8 runs, massive ties, relevance level 2
    at.switch_page(PAGE).run()
    assert_no_trouble(at)
    assert len(_groups(at)) == 2


def test_a_link_naming_run_a_only_shows_another_run_as_b():
    """Tie structure's link names the run and the query only."""
    at = _simulated(run_a="0-10", query="q002")  # B's first-visit default is 0-10 too
    at.switch_page(PAGE).run()
    assert_no_trouble(at)
    assert at.selectbox(key="sbs_run_a").value == "0-10"
    assert at.selectbox(key="sbs_run_b").value not in (None, "0-10")
    assert at.query_params["query"] == "q002"


def test_tie_structure_opens_its_query_here():
    """Tie structure's button opens its run (as A) and query here; the way back is in
    test_app_back_link.py."""
    at = _simulated()
    at.switch_page("pages/tie_structure.py").run()
    assert_no_trouble(at)
    run, query = at.selectbox(key="tie_run").value, at.selectbox(key="tie_query").value
    at.button(key="tie_open_pair").click().run()
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Two runs, one query")
    assert at.selectbox(key="sbs_run_a").value == run
    assert at.selectbox(key="sbs_run_b").value not in (None, run)
    assert at.selectbox(key="sbs_query").value == query
    assert (at.query_params["run_a"], at.query_params["query"]) == (run, query)
