"""End-to-end: the Spread, TsRR and Learn pages in Chromium (screenshots in docs/screenshots).

Uses the ``ui`` / ``page`` / ``app_url`` fixtures of tests/browser/conftest.py (one
Streamlit server per session, Debian's Chromium; never ``playwright install``).
"""
from __future__ import annotations

import re

import pytest

from browser_support import PLOT, pick

# Deep profile (`--slow`): the default run reaches the Spread, TsRR and Learn pages through the layout walks
# (every page at 800 and 1280 px, no exception box) and the AppTests; this journey runs
# on demand and in CI's browser step.
pytestmark = [pytest.mark.browser, pytest.mark.slow]




def _metric_value(page, label: str) -> str:
    metric = page.get_by_test_id("stMetric").filter(has_text=label).first
    return metric.get_by_test_id("stMetricValue").inner_text().strip()


def _visit(ui, path: str, title: str) -> None:
    """Open ``/<path>`` directly (the page's url_path) and wait for its title."""
    ui.open(path)
    ui.wait(f'h1:has-text("{title}")')


def _plots_visible(page, count: int) -> None:
    page.locator(PLOT).nth(count - 1).wait_for(state="visible")
    assert page.locator(PLOT).count() == count
    for plot in page.locator(PLOT).all():
        assert plot.locator(".main-svg").count() > 0


def test_spread_page(ui):
    page = ui.page
    _visit(ui, "spread", "Permutation spread")
    _plots_visible(page, 3)
    assert "trec_eval's order gives" in page.locator('[data-testid="stMarkdown"]').all_inner_texts().__str__()

    pick(page, "Metric", "nDCG@10")
    ui.wait('[data-testid="stMarkdown"]:has-text("queries change nDCG@10")')
    ui.wait(f'{PLOT} .gtitle:has-text("mean nDCG@10 over")')
    _plots_visible(page, 3)
    assert ui.exceptions() == 0
    ui.screenshot("spread")
    assert ui.exceptions() == 0


def test_tsrr_page(ui):
    page = ui.page
    _visit(ui, "tsrr", "TsRR alpha sweep")
    _plots_visible(page, 3)
    assert page.locator('[data-testid="stDataFrame"]').count() >= 1
    assert page.locator(".katex").count() >= 2  # the formulas
    before = float(_metric_value(page, "TsRR, alpha = 1"))

    # the "appended" slider: keyboard steps of 1 from 10 to 20
    slider = page.get_by_test_id("stSlider").filter(has_text="Irrelevant documents appended").first
    thumb = slider.get_by_role("slider")
    thumb.focus()
    for _ in range(10):
        thumb.press("ArrowRight")
    ui.wait('[data-testid="stMarkdown"]:has-text("Appending 20 irrelevant documents")')
    after = float(_metric_value(page, "TsRR, alpha = 1"))
    assert after > before
    _plots_visible(page, 3)
    assert ui.exceptions() == 0
    ui.screenshot("tsrr")
    assert ui.exceptions() == 0


def test_learn_page(ui):
    page = ui.page
    _visit(ui, "learn", "Learn")
    _plots_visible(page, 4)  # ranking, policies, orderings, MTRR curve
    assert "E[RR] = 0.416667 (= 5/12)" in page.locator('[data-testid="stMarkdown"]').all_inner_texts().__str__()

    pick(page, "Scenario", "S3: three tied at the top  (seed)")
    ui.wait('[data-testid="stMarkdown"]:has-text("E[RR] = 0.611111 (= 11/18)")')
    assert _metric_value(page, "E[RR]") == "0.6111"
    assert re.search(r"allow\s+6\s+orderings", page.locator('[data-testid="stMarkdown"]').all_inner_texts().__str__())
    _plots_visible(page, 4)
    assert ui.exceptions() == 0
    ui.screenshot("learn")
    assert ui.exceptions() == 0
