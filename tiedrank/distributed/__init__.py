"""Evaluation past one process: out-of-core buckets on one machine, and Dask clusters.

Every per-query value depends on (run, query, seed) alone and summaries are exact sums, so
splitting the queries changes no bit. This package splits runs and qrels by a stable hash
of the query id into buckets of Arrow IPC files, evaluates (run, bucket) pieces one after the
other or as Dask tasks, and puts the pieces together.

Its modules:

* ``buckets``: streaming split into bucket files (pyarrow), loading one bucket
* ``evaluation``: one (run, bucket) task, and combining the results as one pass would
* ``scaled``: :func:`evaluate`, the entry point (bucket count, temporary files, dispatch)
* ``output``: ``out=`` as a transaction (temporary sibling, rename, lock, manifest check)
* ``cluster``: Dask: ``local:N`` / ``tcp://host:port`` clients, task runner, simulator
  sweeps and verdict stability as tasks (Dask imported only when used)

Examples
--------
>>> import pandas as pd
>>> from tiedrank import evaluate as one_pass
>>> from tiedrank.distributed import evaluate
>>> run = pd.DataFrame({"query": ["q1", "q1", "q2", "q2"], "doc": ["a", "b", "c", "d"],
...                     "score": [1.0, 1.0, 0.5, 0.5]})
>>> qrels = pd.DataFrame({"query": ["q1", "q2"], "doc": ["b", "d"], "relevance": [1, 2]})
>>> ev = evaluate({"r": run}, qrels, ["RR", "nDCG"], ties=["expected", "random(seed=1)"],
...               buckets=3)
>>> ev.per_query.equals(one_pass({"r": run}, qrels, ["RR", "nDCG"],
...                              ties=["expected", "random(seed=1)"]).per_query)
True
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_PUBLIC = {
    "BucketSet": "buckets", "split": "buckets", "temporary_directory": "buckets",
    "SchedulerUnreachable": "cluster", "WorkersLost": "cluster", "connect": "cluster",
    "sweep": "cluster", "verdict_stability": "cluster",
    "read_per_query": "evaluation", "OutputError": "output",
    "choose_buckets": "scaled", "evaluate": "scaled",
}
"""Public name -> its module; imported on first use (PEP 562), so that the ``tiedrank``
command can start a local cluster (:mod:`~tiedrank.distributed.cluster`, no pandas) before
it imports the rest."""

__all__ = ["BucketSet", "OutputError", "SchedulerUnreachable", "WorkersLost", "choose_buckets",
           "connect", "evaluate", "read_per_query", "split", "sweep", "temporary_directory",
           "verdict_stability"]


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


if TYPE_CHECKING:
    from .buckets import BucketSet, split, temporary_directory
    from .cluster import SchedulerUnreachable, WorkersLost, connect, sweep, verdict_stability
    from .evaluation import read_per_query
    from .output import OutputError
    from .scaled import choose_buckets, evaluate
