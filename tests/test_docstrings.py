"""The examples in tiedrank's docstrings are documentation: they must run and be right."""
from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import tiedrank
from tiedrank._moved import MOVED

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


# ---- names in prose: a help text or docstring that names tiedrank.x.y names something real ----
ROOT = Path(tiedrank.__file__).resolve().parents[1]
DOTTED = re.compile(r"(?<![/\w])tiedrank(?:\.[A-Za-z_][A-Za-z0-9_]*)+")  # not a path (reference/tiedrank.md)
TEXTS = sorted({*(ROOT / "tiedrank").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py",
                *(ROOT / "docs").glob("*.md"), ROOT / "README.md"} - {ROOT / "tiedrank" / "_moved.py"})
"""Every text that may name a tiedrank object; ``_moved.py`` names the old paths on purpose."""


def _names_something(dotted: str) -> bool:
    """``tiedrank.sampling.rr_variance``: a module at its current path (an old path that
    only warns does not count), then attributes of it (a dataclass's fields count); a module
    that needs a missing optional library counts."""
    parts = dotted.split(".")
    if any(".".join(parts[:cut]) in MOVED for cut in range(1, len(parts) + 1)):
        return False
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError as error:
            if isinstance(error, ModuleNotFoundError) and (error.name or "").startswith("tiedrank"):
                continue
            # an optional dependency absent (streamlit, plotly; ir_measures, whose module
            # tiedrank.interop.measures raises ImportError naming it): not this test's job
            return True
        for part in parts[cut:]:
            fields = getattr(found, "__dataclass_fields__", {})
            if not hasattr(found, part) and part not in fields:
                return False
            found = getattr(found, part, None)
        return True
    return False


def _lines(path: Path) -> list[tuple[int, str]]:
    """``path``'s numbered lines, less a "Moved in" section, which names the old paths on
    purpose (its table's left column), as ``_moved.py`` does."""
    kept, in_moved = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("#"):
            in_moved = line.lstrip("#").strip().startswith("Moved in")
        if not in_moved:
            kept.append((number, line))
    return kept


def test_dotted_names_in_help_and_docs_exist():
    """The Spread page's help once named ``tiedrank.spread.rr_variance`` long after the module
    had gone; every ``tiedrank.x.y`` in a docstring, a page's help or the docs must resolve."""
    stale = [f"{path.relative_to(ROOT)}:{number}: {name}" for path in TEXTS
             for number, line in _lines(path)
             for name in (m.rstrip(".") for m in DOTTED.findall(line)) if not _names_something(name)]
    assert stale == []
