"""Drill-down: which query a click on a per-query chart picked (Streamlit-free).

A per-query chart puts the query id first in each point's ``customdata``; Streamlit's
``st.plotly_chart(..., on_select="rerun")`` returns the selection, and the page stores the
query under :data:`DRILL_KEY` before switching to Tie structure, which opens it. Compare's
per-query differences store the run, the baseline and the query under
:data:`DRILL_PAIR_KEY` and switch to the "Two runs, one query" page. Part of the dashboard's
shared layer: every page links to another through here, never by importing its logic.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .figures import plain_text

DRILL_KEY = "drill_query"
"""Session-state key of the query a click asked Tie structure to open."""

DRILL_PAIR_KEY = "drill_pair"
"""Session-state key of the two runs and the query (a dict keyed like :data:`URL_PARAMS`) a
click on Compare's per-query differences asked the "Two runs, one query" page to open."""

URL_PARAMS = {"sbs_run_a": "run_a", "sbs_run_b": "run_b", "sbs_query": "query", "sbs_metric": "metric"}
"""Session-state key of each choice of the "Two runs, one query" page -> its name in the link
(``?run_a=…``): Compare, Agreement and Tie structure link to that page with these."""


def url_from_choices(choices: Mapping[str, object]) -> dict[str, str]:
    """The link's parameters of the "Two runs, one query" page's choices (the inverse of
    :func:`tiedrank.dashboard.side_by_side.choices_from_url`)."""
    return {name: str(choices[key]) for key, name in URL_PARAMS.items() if choices.get(key) is not None}


def drill_choices(run: str, baseline: str, query: str, metric: str | None = None) -> dict[str, str]:
    """What a click on Compare's per-query differences opens: the compared run as A, the
    baseline as B, the clicked query (and the chart's metric), keyed like :data:`URL_PARAMS`."""
    out = {"sbs_run_a": run, "sbs_run_b": baseline, "sbs_query": query}
    if metric is not None:
        out["sbs_metric"] = metric
    return out


def clicked_query(event: Mapping[str, Any] | None, axis: str | None = None) -> str | None:
    """The query of the first selected point of a plotly selection event, or None.

    The query is ``customdata[0]``, or the point's ``axis`` value ("x" or "y") when given
    (a chart with one bar per query on that axis).

    Examples
    --------
    >>> clicked_query({"selection": {"points": [{"customdata": ["q7", "text", 0.5]}]}})
    'q7'
    >>> clicked_query({"selection": {"points": [{"x": 0.2, "y": "q3"}]}}, axis="y")
    'q3'
    >>> clicked_query({"selection": {"points": []}}) is None
    True
    """
    if not event:
        return None
    points = (event.get("selection") or {}).get("points") or []
    for point in points:  # the figures show file text escaped (figures.plotly_text): undo it
        if axis is not None and point.get(axis) is not None:
            return plain_text(str(point[axis]))
        data = point.get("customdata")
        if isinstance(data, (list, tuple)) and data:
            return plain_text(str(data[0]))
        if isinstance(data, str):
            return plain_text(data)
    return None


def selected_row_value(event: Mapping[str, Any] | None, frame: Any, column: str = "query") -> str | None:
    """``frame[column]`` of the first row selected in an ``st.dataframe`` selection event, or None.

    Streamlit reports rows by their position in the frame it was given, whatever order the
    user sorted the table into on screen.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"query": ["q2", "q9"], "max_diff": [0.5, 1.0]})
    >>> selected_row_value({"selection": {"rows": [1], "columns": []}}, table)
    'q9'
    >>> selected_row_value({"selection": {"rows": []}}, table) is None
    True
    """
    if not event:
        return None
    rows = (event.get("selection") or {}).get("rows") or []
    for row in rows:
        if 0 <= int(row) < len(frame):
            return str(frame[column].iloc[int(row)])
    return None


# ---------------------------------------------------------------------------------------
# Where a drill-down came from: the "← Back to …" link of the page it opened
# ---------------------------------------------------------------------------------------

ORIGINS_KEY = "_tiedrank_drill_origins"
"""Session-state key of the drill-downs that led to the page shown, oldest first (a list of
:func:`drill_origin` records): the last one is what the page's "← Back to …" link returns to."""


