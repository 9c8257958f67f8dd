"""The renderers of the report grid (:class:`tiedrank.report.grid.Report`): LaTeX
(booktabs), Markdown, HTML, plain text and CSV, each with the one caption that says what
the cells and marks mean.

Every run and metric name is escaped for its format (:func:`tiedrank.report.latex_literal`,
:func:`tiedrank.report.markdown_literal`, :func:`html.escape`); the numbers and marks are
built here, never taken from a file.
"""
from __future__ import annotations

import html as html_module
import math
import re
from typing import Any, Callable

from ..core.policies import POLICY_WRAPPERS, REPORT_COLUMNS
from ..evaluation.summaries import summary_note
from ..stats import scale_note
from .formats import FULL, csv_safe, html_table, latex_literal, markdown_literal

Report = Any
"""A :class:`tiedrank.report.grid.Report` (not imported: the grid imports this module)."""

TEST_LABELS = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
               "randomization": "Fisher randomization test", "tukey": "Tukey HSD test"}
"""The paired tests of :data:`tiedrank.stats.TESTS`, in words."""
CORRECTION_LABELS = {"holm": "Holm", "bonferroni": "Bonferroni",
                     "bh": "Benjamini-Hochberg (FDR)", "none": "none"}
"""The corrections of :data:`tiedrank.stats.CORRECTIONS`, in words."""
POLICY_PHRASES = {"expected": "the exact expectation over tie orderings",
                  POLICY_WRAPPERS["Worst"]: "the worst case",
                  POLICY_WRAPPERS["Best"]: "the best case",
                  "trec_eval": "trec_eval's tie order", "input": "the file order"}
"""A tie policy (its key) in the caption's words."""

# placeholders of the caption's marks, replaced per format after the text is escaped
_BOLD, _SUP, _DAGGER, _LE = "\x00B", "\x00S", "\x00D", "\x00L"


def policy_phrase(policy: str) -> str:
    """``policy`` (a key or ``random(seed=N)``) in words.

    >>> policy_phrase(POLICY_WRAPPERS["Worst"]), policy_phrase("random(seed=3)")
    ('the worst case', 'a random tie-break (random(seed=3))')
    """
    return POLICY_PHRASES.get(policy, f"a random tie-break ({policy})")


def _number(value: float, digits: int | str, missing: str) -> str:
    if value is None or not math.isfinite(float(value)):
        return missing
    return repr(float(value)) if digits == FULL else f"{float(value):.{digits}f}"


def _parts(report: Report, row, missing: str) -> tuple[str, str, str]:
    """(main number, " [worst, best] (trec)" tail, superscript letters) of one cell."""
    d = report.digits
    main = _number(getattr(row, report.value), d, missing)
    tail = ""
    if report.has_range:
        tail += f" [{_number(row.worst, d, missing)}, {_number(row.best, d, missing)}]"
    if report.trec_eval:
        tail += f" ({_number(row.trec_eval, d, missing)})"
    return main, tail, row.beats


def caption_text(report: Report) -> str:
    """The caption as plain text (Unicode marks)."""
    return _render_caption(report, str, {_BOLD: "Bold", _SUP: "Superscripts", _DAGGER: "†",
                                         _LE: "<="})


def _render_caption(report: Report, escape: Callable[[str], str], marks: dict[str, str]) -> str:
    """The caption with its text escaped by ``escape`` and its marks written as ``marks``."""
    pieces = re.split("(\x00.)", _caption(report))
    return "".join(marks[p] if p in marks else escape(p) for p in pieces)


