"""The dashboard builds each run's tie table once per (data, settings) and scores every
page's metrics from it: a test that counts the builds through the core's one entry point."""
from __future__ import annotations

import pytest
from apptest_support import assert_no_trouble, new_app

import importlib

from tiedrank.dashboard.cache import SHARED

core = importlib.import_module("tiedrank.evaluation.scoring")  # the module that calls build_tie_table

pytestmark = pytest.mark.usefixtures("navigation_pages")


@pytest.fixture()
def builds(monkeypatch):
    """Every call of build_tie_table made by the core's build_tables (the only caller the
    dashboard has), as (run name, relevance level)."""
    seen: list[tuple[str, int]] = []
    original = core.build_tie_table

    def counting(run, qrels, options=None, **kwargs):
        if run.name != "toy":  # TsRR's pathology charts score a made-up ranking, not the data
            seen.append((run.name, getattr(options, "rel_level", kwargs.get("rel_level"))))
        return original(run, qrels, options, **kwargs)

    SHARED.clear()  # tables cached by earlier tests would hide the builds
    monkeypatch.setattr(core, "build_tie_table", counting)
    yield seen
    SHARED.clear()


def test_each_tie_table_is_built_once_across_pages_and_metrics(builds):
    at = new_app().run()
    assert_no_trouble(at)
    runs = len(at.session_state["tiedrank_context"].runs) if "tiedrank_context" in \
        at.session_state else None
    first = list(builds)
    assert first and len(first) == len(set(first)), first  # one build per run
    if runs is not None:
        assert len(first) == runs
    for page in ("pages/compare.py", "pages/spread.py", "pages/tie_structure.py",
                 "pages/tsrr.py", "pages/overview.py"):
        at.switch_page(page).run()
        assert_no_trouble(at)
    assert builds == first, "a page built a tie table again for the same data and settings"
    level = at.number_input(key="rel_level").value
    at.number_input(key="rel_level").set_value(level + 1 if level < 3 else 1).run()
    assert_no_trouble(at)
    again = builds[len(first):]
    assert len(again) == len(first) and {name for name, _ in again} == {n for n, _ in first}
