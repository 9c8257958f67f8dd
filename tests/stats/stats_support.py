"""Builders of small inputs shared by the tests of tiedrank.stats."""
from __future__ import annotations

import pandas as pd

from tiedrank.core.data import Qrels, Run
from tiedrank.core.ties import TieTable, build_tie_table


def per_query(values: dict[str, dict[str, float]], metric: str = "RR",
              policy: str = "expected") -> pd.DataFrame:
    """A per-query frame (run, query, metric, policy, value) from {run: {query: value}}."""
    rows = [(run, q, metric, policy, v) for run, qs in values.items() for q, v in qs.items()]
    return pd.DataFrame(rows, columns=["run", "query", "metric", "policy", "value"])


def qrels_of(rows: list[tuple[str, str, int]]) -> Qrels:
    return Qrels(pd.DataFrame(rows, columns=["query", "doc", "relevance"]))


def tie_table(name: str, rows: list[tuple[str, str, float]], qrels: Qrels) -> TieTable:
    run = Run(name, pd.DataFrame(rows, columns=["query", "doc", "score"]))
    return build_tie_table(run, qrels)
