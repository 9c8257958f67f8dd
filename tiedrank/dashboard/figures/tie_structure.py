"""Figures of the tie-structure page.

Inputs are the tidy frames of :mod:`tiedrank.dashboard` (``query_documents``,
``top_strip``, ``group_size_counts``, ``tie_ratio_vs_range``).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import plotly_text, plotly_texts
from .style import (
    FILL_TEXT,
    POLICY_COLORS,
    TEMPLATE,
    UNJUDGED_COLOR,
    finish,
    grade_color,
    title_margin,
    wrap_title,
)

_RUN_PALETTE = ("#222222", "#e66101", "#5e3c99", "#1b7837", "#b2182b", "#2166ac", "#8c510a",
                "#01665e", "#c51b7d", "#4d4d4d")
PARITY_COLORS = ("#f2f2f2", "#fdb863", "#8073ac")
"""Top-20 strip colours: a document alone in its group, then alternating tied groups."""


def _grade_key(grade: int, judged: bool) -> str:
    return str(int(grade)) if judged else "unjudged"


def _grade_name(key: str) -> str:
    return "unjudged" if key == "unjudged" else f"grade {key}"


def _grade_key_color(key: str) -> str:
    return UNJUDGED_COLOR if key == "unjudged" else grade_color(int(key))


def _doc_list(docs: pd.Series, limit: int = 12) -> str:
    shown = [plotly_text(d) for d in docs[:limit]]
    more = len(docs) - len(shown)
    return ", ".join(shown) + (f", … {more} more" if more > 0 else "")


def ranked_list_figure(docs: pd.DataFrame, *, mode: str = "stack", title: str | None = None,
                       query_text: str | None = None) -> go.Figure:
    """The ranked list of one query drawn as tie groups along the rank axis.

    Each tie group is a block as wide as the group (outlined when it holds 2+ documents).
    ``mode="stack"`` fills a block with one segment per grade, as wide as the number of
    documents of that grade (highest grade left: a count, not an order);
    ``mode="documents"`` draws every document as a unit segment coloured by its grade in
    the file order inside the group.

    Parameters
    ----------
    docs : DataFrame
        :func:`tiedrank.io.query_documents` output.

    Returns
    -------
    plotly Figure: one bar trace per grade present (legend = grades), plus one text trace
    labelling the tied groups with their size.
    """
    if mode not in ("stack", "documents"):
        raise ValueError(f"mode must be 'stack' or 'documents', got {mode!r}")
    frame = docs.copy()
    frame["key"] = [_grade_key(g, j) for g, j in zip(frame["grade"], frame["judged"])]
    hover_query = f"<br>{plotly_text(query_text)}" if query_text else ""
    if mode == "stack":
        frame["_order"] = np.where(frame["judged"], frame["grade"], -10**6)
        frame = frame.sort_values(["group", "_order"], ascending=[True, False], kind="stable")
        segments = (frame.groupby(["group", "key"], sort=False)
                    .agg(count=("doc", "size"), group_first=("group_first", "first"),
                         group_size=("group_size", "first"), score=("score", "first"),
                         docs=("doc", _doc_list))
                    .reset_index())
        segments["base"] = (segments["group_first"] - 1
                            + segments.groupby("group")["count"].cumsum() - segments["count"])
        segments["ranks"] = [f"{a}–{a + n - 1}" if n > 1 else f"{a}"
                             for a, n in zip(segments["group_first"], segments["group_size"])]
        customdata = np.stack([segments["group"], segments["ranks"], segments["score"],
                               segments["count"], segments["group_size"], segments["docs"]], axis=1)
        hover = ("group %{customdata[0]} (ranks %{customdata[1]}), score %{customdata[2]:.6g}<br>"
                 "%{fullData.name}: %{customdata[3]} of %{customdata[4]} docs<br>"
                 "%{customdata[5]}" + hover_query + "<extra></extra>")
        width_col, base_col = "count", "base"
    else:
        segments = frame.assign(count=1, base=frame["rank"] - 1)
        customdata = np.stack([segments["rank"], plotly_texts(segments["doc"]), segments["score"],
                               segments["group"], segments["group_size"]], axis=1)
        hover = ("rank %{customdata[0]}: %{customdata[1]}<br>score %{customdata[2]:.6g}, "
                 "%{fullData.name}<br>group %{customdata[3]} of %{customdata[4]} docs"
                 + hover_query + "<extra></extra>")
        width_col, base_col = "count", "base"

    fig = go.Figure()
    keys = sorted(segments["key"].unique(), key=lambda k: (k == "unjudged", -int(k) if k != "unjudged" else 0))
    for key in keys:
        part = segments["key"].to_numpy() == key
        seg = segments[part]
        fig.add_trace(go.Bar(
            x=seg[width_col], base=seg[base_col], y=np.zeros(len(seg)), orientation="h",
            name=_grade_name(key), marker=dict(color=_grade_key_color(key),
                                               line=dict(color="white", width=0.5)),
            customdata=customdata[part], hovertemplate=hover, width=0.8))
    end = int((frame["rank"].max() if len(frame) else 1))
    groups = frame.drop_duplicates("group")
    tied = groups[groups["group_size"] > 1]
    visible_end = np.minimum(tied["group_first"] - 1 + tied["group_size"], end)
    fig.update_layout(shapes=[  # one call: add_shape per group is slow
        dict(type="rect", x0=int(first) - 1, x1=int(stop), y0=-0.45, y1=0.45,
             line=dict(color="#333333", width=1.5), fillcolor="rgba(0,0,0,0)")
        for first, stop in zip(tied["group_first"], visible_end)])
    labels = [f"{n} tied" if first - 1 + n <= end else f"{n} tied ({stop - first + 1} shown)"
              for first, n, stop in zip(tied["group_first"], tied["group_size"], visible_end)]
    fig.add_trace(go.Scatter(
        x=(tied["group_first"] - 1 + visible_end) / 2, y=np.full(len(tied), 0.62),
        mode="text", text=labels, showlegend=False,
        textfont=dict(size=11, color="#333333"), hoverinfo="skip", name="group sizes"))
    wrapped = wrap_title(title and plotly_text(title))  # a long query text would run off a narrow chart
    fig.update_layout(
        template=TEMPLATE, barmode="overlay", title=wrapped, height=180 + title_margin(wrapped),
        margin=dict(l=10, r=10, t=title_margin(wrapped), b=40),
        xaxis=dict(title="rank", range=[0, end], zeroline=False),
        yaxis=dict(visible=False, range=[-0.6, 0.85], fixedrange=True))
    return finish(fig)


def _strip_colour(sub: pd.DataFrame, cells: tuple, shape: tuple[int, int], color: str) -> tuple:
    """(z, colorscale, colorbar, zmin, zmax) of the strip's cells for ``color``."""
    z = np.full(shape, np.nan)
    if color == "parity":
        z[cells] = np.where(sub["tied"], 1 + sub["parity"], 0)
        colorscale = [[0.0, PARITY_COLORS[0]], [0.33, PARITY_COLORS[0]],
                      [0.33, PARITY_COLORS[1]], [0.67, PARITY_COLORS[1]],
                      [0.67, PARITY_COLORS[2]], [1.0, PARITY_COLORS[2]]]
        return z, colorscale, None, 0, 2
    z[cells] = np.log10(sub["group_size"].to_numpy(dtype=float))
    top = max(1.0, float(np.nanmax(z)) if np.isfinite(z).any() else 1.0)
    ticks = [v for v in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000) if np.log10(v) <= top + 1e-9]
    colorbar = dict(title="group size", tickvals=np.log10(ticks).tolist(), ticktext=[str(t) for t in ticks])
    return z, "Viridis", colorbar, 0, top


