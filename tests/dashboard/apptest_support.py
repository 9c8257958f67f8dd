"""Shared support for the AppTest suites (and the dashboard timing benchmark)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
from streamlit import dataframe_util
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


class NavigationPagesManager(PagesManager):
    """A PagesManager that never falls back to the old ``pages/`` folder mode.

    Streamlit emulates the old multipage mode when a ``pages/`` folder sits next to the
    entry point, until the first ``st.navigation`` call switches the emulation off for the
    process. AppTest resets that switch before every run, so from the second run on it
    would execute the page file alone (no sidebar, no data panel). The server never goes
    back; neither should the tests. Install with
    ``monkeypatch.setattr(script_runner, "PagesManager", NavigationPagesManager)``.
    """

    uses_pages_directory = False


def new_app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=30)


def upload(at: AppTest, qrels, runs) -> AppTest:
    """Choose "Upload your own" and upload qrels and runs ((name, bytes, mime) tuples)."""
    at.radio(key="dataset").set_value("upload").run()
    at.file_uploader(key="upload_qrels").set_value(qrels)
    at.file_uploader(key="upload_runs").set_value(runs)
    return at.run()


def assert_no_trouble(at: AppTest) -> None:
    """No exception box and no st.error on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def shown_table(element) -> pd.DataFrame:
    """What an ``st.dataframe`` shows: the display values of a pandas Styler (the Overview
    table keeps numbers as data so that it sorts by value), else the data itself."""
    styled = element.proto.arrow_data.styler.display_values
    if not styled:
        return element.value
    return dataframe_util.convert_arrow_bytes_to_pandas_df(styled)
