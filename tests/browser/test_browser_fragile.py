"""Chromium: a row of Compare's "Fragile queries" table opens "Two runs, one query" on that
query, with both runs, on the dataset in use."""
from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from browser_support import wait_idle
from tiedrank import evaluate
from tiedrank.dashboard.compare import fragile_table
from tiedrank.dashboard.datasets import BUNDLED
from tiedrank.io import read_qrels, read_run

pytestmark = pytest.mark.browser

TABLE = '.st-key-compare_fragile_table [data-testid="stDataFrame"]'
ROW_HEIGHT = 35  # Streamlit's default row height, the header row included


def test_fragile_row_opens_the_query_side_by_side(ui):
    page = ui.page
    ui.open("compare")
    ui.wait('h2:has-text("Fragile queries:")')
    grid = page.locator(TABLE)
    grid.scroll_into_view_if_needed()
    wait_idle(page)
    box = grid.bounding_box()
    # the first data row's selection checkbox (the row-marker column at the left)
    page.mouse.click(box["x"] + 18, box["y"] + ROW_HEIGHT + ROW_HEIGHT / 2)
    ui.wait('h1:has-text("Two runs, one query")')
    params = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert params.get("dataset") == "llmjudge", page.url
    # the first row of the table is the first fragile query of those two runs (widest range)
    ds = BUNDLED["llmjudge"]
    ev = evaluate([read_run(str(ds.path(r)), format=ds.run_format) for r in ds.runs],
                  read_qrels(str(ds.path(ds.qrels)), format=ds.qrels_format),
                  [params["metric"]], ties="all", rel_level=ds.rel_level)
    first = fragile_table(ev, params["run_a"], params["run_b"], params["metric"])[0]["query"].iloc[0]
    assert params["query"] == first
    assert page.locator("h3", has_text=f"A: {params['run_a']}").count() == 1
    assert page.locator("h3", has_text=f"B: {params['run_b']}").count() == 1
    assert ui.exceptions() == 0
