"""Figure of the "Two runs, one query" page: a slope chart from run A's rank spans to run B's.

Input: :func:`tiedrank.dashboard.side_by_side.group_flows`.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import plotly_text
from .style import TEMPLATE, finish, grade_color, title_margin, wrap_title

_SPAN_COLOR = "#bdbdbd"
_SPAN_COLORS = ("#bdbdbd", "#8f8f8f")
_X_A, _X_B = 0.0, 1.0


def _middle(first: float, last: float, missing: float) -> float:
    return missing if math.isnan(first) else (first + last) / 2


def _spans(flows: pd.DataFrame, side: str) -> pd.DataFrame:
    spans = flows[[f"{side}_first", f"{side}_last", "n"]].dropna()
    return spans.groupby([f"{side}_first", f"{side}_last"], as_index=False)["n"].sum().sort_values(
        f"{side}_first", kind="stable")


def _add_spans(fig: go.Figure, flows: pd.DataFrame) -> None:
    """A grey bar on each side per tie group: its rank span (neighbours alternate two greys)."""
    for side, x in (("a", _X_A), ("b", _X_B)):
        spans = _spans(flows, side)
        for parity in (0, 1):  # neighbouring groups alternate two greys, so they stand apart
            xs, ys, hover = [], [], []
            for first, last, n in spans.iloc[parity::2].itertuples(index=False):
                xs += [x, x, None]
                ys += [first - 0.45, last + 0.45, None]
                label = f"ranks {int(first)}" + ("" if first == last else f"-{int(last)}")
                hover += [f"{label}: {int(n)} document{'s' if n != 1 else ''} shown"] * 2 + [None]
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=_SPAN_COLORS[parity], width=14),
                                     text=hover, hovertemplate="%{text}<extra></extra>", showlegend=False))


def _where(first: float, last: float) -> str:
    return "not retrieved" if math.isnan(first) else f"ranks {int(first)}-{int(last)}"


def _add_lines(fig: go.Figure, flows: pd.DataFrame, run_a: str, run_b: str, missing: float) -> None:
    """A line per (group in A, group in B, grade), coloured by the grade, as thick as its documents."""
    seen: set[int] = set()
    biggest = float(flows["n"].max()) if len(flows) else 1.0
    order = np.argsort(flows["grade"].to_numpy(), kind="stable") if len(flows) else []
    for row in flows.iloc[order].itertuples(index=False):
        grade = int(row.grade)
        y_a = _middle(row.a_first, row.a_last, missing)
        y_b = _middle(row.b_first, row.b_last, missing)
        hover = (f"{int(row.n)} document{'s' if row.n != 1 else ''} of grade {grade}: {plotly_text(row.docs)}"
                 f"<br>{run_a}: {_where(row.a_first, row.a_last)}<br>{run_b}: {_where(row.b_first, row.b_last)}")
        fig.add_trace(go.Scatter(
            x=[_X_A + 0.03, _X_B - 0.03], y=[y_a, y_b], mode="lines+markers",
            line=dict(color=grade_color(grade), width=1.5 + 6 * math.sqrt(row.n / biggest)),
            marker=dict(size=5, color=grade_color(grade)), opacity=0.9,
            name=f"grade {grade}", legendgroup=f"grade {grade}", showlegend=grade not in seen,
            hovertemplate=hover + "<extra></extra>"))
        seen.add(grade)


def slope_figure(flows: pd.DataFrame, run_a: str, run_b: str, *, top: int,
                 title: str | None = None) -> go.Figure:
    """Each document's place in run A (left) joined to its place in run B (right), for the
    documents of either run's ``top`` ranks.

    A grey bar on each side is a tie group's rank span (any order inside it is equally
    likely); a line joins the middles of the two spans of a document, coloured by its
    grade and as thick as the number of documents sharing that pair of groups and grade.
    Documents a run does not return sit on a "not retrieved" row at the bottom.
    """
    fig = go.Figure()
    run_a, run_b = plotly_text(run_a), plotly_text(run_b)
    deepest = max([top, *flows[["a_last", "b_last"]].max(skipna=True).fillna(0).tolist()]) if len(flows) else top
    missing = deepest + max(2.0, deepest * 0.06)
    _add_spans(fig, flows)
    _add_lines(fig, flows, run_a, run_b, missing)
    has_missing = len(flows) and bool(flows[["a_first", "b_first"]].isna().to_numpy().any())
    if has_missing:
        fig.add_hline(y=missing, line=dict(color=_SPAN_COLOR, dash="dot", width=1))
    # a long query text would run off a narrow chart: the title wraps
    wrapped = wrap_title(plotly_text(title) if title else f"Where each run puts the documents of its top {top} ranks")
    ticks = [1, *[t for t in _ticks(deepest) if t != 1]]
    fig.update_layout(
        template=TEMPLATE, height=max(420, min(1100, 14 * deepest + 120)),
        title=wrapped,
        xaxis=dict(tickvals=[_X_A, _X_B], ticktext=[f"A: {run_a}", f"B: {run_b}"],
                   range=[-0.25, 1.25], showgrid=False, zeroline=False),
        yaxis=dict(title="rank (a grey bar is a tie group's span)", autorange=False,
                   range=[missing + 1.5, 0], zeroline=False, tickmode="array",
                   tickvals=ticks + ([missing] if has_missing else []),
                   ticktext=[str(t) for t in ticks] + (["not retrieved"] if has_missing else [])),
        margin=dict(l=10, r=10, t=title_margin(wrapped, 26), b=40))
    return finish(fig)


def _ticks(deepest: float) -> list[int]:
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 10**9) if deepest / s <= 12)
    return list(range(step, int(deepest) + 1, step))
