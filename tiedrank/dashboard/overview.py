"""Overview page: the runs x metrics table, order flips between policies, tie statistics, findings.

The table marks the best run per metric by expectation (:data:`BEST_MARKER`, bold on screen
through a pandas Styler whose data stay numeric, so the columns sort by value), and
:func:`verdict_sentence` says above it which run is best by expectation and which in
trec_eval's order.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from ..core.policies import ALL_POLICIES
from ..evaluation import Evaluation
from ..stats import outcome
from ..report import Report, build_report, markdown_literal
from ..core.tie_statistics import tie_statistics
from ..core.ties import TieTable
from .labels import BEST_CASE, WORST_CASE

BEST_MARKER = "★"
"""Put before the cell of the best run per metric (by expectation)."""
DOWNLOAD_TESTS = {"pairs": "all", "policy": "expected", "test": "t", "correction": "holm",
                  "alpha": 0.05}
"""The significance letters of the Overview's LaTeX and Markdown downloads (the page has no
test controls: ranx's all pairs, a paired t-test under the expectation, Holm, 0.05)."""
MAX_DOWNLOAD_TESTS = 3_000
"""Most paired tests the Overview's LaTeX / Markdown downloads run (every pair, under each
of the four fixed policies; about 5 ms each): beyond it the files carry no letters, and
their caption says so and how to get them."""
DOWNLOAD_HELP = ("The report grid (tiedrank.report.Report): CSV and Parquet hold the numbers "
                 "(every tie policy its own column, full precision, no symbols); LaTeX "
                 "(booktabs, compiles with pdflatex) and Markdown show each cell as expected "
                 "[worst, best] (trec_eval), the best run per metric in bold, the letters of "
                 "the runs a run significantly beats (paired t-test of every pair on the "
                 "expected values, Holm, p <= 0.05) and a dagger where those letters change "
                 "under another tie policy; the caption says so.")
"""The help of the Overview's download buttons."""


def overview_report(evaluation: Evaluation, *, letters: bool, digits: int = 3) -> Report:
    """The report grid the Overview's downloads write: the page's evaluation (its metrics in
    the page's order), trec_eval's value in parentheses (as on screen); ``letters``: with the significance
    letters of :data:`DOWNLOAD_TESTS` (no test is run without them: the numeric files).

    Examples
    --------
    >>> from tiedrank import evaluate
    >>> qrels = pd.DataFrame({"query": ["1", "2"], "doc": ["x", "x"], "relevance": 1})
    >>> run = pd.DataFrame({"query": ["1", "1", "2"], "doc": ["x", "y", "x"],
    ...                     "score": [1.0, 1.0, 2.0]})
    >>> ev = evaluate({"A": run, "B": run}, qrels, ["RR"], ties="all")
    >>> overview_report(ev, letters=False).numbers()[["run", "expected", "trec_eval"]].values.tolist()
    [['A', 0.875, 0.75], ['B', 0.875, 0.75]]
    """
    n_runs, n_metrics = len(evaluation.tables), len(evaluation.metrics)
    tests = n_runs * (n_runs - 1) // 2 * n_metrics * len(ALL_POLICIES)
    if letters and tests > MAX_DOWNLOAD_TESTS:  # a bounded wait, whatever was uploaded
        report = build_report(evaluation, pairs=None, trec_eval=True, digits=digits)
        return replace(report, notes=(
            f"No significance letters: {n_runs} runs x {n_metrics} "
            f"metric{'s' if n_metrics != 1 else ''} would take "
            f"{tests:,} paired tests here (at most {MAX_DOWNLOAD_TESTS:,}); tiedrank compare "
            "--all-pairs --format latex computes them",))
    options = DOWNLOAD_TESTS if letters else {"pairs": None}
    return build_report(evaluation, trec_eval=True, digits=digits, **options)


def fmt_value(value: float, digits: int = 3) -> str:
    return "–" if value is None or pd.isna(value) else f"{value:.{digits}f}"


def format_cell(expected: float, worst: float, best: float, trec: float, digits: int = 3) -> str:
    """``0.791 [0.455, 0.973] · trec 0.767``."""
    return (f"{fmt_value(expected, digits)} [{fmt_value(worst, digits)}, "
            f"{fmt_value(best, digits)}] · trec {fmt_value(trec, digits)}")


