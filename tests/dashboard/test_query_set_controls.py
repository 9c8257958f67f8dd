"""The sidebar's query-set controls map onto the one options value and the link."""
from __future__ import annotations

import pytest
from apptest_support import assert_no_trouble, new_app

from tiedrank.dashboard.ui import SETTINGS_KEY

pytestmark = pytest.mark.usefixtures("navigation_pages")


def test_query_set_controls_reach_the_options_and_the_link():
    at = new_app().run()
    assert_no_trouble(at)
    options = at.session_state[SETTINGS_KEY].options()
    assert (options.complete, options.query_set) == (False, "trec_eval")  # trec_eval's default
    at.selectbox(key="query_set").set_value("relevant").run()
    at.toggle(key="complete").set_value(True).run()
    assert_no_trouble(at)
    options = at.session_state[SETTINGS_KEY].options()
    assert (options.complete, options.query_set) == (True, "relevant")
    assert at.query_params["query_set"] == ["relevant"] or at.query_params["query_set"] == "relevant"
    assert str(at.query_params["complete"]).strip("[]'") == "1"


def test_a_link_sets_the_query_set():
    at = new_app()
    at.query_params["query_set"] = "relevant"
    at.query_params["complete"] = "1"
    at.run()
    assert_no_trouble(at)
    settings = at.session_state[SETTINGS_KEY]
    assert (settings.complete, settings.query_set) == (True, "relevant")
    assert at.selectbox(key="query_set").value == "relevant" and at.toggle(key="complete").value
