"""Figures of the Learn page (toy rankings).

* :func:`ranking_figure` — the toy list as coloured boxes, tie groups framed;
* :func:`policy_figure` — every metric under every policy (dots on the worst-best range);
* :func:`orderings_figure` — a metric over all enumerated orderings, mean and closed form;
* :func:`mtrr_curve_figure` — E[1/rank] against 1/E[rank] and the G-RAG MTRR as ties grow.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import plotly_text, plotly_texts
from .style import FILL_TEXT, POLICY_COLORS, POLICY_LABELS, POLICY_SYMBOLS, TEMPLATE, finish, grade_color
from ..labels import BEST_CASE, WORST_CASE

POLICY_ORDER = (WORST_CASE, BEST_CASE, "input", "trec_eval", "expected")
CURVE_COLORS = {"E[RR] (exact MTRR)": POLICY_COLORS["expected"], "1/E[rank1]": "#e66101",
                "MTRR_GRAG": "#5e3c99"}


def ranking_figure(ranked: pd.DataFrame, rel_level: int = 1, *, title: str | None = None) -> go.Figure:
    """The toy ranking left to right: one box per document coloured by grade, ties framed.

    ``ranked``: columns doc, score, grade in ranked order (score descending; inside a tie
    group any order — the frame shows that the order there is undetermined).
    """
    n = len(ranked)
    x = np.arange(1, n + 1)
    grades = ranked["grade"].astype(int).tolist()
    scores = ranked["score"].astype(float).to_numpy()
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=x, y=[0] * n, mode="markers+text", showlegend=False,
        marker=dict(symbol="square", size=46, color=[grade_color(g) for g in grades],
                    line=dict(width=[2.5 if g >= rel_level else 0.5 for g in grades],
                              color="#222222")),
        text=plotly_texts(ranked["doc"]), textposition="middle center",
        textfont=dict(color=["white" if g >= 2 else FILL_TEXT for g in grades], size=13),
        customdata=np.column_stack([scores, grades]),
        hovertemplate="%{text}<br>score %{customdata[0]}<br>grade %{customdata[1]}<extra></extra>"))
    start = 0
    while start < n:  # frame each tie group of two or more
        end = start
        while end + 1 < n and scores[end + 1] == scores[start]:
            end += 1
        if end > start:
            fig.add_shape(type="rect", x0=start + 0.55, x1=end + 1.45, y0=-0.55, y1=0.55,
                          line=dict(color=POLICY_COLORS[WORST_CASE], width=2, dash="dot"))
            fig.add_annotation(x=(start + end) / 2 + 1, y=0.72, showarrow=False,
                               text=f"tied at {scores[start]:g}: {end - start + 1} docs",
                               font=dict(size=11, color=POLICY_COLORS[WORST_CASE]))
        start = end + 1
    fig.add_trace(go.Scatter(x=x, y=[-0.75] * n, mode="text", showlegend=False, hoverinfo="skip",
                             text=[f"{s:g} | g{g}" for s, g in zip(scores, grades)],
                             textfont=dict(size=10, color="#555555")))
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), height=200,
        xaxis=dict(title="position (score descending)", tickvals=x.tolist(), range=[0.4, n + 0.6],
                   showgrid=False, zeroline=False),
        yaxis=dict(visible=False, range=[-1.0, 1.0]),
        margin=dict(t=40 if title else 10, b=40, l=10, r=10))
    return finish(fig)


def policy_figure(values: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Dot plot: one row per metric, a grey bar from worst to best and one marker per policy.

    ``values``: columns metric and one per policy (:attr:`tiedrank.dashboard.learn.ToyResult.values`).
    """
    metrics = values["metric"].astype(str).tolist()
    fig = go.Figure()
    if {WORST_CASE, BEST_CASE} <= set(values.columns):
        low = values[WORST_CASE].to_numpy(dtype=float)
        high = values[BEST_CASE].to_numpy(dtype=float)
        fig.add_trace(go.Bar(y=metrics, x=high - low, base=low, orientation="h",
                             marker_color="#e5e5e5", name="range over orderings", hoverinfo="skip"))
    for policy in POLICY_ORDER:
        if policy not in values.columns:
            continue
        fig.add_trace(go.Scatter(
            y=metrics, x=values[policy], mode="markers", name=POLICY_LABELS[policy],
            marker=dict(color=POLICY_COLORS[policy], symbol=POLICY_SYMBOLS[policy],
                        size=13 if policy == "expected" else 11,
                        line=dict(color="white", width=1)),
            hovertemplate=f"%{{y}}<br>{POLICY_LABELS[policy]}: %{{x:.4f}}<extra></extra>"))
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), barmode="overlay", height=max(300, 42 * len(metrics) + 110),
        xaxis=dict(title="value", range=[-0.03, 1.05]),
        yaxis=dict(autorange="reversed", type="category"),
        margin=dict(t=70 if title else 40))
    return finish(fig)


