"""Fragile queries: where the tie-break alone decides which of two runs wins a query.

:mod:`tiedrank.stats.stability` asks whether the verdict on the *mean* survives the
tie-break; this module asks it query by query. The two runs' tie orderings are independent,
so over every pair of orderings the difference A - B of one query ranges from
``worst_A - best_B`` to ``best_A - worst_B`` (both ends are reached: A's best ordering with
B's worst one, and the other way round). A query is *fragile* when that range straddles 0:
some tie-break makes A win it and another makes B win it, whatever the scores say.

Best and worst are the ``best`` and ``worst`` policies of the evaluation (the
exact extremes over tie orderings, :mod:`tiedrank.metrics`); "A wins" uses the one rule of
:func:`tiedrank.stats.outcome` (a difference within ``1e-12 * max(1, |value|)`` is a tie).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..evaluation import Evaluation
from ..core.policies import REPORT_COLUMNS
from ..metrics import Metric
from .pairing import (
    check_runs,
    outcome,
    pair_columns,
    per_query_frame,
    resolve_metric,
    value_matrix,
)

__all__ = ["FRAGILE_COLUMNS", "fragile_queries"]

FRAGILE_COLUMNS = ("query", "expected_a", "expected_b", "trec_eval_a", "trec_eval_b",
                   "best_a", "worst_a", "best_b", "worst_b", "winner_expected",
                   "winner_trec_eval", "max_diff", "min_diff", "fragile")
"""The columns of :func:`fragile_queries`, in order."""

_NEEDED = {REPORT_COLUMNS[p]: p for p in ("expected", "trec_eval", "best", "worst")}
"""Column prefix (the report's word for the policy: best, worst) -> policy key."""


def _policy_values(frame: pd.DataFrame, metric: Metric, policy: str, run_a: str,
                   run_b: str) -> pd.DataFrame:
    """query -> (a, b) of one policy on the queries both runs have."""
    if policy not in set(frame["policy"]):
        available = ", ".join(dict.fromkeys(frame["policy"]))
        raise ValueError(f"fragile queries need the {policy!r} tie policy, which was not "
                         f"evaluated (available: {available}); evaluate with ties='all'")
    pairs = pair_columns(value_matrix(frame, metric, policy), run_a, run_b)
    return pd.DataFrame({"a": pairs.a, "b": pairs.b}, index=pd.Index(pairs.queries, name="query"))


def _winner(diff: np.ndarray, scale: np.ndarray, run_a: str, run_b: str) -> np.ndarray:
    return np.asarray([run_b, "tie", run_a], dtype=object)[outcome(diff, scale) + 1]


def fragile_queries(source: Evaluation | pd.DataFrame, run_a: str, run_b: str,
                    metric: str | Metric) -> pd.DataFrame:
    """Per query of two runs: the verdict by expectation and in trec_eval's order, and
    whether the tie-break alone can make either run win.

    The two runs break their ties independently, so over every pair of tie orderings

        max (A - B) = best_A - worst_B,    min (A - B) = worst_A - best_B

    and the query is fragile when ``max (A - B) > 0`` and ``min (A - B) < 0`` (each within
    the tolerance of :func:`tiedrank.stats.outcome`, scaled by the two values compared).

    Parameters
    ----------
    source : Evaluation or DataFrame
        An evaluation with the ``expected``, ``trec_eval``, ``best`` and
        ``worst`` policies (``ties="all"``), or its ``per_query`` frame.
    run_a, run_b : str
        The two runs; differences are ``run_a - run_b``.
    metric : str or Metric
        An evaluated metric (``"ndcg@10"`` finds ``nDCG@10``).

    Returns
    -------
    DataFrame
        One row per query both runs have, in the evaluation's query order, with the
        columns of :data:`FRAGILE_COLUMNS`: query; expected_a, expected_b (the exact
        expectations); trec_eval_a, trec_eval_b (trec_eval's order); best_a, worst_a,
        best_b, worst_b; winner_expected and winner_trec_eval (``run_a``, ``run_b`` or
        ``"tie"``); max_diff, min_diff (the range of A - B over tie orderings); fragile.

    Raises
    ------
    ValueError
        When a run, the metric or one of the four policies was not evaluated.

    Examples
    --------
    Run A ties its relevant document with a non-relevant one; run B puts its relevant
    document second for sure. RR of A is 1 or 1/2, of B 1/2: A wins or ties, never loses,
    so the query is not fragile. On P@1 A gets 1 or 0 and B 0: not fragile either. Give B
    the same tie and P@1 becomes fragile (either run can win):

    >>> import pandas as pd
    >>> from tiedrank import evaluate
    >>> qrels = pd.DataFrame({"query": "q", "doc": ["x"], "relevance": [1]})
    >>> a = pd.DataFrame({"query": "q", "doc": ["x", "y"], "score": [1.0, 1.0]})
    >>> b = pd.DataFrame({"query": "q", "doc": ["x", "y"], "score": [0.5, 1.0]})
    >>> ev = evaluate({"A": a, "B": b}, qrels, ["RR", "P@1"], ties="all")
    >>> row = fragile_queries(ev, "A", "B", "RR").iloc[0]
    >>> float(row.expected_a), float(row.expected_b), row.winner_expected
    (0.75, 0.5, 'A')
    >>> float(row.max_diff), float(row.min_diff), bool(row.fragile)
    (0.5, 0.0, False)
    >>> ev = evaluate({"A": a, "B": a}, qrels, ["P@1"], ties="all")
    >>> row = fragile_queries(ev, "A", "B", "P@1").iloc[0]
    >>> float(row.max_diff), float(row.min_diff), bool(row.fragile), row.winner_trec_eval
    (1.0, -1.0, True, 'tie')
    """
    if run_a == run_b:
        raise ValueError("the two runs must differ")
    frame = per_query_frame(source)
    check_runs((run_a, run_b), dict.fromkeys(frame["run"]))
    metric = resolve_metric(frame, metric)
    values = {key: _policy_values(frame, metric, policy, run_a, run_b)
              for key, policy in _NEEDED.items()}
    queries = values["expected"].index
    values = {key: v.reindex(queries) for key, v in values.items()}  # one query order
    col = {f"{key}_{side}": v[side].to_numpy(dtype=np.float64)
           for key, v in values.items() for side in ("a", "b")}
    max_diff = col["best_a"] - col["worst_b"]
    min_diff = col["worst_a"] - col["best_b"]
    up = outcome(max_diff, np.maximum(np.abs(col["best_a"]), np.abs(col["worst_b"])))
    down = outcome(min_diff, np.maximum(np.abs(col["worst_a"]), np.abs(col["best_b"])))
    out = pd.DataFrame({"query": queries.to_numpy(dtype=object).astype(str)})
    for key in ("expected", "trec_eval"):
        out[f"{key}_a"], out[f"{key}_b"] = col[f"{key}_a"], col[f"{key}_b"]
    for key in ("best", "worst"):
        out[f"{key}_a"] = col[f"{key}_a"]
    for key in ("best", "worst"):
        out[f"{key}_b"] = col[f"{key}_b"]
    for key in ("expected", "trec_eval"):
        a, b = col[f"{key}_a"], col[f"{key}_b"]
        out[f"winner_{key}"] = _winner(a - b, np.maximum(np.abs(a), np.abs(b)), run_a, run_b)
    out["max_diff"], out["min_diff"] = max_diff, min_diff
    out["fragile"] = (up > 0) & (down < 0)
    return out[list(FRAGILE_COLUMNS)]
