"""The "← Back to …" link of a page opened by a drill-down: it names the page and the query
followed, returns to that page with its dataset, settings and kept choices, and is gone once
the user leaves the page another way. Clicks go through the charts' selection state, as the
browser's do (tests/browser/test_browser_layout.py clicks the real link)."""
from __future__ import annotations

import pytest

from apptest_support import assert_no_trouble, new_app
from tiedrank.dashboard.ui import CURRENT_PAGE_KEY

pytestmark = pytest.mark.usefixtures("navigation_pages")


def _stay(at):
    """AppTest runs its own current page again on the next run, not the one a run switched
    to (the browser's address bar follows st.switch_page): follow it, as the browser does."""
    at.switch_page(at.session_state[CURRENT_PAGE_KEY][0])
    return at


def _click(at, chart_key: str, point: dict):
    at.session_state[chart_key] = {"selection": {"points": [point], "point_indices": [0],
                                                 "box": [], "lasso": []}}
    return _stay(at.run())


def _back(at):
    """The back link's button (the first button of the main area), or None."""
    buttons = [b for b in at.main.button if b.key == "drill_back"]
    return buttons[0] if buttons else None


def test_back_from_compare_restores_dataset_settings_and_choices():
    at = new_app().run()
    at.radio(key="dataset").set_value("simulated").run()
    at.number_input(key="k").set_value(5).run()
    at.switch_page("pages/compare.py").run()
    assert _back(at) is None  # opened from the menu: nowhere to go back to
    runs = at.selectbox(key="compare_run").options
    at.selectbox(key="compare_run").set_value(runs[-1]).run()
    run = at.selectbox(key="compare_run").value
    at = _click(at, "compare_difference_chart", {"x": "q007"})
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Two runs, one query")
    back = _back(at)
    assert back is not None and back.label == "← Back to Compare (query q007)"
    # on the drilled-to page the user changes the settings and the dataset
    at.number_input(key="k").set_value(8).run()
    at.radio(key="dataset").set_value("trec_eval").run()
    assert _back(at).label == "← Back to Compare (query q007)"  # still on the same page
    _stay(_back(at).click().run())
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Compare")
    assert at.session_state["dataset"] == "simulated"
    assert at.number_input(key="k").value == 5
    assert at.selectbox(key="compare_run").value == run
    assert at.query_params["dataset"] == "simulated" and at.query_params["k"] == "5"
    assert _back(at) is None  # Compare was not opened by a drill-down


@pytest.mark.slow  # deep profile: the stateful walks and CI's browser step (app and slow) cover it
def test_trail_goes_back_step_by_step_and_the_menu_forgets_it():
    at = new_app().run()
    at.radio(key="dataset").set_value("simulated").run()
    at.switch_page("pages/spread.py").run()
    spread_run = at.selectbox(key="spread_run").value
    at = _click(at, "spread_range_chart", {"y": "q011"})
    assert_no_trouble(at)
    assert at.selectbox(key="tie_query").value == "q011"
    assert _back(at).label == "← Back to Spread (query q011)"
    _stay(at.button(key="tie_open_pair").click().run())  # Tie structure -> Two runs, one query
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Two runs, one query")
    assert _back(at).label == "← Back to Tie structure (query q011)"
    _stay(_back(at).click().run())
    assert at.title[0].value.startswith("Tie structure")
    assert at.selectbox(key="tie_query").value == "q011"
    assert _back(at).label == "← Back to Spread (query q011)"  # one step further back
    _stay(_back(at).click().run())
    assert at.title[0].value.startswith("Permutation spread")
    assert at.selectbox(key="spread_run").value == spread_run
    assert _back(at) is None
    # a drill-down, then the menu: the trail is forgotten, also on a later visit
    at = _click(at, "spread_range_chart", {"y": "q004"})
    assert _back(at) is not None
    at.switch_page("pages/overview.py").run()
    at.switch_page("pages/tie_structure.py").run()
    assert_no_trouble(at)
    assert _back(at) is None
