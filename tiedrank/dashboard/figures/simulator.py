"""Figures of the Simulator page: how a reranker's score scale widens the tie spread.

* :func:`spread_figure` — per run (in the given order), the [worst, best] range over tie
  orderings as a bar, the expected and trec_eval-order values as markers; one panel per
  metric;
* :func:`sweep_figure` — a metric along a swept simulator parameter: the worst-best band,
  the expected value and the trec_eval-order value, and below it the share of documents
  in ties.
"""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from . import plotly_text, plotly_texts
from .style import POLICY_COLORS, POLICY_LABELS, POLICY_SYMBOLS, TEMPLATE, finish
from ..labels import BEST_CASE, WORST_CASE

RANGE_COLOR = "#bdbdbd"
BAND_COLOR = "rgba(150, 150, 150, 0.22)"
TIES_COLOR = "#9ecae1"  # GRADE_COLORS[1]: a light blue, quieter than the policy colours
# report column -> engine policy name (colours, symbols and labels of style.py)
_MARKERS = (("worst", WORST_CASE), ("best", BEST_CASE), ("trec_eval", "trec_eval"),
            ("expected", "expected"))
AXIS_TITLES = {"levels": "label levels (fewer to the right: a coarser scale)",
               "tie_prob": "extra tie probability",
               "precision": "score precision (fewer bits to the right)"}


def spread_figure(report: pd.DataFrame, metrics: Sequence[str], *,
                  runs: Sequence[str] | None = None, title: str | None = None) -> go.Figure:
    """One panel per metric: each run's [worst, best] range with expected and trec_eval.

    Parameters
    ----------
    report : DataFrame
        :meth:`tiedrank.Evaluation.report` with ``ties="all"`` (run, metric, expected,
        best, worst, trec_eval).
    metrics : list of str
        The panels, left to right.
    runs : list of str, optional
        Order of the runs on the x axis (default: the report's order, e.g. finest scale
        first, so the range widens to the right).

    Returns
    -------
    plotly Figure; the range (best - worst) of each run is printed above its bar.
    """
    frame = report.assign(run=plotly_texts(report["run"]), metric=report["metric"].astype(str))
    runs = list(plotly_texts(runs)) if runs is not None else list(dict.fromkeys(frame["run"]))
    metrics = [m for m in metrics if (frame["metric"] == m).any()]
    fig = make_subplots(rows=1, cols=max(len(metrics), 1), subplot_titles=metrics,
                        horizontal_spacing=0.07)
    for col, metric in enumerate(metrics, start=1):
        rows = frame[frame["metric"] == metric].set_index("run").reindex(runs).reset_index()
        xs, ys = [], []
        for run, lo, hi in zip(rows["run"], rows["worst"], rows["best"]):
            xs += [run, run, None]
            ys += [lo, hi, None]
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="lines", name="range over tie orderings (worst to best)",
            legendgroup="range", showlegend=col == 1, line=dict(color=RANGE_COLOR, width=14),
            hoverinfo="skip"), row=1, col=col)
        for column, policy in _MARKERS:
            fig.add_trace(go.Scatter(
                x=rows["run"], y=rows[column], mode="markers", name=POLICY_LABELS[policy],
                legendgroup=policy, showlegend=col == 1,
                marker=dict(color=POLICY_COLORS[policy], symbol=POLICY_SYMBOLS[policy], size=11,
                            line=dict(width=1, color="white")),
                hovertemplate=f"%{{x}}<br>{metric} {POLICY_LABELS[policy]}: %{{y:.4f}}<extra></extra>"),
                row=1, col=col)
        for run, lo, hi in zip(rows["run"], rows["worst"], rows["best"]):
            if pd.notna(lo) and pd.notna(hi):
                fig.add_annotation(x=run, y=hi, text=f"range {hi - lo:.3f}", showarrow=False,
                                   yshift=16, font=dict(size=11, color="#555555"), row=1, col=col)
        fig.update_yaxes(title_text=metric, row=1, col=col)
        # half a category of padding on each side, so the edge labels are not clipped
        fig.update_xaxes(type="category", categoryorder="array", categoryarray=runs,
                         range=[-0.6, len(runs) - 0.4], row=1, col=col)
    top = max(0.0, float(pd.to_numeric(frame["best"], errors="coerce").max())) if len(frame) else 1.0
    fig.update_yaxes(range=[-0.02, max(1.0, top) * 1.1])
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), height=460,
        margin=dict(l=10, r=10, t=70 if title else 40, b=40))
    return finish(fig)


