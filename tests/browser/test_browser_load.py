"""Issue 12: five concurrent browser sessions over every page, no error, memory reported.

Runs benchmarks/load_test.py in its own process (its own server on 127.0.0.1 and its own
asyncio Playwright, bounded in time); recorded figures are in benchmarks/RESULTS.md.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]


def test_five_concurrent_sessions_over_every_page():
    if not os.path.exists(os.environ.get("TIEDRANK_CHROMIUM", "/usr/bin/chromium")):
        pytest.skip("no Chromium (apt-get install -y chromium chromium-driver)")
    done = subprocess.run([sys.executable, "benchmarks/load_test.py", "--sessions", "5",
                           "--rounds", "1", "--timeout", "480"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    print(report)
    assert len(report["pages"]) >= 8 and report["page_visits"] == 5 * len(report["pages"])
    assert report["problems"] == []
    assert report["server_tracebacks"] == 0
    assert report["rss_mb_peak"] < 2048, report
    assert done.returncode == 0, done.stderr[-2000:]
