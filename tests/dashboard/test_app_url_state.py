"""The settings live in the URL, so a link reproduces the view."""
from __future__ import annotations

import pytest

from apptest_support import new_app

pytestmark = pytest.mark.usefixtures("navigation_pages")


def test_settings_are_written_to_the_url():
    at = new_app().run()
    at.number_input(key="k").set_value(5).run()
    assert at.query_params["k"] == "5"
    assert at.query_params["rel_level"] == str(at.number_input(key="rel_level").value)


def test_a_link_reproduces_the_settings():
    at = new_app()
    at.query_params["rel_level"] = "3"
    at.query_params["k"] = "7"
    at.query_params["gain"] = "exp"
    at.run()
    assert not at.exception
    assert at.number_input(key="rel_level").value == 3
    assert at.number_input(key="k").value == 7


def test_bad_values_in_the_link_are_ignored():
    at = new_app()
    at.query_params["rel_level"] = "-4"
    at.query_params["k"] = "lots"
    at.query_params["dataset"] = "../../etc"
    at.run()
    assert not at.exception
    assert at.number_input(key="k").value == 10


@pytest.mark.parametrize("name, value", [("k", "²"), ("rel_level", "¹")])
def test_a_link_with_a_digit_int_refuses_opens_the_first_page(name, value):
    """Issue 29 item 6: '²'.isdigit() is true and int('²') raises: the first page broke."""
    at = new_app()
    at.query_params[name] = value
    at.run()
    assert not at.exception
    assert at.number_input(key="k").value == 10
