"""The menu: the first paint shows the real page names, never the raw files of pages/."""
from __future__ import annotations

import pytest

from browser_support import MENU, wait_idle

pytestmark = pytest.mark.browser

TITLES = ["Overview", "Tie structure", "Spread", "TsRR", "Learn", "Compare", "Judge agreement",
          "Two runs, one query", "Simulator", "Checkpoints"]
RAW_FILES = ["app", "tie_structure", "simulator", "overview", "compare", "learn", "spread", "tsrr",
             "agreement", "checkpoints"]


def _sidebar_texts(page) -> list[str]:
    # a link's text is its icon's ligature name, then the title: keep the title
    return [t.strip().splitlines()[-1] for t in page.get_by_test_id("stSidebar").locator("a").all_inner_texts()
            if t.strip()]


@pytest.mark.slow  # deep profile (on demand): every browser test opens the app through its menu
def test_first_paint_shows_the_menu_not_file_names(chromium, app_url):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    seen: list[list[str]] = []
    page.goto(app_url, wait_until="commit")
    for _ in range(40):  # sample the sidebar's links while the first run paints
        seen.append(_sidebar_texts(page))
        page.wait_for_timeout(50)
    wait_idle(page, MENU)
    seen.append(_sidebar_texts(page))
    context.close()
    for links in seen:
        assert not set(links) & set(RAW_FILES), links
    assert seen[-1][:len(TITLES)] == TITLES


@pytest.mark.slow  # deep profile: the layout walks switch every page by its menu entry
def test_menu_switches_pages(ui):
    ui.open()
    for title in ("Spread", "Learn", "Overview"):
        ui.page.locator(MENU).get_by_text(title, exact=True).click()
        ui.wait(f'h1:has-text("{title}")')
    assert ui.exceptions() == 0
