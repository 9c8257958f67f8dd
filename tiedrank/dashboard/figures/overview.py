"""Figures of the overview page: each run's metric range over tie orderings."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..labels import BEST_CASE, WORST_CASE
from . import plotly_text, plotly_texts
from .style import POLICY_COLORS, POLICY_LABELS, POLICY_SYMBOLS, TEMPLATE, finish

# report column -> engine policy name (for colours, symbols and labels)
_REPORT_POLICIES = (("worst", WORST_CASE), ("best", BEST_CASE),
                    ("trec_eval", "trec_eval"), ("expected", "expected"))


def range_figure(report: pd.DataFrame, metric: str, *, flipped_runs: set[str] | None = None) -> go.Figure:
    """One row per run: the [worst, best] range as a bar, with the expected value and the
    trec_eval-order value as markers; runs sorted by expected value (best on top).

    Parameters
    ----------
    report : DataFrame
        :meth:`tiedrank.Evaluation.report` (run, metric, expected, best, worst, trec_eval).
    metric : str
        Which metric to draw.
    flipped_runs : set of str, optional
        Runs whose order differs between policies; their labels get a ⚠.

    Returns
    -------
    plotly Figure with one range trace and one marker trace per available policy.
    """
    rows = report[report["metric"].astype(str) == metric].copy()
    rows["run"] = rows["run"].astype(str)
    rows = rows.sort_values("expected", ascending=True) if "expected" in rows else rows
    flipped_runs = flipped_runs or set()
    labels = [f"⚠ {plotly_text(r)}" if r in flipped_runs else plotly_text(r) for r in rows["run"]]
    fig = go.Figure()
    if {"worst", "best"} <= set(rows.columns):
        xs, ys = [], []
        for label, lo, hi in zip(labels, rows["worst"], rows["best"]):
            xs += [lo, hi, None]
            ys += [label, label, None]
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="lines", name="range over tie orderings",
            line=dict(color="#bdbdbd", width=10), hoverinfo="skip"))
    for column, policy in _REPORT_POLICIES:
        if column not in rows:
            continue
        fig.add_trace(go.Scatter(
            x=rows[column], y=labels, mode="markers", name=POLICY_LABELS[policy],
            marker=dict(color=POLICY_COLORS[policy], symbol=POLICY_SYMBOLS[policy], size=11,
                        line=dict(width=1, color="white")),
            customdata=plotly_texts(rows["run"]),
            hovertemplate=f"%{{customdata}}<br>{POLICY_LABELS[policy]}: %{{x:.4f}}<extra></extra>"))
    fig.update_layout(
        template=TEMPLATE, title=f"{metric}: expected value, trec_eval order and range per run",
        xaxis_title=metric, yaxis_title=None, height=max(260, 60 + 34 * len(rows)),
        margin=dict(l=10, r=10, t=50, b=40))
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=labels)
    fig.update_xaxes(range=value_range(rows))
    return finish(fig)


def value_range(rows: pd.DataFrame) -> list[float]:
    """The x range of a range figure: [0, 1] (metrics are rates) widened to any value outside
    it (DCG), with a little room; never plotly's automatic [-0.5, ...] around one point."""
    columns = [c for c, _ in _REPORT_POLICIES if c in rows]
    values = rows[columns].to_numpy(dtype=float).ravel() if columns else np.array([])
    values = values[np.isfinite(values)]
    lo = min(0.0, float(values.min())) if len(values) else 0.0
    hi = max(1.0, float(values.max())) if len(values) else 1.0
    pad = 0.03 * (hi - lo)
    return [lo - pad, hi + pad]


# the figures for papers moved to the shared .paper (Spread and Checkpoints draw them too)
from .paper import checkpoint_figure, precision_recall_figure  # noqa: E402,F401
