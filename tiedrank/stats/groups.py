"""Every evaluated metric's summary per query group (a query -> group file or mapping):
its mean, or the metric's own summary (the geometric mean of gm_map and gm_bpref, the sum of
the ``num_*`` counts), exactly as ``Evaluation.summary`` computes it.

The groups are read by :func:`tiedrank.io.read_groups` (always validated: a query in two
groups must never pass silently); queries on one side only are reported as findings.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import Finding
from ..evaluation import Evaluation
from ..io.groups import read_groups
from ..evaluation.summaries import summarize
from .pairing import MAX_LISTED, per_query_frame

__all__ = ["GroupBreakdown", "group_breakdown", "read_groups"]


@dataclass(frozen=True, eq=False)
class GroupBreakdown:
    """``table``: run, metric, policy, group, value (the metric's summary over the group's
    queries: the mean, or the geometric mean, the sum), n_queries. ``findings``: group-file queries that were not evaluated, and evaluated
    queries without a group (both left out of the table)."""

    table: pd.DataFrame
    findings: list[Finding]


def group_breakdown(source: Evaluation | pd.DataFrame, groups) -> GroupBreakdown:
    """Every evaluated metric's mean per query group.

    Parameters
    ----------
    source : Evaluation or per-query DataFrame
    groups : anything :func:`read_groups` accepts, or its result

    Examples
    --------
    >>> import pandas as pd
    >>> pq = pd.DataFrame({"run": "A", "query": ["1", "2", "3"], "metric": "RR",
    ...                    "policy": "expected", "value": [1.0, 0.5, 0.0]})
    >>> group_breakdown(pq, {"1": "x", "2": "x", "3": "y"}).table[["group", "value", "n_queries"]].values.tolist()
    [['x', 0.75, 2], ['y', 0.0, 1]]
    """
    frame = per_query_frame(source)
    mapping = read_groups(groups)  # always validated: duplicates must never pass silently
    evaluated = pd.Index(frame["query"].unique())
    known = mapping["query"].isin(evaluated)
    findings: list[Finding] = []
    unknown = mapping.loc[~known, "query"].tolist()
    if unknown:
        findings.append(Finding(
            "group_queries_not_evaluated",
            f"{len(unknown)} quer{'y' if len(unknown) == 1 else 'ies'} of the group file "
            "not among the evaluated queries; ignored", None, len(unknown),
            tuple(unknown[:MAX_LISTED])))
    ungrouped = evaluated[~evaluated.isin(mapping["query"])].tolist()
    if ungrouped:
        findings.append(Finding(
            "queries_without_group",
            f"{len(ungrouped)} evaluated quer{'y' if len(ungrouped) == 1 else 'ies'} have no "
            "group; left out of the breakdown", None, len(ungrouped),
            tuple(map(str, ungrouped[:MAX_LISTED]))))
    joined = frame.merge(mapping, on="query", how="inner")
    order = {c: list(dict.fromkeys(frame[c])) for c in ("run", "metric", "policy")}
    order["group"] = list(dict.fromkeys(mapping["group"]))
    for column, categories in order.items():  # keep input order, not alphabetical
        joined[column] = pd.Categorical(joined[column], categories=categories)
    keys = ["run", "metric", "policy", "group"]
    table = summarize(joined, keys).sort_values(keys, kind="stable").reset_index(drop=True)
    for column in ("run", "metric", "policy", "group"):
        table[column] = table[column].astype(str)
    table["n_queries"] = table["n_queries"].astype(np.int64)
    return GroupBreakdown(table, findings)
