"""Everything tiedrank writes for people and other programs.

* :mod:`tiedrank.report.formats` -- :func:`render` of any result frame as text, CSV, JSON,
  LaTeX, Markdown or HTML (the CLI's ``--format`` and the dashboard's downloads), and the
  escapes every renderer uses (:func:`latex_literal`, :func:`markdown_literal`,
  :func:`csv_safe`).
* :mod:`tiedrank.report.grid` -- the report grid, :class:`Report`: runs x metrics, each cell
  the expectation with [worst, best], the best run per metric marked, ranx-style
  significance letters and a dagger where the verdict does not survive a change of tie
  policy; built by :func:`build_report` (``Evaluation.grid()``), rendered by
  :mod:`tiedrank.report.grid_render`.
* :mod:`tiedrank.report.per_query` -- :func:`per_query_table`: the per-query rows of
  ``tiedrank evaluate -q``, one column per policy, queries in natural order.
* :mod:`tiedrank.report.curves` -- :func:`precision_recall_curve`: a paper's interpolated
  precision-recall curve with its [worst, best] band over tie orderings.
"""
from .formats import (
    FORMATS,
    MAX_DIGITS,
    WORD_JOINER,
    csv_safe,
    html_table,
    latex_ascii,
    latex_escape,
    latex_literal,
    markdown_escape,
    markdown_literal,
    natural_key,
    natural_rank,
    neutralised,
    render,
)
from .per_query import per_query_table
from .curves import CURVE_COLUMNS, RECALL_LEVELS, precision_recall_curve
from .grid import PAIRINGS, Report, Significance, build_report
from .grid_render import GRID_FORMATS, render_grid

__all__ = ["CURVE_COLUMNS", "RECALL_LEVELS", "precision_recall_curve", "FORMATS", "GRID_FORMATS", "render_grid", "MAX_DIGITS", "PAIRINGS", "Report", "Significance", "WORD_JOINER",
           "build_report", "csv_safe", "html_table", "latex_ascii", "latex_escape", "latex_literal",
           "markdown_escape", "markdown_literal", "natural_key", "natural_rank", "neutralised",
           "per_query_table", "render"]
