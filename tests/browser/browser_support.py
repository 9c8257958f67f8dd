"""Helpers shared by the browser tests (imported by conftest.py and the test modules)."""
from __future__ import annotations

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
PLOT = ".js-plotly-plot"
MENU = ".st-key-menu"
"""The page menu app.py draws at the top of the sidebar."""


def wait_idle(page, content: str | None = None) -> None:
    """Wait for ``content`` (a selector the interaction should produce), then for the
    script run to finish."""
    if content is not None:
        page.locator(content).first.wait_for(state="visible")
    page.locator(IDLE).wait_for(state="attached")


def pick(page, label: str, option: str) -> None:
    """Open the selectbox labelled ``label`` and click ``option``."""
    box = page.get_by_test_id("stSelectbox").filter(
        has=page.get_by_test_id("stWidgetLabel").get_by_text(label, exact=True)).first
    box.click()
    box.locator("input").fill(option)  # filter the (virtualised) list down to the option
    page.get_by_role("option", name=option, exact=True).first.click()
