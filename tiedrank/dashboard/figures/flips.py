"""Heatmap of the verdict-flip matrix (:func:`tiedrank.dashboard.flips.flip_matrix`)."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from . import plotly_texts
from .style import TEMPLATE, finish


def flip_heatmap(flips: pd.DataFrame) -> go.Figure:
    """Rows: run pairs; columns: metrics; colour: P(a random tie-break reverses the expected
    order); a ✕ marks a pair whose order differs between the expectation and trec_eval."""
    flips = flips.assign(pair=plotly_texts(flips["run_a"] + " vs " + flips["run_b"]))
    pairs = list(dict.fromkeys(flips["pair"]))
    metrics = list(dict.fromkeys(flips["metric"]))
    grid = flips.pivot(index="pair", columns="metric", values="p_flip").reindex(index=pairs, columns=metrics)
    marks = flips.pivot(index="pair", columns="metric", values="flips_trec_eval").reindex(
        index=pairs, columns=metrics)
    win = flips.pivot(index="pair", columns="metric", values="p_win").reindex(index=pairs, columns=metrics)
    text = [[f"{p:.2f}" + (" ✕" if m else "") for p, m in zip(prow, mrow)]
            for prow, mrow in zip(grid.to_numpy(), marks.to_numpy())]
    fig = go.Figure(go.Heatmap(
        z=grid.to_numpy(), x=metrics, y=pairs, zmin=0, zmax=0.5, colorscale="OrRd",
        text=text, texttemplate="%{text}", customdata=win.to_numpy(),
        colorbar={"title": "P(flip)"},
        hovertemplate="%{y}, %{x}<br>P(flip under random tie-breaks) %{z:.3f}<br>"
                      "P(first run wins) %{customdata:.3f}<extra></extra>"))
    fig.update_layout(template=TEMPLATE, height=max(260, 28 * len(pairs) + 120),
                      yaxis={"autorange": "reversed"},
                      title="Verdict flips: random tie-breaks (colour) and trec_eval's order (✕)")
    return finish(fig)
