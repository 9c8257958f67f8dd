"""A run's tie structure in a few numbers (the CLI's ``simulate`` and the dashboard's
Overview): how many queries and documents tie, and how large the groups are."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .ties import TieTable


def tie_statistics(table: TieTable, top: int = 10) -> dict[str, float]:
    """Summary of a run's tie structure.

    Returns
    -------
    dict
        ``queries``: queries with results; ``queries_with_ties``: those with a group of 2+;
        ``docs_in_ties``: share of retrieved documents in a group of 2+; ``largest_group``;
        ``mean_group_size_top``: mean size of the groups that start within the top ``top``;
        ``distinct_scores``: mean number of distinct scores per query.
    """
    tied = table.group_size > 1
    with_docs = table.n_retrieved > 0
    n_docs = int(table.n_retrieved.sum())
    top_groups = table.group_above < top
    groups_per_query = np.bincount(table.group_query, minlength=table.n_queries)
    return {
        "queries": int(with_docs.sum()),
        "queries_with_ties": int(np.unique(table.group_query[tied]).size),
        "docs_in_ties": float(table.group_size[tied].sum() / n_docs) if n_docs else 0.0,
        "largest_group": int(table.group_size.max()) if table.n_groups else 0,
        "mean_group_size_top": float(table.group_size[top_groups].mean()) if top_groups.any() else 0.0,
        "distinct_scores": float(groups_per_query[with_docs].mean()) if with_docs.any() else 0.0,
    }
