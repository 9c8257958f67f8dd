"""benchmarks/load_test.py: concurrent browser sessions over the pages, no error, memory reported.

The load test is a benchmark (its figures are in benchmarks/RESULTS.md); the suite runs it
small, two concurrent sessions, so that the script keeps working and concurrent sessions
stay error-free. The full run (five sessions, the figure RESULTS.md records) is ``slow``:
``python -m pytest --slow tests/benchmarks_smoke``, or the benchmark itself. Each run starts
its own server on 127.0.0.1 and its own asyncio Playwright, bounded in time.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# On demand (`--slow`): a load test is a benchmark, not a check of the product's behaviour;
# `python -m pytest tests/benchmarks_smoke --slow` runs it.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("load_test")]
ROOT = Path(__file__).resolve().parents[2]


def _load_test(sessions: int, timeout: int, settle: int = 10, pages: tuple[str, ...] = ()) -> None:
    if not os.path.exists(os.environ.get("TIEDRANK_CHROMIUM", "/usr/bin/chromium")):
        pytest.skip("no Chromium (apt-get install -y chromium chromium-driver)")
    done = subprocess.run([sys.executable, "benchmarks/load_test.py", "--sessions", str(sessions),
                           "--rounds", "1", "--timeout", str(timeout), "--settle", str(settle),
                           "--pages", ",".join(pages)],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout + 120)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    print(report)
    assert len(report["pages"]) == (len(pages) or len(report["pages"])) >= 3
    assert report["page_visits"] == sessions * len(report["pages"])
    assert report["problems"] == []
    assert report["server_tracebacks"] == 0
    assert report["rss_mb_peak"] < 2048, report
    assert done.returncode == 0, done.stderr[-2000:]


def test_two_concurrent_sessions_over_three_pages():
    """The smoke test: the script works and two sessions computing the same results at once
    (Overview's table, Compare's tests and samplers) see no error. Every page is walked by
    the browser tests one session at a time, and by the slow five-session run below."""
    _load_test(sessions=2, timeout=240, settle=1, pages=("Overview", "Tie structure", "Compare"))


@pytest.mark.slow
def test_five_concurrent_sessions_over_every_page():
    _load_test(sessions=5, timeout=480)
