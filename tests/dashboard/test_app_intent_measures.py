"""The intent-aware measures in the dashboard: offered where the qrels carry subtopics (an
uploaded ndeval qrels file), left out of the pickers otherwise (they could only refuse)."""
from __future__ import annotations

import pytest

from apptest_support import assert_no_trouble, new_app, upload
from tiedrank.dashboard.settings import metric_options
from tiedrank.metrics import REGISTRY
from tiedrank.metrics.entries_intent import needs_subtopics

pytestmark = pytest.mark.usefixtures("navigation_pages")

QRELS = b"1 1 a 1\n1 2 a 1\n1 1 b 1\n1 3 c 1\n1 2 d 0\n2 1 x 1\n"
RUN = b"1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n1 Q0 c 3 1.0 r\n1 Q0 z 4 0.5 r\n2 Q0 x 1 1 r\n"


def test_the_pickers_offer_them_only_with_subtopics():
    intent = {name for name in REGISTRY if needs_subtopics(name)}
    plain = {m.split("@")[0].split("(")[0] for m in metric_options(10)}
    diverse = {m.split("@")[0].split("(")[0] for m in metric_options(10, subtopics=True)}
    assert len(intent) == 9 and not intent & plain and intent <= diverse


@pytest.mark.slow  # an AppTest of 3 s: CI's fourth step runs it (app and slow)
def test_an_uploaded_diversity_qrels_file_offers_and_scores_them():
    at = new_app().run()
    assert "alpha_nDCG@10" not in at.multiselect(key="overview_metrics").options
    at = upload(at, ("div.qrels", QRELS, "text/plain"), [("r.run", RUN, "text/plain")])
    assert "alpha_nDCG@10" in at.multiselect(key="overview_metrics").options
    at.multiselect(key="overview_metrics").set_value(["alpha_nDCG@10", "StRecall@10"]).run()
    assert_no_trouble(at)
    report = at.session_state["tiedrank_context"].evaluation(
        ("alpha_nDCG@10", "StRecall@10")).report().set_index("metric")
    # query 1: a {1,2}, b {1}, c {3} tied first; query 2: x alone (1.0)
    assert report.loc["StRecall@10", "expected"] == pytest.approx(1.0)
    assert report.loc["alpha_nDCG@10", "worst"] < report.loc["alpha_nDCG@10", "best"] == 1.0
