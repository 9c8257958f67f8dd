"""End-to-end: the Checkpoints page in Chromium on the bundled checkpoint set (screenshot in
docs/screenshots/checkpoints.png), the empty state on LLMJudge first."""
from __future__ import annotations

import pytest

from browser_support import PLOT, wait_idle

pytestmark = pytest.mark.browser


def test_checkpoints_page(page, app_url, ui):
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"{app_url}/checkpoints")
    wait_idle(page, 'h1:has-text("Checkpoints")')
    page.get_by_text("carries no step in its name").wait_for(state="visible")  # LLMJudge: judges
    page.get_by_test_id("stSidebar").get_by_text("Simulated checkpoints").click()
    chart = page.locator(PLOT).filter(has=page.locator('.gtitle:has-text("by checkpoint")')).first
    chart.wait_for(state="visible")
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("consecutive steps are indistinguishable under ties").count() >= 1
    for name in ("SVG", "PDF", "PNG"):  # the export buttons, rendered only when pressed
        assert page.get_by_role("button", name=name, exact=True).count() == 1
    ui.screenshot("checkpoints")
