"""Load test: several concurrent browser sessions over every dashboard page.

Starts ``streamlit run app.py`` on 127.0.0.1 (a free port), opens ``--sessions`` browser
contexts at once in Debian's Chromium (Playwright, never ``playwright install``), and in
each walks every page of the menu ``--rounds`` times: click, wait for the script run to
finish, count exception boxes and error messages. It reports the server's resident memory
before the sessions, its peak while they run (sampled every 0.2 s from /proc), and after
every browser has closed, then prints one JSON line (and a Markdown block with
``--markdown`` for RESULTS.md). The run is bounded: ``--timeout`` seconds overall.

Exit status 1 if any page showed an exception or an error, or the time bound was hit.

    python benchmarks/load_test.py --sessions 5 --rounds 1 --markdown
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("TIEDRANK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
MENU = ".st-key-menu"
MENU_LINKS = f"{MENU} a"
PROBLEMS = '[data-testid="stException"], [data-testid="stAlertContentError"]'


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (MiB), from /proc."""
    total = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    for one in pids:
        try:
            for line in Path(f"/proc/{one}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total / 1024


class PeakSampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self._halt = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.2)

    def stop(self) -> float:
        self._halt.set()
        self.join()
        return self.peak


def start_server() -> tuple[subprocess.Popen, str, Path]:
    port = _free_port()
    log = Path(tempfile.mkstemp(prefix="tiedrank-load-", suffix=".log")[1])
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return process, url, log
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("streamlit did not start:\n" + log.read_text()[-3000:])
        time.sleep(0.3)


async def _session(browser, url: str, rounds: int, index: int, timeout_ms: int,
                   only: tuple[str, ...] = ()) -> dict:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(timeout_ms)
    visited, problems, started = [], [], time.monotonic()
    try:
        await page.goto(url)
        await page.locator(IDLE).wait_for(state="attached")
        await page.locator(MENU_LINKS).first.wait_for(state="visible")
        # a link's text is its icon's ligature name, then the page title: keep the title
        names = [(await link.inner_text()).strip().splitlines()[-1]
                 for link in await page.locator(MENU_LINKS).all()]
        if only:
            missing = set(only) - set(names)
            if missing:
                raise SystemExit(f"--pages: no page {sorted(missing)} in the menu {names}")
            names = [name for name in names if name in only]
        for _ in range(rounds):
            for name in names:
                await page.locator(MENU).get_by_text(name, exact=True).click()
                await page.wait_for_timeout(300)  # let the rerun start before waiting for its end
                await page.locator(IDLE).wait_for(state="attached")
                visited.append(name.strip())
                print(f"session {index}: {name.strip()} ({time.monotonic() - started:.0f} s)",
                      file=sys.stderr, flush=True)
                for box in await page.locator(PROBLEMS).all():
                    problems.append(f"{name.strip()}: {(await box.inner_text())[:200]}")
    finally:
        await context.close()
    return {"session": index, "pages": visited, "problems": problems,
            "seconds": round(time.monotonic() - started, 1)}


async def _drive(url: str, sessions: int, rounds: int, timeout_ms: int,
                 only: tuple[str, ...] = ()) -> list[dict]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            return await asyncio.gather(*(_session(browser, url, rounds, i, timeout_ms, only)
                                          for i in range(sessions)))
        finally:
            await browser.close()


def run_load_test(sessions: int = 5, rounds: int = 1, timeout: float = 600,
                  settle: float = 10, only: tuple[str, ...] = ()) -> dict:
    """Start a server, drive ``sessions`` concurrent browsers, stop the server; the report."""
    process, url, log = start_server()
    try:
        before = rss_mb(process.pid)
        sampler = PeakSampler(process.pid)
        sampler.start()
        started = time.monotonic()
        results = asyncio.run(asyncio.wait_for(
            _drive(url, sessions, rounds, timeout_ms=int(timeout * 1000), only=only), timeout))
        elapsed = time.monotonic() - started
        peak = sampler.stop()
        time.sleep(settle)
        after = rss_mb(process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        server_log = log.read_text()
        log.unlink()
    return {"sessions": sessions, "rounds": rounds, "page_visits": sum(len(r["pages"]) for r in results),
            "pages": results[0]["pages"][: len(results[0]["pages"]) // max(rounds, 1)],
            "problems": [p for r in results for p in r["problems"]],
            "server_tracebacks": server_log.count("Traceback"),
            "wall_seconds": round(elapsed, 1), "session_seconds": [r["seconds"] for r in results],
            "rss_mb_before": round(before), "rss_mb_peak": round(peak),
            "rss_mb_after_close": round(after), "settle_seconds": settle}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=5, help="concurrent browser sessions (default 5)")
    parser.add_argument("--rounds", type=int, default=1, help="walks over every page per session")
    parser.add_argument("--timeout", type=float, default=600, help="overall bound in seconds")
    parser.add_argument("--settle", type=float, default=10,
                        help="seconds to wait after the sessions before the last memory reading (default 10)")
    parser.add_argument("--pages", default="",
                        help="comma-separated page titles to walk (default: every page of the menu)")
    parser.add_argument("--markdown", action="store_true", help="also print a RESULTS.md block")
    args = parser.parse_args(argv)
    only = tuple(name.strip() for name in args.pages.split(",") if name.strip())
    report = run_load_test(args.sessions, args.rounds, args.timeout, args.settle, only)
    print(json.dumps(report))
    if args.markdown:
        print(f"\n## {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} — load test\n\n"
              f"- Command: `python benchmarks/load_test.py --sessions {args.sessions} --rounds {args.rounds}`\n"
              f"- {report['sessions']} concurrent Chromium sessions x {report['rounds']} walk(s) over "
              f"{len(report['pages'])} pages = {report['page_visits']} page visits in "
              f"{report['wall_seconds']} s; problems shown: {len(report['problems'])}; "
              f"server tracebacks: {report['server_tracebacks']}\n"
              f"- Server RSS: {report['rss_mb_before']} MB before, {report['rss_mb_peak']} MB peak, "
              f"{report['rss_mb_after_close']} MB {report['settle_seconds']:.0f} s after every "
              f"browser closed\n")
    return 0 if not report["problems"] and not report["server_tracebacks"] else 1


if __name__ == "__main__":
    sys.exit(main())
