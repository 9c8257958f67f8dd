"""Fixtures shared by the test modules."""
from __future__ import annotations

import pytest

from apptest_support import NavigationPagesManager


@pytest.fixture()
def navigation_pages(monkeypatch):
    """Run app.py on every AppTest rerun, as the real server does (see NavigationPagesManager)."""
    from streamlit.runtime.scriptrunner import script_runner

    monkeypatch.setattr(script_runner, "PagesManager", NavigationPagesManager)
