"""Kept page widgets must show the values the page uses after the page was not
drawn for a while (an empty "Simulated in this session", an upload still missing files)."""
from __future__ import annotations

from pathlib import Path

import pytest
from apptest_support import assert_no_trouble, new_app

from tiedrank.dashboard.settings import needs_reassert

ROOT = Path(__file__).resolve().parents[2]
TREC = ROOT / "sample_data" / "trec_eval"

pytestmark = pytest.mark.usefixtures("navigation_pages")


def _shown(at):
    """What the browser is told to show: (metrics, view) from the widgets' protos."""
    ms = at.multiselect(key="overview_metrics").proto
    view = at.segmented_control(key="overview_view").proto
    assert ms.set_value and view.set_value, "a remounted widget must carry its kept value"
    return list(ms.raw_values), list(view.raw_values)


def _table_metrics(at):
    return [c.removesuffix(" ⚠") for c in at.dataframe[0].value.columns[1:]]


def test_needs_reassert_after_a_gap_only():
    assert not needs_reassert(None, 3)  # never drawn: the first-visit default applies
    assert not needs_reassert(2, 3)     # drawn in the previous run: the browser has it
    assert not needs_reassert(3, 3)
    assert needs_reassert(1, 3)         # a run without it in between


def test_empty_session_dataset_then_bundled_keeps_the_widgets():
    at = new_app().run()
    at.multiselect(key="overview_metrics").set_value(["RR", "AP", "P@5"]).run()
    at.segmented_control(key="overview_view").set_value("Summary").run()
    at.radio(key="dataset").set_value("session").run()
    assert any("is empty" in i.value for i in at.info)
    at.radio(key="dataset").set_value("trec_eval").run()
    assert_no_trouble(at)
    drawn = at.session_state["_tiedrank_widget_drawn"]
    serial = at.session_state["_tiedrank_run_serial"]
    assert drawn["overview_metrics"] == drawn["overview_view"] == serial
    metrics, view = _shown(at)
    assert metrics == _table_metrics(at) == ["RR", "AP", "P@5"]
    assert view == ["Summary"]
    # the next change starts from what is shown: adding Rprec keeps the others
    at.multiselect(key="overview_metrics").select("Rprec").run()
    assert _table_metrics(at) == ["RR", "AP", "P@5", "Rprec"]


def test_upload_after_the_upload_hint_keeps_the_widgets():
    at = new_app().run()
    at.radio(key="dataset").set_value("upload").run()
    assert any("Upload a qrels file" in i.value for i in at.info)
    at.file_uploader(key="upload_qrels").set_value(("qrels.test", (TREC / "qrels.test").read_bytes(), "text/plain"))
    at.run()
    at.file_uploader(key="upload_runs").set_value([("results.test", (TREC / "results.test").read_bytes(), "text/plain")])
    at.run()
    assert_no_trouble(at)
    metrics, view = _shown(at)
    assert metrics == _table_metrics(at) and len(metrics) == 5
    assert view == ["Summary"]