def sweep_figure(table: pd.DataFrame, *, title: str | None = None,
                 reference: float | None = None, reference_label: str | None = None) -> go.Figure:
    """A metric along a swept parameter, and the share of documents in ties below.

    Parameters
    ----------
    table : DataFrame
        :func:`tiedrank.dashboard.simulator.simulator_sweep` output (parameter, value, label, metric,
        expected, best, worst, trec_eval, docs_in_ties).
    reference : float, optional
        A horizontal reference line (e.g. the continuous scorer's value).
    """
    parameter = str(table["parameter"].iloc[0]) if len(table) else ""
    metric = str(table["metric"].iloc[0]) if len(table) else ""
    categorical = parameter == "precision"
    x = table["label"] if categorical else table["value"].astype(float)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.74, 0.26],
                        vertical_spacing=0.06)
    # the band: worst, then best filled down to it
    fig.add_trace(go.Scatter(
        x=x, y=table["worst"], mode="lines+markers", name=POLICY_LABELS[WORST_CASE],
        line=dict(color=POLICY_COLORS[WORST_CASE], width=1.2),
        marker=dict(symbol=POLICY_SYMBOLS[WORST_CASE], size=7),
        hovertemplate=f"%{{x}}<br>{metric} worst case: %{{y:.4f}}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(
        x=x, y=table["best"], mode="lines+markers", name=POLICY_LABELS[BEST_CASE],
        line=dict(color=POLICY_COLORS[BEST_CASE], width=1.2), fill="tonexty",
        fillcolor=BAND_COLOR, marker=dict(symbol=POLICY_SYMBOLS[BEST_CASE], size=7),
        hovertemplate=f"%{{x}}<br>{metric} best case: %{{y:.4f}}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(
        x=x, y=table["trec_eval"], mode="lines+markers", name=POLICY_LABELS["trec_eval"],
        line=dict(color=POLICY_COLORS["trec_eval"], width=2, dash="dot"),
        marker=dict(symbol=POLICY_SYMBOLS["trec_eval"], size=8),
        hovertemplate=f"%{{x}}<br>{metric} trec_eval order: %{{y:.4f}}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(
        x=x, y=table["expected"], mode="lines+markers", name=POLICY_LABELS["expected"],
        line=dict(color=POLICY_COLORS["expected"], width=3),
        marker=dict(symbol=POLICY_SYMBOLS["expected"], size=8),
        hovertemplate=f"%{{x}}<br>{metric} expected: %{{y:.4f}}<extra></extra>"), row=1, col=1)
    if reference is not None:
        fig.add_hline(y=reference, line=dict(color="#888888", width=1, dash="dash"), row=1, col=1,
                      annotation_text=reference_label or f"{reference:.4f}",
                      annotation_position="bottom left", annotation_font=dict(color="#555555"))
    fig.add_trace(go.Bar(
        x=x, y=table["docs_in_ties"], name="share of documents in ties", marker_color=TIES_COLOR,
        hovertemplate="%{x}<br>documents in ties: %{y:.1%}<extra></extra>"), row=2, col=1)
    fig.update_yaxes(title_text=f"mean {metric}", row=1, col=1)
    fig.update_yaxes(title_text="in ties", tickformat=".0%", range=[0, 1.05], row=2, col=1)
    fig.update_xaxes(title_text=AXIS_TITLES.get(parameter, parameter), row=2, col=1)
    if categorical:
        fig.update_xaxes(type="category", categoryorder="array", categoryarray=list(table["label"]))
    elif parameter == "levels":
        fig.update_xaxes(autorange="reversed", dtick=1)
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), height=560, hovermode="x unified",
        margin=dict(l=10, r=10, t=80 if title else 40, b=40))
    return finish(fig)
