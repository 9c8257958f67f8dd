"""Fixtures shared by the test modules, and the split between core and dashboard tests.

Tests of the Streamlit dashboard (``app`` marker: AppTest, figures, browser) need the
``tiedrank[app]`` extra; the core tests need only the core dependencies.  Where streamlit,
plotly or playwright is not installed (the lowest-versions CI step), the modules that import
them are not collected, and the header of the run says so.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

HERE = Path(__file__).parent
_APP_IMPORT = re.compile(
    r"^\s*(?:from|import)\s+(?:streamlit|plotly|playwright|kaleido|apptest_support|browser_support"
    r"|tests\.apptest_support|tiedrank\.dashboard\.(?:figures|ui)\b|tiedrank\.dashboard\s+import\s+"
    r"(?:figures|ui)\b)", re.MULTILINE)


def _is_app_test(path: Path) -> bool:
    """A test module that imports the dashboard's Streamlit or plotly side (read, not run)."""
    return path.name == "apptest_support.py" or bool(_APP_IMPORT.search(path.read_text()))


_APP_PATHS = {HERE / "browser"} | {path for path in HERE.rglob("*.py")
                                   if "browser" not in path.parts and path.name != "conftest.py"
                                   and _is_app_test(path)}
"""Test modules that exercise the dashboard (and tests/browser): marked ``app``."""
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
