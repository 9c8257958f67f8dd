"""Figures of the Compare page: is a run better than the baseline, and does it survive the tie-break?

* :func:`interval_figure` — each run's mean difference to the baseline with its bootstrap
  interval, coloured by significance;
* :func:`difference_figure` — per-query differences run minus baseline, sorted;
* :func:`stability_figure` — the difference of the two runs' means over random
  tie-breaks, each fixed policy's difference marked;
* :func:`ranking_figure` — each run's rank under each tie policy (a slope chart);
* :func:`group_figure` — run minus baseline per query group (a heatmap).

Colours come from :mod:`tiedrank.dashboard.figures.style`: a win is the best-case green, a loss the
worst-case red, a tie or a non-significant difference grey.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import plotly_text, plotly_texts
from .style import GRADE_COLORS, POLICY_COLORS, POLICY_LABELS, TEMPLATE, finish, policy_mark
from ..labels import BEST_CASE, WORST_CASE

WIN_COLOR = POLICY_COLORS[BEST_CASE]
LOSS_COLOR = POLICY_COLORS[WORST_CASE]
TIE_COLOR = POLICY_COLORS["random"]
BASELINE_COLOR = POLICY_COLORS["expected"]
CHOSEN_COLOR = GRADE_COLORS[2]
OTHER_COLOR = GRADE_COLORS[-1]
OUTCOME_COLORS = {"win": WIN_COLOR, "tie": TIE_COLOR, "loss": LOSS_COLOR}
STABILITY_MARK_COLORS = {BEST_CASE: "#2166ac", WORST_CASE: "#555555"}
"""The best- and worst-case marks of the verdict-stability histogram: not the policies' usual
green and red, which that figure uses for "run ahead" and "baseline ahead"."""


def interval_figure(intervals: pd.DataFrame, metric: str, baseline: str, *,
                    highlight: str | None = None, confidence: float = 0.95) -> go.Figure:
    """Mean difference run - baseline with its bootstrap interval, one row per run.

    ``intervals``: :func:`tiedrank.dashboard.compare.baseline_intervals` (run, diff, ci_low,
    ci_high, p_corrected, significant). Significant wins green, significant losses red,
    the rest grey; ``highlight`` (a run) gets a bold label.
    """
    rows = intervals.sort_values("diff", kind="stable")
    baseline = plotly_text(baseline)
    labels = [f"<b>{plotly_text(r)}</b>" if r == highlight else plotly_text(r) for r in rows["run"]]
    colors = [WIN_COLOR if s and d > 0 else LOSS_COLOR if s and d < 0 else TIE_COLOR
              for s, d in zip(rows["significant"], rows["diff"])]
    fig = go.Figure()
    fig.add_vline(x=0, line=dict(color=BASELINE_COLOR, width=1))
    fig.add_trace(go.Scatter(
        x=rows["diff"], y=labels, mode="markers", name="mean difference", showlegend=False,
        marker=dict(color=colors, size=11, symbol="circle", line=dict(width=1, color="white")),
        error_x=dict(type="data", symmetric=False, array=(rows["ci_high"] - rows["diff"]).to_numpy(),
                     arrayminus=(rows["diff"] - rows["ci_low"]).to_numpy(), color="#666666", thickness=1.5),
        customdata=np.column_stack([plotly_texts(rows["run"]), rows["ci_low"], rows["ci_high"], rows["p_corrected"],
                                    np.where(rows["significant"], "significant", "not significant")]),
        hovertemplate=("%{customdata[0]} − " + baseline + ": %{x:.4f}<br>interval [%{customdata[1]:.4f}, "
                       "%{customdata[2]:.4f}]<br>corrected p %{customdata[3]:.3g} (%{customdata[4]})"
                       "<extra></extra>")))
    for name, color in (("significantly better", WIN_COLOR), ("significantly worse", LOSS_COLOR),
                        ("not significant", TIE_COLOR)):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                 marker=dict(color=color, size=10), hoverinfo="skip"))
    fig.update_layout(
        template=TEMPLATE, height=max(260, 90 + 34 * len(rows)),
        title=f"{metric}: each run minus the baseline {baseline}",
        xaxis_title=f"mean difference in {metric} (run − baseline); bars: {confidence:.0%} bootstrap interval",
        yaxis_title=None,
        margin=dict(l=10, r=10, t=50, b=40))
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=labels)
    return finish(fig)


def difference_figure(differences: pd.DataFrame, run: str, baseline: str, metric: str,
                      policy: str = "expected") -> go.Figure:
    """Per-query bars of run - baseline, largest first; wins green, losses red, ties grey.

    ``differences``: :func:`tiedrank.dashboard.compare.query_differences` (query, text, run,
    baseline, diff, outcome), already sorted.
    """
    fig = go.Figure()
    run, baseline = plotly_text(run), plotly_text(baseline)
    counts = differences["outcome"].value_counts()
    for outcome, label in (("win", f"{run} better"), ("tie", "equal"), ("loss", f"{baseline} better")):
        block = differences[differences["outcome"] == outcome]
        if block.empty:
            continue
        shown = block["diff"].where(block["diff"] != 0, 0.0)
        fig.add_trace(go.Bar(
            x=plotly_texts(block["query"]), y=shown, name=f"{label} ({int(counts.get(outcome, 0))})",
            marker_color=OUTCOME_COLORS[outcome],
            customdata=np.column_stack([plotly_texts(block["text"]), block["run"], block["baseline"]]),
            hovertemplate=("query %{x}<br>%{customdata[0]}<br>" + f"{run}: " + "%{customdata[1]:.4f}<br>"
                           + f"{baseline}: " + "%{customdata[2]:.4f}<br>difference %{y:.4f}<extra></extra>")))
    ties = differences[differences["outcome"] == "tie"]
    if len(ties):  # zero-height bars are invisible: mark the ties on the axis
        fig.add_trace(go.Scatter(x=plotly_texts(ties["query"]), y=np.zeros(len(ties)), mode="markers",
                                 marker=dict(color=TIE_COLOR, symbol="line-ew-open", size=12,
                                             line=dict(width=2, color=TIE_COLOR)),
                                 showlegend=False, hoverinfo="skip"))
    fig.add_hline(y=0, line=dict(color=BASELINE_COLOR, width=1))
    fig.update_layout(
        template=TEMPLATE, barmode="overlay", bargap=0.15, height=380,
        title=f"{metric} per query: {run} minus {baseline} ({policy} policy), largest first",
        xaxis=dict(title="query", type="category", categoryorder="array",
                   categoryarray=list(plotly_texts(differences["query"]))),
        yaxis=dict(title=f"{metric} difference (run − baseline)", zeroline=True),
        margin=dict(l=10, r=10, t=50, b=40))
    return finish(fig)


def stability_figure(draws: pd.DataFrame, verdicts: pd.DataFrame, run: str, baseline: str,
                     metric: str, *, bins: int = 40) -> go.Figure:
    """Histogram of mean(run) - mean(baseline) over random tie-breaks of both runs (wins
    green, losses red), with the difference under each fixed policy as a vertical line.

    ``draws``: DataFrame with a ``diff`` column; ``verdicts``: policy, diff (as
    :class:`tiedrank.dashboard.compare.Stability`).
    """
    diff = draws["diff"].to_numpy(dtype=float)
    diff = diff[np.isfinite(diff)]
    marks = {str(p): float(d) for p, d in zip(verdicts["policy"], verdicts["diff"])}
    run, baseline = plotly_text(run), plotly_text(baseline)
    fig = go.Figure()
    if len(diff):
        low, high = float(diff.min()), float(diff.max())
        span = max(high - low, abs(high), abs(low), 1e-3)
        width = span / bins
        # bins centred on multiples of the width, so that one bin is centred on 0: "about equal"
        first, last = int(np.floor(low / width + 0.5)), int(np.floor(high / width + 0.5))
        edges = (np.arange(first, last + 2) - 0.5) * width
        counts, edges = np.histogram(diff, bins=edges)
    else:
        width, counts, edges = 1.0, np.zeros(1, dtype=int), np.array([-0.5, 0.5])
    centers = (edges[:-1] + edges[1:]) / 2
    sign = np.where(centers > width / 4, "win", np.where(centers < -width / 4, "loss", "tie"))
    names = {"win": f"{run} ahead", "tie": f"within ±{width / 2:.2g} of 0", "loss": f"{baseline} ahead"}
    for outcome in ("win", "tie", "loss"):
        mask = (sign == outcome) & (counts > 0)
        if not mask.any():
            continue
        fig.add_trace(go.Bar(
            x=centers[mask], y=counts[mask], width=width, name=f"random tie-breaks: {names[outcome]}",
            marker=dict(color=OUTCOME_COLORS[outcome], line=dict(color="white", width=0.5)), opacity=0.55,
            customdata=np.column_stack([edges[:-1][mask], edges[1:][mask]]),
            hovertemplate="difference in [%{customdata[0]:.4f}, %{customdata[1]:.4f})<br>"
                          "%{y} draws<extra></extra>"))
    finite_marks = [v for v in marks.values() if np.isfinite(v)]
    x_low = min([float(edges[0]), *finite_marks, 0.0])
    x_high = max([float(edges[-1]), *finite_marks, 0.0])
    pad = 0.05 * (x_high - x_low or 1.0)
    top = max(float(counts.max()), 1.0) * 1.12
    fig.add_vline(x=0, line=dict(color="#666666", width=1))
    for policy in (WORST_CASE, BEST_CASE, "trec_eval", "expected", "input"):
        value = marks.get(policy)
        if value is None or not np.isfinite(value):
            continue
        label = f"{POLICY_LABELS[policy]}: {value:+.4f}"
        mark = policy_mark(policy, value, top, label, width=2.5)
        if policy in STABILITY_MARK_COLORS:  # green/red mean "run ahead"/"baseline ahead" here
            mark.line.color = mark.marker.color = STABILITY_MARK_COLORS[policy]
        fig.add_trace(mark)
    fig.update_layout(
        template=TEMPLATE, bargap=0, barmode="overlay", height=420,
        title=f"{metric}: mean of {run} minus mean of {baseline} under {len(diff):,} random tie-breaks",
        xaxis=dict(title=f"difference of the mean {metric} (run − baseline)", range=[x_low - pad, x_high + pad]),
        yaxis=dict(title="number of draws", range=[0, top * 1.06]),
        margin=dict(l=10, r=10, t=50, b=40))
    return finish(fig)


def ranking_figure(ranking: pd.DataFrame, policies: Sequence[str], metric: str, *,
                   baseline: str | None = None, highlight: str | None = None) -> go.Figure:
    """Slope chart: each run's rank (1 on top) under each tie policy.

    ``ranking``: :func:`tiedrank.dashboard.compare.ranking_table` (run, ``rank <policy>``...).
    The baseline is drawn black, ``highlight`` blue, the other runs grey.
    """
    x = [POLICY_LABELS.get(p, p) for p in policies]
    fig = go.Figure()
    n = len(ranking)
    rank_columns = [f"rank {p}" for p in policies]
    runs = sorted(ranking["run"], key=lambda r: (r == baseline) + 2 * (r == highlight))  # highlighted on top
    by_run = ranking.set_index("run")
    for run in runs:
        ranks = by_run.loc[run, rank_columns].to_numpy(dtype=float)
        special = run in (baseline, highlight)
        color = BASELINE_COLOR if run == baseline else CHOSEN_COLOR if run == highlight else OTHER_COLOR
        label = plotly_text(f"{run} (baseline)" if run == baseline else run)
        fig.add_trace(go.Scatter(
            x=x, y=ranks, mode="lines+markers+text", name=label,
            line=dict(color=color, width=3.5 if special else 1.5),
            marker=dict(color=color, size=10 if special else 7),
            text=[""] * (len(x) - 1) + [f"  {label}"], textposition="middle right",
            textfont=dict(color=color if special else "#777777", size=12 if special else 11),
            hovertemplate=f"{plotly_text(run)}<br>%{{x}}: rank %{{y:g}}<extra></extra>",
            showlegend=False))
    fig.update_layout(
        template=TEMPLATE, height=max(300, 70 + 40 * n),
        title=f"{metric}: rank of each run under each tie policy",
        xaxis=dict(title=None, range=[-0.3, len(x) - 1 + 1.7]),
        yaxis=dict(title="rank (1 = best)", autorange="reversed", dtick=1, range=[n + 0.5, 0.5]),
        margin=dict(l=10, r=10, t=50, b=30))
    fig.update_yaxes(autorange=False, range=[n + 0.5, 0.5])
    return finish(fig)


def group_figure(differences: pd.DataFrame, metric: str, baseline: str) -> go.Figure:
    """Heatmap of run - baseline per query group (green: the run is better in that group).

    ``differences``: :func:`tiedrank.dashboard.compare.group_differences` (run, group, diff,
    n_queries).
    """
    runs = list(dict.fromkeys(differences["run"]))
    groups = list(dict.fromkeys(differences["group"]))
    counts = differences.groupby("group", sort=False)["n_queries"].max()
    z = differences.pivot_table(index="run", columns="group", values="diff", aggfunc="first", sort=False)
    z = z.reindex(index=runs, columns=groups)
    top = float(np.nanmax(np.abs(z.to_numpy()))) if z.notna().any().any() else 1.0
    top = top if top > 0 else 1.0
    columns = [f"{plotly_text(g)} ({int(counts[g])} q)" for g in groups]
    fig = go.Figure(go.Heatmap(
        z=z.to_numpy(), x=columns, y=list(plotly_texts(runs)), zmin=-top, zmax=top, zmid=0,
        colorscale=[[0.0, LOSS_COLOR], [0.5, "#f7f7f7"], [1.0, WIN_COLOR]],
        text=[[("" if not np.isfinite(v) else f"{v:+.3f}") for v in row] for row in z.to_numpy()],
        texttemplate="%{text}", colorbar=dict(title="run − baseline"),
        hovertemplate="%{y} in %{x}<br>difference %{z:.4f}<extra></extra>"))
    fig.update_layout(
        template=TEMPLATE, height=max(260, 90 + 34 * len(runs)),
        title=f"{metric} per query group: each run minus {plotly_text(baseline)}",
        xaxis=dict(title=None, side="bottom"), yaxis=dict(title=None, autorange="reversed"),
        margin=dict(l=10, r=10, t=50, b=40))
    return finish(fig)
