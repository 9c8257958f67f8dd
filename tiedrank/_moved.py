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
import warnings

MOVED = {f"tiedrank.{name}": f"tiedrank.core.{name}" for name in (
    "data", "errors", "hashing", "options", "policies", "rounding", "summation", "ties",
    "validation")}
"""Old module path -> new module path."""


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module) -> None:  # the target module is already executed
        pass


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        warnings.warn(f"{fullname} moved to {new}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=3)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(new))


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` once."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
