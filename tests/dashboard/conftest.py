"""Fixtures of the dashboard tests (tiedrank.dashboard logic and Streamlit's AppTest)."""
from __future__ import annotations

import pytest


@pytest.fixture()
def navigation_pages(monkeypatch):
    """Run app.py on every AppTest rerun, as the real server does (see NavigationPagesManager)."""
    from apptest_support import NavigationPagesManager
    from streamlit.runtime.scriptrunner import script_runner

    monkeypatch.setattr(script_runner, "PagesManager", NavigationPagesManager)
