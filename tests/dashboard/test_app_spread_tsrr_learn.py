"""The Spread, TsRR and Learn pages through Streamlit's AppTest (no browser).

Each page is opened on the default sample data (LLMJudge, relevance level 2) and after an
upload; one or more controls are operated and the displayed values are checked against
tiedrank itself.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from apptest_support import assert_no_trouble
from streamlit.testing.v1 import AppTest

from tiedrank.dashboard import learn
from tiedrank.dashboard.tsrr import appended_example

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")

# q1: d1 (relevant) tied with d2; q2: its relevant document e9 is never retrieved.
QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 e9 1\nq2 0 e1 0\n"
RUN_A = (b"q1 Q0 d1 1 0.5 alpha\nq1 Q0 d2 2 0.5 alpha\nq1 Q0 d3 3 0.2 alpha\n"
         b"q2 Q0 e1 1 0.9 alpha\nq2 Q0 e2 2 0.9 alpha\n")
RUN_B = (b"q1 Q0 d3 1 0.7 beta\nq1 Q0 d1 2 0.7 beta\nq1 Q0 d2 3 0.7 beta\n"
         b"q2 Q0 e1 1 0.4 beta\n")


pytestmark = pytest.mark.usefixtures("navigation_pages")


def _text(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in [*at.markdown, *at.caption, *at.warning, *at.info])


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _open(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.switch_page(page)
    return at.run()


def _upload(at: AppTest) -> AppTest:
    at.radio(key="dataset").set_value("upload").run()
    at.file_uploader(key="upload_qrels").set_value(("qrels.txt", QRELS, "text/plain"))
    at.file_uploader(key="upload_runs").set_value([("alpha.txt", RUN_A, "text/plain"),
                                                   ("beta.txt", RUN_B, "text/plain")])
    at.run()
    at.number_input(key="rel_level").set_value(1)  # binary judgements: grade 1 is relevant
    return at.run()


def _charts(at: AppTest) -> int:
    return len(at.get("plotly_chart"))


# ---- Spread ----------------------------------------------------------------------------------
def test_spread_page_on_sample_data():
    at = _open("pages/spread.py")
    assert_no_trouble(at)
    assert at.title[0].value == "Permutation spread"
    assert _charts(at) == 4  # pmf, ranges, precision-recall band, histogram
    assert at.selectbox(key="spread_run").value == "NISTRetrieval-instruct0"
    text = _text(at)
    assert "trec_eval's order gives" in text and "of 1,000 random tie-breaks" in text
    assert at.number_input(key="spread_draws").value == 1000
    assert at.number_input(key="spread_seed").value == 0
    # the widest RR range comes first: best 1, and the marks agree with the metrics shown
    assert float(_metric(at, "RR, best case")) >= float(_metric(at, "RR, expected (exact)"))
    assert float(_metric(at, "RR, expected (exact)")) >= float(_metric(at, "RR, worst case"))


@pytest.mark.slow  # deep profile: the stateful walks and CI's browser step (app and slow) cover it
def test_spread_controls():
    at = _open("pages/spread.py")
    at.selectbox(key="spread_run").select("Olz-gpt4o").run()
    assert_no_trouble(at)
    queries = at.selectbox(key="spread_query").options
    assert len(queries) == 25
    at.selectbox(key="spread_query").select_index(1).run()
    assert_no_trouble(at)
    assert at.selectbox(key="spread_query").index == 1
    at.selectbox(key="spread_metric").select("nDCG@10").run()
    assert_no_trouble(at)
    assert "queries change nDCG@10" in _text(at)
    before = [m for m in at.markdown if "random tie-breaks" in m.value][0].value
    at.number_input(key="spread_seed").set_value(5).run()
    at.number_input(key="spread_draws").set_value(300).run()
    assert_no_trouble(at)
    after = [m for m in at.markdown if "random tie-breaks" in m.value][0].value
    assert "of 300 random tie-breaks" in after and after != before


# ---- TsRR ------------------------------------------------------------------------------------
def test_tsrr_page_on_sample_data():
    at = _open("pages/tsrr.py")
    assert_no_trouble(at)
    assert at.title[0].value == "TsRR alpha sweep"
    assert _charts(at) == 3  # sweep and the two pathologies
    assert len(at.get("latex")) >= 2
    assert at.select_slider(key="tsrr_alpha_range").value == (0.01, 100.0)
    assert len(at.multiselect(key="tsrr_runs").value) == 8
    assert _metric(at, "TsRR (every alpha)") == "0.0000"
    assert float(_metric(at, "E[RR]")) > 0


@pytest.mark.slow  # deep profile: the stateful walks and CI's browser step (app and slow) cover it
def test_tsrr_controls():
    at = _open("pages/tsrr.py")
    start = float(_metric(at, "TsRR, alpha = 1"))
    assert start == pytest.approx(appended_example(max_appended=10)["TsRR(alpha=1)"].iloc[10], abs=1e-4)
    at.slider(key="tsrr_appended").set_value(100).run()
    assert_no_trouble(at)
    assert float(_metric(at, "TsRR, alpha = 1")) > start  # the value rises
    at.select_slider(key="tsrr_alpha_range").set_value((0.1, 31.6)).run()
    at.select_slider(key="tsrr_alpha").set_value(10.0).run()
    assert_no_trouble(at)
    assert any(h.value.startswith("Per query at alpha = 10") for h in at.header)
    at.selectbox(key="tsrr_table_run").select("TREMA-all").run()
    at.multiselect(key="tsrr_runs").set_value(["TREMA-all", "Olz-gpt4o"]).run()
    assert_no_trouble(at)
    at.multiselect(key="tsrr_runs").set_value([]).run()
    assert_no_trouble(at)
    assert "Pick at least one run" in _text(at)
    at.slider(key="tsrr_tied_docs").set_value(20).run()
    assert_no_trouble(at)
    assert _metric(at, "TsRR (every alpha)") == "0.0000"


# ---- Learn -----------------------------------------------------------------------------------
@pytest.mark.parametrize("key, fraction", [("S1", "0.5 (= 1/2)"), ("S2", "0.416667 (= 5/12)"),
                                           ("S3", "0.611111 (= 11/18)"), ("S4", "0.416667 (= 5/12)")])
def test_learn_seed_scenarios(key, fraction):
    at = _open("pages/learn.py")
    at.selectbox(key="learn_scenario").select(key).run()
    assert_no_trouble(at)
    assert f"E[RR] = {fraction}" in _text(at)
    expected = learn.evaluate_toy(learn.SCENARIOS[key].frame()).value("RR")
    assert _metric(at, "E[RR]") == f"{expected:.4f}"
    summary = next(d.value for d in at.dataframe if "mean over orderings" in d.value.columns)
    assert (summary["difference"].abs() < 1e-12).all()
    assert summary.set_index("metric").loc["RR", "mean over orderings"] == pytest.approx(expected)


@pytest.mark.slow  # deep profile: the stateful walks and CI's browser step (app and slow) cover it
def test_learn_every_scenario_and_controls():
    at = _open("pages/learn.py")
    for key in learn.SCENARIOS:
        at.selectbox(key="learn_scenario").select(key).run()
        assert_no_trouble(at)
    at.number_input(key="learn_k").set_value(5).run()
    at.number_input(key="learn_alpha").set_value(2.0).run()
    at.segmented_control(key="learn_gain").set_value("exp").run()
    assert_no_trouble(at)
    metrics = next(d.value for d in at.dataframe if "metric" in d.value.columns and "file order" in d.value.columns)
    assert "P@5" in metrics["metric"].tolist() and "TsRR(alpha=2)" in metrics["metric"].tolist()
    at.slider(key="learn_curve_r").set_value(3).run()
    assert_no_trouble(at)


def test_learn_invalid_edits_show_errors():
    at = _open("pages/learn.py")  # S2 by default
    at.session_state["learn_editor_S2"] = {"edited_rows": {"1": {"doc": "d1"}}, "added_rows": [],
                                           "deleted_rows": []}
    at.run()
    assert not at.exception
    assert any("the document id 'd1' is also on row 1" in e.value for e in at.error)
    at.session_state["learn_editor_S2"] = {"edited_rows": {"1": {"score": None}}, "added_rows": [],
                                           "deleted_rows": []}
    at.run()
    assert not at.exception
    assert any("Row 2 (d2): the score is empty" in e.value for e in at.error)
    # a valid edit: d3 joins d1 at the top, so d2 (relevant) is alone at rank 3
    at.session_state["learn_editor_S2"] = {"edited_rows": {"2": {"score": 0.9}}, "added_rows": [],
                                           "deleted_rows": []}
    at.run()
    assert_no_trouble(at)
    assert _metric(at, "E[RR]") == "0.3333"


def test_learn_too_many_orderings():
    at = _open("pages/learn.py")
    at.selectbox(key="learn_scenario").select("V6").run()
    rows = [{"doc": f"x{i}", "score": 0.5, "grade": 0} for i in range(2)]  # 7 tied: 5,040 orderings
    at.session_state["learn_editor_V6"] = {"edited_rows": {}, "added_rows": rows, "deleted_rows": []}
    at.run()
    assert_no_trouble(at)
    assert any("5,040 orderings" in w.value for w in at.warning)


# ---- after an upload -------------------------------------------------------------------------
@pytest.mark.slow  # deep profile: the stateful walks switch datasets and upload; CI's browser step runs it
@pytest.mark.parametrize("page", ["pages/spread.py", "pages/tsrr.py", "pages/learn.py"])
def test_pages_after_upload(page):
    at = _upload(_open(page))
    assert_no_trouble(at)
    assert any(c.value.startswith("2 runs") for c in at.sidebar.caption)
    if page == "pages/spread.py":
        assert at.selectbox(key="spread_run").options == ["alpha", "beta"]
        assert at.selectbox(key="spread_query").value == "q1"  # the widest range first
        assert _metric(at, "RR, expected (exact)") == "0.7500"
        at.selectbox(key="spread_query").set_value("q2").run()
        assert_no_trouble(at)
        assert "no relevant document" in _text(at)
        at.selectbox(key="spread_run").select("beta").run()
        assert_no_trouble(at)
    elif page == "pages/tsrr.py":
        assert at.multiselect(key="tsrr_runs").value == ["alpha", "beta"]
        table = next(d.value for d in at.dataframe if "F_total" in d.value.columns)
        assert table["query"].tolist() == ["q1", "q2"]
        assert table.set_index("query").loc["q1", "E[RR]"] == pytest.approx(0.75)
    else:
        assert _metric(at, "E[RR]") == "0.4167"  # the toy ignores the data


# ---- other data and settings -----------------------------------------------------------------
@pytest.mark.slow  # deep profile: the stateful walks switch datasets and upload; CI's browser step runs it
@pytest.mark.parametrize("page", ["pages/spread.py", "pages/tsrr.py"])
def test_pages_on_trec_eval_data_and_other_settings(page):
    at = AppTest.from_file(APP, default_timeout=30).run()
    at.radio(key="dataset").set_value("trec_eval").run()
    assert_no_trouble(at)
    at.switch_page(page)
    at.run()
    assert_no_trouble(at)
    assert _charts(at) == (4 if page == "pages/spread.py" else 3)  # Spread: + precision-recall
    at.number_input(key="k").set_value(5).run()
    at.selectbox(key="round").set_value(1).run()
    at.segmented_control(key="gain").set_value("exp").run()
    assert_no_trouble(at)
    if page == "pages/spread.py":
        assert len(at.selectbox(key="spread_run").options) == 1  # one run
        at.selectbox(key="spread_metric").select("P@5").run()
        assert_no_trouble(at)
        assert "P@5" in _text(at)


def test_spread_page_with_a_strict_relevance_level():
    at = AppTest.from_file(APP, default_timeout=30).run()
    at.number_input(key="rel_level").set_value(3).run()
    at.switch_page("pages/spread.py")
    at.run()
    assert_no_trouble(at)
    at.selectbox(key="spread_metric").select("AP").run()
    assert_no_trouble(at)
    assert _charts(at) == 4
