"""Figures of the permutation spread page: how far a metric moves with the tie-break.

* :func:`pmf_figure` — exact pmf of one query's first relevant rank, policies marked;
* :func:`range_figure` — worst-best range of every query, expectation and trec_eval marked;
* :func:`sample_histogram` — a run's mean over random tie-breaks, reported values marked.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import plotly_text, plotly_texts
from .style import (
    GRADE_COLORS,
    POLICY_COLORS,
    POLICY_LABELS,
    POLICY_SYMBOLS,
    TEMPLATE,
    finish,
    policy_mark,
)
from ..labels import BEST_CASE, WORST_CASE

BAR_COLOR = GRADE_COLORS[1]
RANGE_COLOR = "#d9d9d9"
MARKED_POLICIES = (BEST_CASE, WORST_CASE, "trec_eval", "expected")


def pmf_figure(pmf: pd.DataFrame, marks: Mapping[str, float] | None = None, *,
               title: str | None = None, label_bars: int = 30) -> go.Figure:
    """Bars of P(first relevant rank = x) with the RR of each rank; policies as vertical lines.

    Parameters
    ----------
    pmf : DataFrame
        Columns rank, probability, rr (one query of
        :func:`tiedrank.sampling.first_relevant_distribution`).
    marks : mapping policy -> RR
        ``BEST_CASE``, ``WORST_CASE``, ``trec_eval`` (whose ranks are 1/RR) and
        ``expected`` (E[RR], drawn at the rank 1/E[RR] that would give it).
    label_bars : int
        Print the RR above the bars when there are at most this many.
    """
    marks = dict(marks or {})
    fig = go.Figure()
    rr = pmf["rr"].to_numpy(dtype=float)
    prob = pmf["probability"].to_numpy(dtype=float)
    show_text = len(pmf) <= label_bars
    fig.add_trace(go.Bar(
        x=pmf["rank"], y=prob, name="P(first relevant at this rank)", marker_color=BAR_COLOR,
        customdata=np.column_stack([rr]) if len(rr) else None,
        text=[f"RR {v:.3g}" for v in rr] if show_text else None,
        textposition="outside", cliponaxis=False,
        hovertemplate="rank %{x}<br>probability %{y:.4f}<br>RR = 1/rank = %{customdata[0]:.4f}"
                      "<extra></extra>"))
    top = float(prob.max()) * 1.18 if len(prob) else 1.0
    for policy in MARKED_POLICIES:
        value = marks.get(policy)
        if value is None or not np.isfinite(value) or value <= 0:
            continue
        rank = 1.0 / value
        label = POLICY_LABELS.get(policy, policy)
        text = (f"{label}: E[RR] = {value:.4f} (≙ rank {rank:.2f})" if policy == "expected"
                else f"{label}: RR = {value:.4f} (rank {rank:.0f})")
        fig.add_trace(policy_mark(policy, rank, top, text, width=2))
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), bargap=0.15,
        xaxis=dict(title="rank of the first relevant document", tickmode="auto"),
        yaxis=dict(title="probability over tie orderings", range=[0, top * 1.07]),
        margin=dict(t=60 if title else 30, b=40))
    if len(pmf) and len(pmf) <= 25:
        fig.update_xaxes(tickmode="array", tickvals=pmf["rank"].tolist())
    return finish(fig)


def range_figure(ranges: pd.DataFrame, metric: str, *, title: str | None = None,
                 label_column: str | None = None) -> go.Figure:
    """One horizontal bar per query from worst to best, the expectation and trec_eval marked.

    ``ranges``: columns query, worst, best, expected, trec_eval (as
    :func:`tiedrank.dashboard.spread.query_ranges`, already sorted: the first row is drawn on top).
    """
    labels = list(plotly_texts(ranges[label_column] if label_column else ranges["query"]))
    hover_text = list(plotly_texts(ranges["text"])) if "text" in ranges else [""] * len(ranges)
    worst = ranges["worst"].to_numpy(dtype=float)
    best = ranges["best"].to_numpy(dtype=float)
    fig = go.Figure()
    fig.add_trace(go.Bar(
        y=labels, x=best - worst, base=worst, orientation="h", name="range (worst to best)",
        marker_color=RANGE_COLOR, customdata=np.column_stack([worst, best, hover_text]),
        hovertemplate="%{y}<br>%{customdata[2]}<br>worst %{customdata[0]:.4f}, best "
                      "%{customdata[1]:.4f}<extra></extra>"))
    for policy, column, size in ((WORST_CASE, "worst", 9), (BEST_CASE, "best", 9),
                                 ("trec_eval", "trec_eval", 11), ("expected", "expected", 10)):
        fig.add_trace(go.Scatter(
            y=labels, x=ranges[column], mode="markers", name=POLICY_LABELS[policy],
            marker=dict(color=POLICY_COLORS[policy], symbol=POLICY_SYMBOLS[policy], size=size,
                        line=dict(width=1 if policy == "expected" else 0, color="white")),
            hovertemplate=f"%{{y}}<br>{POLICY_LABELS[policy]}: %{{x:.4f}}<extra></extra>"))
    height = max(320, 26 * len(ranges) + 140)
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), height=height, barmode="overlay",
        xaxis=dict(title=metric, rangemode="tozero"),
        yaxis=dict(title="query (widest range on top)", autorange="reversed", type="category"),
        margin=dict(t=70 if title else 40))
    return finish(fig)


def sample_histogram(draws: Sequence[float] | np.ndarray, marks: Mapping[str, float], metric: str,
                     *, title: str | None = None, caption: str | None = None,
                     bins: int = 40) -> go.Figure:
    """Histogram of a run's mean metric over random tie-breaks, reported values as lines.

    ``marks``: policy -> value (typically ``trec_eval`` and ``expected``; the best and worst
    cases are drawn too when given). ``caption`` is written under the title.
    """
    draws = np.asarray(draws, dtype=float)
    draws = draws[np.isfinite(draws)]
    fig = go.Figure()
    if len(draws):
        low, high = float(draws.min()), float(draws.max())
        if high - low < 1e-12:  # every draw equal: one narrow bar
            low, high = low - 5e-4, high + 5e-4
        counts, edges = np.histogram(draws, bins=bins, range=(low, high))
    else:
        counts, edges = np.zeros(1, dtype=int), np.array([0.0, 1.0])
    centers = (edges[:-1] + edges[1:]) / 2
    fig.add_trace(go.Bar(
        x=centers, y=counts, width=float(edges[1] - edges[0]), name=f"{len(draws):,} random tie-breaks",
        marker=dict(color=POLICY_COLORS["random"], line=dict(color="white", width=0.5)), opacity=0.8,
        customdata=np.column_stack([edges[:-1], edges[1:]]),
        hovertemplate=f"mean {metric} in [%{{customdata[0]:.4f}}, %{{customdata[1]:.4f}})<br>"
                      "%{y} draws<extra></extra>"))
    top = max(float(counts.max()), 1.0) * 1.12
    for policy in (WORST_CASE, BEST_CASE, "trec_eval", "expected"):
        value = marks.get(policy)
        if value is None or not np.isfinite(value):
            continue
        label = f"{POLICY_LABELS[policy]}: {value:.4f}"
        fig.add_trace(policy_mark(policy, value, top, label, width=2.5))
    full_title = title = title and plotly_text(title)
    if caption:
        caption = plotly_text(caption)
        full_title = (f"{title}<br><sup>{caption}</sup>" if title else f"<sup>{caption}</sup>")
    fig.update_layout(
        template=TEMPLATE, title=full_title, bargap=0,
        xaxis=dict(title=f"mean {metric} over the run's queries"),
        yaxis=dict(title="number of draws", range=[0, top * 1.06]),
        margin=dict(t=80 if full_title else 30))
    return finish(fig)
