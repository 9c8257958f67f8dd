"""The first relevant rank and two exact variances over tie orderings.

* :func:`first_relevant_distribution` — exact pmf of the first relevant rank and so of RR.
* :func:`rr_variance`, :func:`precision_variance` — exact variances over tie orderings.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics import first_relevant_pmf
from ..core.ties import TieTable

__all__ = ["first_relevant_distribution", "precision_variance", "rr_variance"]


def first_relevant_distribution(table: TieTable, query: str | None = None) -> pd.DataFrame:
    """Exact distribution of the first relevant rank, per query.

    Returns
    -------
    DataFrame
        Columns query, rank, probability, rr (= 1/rank). Queries with no relevant document
        retrieved have no rows (their RR is 0 with certainty).

    Examples
    --------
    Seed scenario S3 (three documents tied at the top, one relevant) gives rank 1, 2, 3
    with probability 1/3 each, so E[RR] = (1 + 1/2 + 1/3) / 3 = 11/18.
    """
    pmf = first_relevant_pmf(table)
    frame = pd.DataFrame({"query": table.queries[pmf.query], "rank": pmf.rank,
                          "probability": pmf.probability, "rr": 1.0 / pmf.rank})
    if query is not None:
        frame = frame[frame["query"] == query].reset_index(drop=True)
    return frame


def rr_variance(table: TieTable) -> pd.Series:
    """Var[RR] over tie orderings, per query: E[RR^2] - E[RR]^2 from the exact pmf."""
    pmf = first_relevant_pmf(table)
    inv = 1.0 / pmf.rank
    first = np.bincount(pmf.query, weights=pmf.probability * inv, minlength=table.n_queries)
    second = np.bincount(pmf.query, weights=pmf.probability * inv * inv, minlength=table.n_queries)
    return pd.Series(np.maximum(second - first * first, 0.0), index=table.queries, name="var_RR")


def precision_variance(table: TieTable, k: int) -> pd.Series:
    """Var[P@k] over tie orderings, per query.

    The relevant documents a group puts into the top k follow a hypergeometric law
    (s_g of its n_g slots drawn, k_g relevant), independently across groups:
    Var[#rel@k] = sum_g s_g (k_g/n_g)(1 - k_g/n_g)(n_g - s_g)/(n_g - 1), and Var[P@k] = that / k^2.
    """
    table = table.scoring()
    slots = np.clip(k - table.group_above, 0, table.group_size).astype(np.float64)
    n = table.group_size.astype(np.float64)
    share = table.group_relevant / n
    spread = np.divide(slots * share * (1 - share) * (n - slots), n - 1,
                       out=np.zeros_like(n), where=n > 1)
    var = np.bincount(table.group_query, weights=spread, minlength=table.n_queries) / (k * k)
    return pd.Series(var, index=table.queries, name=f"var_P@{k}")
