"""Deprecation aliases for the modules that moved into :mod:`tiedrank.core` (release 0.2).

``import tiedrank.ties`` (and the other old paths) still works for one release and warns
with a :class:`DeprecationWarning` naming the new path. ``tiedrank.evaluate`` is the function
only: its module is :mod:`tiedrank.core.evaluation`, so ``import tiedrank.evaluate`` no longer
shadows the function with a module.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

MOVED = {f"tiedrank.{name}": f"tiedrank.core.{name}" for name in (
    "data", "errors", "hashing", "options", "policies", "rounding", "summation", "ties",
    "validation")}
"""Old module path -> new module path."""
ALSO_IN = {"tiedrank.summation": "tiedrank.core.summaries"}
"""Old module path -> where the names that left its new module went: ``summarize``,
``partial_summary``, ``summary_of`` and ``summary_note`` read the metric registry, which
``tiedrank.core.summation`` sits below, so they live in ``tiedrank.core.summaries``."""


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str, also: str | None = None) -> None:
        self.target, self.also = target, also

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        if self.also is None:
            return module
        sources = (self.target, self.also)  # a view of both: the old module held them all

        def __getattr__(name: str):
            for source in sources:
                found = importlib.import_module(source)
                if hasattr(found, name):
                    return getattr(found, name)
            raise AttributeError(f"module {spec.name!r} has no attribute {name!r}")

        view = types.ModuleType(spec.name, module.__doc__)
        view.__getattr__ = __getattr__
        return view

    def exec_module(self, module) -> None:  # the target module is already executed
        pass


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        warnings.warn(f"{fullname} moved to {new}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=3)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(new, ALSO_IN.get(fullname)))


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` once."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
