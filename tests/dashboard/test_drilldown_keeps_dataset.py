"""A drill-down keeps the user's dataset, settings and the clicked query.

Streamlit's ``st.switch_page`` (what a click on a per-query bar calls) reruns without the
browser's widget states, so every sidebar widget that is not kept for the session was reset:
"Two runs, one query" opened on LLMJudge, relevance level 2, with the query lost. The tests
click through the chart's selection state, as the browser does.
"""
from __future__ import annotations

import pytest

from apptest_support import assert_no_trouble, new_app

pytestmark = pytest.mark.usefixtures("navigation_pages")


def _click(at, chart_key: str, point: dict):
    at.session_state[chart_key] = {"selection": {"points": [point], "point_indices": [0],
                                                 "box": [], "lasso": []}}
    return at.run()


def test_compare_drilldown_on_simulated_opens_the_pair_on_that_dataset():
    at = new_app().run()
    at.radio(key="dataset").set_value("simulated").run()
    at.number_input(key="k").set_value(5).run()
    at.switch_page("pages/compare.py").run()
    assert_no_trouble(at)
    run, baseline = at.selectbox(key="compare_run").value, at.selectbox(key="compare_baseline").value
    at = _click(at, "compare_difference_chart", {"x": "q007"})
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Two runs, one query")
    assert at.session_state["dataset"] == "simulated"
    assert at.number_input(key="k").value == 5
    assert "Simulated rerankers" in at.markdown[0].value
    assert at.selectbox(key="sbs_run_a").value == run
    assert at.selectbox(key="sbs_run_b").value == baseline
    assert at.selectbox(key="sbs_query").value == "q007"
    assert at.query_params["dataset"] == "simulated" and at.query_params["query"] == "q007"
    assert at.query_params["k"] == "5"


def test_spread_drilldown_on_trec_eval_opens_tie_structure_on_that_dataset():
    at = new_app().run()
    at.radio(key="dataset").set_value("trec_eval").run()
    at.switch_page("pages/spread.py").run()
    assert_no_trouble(at)
    at = _click(at, "spread_range_chart", {"y": "302"})
    assert_no_trouble(at)
    assert at.session_state["dataset"] == "trec_eval"
    assert at.session_state["rel_level"] == 1
    assert at.selectbox(key="tie_query").value == "302"


QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 0\nq2 0 d4 1\n"
RUN_A = b"q1 Q0 d1 1 2.0 alpha\nq1 Q0 d2 2 2.0 alpha\nq1 Q0 d3 3 1.0 alpha\nq2 Q0 d4 1 1.0 alpha\n"
RUN_B = b"q1 Q0 d3 1 3.0 beta\nq1 Q0 d1 2 1.0 beta\nq2 Q0 d1 1 1.0 beta\nq2 Q0 d4 2 1.0 beta\n"


def test_compare_drilldown_on_uploads_keeps_the_uploads():
    at = new_app().run()
    at.radio(key="dataset").set_value("upload").run()
    at.file_uploader(key="upload_qrels").set_value(("qrels.txt", QRELS, "text/plain"))
    at.file_uploader(key="upload_runs").set_value([("alpha.txt", RUN_A, "text/plain"),
                                                   ("beta.txt", RUN_B, "text/plain")])
    at.run()
    at.switch_page("pages/compare.py").run()
    assert_no_trouble(at)
    at = _click(at, "compare_difference_chart", {"x": "q2"})
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Two runs, one query")
    assert at.session_state["dataset"] == "upload"
    assert "Uploaded: 2 runs" in at.markdown[0].value
    assert {at.selectbox(key="sbs_run_a").value, at.selectbox(key="sbs_run_b").value} == {"alpha", "beta"}
    assert at.selectbox(key="sbs_query").value == "q2"
    # the sidebar says which files it still uses; another page keeps them too
    assert any("Still using the files uploaded before" in c.value for c in at.sidebar.caption)
    at.switch_page("pages/overview.py").run()
    assert_no_trouble(at)
    assert at.session_state["dataset"] == "upload" and at.session_state["tiedrank_context"] is not None
