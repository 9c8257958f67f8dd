"""End-to-end: the overview and tie-structure pages in Chromium (screenshots in docs/)."""
from __future__ import annotations

import pytest

from browser_support import MENU

# Deep profile (`--slow`): the default run reaches the Overview and Tie structure pages through the layout walks
# (every page at 800 and 1280 px, no exception box) and the AppTests; this journey runs
# on demand and in CI's browser step.
pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLOT = ".js-plotly-plot"


def test_overview_page(ui):
    page = ui.page
    ui.open()
    assert page.locator("h1").first.inner_text().startswith("Overview")
    page.locator(PLOT).first.wait_for(state="visible")
    assert page.locator('[data-testid="stDataFrame"]').count() == 2
    assert "order of runs depends on the tie-break" in page.locator('[data-testid="stAlert"]').all_inner_texts()[0]

    # change the metric selection: add Rprec
    box = page.get_by_test_id("stMultiSelect").first
    box.locator("input").fill("Rprec")
    box.locator("input").press("Enter")
    page.keyboard.press("Escape")
    ui.wait('[data-testid="stMultiSelectTagsContainer"] [data-tag][aria-label="Rprec"]')
    page.locator(PLOT).first.wait_for(state="visible")
    assert ui.exceptions() == 0
    ui.screenshot("overview")
    assert ui.exceptions() == 0


def test_tie_structure_page(ui):
    page = ui.page
    ui.open()
    page.locator(MENU).get_by_text("Tie structure").click()
    ui.wait('h1:has-text("Tie structure")')
    page.locator(PLOT).first.wait_for(state="visible")
    assert page.locator(PLOT).count() == 4
    title = page.locator(f"{PLOT} .gtitle").first.text_content()

    # change the query
    query = page.get_by_test_id("stSelectbox").filter(has_text="Query").first
    query.click()
    options = page.get_by_role("option")
    options.nth(2).wait_for(state="visible")
    chosen = options.nth(2).inner_text()
    options.nth(2).click()
    qid = chosen.split(" — ")[0]
    ui.wait(f'{PLOT} .gtitle:has-text("{qid}")')
    assert page.locator(f"{PLOT} .gtitle").first.text_content() != title
    for plot in page.locator(PLOT).all():
        assert plot.is_visible()
    assert ui.exceptions() == 0
    ui.screenshot("tie_structure")
    assert ui.exceptions() == 0
