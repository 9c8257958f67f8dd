"""Dispatch: the per-query values of a metric on a tie-group table (moved out of
:mod:`tiedrank.metrics.registry`, which declares the families; this calls their kernels).

Examples
--------
>>> import pandas as pd
>>> from tiedrank.core.data import Qrels, Run
>>> from tiedrank.core.ties import build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("ab"), "score": [2.0, 1.0]}))
>>> table = build_tie_table(run, Qrels(pd.DataFrame({"query": "q", "doc": ["b"],
...                                                  "relevance": [1]})))
>>> metric_values(table, "RR").tolist()
[0.5]
"""
from __future__ import annotations

import numpy as np

from ..core.ties import TieTable
from ..core.validation import Options, check
from . import kernels as K
from .registry import EXTREME_POLICIES, Metric, parse_metric
from ..core.policies import canonical_policy


def metric_view(table: TieTable, metric: Metric) -> TieTable:
    """The view of ``table`` that ``metric``'s kernel reads (:attr:`MetricFamily.view`)."""
    view = metric.entry.view
    if view == "whole":
        return table
    if view in ("judged", "qrels") and table.policy != "expected":  # resolved: read it whole
        return table
    if view == "judged":
        return table.view(judged_only=True)
    if view == "qrels":
        return table.qrels_groups()
    return table.scoring()


def metric_values(table: TieTable, metric: "str | Metric", *, gain: str = "linear",
                  extreme: str | None = None) -> np.ndarray:
    """Per-query values of ``metric`` on ``table`` (one float per ``table.queries``).

    Metrics defined on tie groups (TsRR, TsRR2, MTRR_GRAG, TMHits_GRAG) need the expected
    (unresolved) table; pass that one for them under every policy. ``extreme``
    (``"best"`` or ``"worst"``) asks for the largest or smallest value over the
    tie orderings of the expected ``table``: the family's own ``extremes`` where it has
    them, the kernel on the table resolved by that grade order otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank.core.data import Qrels, Run
    >>> from tiedrank.core.ties import build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("ab"), "score": [1.0, 1.0]}))
    >>> table = build_tie_table(run, Qrels(pd.DataFrame({"query": "q", "doc": ["a"],
    ...                                                  "relevance": [0]})))
    >>> [float(metric_values(table, "unj@1", extreme=e)[0]) for e in ("best", "worst")]
    [1.0, 0.0]
    """
    m = parse_metric(metric)
    check("gain", gain, [Options(*K.GAINS)], function="metric_values")
    if extreme is not None:
        extreme = canonical_policy(extreme, "extreme")  # extreme="optimistic": in earlier versions
        check("extreme", extreme, [Options(*EXTREME_POLICIES)], function="metric_values")
    if m.rel is not None and m.rel != table.rel_level:
        raise ValueError(f"{m.name} counts grade >= {m.rel} as relevant, but the table was built "
                         f"with rel_level={table.rel_level}; build it with "
                         f"build_tie_table(run, qrels, EvaluationOptions(rel_level={m.rel}))")
    source = metric_view(table, m)
    if extreme is not None and not m.policy_invariant:
        if m.extremes is not None:
            return m.extremes(source, m, EXTREME_POLICIES[extreme])
        source = source.resolve(extreme)
    return m.entry.kernel(source, m, m.gain or gain)


__all__ = ["metric_values", "metric_view"]
