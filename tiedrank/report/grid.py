"""The report grid: runs x metrics, each cell the expectation with its [worst, best] range.

One object, :class:`Report`, for every door: ``Evaluation.to_latex()`` / ``to_markdown()`` /
``to_html()`` (and a notebook's ``_repr_html_``), ``tiedrank evaluate|compare --format
latex|markdown|html`` and the dashboard's downloads all build it with :func:`build_report`
and render it with its methods (:mod:`tiedrank.report.grid_render`), in the style of ranx's
``Report`` (run keys a, b, ..., a superscript of the keys of the runs a run significantly
beats, the best run per metric in bold):

* each cell: the expected value over every ordering of the tied documents, ``[worst, best]``
  over those orderings, and where asked the value in trec_eval's tie order in parentheses;
* the best run per metric by expectation marked (several when equal within the one rule of
  :func:`tiedrank.stats.outcome`);
* significance letters from :func:`tiedrank.stats.compare_runs` (paired tests of
  :mod:`tiedrank.stats.paired_tests` on the per-query values under one tie policy, against
  a baseline or every pair, corrected per metric);
* a dagger where the letters are not the same under another fixed tie policy (the worst
  case, the best case, trec_eval's order, the expectation): the verdict rests on the tie-break;
* :meth:`Report.numbers`: the tidy numeric frame (every policy its own column, no symbols)
  for CSV and Parquet.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..evaluation import Evaluation
from ..core.policies import ALL_POLICIES, REPORT_COLUMNS
from ..core.report_socket import plug_report
from ..core.validation import Interval, Options, validate_params
from ..stats import CORRECTIONS, TESTS, compare_runs, outcome, run_keys
from ..stats.paired_tests import ALPHA
from . import grid_render
from .formats import FULL, MAX_DIGITS

PAIRINGS = ("all", "baseline")
"""Which pairs the letters test: every pair (ranx's convention) or each run against the baseline."""


@dataclass(frozen=True)
class Significance:
    """How the letters of a :class:`Report` were computed.

    ``checked`` are the other fixed tie policies the same tests were run under (the dagger
    marks a cell whose letters differ under one of them); empty when the evaluation holds no
    other fixed policy's per-query values.
    """

    test: str
    correction: str
    alpha: float
    pairs: str
    baseline: str
    policy: str
    checked: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class Report:
    """Runs x metrics: see the module docstring. Build it with :func:`build_report` (or
    ``Evaluation.grid()``), render it with :meth:`to_latex`, :meth:`to_markdown`,
    :meth:`to_html`, ``str()``; :meth:`numbers` is the numeric frame.

    Attributes
    ----------
    cells : DataFrame
        One row per (run, metric), runs in key order: run, key, metric, n_queries, a column
        per evaluated policy (``expected``, ``best``, ``worst``, ``trec_eval``, as
        :meth:`tiedrank.Evaluation.report` names them), ``best_in_metric`` (bool), ``beats``
        (the keys of the runs it significantly beats, ``""`` for none), ``p_value`` and
        ``p_corrected`` against the baseline (NaN for the baseline, or without tests),
        ``unstable`` (bool: the letters differ under another fixed policy) and
        ``unstable_under`` (those policies, comma-separated).
    keys : dict of str to str
        Run -> its letter.
    value : str
        The column of the cell's main number (``expected``; another policy when the
        evaluation has no expectation).
    significance : Significance or None
        None: no letters (one run, or not asked).
    trec_eval : bool
        Show the trec_eval-order value in parentheses.
    digits : int or "full"
        Decimals shown, or ``"full"``: each number's shortest round-trip text.
    notes : tuple of str
        Sentences the caption ends with (queries a pairing dropped, letters left out).
    """

    cells: pd.DataFrame
    keys: dict[str, str]
    value: str = "expected"
    significance: Significance | None = None
    trec_eval: bool = False
    digits: int | str = 3
    notes: tuple[str, ...] = field(default=())

    @property
    def runs(self) -> list[str]:
        """The runs, in key order."""
        return list(self.keys)

    @property
    def metrics(self) -> list[str]:
        """The metrics, in the evaluation's order."""
        return list(dict.fromkeys(self.cells["metric"]))

    @property
    def has_range(self) -> bool:
        """True when both the worst and the best case were evaluated."""
        return {"worst", "best"} <= set(self.cells.columns)

    def numbers(self) -> pd.DataFrame:
        """The tidy numeric frame for CSV and Parquet: one row per (run, metric), every
        evaluated policy its own column (full precision), the markers as plain columns
        (``best_in_metric``, ``beats`` letters, ``unstable``); no display symbols."""
        return self.cells.copy()

    def to_csv(self) -> str:
        """:meth:`numbers` as CSV, every float written so that it reads back exactly
        (text cells cannot start a spreadsheet formula: :func:`tiedrank.report.csv_safe`)."""
        return grid_render.csv_text(self)

    def to_parquet(self) -> bytes:
        """:meth:`numbers` as a Parquet file's bytes (pyarrow), the numbers as they are."""
        import io

        buffer = io.BytesIO()
        self.numbers().to_parquet(buffer, index=False)
        return buffer.getvalue()

    def to_latex(self, *, caption: str | None = None, label: str | None = "tab:tiedrank",
                 ascii_only: bool = True) -> str:
        r"""A ``table`` float with a booktabs ``tabular`` (needs ``\usepackage{booktabs}``)
        and a caption that says what the brackets, bold, letters and dagger mean; every text
        escaped; with ``ascii_only`` (the default) the source is ASCII, so pdflatex compiles
        it with no input encoding (a non-ASCII character of a run name is written
        ``[U+XXXX]``). ``caption`` replaces the explaining caption."""
        return grid_render.latex(self, caption=caption, label=label, ascii_only=ascii_only)

    def to_markdown(self) -> str:
        """A Markdown (GFM) table, every run and metric name shown as text
        (:func:`tiedrank.report.markdown_literal`), then the caption as a paragraph."""
        return grid_render.markdown(self)

    def to_html(self) -> str:
        """An HTML table with its caption; every name escaped (nothing a file holds is markup)."""
        return grid_render.html(self)

    def _repr_html_(self) -> str:
        return self.to_html()

    def caption(self) -> str:
        """What the cells and marks mean, as plain text."""
        return grid_render.caption_text(self)

    def __str__(self) -> str:
        return grid_render.text(self)


@validate_params({"pairs": [Options(*PAIRINGS), None], "test": [Options(*TESTS)],
                  "correction": [Options(*CORRECTIONS)], "alpha": [ALPHA],
                  "digits": [Interval(int, 0, MAX_DIGITS), Options(FULL)], "trec_eval": [bool],
                  "stability": [bool]})
def build_report(evaluation: Evaluation, *, metrics: Sequence[str] | None = None,
                 runs: Sequence[str] | None = None, pairs: str | None = "all",
                 baseline: str | None = None, policy: str = "expected", test: str = "t",
                 correction: str = "holm", alpha: float = 0.05, seed: int = 0,
                 n_resamples: int = 9999, stability: bool = True, trec_eval: bool = False,
                 digits: int | str = 3) -> Report:
    """The :class:`Report` of ``evaluation``.

    Parameters
    ----------
    metrics, runs : optional
        Subsets, in this order (default: all, in the evaluation's order).
    pairs : {"all", "baseline"} or None
        Significance letters from testing every pair of runs (ranx's convention) or each run
        against ``baseline`` (default: the first run); None: no letters (no test is run).
    policy : str
        The tie policy whose per-query values are tested (must have been evaluated).
    test, correction, alpha, seed, n_resamples
        As :func:`tiedrank.stats.compare_runs` (correction per metric over its tests).
    stability : bool
        Run the same tests under every other fixed policy the evaluation holds
        (``ties="all"``) and mark with a dagger the cells whose letters change.
    trec_eval : bool
        Show each cell's trec_eval-order value in parentheses (when evaluated).
    digits : int or "full"
        Decimals shown (the numbers keep full precision), or ``"full"``: each number's
        shortest text that reads back as the same float64.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank import evaluate
    >>> qrels = pd.DataFrame({"query": ["1", "2"], "doc": ["x", "x"], "relevance": 1})
    >>> run = pd.DataFrame({"query": ["1", "1", "2"], "doc": ["x", "y", "x"], "score": [1.0, 1.0, 2.0]})
    >>> report = build_report(evaluate({"A": run}, qrels, ["RR"], ties="all"))
    >>> report.cells[["run", "key", "metric", "expected", "worst", "best"]].values.tolist()
    [['A', 'a', 'RR', 0.875, 0.75, 1.0]]
    >>> print(str(report).splitlines()[2])
    a  A    *0.875 [0.750, 1.000]
    """
    wide = evaluation.report()
    wide["run"], wide["metric"] = wide["run"].astype(str), wide["metric"].astype(str)
    metric_list = _subset(list(dict.fromkeys(wide["metric"])), metrics, "metric")
    run_list = _subset(list(dict.fromkeys(wide["run"])), runs, "run")
    value = "expected" if "expected" in wide.columns else next(
        c for c in wide.columns if c not in ("run", "metric", "bias"))
    significance, comparison, unstable = None, None, {}
    if pairs is not None and len(run_list) >= 2:
        options = dict(metrics=metric_list, test=test, correction=correction, alpha=alpha,
                       pairs=pairs, seed=seed, n_resamples=n_resamples, intervals=False)
        comparison = compare_runs(evaluation, baseline=baseline, runs=run_list, policy=policy,
                                  **options)
        evaluated = set(evaluation.per_query["policy"].astype(str))
        checked = tuple(p for p in ALL_POLICIES if p in evaluated and p != comparison.policy) \
            if stability else ()
        letters = _letters(comparison)
        for other in checked:
            again = _letters(compare_runs(evaluation, baseline=comparison.baseline,
                                          runs=run_list, policy=other, **options))
            for cell, marker in letters.items():
                if again.get(cell, "") != marker:
                    unstable.setdefault(cell, []).append(other)
        significance = Significance(test, correction, alpha, pairs, comparison.baseline,
                                    comparison.policy, checked)
        run_list = list(comparison.keys)  # the baseline first
    keys = comparison.keys if comparison is not None else dict(zip(run_list, run_keys(len(run_list))))
    cells = _cells(evaluation, wide, run_list, metric_list, keys, value, comparison, unstable)
    notes = tuple(dict.fromkeys(f.message for f in (comparison.findings if comparison else [])))
    shown_trec = bool(trec_eval and "trec_eval" in cells.columns and value != "trec_eval")
    return Report(cells, dict(keys), value, significance, shown_trec, digits, notes)


def _subset(available: list[str], chosen: Sequence[str] | None, what: str) -> list[str]:
    if chosen is None:
        return available
    chosen = [str(c) for c in chosen]
    unknown = [c for c in chosen if c not in available]
    if unknown:
        raise ValueError(f"{what}(s) {', '.join(map(repr, unknown))} not in the evaluation; "
                         f"evaluated: {', '.join(available)}")
    return list(dict.fromkeys(chosen))


def _letters(comparison: Any) -> dict[tuple[str, str], str]:
    table = comparison.table
    return {(str(r), str(m)): str(k) for r, m, k in zip(table["run"], table["metric"], table["marker"])}


def _cells(evaluation: Evaluation, wide: pd.DataFrame, runs: list[str], metrics: list[str],
           keys: dict[str, str], value: str, comparison: Any,
           unstable: dict[tuple[str, str], list[str]]) -> pd.DataFrame:
    """The tidy frame of :attr:`Report.cells` (runs x metrics, a few hundred rows)."""
    index = pd.MultiIndex.from_product([runs, metrics], names=["run", "metric"])
    frame = wide.set_index(["run", "metric"]).reindex(index).reset_index()
    counts = evaluation.summary.assign(run=evaluation.summary["run"].astype(str),
                                       metric=evaluation.summary["metric"].astype(str)) \
        .groupby(["run", "metric"], sort=False)["n_queries"].max()
    frame.insert(2, "key", frame["run"].map(keys))
    frame.insert(3, "n_queries", counts.reindex(index).fillna(0).astype(np.int64).to_numpy())
    policy_columns = [REPORT_COLUMNS.get(p, p) for p in ALL_POLICIES] + ["bias"]
    ordered = ["run", "key", "metric", "n_queries"] + [c for c in policy_columns if c in frame]
    frame = frame[ordered + [c for c in frame.columns if c not in ordered]]
    values = frame[value].to_numpy(dtype=np.float64)
    top = frame.assign(v=values).groupby("metric", sort=False)["v"].transform("max").to_numpy()
    frame["best_in_metric"] = np.isfinite(values) & (
        outcome(top - values, np.maximum(np.abs(top), np.abs(values))) == 0)
    if comparison is not None:
        table = comparison.table.assign(run=comparison.table["run"].astype(str),
                                        metric=comparison.table["metric"].astype(str))
        tested = table.set_index(["run", "metric"]).reindex(index)
        frame["beats"] = tested["marker"].fillna("").to_numpy()
        frame["p_value"] = tested["p_value"].to_numpy(dtype=np.float64)
        frame["p_corrected"] = tested["p_corrected"].to_numpy(dtype=np.float64)
    else:
        frame["beats"] = ""
        frame["p_value"] = frame["p_corrected"] = np.nan
    under = [", ".join(unstable.get((r, m), ())) for r, m in zip(frame["run"], frame["metric"])]
    frame["unstable"] = np.array([bool(u) for u in under])
    frame["unstable_under"] = under
    frame.columns.name = None
    return frame


plug_report(build_report)
