"""The installed dashboard in Chromium: a page opens by its address, and the Overview of the
bundled LLMJudge set is drawn.

Usage: python .ci/dashboard_smoke.py URL   (a server started by `tiedrank dashboard`)

Run by .ci/package-check against the wheel installed outside the checkout. Exits 0 when the
Overview shows its title, the LLMJudge set, its tables and a chart, with no exception, no
error message and no second menu (the packaged .streamlit/config.toml is read); otherwise
prints what is missing and exits 1. Uses the system Chromium (never `playwright install`).
"""
from __future__ import annotations

import sys

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
SHOWN = 'h1, [data-testid="stAlert"], [data-testid="stException"]'
"""Anything the first run draws: the page's title, or a message instead of it."""
FAILED = '[data-testid="stException"], [data-testid="stAlertContentError"]'
WAIT_MS = 90_000


def check(url: str) -> list[str]:
    """What is wrong with the page at ``url`` (nothing: an empty list)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            # First a page's own address, on the fresh server: the dashboard runs app.py first
            # and comes back to the page by its path relative to the installed app.py
            # (tiedrank.app_files.APP_DIR; ui._enter_through_app)
            page.goto(f"{url}/tie_structure")
            try:
                page.locator(f'h1:has-text("Tie structure"), {FAILED}').first.wait_for(
                    state="visible", timeout=WAIT_MS)
            except PlaywrightTimeout:
                return [f"/tie_structure showed nothing in {WAIT_MS // 1000} s"]
            if page.locator(FAILED).count():
                return ["/tie_structure did not open the Tie structure page: "
                        f"{page.locator(FAILED).first.inner_text()[:300]!r}"]
            page.goto(url)
            try:
                page.locator(SHOWN).first.wait_for(state="visible", timeout=WAIT_MS)
                page.locator(IDLE).wait_for(state="attached", timeout=WAIT_MS)
                if page.locator(FAILED).count() == 0:  # a chart follows the run, drawn client-side
                    page.locator(".js-plotly-plot").first.wait_for(state="visible", timeout=WAIT_MS)
            except PlaywrightTimeout as error:
                return [f"the Overview was not drawn in {WAIT_MS // 1000} s "
                        f"({error.message.splitlines()[0]})"]
            if page.locator(FAILED).count():
                return [f"the dashboard shows an error: {page.locator(FAILED).first.inner_text()[:500]!r}"]
            title = page.locator("h1").first.inner_text()
            text = page.locator('[data-testid="stMain"]').inner_text()
            checks = {
                f"the title is {title!r}, not the Overview's": title.startswith("Overview"),
                "the LLMJudge set is not the one shown": "LLMJudge" in text,
                "no table": page.locator('[data-testid="stDataFrame"]').count() >= 1,
                "Streamlit's own page menu is shown (the packaged config.toml was not read)":
                    page.locator('[data-testid="stSidebarNav"]').count() == 0,
                "the dashboard's menu is missing": page.locator(".st-key-menu").count() == 1,
            }
            return [problem for problem, ok in checks.items() if not ok]
        finally:
            browser.close()


if __name__ == "__main__":
    found = check(sys.argv[1])
    for problem in found:
        print(f"dashboard smoke test: {problem}", file=sys.stderr)
    print("dashboard smoke test: " + ("failed" if found else "the Overview of LLMJudge is drawn"))
    sys.exit(1 if found else 0)
