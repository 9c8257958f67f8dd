"""A shared link may name any number of metrics (a 60 KB link, about 2,000; each costs the
Compare page about 0.15 s): a picker reads at most MAX_METRICS of them, with one warning,
and the link is rewritten to what is shown (issue 43, class 1)."""
from __future__ import annotations

import pytest

from apptest_support import new_app
from tiedrank.dashboard.widgets import MAX_METRICS

pytestmark = pytest.mark.usefixtures("navigation_pages")


def test_a_link_naming_900_metrics_opens_with_the_first_ones():
    named = [f"P@{k}" for k in range(1, 901)]  # Streamlit ignores past 1,000 parameters
    at = new_app()
    at.query_params["overview_metrics"] = named
    at.run()
    assert not at.exception
    assert at.multiselect(key="overview_metrics").value == named[:MAX_METRICS]
    [warning] = [w.value for w in at.warning if "metrics" in w.value and "link" in w.value]
    assert "names 900 metrics" in warning and f"at most {MAX_METRICS}" in warning
    assert at.query_params["overview_metrics"] == named[:MAX_METRICS]
