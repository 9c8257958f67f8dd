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


@pytest.mark.slow  # deep profile (on demand): test_app_uploads reloads through AppTest
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
    ui.page.wait_for_url(re.compile(r"[?&]upload_key=[0-9a-f]{16}"))
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


RUN_C = "q1 Q0 d2 1 3.0 gamma\nq1 Q0 d1 2 3.0 gamma\nq2 Q0 d4 1 1.0 gamma\n"
# no column name the readers know: query, doc and score wait for the sidebar's mapping
CSV = "topic_no,passage,relevance_score\nq1,d1,0.5\nq1,d2,0.5\nq1,d3,0.2\nq2,d4,0.9\n"
PRIMARY = "rgb(255, 75, 75)"  # Streamlit's red: a focused (or invalid) control's border


def test_a_csv_waiting_for_its_columns_hides_no_run_and_its_mapping_ends_finished(ui, tmp_path):
    """Issue 28, item 6: three readable runs, then a CSV that needs its column mapping; the
    three stay on the page with the CSV flagged; once mapped, its expander looks finished."""
    files = {}
    for name, text in {"qrels.txt": QRELS, "alpha.txt": RUN_A, "beta.txt": RUN_B,
                       "gamma.txt": RUN_C, "scores.csv": CSV}.items():
        files[name] = tmp_path / name
        files[name].write_text(text)
    page = ui.page
    page.goto(f"{ui.url}/?dataset=upload")
    ui.wait('[data-testid="stFileUploader"]')
    uploaders = page.get_by_test_id("stFileUploader")
    uploaders.nth(0).locator('input[type="file"]').set_input_files(str(files["qrels.txt"]))
    wait_idle(page)
    runs = uploaders.nth(1).locator('input[type="file"]')
    runs.set_input_files([str(files[n]) for n in ("alpha.txt", "beta.txt", "gamma.txt")])
    ui.wait('text=Uploaded: 3 runs (')  # in the order the uploads finished
    runs.set_input_files(str(files["scores.csv"]))  # added to the three
    ui.wait('text=scores.csv waits for its columns')
    wait_idle(page)
    main = page.get_by_test_id("stMain")
    assert main.get_by_text("Meanwhile every page shows the other runs").count() == 1
    label = main.get_by_text("Uploaded: 3 runs (").inner_text()
    assert all(name in label for name in ("alpha", "beta", "gamma")), label
    assert main.get_by_text("Nothing to show").count() == 0
    mapping = page.get_by_test_id("stSidebar").get_by_test_id("stExpander").filter(
        has_text="Columns of scores.csv")
    assert "warning" in mapping.locator("summary").inner_text()  # the ⚠ icon while it waits
    for field, column in (("query", "topic_no"), ("doc", "passage"), ("score", "relevance_score")):
        box = mapping.get_by_test_id("stSelectbox").filter(
            has=page.get_by_test_id("stWidgetLabel").get_by_text(field, exact=True))
        box.scroll_into_view_if_needed()
        box.click()
        box.locator("input").fill(column)
        page.get_by_role("option", name=column, exact=True).first.click()
        wait_idle(page)
    ui.wait('text=Uploaded: 4 runs (')
    assert "scores)" in main.get_by_text("Uploaded: 4 runs (").inner_text()
    wait_idle(page)
    assert main.get_by_text("waits for its columns").count() == 0
    mapping.locator("details:not([open])").wait_for(state="attached")  # it closes (animated)
    assert "warning" not in mapping.locator("summary").inner_text()
    mapping.locator("summary").click()  # opened again: it says what was chosen, nothing red
    ui.wait('text=Columns chosen: query = topic_no, doc = passage, score = relevance_score.')
    assert mapping.get_by_text("Choose which columns").count() == 0
    borders = mapping.evaluate("e => [...e.querySelectorAll('*')].map(x => getComputedStyle(x).borderColor)")
    assert not [b for b in borders if PRIMARY in b]
    assert ui.exceptions() == 0
