"""Uploads survive a reload: the browser reloads the page (a new Streamlit session) and the
runs uploaded before are still there, brought back from the server by the link's key."""
from __future__ import annotations

import re

import pytest

from browser_support import wait_idle

pytestmark = pytest.mark.browser

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 0\nq2 0 d4 1\n"
RUN_A = "q1 Q0 d1 1 2.0 alpha\nq1 Q0 d2 2 2.0 alpha\nq1 Q0 d3 3 1.0 alpha\nq2 Q0 d4 1 1.0 alpha\n"
RUN_B = "q1 Q0 d3 1 3.0 beta\nq1 Q0 d1 2 1.0 beta\nq2 Q0 d1 1 1.0 beta\nq2 Q0 d4 2 1.0 beta\n"
LOADED = 'text=Uploaded: 2 runs (alpha, beta)'


def test_uploaded_runs_are_still_there_after_a_reload(ui, tmp_path):
    files = {}
    for name, text in {"qrels.txt": QRELS, "alpha.txt": RUN_A, "beta.txt": RUN_B}.items():
        files[name] = tmp_path / name
        files[name].write_text(text)
    ui.page.goto(f"{ui.url}/?dataset=upload")  # no data yet: the page has no title, the sidebar the uploaders
    ui.wait('[data-testid="stFileUploader"]')
    uploaders = ui.page.get_by_test_id("stFileUploader")
    uploaders.nth(0).locator('input[type="file"]').set_input_files(str(files["qrels.txt"]))
    wait_idle(ui.page)
    uploaders.nth(1).locator('input[type="file"]').set_input_files(
        [str(files["alpha.txt"]), str(files["beta.txt"])])
    ui.wait(LOADED)
    ui.page.wait_for_url(re.compile(r"[?&]data=[0-9a-f]{16}"))
    link = ui.page.url

    ui.page.reload()
    gone = ui.page.get_by_text("no longer on this server")
    ui.page.get_by_text(LOADED.removeprefix("text=")).or_(gone).first.wait_for()  # a miss fails at once
    assert gone.count() == 0, link
    ui.wait(LOADED)
    assert ui.page.url == link
    sidebar = ui.page.get_by_test_id("stSidebar")
    assert sidebar.get_by_text("Still using the files uploaded before: qrels.txt, alpha.txt, beta.txt").count() == 1
    assert ui.page.get_by_text("no longer on this server").count() == 0
    assert ui.exceptions() == 0
