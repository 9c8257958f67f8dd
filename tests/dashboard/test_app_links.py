"""Links in the app: links with and without settings, to uploads that are gone,
and the chosen metrics surviving a reload (a new session on the same link)."""
from __future__ import annotations

import pytest

from apptest_support import assert_no_trouble, new_app

pytestmark = pytest.mark.usefixtures("navigation_pages")


def test_a_link_to_trec_eval_takes_its_relevance_level():
    at = new_app()
    at.query_params["dataset"] = "trec_eval"
    at.run()
    assert_no_trouble(at)
    assert at.number_input(key="rel_level").value == 1
    assert at.query_params["rel_level"] == "1"
    # the Overview shows numbers (at level 2 every query of trec_eval's example had none)
    assert at.dataframe and not at.dataframe[0].value.empty


def test_a_link_naming_gone_uploads_says_why():
    at = new_app()
    at.query_params["dataset"] = "upload"
    at.run()
    assert not at.exception
    text = " ".join(i.value for i in at.info)
    assert "The uploaded data of this link is no longer on this server" in text


def test_chosen_metrics_survive_a_reload():
    at = new_app().run()
    at.multiselect(key="overview_metrics").set_value(["AP", "P@5"]).run()
    assert_no_trouble(at)
    link = {name: at.query_params[name] for name in at.query_params}
    again = new_app()
    for name, value in link.items():
        again.query_params[name] = value
    again.run()
    assert_no_trouble(again)
    assert again.multiselect(key="overview_metrics").value == ["AP", "P@5"]


def test_an_old_link_opens_the_same_view_as_the_new_link():
    """A link made before the link's names were one word per setting (``rel``, ``c``,
    ``queries``) opens the same sidebar as the new names, and its address bar then holds
    the new names only."""
    old = {"dataset": "trec_eval", "rel": "2", "k": "5", "c": "1", "queries": "relevant"}
    new = {"dataset": "trec_eval", "rel_level": "2", "k": "5", "complete": "1", "query_set": "relevant"}
    opened = []
    for params in (old, new):
        at = new_app()
        for name, value in params.items():
            at.query_params[name] = value
        at.run()
        assert_no_trouble(at)
        opened.append(at)
    keys = ("dataset", "rel_level", "k", "gain", "round", "complete", "query_set")
    assert [{key: at.session_state[key] for key in keys} for at in opened][0] == {
        key: opened[1].session_state[key] for key in keys}
    assert opened[0].session_state["rel_level"] == 2 and opened[0].session_state["complete"] is True
    links = [{name: at.query_params[name] for name in at.query_params} for at in opened]
    assert links[0] == links[1] and not set(links[0]) & {"rel", "c", "queries"}
