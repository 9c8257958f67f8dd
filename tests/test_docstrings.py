"""The examples in tiedrank's docstrings are documentation: they must run and be right."""
from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import tiedrank

MODULES = sorted(m.name for m in pkgutil.walk_packages(tiedrank.__path__, "tiedrank.")
                 if m.name != "tiedrank.__main__")  # importing it runs the CLI
APP_MODULES = ("tiedrank.dashboard.figures", "tiedrank.dashboard.ui",
               "tiedrank.dashboard.widgets", "tiedrank.dashboard.session_uploads")  # plotly / streamlit
NEEDS = {"tiedrank.interop.measures": "ir_measures"}  # examples that use an optional peer


@pytest.mark.parametrize("name", [pytest.param(m, marks=pytest.mark.app)
                                  if m.startswith(APP_MODULES) else m for m in MODULES])
def test_docstring_examples(name):
    if name in NEEDS and importlib.util.find_spec(NEEDS[name]) is None:
        pytest.skip(f"{name}'s examples use {NEEDS[name]}, which is not installed")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