def _caption(report: Report) -> str:
    key = {column: key for key, column in REPORT_COLUMNS.items()}.get(report.value, report.value)
    value = ("the expected value over every ordering of the tied documents"
             if report.value == "expected" else f"the value under {policy_phrase(key)}")
    parts = [f"Each cell: {value}"
             + (", [worst, best] over those orderings" if report.has_range else "")
             + (", and in parentheses the value in trec_eval's tie order" if report.trec_eval
                else "") + f". {_BOLD}: the best run per metric"
             + (" by expectation." if report.value == "expected" else ".")]
    if (summaries := summary_note(report.metrics)) is not None:  # not every column is a mean
        parts.append(f"Columns not averaged over the queries: {summaries}.")
    sig = report.significance
    if sig is not None:
        scope = ("every pair of runs" if sig.pairs == "all"
                 else f"each run against the baseline ({sig.baseline})")
        parts.append(f"{_SUP}: the keys of the runs a run is significantly better than "
                     f"({TEST_LABELS[sig.test]} of {scope} on the per-query values under "
                     f"{policy_phrase(sig.policy)}, "
                     + ("no correction for multiple tests, p" if sig.correction == "none" else
                        f"{CORRECTION_LABELS[sig.correction]} correction per metric, corrected p")
                     + f" {_LE} {sig.alpha:g}).")
        if sig.checked:
            parts.append(f"{_DAGGER}: the superscripts differ under "
                         + ", ".join(policy_phrase(p) for p in sig.checked[:-1])
                         + (" or " if len(sig.checked) > 1 else "")
                         + policy_phrase(sig.checked[-1])
                         + ": the verdict depends on how the ties are broken.")
        else:
            parts.append("The verdicts were not checked under other tie policies (evaluate "
                         "with ties='all' for that).")
        if (note := scale_note(report.metrics)) is not None:
            parts.append(f"Tests: {note}.")  # a metric name keeps its case
    parts += [n if n.endswith(".") else n + "." for n in report.notes]
    return " ".join(parts)


def _marks(letters: str, unstable: bool, sup: Callable[[str], str], dagger: str) -> str:
    inner = letters + (dagger if unstable else "")
    return sup(inner) if inner else ""


_LABEL_REFUSED = set("\\{}%#&~^$")


def latex_label(label: str) -> str:
    r"""``label`` as written in ``\label{...}``: raw, since it is an identifier (``\ref``
    reads it back as typed; escaping ``tab:main_results`` made it ``tab:main\_results``).
    A character LaTeX cannot take in a label (``\ { } % # & ~ ^ $``, a control or
    non-ASCII character) is refused, naming it.

    >>> latex_label("tab:main_results")
    'tab:main_results'
    """
    bad = [c for c in str(label) if c in _LABEL_REFUSED or not " " <= c <= "~"]
    if bad:
        raise ValueError(f"the LaTeX label {label!r} holds {bad[0]!r}, which LaTeX cannot "
                         "take in \\label{...}; use ASCII letters, digits and : _ - . / "
                         "(e.g. 'tab:main_results')")
    return str(label)


def latex(report: Report, *, caption: str | None = None, label: str | None = "tab:tiedrank",
          ascii_only: bool = True) -> str:
    """See :meth:`tiedrank.report.grid.Report.to_latex`."""
    text = lambda s: latex_literal(s, ascii_only)  # noqa: E731
    if caption is None:
        caption = _render_caption(report, text, {_BOLD: r"\textbf{Bold}", _SUP: "Superscripts",
                                                 _DAGGER: r"$^{\dagger}$", _LE: r"$\le$"})
    else:
        caption = text(caption)
    metrics = report.metrics
    lines = [r"% needs \usepackage{booktabs} in the preamble (tiedrank report grid)",
             r"\begin{table}[htbp]", r"\centering", r"\small", rf"\caption{{{caption}}}"]
    if label:
        lines.append(rf"\label{{{latex_label(label)}}}")
    lines += [r"\begin{tabular}{cl" + "l" * len(metrics) + "}", r"\toprule",
              r"\# & Run & " + " & ".join(text(m) for m in metrics) + r" \\", r"\midrule"]
    by_run = {run: block for run, block in report.cells.groupby("run", sort=False)}
    for run in report.runs:
        cells = []
        for row in by_run[run].itertuples(index=False):
            main, tail, letters = _parts(report, row, "--")
            main = rf"\textbf{{{main}}}" if row.best_in_metric else main
            cells.append(main + tail + _marks(letters, row.unstable,
                                              lambda s: f"$^{{{s}}}$", r"\dagger"))
        lines.append(" & ".join([text(report.keys[run]), text(run), *cells]) + r" \\")
    return "\n".join(lines + [r"\bottomrule", r"\end{tabular}", r"\end{table}"]) + "\n"


