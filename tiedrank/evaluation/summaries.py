"""Each metric's summary of tidy per-query values: the summary frame of an
:class:`~tiedrank.evaluation.Evaluation`, exact and order-independent.

A metric's registry entry declares how its per-query values become the run's value (the
mean, the sum or trec_eval's geometric mean: :data:`~tiedrank.core.summation.SUMMARIES`);
these functions look that up by the metric's name and sum exactly
(:func:`~tiedrank.core.summation.exact_sums`), so one pass, buckets and Dask workers give
the same bits. They sit above the metric registry; :mod:`tiedrank.core.summation`, which the
registry reads, stays below it.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from ..core.summation import SUMMARY_KEYS, ExactSum, Summary, exact_sums
from ..metrics import Metric, parse_metric


def summary_note(metrics: "list[str]") -> str | None:
    """One line saying which of ``metrics`` are not summarised by their mean, or ``None``.

    >>> summary_note(["AP", "num_ret", "gm_map"])
    "num_ret: the sum over the queries; gm_map: the geometric mean (trec_eval's, each value floored at 0.00001; expected: the geometric mean of the per-query expectations, not the expectation of the geometric mean)"
    """
    words = {"sum": "the sum over the queries",
             "geometric mean": "the geometric mean (trec_eval's, each value floored at 0.00001; "
                               "expected: the geometric mean of the per-query expectations, "
                               "not the expectation of the geometric mean)"}
    parts = [f"{m}: {words[summary_of(m).name]}" for m in dict.fromkeys(metrics)
             if summary_of(m).name in words]
    return "; ".join(parts) or None


def summarize(per_query: pd.DataFrame, keys: list[str] | None = None,
              metrics: Iterable[Metric] = ()) -> pd.DataFrame:
    """Each metric's summary of ``value`` per (run, metric, policy), exact and order-independent.

    Returns the summary frame of :class:`tiedrank.evaluation.Evaluation`: run, metric,
    policy (in order of first appearance), value (the metric's :class:`Summary` of the
    non-NaN values: the correctly rounded mean, the sum or the geometric mean) and n_queries
    (rows in the group). ``keys``: other grouping columns (they must include ``metric``),
    e.g. ``["run", "metric", "policy", "group"]`` for a per-group breakdown. ``metrics``:
    the evaluated :class:`~tiedrank.metrics.Metric` objects (their summaries are read as
    they are; a name of the frame not among them is parsed).
    """
    keys = SUMMARY_KEYS if keys is None else list(keys)
    known = {m.name: m for m in metrics}
    summary, sums = partial_summary(per_query, keys, metrics=known.values())
    kinds = [summary_of(known.get(m, m)) for m in summary["metric"].astype(str)]
    summary["value"] = np.array([k.finish(s) for k, s in zip(kinds, sums)], dtype=np.float64)
    return summary[keys + ["value", "n_queries"]]


def summary_of(metric: str | Metric) -> Summary:
    """The :class:`Summary` a metric declares (its registry entry's ``summary``); a
    :class:`~tiedrank.metrics.Metric` is read as it is, only a name is parsed."""
    if isinstance(metric, Metric):  # no name to parse
        return metric.summary
    return parse_metric(metric).summary


def partial_summary(per_query: pd.DataFrame, keys: list[str] | None = None,
                    metrics: Iterable[Metric] = ()) -> tuple[pd.DataFrame, list[ExactSum]]:
    """The groups (run, metric, policy, n_queries) and their exact sums of each metric's
    summands (:class:`Summary`), not yet finished: what a bucket or a Dask worker sends back
    so that the summaries can be combined exactly. ``keys``: as :func:`summarize`;
    ``metrics``: the evaluated :class:`~tiedrank.metrics.Metric` objects, whose summaries are
    read as they are (a name of the frame not among them is parsed)."""
    grouped = per_query.groupby(SUMMARY_KEYS if keys is None else list(keys), observed=True,
                                sort=False)
    codes = grouped.ngroup().to_numpy()
    summary = grouped.size().reset_index(name="n_queries")
    summary["n_queries"] = summary["n_queries"].astype(np.int64)
    values = per_query["value"].to_numpy(dtype=np.float64)
    metric_code, metric_names = pd.factorize(per_query["metric"])  # categorical: its codes
    known = {m.name: m for m in metrics}
    kinds = {i: summary_of(known.get(str(name), str(name))) for i, name in enumerate(metric_names)}
    if any(kind.name != "mean" for kind in kinds.values()):  # the mean sums the values as is
        values = values.copy()
        for i, kind in kinds.items():
            rows = metric_code == i
            values[rows] = kind.summand(values[rows])
    sums = exact_sums(codes, values, len(summary))
    return summary, sums
