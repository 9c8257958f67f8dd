"""Two runs' per-query values side by side, and who is ahead.

Per-query values come as ``Evaluation.per_query`` (or that frame): columns run, query,
metric, policy, value. Two runs are paired on the query id (inner join); the queries only
one run has are reported, never silently averaged in.

A metric's per-query values are compared on the scale its summary averages
(:func:`summands`, the one place :mod:`tiedrank.stats` reads a metric's summary): the
values themselves for a mean or a sum, ``log(max(x, 1e-5))`` for trec_eval's geometric
mean (gm_map, gm_bpref); the runs' own numbers are their summaries
(:func:`summary_value`, bit for bit ``Evaluation.summary``).

Two values count as equal when they differ by at most ``REL_TOL * max(1, |value|)``, so
that the same sum added in another order is not called a win (:func:`outcome`); every
verdict of :mod:`tiedrank.stats` and of the dashboard uses this one rule.

Examples
--------
>>> import pandas as pd
>>> pq = pd.DataFrame({"run": ["A", "A", "B"], "query": ["1", "2", "1"], "metric": "RR",
...                    "policy": "expected", "value": [1.0, 0.5, 0.5]})
>>> pairs = paired_values(pq, "A", "B", "RR")
>>> pairs.a.tolist(), pairs.b.tolist(), pairs.only_a
([1.0], [0.5], ('2',))
>>> outcome_word(pairs.a - pairs.b).tolist()
['win']
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.policies import parse_policies
from ..evaluation import Evaluation
from ..metrics import Metric, parse_metric
from ..core.summation import exact_sums

__all__ = ["OUTCOMES", "REL_TOL", "PairedValues", "outcome", "outcome_word", "paired_values",
           "summands", "summary_value"]

REL_TOL = 1e-12
"""Relative tolerance under which two means or values count as equal."""
OUTCOMES = ("loss", "tie", "win")
"""The words of :func:`outcome_word`, indexed by ``outcome + 1`` (from the first run's side)."""
MAX_LISTED = 20
"""Query ids listed in a Finding (its count is always complete)."""
_PER_QUERY_COLUMNS = ("run", "query", "metric", "policy", "value")


def outcome(diff, scale=0.0) -> np.ndarray:
    """Who is ahead: 1 where ``diff > tol``, -1 where ``diff < -tol``, 0 (equal) otherwise.

    ``tol = REL_TOL * max(1, scale)``, with ``scale`` the larger magnitude of the two
    values whose difference is ``diff`` (elementwise; 0 compares against ``REL_TOL``).

    Examples
    --------
    >>> outcome([0.1, 1e-13, -0.2]).tolist()
    [1, 0, -1]
    >>> int(outcome(3e-12, scale=1e3))  # within 1e-12 * 1000 of equal
    0
    """
    diff = np.asarray(diff, dtype=np.float64)
    tolerance = REL_TOL * np.maximum(1.0, scale)
    return np.where(diff > tolerance, 1, np.where(diff < -tolerance, -1, 0))


def outcome_word(diff, scale=0.0) -> np.ndarray:
    """:func:`outcome` as ``"win"`` / ``"tie"`` / ``"loss"`` (from the side of ``diff``'s first term)."""
    return np.asarray(OUTCOMES)[outcome(diff, scale) + 1]


def summands(values, metric: str | Metric) -> np.ndarray:
    """Per-query values on the scale the metric's summary averages: what the paired tests,
    the bootstrap intervals and the effect sizes of :mod:`tiedrank.stats` compare.

    ``metric``'s registry entry declares its summary (:data:`tiedrank.core.summation.SUMMARIES`):

    * ``"mean"`` (nearly every metric) and ``"sum"`` (trec_eval's ``num_*`` counts): the
      values as they are (a test of the sums is the test of the means: the same pairs);
    * ``"geometric"`` (``gm_map``, ``gm_bpref``): ``s = log(max(x, 1e-5))``, trec_eval's
      floored logarithm. The run's value is ``GM = exp(mean(s))``, so a paired test of
      ``s_A - s_B`` tests ``log GM_A - log GM_B = 0``, i.e. equal geometric means, and its
      mean difference is ``log(GM_A / GM_B)`` (> 0 when A's geometric mean is higher).
      A query scoring 0 weighs as ``log(1e-5) = -11.5``: the geometric mean rewards
      fixing a failed query far more than the arithmetic mean does.

    Examples
    --------
    >>> summands([0.5, 0.0], "AP").tolist()
    [0.5, 0.0]
    >>> summands([0.5, 0.0], "gm_map").round(4).tolist()
    [-0.6931, -11.5129]
    """
    values = np.asarray(values, dtype=np.float64)
    return np.asarray(parse_metric(metric).summary.summand(values), dtype=np.float64)


def summary_value(values, metric: str | Metric) -> float:
    """The metric's summary of per-query values (NaN skipped): the mean, the sum (``num_*``)
    or trec_eval's geometric mean (``gm_map``, ``gm_bpref``), from the exact sum of the
    :func:`summands`, so the same bits as ``Evaluation.summary`` for the same values.

    Examples
    --------
    >>> summary_value([0.5, 0.125], "AP"), summary_value([3.0, 4.0], "num_ret")
    (0.3125, 7.0)
    >>> round(summary_value([0.5, 0.125], "gm_map"), 12)   # sqrt(0.5 * 0.125)
    0.25
    """
    summary = parse_metric(metric).summary
    values = np.asarray(values, dtype=np.float64)
    total = exact_sums(np.zeros(len(values), dtype=np.int64), summary.summand(values), 1)[0]
    return float(summary.finish(total))


def per_query_frame(source: Evaluation | pd.DataFrame) -> pd.DataFrame:
    """The tidy per-query frame with plain str run/metric/policy columns."""
    frame = source.per_query if isinstance(source, Evaluation) else source
    if not isinstance(frame, pd.DataFrame):
        raise TypeError("expected an Evaluation or its per_query DataFrame")
    missing = [c for c in _PER_QUERY_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"per-query values need columns {', '.join(_PER_QUERY_COLUMNS)}; "
                         f"missing {', '.join(missing)}")
    out = frame[list(_PER_QUERY_COLUMNS)].copy()
    for column in ("run", "query", "metric", "policy"):  # categorical -> str: plain pivots
        if not pd.api.types.is_object_dtype(out[column]):
            out[column] = out[column].astype(str)
    return out


def resolve_metric(frame: pd.DataFrame, metric: str | Metric) -> Metric:
    """The door of :mod:`tiedrank.stats` for a metric argument: ``metric`` as a
    :class:`~tiedrank.metrics.Metric` (parsed once, unless it is one), checked to be among
    the evaluated metrics of ``frame``. The helpers below it take the object; they select
    the frame's rows by its name (``str(metric)``) and read its summary from it."""
    names = list(dict.fromkeys(frame["metric"]))
    m = parse_metric(metric)  # "ndcg@10" -> nDCG@10; a Metric is taken as it is
    if m.name not in names:
        raise ValueError(f"metric {m.name!r} was not evaluated; available: {', '.join(names)}")
    return m


def resolve_metrics(frame: pd.DataFrame, metrics: Iterable[str | Metric] | None) -> list[Metric]:
    """The evaluated ``metrics`` as objects (default: every evaluated metric, in order)."""
    if metrics is None:
        metrics = dict.fromkeys(frame["metric"])
    return [resolve_metric(frame, m) for m in metrics]


def check_runs(names: Iterable[str], available: Iterable[str], what: str = "run") -> None:
    """Raise a ValueError naming the first of ``names`` not in ``available`` (and the runs)."""
    available = list(available)
    for name in names:
        if name not in available:
            raise ValueError(f"{what} {name!r} not found; runs: {', '.join(map(str, available))}")


def resolve_policy(frame: pd.DataFrame, policy: str, seed: int = 0) -> str:
    names = list(dict.fromkeys(frame["policy"]))
    if policy in names:
        return policy
    label = parse_policies(policy, seed)[0].label
    if label not in names:
        raise ValueError(f"tie policy {label!r} was not evaluated; available: {', '.join(names)}")
    return label


def value_matrix(frame: pd.DataFrame, metric: str | Metric, policy: str) -> pd.DataFrame:
    """query x run matrix of one metric (an evaluated one: its name selects the rows) under
    one policy (NaN where a run lacks a query)."""
    block = frame[(frame["metric"] == str(metric)) & (frame["policy"] == policy)]
    if block.duplicated(["run", "query"]).any():
        raise ValueError(f"duplicate (run, query) values for {metric} under {policy}")
    matrix = block.pivot(index="query", columns="run", values="value")
    runs = list(dict.fromkeys(block["run"]))  # keep the evaluation's run order
    return matrix[runs]


@dataclass(frozen=True)
class PairedValues:
    """Two runs' values on the queries both have (inner join on the query id).

    ``only_a`` / ``only_b`` are the queries dropped because only that run has them.
    """

    queries: np.ndarray
    a: np.ndarray
    b: np.ndarray
    only_a: tuple[str, ...] = ()
    only_b: tuple[str, ...] = ()

    @property
    def n_dropped(self) -> int:
        return len(self.only_a) + len(self.only_b)


def pair_columns(matrix: pd.DataFrame, run_a: str, run_b: str) -> PairedValues:
    check_runs((run_a, run_b), matrix.columns)
    x, y = matrix[run_a], matrix[run_b]
    has_a, has_b = x.notna().to_numpy(), y.notna().to_numpy()
    both = has_a & has_b
    index = matrix.index.to_numpy(dtype=object)
    return PairedValues(index[both], x.to_numpy()[both], y.to_numpy()[both],
                        tuple(map(str, index[has_a & ~has_b])),
                        tuple(map(str, index[has_b & ~has_a])))


def paired_values(source: Evaluation | pd.DataFrame, run_a: str, run_b: str,
                  metric: str | Metric, policy: str = "expected") -> PairedValues:
    """Per-query values of two runs for one metric and policy, joined on the query id."""
    frame = per_query_frame(source)
    matrix = value_matrix(frame, resolve_metric(frame, metric), resolve_policy(frame, policy))
    return pair_columns(matrix, run_a, run_b)

