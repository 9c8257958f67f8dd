"""Counterexamples the stateful tester found (test_app_stateful.py), shrunk and kept as
regular tests: each replays its steps in a new AppTest session and asserts that no step
breaks an invariant of tests/dashboard/app_walk.py (no exception box, no "could not be
drawn", every widget's state a valid value of it, content or a message in the page's
words, the settings shown = the settings in force = the link).

A defect found but fixed on another branch is ``xfail(strict=True)`` naming the branch:
when the fix is merged the test passes, strict makes that a failure, and the marker (and
the entry of walk_model.KNOWN) must go.
"""
from __future__ import annotations

import pytest
from app_walk import Action, assert_survives
from apptest_support import new_app

pytestmark = pytest.mark.usefixtures("navigation_pages")


def test_a_link_with_odd_digits_opens_the_app():
    """``?k=²``: str.isdigit() accepts it, int() does not: the whole app was an exception
    box. Found by the walk's hostile links (seed 404); fixed in settings.settings_from_params
    (the other digits: test_settings_links.py)."""
    assert_survives([Action("open", None, {"k": "²", "rel": "9" * 5000})])


@pytest.mark.parametrize("page_script, uploader, corpus", [
    ("pages/side_by_side.py", "sbs_corpus_upload", "bad.gz"),
    ("pages/tie_structure.py", "doc_corpus_upload", "cut_corpus.tsv.gz")])
def test_a_damaged_corpus_is_one_message(page_script, uploader, corpus):
    """Found by the browser walk (seed 7100): a damaged .gz corpus on Two runs, one query made
    the page "could not be drawn (EOFError)"; read_corpus now says what is wrong (its other
    damages: tests/io/test_io_corpus.py)."""
    at = assert_survives([Action("open", page_script, {}), Action("upload", uploader, (corpus,))])
    assert any("the corpus is not a readable gzip file" in e.value for e in at.error)


def test_seed_503_learn_survives_a_deleted_row_then_a_sidebar_setting():
    """Shrunk by the walk from 17 steps (seed 503): any rerun after the first edit breaks
    (the issue's own steps, d3's grade then Cutoff k, break the same way)."""
    assert_survives([
        Action('open', None, {}),
        Action('page', 'pages/learn.py'),
        Action('edit', 'learn_editor_S2', {'edited_rows': {}, 'added_rows': [], 'deleted_rows': [0]}),
        Action('set', 'round', 5),
    ])


def test_spread_says_so_when_a_run_shares_no_query_with_the_qrels():
    assert_survives([
        Action("open", None, {}),
        Action("set", "dataset", "upload"),
        Action("upload", "upload_qrels", ("qrels.txt",)),
        Action("upload", "upload_runs", ("no_shared_query.txt",)),
        Action("page", "pages/spread.py"),
    ])


def test_tie_structure_keeps_its_group_scope_when_k_changes():
    """The 'Groups' option 'starting in the top {k}' was a label holding k: after a change
    of k the required control held nothing. The state now holds the key 'top'."""
    assert_survives([
        Action("open", "pages/tie_structure.py", {}),
        Action("set", "tie_hist_scope", "top"),
        Action("set", "k", 9),
    ])


def test_learn_names_a_bad_cell_in_the_tables_words():
    assert_survives([
        Action("open", "pages/learn.py", {}),
        Action("edit", "learn_editor_S2", {"edited_rows": {"4": {"doc": "d1"}}, "added_rows": [],
                                           "deleted_rows": []}),
    ])


def test_tie_structure_follows_the_query_set_setting():
    """Issue 28 #5: with 'leave them out', a query without a relevant document was said to
    count as 0 in the means."""
    assert_survives([Action("open", "pages/tie_structure.py",
                            {"queries": "relevant", "dataset": "trec_eval", "rel": "2"})])


def test_learn_opened_first_on_a_fresh_server_goes_through_app_py(monkeypatch):
    """Found by the browser walk (seed 7200: an exception box on Learn, from #1, outside
    app.py's error boundary). A server process emulates the old pages/ mode until app.py's
    st.navigation has run once; a page opened first must switch to app.py, as every page
    with data does (ui.get_context). AppTest does the emulation without NavigationPagesManager."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import script_runner

    monkeypatch.setattr(script_runner, "PagesManager", PagesManager)
    at = new_app()
    at.switch_page("pages/learn.py")
    at.run()
    assert len(at.sidebar.get("page_link")) == 10, "no page menu: app.py did not run"
    assert at.title[0].value.startswith("Learn")