def best_runs(report: pd.DataFrame, metric: str, column: str = "expected") -> list[str]:
    """The runs with the highest ``column`` value of ``metric`` (several when equal within
    the one rule of :func:`tiedrank.stats.outcome`), in report order; [] without a value.

    Examples
    --------
    >>> report = pd.DataFrame({"run": ["a", "b", "c"], "metric": "RR",
    ...                        "expected": [0.5, 0.7, 0.7], "trec_eval": [0.9, 0.6, 0.7]})
    >>> best_runs(report, "RR"), best_runs(report, "RR", "trec_eval")
    (['b', 'c'], ['a'])
    """
    block = report[report["metric"].astype(str) == str(metric)]
    if column not in block.columns:
        return []
    values = block[column].to_numpy(dtype=np.float64)
    if not np.isfinite(values).any():
        return []
    top = np.nanmax(values)
    ahead = outcome(top - values, np.maximum(abs(top), np.abs(values)))
    return [str(r) for r, a, v in zip(block["run"], ahead, values) if a == 0 and np.isfinite(v)]


def _bold(name: str) -> str:
    return "**" + markdown_literal(name) + "**"


def _names(runs: Sequence[str]) -> str:
    names = [_bold(r) for r in runs]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _best(runs: Sequence[str], how: str, value: str | None = None) -> str:
    """"the best run <how> is **a** (0.700)" or, for runs equal at the top, "the best runs
    <how> are **a** and **b** (equal, 0.700)"."""
    if len(runs) == 1:
        return f"the best run{how} is {_names(runs)}" + (f" ({value})" if value else "")
    return f"the best runs{how} are {_names(runs)} (equal" + (f", {value})" if value else ")")


def verdict_sentence(report: pd.DataFrame, metric: str, digits: int = 3) -> str:
    """One sentence: the best run on ``metric`` by expectation and in trec_eval's order, and
    whether the tie-break changes the winner (run names in Markdown bold; runs equal at the
    top are named together, in the plural).

    Examples
    --------
    >>> report = pd.DataFrame({"run": ["a", "b"], "metric": "RR", "expected": [0.5, 0.7],
    ...                        "trec_eval": [0.9, 0.6]})
    >>> verdict_sentence(report, "RR")
    "On RR the best run by expectation is **b** (0.700), but in trec_eval's order the best run is **a** (0.900): the tie-break changes the winner."
    >>> verdict_sentence(report.assign(trec_eval=[0.5, 0.8]), "RR")
    "On RR the best run is **b**, both by expectation (0.700) and in trec_eval's order (0.800)."
    >>> verdict_sentence(report.assign(expected=[0.7, 0.7]), "RR")
    "On RR the best runs by expectation are **a** and **b** (equal, 0.700), but in trec_eval's order the best run is **a** (0.900): the tie-break changes the winner."
    """
    block = report[report["metric"].astype(str) == str(metric)].assign(run=lambda f: f["run"].astype(str))
    value = lambda runs, column: fmt_value(block.set_index("run").loc[runs[0], column], digits)
    expected = best_runs(block, metric, "expected")
    if not expected:
        return f"No run has a value on {metric}."
    trec = best_runs(block, metric, "trec_eval")
    if not trec:
        return f"On {metric} {_best(expected, ' by expectation', value(expected, 'expected'))}."
    if set(trec) == set(expected):
        return (f"On {metric} {_best(expected, '')}, both by expectation "
                f"({value(expected, 'expected')}) and in trec_eval's order "
                f"({value(trec, 'trec_eval')}).")
    return (f"On {metric} {_best(expected, ' by expectation', value(expected, 'expected'))}, "
            f"but in trec_eval's order {_best(trec, '', value(trec, 'trec_eval'))}: the "
            "tie-break changes the winner.")


