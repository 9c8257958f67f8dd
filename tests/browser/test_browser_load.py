"""Issue 12: five concurrent browser sessions over every page, no error, memory reported.

Runs benchmarks/load_test.py's driver (its own server on 127.0.0.1, bounded in time);
recorded figures are in benchmarks/RESULTS.md.
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]


def test_five_concurrent_sessions_over_every_page():
    if not os.path.exists(os.environ.get("TIEDRANK_CHROMIUM", "/usr/bin/chromium")):
        pytest.skip("no Chromium (apt-get install -y chromium chromium-driver)")
    spec = importlib.util.spec_from_file_location("load_test", ROOT / "benchmarks" / "load_test.py")
    load_test = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(load_test)
    report = load_test.run_load_test(sessions=5, rounds=1, timeout=480, settle=3)
    print(report)
    assert report["page_visits"] == 5 * len(report["pages"]) and len(report["pages"]) >= 8
    assert report["problems"] == []
    assert report["server_tracebacks"] == 0
    assert report["rss_mb_peak"] < 2048, report