def _strip_hover(sub: pd.DataFrame, cells: tuple, shape: tuple[int, int],
                 texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(grade text, customdata) of the strip's cells: the grade shown in a cell; the group,
    its size, its relevant documents, the grades it holds in the top ranks, the query text."""
    group, size, relevant = (np.full(shape, np.nan) for _ in range(3))
    group[cells], size[cells], relevant[cells] = sub["group"], sub["group_size"], sub["group_relevant"]
    grade_text = np.full(shape, "", dtype=object)
    if "grade" in sub:
        judged = sub["judged"].to_numpy(dtype=bool) if "judged" in sub else np.ones(len(sub), bool)
        grade_text[cells] = np.where(judged, sub["grade"].astype(int).astype(str), "–")
    group_grades = np.full(shape, "", dtype=object)  # the grades a group holds (top ranks only)
    for q_row in range(shape[0]):
        for g in set(group[q_row][np.isfinite(group[q_row])]):
            cols = np.flatnonzero(group[q_row] == g)
            group_grades[q_row, cols] = " ".join(grade_text[q_row, cols])
    # numeric customdata travels as a compact typed array; strings only where needed
    customdata = np.stack([group, size, relevant], axis=-1).astype(object)
    row_text = np.repeat(np.asarray(texts, dtype=object)[:, None], shape[1], axis=1)
    return grade_text, np.concatenate([customdata, group_grades[..., None], row_text[..., None]], axis=-1)


def _parity_legend(fig: go.Figure) -> None:
    """The colour legend of the groups (``color="parity"``)."""
    for name, swatch in (("alone on its score", PARITY_COLORS[0]),
                         ("tied group", PARITY_COLORS[1]),
                         ("next tied group (neighbours alternate)", PARITY_COLORS[2])):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                 marker=dict(symbol="square", size=13, color=swatch,
                                             line=dict(color="#999999", width=1)),
                                 hoverinfo="skip"))


def top_strip_figure(strip: pd.DataFrame, *, color: str = "parity", top: int = 20,
                     query_text: Mapping[str, str] | None = None,
                     queries: list[str] | None = None) -> go.Figure:
    """Queries x rank positions 1..``top``: which positions share a tie group.

    ``color="parity"``: a document alone in its group is pale; tied groups alternate two
    colours so that neighbouring groups stand apart. ``color="size"``: log colour scale of
    the group size (with a colour bar). Cells show the grade of the document at that rank
    (when there are at most 40 rows); hover gives the grade, the group number, size,
    relevant documents and the grades the group holds in the top ranks.

    Parameters
    ----------
    strip : DataFrame
        :func:`tiedrank.dashboard.tie_structure.top_strip` output.
    top : int
        The ranks shown.
    queries : list of str, optional
        Row order (top to bottom); default the strip's order.
    """
    if color not in ("parity", "size"):
        raise ValueError(f"color must be 'parity' or 'size', got {color!r}")
    queries = list(dict.fromkeys(strip["query"])) if queries is None else list(queries)
    row = {q: n for n, q in enumerate(queries)}
    n_rows = len(queries)
    shape = (n_rows, top)
    sub = strip[strip["query"].isin(row) & (strip["position"] <= top)]
    cells = (sub["query"].map(row).to_numpy(dtype=np.int64), sub["position"].to_numpy(dtype=np.int64) - 1)
    z, colorscale, colorbar, zmin, zmax = _strip_colour(sub, cells, shape, color)
    texts = [plotly_text((query_text or {}).get(q, "")) for q in queries]
    grade_text, customdata = _strip_hover(sub, cells, shape, texts)
    query_line = "query %{y}" + (" %{customdata[4]}" if any(texts) else "")
    show_text = n_rows <= 40
    fig = go.Figure(go.Heatmap(
        z=z, x=np.arange(1, top + 1), y=list(plotly_texts(queries)), colorscale=colorscale, zmin=zmin, zmax=zmax,
        showscale=colorbar is not None, colorbar=colorbar, xgap=1, ygap=1 if n_rows <= 60 else 0,
        customdata=customdata, text=grade_text,
        texttemplate="%{text}" if show_text else None, textfont=dict(size=10, color=FILL_TEXT),
        hovertemplate=(query_line + "<br>rank %{x}: grade %{text} (– unjudged); group "
                       "%{customdata[0]}, size %{customdata[1]}, %{customdata[2]} relevant in "
                       "the group; grades in the group's top ranks: %{customdata[3]}"
                       "<extra></extra>")))
    if color == "parity":
        _parity_legend(fig)
    fig.update_layout(
        template=TEMPLATE, height=min(900, max(260, 90 + 18 * n_rows)),
        margin=dict(l=10, r=10, t=30, b=40),
        xaxis=dict(title="rank (cell text: the document's grade)" if show_text else "rank",
                   dtick=1 if top <= 30 else None, range=[0.5, top + 0.5]),
        yaxis=dict(title=None, autorange="reversed", type="category",
                   showticklabels=n_rows <= 80),
        showlegend=color == "parity")
    return finish(fig)


def group_size_figure(bins: pd.DataFrame, *, weight: str = "groups",
                      log_y: bool | str = "auto") -> go.Figure:
    """Histogram of tie-group sizes in power-of-two bins (one trace per run when ``bins``
    has a ``run`` column). ``weight`` is ``"groups"`` (number of groups) or
    ``"documents"`` (documents in groups of that size). ``log_y="auto"`` uses a log axis
    when the bar heights span more than two orders of magnitude.

    Parameters
    ----------
    bins : DataFrame
        :func:`tiedrank.dashboard.tie_structure.group_size_bins` output.
    """
    if weight not in ("groups", "documents"):
        raise ValueError(f"weight must be 'groups' or 'documents', got {weight!r}")
    fig = go.Figure()
    counts = bins
    parts = counts.groupby("run", sort=False) if "run" in counts else [(None, counts)]
    for n, (run, part) in enumerate(parts):
        customdata = np.stack([part["groups"], part["documents"], part["share_of_documents"]], axis=1)
        fig.add_trace(go.Bar(
            x=part["bin"], y=part[weight], name=plotly_text(run) if run is not None else weight,
            marker_color=_RUN_PALETTE[n % len(_RUN_PALETTE)] if run is not None else POLICY_COLORS["trec_eval"],
            customdata=customdata,
            hovertemplate=("size %{x}: %{customdata[0]:,} groups, %{customdata[1]:,} docs "
                           "(%{customdata[2]:.1%} of docs)<extra>%{fullData.name}</extra>")))
    fig.update_layout(
        template=TEMPLATE, barmode="group", height=320, margin=dict(l=10, r=10, t=30, b=40),
        xaxis_title="tie-group size (documents sharing one score), in bins",
        yaxis_title="groups" if weight == "groups" else "documents",
        showlegend="run" in counts)
    if log_y == "auto":
        heights = counts[weight][counts[weight] > 0]
        log_y = bool(len(heights)) and heights.max() > 100 * heights.min()
    fig.update_xaxes(type="category")
    if log_y:
        fig.update_yaxes(type="log")
    return finish(fig)


def tie_ratio_scatter(frame: pd.DataFrame, metric: str, *, x: str = "tie_ratio",
                      x_label: str | None = None) -> go.Figure:
    """One point per query: tie ratio (``x`` column) against the metric's range
    (best - worst over tie orderings). One trace per run when ``frame`` has ``run``.

    Parameters
    ----------
    frame : DataFrame
        :func:`tiedrank.dashboard.tie_structure.tie_ratio_vs_range` output.
    """
    fig = go.Figure()
    parts = frame.groupby("run", sort=False) if "run" in frame else [(None, frame)]
    for n, (run, part) in enumerate(parts):
        text = part["text"].fillna("") if "text" in part else pd.Series("", index=part.index)
        customdata = np.stack([plotly_texts(part["query"]), plotly_texts(text), part["worst"], part["expected"], part["best"],
                               part.get("trec_eval", pd.Series(np.nan, index=part.index)),
                               part["n_relevant"]], axis=1)
        fig.add_trace(go.Scatter(
            x=part[x], y=part["range"], mode="markers",
            name=plotly_text(run) if run is not None else metric,
            marker=dict(size=9, opacity=0.75, line=dict(width=0.5, color="white"),
                        color=_RUN_PALETTE[n % len(_RUN_PALETTE)] if run is not None else POLICY_COLORS["expected"]),
            customdata=customdata,
            hovertemplate=("query %{customdata[0]} %{customdata[1]}<br>tie ratio %{x:.1%}, "
                           "range %{y:.3f}<br>worst %{customdata[2]:.3f}, expected "
                           "%{customdata[3]:.3f}, best %{customdata[4]:.3f}, trec_eval "
                           "%{customdata[5]:.3f}<br>%{customdata[6]} relevant<extra></extra>")))
    fig.update_layout(
        template=TEMPLATE, height=420, margin=dict(l=10, r=10, t=30, b=40),
        xaxis=dict(title=x_label or "tie ratio (share of documents in tie groups)", tickformat=".0%",
                   range=[-0.03, 1.03]),
        yaxis=dict(title=f"{metric} range (best − worst)", rangemode="tozero"),
        showlegend="run" in frame)
    return finish(fig)
