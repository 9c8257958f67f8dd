"""Deprecation aliases for the modules that moved: into :mod:`tiedrank.core` (release 0.2),
and the engine's top floor out of the core into :mod:`tiedrank.evaluation` (release 0.2).

``import tiedrank.ties`` or ``from tiedrank.core.evaluation import evaluate`` (and the other
old paths) still works for one release and warns with a :class:`DeprecationWarning` naming
the new path. ``tiedrank.evaluate`` is the function only: its module is
:mod:`tiedrank.evaluation.door`, so ``import tiedrank.evaluate`` no longer shadows the
function with a module.

This is one of the package's three deferred-loading mechanisms, each with one job
(docs/ARCHITECTURE.md, "What runs when"): this finder (old module paths), ``tiedrank``'s
module ``__getattr__`` (public names imported on first use) and the providers
:mod:`tiedrank.plugins` registers into the core's sockets.
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
MOVED |= {
    "tiedrank.core.evaluation": "tiedrank.evaluation",
    "tiedrank.core.summaries": "tiedrank.evaluation.summaries",
    "tiedrank.core.argument_order": "tiedrank.evaluation.argument_order",
}
ALSO_IN = {
    "tiedrank.summation": ("tiedrank.evaluation.summaries",),
    # the names the old module held besides its own (it re-exported them)
    "tiedrank.core.evaluation": (
        "tiedrank.evaluation.scoring", "tiedrank.evaluation.inputs",
        "tiedrank.evaluation.metric_lists", "tiedrank.evaluation.result",
        "tiedrank.evaluation.door", "tiedrank.core.policies", "tiedrank.core.ties",
        "tiedrank.core.options"),
}
"""Old module path -> the modules that hold the names its new module lacks: ``summarize``,
``partial_summary``, ``summary_of`` and ``summary_note`` read the metric registry, which
``tiedrank.core.summation`` sits below, so they live in ``tiedrank.evaluation.summaries``;
``tiedrank.core.evaluation`` re-exported ``truncate_run``, ``ALL_POLICIES`` and its
helpers."""


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str, also: tuple[str, ...] = ()) -> None:
        self.target, self.also = target, also

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        if not self.also:
            return module
        sources = (self.target, *self.also)  # a view of both: the old module held them all

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
        return importlib.util.spec_from_loader(fullname, _AliasLoader(new, ALSO_IN.get(fullname, ())))


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` once."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
