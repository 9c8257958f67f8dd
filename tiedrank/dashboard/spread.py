"""Spread page: per-query values under each policy, their ranges across queries, and where a
reported value falls among random tie-breaks.

>>> percentile_of(0.5, [0.2, 0.4, 0.5, 0.9]).sentence()
"trec_eval's order gives 0.500, higher than 50% of 4 random tie-breaks, equal to 25% and lower than 25%"
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.policies import REPORT_COLUMNS
from ..metrics import Metric
from ..report import markdown_literal
from .labels import BEST_CASE, WORST_CASE

PERCENTILE_TOLERANCE = 1e-12
"""Two run means closer than this (relative) count as equal in :func:`percentile_of`."""


def policy_values(per_query: pd.DataFrame, run: str, metric: "str | Metric",
                  query: str | None = None) -> "dict[str, float] | pd.DataFrame":
    """Values of ``metric`` (a :class:`~tiedrank.metrics.Metric` or its name, as the
    settings validated it) for ``run`` under each evaluated policy.

    With ``query``: ``{policy: value}`` for that query (empty if it is not evaluated);
    without: a wide frame, one row per query (query + one column per policy).
    """
    block = per_query[(per_query["run"].astype(str) == run)
                      & (per_query["metric"].astype(str) == str(metric))]
    if query is not None:
        block = block[block["query"].astype(str) == str(query)]
        return {str(p): float(v) for p, v in zip(block["policy"], block["value"])}
    wide = block.pivot_table(index="query", columns="policy", values="value", observed=True,
                             sort=False)
    wide.columns = [str(c) for c in wide.columns]
    wide.columns.name = None
    return wide.reset_index()


RANGE_ROWS = 300
"""The most queries the range chart draws (one bar each, widest first): the chart of 6,980
queries was 180,000 pixels tall and 1.8 MB; the table below it holds every query."""


def query_ranges(per_query: pd.DataFrame, run: str, metric: str, *,
                 query_text: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Per query: worst, best, expected and trec_eval-order value, and the width best - worst.

    Sorted by width, widest first (ties by query id). ``per_query`` must hold the four
    policies of ``ties="all"``. Empty (same columns) when no query of ``run`` is evaluated.
    """
    wide = policy_values(per_query, run, metric)
    needed = [WORST_CASE, BEST_CASE, "expected", "trec_eval"]
    missing = [p for p in needed if p not in wide.columns]
    if missing and not wide.empty:
        raise ValueError(f"the evaluation lacks the policies {', '.join(missing)}; use ties='all'")
    if wide.empty:  # no query of the run is evaluated (say, none has a relevant document)
        wide = pd.DataFrame({"query": pd.Series([], dtype=str),
                             **{p: pd.Series([], dtype=np.float64) for p in needed}})
    out = pd.DataFrame({"query": wide["query"].astype(str)})
    if query_text is not None:
        out["text"] = [query_text.get(q, "") for q in out["query"]]
    for policy in needed:  # the report's words: worst, best, expected, trec_eval
        out[REPORT_COLUMNS[policy]] = wide[policy].to_numpy()
    out["width"] = out["best"] - out["worst"]
    return out.sort_values(["width", "query"], ascending=[False, True], kind="stable",
                           ignore_index=True)


@dataclass(frozen=True)
class Percentile:
    """Where ``value`` falls among ``n`` draws: shares strictly below, equal and above."""

    value: float
    n: int
    below: float
    equal: float
    above: float
    exact: bool = False  # shares of all tie-breaks (the lattice law), not of n draws

    def sentence(self, label: str = "trec_eval's order", digits: int = 3) -> str:
        """E.g. "trec_eval's order gives 0.767, higher than 23% of random tie-breaks"."""
        among = "all tie-breaks (exact)" if self.exact else f"{self.n:,} random tie-breaks"
        text = f"{label} gives {self.value:.{digits}f}, higher than {_percent(self.below)} of {among}"
        if self.equal > 0:
            text += f", equal to {_percent(self.equal)}"
        text += f" and lower than {_percent(self.above)}"
        return text


