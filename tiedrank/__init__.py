"""tiedrank: exact evaluation of rankings whose scores tie.

>>> from tiedrank import read_run, read_qrels, evaluate          # doctest: +SKIP
>>> ev = evaluate(read_run("run.txt"), read_qrels("qrels.txt"),  # doctest: +SKIP
...               ["RR", "nDCG@10"], ties="all", rel_level=2)
>>> ev.report()                                                   # doctest: +SKIP

The options of an evaluation are one value, checked once, which every door builds and
:func:`build_tie_table` takes:

>>> options = EvaluationOptions(ties="all", rel_level=2, round=3)  # doctest: +SKIP
>>> table = build_tie_table(read_run("run.txt"), read_qrels("qrels.txt"), options)  # doctest: +SKIP

The names below are imported on first use (PEP 562), so that ``import tiedrank`` (and the
``tiedrank`` command, which starts a Dask cluster before its own imports when asked for one)
costs no pandas until something needs it. The layers above the core plug into its sockets
at one place, :mod:`tiedrank.plugins`: the first read of a slot of
:data:`tiedrank.core.peers.PEERS` imports :mod:`tiedrank.interop`, and of
:data:`tiedrank.core.report_socket.REPORT` :mod:`tiedrank.report`; the core reads a slot
only for what it cannot answer itself (another tool's object or name, the report grid).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import _moved, plugins

__version__ = "0.2.0"

_moved.install()

_PUBLIC = {
    "Qrels": "core.data", "Run": "core.data",
    "Finding": "core.errors", "InputError": "core.errors",
    "Evaluation": "evaluation", "Evaluator": "evaluation", "evaluate": "evaluation",
    "parse_policies": "core.policies", "tsrr_sweep": "evaluation",
    "EvaluationOptions": "core.options",
    "read_qrels": "io", "read_run": "io", "write_qrels": "io", "write_run": "io",
    "METRIC_NAMES": "metrics", "Metric": "metrics", "metric_values": "metrics",
    "parse_metric": "metrics",
    "POLICIES": "core.ties", "TieTable": "core.ties", "build_tie_table": "core.ties",
    "show": "dashboard.server",
}
"""Public name -> the module (under ``tiedrank.``) it comes from."""
_SUBPACKAGES = ("core", "evaluation", "interop", "io", "metrics", "report", "sampling", "simulate", "stats")
"""Subpackages reachable as attributes of ``tiedrank`` (``tiedrank.stats.paired_test``)."""

__all__ = [
    "Evaluation", "EvaluationOptions", "Evaluator", "Finding", "InputError", "METRIC_NAMES", "Metric", "POLICIES", "Qrels", "Run",
    "TieTable", "build_tie_table", "evaluate", "metric_values", "parse_metric", "parse_policies",
    "read_qrels", "read_run", "show", "tsrr_sweep", "write_qrels", "write_run",
]

plugins.install()


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # once: the next access is an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC, *_SUBPACKAGES})


if TYPE_CHECKING:  # what type checkers and IDEs read
    from .core.data import Qrels, Run
    from .core.errors import Finding, InputError
    from .core.policies import parse_policies
    from .evaluation import Evaluation, Evaluator, evaluate, tsrr_sweep
    from .core.options import EvaluationOptions
    from .core.ties import POLICIES, TieTable, build_tie_table
    from .io import read_qrels, read_run, write_qrels, write_run
    from .metrics import METRIC_NAMES, Metric, metric_values, parse_metric