def overview_cells(report: pd.DataFrame, metrics: Sequence[str] | None = None, *,
                   flips: pd.DataFrame | None = None, digits: int = 3,
                   marker: str = "⚠", best: str | None = None) -> pd.DataFrame:
    """The overview table: one row per run, one text column per metric.

    Each cell reads ``expected [worst, best] · trec trec_eval``. Columns of metrics whose
    run order differs between the policies compared in ``flips`` get ``marker`` in their
    header, and so do the cells of the runs that swap. With ``best`` (e.g.
    :data:`BEST_MARKER`), the cells of the best runs per metric by expectation
    (:func:`best_runs`) start with it.

    Parameters
    ----------
    report : DataFrame
        :meth:`tiedrank.Evaluation.report` of an evaluation with ``ties="all"``.
    metrics : list of str, optional
        Column order (default: the report's order).
    flips : DataFrame, optional
        :func:`order_flips` output.
    """
    metrics = list(metrics) if metrics is not None else list(dict.fromkeys(report["metric"].astype(str)))
    runs = list(dict.fromkeys(report["run"].astype(str)))
    indexed = report.assign(run=report["run"].astype(str), metric=report["metric"].astype(str)) \
        .set_index(["run", "metric"])
    flipped: dict[str, set[str]] = {}
    if flips is not None and len(flips):
        for row in flips.itertuples(index=False):
            # mark only the runs whose own value moves with the tie-break (a run with 0 %
            # ties swaps only because of the other run's ties: no marker on it)
            moved = [run for run, a, b in ((row.run_a, row.a_value_a, row.b_value_a),
                                           (row.run_b, row.a_value_b, row.b_value_b))
                     if round(float(a), digits) != round(float(b), digits)]
            flipped.setdefault(str(row.metric), set()).update(map(str, moved))
    top = {m: set(best_runs(report, m)) for m in metrics} if best is not None else {}
    table = pd.DataFrame({"run": runs})
    for metric in metrics:
        cells = []
        for run in runs:
            if (run, metric) not in indexed.index:
                cells.append("–")
                continue
            row = indexed.loc[(run, metric)]
            cell = format_cell(row.get("expected", np.nan), row.get("worst", np.nan),
                               row.get("best", np.nan), row.get("trec_eval", np.nan), digits)
            if run in flipped.get(metric, ()):
                cell = f"{marker} {cell}"
            if best is not None and run in top.get(metric, ()):
                cell = f"{best} {cell}"
            cells.append(cell)
        header = f"{metric} {marker}" if metric in flipped else metric
        table[header] = cells
    return table


def overview_styled(report: pd.DataFrame, cells: pd.DataFrame,
                    metrics: Sequence[str] | None = None) -> Styler:
    """The overview table for ``st.dataframe``: the expected values as data (a click on a
    header sorts the runs by value, not by text), ``cells`` (:func:`overview_cells`, same
    rows and columns) as what is shown, and the best cells per metric in bold.

    Examples
    --------
    >>> report = pd.DataFrame({"run": ["a", "b"], "metric": "RR", "expected": [0.5, 0.7],
    ...                        "worst": [0.4, 0.7], "best": [0.6, 0.7], "trec_eval": [0.5, 0.7]})
    >>> styled = overview_styled(report, overview_cells(report, best=BEST_MARKER))
    >>> styled.data["RR"].tolist()
    [0.5, 0.7]
    >>> html = styled.to_html()
    >>> "★ 0.700 [0.700, 0.700] · trec 0.700" in html, "font-weight: bold" in html
    (True, True)
    """
    metrics = list(metrics) if metrics is not None else list(dict.fromkeys(report["metric"].astype(str)))
    expected = report.assign(run=report["run"].astype(str), metric=report["metric"].astype(str)) \
        .pivot_table(index="run", columns="metric", values="expected", aggfunc="first", dropna=False)
    data = pd.DataFrame({"run": cells["run"]})
    bold = pd.DataFrame("", index=cells.index, columns=cells.columns)
    for metric, header in zip(metrics, cells.columns[1:]):
        values = expected[metric].reindex(cells["run"]) if metric in expected else np.nan
        data[header] = np.asarray(values, dtype=np.float64)
        top = set(best_runs(report, metric))
        bold[header] = ["font-weight: bold" if r in top else "" for r in cells["run"]]
    shown = cells.set_axis(data.index)
    styler = data.style.format(lambda v: v)  # the run column as is
    for header in cells.columns[1:]:
        for i in data.index:  # display only: runs x metrics cells, a few dozen
            styler = styler.format(lambda _, text=shown.at[i, header]: text,
                                   subset=pd.IndexSlice[[i], [header]])
    return styler.apply(lambda _: bold, axis=None)


def overview_long(report: pd.DataFrame) -> pd.DataFrame:
    """The numeric long table: run, metric, expected, worst, best, trec_eval, bias, range."""
    out = report.copy()
    out["run"] = out["run"].astype(str)
    out["metric"] = out["metric"].astype(str)
    if {"best", "worst"} <= set(out.columns):
        out["range"] = out["best"] - out["worst"]
    order = [c for c in ("run", "metric", "expected", "worst", "best", "trec_eval", "bias", "range")
             if c in out.columns]
    return out[order + [c for c in out.columns if c not in order]].reset_index(drop=True)


