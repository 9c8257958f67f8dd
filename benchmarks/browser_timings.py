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

``--profile full`` (issue 41, "Full scale") instead starts ``tiedrank dashboard QRELS RUN RUN
RUN`` on generated files (made once under ``--data``, default ``$TMPDIR/tiedrank-full``: a
6,980-query x 1,000 run, 6.98M lines, and two 700 x 1,000 runs, seeds 1 and 2), and per page
measures the first draw (the Overview's: from opening the app until its table shows), a
rerun after one widget change (the first segmented control, radio option or checkbox of the
page's main area not yet chosen; else the ``r`` key), the websocket bytes the browser
receives for each, and the server's peak RSS summed over its processes::

    python benchmarks/browser_timings.py --profile full --repeat 2

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
import threading
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


# ---- the full-scale profile: `tiedrank dashboard QRELS RUN RUN RUN` on generated files ------------

FULL_FILES = ("big/qrels.txt", "big/run.txt", "s1/run.txt", "s2/run.txt")
FULL_TABLE = '[data-testid="stMain"] [data-testid="stDataFrame"], [data-testid="stMain"] [data-testid="stTable"]'
# the widget changed for the rerun: the first radio option, segmented-control button or
# checkbox of the page's main area that is not already chosen (else the "r" key)
_WIDGETS = ('[data-testid="stMain"] button[data-testid="stBaseButton-segmented_control"]',
            '[data-testid="stMain"] [data-testid="stRadio"] label:not(:has(input:checked))',
            '[data-testid="stMain"] [data-testid="stCheckbox"] label')


def generate_full(data: Path) -> list[Path]:
    """The profile's files under ``data`` (made once): a 6,980-query x 1,000 run (7M lines,
    ~273 MB) with its qrels, and two 700-query x 1,000 runs (seeds 1 and 2)."""
    for sub, queries, seed in (("big", 6980, 20240714), ("s1", 700, 1), ("s2", 700, 2)):
        if not (data / sub / "run.txt").exists():
            subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate.py"), "--queries", str(queries),
                            "--depth", "1000", "--seed", str(seed), "--out", str(data / sub)],
                           check=True, stdout=subprocess.DEVNULL)
    return [data / name for name in FULL_FILES]


def _start_files_server(paths: list[Path]) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tiedrank", "dashboard", *map(str, paths), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise SystemExit("tiedrank dashboard did not start within 120 s")


class PeakRSS:
    """The peak resident memory summed over a process and its children, polled every 0.1 s
    in a thread (psutil if installed, else /proc)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _sample(self) -> int:
        try:
            import psutil
        except ImportError:
            return _proc_tree_rss(self.pid)
        try:
            root = psutil.Process(self.pid)
            total = root.memory_info().rss
            for child in root.children(recursive=True):
                try:
                    total += child.memory_info().rss
                except psutil.Error:
                    pass
            return total
        except psutil.Error:
            return 0

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            self._stop.wait(0.1)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def _proc_tree_rss(pid: int) -> int:
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            pages = int((entry / "statm").read_text().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
        rss[int(entry.name)] = pages * os.sysconf("SC_PAGE_SIZE")
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += rss.get(current, 0)
        todo += children.get(current, [])
    return total


class Received:
    """Bytes the browser receives: websocket frames (Streamlit's protobuf deltas: what the
    pages send) and HTTP bodies (``Content-Length`` or the body: the app's static files,
    sent once), summed since the last ``take``."""

    def __init__(self, page) -> None:
        self.frames = self.http = 0
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        page.on("response", self._response)

    def _frame(self, payload) -> None:
        self.frames += len(payload)

    def _response(self, response) -> None:
        try:
            length = response.headers.get("content-length")
            self.http += int(length) if length else len(response.body())
        except Exception:  # a redirect or an aborted body: nothing received
            pass

    def take(self) -> int:
        """The websocket bytes since the last call (the HTTP bytes stay in ``http``)."""
        taken, self.frames = self.frames, 0
        return taken


_ARM = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  window.__tiedrankRan = false;
  if (window.__tiedrankWatch) window.__tiedrankWatch.disconnect();
  window.__tiedrankWatch = new MutationObserver(() => {
    if (app.getAttribute('data-test-script-state') === 'running') window.__tiedrankRan = true; });
  window.__tiedrankWatch.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""
_RAN = """() => window.__tiedrankRan && document.querySelector('[data-testid="stApp"]')
  .getAttribute('data-test-script-state') === 'notRunning'"""


def _until_rerun(page, started: float, content: str | None = None) -> float:
    """Seconds from ``started`` until a script run that started after :data:`_ARM` has
    finished (a mutation observer sees it start: no fixed wait for a run that is quick)."""
    try:
        page.wait_for_function(_RAN, timeout=120_000, polling=50)
    except Exception:  # no run seen within 2 minutes: a miss to print, not the end of the table
        return float("nan")
    if content:
        page.locator(content).first.wait_for(state="visible", timeout=300_000)
    return time.perf_counter() - started


def _change_one_widget(page) -> str:
    for selector in _WIDGETS:
        widget = page.locator(selector)
        if widget.count():
            label = " ".join((widget.first.text_content() or "?").split())[:30]
            widget.first.click()
            return label
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("r")
    return "r (no widget)"


def _full_session(browser, url: str, only: tuple[str, ...]) -> tuple[float, list[tuple], int]:
    """(seconds from opening the app to the Overview's table, [(page, first draw, rerun,
    widget changed, websocket bytes of the first draw, of the rerun)], HTTP bytes)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(300_000)
    received = Received(page)
    started = time.perf_counter()
    page.goto(url)
    page.locator(FULL_TABLE).first.wait_for(state="visible", timeout=300_000)
    overview_table = time.perf_counter() - started
    _until_idle(page, started)
    opened = received.take()
    rows = []
    page.locator(f"{MENU} a").first.wait_for(state="visible")
    for title in only or _page_titles(page):
        link = page.locator(MENU).get_by_text(title, exact=True)
        link.wait_for(state="visible")
        if title == "Overview":  # already open: its first draw is the opening above
            first, first_bytes = overview_table, opened
        else:
            page.evaluate(_ARM)
            started = time.perf_counter()
            link.click()
            first = _until_rerun(page, started, f'h1:has-text("{title}")')
            first_bytes = received.take()
        page.evaluate(_ARM)
        started = time.perf_counter()
        widget = _change_one_widget(page)
        rerun = _until_rerun(page, started)
        rows.append((title, first, rerun, widget, first_bytes, received.take()))
        print(f"  {title}: first draw {first:.2f} s, rerun {rerun:.2f} s ({widget}), "
              f"{rows[-1][4]:,} + {rows[-1][5]:,} bytes", file=sys.stderr, flush=True)
    context.close()
    return overview_table, rows, received.http


