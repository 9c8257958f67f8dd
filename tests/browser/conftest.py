"""Browser fixtures: one Streamlit server for the session, Debian's Chromium via Playwright.

Never runs ``playwright install``: the browser is the system Chromium (/usr/bin/chromium;
``apt-get install -y chromium chromium-driver`` provides it). Tests are skipped when it is
missing.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from server_support import free_port, stop, wait_until_answering

from browser_support import wait_idle

ROOT = Path(__file__).resolve().parents[2]
# Screenshots go to a build folder (git-ignored): tests never modify tracked files.
# scripts/refresh_screenshots.py copies them to docs/screenshots/ for the README, on purpose.
SCREENSHOTS = Path(os.environ.get("TIEDRANK_SCREENSHOTS", ROOT / "build" / "screenshots"))
CHROMIUM = os.environ.get("TIEDRANK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 60_000


@pytest.fixture(scope="session")
def app_url():
    """Start ``streamlit run app.py`` on a free port; stop it after the session."""
    port = free_port()
    log = tempfile.NamedTemporaryFile(prefix="tiedrank-streamlit-", suffix=".log", delete=False)
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(process, f"{url}/_stcore/health", why=lambda: (
            "streamlit did not start:\n" + Path(log.name).read_text()[-3000:]))
        yield url
    finally:
        stop(process)
        log.close()
        os.unlink(log.name)


@pytest.fixture(scope="session")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium chromium-driver)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture()
def page(chromium, app_url):
    """A fresh browser page (own context: own Streamlit session) at 1400 x 1000."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        yield page
    finally:
        context.close()




def open_app(page, url: str, path: str = "") -> None:
    page.goto(f"{url}/{path}")
    wait_idle(page, "h1")


def full_screenshot(page, name: str) -> Path:
    """Screenshot of the whole page: Streamlit scrolls inside its main block, so the
    viewport is first made as tall as the content."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate(
        "() => Math.max(...['stMain', 'stAppViewContainer', 'stSidebarContent']"
        ".map(id => document.querySelector(`[data-testid=\"${id}\"]`))"
        ".filter(Boolean).map(el => el.scrollHeight), document.body.scrollHeight)")
    width = page.viewport_size["width"]
    page.set_viewport_size({"width": width, "height": min(int(height) + 40, 12000)})
    page.wait_for_timeout(800)  # let plotly re-layout to the new size
    wait_idle(page)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


class UI:
    """The helpers above bound to one page and server (the ``ui`` fixture)."""

    def __init__(self, page, url: str) -> None:
        self.page, self.url = page, url

    def open(self, path: str = "") -> None:
        open_app(self.page, self.url, path)

    def wait(self, content: str | None = None) -> None:
        wait_idle(self.page, content)

    def screenshot(self, name: str) -> Path:
        return full_screenshot(self.page, name)

    def exceptions(self) -> int:
        return self.page.locator('[data-testid="stException"]').count()


@pytest.fixture()
def ui(page, app_url) -> UI:
    return UI(page, app_url)


@pytest.fixture()
def sized_ui(chromium, app_url):
    """``sized_ui(width, color_scheme=None)``: a :class:`UI` on a fresh page (own Streamlit
    session) of that viewport width (1000 px high), optionally with the browser's colour
    scheme set ("dark": the OS's dark mode, which Streamlit's default theme follows)."""
    contexts = []

    def make(width: int, color_scheme: str | None = None) -> UI:
        options = {"viewport": {"width": width, "height": 1000}}
        if color_scheme:
            options["color_scheme"] = color_scheme
        context = chromium.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        return UI(page, app_url)

    try:
        yield make
    finally:
        for context in contexts:
            context.close()
