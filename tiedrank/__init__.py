"""tiedrank: exact evaluation of rankings whose scores tie.

>>> from tiedrank import read_run, read_qrels, evaluate          # doctest: +SKIP
>>> ev = evaluate(read_run("run.txt"), read_qrels("qrels.txt"),  # doctest: +SKIP
...               ["RR", "nDCG@10"], ties="all", rel_level=2)
>>> ev.report()                                                   # doctest: +SKIP

The options of an evaluation are one value, checked once, which every door builds and
:func:`build_tie_table` takes:

>>> options = EvaluationOptions(ties="all", rel_level=2, round=3)  # doctest: +SKIP
>>> table = build_tie_table(read_run("run.txt"), read_qrels("qrels.txt"), options)  # doctest: +SKIP
"""
from . import _moved
from . import interop  # the outer layer: plugs other tools' names and objects into the core
from . import report  # plugs the report grid into Evaluation.grid / to_latex / to_markdown / to_html
from .core.data import Qrels, Run
from .core.errors import Finding, InputError
from .core.evaluation import Evaluation, evaluate, parse_policies, tsrr_sweep
from .core.options import EvaluationOptions
from .io import read_qrels, read_run, write_qrels, write_run
from .metrics import METRIC_NAMES, Metric, metric_values, parse_metric
from .core.ties import POLICIES, TieTable, build_tie_table

__version__ = "0.2.0"

_moved.install()

__all__ = [
    "Evaluation", "EvaluationOptions", "Finding", "InputError", "METRIC_NAMES", "Metric", "POLICIES", "Qrels", "Run",
    "TieTable", "build_tie_table", "evaluate", "metric_values", "parse_metric", "parse_policies",
    "read_qrels", "read_run", "tsrr_sweep", "write_qrels", "write_run",
]
