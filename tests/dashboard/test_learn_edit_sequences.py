"""Learn under any sequence of edits: results, or a message inside the page that keeps the
table editable; never the page-wide error, and the selector says Custom after an edit."""
from __future__ import annotations

import pytest
from apptest_support import new_app

pytestmark = pytest.mark.usefixtures("navigation_pages")

EDITS = [  # each state is what the browser's data editor sends (keys as int or str)
    {"edited_rows": {3: {"score": 5}}, "added_rows": [], "deleted_rows": []},
    {"edited_rows": {3: {"score": 5}, "1": {"grade": 2}}, "added_rows": [], "deleted_rows": []},
    {"edited_rows": {"3": {"score": None}}, "added_rows": [], "deleted_rows": []},
    {"edited_rows": {}, "added_rows": [{}], "deleted_rows": []},
    {"edited_rows": {}, "added_rows": [{"doc": "d9"}], "deleted_rows": []},
    {"edited_rows": {}, "added_rows": [{"doc": "d1", "score": 0.3, "grade": 1}], "deleted_rows": []},
    {"edited_rows": {0: {"doc": ""}}, "added_rows": [], "deleted_rows": []},
    {"edited_rows": {}, "added_rows": [], "deleted_rows": [0, 1, 2, 3, 4]},
    {"edited_rows": {2: {"grade": -1}}, "added_rows": [], "deleted_rows": [1]},
    {"edited_rows": {4: {"score": 1e308}, 3: {"score": -1e308}}, "added_rows": [], "deleted_rows": []},
    {"edited_rows": {}, "added_rows": [], "deleted_rows": []},
]


def test_any_edit_sequence_keeps_the_page_and_the_table():
    at = new_app().run()
    at.switch_page("pages/learn.py").run()
    for state in EDITS:
        at.session_state["learn_editor_S2"] = state
        at.run()
        assert not at.exception, (state, [e.value for e in at.exception])
        page_wide = [e.value for e in at.error if "could not be drawn" in e.value]
        assert not page_wide, (state, page_wide)
        assert at.get("arrow_data_editor") or at.get("data_editor"), state  # still editable
        errors = [e.value for e in at.error]
        # a message beside the table, in the page's words: the editor's row, never a reader's
        # line number or a Python argument
        assert all(e.startswith(("Row ", "The table cannot be evaluated")) for e in errors), errors
        assert not any("line" in e or "=" in e for e in errors), errors
        if not errors:  # a result: the number cards are there
            assert any(m.label == "E[RR]" for m in at.metric), state
        # a blank added row is not an edit (the table ignores fully blank rows)
        edited = bool(state["edited_rows"] or any(state["added_rows"]) or state["deleted_rows"])
        label = at.selectbox(key="learn_scenario").format_func("S2")
        assert label.startswith("Custom") == edited, (state, label)
