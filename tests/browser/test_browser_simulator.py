"""End-to-end: the Simulator page in Chromium (screenshot in docs/screenshots/simulator.png).

Uses the ``page`` / ``app_url`` fixtures of tests/browser/conftest.py (one Streamlit server
per session, Debian's Chromium; never ``playwright install``) and its ``ui`` helpers.
"""
from __future__ import annotations

import io
import zipfile

import pytest

from browser_support import MENU, IDLE, PLOT, wait_idle

pytestmark = pytest.mark.browser

PRESETS = ["fine-grained", "0-10", "5-point", "3-point", "bf16"]



@pytest.mark.slow  # deep profile (on demand): AppTests cover the form and its runs on every page
def test_simulator_page(page, app_url, ui, tmp_path):
    page.goto(f"{app_url}/simulator")
    wait_idle(page, 'h1:has-text("Simulator")')
    page.locator(f'{PLOT} .gtitle:has-text("along number of label levels")').wait_for(state="visible")
    assert page.locator('[data-testid="stException"]').count() == 0

    # generate the five presets (the form's defaults)
    page.get_by_test_id("stFormSubmitButton").get_by_role("button", name="Generate").click()
    wait_idle(page, f'{PLOT} .gtitle:has-text("The spread")')
    page.locator(IDLE).wait_for(state="attached")
    assert page.locator('[data-testid="stException"]').count() == 0
    spread = page.locator(PLOT).filter(has=page.locator('.gtitle:has-text("The spread")')).first
    for name in PRESETS:  # one category per generated run on the x axis
        # waited for, not counted at once: plotly redraws its axes after the title when its
        # automatic margins grow, so the ticks can be absent for a moment
        spread.locator(".xtick text").filter(has_text=name).first.wait_for(state="attached")
    assert page.locator(PLOT).count() >= 3  # spread, sweep, quantised run

    # the zip of the generated runs
    with page.expect_download() as download:
        page.get_by_role("button", name="All as zip", exact=True).click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    names = zipfile.ZipFile(io.BytesIO(path.read_bytes())).namelist()
    assert {"qrels.txt", *(f"runs/{n}.txt" for n in PRESETS)} <= set(names)

    # keep them: the sidebar switches to the session's runs
    page.get_by_role("button", name="Add to my runs", exact=True).click()
    wait_idle(page, '[data-testid="stAlert"]:has-text("Every page now analyses")')
    sidebar = page.get_by_test_id("stSidebar")
    assert sidebar.get_by_role("radio", name="Simulated in this session").is_checked()
    for plot in page.locator(PLOT).all():
        assert plot.is_visible()
    assert page.locator('[data-testid="stException"]').count() == 0
    ui.screenshot("simulator")
    assert page.locator('[data-testid="stException"]').count() == 0

    # every other page now analyses them
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.locator(MENU).get_by_text("Overview").click()
    wait_idle(page, 'h1:has-text("Overview")')
    page.locator(PLOT).first.wait_for(state="visible")
    assert "Simulated in this session: 5 runs" in page.locator('[data-testid="stMarkdown"]').filter(
        has_text="Simulated in this session").first.inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
