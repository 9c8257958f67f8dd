"""Figures of the TsRR page: the alpha sweep and the two pathologies of TsRR.

* :func:`sweep_figure` — mean TsRR of each run against alpha (log axis), with MRR in
  trec_eval's order, E[RR] and TsRR2 as horizontal reference lines in the run's colour;
* :func:`fully_tied_figure` — a fully tied list: TsRR is 0 at every alpha;
* :func:`appended_figure` — irrelevant documents appended at the bottom raise TsRR.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.colors
import plotly.graph_objects as go

from . import plotly_text
from .style import POLICY_COLORS, TEMPLATE, finish

RUN_COLORS = tuple(plotly.colors.qualitative.Safe)
"""Colours of runs (colour-blind safe; style.py has none for runs)."""
REFERENCE_DASH = {"MRR (trec_eval order)": "dot", "E[RR]": "dash", "TsRR2": "dashdot"}
METRIC_COLORS = {"TsRR": "#e66101", "TsRR2": "#5e3c99", "E[RR]": POLICY_COLORS["expected"],
                 "RR (trec_eval order)": POLICY_COLORS["trec_eval"]}
"""Colours of the metrics in the pathology figures (E[RR] and trec_eval as their policies)."""


def run_color(index: int) -> str:
    return RUN_COLORS[index % len(RUN_COLORS)]


def sweep_figure(sweep: pd.DataFrame, references: pd.DataFrame | None = None, *,
                 title: str | None = None, marked_alpha: float | None = None) -> go.Figure:
    """Mean TsRR per run against alpha (log x axis), reference lines per run.

    Parameters
    ----------
    sweep : DataFrame
        Columns run, alpha, value (:func:`tiedrank.evaluation.tsrr_sweep`).
    references : DataFrame, optional
        Columns run, reference, value (:func:`tiedrank.dashboard.tsrr.sweep_references`), drawn as
        horizontal lines across the alpha range in the run's colour.
    marked_alpha : float, optional
        Draw a vertical guide at this alpha (the per-query table's alpha).
    """
    fig = go.Figure()
    runs = list(dict.fromkeys(sweep["run"].astype(str)))
    lo, hi = float(sweep["alpha"].min()), float(sweep["alpha"].max())
    for i, run in enumerate(runs):
        color = run_color(i)
        block = sweep[sweep["run"].astype(str) == run]
        shown = plotly_text(run)
        fig.add_trace(go.Scatter(
            x=block["alpha"], y=block["value"], mode="lines", name=f"{shown}: TsRR",
            legendgroup=shown, line=dict(color=color, width=2.5),
            hovertemplate=f"{shown}<br>alpha %{{x:.3g}}<br>mean TsRR %{{y:.4f}}<extra></extra>"))
        if references is None:
            continue
        for _, ref in references[references["run"].astype(str) == run].iterrows():
            label = f"{shown}: {ref['reference']} = {ref['value']:.4f}"
            fig.add_trace(go.Scatter(
                x=[lo, hi], y=[ref["value"]] * 2, mode="lines", name=label, legendgroup=shown,
                showlegend=False,  # the style key below explains the dashes; hover gives values
                line=dict(color=color, width=1.3, dash=REFERENCE_DASH.get(ref["reference"], "dash")),
                hovertemplate=label + "<extra></extra>"))
    if references is not None and len(references):
        for reference, dash in REFERENCE_DASH.items():  # legend key of the line styles
            fig.add_trace(go.Scatter(
                x=[None], y=[None], mode="lines", name=f"{reference} (run's colour)",
                legendgroup="_key", legendgrouptitle_text="reference lines",
                line=dict(color="#555555", width=1.3, dash=dash), hoverinfo="skip"))
    if marked_alpha is not None:
        fig.add_vline(x=marked_alpha, line=dict(color="#888888", width=1, dash="dot"),
                      annotation_text=f"alpha = {marked_alpha:.3g}", annotation_position="top")
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), height=560,
        xaxis=dict(title="alpha (log scale; larger is harsher on ties)", type="log"),
        yaxis=dict(title="mean over queries", range=[-0.02, 1.03]),
        legend=dict(groupclick="togglegroup", font=dict(size=11)),
        margin=dict(t=60 if title else 30))
    return finish(fig)


def fully_tied_figure(example: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Pathology 1: TsRR, E[RR] and TsRR2 of a fully tied list against alpha (log axis).

    ``example``: columns alpha, TsRR, E[RR], TsRR2 (:func:`tiedrank.dashboard.tsrr.fully_tied_example`).
    """
    fig = go.Figure()
    for column in ("E[RR]", "TsRR2", "TsRR"):
        fig.add_trace(go.Scatter(
            x=example["alpha"], y=example[column], mode="lines", name=column,
            line=dict(color=METRIC_COLORS[column], width=3 if column == "TsRR" else 2,
                      dash="solid" if column == "TsRR" else "dash"),
            hovertemplate=f"{column}<br>alpha %{{x:.3g}}<br>%{{y:.4f}}<extra></extra>"))
    top = float(np.nanmax(example[["E[RR]", "TsRR2", "TsRR"]].to_numpy())) if len(example) else 1.0
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), height=440,
        xaxis=dict(title="alpha (log scale)", type="log"),
        yaxis=dict(title="value", range=[-0.03, max(top, 0.1) * 1.15]),
        margin=dict(t=50 if title else 20, b=40))
    return finish(fig)


def appended_figure(example: pd.DataFrame, *, current: int | None = None,
                    title: str | None = None) -> go.Figure:
    """Pathology 2: the metrics against the number of irrelevant documents appended below.

    ``example``: columns appended, ``TsRR(alpha=...)``, E[RR], TsRR2, RR (trec_eval order)
    (:func:`tiedrank.dashboard.tsrr.appended_example`); ``current`` marks the chosen count.
    """
    tsrr_column = next(c for c in example.columns if c.startswith("TsRR("))
    fig = go.Figure()
    for column in ("E[RR]", "RR (trec_eval order)", "TsRR2", tsrr_column):
        key = "TsRR" if column == tsrr_column else column
        fig.add_trace(go.Scatter(
            x=example["appended"], y=example[column], mode="lines", name=column,
            line=dict(color=METRIC_COLORS[key], width=3 if key == "TsRR" else 2,
                      dash="solid" if key in ("TsRR", "TsRR2") else "dash"),
            hovertemplate=f"{column}<br>%{{x}} appended<br>%{{y:.4f}}<extra></extra>"))
    if current is not None and current in set(example["appended"]):
        row = example[example["appended"] == current].iloc[0]
        fig.add_trace(go.Scatter(
            x=[current], y=[row[tsrr_column]], mode="markers+text", name=f"{current} appended",
            marker=dict(color=METRIC_COLORS["TsRR"], size=13, line=dict(color="white", width=1.5)),
            text=[f"{row[tsrr_column]:.4f}"], textposition="bottom right", showlegend=False,
            hovertemplate=f"{current} appended: {tsrr_column} %{{y:.4f}}<extra></extra>"))
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), height=440,
        xaxis=dict(title="irrelevant documents appended below"),
        yaxis=dict(title="value", rangemode="tozero"),
        margin=dict(t=50 if title else 20, b=40))
    return finish(fig)