def full_profile(args) -> None:
    """``--profile full``: ``tiedrank dashboard`` on the generated files, every page's first
    draw, a rerun after one widget change, the bytes received and the server's peak RSS."""
    from playwright.sync_api import sync_playwright

    only = tuple(name.strip() for name in args.pages.split(",") if name.strip())
    paths = generate_full(Path(args.data))
    server, url = _start_files_server(paths)
    memory = PeakRSS(server.pid)
    load = os.getloadavg()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            sessions = [_full_session(browser, url, only) for _ in range(args.repeat)]
            browser.close()
    finally:
        peak = memory.stop()
        server.terminate()
        server.wait(timeout=30)
    print(f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load average "
          f"{load[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end; `tiedrank dashboard` on "
          f"{', '.join(p.name for p in paths)} ({sum(p.stat().st_size for p in paths) / 1e6:.0f} MB); "
          f"{args.repeat} sessions, 1280 x 900\n")
    print(f"Overview's table drawn after opening the app: fresh server {sessions[0][0]:.2f} s; per session "
          + ", ".join(f"{s[0]:.2f}" for s in sessions) + " s\n")
    print(f"Static files over HTTP, once: {sessions[0][2]:,} bytes; the columns below are the "
          "websocket's bytes (what the pages send)\n")
    print("| page | first draw, fresh server (s) | first draw (s) | rerun (s) | widget changed | "
          "bytes received, first draw | bytes received, rerun |\n|---|---:|---:|---:|---|---:|---:|")
    for index, row in enumerate(sessions[0][1]):
        title = row[0]
        same = [s[1][index] for s in sessions if index < len(s[1]) and s[1][index][0] == title]
        print(f"| {title} | {row[1]:.2f} | {statistics.median(r[1] for r in same):.2f} | "
              f"{statistics.median(r[2] for r in same):.2f} | {row[3]} | "
              f"{int(statistics.median(r[4] for r in same)):,} | {int(statistics.median(r[5] for r in same)):,} |")
    print(f"\nserver peak RSS (all its processes): {peak / 2**30:.2f} GiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="sessions per dataset (median)")
    parser.add_argument("--skip-uploads", action="store_true")
    parser.add_argument("--pages", default="",
                        help="comma-separated page titles to time (default: every page of the menu)")
    parser.add_argument("--concurrent", type=int, default=0,
                        help="N sessions click the one page of --pages at once (fresh server)")
    parser.add_argument("--profile", choices=("default", "full"), default="default",
                        help="full: `tiedrank dashboard` on a 7M-line run and two 700k-line runs")
    parser.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "tiedrank-full"),
                        help="--profile full: where the generated files are (made once)")
    args = parser.parse_args()
    if args.profile == "full":
        full_profile(args)
        return
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
