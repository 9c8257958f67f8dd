"""The Learn page through AppTest: an edited ranking updates the hint and the scenario
selector, and the step-by-step section."""
from __future__ import annotations

import pytest
from apptest_support import assert_no_trouble, new_app

pytestmark = pytest.mark.usefixtures("navigation_pages")


def _open():
    at = new_app().run()
    at.switch_page("pages/learn.py")
    return at.run()


def _hint(at) -> str:
    return at.info[0].value


def test_edited_ranking_changes_hint_and_selector():
    at = _open()  # S2
    assert "E[RR] = 5/12" in _hint(at)
    assert at.selectbox(key="learn_scenario").format_func("S2").startswith("S2:")
    # d4 (score .6) joins the tie of d2 and d3
    at.session_state["learn_editor_S2"] = {"edited_rows": {"3": {"score": 0.8}}, "added_rows": [],
                                           "deleted_rows": []}
    at.run()
    assert_no_trouble(at)
    hint = _hint(at)
    assert "5/12" not in hint and "d2 shares score .8" not in hint
    assert "d2, d3 and d4 share score 0.8 (ranks 2-4)" in hint and "E[RR] = 13/36" in hint
    assert next(m.value for m in at.metric if m.label == "E[RR]") == f"{13 / 36:.4f}"
    box = at.selectbox(key="learn_scenario")
    assert box.value == "S2" and box.format_func("S2").startswith("Custom")
    assert box.format_func("S3").startswith("S3:")


def test_step_by_step_section_agrees_three_ways():
    at = _open()
    at.selectbox(key="learn_scenario").select("V10").run()
    assert_no_trouble(at)
    assert any("Step by step: E[AP] and E[nDCG@3]" in s.value for s in at.subheader)
    check = next(d.value for d in at.dataframe if "step by step (groups)" in d.value.columns)
    assert check["metric"].tolist() == ["E[AP]", "E[nDCG@3]"]
    values = check.drop(columns="metric").to_numpy()
    assert abs(values - values[:, :1]).max() < 1e-12
    text = "\n".join(m.value for m in at.markdown)
    assert "**49/54**" in text  # E[AP] of V10 (grades >= 1: d1, d3, d4) as a fraction
