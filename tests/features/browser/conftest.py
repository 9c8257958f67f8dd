"""Reuse the browser fixtures of tests/browser (one Streamlit server, Debian's Chromium)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "browser"))

from tests.browser.conftest import UI, app_url, chromium, page, ui  # noqa: F401