def order_flips(report: pd.DataFrame, policy_a: str = "expected", policy_b: str = "trec_eval",
                tol: float = 1e-12, digits: int | None = None) -> pd.DataFrame:
    """Pairs of runs whose order differs between two policies, per metric.

    A pair (run_a, run_b) is listed when ``policy_a`` puts run_a strictly above run_b and
    ``policy_b`` puts run_b strictly above run_a (differences within ``tol`` are ties and
    never count as a swap).

    Parameters
    ----------
    report : DataFrame
        :meth:`tiedrank.Evaluation.report` (columns ``expected``, ``best``, ``worst``,
        ``trec_eval``); ``policy_a``/``policy_b`` are its column names.
    digits : int, optional
        Compare values rounded to this many decimals (the display precision), so a pair
        that looks equal on screen is never reported as a swap.

    Returns
    -------
    DataFrame
        metric, run_a, run_b, a_value_a, a_value_b, b_value_a, b_value_b: run_a is the run
        ranked higher by ``policy_a``; sorted by metric order, then by the size of the swap.
    """
    columns = ["metric", "run_a", "run_b", "a_value_a", "a_value_b", "b_value_a", "b_value_b"]
    if policy_a not in report.columns or policy_b not in report.columns:
        return pd.DataFrame(columns=columns)
    rows = []
    for metric, block in report.groupby(report["metric"].astype(str), sort=False):
        names = block["run"].astype(str).to_numpy()
        a = block[policy_a].to_numpy(dtype=float)
        b = block[policy_b].to_numpy(dtype=float)
        shown_a, shown_b = (a, b) if digits is None else (np.round(a, digits), np.round(b, digits))
        da = shown_a[:, None] - shown_a[None, :]
        db = shown_b[:, None] - shown_b[None, :]
        swapped = (da > tol) & (db < -tol)
        for i, j in zip(*np.nonzero(swapped)):
            rows.append((metric, names[i], names[j], a[i], a[j], b[i], b[j]))
    out = pd.DataFrame(rows, columns=columns)
    if len(out):
        order = {m: n for n, m in enumerate(dict.fromkeys(report["metric"].astype(str)))}
        out["_m"] = out["metric"].map(order)
        out["_gap"] = (out["b_value_b"] - out["b_value_a"]) + (out["a_value_a"] - out["a_value_b"])
        out = out.sort_values(["_m", "_gap"], ascending=[True, False]).drop(columns=["_m", "_gap"])
    return out.reset_index(drop=True)


_POLICY_WORDS = {"expected": "by expectation", "trec_eval": "in trec_eval's order",
                 "best": "in the best case", "worst": "in the worst case",
                 BEST_CASE: "in the best case", WORST_CASE: "in the worst case",
                 "input": "in file order"}


def flip_sentences(flips: pd.DataFrame, policy_a: str = "expected", policy_b: str = "trec_eval",
                   digits: int = 3) -> list[str]:
    """One sentence per swapped pair, naming the runs and both values."""
    wa, wb = _POLICY_WORDS.get(policy_a, policy_a), _POLICY_WORDS.get(policy_b, policy_b)
    out = []
    for row in flips.itertuples(index=False):
        out.append(
            f"{row.metric}: {wa} {_bold(row.run_a)} ({row.a_value_a:.{digits}f}) ranks above "
            f"{_bold(row.run_b)} ({row.a_value_b:.{digits}f}), but {wb} {_bold(row.run_b)} "
            f"({row.b_value_b:.{digits}f}) ranks above {_bold(row.run_a)} ({row.b_value_a:.{digits}f}).")
    return out


TIE_STAT_LABELS = {
    "queries": "queries with results",
    "queries_with_ties": "queries with ties",
    "docs_in_ties": "share of docs in ties",
    "largest_group": "largest group",
    "mean_group_size_top": "mean group size (top {top})",
    "distinct_scores": "distinct scores per query",
}


def tie_statistics_frame(tables: Mapping[str, TieTable], top: int = 10) -> pd.DataFrame:
    """One row per run: :func:`tiedrank.core.tie_statistics.tie_statistics` with readable column names."""
    rows = []
    for name, table in tables.items():
        stats = tie_statistics(table, top=top)
        rows.append({"run": name} | {TIE_STAT_LABELS[k].format(top=top): v for k, v in stats.items()
                                      if k in TIE_STAT_LABELS})
    return pd.DataFrame(rows)