def markdown(report: Report) -> str:
    """See :meth:`tiedrank.report.grid.Report.to_markdown`."""
    lines = ["| # | run | " + " | ".join(markdown_literal(m) for m in report.metrics) + " |",
             "| --- | --- | " + " | ".join("---" for _ in report.metrics) + " |"]
    by_run = {run: block for run, block in report.cells.groupby("run", sort=False)}
    for run in report.runs:
        cells = []
        for row in by_run[run].itertuples(index=False):
            main, tail, letters = _parts(report, row, "–")
            main = f"**{main}**" if row.best_in_metric else main
            cells.append(main + tail.replace("[", r"\[").replace("]", r"\]")
                         + _marks(letters, row.unstable, lambda s: f"<sup>{s}</sup>", "†"))
        lines.append("| " + " | ".join([report.keys[run], markdown_literal(run), *cells]) + " |")
    caption = _render_caption(report, markdown_literal, {_BOLD: "**Bold**", _SUP: "Superscripts",
                                                         _DAGGER: "†", _LE: "≤"})
    return "\n".join(lines) + "\n\n" + caption + "\n"


def html(report: Report) -> str:
    """See :meth:`tiedrank.report.grid.Report.to_html`."""
    escape = html_module.escape
    rows = []
    by_run = {run: block for run, block in report.cells.groupby("run", sort=False)}
    for run in report.runs:
        cells = [escape(report.keys[run]), escape(run)]
        for row in by_run[run].itertuples(index=False):
            main, tail, letters = _parts(report, row, "–")
            main = f"<strong>{main}</strong>" if row.best_in_metric else main
            cells.append(main + tail + _marks(letters, row.unstable,
                                              lambda s: f"<sup>{s}</sup>", "&dagger;"))
        rows.append(cells)
    caption = _render_caption(report, escape, {_BOLD: "<strong>Bold</strong>",
                                               _SUP: "Superscripts", _DAGGER: "&dagger;",
                                               _LE: "&le;"})
    return html_table(["#", "run", *report.metrics], rows,
                      [False, False] + [True] * len(report.metrics), caption=caption,
                      css_class="tiedrank-report", escape=False)


def text(report: Report) -> str:
    """The grid as fixed-width text (``*`` before the best cell, ``^ab`` letters, ``†``),
    then its caption."""
    header = ["#", "run", *report.metrics]
    rows = []
    by_run = {run: block for run, block in report.cells.groupby("run", sort=False)}
    for run in report.runs:
        cells = [report.keys[run], run]
        for row in by_run[run].itertuples(index=False):
            main, tail, letters = _parts(report, row, "–")
            cells.append(("*" if row.best_in_metric else "") + main + tail
                         + _marks(letters, row.unstable, lambda s: f"^{s}", "†"))
        rows.append(cells)
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda values: "  ".join(str(v).ljust(w) for v, w in zip(values, widths)).rstrip()  # noqa: E731
    caption = _render_caption(report, str, {_BOLD: "*", _SUP: "^letters", _DAGGER: "†",
                                            _LE: "<="})
    return "\n".join([line(header), line("-" * w for w in widths), *map(line, rows), "", caption])


def csv_text(report: Report) -> str:
    """See :meth:`tiedrank.report.grid.Report.to_csv`."""
    return csv_safe(report.numbers()).to_csv(index=False)


GRID_FORMATS = ("latex", "markdown", "html")
"""The ``--format`` values the CLI prints as the report grid."""


def render_grid(report: Report, fmt: str) -> str:
    """``report`` in ``fmt`` (one of :data:`GRID_FORMATS`), ending with a newline."""
    out = {"latex": latex, "markdown": markdown, "html": html}[fmt](report)
    return out if out.endswith("\n") else out + "\n"
