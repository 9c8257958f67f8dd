"""Fixtures shared by the test modules, and the split between core and dashboard tests.

Tests of the Streamlit dashboard (``app`` marker: AppTest, figures, browser) need the
``tiedrank[app]`` extra; the core tests need only the core dependencies.  Where streamlit,
plotly or playwright is not installed (the lowest-versions CI step), the modules that import
them are not collected, and the header of the run says so.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

HERE = Path(__file__).parent
APP_TESTS = (
    "apptest_support.py", "test_app_*.py", "test_dashboard_core.py", "test_learn_and_figures.py",
    "features/test_app_documents.py", "features/test_flips.py", "browser", "features/browser",
)
"""Test modules (globs relative to tests/) that exercise the dashboard: marked ``app``."""

_APP_PATHS = {path for pattern in APP_TESTS for path in HERE.glob(pattern)}
_MISSING = [name for name in ("streamlit", "plotly", "playwright")
            if importlib.util.find_spec(name) is None]
collect_ignore = sorted(str(p.relative_to(HERE)) for p in _APP_PATHS) if _MISSING else []


def pytest_report_header(config):
    if _MISSING:
        return (f"core tests only: {', '.join(_MISSING)} not installed, so the {len(_APP_PATHS)} "
                "dashboard test modules/folders are not collected")
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.fspath))
        if any(path == p or p in path.parents for p in _APP_PATHS):
            item.add_marker(pytest.mark.app)


@pytest.fixture()
def navigation_pages(monkeypatch):
    """Run app.py on every AppTest rerun, as the real server does (see NavigationPagesManager)."""
    from apptest_support import NavigationPagesManager
    from streamlit.runtime.scriptrunner import script_runner

    monkeypatch.setattr(script_runner, "PagesManager", NavigationPagesManager)
