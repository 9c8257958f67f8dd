"""Chromium: a drill-down keeps the user's dataset. On "Simulated rerankers", a
click on a bar of Compare's per-query differences opens "Two runs, one query" on that dataset,
with the clicked query and both runs."""
from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from browser_support import PLOT, wait_idle

# Deep profile (`--slow`): the default run reaches the drill-down on a non-default dataset through the layout walks
# (every page at 800 and 1280 px, no exception box) and the AppTests; this journey runs
# on demand and in CI's browser step.
pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHART = f'.st-key-compare_difference_chart {PLOT}'


def test_compare_drilldown_keeps_a_non_default_dataset(ui):
    page = ui.page
    ui.open()
    page.get_by_test_id("stSidebar").get_by_text("Simulated rerankers", exact=False).first.click()
    wait_idle(page)
    page.locator('.st-key-menu a', has_text="Compare").first.click()
    ui.wait('h2:has-text("One run against the baseline, query by query")')
    chart = page.locator(CHART)
    chart.wait_for(state="visible")
    chart.scroll_into_view_if_needed()
    wait_idle(page)
    query, run, baseline = chart.evaluate(
        "gd => [String(gd.data[0].x[0]), ...gd.layout.title.text.replace(/<br>/g, ' ').match(/: (.+) minus (.+) \\(/).slice(1)]")
    assert query.startswith("q0") and run != "NISTRetrieval-instruct0"
    bar = chart.locator("g.trace.bars g.point path").first
    box = bar.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    ui.wait('h1:has-text("Two runs, one query")')
    wait_idle(page, '[data-testid="stDataFrame"]')
    page.wait_for_timeout(500)
    wait_idle(page)
    params = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert params.get("dataset") == "simulated", page.url
    assert params["query"] == query
    assert (params["run_a"], params["run_b"]) == (run, baseline)
    assert page.get_by_text("Simulated rerankers: one ranker", exact=False).count() >= 1
    assert page.locator("h3", has_text=f"A: {run}").count() == 1
    assert page.locator("h3", has_text=f"B: {baseline}").count() == 1
    # a reload of the drilled-down link shows the same data, query and runs
    page.reload()
    wait_idle(page, '[data-testid="stDataFrame"]')
    page.wait_for_timeout(500)
    wait_idle(page)
    assert page.locator("h3", has_text=f"A: {run}").count() == 1
    params = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert params.get("dataset") == "simulated" and params["query"] == query, page.url
    assert ui.exceptions() == 0
