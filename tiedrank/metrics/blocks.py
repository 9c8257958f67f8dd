"""The kernels' shared building blocks: per-query sums of per-group and per-document values,
and the division every rate uses (0 where the denominator is not positive: a query with no
relevant document, or no document, scores 0).

Examples
--------
>>> import numpy as np
>>> divide(np.array([1.0, 2.0]), np.array([4.0, 0.0])).tolist()
[0.25, 0.0]
"""
from __future__ import annotations

import numpy as np

from ..core.ties import TieTable


def per_query_groups(table: TieTable, group_values: np.ndarray) -> np.ndarray:
    """The sum of ``group_values`` (one per tie group) over each query's groups."""
    return np.bincount(table.group_query, weights=group_values, minlength=table.n_queries)


def per_query_docs(table: TieTable, doc_values: np.ndarray) -> np.ndarray:
    """The sum of ``doc_values`` (one per retrieved document) over each query's documents."""
    return np.bincount(table.doc_query, weights=doc_values, minlength=table.n_queries)


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` (broadcast, float64), 0 where ``denominator <= 0``."""
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=np.asarray(denominator) > 0)
    return out
