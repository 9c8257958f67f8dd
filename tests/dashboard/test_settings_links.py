"""Links: the URL parsing and the relevance-level fitting are Streamlit-free
functions (tiedrank.dashboard.settings); a dataset named in a link brings its own defaults; a
link to uploads that are gone says so; the chosen metrics are in the link."""
from __future__ import annotations

import pytest

from tiedrank.dashboard.settings import (
    fit_rel_level,
    metrics_from_param,
    params_from_settings,
    settings_from_params,
)

SOURCES = ("llmjudge", "trec_eval", "simulated", "session", "upload")
LEVELS = {"llmjudge": 2, "trec_eval": 1, "simulated": 1}


def test_a_dataset_in_the_link_brings_its_own_relevance_level():
    assert settings_from_params({"dataset": "trec_eval"}, SOURCES, LEVELS) == {
        "dataset": "trec_eval", "rel_level": 1}
    # what the link sets wins
    assert settings_from_params({"dataset": "trec_eval", "rel_level": "3"}, SOURCES, LEVELS)["rel_level"] == 3
    # uploads start at the CLI's and Python's default level, 1 (fitted to the qrels once read)
    assert settings_from_params({"dataset": "upload"}, SOURCES, LEVELS)["rel_level"] == 1


def test_invalid_values_are_left_out():
    got = settings_from_params({"dataset": "../../etc", "rel_level": "-4", "k": "lots", "round": "9",
                                "complete": "yes", "query_set": "x", "gain": "exp"}, SOURCES, LEVELS)
    assert got == {"gain": "exp"}
    assert settings_from_params({"k": "7", "round": "2", "complete": "1", "query_set": "relevant"},
                                SOURCES, LEVELS) == {"k": 7, "round": 2, "complete": True,
                                                     "query_set": "relevant"}


@pytest.mark.parametrize("odd", ["²", "٣", "１０", "9" * 5000, "1e3", "+5", " 5", "0"],
                         ids=["superscript", "arabic-indic", "fullwidth", "5000-digits", "exponent",
                              "plus", "space", "zero"])
def test_digits_a_link_of_this_app_cannot_hold_are_left_out(odd):
    """Issue 28's ``?k=²`` (found by the stateful tester): str.isdigit() said yes, int() raised."""
    assert settings_from_params({"k": odd, "rel_level": odd, "rel": odd}, SOURCES, LEVELS) == {}


def test_params_round_trip():
    state = {"dataset": "simulated", "rel_level": 1, "k": 20, "gain": "exp", "round": 3,
             "complete": True, "query_set": "relevant"}
    assert settings_from_params(params_from_settings(state), SOURCES, LEVELS) == state


@pytest.mark.parametrize("level, top, fitted", [(2, 1, 1), (2, 3, 2), (5, 3, 3), (3, 0, 1),
                                                (2, None, 1), (2, float("nan"), 1), (1, 4, 1)])
def test_fit_rel_level(level, top, fitted):
    assert fit_rel_level(level, top) == fitted


def test_metrics_from_param_keeps_valid_names():
    assert metrics_from_param(["RR", "not a metric", "P@5", "RR"]) == ["RR", "P@5"]
    assert metrics_from_param([]) == []


HOSTILE = ["²", "¹", "٣", "１", " 3", "3 ", "+3", "1e2", "0x10", "3.0", "", "9" * 5000, "\x00",
           "-0", "٣٣", "⑤", "Ⅻ"]


@pytest.mark.parametrize("value", HOSTILE)
def test_every_link_value_parses_or_is_left_out(value):
    """Issue 29 item 6, as a class: whatever a link holds, each setting is read with ASCII
    digits only or left out, never an exception (str.isdigit() is true for '²', which int()
    refuses; int() takes '٣' and '１')."""
    params = {name: value for name in ("dataset", "rel_level", "k", "gain", "round", "complete",
                                       "query_set", "upload_key", "rel", "c", "queries", "data")}
    got = settings_from_params(params, SOURCES, LEVELS)
    assert set(got) <= {"rel_level", "k", "round", "complete"}
    if not value.isascii():
        assert got == {}
