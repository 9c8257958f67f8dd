"""Plotly figure builders: tidy pandas results in, ``plotly.graph_objects.Figure`` out.

No streamlit here: pages only place these figures. Colours come from :mod:`.style`.

Nothing read from a file is markup in a figure: plotly renders ``<b>``, ``<br>``, ``<a
href>`` in titles, tick labels, legends, hover text and annotations, so every run name, query
id, document id and query text goes through :func:`plotly_text` (or :func:`plotly_texts`)
where it enters a figure; the figures' own ``<br>`` stay markup.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def plotly_text(value: object) -> str:
    """``value`` as text plotly shows literally: ``&``, ``<``, ``>`` and ``%`` as entities
    (plotly.js draws ``&lt;b&gt;`` as ``<b>``, never as bold, a link or a line break, and
    ``&#37;{y}`` as ``%{y}``, never as a hover template's field filled in).

    Examples
    --------
    >>> plotly_text('<a href="http://x">run</a> & co')
    '&lt;a href="http://x"&gt;run&lt;/a&gt; &amp; co'
    >>> plotly_text("50%{y}"), plotly_text(7)
    ('50&#37;{y}', '7')
    """
    return (str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("%", "&#37;"))


def plotly_texts(values: Iterable[object]) -> np.ndarray:
    """:func:`plotly_text` of each value, as an object array (a column, a list of names)."""
    return np.array([plotly_text(v) for v in values], dtype=object)


def plain_text(shown: str) -> str:
    """The text :func:`plotly_text` was given (a clicked point's query id back from the figure).

    >>> plain_text(plotly_text("a&lt;b <c> & d 5%{x} &#37;")) == "a&lt;b <c> & d 5%{x} &#37;"
    True
    """
    return (shown.replace("&#37;", "%").replace("&lt;", "<").replace("&gt;", ">")
            .replace("&amp;", "&"))


__all__ = ["plain_text", "plotly_text", "plotly_texts"]
