"""Figure of the Judge agreement page: a run's confusion matrix, qrels grade against label.

:func:`confusion_heatmap` draws :func:`tiedrank.dashboard.agreement.confusion_grid`: one
row per grade, one column per label, the diagonal (label = grade) outlined.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import plotly_text
from .style import FILL_TEXT, TEMPLATE, finish


def confusion_heatmap(counts: pd.DataFrame, *, share: pd.DataFrame | None = None,
                      title: str | None = None) -> go.Figure:
    """Heatmap of a confusion matrix: grades (rows, top to bottom) against labels (columns).

    Parameters
    ----------
    counts : DataFrame
        Counts, index the grades, columns the labels (``confusion_grid(..., share=False)``).
    share : DataFrame, optional
        The same matrix as fractions of each grade's documents; when given it sets the
        colour (so rare grades are as readable as common ones) and the cell text shows both.
    """
    z = (share if share is not None else counts).to_numpy(dtype=np.float64)
    grades = [f"grade {g}" for g in counts.index]
    labels = [f"label {plotly_text(lab)}" for lab in counts.columns]
    values = counts.to_numpy()
    if share is not None:
        text = [[f"{c:,}<br>{s:.0%}" if np.isfinite(s) else f"{c:,}" for c, s in zip(crow, srow)]
                for crow, srow in zip(values, z)]
        hover = "%{y}, %{x}<br>%{customdata:,} documents<br>%{z:.1%} of the grade<extra></extra>"
        colorbar = {"title": "share of grade", "tickformat": ".0%"}
    else:
        text = [[f"{c:,}" for c in row] for row in values]
        hover = "%{y}, %{x}<br>%{customdata:,} documents<extra></extra>"
        colorbar = {"title": "documents"}
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=grades, text=text, texttemplate="%{text}", customdata=values,
        textfont={"color": FILL_TEXT}, colorscale="Blues", zmin=0, colorbar=colorbar,
        hovertemplate=hover, xgap=1, ygap=1))
    for i, grade in enumerate(counts.index):  # outline the diagonal: label equals grade
        if grade in counts.columns:
            j = list(counts.columns).index(grade)
            fig.add_shape(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5,
                          line={"color": "#222222", "width": 2})
    size = max(len(grades), len(labels))
    fig.update_layout(
        template=TEMPLATE, title=title and plotly_text(title), height=max(320, 70 * size + 140),
        xaxis={"title": "the run's label", "side": "bottom"},
        yaxis={"title": "qrels grade", "autorange": "reversed"},
        margin={"t": 60 if title else 20, "b": 40})
    return finish(fig)
