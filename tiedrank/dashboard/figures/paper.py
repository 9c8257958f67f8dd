"""Figures for papers, shared by the pages that draw them (Spread, Checkpoints) and by
``scripts/render_paper_figures.py``: the interpolated precision-recall curve with its
[worst, best] band over tie orderings, and the checkpoint curve of a training run."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import plotly_text, plotly_texts
from .style import POLICY_COLORS, POLICY_LABELS, POLICY_SYMBOLS, finish

_BAND_FILL = "rgba(120, 120, 120, 0.22)"


def _band(fig: go.Figure, x, low, high, name: str, *, row: int | None = None,
          col: int | None = None, showlegend: bool = True) -> None:
    """A filled [low, high] band along ``x`` (the worst and best case over tie orderings)."""
    where = {} if row is None else {"row": row, "col": col}
    fig.add_trace(go.Scatter(x=list(x), y=list(high), mode="lines", line=dict(width=0),
                             hoverinfo="skip", showlegend=False, legendgroup=name), **where)
    fig.add_trace(go.Scatter(x=list(x), y=list(low), mode="lines", line=dict(width=0),
                             fill="tonexty", fillcolor=_BAND_FILL, name=name, legendgroup=name,
                             showlegend=showlegend, hoverinfo="skip"), **where)


def precision_recall_figure(curve: pd.DataFrame, run: str) -> go.Figure:
    """Interpolated precision against recall for ``run``: the [worst, best] band over tie
    orderings, the expectation as a line and trec_eval's order as markers.

    Parameters
    ----------
    curve : DataFrame
        :func:`tiedrank.report.precision_recall_curve` (run, recall, expected, worst, best,
        trec_eval).
    """
    rows = curve[curve["run"].astype(str) == str(run)].sort_values("recall")
    fig = go.Figure()
    if {"worst", "best"} <= set(rows.columns):
        _band(fig, rows["recall"], rows["worst"], rows["best"], "worst to best over tie orderings")
    for column, policy, mode in (("expected", "expected", "lines+markers"),
                                 ("trec_eval", "trec_eval", "markers")):
        if column in rows:
            fig.add_trace(go.Scatter(
                x=rows["recall"], y=rows[column], mode=mode, name=POLICY_LABELS[policy],
                line=dict(color=POLICY_COLORS[policy], width=2),
                marker=dict(color=POLICY_COLORS[policy], symbol=POLICY_SYMBOLS[policy], size=8),
                hovertemplate=f"recall %{{x:.1f}}<br>{POLICY_LABELS[policy]}: %{{y:.4f}}<extra></extra>"))
    fig.update_layout(title=f"Interpolated precision-recall of {plotly_text(run)}", xaxis_title="recall",
                      yaxis_title="interpolated precision", height=380,
                      margin=dict(l=10, r=10, t=50, b=40))
    fig.update_xaxes(range=[-0.02, 1.02])
    fig.update_yaxes(range=[-0.02, 1.02])
    return finish(fig)


def checkpoint_figure(curve: pd.DataFrame, metric: str) -> go.Figure:
    """One measure along the checkpoints of a training run: the expectation per step as a
    line, its [worst, best] band and trec_eval's order as markers; a step whose band
    overlaps the previous one's (indistinguishable under ties) is drawn hollow, and the
    hover gives the paired test against the previous step.

    Parameters
    ----------
    curve : DataFrame
        :func:`tiedrank.stats.checkpoint_curve`.
    """
    rows = curve[curve["metric"].astype(str) == str(metric)].sort_values("step")
    fig = go.Figure()
    _band(fig, rows["step"], rows["worst"], rows["best"], "worst to best over tie orderings")
    overlaps = rows["overlaps_previous"].to_numpy(dtype=bool)
    tests = [("first step" if pd.isna(p) else
              f"vs previous: diff {d:+.4f}, p {p:.3g}" + (" (bands overlap)" if o else ""))
             for d, p, o in zip(rows["diff_previous"], rows["p_value_previous"], overlaps)]
    fig.add_trace(go.Scatter(
        x=rows["step"], y=rows["expected"], mode="lines+markers",
        name=POLICY_LABELS["expected"], line=dict(color=POLICY_COLORS["expected"], width=2),
        marker=dict(color=["white" if o else POLICY_COLORS["expected"] for o in overlaps],
                    line=dict(color=POLICY_COLORS["expected"], width=2), size=10),
        customdata=np.column_stack([plotly_texts(rows["run"]), tests]),
        hovertemplate="%{customdata[0]} (step %{x:g})<br>expected %{y:.4f}<br>"
                      "%{customdata[1]}<extra></extra>"))
    if "trec_eval" in rows and rows["trec_eval"].notna().any():
        fig.add_trace(go.Scatter(
            x=rows["step"], y=rows["trec_eval"], mode="markers", name=POLICY_LABELS["trec_eval"],
            marker=dict(color=POLICY_COLORS["trec_eval"], symbol=POLICY_SYMBOLS["trec_eval"],
                        size=9),
            hovertemplate=f"step %{{x:g}}<br>{POLICY_LABELS['trec_eval']}: %{{y:.4f}}<extra></extra>"))
    n_overlap = int(overlaps.sum())
    fig.update_layout(
        title=f"{metric} by checkpoint: {n_overlap} of {max(len(rows) - 1, 0)} consecutive steps "
              "indistinguishable under ties (hollow)",
        xaxis_title="step", yaxis_title=metric, height=400, margin=dict(l=10, r=10, t=60, b=40))
    return finish(fig)
