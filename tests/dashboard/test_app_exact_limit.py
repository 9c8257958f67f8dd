"""A metric whose exact expectation is past its limit on the data (ERR's recurrence, G's
lattice) says so on the page, in the dashboard's words, and names the query and the tie
group; it is not replaced by the generic "could not be drawn" (issue 32)."""
from __future__ import annotations

import pytest

from apptest_support import new_app, upload
from tiedrank.metrics import cascade

pytestmark = pytest.mark.usefixtures("navigation_pages")

QRELS = "".join(f"q1 0 d{d} {2 if d <= 6 else 0}\n" for d in range(1, 11)).encode()
RUN = "".join(f"q1 Q0 d{d} {d} 1.0 tied\n" for d in range(1, 11)).encode()  # one group of 10


def test_an_err_group_past_the_limit_is_named_on_the_page(monkeypatch):
    monkeypatch.setattr(cascade, "MAX_TERMS", 20)  # ten tied, six graded: 77 terms at k = 10
    at = upload(new_app().run(), ("qrels.txt", QRELS, "text/plain"),
                [("tied.txt", RUN, "text/plain")])
    at.switch_page("pages/overview.py").run()
    at.multiselect(key="overview_metrics").set_value(["ERR@10"]).run()
    errors = [e.value.replace("\u2060", "") for e in at.error]  # md() joins "@" to its word
    assert not at.exception
    assert not [e for e in errors if "could not be drawn" in e], errors
    [message] = [e for e in errors if "ERR@10" in e]
    assert "query 'q1' has a tie group of 10 documents, 6 of them graded above 0" in message
    assert "choose another metric on this page" in message
    assert "ties=" not in message and "--ties trec_eval scores it on one ordering" in message
