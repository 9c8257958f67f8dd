"""The numbers of a paper's interpolated precision-recall figure with ties: per run and
recall level, the expectation of trec_eval's interpolated precision over every ordering of
the tied documents, its [worst, best] band and its value in trec_eval's tie order.

Scored on the evaluation's own tie tables (no run is read or sorted again) with
``iprec_at_recall(recall=r)`` (docs/metrics-reference.md, section 3e), so each level is
exact, as trec_eval's ``-m iprec_at_recall`` defines it.
"""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..evaluation import Evaluation, score_tables

RECALL_LEVELS = tuple(round(0.1 * i, 1) for i in range(11))
"""trec_eval's eleven recall levels, 0.0 to 1.0."""
CURVE_COLUMNS = ("run", "recall", "expected", "worst", "best", "trec_eval")
"""The columns of :func:`precision_recall_curve` (the policies evaluated)."""


def precision_recall_curve(evaluation: Evaluation, levels: Sequence[float] = RECALL_LEVELS,
                           runs: Sequence[str] | None = None) -> pd.DataFrame:
    """Interpolated precision at each recall level of ``levels`` for ``runs`` (default:
    every run), under the evaluation's tie policies (``ties="all"`` for the band).

    Returns
    -------
    DataFrame with :data:`CURVE_COLUMNS` (the policy columns evaluated), one row per run
    and level, levels ascending.

    Examples
    --------
    >>> from tiedrank import evaluate
    >>> qrels = pd.DataFrame({"query": ["1", "1"], "doc": ["x", "y"], "relevance": 1})
    >>> run = pd.DataFrame({"query": "1", "doc": ["x", "a", "y"], "score": [2.0, 1.0, 1.0]})
    >>> curve = precision_recall_curve(evaluate({"A": run}, qrels, ["AP"], ties="all"), [0.5, 1.0])
    >>> curve[["recall", "expected", "worst", "best"]].values.tolist()
    [[0.5, 1.0, 1.0, 1.0], [1.0, 0.8333333333333333, 0.6666666666666666, 1.0]]
    """
    if not evaluation.tables:
        raise ValueError("the precision-recall curve scores the evaluation's tie tables, which "
                         "this evaluation does not keep (a scaled evaluation): evaluate in one "
                         "pass with tiedrank.evaluate")
    names = list(evaluation.tables) if runs is None else [str(r) for r in runs]
    unknown = [r for r in names if r not in evaluation.tables]
    if unknown:
        raise ValueError(f"run(s) {', '.join(map(repr, unknown))} not in the evaluation; "
                         f"evaluated: {', '.join(evaluation.tables)}")
    levels = sorted(dict.fromkeys(float(r) for r in levels))
    metrics = [f"iprec_at_recall(recall={r:g})" for r in levels]
    scored = score_tables({r: evaluation.tables[r] for r in names}, metrics, evaluation.options)
    recall = {m.name: r for m, r in zip(scored.metrics, levels)}
    wide = scored.report()
    wide.insert(1, "recall", wide["metric"].astype(str).map(recall))
    wide["run"] = wide["run"].astype(str)
    columns = [c for c in CURVE_COLUMNS if c in wide.columns]
    return wide[columns].sort_values(["run", "recall"], key=lambda s: s.map(
        {r: i for i, r in enumerate(names)}) if s.name == "run" else s,
        kind="stable").reset_index(drop=True)
