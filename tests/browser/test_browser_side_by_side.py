"""Chromium: a click on a bar of Compare's per-query differences opens that query on
"Two runs, one query", with the run and the baseline side by side and all three in the link."""
from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from browser_support import PLOT, wait_idle

# Deep profile (`--slow`): the default run reaches Compare's click-through to the query through the layout walks
# (every page at 800 and 1280 px, no exception box) and the AppTests; this journey runs
# on demand and in CI's browser step.
pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHART = f'.st-key-compare_difference_chart {PLOT}'


def test_click_on_compare_differences_opens_the_query(ui):
    page = ui.page
    ui.open("compare")
    ui.wait('h2:has-text("One run against the baseline, query by query")')
    chart = page.locator(CHART)
    chart.wait_for(state="visible")
    chart.scroll_into_view_if_needed()
    wait_idle(page)
    # the first bar is the query with the largest difference (trace 0, point 0)
    query, run, baseline = chart.evaluate(
        "gd => [String(gd.data[0].x[0]), ...gd.layout.title.text.replace(/<br>/g, ' ').match(/: (.+) minus (.+) \\(/).slice(1)]")
    bar = chart.locator("g.trace.bars g.point path").first
    box = bar.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    ui.wait('h1:has-text("Two runs, one query")')
    wait_idle(page, '[data-testid="stDataFrame"]')
    params = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert params["query"] == query
    assert (params["run_a"], params["run_b"]) == (run, baseline)
    title = page.locator(f".st-key-sbs_slope_chart {PLOT} .gtitle").first.text_content()
    assert title.split(" ")[0].split(":")[0] == query  # "q0 — text…: the documents of …"
    assert page.locator("h3", has_text=f"A: {run}").count() == 1
    assert page.locator("h3", has_text=f"B: {baseline}").count() == 1
    assert ui.exceptions() == 0
    ui.screenshot("side_by_side")