def orderings_figure(orderings: pd.DataFrame, metric: str, closed_form: float, *,
                     title: str | None = None) -> go.Figure:
    """How many orderings give each value of ``metric``; their mean and the closed form marked.

    ``orderings``: :func:`tiedrank.dashboard.learn.enumerate_toy` output (a column named ``metric``).
    """
    values = orderings[metric].to_numpy(dtype=float)
    distinct, counts = np.unique(np.round(values, 12), return_counts=True)
    share = counts / max(len(values), 1)
    fig = go.Figure()
    fig.add_trace(go.Bar(
        x=distinct, y=counts, name="orderings with this value", marker_color="#9ecae1",
        width=_bar_width(distinct), customdata=share,
        text=[f"{c}" for c in counts], textposition="outside", cliponaxis=False,
        hovertemplate=f"{metric} = %{{x:.4f}}<br>%{{y}} orderings (%{{customdata:.1%}})"
                      "<extra></extra>"))
    top = float(counts.max()) * 1.25 if len(counts) else 1.0
    mean = float(values.mean()) if len(values) else float("nan")
    for label, x, color, dash, symbol in (
            (f"mean over the {len(values)} orderings = {mean:.6f}", mean, "#e66101", "solid", "circle"),
            (f"closed form E[{metric}] = {closed_form:.6f}", closed_form,
             POLICY_COLORS["expected"], "dash", POLICY_SYMBOLS["expected"])):
        fig.add_trace(go.Scatter(
            x=[x, x], y=[0, top], mode="lines+markers", name=label,
            line=dict(color=color, dash=dash, width=2.5 if dash == "solid" else 2),
            marker=dict(size=[0, 11], color=color, symbol=symbol),
            hovertemplate=label + "<extra></extra>"))
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), height=360,
        xaxis=dict(title=f"{metric} of one ordering"),
        yaxis=dict(title="orderings", range=[0, top], tick0=0,
                   dtick=max(1, int(np.ceil(float(counts.max()) / 5))) if len(counts) else 1),
        margin=dict(t=50 if title else 20))
    return finish(fig)


def _bar_width(x: np.ndarray) -> float | None:
    if len(x) < 2:
        return 0.04
    return float(max(np.min(np.diff(x)) * 0.8, 0.004))


def mtrr_curve_figure(curve: pd.DataFrame, *, title: str | None = None,
                      mark_tied: int | None = None) -> go.Figure:
    """The exact MTRR, 1/E[rank1] and MTRR_GRAG of a fully tied list against its size.

    ``curve``: :func:`tiedrank.dashboard.learn.mtrr_curve` output.
    """
    fig = go.Figure()
    for column in ("E[RR] (exact MTRR)", "1/E[rank1]", "MTRR_GRAG"):
        if column not in curve:
            continue
        fig.add_trace(go.Scatter(
            x=curve["tied"], y=curve[column], mode="lines+markers", name=column,
            line=dict(color=CURVE_COLORS[column], width=2.5 if column.startswith("E[") else 2,
                      dash="solid" if column.startswith("E[") else
                      ("dash" if column == "1/E[rank1]" else "dot")),
            marker=dict(size=5),
            hovertemplate=f"{column}<br>%{{x}} tied<br>%{{y:.4f}}<extra></extra>"))
    if mark_tied is not None:
        fig.add_vline(x=mark_tied, line=dict(color="#888888", width=1, dash="dot"))
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), height=380,
        xaxis=dict(title="documents in the tie (all tied, first group)"),
        yaxis=dict(title="value", rangemode="tozero"),
        margin=dict(t=70 if title else 40))
    return finish(fig)