def drilled_query(value: Any) -> str | None:
    """The query a drill-down opens: ``value`` itself (a query id, :data:`DRILL_KEY`) or its
    ``sbs_query`` (the choices of :data:`DRILL_PAIR_KEY`); None when it names no query.

    Examples
    --------
    >>> drilled_query("q12"), drilled_query({"sbs_run_a": "bm25", "sbs_query": "q3"})
    ('q12', 'q3')
    >>> drilled_query({"sbs_run_a": "bm25"}) is None
    True
    """
    if isinstance(value, Mapping):
        query = value.get("sbs_query")
        return None if query is None else str(query)
    return None if value is None else str(value)


def drill_origin(page: str, title: str, target: str, query: str | None,
                 params: Sequence[tuple[str, str]], state: Mapping[str, Any]) -> dict[str, Any]:
    """The record a drill-down keeps of the page it left (a plain dict: it lives in the
    session state).

    Parameters
    ----------
    page, title : str
        The page left (its script path, as ``st.switch_page`` takes it) and its menu title.
    target : str
        The page opened: the record holds only while that page is shown.
    query : str or None
        The thread followed (the query clicked), named by the back link.
    params : sequence of (str, str)
        The link of the page left (its query parameters, repeated names kept).
    state : mapping
        Session-state values to put back on return: the sidebar settings and the page's
        own kept choices (see :func:`kept_choices`).

    Examples
    --------
    >>> origin = drill_origin("pages/compare.py", "Compare", "pages/side_by_side.py", "q12",
    ...                       [("dataset", "llmjudge")], {"compare_run": "bm25"})
    >>> origin["title"], origin["query"], origin["params"]
    ('Compare', 'q12', [('dataset', 'llmjudge')])
    """
    return {"page": page, "title": title, "target": target, "query": query,
            "params": [(str(name), str(value)) for name, value in params], "state": dict(state)}


def back_label(origin: Mapping[str, Any]) -> str:
    """The back link's text: the page and the thread it came from.

    Examples
    --------
    >>> back_label({"title": "Compare", "query": "q12"})
    '← Back to Compare (query q12)'
    >>> back_label({"title": "Tie structure", "query": None})
    '← Back to Tie structure'
    """
    query = origin.get("query")
    return f"← Back to {origin['title']}" + (f" (query {query})" if query else "")


def push_origin(origins: Sequence[Mapping[str, Any]], origin: Mapping[str, Any]) -> list[dict]:
    """The drill-down trail after a drill-down from ``origin["page"]``: the trail that led to
    that page, then ``origin``; a trail that led elsewhere is dropped (the user had left it).

    Examples
    --------
    >>> spread = {"page": "spread", "target": "ties"}
    >>> ties = {"page": "ties", "target": "pair"}
    >>> [o["page"] for o in push_origin([spread], ties)]
    ['spread', 'ties']
    >>> [o["page"] for o in push_origin([spread], {"page": "compare", "target": "pair"})]
    ['compare']
    """
    kept = [dict(o) for o in origins]
    if not kept or kept[-1].get("target") != origin.get("page"):
        kept = []
    return kept + [dict(origin)]


def live_origins(origins: Sequence[Mapping[str, Any]] | None, page: str) -> list[dict]:
    """The trail that still holds on ``page``: unchanged while the last drill-down's target
    is shown, empty once the user went to any other page (from the menu, say).

    Examples
    --------
    >>> trail = [{"page": "compare", "target": "pair"}]
    >>> len(live_origins(trail, "pair")), len(live_origins(trail, "overview"))
    (1, 0)
    """
    origins = [dict(o) for o in origins or ()]
    return origins if origins and origins[-1].get("target") == page else []


def kept_choices(drawn_at: Mapping[str, int], run_serial: int | None,
                 state: Mapping[str, Any]) -> dict[str, Any]:
    """The kept page widgets (``persist``) drawn in run ``run_serial`` (the page being
    left) with their values in ``state``: what the back link restores.

    Examples
    --------
    >>> kept_choices({"compare_run": 7, "tie_run": 3}, 7, {"compare_run": "bm25", "tie_run": "x"})
    {'compare_run': 'bm25'}
    """
    return {key: state[key] for key, serial in drawn_at.items()
            if serial == run_serial and key in state}
