"""The engine's top floor: runs and qrels in, each run sorted once into its tie-group table,
every metric scored under every tie policy, tidy per-query values and their exact means out.

It sits on :mod:`tiedrank.core` (data, options, ties), :mod:`tiedrank.io` (readers) and
:mod:`tiedrank.metrics` (registry and kernels), and below everything that uses an
evaluation (``sampling``, ``stats``, ``report`` and the outer packages). Its modules, one
job each:

- :mod:`~tiedrank.evaluation.door`: :func:`evaluate`, the Python door, and :func:`tsrr_sweep`;
- :mod:`~tiedrank.evaluation.evaluator`: :class:`Evaluator`, the same door with the qrels,
  metrics and options prepared once for many runs;
- :mod:`~tiedrank.evaluation.inputs`: the runs and qrels in whatever shape they come;
- :mod:`~tiedrank.evaluation.argument_order`: ranx's ``evaluate(qrels, run)`` told apart;
- :mod:`~tiedrank.evaluation.metric_lists`: a metric list read once into ``Metric`` objects;
- :mod:`~tiedrank.evaluation.scoring`: :func:`build_tables` and :func:`score_tables`, which
  every door (CLI, buckets, Dask, Python, pages) calls;
- :mod:`~tiedrank.evaluation.result`: :class:`Evaluation`;
- :mod:`~tiedrank.evaluation.summaries`: exact means, partial sums and their notes.
"""
from __future__ import annotations

from .argument_order import check_argument_order, files_swapped
from .door import evaluate, tsrr_sweep, warn_of_disjoint_runs
from .evaluator import Evaluator
from .inputs import RunInput, label_runs, labelled_runs, read_qrels_input, run_sources, \
    unique_label, unique_labels
from .metric_lists import DEFAULT_METRICS, as_metrics, metric_request, parse_metrics
from .result import Evaluation, Later
from .scoring import Block, build_tables, check_qrels_gain, score_tables, scored_pairs

__all__ = [
    "DEFAULT_METRICS", "Block", "Evaluation", "Evaluator", "Later", "RunInput", "as_metrics", "build_tables",
    "check_argument_order", "check_qrels_gain", "evaluate", "files_swapped", "label_runs", "labelled_runs",
    "metric_request", "parse_metrics", "read_qrels_input", "run_sources", "score_tables",
    "scored_pairs", "tsrr_sweep", "unique_label", "unique_labels",
    "warn_of_disjoint_runs",
]
