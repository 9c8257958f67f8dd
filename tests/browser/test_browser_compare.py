"""End-to-end: the Compare page in Chromium (screenshot in docs/screenshots/compare.png).

Uses the ``page`` / ``app_url`` fixtures of tests/browser/conftest.py (one Streamlit server
per session, Debian's Chromium; never ``playwright install``) and its ``ui`` helpers for
waiting and the full-page screenshot.
"""
from __future__ import annotations

import pytest

from browser_support import PLOT, pick, wait_idle

# Deep profile (`--slow`): the default run reaches the Compare page through the layout walks
# (every page at 800 and 1280 px, no exception box) and the AppTests; this journey runs
# on demand and in CI's browser step.
pytestmark = [pytest.mark.browser, pytest.mark.slow]





def test_compare_page(page, app_url, ui, tmp_path):
    page.goto(f"{app_url}/compare")
    wait_idle(page, 'h1:has-text("Compare runs")')
    page.locator(PLOT).nth(3).wait_for(state="visible")
    assert page.locator('[data-testid="stDataFrame"]').count() >= 5
    assert page.locator('[data-testid="stException"]').count() == 0

    # operate the controls: the baseline, then the run examined in detail
    pick(page, "Baseline run", "willia-umbrela1")
    # a long title is wrapped into lines (tspans): match its parts
    wait_idle(page, f'{PLOT} .gtitle:has-text("minus the baseline"):has-text("willia-umbrela1")')
    pick(page, "Run", "h2oloo-fewself")
    wait_idle(page, '[data-testid="stMarkdown"]:has-text("h2oloo-fewself wins against")')
    sentence = page.locator('[data-testid="stMarkdown"]').filter(has_text="beats the baseline in").first.inner_text()
    assert "Under trec_eval's order h2oloo-fewself wins against willia-umbrela1 on RR" in sentence
    assert "32.3% ± 1.5%" in sentence

    # the example groups file, downloaded and uploaded again: the per-group table and heatmap
    with page.expect_download() as download:
        page.get_by_role("button", name="Example groups CSV").click()
    groups_csv = tmp_path / download.value.suggested_filename
    download.value.save_as(groups_csv)
    assert groups_csv.read_text().startswith("query,group")
    page.get_by_test_id("stFileUploader").locator('input[type="file"]').set_input_files(str(groups_csv))
    wait_idle(page, f'{PLOT} .gtitle:has-text("per query group")')
    assert page.locator('[data-testid="stAlert"]').filter(has_text="Cannot use the groups file").count() == 0

    page.locator(PLOT).nth(4).wait_for(state="visible")
    # + the verdict-flip heatmap when a session of this server computed it, else its button
    offered = page.get_by_role("button", name="Compute the verdict-flip matrix").count()
    if not offered:
        page.locator(PLOT).nth(5).wait_for(state="visible")
    assert page.locator(PLOT).count() == 6 - offered
    for plot in page.locator(PLOT).all():
        assert plot.locator(".main-svg").count() > 0
    assert page.locator('[data-testid="stException"]').count() == 0
    ui.screenshot("compare")
    assert page.locator('[data-testid="stException"]').count() == 0
