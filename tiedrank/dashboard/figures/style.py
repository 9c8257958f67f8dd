"""Colours and labels shared by every figure, so a grade or a policy looks the same everywhere."""
from __future__ import annotations

import plotly.graph_objects as go

from ...policies import POLICY_LABELS  # noqa: F401  (figures label policies as everywhere else)

GRADE_COLORS = {  # colour-blind safe, light to dark with the grade
    -1: "#bdbdbd", 0: "#d9d9d9", 1: "#9ecae1", 2: "#3182bd", 3: "#08519c", 4: "#08306b",
}
UNJUDGED_COLOR = "#f0f0f0"
POLICY_COLORS = {
    "expected": "#222222", "optimistic": "#1a9850", "pessimistic": "#d73027",
    "trec_eval": "#7b3294", "input": "#fdae61", "random": "#999999",
}
POLICY_SYMBOLS = {"expected": "circle", "optimistic": "triangle-up", "pessimistic": "triangle-down",
                  "trec_eval": "x", "input": "square", "random": "diamond"}
POLICY_DASH = {"expected": "solid", "optimistic": "dash", "pessimistic": "dash", "trec_eval": "dot",
               "input": "dashdot", "random": "dot"}
TEMPLATE = "plotly_white"


def policy_mark(policy: str, x: float, top: float, label: str, width: float = 2.5) -> go.Scatter:
    """A vertical line from 0 to ``top`` at ``x``, in the policy's colour, dash and symbol
    (the symbol sits at the top), named ``label`` in the legend and the hover."""
    return go.Scatter(
        x=[x, x], y=[0, top], mode="lines+markers", name=label,
        line=dict(color=POLICY_COLORS[policy], dash=POLICY_DASH[policy], width=width),
        marker=dict(symbol=POLICY_SYMBOLS[policy], size=[0, 12], color=POLICY_COLORS[policy]),
        hovertemplate=label + "<extra></extra>")


def grade_color(grade: int | None) -> str:
    """Colour of a grade (``None`` for an unjudged document)."""
    if grade is None:
        return UNJUDGED_COLOR
    return GRADE_COLORS.get(int(grade), GRADE_COLORS[4] if grade > 4 else GRADE_COLORS[-1])
