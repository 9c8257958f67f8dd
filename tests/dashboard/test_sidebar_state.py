"""The sidebar's state machine (tiedrank.dashboard.settings: open_link, before_widgets,
dataset_changed, data_read, take_note), Streamlit-free: each step takes the session state as a
plain dict and returns the changes, which these tests apply as app.py does. And links made
before the link's names were one word per setting (``rel``, ``c``, ``queries``, ``data``)
open the same view as the new names."""
from __future__ import annotations

import pytest

from tiedrank.dashboard import settings as sidebar
from tiedrank.dashboard.settings import OLD_URL_NAMES, SIDEBAR_DEFAULTS, URL_NAMES


def _run(state: dict, params: dict | None = None) -> dict:
    """One script run's start, as app.py does it: the link (first run), then the defaults
    and pending values."""
    state.update(sidebar.open_link(state, params or {}))
    state.update(sidebar.before_widgets(state))
    return state


def _settings(state: dict) -> dict:
    return {key: state[key] for key in SIDEBAR_DEFAULTS}


def test_a_new_session_without_a_link_opens_at_the_defaults():
    state = _run({})
    assert _settings(state) == SIDEBAR_DEFAULTS
    assert state["dataset"] == "llmjudge" and state["rel_level"] == 2  # LLMJudge's own level


def test_switching_dataset_resets_its_defaults():
    state = _run({})
    state["rel_level"] = 3  # the user's choice on LLMJudge
    state["dataset"] = "trec_eval"
    state.update(sidebar.dataset_changed(state))
    assert state["rel_level"] == 1  # trec_eval's level
    state["dataset"] = "llmjudge"
    state.update(sidebar.dataset_changed(state))
    assert state["rel_level"] == 2
    state["dataset"] = "session"  # the runs made in this session bring their own level
    state.update(sidebar.dataset_changed(state, session_rel_level=3))
    assert state["rel_level"] == 3
    state["dataset"] = "upload"  # uploads start at the CLI's and Python's default
    state.update(sidebar.dataset_changed(state))
    assert state["rel_level"] == sidebar.UPLOAD_REL_LEVEL == 1


def test_the_relevance_level_is_fitted_to_the_uploads_grades_with_a_note():
    state = _run({}, {"dataset": "upload", "rel_level": "2"})
    changes, rerun = sidebar.data_read(state, "uploads-1", 1.0)  # 0/1 qrels: level 2 finds nothing
    state.update(changes)
    assert rerun and state["rel_level"] == 2  # the widget exists in this run: pending
    _run(state)  # the next run applies it before the widget is drawn
    assert state["rel_level"] == 1
    changes, note = sidebar.take_note(state)
    state.update(changes)
    assert note == "Relevance level set to 1: the highest grade in these qrels is 1."
    assert sidebar.take_note(state) == ({}, None)  # shown once
    assert sidebar.data_read(state, "uploads-1", 1.0)[1] is False  # fitted once per qrels


def test_a_level_within_the_grades_is_not_changed():
    state = _run({}, {"dataset": "upload"})
    changes, rerun = sidebar.data_read(state, "uploads-1", 3.0)
    state.update(changes)
    assert not rerun and state["rel_level"] == 1 and sidebar.take_note(state)[1] is None


def test_a_pending_value_is_applied_on_the_next_run_only():
    state = _run({})
    state[sidebar.SIDEBAR_KEY] = sidebar.SidebarMemory(link_read=True, pending={"rel_level": 4})
    _run(state)
    assert state["rel_level"] == 4 and not sidebar.memory(state).pending
    state["rel_level"] = 5  # the user's next choice
    _run(state)
    assert state["rel_level"] == 5


def test_an_explicit_user_choice_is_kept():
    state = _run({}, {"dataset": "upload", "rel_level": "2"})
    state.update(sidebar.data_read(state, "uploads-1", 1.0)[0])
    _run(state)
    state["rel_level"] = 3  # chosen after the fit, above every grade: the user's call
    for _ in range(3):
        _run(state)
        changes, rerun = sidebar.data_read(state, "uploads-1", 1.0)
        state.update(changes)
        assert not rerun and state["rel_level"] == 3
    # and it is the uploads' level when the user comes back to them from another dataset
    state["dataset"] = "llmjudge"
    state.update(sidebar.dataset_changed(state))
    state["dataset"] = "upload"
    state.update(sidebar.dataset_changed(state))
    assert state["rel_level"] == 3
    # new uploads are fitted again
    changes, rerun = sidebar.data_read(state, "uploads-2", 1.0)
    assert rerun and changes[sidebar.SIDEBAR_KEY].pending == {"rel_level": 1}


def test_a_links_value_is_honoured():
    state = _run({}, {"dataset": "trec_eval", "rel_level": "3", "k": "5", "gain": "exp",
                      "round": "2", "complete": "1", "query_set": "relevant"})
    assert _settings(state) == {"dataset": "trec_eval", "rel_level": 3, "k": 5, "gain": "exp",
                                "round": 2, "complete": True, "query_set": "relevant"}
    state["k"] = 7  # later runs: the link is read once per session
    _run(state, {"k": "5"})
    assert state["k"] == 7


def test_a_dataset_in_the_link_brings_its_level_and_defaults_fill_the_rest():
    state = _run({}, {"dataset": "trec_eval"})
    assert _settings(state) == {**SIDEBAR_DEFAULTS, "dataset": "trec_eval", "rel_level": 1}


def test_the_view_settings_are_read_from_the_widgets_state():
    state = _run({}, {"round": "3", "k": "20"})
    settings = sidebar.view_settings(state)
    assert settings == sidebar.ViewSettings(rel_level=2, gain="linear", k=20, round=3,
                                            complete=False, query_set="trec_eval")
    assert sidebar.Settings is sidebar.ViewSettings  # the former name, for code outside


# ---- old links ---------------------------------------------------------------------------
OLD_AND_NEW = [
    ({"dataset": "trec_eval", "rel": "3", "k": "5", "c": "1", "queries": "relevant"},
     {"dataset": "trec_eval", "rel_level": "3", "k": "5", "complete": "1", "query_set": "relevant"}),
    ({"dataset": "upload", "data": "00c0ffee00c0ffee", "rel": "2"},
     {"dataset": "upload", "upload_key": "00c0ffee00c0ffee", "rel_level": "2"}),
    ({"rel": "4", "gain": "exp", "round": "off", "c": "0", "queries": "trec_eval"},
     {"rel_level": "4", "gain": "exp", "round": "off", "complete": "0", "query_set": "trec_eval"}),
]


@pytest.mark.parametrize("old, new", OLD_AND_NEW)
def test_an_old_link_opens_the_same_state_as_the_new_link(old, new):
    assert _settings(_run({}, old)) == _settings(_run({}, new))
    assert sidebar.open_link({}, old).get("upload_key") == sidebar.open_link({}, new).get("upload_key")


@pytest.mark.parametrize("old, new", OLD_AND_NEW)
def test_an_old_link_is_rewritten_with_the_new_names(old, new):
    state = _run({}, old)
    put, gone = sidebar.link_changes({name: [value] for name, value in old.items()}, state)
    assert set(gone) == set(old) & set(OLD_URL_NAMES)
    rewritten = {**{n: v for n, v in old.items() if n not in gone}, **put}
    assert set(rewritten) <= set(URL_NAMES.values())
    assert {name: rewritten[name] for name in new} == new


def test_a_link_with_both_spellings_takes_the_new_one():
    assert _run({}, {"rel": "3", "rel_level": "4"})["rel_level"] == 4
