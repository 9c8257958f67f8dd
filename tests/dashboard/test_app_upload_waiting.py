"""One upload waiting for its column mapping (or unreadable) hides nothing else (issue 28,
item 6): the readable runs stay on every page with the waiting file flagged, and a mapping
once complete looks complete (its expander loses the warning icon and the "Choose which
columns…" caption)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from apptest_support import assert_no_trouble, new_app

pytestmark = pytest.mark.usefixtures("navigation_pages")

QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 0\nq2 0 d4 1\n"
RUNS = [(f"{name}.txt", text.encode(), "text/plain") for name, text in {
    "alpha": "q1 Q0 d1 1 2.0 alpha\nq1 Q0 d2 2 2.0 alpha\nq1 Q0 d3 3 1.0 alpha\nq2 Q0 d4 1 1.0 alpha\n",
    "beta": "q1 Q0 d3 1 3.0 beta\nq1 Q0 d1 2 1.0 beta\nq2 Q0 d1 1 1.0 beta\nq2 Q0 d4 2 1.0 beta\n",
    "gamma": "q1 Q0 d2 1 3.0 gamma\nq1 Q0 d1 2 3.0 gamma\nq2 Q0 d4 1 1.0 gamma\n"}.items()]
# no column name the readers know: all three fields wait for the sidebar's mapping
CSV = ("scores.csv", b"topic_no,passage,relevance_score\nq1,d1,0.5\nq1,d2,0.5\nq1,d3,0.2\nq2,d4,0.9\n",
       "text/csv")
BROKEN = ("broken.txt", b"q1 Q0 d1 1 0.5 x\nq1 Q0 d2 2 high x\n", "text/plain")


def _uploaded(runs) -> AppTest:
    at = new_app()
    at.query_params["dataset"] = "upload"
    at.run()
    at.file_uploader(key="upload_qrels").set_value(("qrels.txt", QRELS, "text/plain"))
    at.file_uploader(key="upload_runs").set_value(runs)
    return at.run()


def _runs_shown(at: AppTest) -> list[str]:
    return at.dataframe[0].value["run"].tolist()  # the Overview table


def _mapping(at: AppTest, name: str):
    return next(e for e in at.expander if e.label == f"Columns of {name}")


def test_a_csv_waiting_for_its_columns_leaves_the_readable_runs_shown():
    at = _uploaded([*RUNS, CSV])
    assert not at.exception
    assert _runs_shown(at) == ["alpha", "beta", "gamma"]
    flagged = [i.value for i in at.info if "scores.csv" in i.value]
    assert len(flagged) == 1 and "waits for its columns" in flagged[0], [i.value for i in at.info]
    assert "other runs" in flagged[0]
    assert not any("Nothing to show" in i.value for i in at.info)
    waiting = _mapping(at, "scores.csv")
    assert waiting.icon == ":material/warning:"
    assert any("Choose which columns" in c.value for c in waiting.caption)
    # the other pages show them too, the flag with them
    at.switch_page("pages/tie_structure.py").run()
    assert at.selectbox(key="tie_run").options == ["alpha", "beta", "gamma"]
    assert any("scores.csv" in i.value for i in at.info)
    at.switch_page("pages/overview.py").run()

    boxes = {box.label: box for box in at.selectbox if box.key and box.key.startswith("colmap_")}
    boxes["query"].set_value("topic_no")
    boxes["doc"].set_value("passage")
    boxes["score"].set_value("relevance_score")
    at.run()
    assert_no_trouble(at)
    assert _runs_shown(at) == ["alpha", "beta", "gamma", "scores"]
    assert not any("scores.csv" in i.value for i in at.info)
    done = _mapping(at, "scores.csv")  # a finished mapping looks finished
    assert done.icon != ":material/warning:"
    assert not any("Choose which columns" in c.value for c in done.caption)
    assert any("topic_no" in c.value and "relevance_score" in c.value for c in done.caption)


def test_qrels_waiting_for_their_columns_say_so():
    at = new_app()
    at.query_params["dataset"] = "upload"
    at.run()
    at.file_uploader(key="upload_qrels").set_value(
        ("judged.csv", b"topic_no,passage,label\nq1,d1,1\nq1,d2,0\n", "text/csv"))
    at.file_uploader(key="upload_runs").set_value(RUNS[:1])
    at.run()
    assert not at.exception
    assert any("judged.csv" in i.value and "waits for its columns" in i.value for i in at.info)
    assert not at.dataframe  # nothing can be scored without qrels


def test_an_unreadable_run_leaves_the_others_shown():
    at = _uploaded([*RUNS[:2], BROKEN])
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "broken.txt" in errors[0] and "line 2" in errors[0]
    assert _runs_shown(at) == ["alpha", "beta"]
    assert any("broken.txt" in i.value and "other runs" in i.value for i in at.info)
