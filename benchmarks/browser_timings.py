"""Time every dashboard page in a real browser: the first visit and a rerun.

What a user waits for, measured where the user waits: Debian's Chromium (Playwright, never
``playwright install``) against ``streamlit run app.py`` on 127.0.0.1. For each page of the
menu, on the bundled LLMJudge data and then on two uploaded 1M-row runs
(``dashboard_timings.make_upload``: 1,000 queries x 1,000 documents, 20 score levels):

* **first visit**: click the page in the menu, until the script has finished
  (``stApp`` ``data-test-script-state="notRunning"``) and the page's title is drawn;
* **rerun**: press ``r`` (Streamlit's "rerun" key) with nothing changed, until the script
  has finished again: what any widget change that does not change the data costs.

Each figure is the median of ``--repeat`` sessions (a fresh browser context each, so the
first visit is a first visit of that session; the server's caches are warm after the first
session, as on a server in use). Usage::

    python benchmarks/browser_timings.py                 # Markdown table on stdout
    python benchmarks/browser_timings.py --skip-uploads  # LLMJudge only
    python benchmarks/browser_timings.py --skip-uploads --pages Compare --repeat 3

The column "fresh server" is the first session's first visit: the first time the page is
computed in this server process (no cache warm, modules such as scipy.stats not yet
imported), which the median of the warm sessions hides.

``--concurrent N --pages TITLE`` instead opens N sessions on a fresh server (each waits for
its first page), then clicks TITLE in all of them at once and reports each session's wait
(LLMJudge only): what N users opening the page together wait for.
"""
from __future__ import annotations

import argparse
import ast
import asyncio
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks")]

