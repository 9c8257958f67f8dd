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
    assert at.query_params["rel"] == "1"
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
