"""Figures of the overview page: each run's metric range over tie orderings."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import plotly_text, plotly_texts
from .style import POLICY_COLORS, POLICY_LABELS, POLICY_SYMBOLS, TEMPLATE, finish

# report column -> engine policy name (for colours, symbols and labels)
_REPORT_POLICIES = (("worst", "pessimistic"), ("best", "optimistic"),
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



# ---- figures for papers: the precision-recall band and the checkpoint curve ----------------
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
