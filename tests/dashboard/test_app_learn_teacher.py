"""Learn as a teacher uses it (issue 28): any number of edits in a row, undo of the last edit,
reset to the scenario, integer grades with a message in the page's words.

The browser holds a picker's value as its label (Streamlit sends a selectbox's value over
the wire as the ``format_func`` text) and keeps the label it was last told. AppTest instead
re-formats the value with the current labels on every run, so it never sent the stale
label that crashed Learn on the second edit after "Custom" appeared.
:class:`browser_labels.BrowserLabels` makes AppTest send what the browser sends.
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from apptest_support import new_app
from browser_labels import BrowserLabels

pytestmark = pytest.mark.usefixtures("navigation_pages")

EDIT_D3_GRADE = {"2": {"grade": "2"}}
EDIT_D1_SCORE = {"0": {"score": 0.8}}


def _editor_key(at) -> str:
    history = at.session_state["_learn_edits"] if "_learn_edits" in at.session_state else None
    return history.editor_key if history is not None else "learn_editor_S2"


def _edit(at, rows: dict, as_browser: BrowserLabels, added=(), deleted=()):
    """The editor's cumulative state, as the browser sends it with every rerun."""
    at.session_state[_editor_key(at)] = {"edited_rows": rows, "added_rows": list(added),
                                         "deleted_rows": list(deleted)}
    return as_browser.run(at)


def _card(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _page_wide_errors(at) -> list[str]:
    return [e.value for e in at.exception] + [e.value for e in at.error
                                              if "could not be drawn" in e.value]


def _open(as_browser: BrowserLabels):
    at = new_app()
    as_browser.run(at)
    at.switch_page("pages/learn.py")
    return as_browser.run(at)


@pytest.fixture()
def as_browser(monkeypatch) -> BrowserLabels:
    """Run the app as the browser does (the name ``browser`` is pytest-playwright's)."""
    return BrowserLabels(monkeypatch)


def test_second_edit_after_the_selector_says_custom(as_browser):
    """Issue 28, item 1, as a user clicks: S2, d3's grade 0 -> 2, d1's score 0.9 -> 0.8,
    Cutoff k 3 -> 4: the page is drawn after every step and follows every edit."""
    at = _open(as_browser)
    assert _card(at, "E[RR]") == f"{5 / 12:.4f}"
    _edit(at, EDIT_D3_GRADE, as_browser)  # d2 and d3 (both relevant) tie at ranks 2-3: RR = 1/2
    assert not _page_wide_errors(at)
    assert at.selectbox(key="learn_scenario").format_func("S2").startswith("Custom")
    assert _card(at, "E[RR]") == "0.5000"
    _edit(at, {**EDIT_D3_GRADE, **EDIT_D1_SCORE}, as_browser)  # the second edit: three tied
    assert not _page_wide_errors(at), _page_wide_errors(at)
    # d1, d2, d3 tie at the top, two relevant: rank 1 w.p. 2/3, else rank 2
    assert _card(at, "E[RR]") == f"{float(Fraction(2, 3) + Fraction(1, 3) / 2):.4f}"
    assert at.session_state["learn_scenario"] == "S2"  # a key, never a label
    at.number_input(key="learn_k").set_value(4)
    as_browser.run(at)
    assert not _page_wide_errors(at), _page_wide_errors(at)
    assert at.session_state["learn_scenario"] == "S2"
    assert _card(at, "E[RR]") == "0.8333"  # both edits still in force
    metrics = next(d.value for d in at.dataframe if "metric" in d.value.columns)["metric"].tolist()
    assert "P@4" in metrics and "P@3" not in metrics


def test_undo_and_reset(as_browser):
    at = _open(as_browser)
    _edit(at, EDIT_D3_GRADE, as_browser)
    _edit(at, {**EDIT_D3_GRADE, **EDIT_D1_SCORE}, as_browser)
    assert _card(at, "E[RR]") == "0.8333"
    assert not at.button(key="learn_undo").disabled
    at.button(key="learn_undo").click()
    as_browser.run(at)  # back to the first edit only
    assert not _page_wide_errors(at)
    assert _card(at, "E[RR]") == "0.5000"
    assert at.selectbox(key="learn_scenario").format_func("S2").startswith("Custom")
    # the next edit goes on from there (the editor was redrawn from the table after edit 1)
    _edit(at, {"3": {"score": 0.8}}, as_browser)  # d4 (grade 0) joins d2 and d3: 2 of 3 relevant
    assert _card(at, "E[RR]") == f"{float(Fraction(2, 3) / 2 + Fraction(1, 3) / 3):.4f}"
    at.button(key="learn_reset").click()
    as_browser.run(at)
    assert not _page_wide_errors(at)
    assert _card(at, "E[RR]") == f"{5 / 12:.4f}"
    assert at.selectbox(key="learn_scenario").format_func("S2").startswith("S2:")
    assert at.button(key="learn_undo").disabled and at.button(key="learn_reset").disabled
    _edit(at, EDIT_D1_SCORE, as_browser)  # edits after a reset work as well
    assert _card(at, "E[RR]") == f"{float(Fraction(1, 3) + Fraction(1, 3) / 2 + Fraction(1, 3) / 3):.4f}"


def test_edits_survive_a_visit_to_another_page(as_browser):
    at = _open(as_browser)
    _edit(at, EDIT_D3_GRADE, as_browser)
    at.switch_page("pages/spread.py")
    as_browser.run(at)
    at.switch_page("pages/learn.py")
    as_browser.run(at)
    assert not _page_wide_errors(at)
    assert _card(at, "E[RR]") == "0.5000"
    assert at.selectbox(key="learn_scenario").format_func("S2").startswith("Custom")
    at.button(key="learn_undo").click()
    as_browser.run(at)
    assert _card(at, "E[RR]") == f"{5 / 12:.4f}"


@pytest.mark.parametrize("typed", ["1.5", "a"])
def test_a_grade_that_is_not_an_integer_gets_a_message(as_browser, typed):
    at = _open(as_browser)
    _edit(at, {"2": {"grade": typed}}, as_browser)
    assert not _page_wide_errors(at)
    assert [e.value for e in at.error] == [
        f"Row 3 (d3): the grade '{typed}' is not an integer. Type a whole number such as 0, 1, 2 "
        "or 3 (0 = not relevant; negative grades are allowed)."]
    assert at.get("arrow_data_editor") or at.get("data_editor")  # still editable
    assert not at.button(key="learn_undo").disabled  # and the bad edit can be undone
    at.button(key="learn_undo").click()
    as_browser.run(at)
    assert not at.error and _card(at, "E[RR]") == f"{5 / 12:.4f}"


def test_a_duplicate_id_is_explained_in_the_page_words(as_browser):
    at = _open(as_browser)
    _edit(at, {"1": {"doc": "d1"}}, as_browser)
    assert [e.value for e in at.error] == [
        "Row 2: the document id 'd1' is also on row 1. A document appears once in a ranking: "
        "rename one of them (such as d6) or delete the row."]
    text = " ".join(e.value for e in at.error) + " ".join(c.value for c in at.caption)
    assert "duplicates=" not in text and "max" not in text
