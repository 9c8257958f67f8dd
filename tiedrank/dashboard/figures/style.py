"""Colours, labels and the common layout of every figure, so a grade or a policy looks the
same everywhere and no legend ever sits on a title.

Every builder in this package returns ``finish(fig)``: the legend goes in one horizontal row
(wrapping as needed) at the bottom of the figure, below the axis titles, and the title at the
top, left; plotly reserves room for both, at any width. :func:`for_theme` adapts a finished
figure's fixed ink colours to a dark page (the pages call it through
``tiedrank.dashboard.ui.show_figure``); exported PNGs keep the light figure.
"""
from __future__ import annotations

import json

import plotly.graph_objects as go

from ...core.policies import POLICY_LABELS  # noqa: F401  (figures label policies as everywhere else)
from ..labels import BEST_CASE, WORST_CASE

GRADE_COLORS = {  # colour-blind safe, light to dark with the grade
    -1: "#bdbdbd", 0: "#d9d9d9", 1: "#9ecae1", 2: "#3182bd", 3: "#08519c", 4: "#08306b",
}
UNJUDGED_COLOR = "#f0f0f0"
FILL_TEXT = "#1a1a1a"
"""Text drawn on a light fill (a grade box, a heatmap cell): stays dark on a dark page."""
POLICY_COLORS = {
    "expected": "#222222", BEST_CASE: "#1a9850", WORST_CASE: "#d73027",
    "trec_eval": "#7b3294", "input": "#fdae61", "random": "#999999",
}
POLICY_SYMBOLS = {"expected": "circle", BEST_CASE: "triangle-up", WORST_CASE: "triangle-down",
                  "trec_eval": "x", "input": "square", "random": "diamond"}
POLICY_DASH = {"expected": "solid", BEST_CASE: "dash", WORST_CASE: "dash", "trec_eval": "dot",
               "input": "dashdot", "random": "dot"}
TEMPLATE = "plotly_white"
LEGEND = dict(orientation="h", xref="container", x=0.01, xanchor="left",
              yref="container", y=0.0, yanchor="bottom", title=None)
"""Where every legend goes: below the plot area, its rows counted into the bottom margin."""
TITLE = dict(xref="container", x=0.01, xanchor="left", yref="container", y=1.0, yanchor="top",
             pad=dict(t=12, b=8), automargin=True)
"""Where every title goes: the top left, its lines counted into the top margin."""
LEGEND_ROOM = 30
"""Pixels added to a figure's height for the legend row below it."""
TITLE_CHARS = 44
"""Longest line of a figure's title (:func:`finish` wraps longer ones): a plotly title never
wraps by itself, and 44 characters fit the narrowest chart of the pages (a half-width
column at 1280 px, a full-width chart at 800 px)."""
AXIS_TITLE_CHARS = 40
"""Longest line of an x axis's title, which plotly centres on the plot area of the same
narrowest chart (smaller type, a narrower plot area than the whole figure)."""
RIGHT_MARGIN = 24
"""The least right margin (px): plotly hides an x tick label that would cross the figure's
edge ("hide past div"), so the tick at the right end of an axis (100 on a 0.01-100 log
axis) needs this room to be drawn at all."""
DARK_INK = {"#222222": "#e8e8e8", "#555555": "#b0b0b0", "#888888": "#a0a0a0"}
"""Fixed ink colours of the figures and what they become on a dark page."""


def wrap_title(title: str | None, width: int = 44) -> str | None:
    """``title`` broken into lines of at most ``width`` characters at spaces (plotly's
    ``<br>``): a plotly title never wraps by itself, and a long one runs off a narrow chart.

    Examples
    --------
    >>> wrap_title("bm25: q12 — how much money has a wrinkle in time movie made", 30)
    'bm25: q12 — how much money has<br>a wrinkle in time movie made'
    >>> wrap_title("already<br>broken here", 30)
    'already<br>broken here'
    >>> wrap_title(None) is None
    True
    """
    if not title:
        return title
    lines: list[str] = []
    for given in title.split("<br>"):  # lines broken already stay broken
        start = len(lines)
        for word in given.split(" "):
            if len(lines) > start and len(lines[-1]) + 1 + len(word) <= width:
                lines[-1] += " " + word
            else:
                lines.append(word)
    return "<br>".join(lines)


def title_margin(title: str | None, base: int = 20) -> int:
    """The top margin that holds ``title`` (one 24-px line per ``<br>``-separated line).

    >>> title_margin(None), title_margin("one<br>two")
    (20, 68)
    """
    return base if not title else base + 24 * (title.count("<br>") + 1)


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


def has_legend(fig: go.Figure) -> bool:
    """Whether ``fig`` draws a legend (some trace shows one and the layout does not hide it)."""
    if fig.layout.showlegend is False:
        return False
    shown = [t for t in fig.data if t.showlegend is not False and t.type not in ("heatmap",)]
    return len(shown) >= 2 or any(t.showlegend is True for t in shown) or fig.layout.showlegend is True


def finish(fig: go.Figure) -> go.Figure:
    """The common layout: template, title top left (wrapped to :data:`TITLE_CHARS`), x axis
    titles wrapped to :data:`AXIS_TITLE_CHARS`, at least :data:`RIGHT_MARGIN` on the right,
    legend below the plot; returns ``fig``. Nothing of the figure runs off a narrow chart."""
    fig.update_layout(template=TEMPLATE)
    if fig.layout.margin.r is None or fig.layout.margin.r < RIGHT_MARGIN:
        fig.update_layout(margin_r=RIGHT_MARGIN)
    if fig.layout.title.text:
        title = wrap_title(fig.layout.title.text, TITLE_CHARS)
        fig.update_layout(title=TITLE, title_text=title)
        if "<br>" in title:  # room for every line: with less, plotly moves the lines up, off the top;
            # and the first line sits on the pad (no cap shift as for one line): a little lower
            fig.update_layout(margin_t=max(fig.layout.margin.t or 0, title_margin(title) + 6),
                              title_pad_t=TITLE["pad"]["t"] + 6)
    fig.for_each_xaxis(lambda axis: axis.update(title_text=wrap_title(axis.title.text, AXIS_TITLE_CHARS))
                       if axis.title.text else None)
    if has_legend(fig):
        fig.update_layout(legend=LEGEND)
        if fig.layout.height:
            fig.update_layout(height=fig.layout.height + LEGEND_ROOM)
    return fig


def for_theme(fig: go.Figure, dark: bool) -> go.Figure:
    """``fig`` for a dark page: a copy whose fixed ink colours (:data:`DARK_INK`) are light
    and whose background is left to Streamlit's theme; the light figure itself is unchanged."""
    if not dark:
        return fig
    text = fig.to_json()
    for light, ink in DARK_INK.items():
        text = text.replace(f'"{light}"', f'"{ink}"')
    return go.Figure(json.loads(text))
