"""The split between core and dashboard tests, the ``slow`` marker and the hypothesis profiles.

Tests of the Streamlit dashboard (``app`` marker: AppTest, figures, browser) need the
``tiedrank[app]`` extra; the core tests need only the core dependencies.  Where streamlit,
plotly or playwright is not installed (the lowest-versions CI step), the modules that import
them are not collected, and the header of the run says so.  Every ``browser`` test is also
an ``app`` test.

``slow`` tests (the full load test, ...) are skipped unless asked for: ``--slow``, or a
``-m`` expression that names ``slow``.  Property tests take their example counts from
:func:`hypothesis_profiles.examples`: quick by default, the deep budgets with
``HYPOTHESIS_PROFILE=deep`` (or ``--hypothesis-profile=deep``).  See tests/README.md.
"""
from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

import hypothesis_profiles

hypothesis_profiles.register(os.environ.get("HYPOTHESIS_PROFILE"))

# ranx is an oracle here for what its Python code computes, not for numba's compiler: with the
# JIT on, the first ranx.evaluate in a fresh environment compiles for about 55 s of one core
# (measured: the ranx tests take 57 s cold, 6 s without the JIT). numba runs the same Python
# functions uncompiled. Set NUMBA_DISABLE_JIT=0 to test with the compiled code. Files that
# ranx itself writes are recorded fixtures (tests/interop/ranx_fixtures), because ranx's
# writer returns numpy strings when uncompiled.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

HERE = Path(__file__).parent
_APP_IMPORT = re.compile(
    r"^\s*(?:from|import)\s+(?:streamlit|plotly|playwright|kaleido|apptest_support|app_walk|browser_support"
    r"|tests\.apptest_support|tiedrank\.dashboard\.(?:figures|ui|session_uploads)\b|tiedrank\.dashboard\s+import\s+"
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


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the tests marked slow (skipped otherwise unless -m names slow)")


def pytest_report_header(config):
    if _MISSING:
        return (f"core tests only: {', '.join(_MISSING)} not installed, so the {len(_APP_PATHS)} "
                "dashboard test modules/folders are not collected")
    return None


def pytest_collection_modifyitems(config, items):
    run_slow = config.getoption("--slow") or "slow" in (config.option.markexpr or "")
    skip_slow = pytest.mark.skip(reason="slow: run with --slow, or -m slow")
    for item in items:
        path = Path(str(item.fspath))
        if (any(path == p or p in path.parents for p in _APP_PATHS)
                or item.get_closest_marker("browser") is not None):
            item.add_marker(pytest.mark.app)
        if not run_slow and item.get_closest_marker("slow") is not None:
            item.add_marker(skip_slow)
