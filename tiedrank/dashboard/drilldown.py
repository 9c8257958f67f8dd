"""Drill-down: which query a click on a per-query chart picked (Streamlit-free).

A per-query chart puts the query id first in each point's ``customdata``; Streamlit's
``st.plotly_chart(..., on_select="rerun")`` returns the selection, and the page stores the
query under :data:`DRILL_KEY` before switching to Tie structure, which opens it. Compare's
per-query differences store the run, the baseline and the query under
:data:`DRILL_PAIR_KEY` and switch to the "Two runs, one query" page.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DRILL_KEY = "drill_query"
"""Session-state key of the query a click asked Tie structure to open."""

DRILL_PAIR_KEY = "drill_pair"
"""Session-state key of the two runs and the query (a dict keyed like
:data:`tiedrank.dashboard.side_by_side.URL_PARAMS`) a click on Compare's per-query
differences asked the "Two runs, one query" page to open."""


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
    for point in points:
        if axis is not None and point.get(axis) is not None:
            return str(point[axis])
        data = point.get("customdata")
        if isinstance(data, (list, tuple)) and data:
            return str(data[0])
        if isinstance(data, str):
            return data
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