CHROMIUM = os.environ.get("TIEDRANK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
RUNNING = '[data-testid="stApp"][data-test-script-state="running"]'
MENU = ".st-key-menu"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_server() -> tuple[subprocess.Popen, str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
         "--server.maxUploadSize", "2000"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise SystemExit("streamlit did not start within 60 s")


def _until_idle(page, started: float, content: str | None = None) -> float:
    """Seconds from ``started`` until the script run has finished (and ``content`` shows)."""
    try:  # the run may start and finish between two polls: a short wait, not an error
        page.locator(RUNNING).wait_for(state="attached", timeout=1500)
    except Exception:
        pass
    if content:
        page.locator(content).first.wait_for(state="visible", timeout=120_000)
    page.locator(IDLE).wait_for(state="attached", timeout=120_000)
    return time.perf_counter() - started


def _page_titles(page=None) -> list[str]:
    """The menu's page titles, in order, from app.py's ``st.Page(..., title=...)`` list: never
    read from the browser's menu, which may still be drawing (a session that read a partial
    menu timed fewer pages, and the table's ``KeyError: 'Overview'`` followed)."""
    tree = ast.parse((ROOT / "app.py").read_text())
    return [keyword.value.value for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "Page"
            for keyword in node.keywords if keyword.arg == "title"]


def _upload(page, qrels: Path, runs: list[Path]) -> None:
    page.get_by_test_id("stSidebar").get_by_text("Upload", exact=False).last.click()
    page.locator(IDLE).wait_for(state="attached")
    inputs = page.get_by_test_id("stFileUploader").locator('input[type="file"]')
    inputs.nth(0).set_input_files(str(qrels))
    page.locator(IDLE).wait_for(state="attached", timeout=300_000)
    inputs.nth(1).set_input_files([str(r) for r in runs])
    page.locator("h1").first.wait_for(state="visible", timeout=300_000)
    _until_idle(page, time.perf_counter())


def _session(browser, url: str, upload: tuple[Path, list[Path]] | None,
             only: tuple[str, ...] = ()) -> dict[str, tuple]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(120_000)
    started = time.perf_counter()
    page.goto(url)
    _until_idle(page, started, "h1")
    if upload:
        _upload(page, *upload)
    times: dict[str, tuple] = {}
    for title in only or _page_titles(page):
        page.locator(MENU).get_by_text(title, exact=True).wait_for(state="visible")
        started = time.perf_counter()
        page.locator(MENU).get_by_text(title, exact=True).click()
        first = _until_idle(page, started, f'h1:has-text("{title}")')
        page.evaluate("document.activeElement && document.activeElement.blur()")  # no widget has the key
        started = time.perf_counter()
        page.keyboard.press("r")
        rerun = _until_idle(page, started)
        times[title] = (first, rerun)
    context.close()
    return times


async def _concurrent_first_visits(url: str, sessions: int, title: str) -> list[float]:
    """Seconds each of ``sessions`` browser sessions waits for ``title`` when all click it at
    once (each has opened the app and finished its first page before)."""
    from playwright.async_api import async_playwright

    async def until_idle(page, started: float) -> float:
        try:
            await page.locator(RUNNING).wait_for(state="attached", timeout=1500)
        except Exception:
            pass
        await page.locator(f'h1:has-text("{title}")').first.wait_for(state="visible", timeout=300_000)
        await page.locator(IDLE).wait_for(state="attached", timeout=300_000)
        return time.perf_counter() - started

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        pages = []
        for _ in range(sessions):
            context = await browser.new_context(viewport={"width": 1280, "height": 900})
            page = await context.new_page()
            page.set_default_timeout(300_000)
            await page.goto(url)
            await page.locator("h1").first.wait_for(state="visible")
            await page.locator(IDLE).wait_for(state="attached")
            pages.append(page)

        async def visit(page) -> float:
            started = time.perf_counter()
            await page.locator(MENU).get_by_text(title, exact=True).click()
            return await until_idle(page, started)

        waits = await asyncio.gather(*(visit(page) for page in pages))
        await browser.close()
        return list(waits)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="sessions per dataset (median)")
    parser.add_argument("--skip-uploads", action="store_true")
    parser.add_argument("--pages", default="",
                        help="comma-separated page titles to time (default: every page of the menu)")
    parser.add_argument("--concurrent", type=int, default=0,
                        help="N sessions click the one page of --pages at once (fresh server)")
    args = parser.parse_args()
    only = tuple(name.strip() for name in args.pages.split(",") if name.strip())
    if args.concurrent:
        if len(only) != 1:
            raise SystemExit("--concurrent needs one page title in --pages")
        server, url = _start_server()
        try:
            load = os.getloadavg()[0]
            waits = sorted(asyncio.run(_concurrent_first_visits(url, args.concurrent, only[0])))
        finally:
            server.terminate()
            server.wait(timeout=15)
        print(f"# {platform.machine()}, Python {platform.python_version()}, load average "
              f"{load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end; LLMJudge, fresh server\n")
        print(f"| sessions clicking {only[0]} at once | fastest (s) | median (s) | slowest (s) |\n"
              f"|---:|---:|---:|---:|\n| {args.concurrent} | {waits[0]:.2f} | "
              f"{statistics.median(waits):.2f} | {waits[-1]:.2f} |")
        return
    from playwright.sync_api import sync_playwright

    from dashboard_timings import make_upload

    server, url = _start_server()
    scratch = Path(tempfile.mkdtemp(prefix="tiedrank-browser-timings-"))
    try:
        datasets: list[tuple[str, tuple | None]] = [("LLMJudge (bundled)", None)]
        if not args.skip_uploads:
            qrels, run_a = make_upload(score_seed=0)
            _, run_b = make_upload(score_seed=1)
            paths = [scratch / "qrels.txt", scratch / "big_a.txt", scratch / "big_b.txt"]
            for path, data in zip(paths, (qrels, run_a, run_b)):
                path.write_bytes(data)
            datasets.append(("two 1M-row uploads", (paths[0], paths[1:])))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            print(f"# {platform.machine()}, Python {platform.python_version()}, "
                  f"load average {os.getloadavg()[0]:.2f} at the start; median of "
                  f"{args.repeat} sessions, 1280 x 900\n")
            print("| data | page | first visit, fresh server (s) | first visit (s) | rerun (s) |\n"
                  "|---|---|---:|---:|---:|")
            for label, upload in datasets:
                sessions = [_session(browser, url, upload, only) for _ in range(args.repeat)]
                for title in only or _page_titles():
                    timed = [s[title] for s in sessions if title in s]
                    if not timed:
                        print(f"| {label} | {title} | not timed | | |", flush=True)
                        continue
                    fresh = f"{sessions[0][title][0]:.2f}" if title in sessions[0] else "n/a"
                    first = statistics.median(t[0] for t in timed)
                    rerun = statistics.median(t[1] for t in timed)
                    print(f"| {label} | {title} | {fresh} | {first:.2f} | {rerun:.2f} |", flush=True)
            browser.close()
            print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    finally:
        server.terminate()
        server.wait(timeout=15)
        for path in scratch.iterdir():
            path.unlink()
        scratch.rmdir()


if __name__ == "__main__":
    main()