def _percent(share: float) -> str:
    pct = 100 * share
    if pct in (0.0, 100.0) or 1 <= pct <= 99:
        return f"{pct:.0f}%"
    return f"{pct:.1f}%"


def percentile_of(value: float, draws: Sequence[float] | np.ndarray, *,
                  tolerance: float = PERCENTILE_TOLERANCE) -> Percentile:
    """Share of ``draws`` strictly below, equal to and above ``value``.

    Draws within ``tolerance`` (relative to max(1, |value|)) of the value count as equal:
    a run mean computed along two summation orders may differ in the last bits.
    NaN draws are ignored.
    """
    draws = np.asarray(draws, dtype=np.float64)
    draws = draws[~np.isnan(draws)]
    n = len(draws)
    if n == 0:
        return Percentile(float(value), 0, math.nan, math.nan, math.nan)
    tol = tolerance * max(1.0, abs(float(value)))
    below = int(np.count_nonzero(draws < value - tol))
    above = int(np.count_nonzero(draws > value + tol))
    return Percentile(float(value), n, below / n, (n - below - above) / n, above / n)


def exact_percentile(table, metric: str, value: float) -> Percentile | None:
    """Where ``value`` falls among ALL random tie-breaks of the run's mean, exactly, on the
    lattice metrics (Success@k, P@k, R@k, Rprec) via :func:`tiedrank.sampling.run_mean_law`;
    None for other metrics (use :func:`percentile_of` on draws) or a lattice too large."""
    from ..sampling import run_mean_law

    if not math.isfinite(value):
        return None
    try:
        law = run_mean_law(table, metric)
    except (ValueError, TypeError, KeyError, NotImplementedError):
        return None
    below, equal, above = law.split(value)
    return Percentile(float(value), 0, float(below), float(equal), float(above), exact=True)


def describe_ranges(ranges: pd.DataFrame, metric: str) -> str:
    """One sentence about :func:`query_ranges`: how many queries move, and how far."""
    n = len(ranges)
    if n == 0:
        return f"No query is evaluated for {metric}."
    moving = int((ranges["width"] > 1e-12).sum())
    if moving == 0:
        return f"No query's {metric} depends on the tie-break: every ordering gives the same value."
    widest = ranges.iloc[0]
    return (f"{moving} of {n} queries change {metric} with the tie-break; the mean width of the "
            f"range is {ranges['width'].mean():.3f} and the widest is query "
            f"{markdown_literal(widest['query'])} "
            f"({widest['worst']:.3f} to {widest['best']:.3f}).")


def draws_table(draws: Sequence[float] | np.ndarray, marks: Mapping[str, float], *,
                seed: int | None = None) -> pd.DataFrame:
    """Summary of random tie-break draws beside the reported values (a downloadable table).

    Rows: statistic, value — draws, seed, mean, standard deviation, min, 5th percentile,
    median, 95th percentile, max, then each mark and, for ``trec_eval``, the shares of
    draws below / equal / above it.
    """
    draws = np.asarray(draws, dtype=np.float64)
    rows: list[tuple[str, float]] = [("draws", float(len(draws)))]
    if seed is not None:
        rows.append(("seed", float(seed)))
    if len(draws):
        q05, q50, q95 = np.quantile(draws, [0.05, 0.5, 0.95])
        rows += [("mean of draws", float(draws.mean())), ("standard deviation", float(draws.std())),
                 ("min", float(draws.min())), ("5th percentile", float(q05)), ("median", float(q50)),
                 ("95th percentile", float(q95)), ("max", float(draws.max()))]
    for policy, value in marks.items():
        rows.append((f"{policy} value", float(value)))
        if policy == "trec_eval" and len(draws):
            p = percentile_of(value, draws)
            rows += [("share of draws below trec_eval", p.below),
                     ("share of draws equal to trec_eval", p.equal),
                     ("share of draws above trec_eval", p.above)]
    return pd.DataFrame(rows, columns=["statistic", "value"])
