"""Issue 41 item 4 through AppTest: "Link to this view" on Learn carries the lesson (scenario,
controls, edited table), and another session opened on it shows the same table and the same
numbers as the edits made by hand; a bad ``lesson=`` gives one message and the seed. The
Checkpoints page's metric, test and α travel in the link too."""
from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from apptest_support import assert_no_trouble, new_app
from tiedrank.core.policies import POLICY_LABELS
from tiedrank.dashboard import learn

pytestmark = pytest.mark.usefixtures("navigation_pages")

LEARN, CHECKPOINTS = "pages/learn.py", "pages/checkpoints.py"


def _link_shown(at: AppTest) -> str:
    codes = [c.value for c in at.sidebar.code]
    assert len(codes) == 1, codes
    return codes[0]


def _open(link: str, page: str) -> AppTest:
    """A new session (another browser) opened on ``link``; AppTest starts on the first
    page, so the link's page is then switched to, with the link's parameters kept."""
    pairs = parse_qsl(urlsplit(link).query)
    at = new_app()
    for name in dict.fromkeys(n for n, _ in pairs):
        values = [v for n, v in pairs if n == name]
        at.query_params[name] = values if len(values) > 1 else values[0]
    at.run()
    return at.switch_page(page).run()


def _card(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _metrics_table(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "metric" in d.value.columns
                and POLICY_LABELS["expected"] in d.value.columns)


def _shown(at: AppTest) -> dict:
    """What the page shows of the lesson: the numbers, the hint, the orderings."""
    return {"E[RR]": _card(at, "E[RR]"), "hint": at.info[0].value,
            "metrics": _metrics_table(at), "k": at.number_input(key="learn_k").value,
            "alpha": at.number_input(key="learn_alpha").value,
            "scenario": at.selectbox(key="learn_scenario").value,
            "label": at.selectbox(key="learn_scenario").format_func("S1")}


def test_a_lesson_link_opens_the_same_edited_ranking_with_the_same_numbers():
    by_hand = new_app().run()
    by_hand.switch_page(LEARN).run()
    assert "lesson" not in by_hand.query_params  # the fresh page: the link is as before
    by_hand.selectbox(key="learn_scenario").select("S1").run()
    by_hand.session_state["learn_editor_S1"] = {  # d2's score 0.9, d4's grade 2, a new d6
        "edited_rows": {"1": {"score": 0.9}, "3": {"grade": "2"}},
        "added_rows": [{"doc": "d 6 <b>", "score": 0.9, "grade": "0"}], "deleted_rows": []}
    by_hand.run()
    by_hand.number_input(key="learn_k").set_value(5).run()
    by_hand.number_input(key="learn_alpha").set_value(2.5).run()
    assert_no_trouble(by_hand)
    link = _link_shown(by_hand)
    lesson = dict(parse_qsl(urlsplit(link).query))["lesson"]
    assert lesson.startswith("v1~S1~5~2.5~1~linear~d1~0.9~0~d2~0.9~1~") and "~d_206_20_3Cb_3E~" in lesson

    opened = _open(link, LEARN)
    assert_no_trouble(opened)
    assert not opened.warning
    hand, link_view = _shown(by_hand), _shown(opened)
    pd.testing.assert_frame_equal(hand.pop("metrics"), link_view.pop("metrics"))
    assert hand == link_view
    assert link_view["label"].startswith("Custom")
    editor = opened.dataframe[0].value  # the editor starts from the lesson's table
    assert learn.table_rows(editor) == learn.table_rows(learn.Lesson(
        rows=learn.lesson_rows(editor)).frame())
    assert [tuple(r) for r in editor.itertuples(index=False)][:2] == [("d1", 0.9, "0"), ("d2", 0.9, "1")]
    assert editor["doc"].tolist()[-1] == "d 6 <b>" and editor["grade"].tolist()[3] == "2"
    assert opened.query_params["lesson"] == lesson  # the link stays the lesson's

    opened.button(key="learn_undo").click().run()  # undo: back to the scenario it came from
    assert_no_trouble(opened)
    assert _card(opened, "E[RR]") == "0.5000" and "lesson" in opened.query_params


def test_the_s1_lesson_of_the_issue():
    """The issue's steps: S1, d2's score 0.9: E[RR] 0.7500 by hand and from the link."""
    by_hand = new_app().run()
    by_hand.switch_page(LEARN).run()
    by_hand.selectbox(key="learn_scenario").select("S1").run()
    by_hand.session_state["learn_editor_S1"] = {"edited_rows": {"1": {"score": 0.9}},
                                               "added_rows": [], "deleted_rows": []}
    by_hand.run()
    assert _card(by_hand, "E[RR]") == "0.7500"
    opened = _open(_link_shown(by_hand), LEARN)
    assert_no_trouble(opened)
    assert _card(opened, "E[RR]") == "0.7500"
    assert opened.dataframe[0].value["score"].tolist()[:2] == [0.9, 0.9]


@pytest.mark.parametrize("value, says", [
    ("v1~S1~3~1.0~1~linear~d1~0.9", "cannot be read"),
    ("v1~S1~3~1.0~1~linear" + "~d~0.5~0" * 300, "longer than 2,000 characters"),
    ("v9~S1~3~1.0~1~linear~d1~0.9~0~x", "newer version of tiedrank"),
    ("<script>alert(1)</script>", "cannot be read"),
])
def test_a_bad_lesson_gives_one_message_and_the_seed(value, says):
    at = new_app()
    at.query_params["lesson"] = value
    at.run()
    at.switch_page(LEARN).run()
    assert not at.exception and not at.error
    assert len(at.warning) == 1 and says in at.warning[0].value
    assert at.selectbox(key="learn_scenario").value == "S2"
    assert _card(at, "E[RR]") == "0.4167"  # the seed, 5/12
    assert "lesson" not in at.query_params  # the seed's link: as a link without a lesson
    at.number_input(key="learn_k").set_value(4).run()  # the message was said once
    assert not at.warning and at.query_params["lesson"].startswith("v1~S2~4~")


def _checkpoint_page(**params) -> AppTest:
    at = new_app()
    at.query_params["dataset"] = "checkpoints"
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    return at.switch_page(CHECKPOINTS).run()


def test_the_checkpoints_choices_travel_in_the_link():
    at = _checkpoint_page()
    assert_no_trouble(at)
    assert at.query_params["ckpt_metric"] == "nDCG@10" and at.query_params["ckpt_alpha"] == "0.05"
    at.selectbox(key="ckpt_metric").set_value("RR").run()
    at.selectbox(key="ckpt_test").set_value("wilcoxon").run()
    at.selectbox(key="ckpt_alpha").set_value(0.01).run()
    link = _link_shown(at)
    assert "ckpt_metric=RR&ckpt_test=wilcoxon&ckpt_alpha=0.01" in link
    opened = _open(link, CHECKPOINTS)
    assert_no_trouble(opened)
    assert not opened.warning
    assert [opened.selectbox(key=k).value for k in ("ckpt_metric", "ckpt_test", "ckpt_alpha")] == [
        "RR", "wilcoxon", 0.01]
    assert opened.markdown[0].value == at.markdown[0].value  # the same verdict, same numbers
    pd.testing.assert_frame_equal(opened.dataframe[0].value, at.dataframe[0].value)


def test_invalid_checkpoints_choices_give_one_message_and_the_defaults():
    at = _checkpoint_page(ckpt_metric="nope@", ckpt_test="wilcoxon", ckpt_alpha="0.5")
    assert not at.exception and not at.error
    assert len(at.warning) == 1
    message = at.warning[0].value
    assert "metric 'nope" in message and "alpha '0.5'" in message and "wilcoxon" not in message
    assert [at.selectbox(key=k).value for k in ("ckpt_metric", "ckpt_test", "ckpt_alpha")] == [
        "nDCG@10", "wilcoxon", 0.05]
    assert at.query_params["ckpt_metric"] == "nDCG@10" and at.query_params["ckpt_alpha"] == "0.05"
    at.selectbox(key="ckpt_alpha").set_value(0.1).run()
    assert not at.warning
