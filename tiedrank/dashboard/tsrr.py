"""TsRR page: TsRR's ingredients per query, the reference lines of the alpha sweep, and its two
pathologies on live toy examples.

Every value goes through the core as ``evaluate`` computes it: the tables come from
:func:`~tiedrank.evaluation.build_tables` with an :class:`~tiedrank.core.options.
EvaluationOptions`, the per-query values from :func:`~tiedrank.evaluation.score_tables`
(E[RR] under ``expected``, RR under ``trec_eval``, TsRR and TsRR2), the curves over alpha from
:func:`~tiedrank.evaluation.tsrr_sweep`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from ..evaluation import build_tables, score_tables, tsrr_sweep
from ..core.options import EvaluationOptions
from ..core.ties import TieTable
from ..metrics import Metric, first_relevant_group
from .learn import SCENARIOS, synthetic_inputs

REFERENCE_POLICIES = ("expected", "trec_eval")
"""The policies of the page's values: E[RR] is RR under ``expected``, trec_eval's RR under
``trec_eval`` (TsRR and TsRR2 are the same under every policy)."""


def _query_values(table: TieTable, alpha: float | None = None) -> dict[str, np.ndarray]:
    """TsRR(alpha) (when given), TsRR2, E[RR] and RR in trec_eval's order of every query of
    ``table``, scored by :func:`~tiedrank.evaluation.score_tables` with the options the
    table was built with (so every query of the table is in the result, in its order)."""
    metrics = ([Metric("TsRR", alpha=float(alpha))] if alpha is not None else []) + \
        [Metric("TsRR2"), Metric("RR")]
    options = EvaluationOptions(ties=REFERENCE_POLICIES, rel_level=table.rel_level,
                                judged_only=table.judged_only)
    # every query of the table counts here (the page filters to the evaluated ones itself);
    # the query set changes which rows are kept, never a value
    every_query = replace(table, complete=True, query_set="trec_eval")
    per_query = score_tables({table.run_name: every_query}, metrics, options).per_query
    values = {(metric, policy): block["value"].to_numpy()
              for (metric, policy), block in per_query.groupby(["metric", "policy"],
                                                                observed=True, sort=False)}
    out = {"TsRR2": values["TsRR2", "expected"], "E[RR]": values["RR", "expected"],
           "RR (trec_eval order)": values["RR", "trec_eval"]}
    if alpha is not None:
        out[f"TsRR(alpha={alpha:g})"] = values[metrics[0].name, "expected"]
    return out


def _toy_table(lists: Sequence[tuple[Sequence[float], Sequence[int]]]) -> TieTable:
    """The expected table of toy lists (one query each), built as every door builds one."""
    run, qrels = synthetic_inputs(lists)
    options = EvaluationOptions(ties=REFERENCE_POLICIES)
    return build_tables({run.name: run}, qrels, options)[run.name]


TSRR_LATEX = (r"\begin{gathered}\mathrm{TsRR}_\alpha = \frac{1 - \left(\dfrac{\ln(1+F_G)}"
              r"{\ln(1+F_{\mathrm{total}})}\right)^{1/\alpha}}{r_{\mathrm{pre}} + 1}\\[4pt]"
              r"\mathrm{TsRR}_\alpha = \frac{1}{r_{\mathrm{pre}}+1}\ \text{if}\ F_{\mathrm{total}} = 0"
              r"\end{gathered}")
"""TsRR's definition: two short lines (a single line, 620 px, ran past an 800-px window)."""
TSRR2_LATEX = (r"\begin{gathered}\mathrm{TsRR2} = \frac{1}{a + (1-\tau)\dfrac{t+1}{r+1} + \tau\,(t-r+1)}"
               r"\\[4pt]\tau = F_G / F_{\mathrm{total}}\end{gathered}")
ERR_LATEX = r"\mathbb{E}[\mathrm{RR}] = \sum_{j=1}^{t-r+1} \frac{\binom{t-j}{r-1}}{\binom{t}{r}}\,\frac{1}{a+j}"


def tsrr_components(table: TieTable) -> pd.DataFrame:
    """TsRR's ingredients per query: r_pre = a, t, r, F_G = t - r, F_total.

    Columns query, relevant retrieved (bool), a (r_pre: documents above the first relevant
    group), t (its size), r (relevant in it), F_G, F_total (irrelevant documents retrieved).
    """
    found, a, t, r = first_relevant_group(table)
    a, t, r = (v.astype(np.int64) for v in (a, t, r))  # counts, shown as integers
    return pd.DataFrame({"query": table.queries.astype(str), "relevant retrieved": found,
                         "a (r_pre)": a, "t": t, "r": r, "F_G": t - r,
                         "F_total": table.n_retrieved - table.relevant_retrieved})


def tsrr_query_table(table: TieTable, alpha: float, *, query_text: Mapping[str, str] | None = None,
                     include_all: bool = False) -> pd.DataFrame:
    """Per query: TsRR's ingredients, TsRR(alpha), TsRR2, E[RR] and RR in trec_eval's order.

    Only queries with a relevant document in the qrels are kept (as in every mean) unless
    ``include_all``.
    """
    out = tsrr_components(table)
    if query_text is not None:
        out.insert(1, "text", [query_text.get(q, "") for q in out["query"]])
    values = _query_values(table, alpha)
    for column in (f"TsRR(alpha={alpha:g})", "TsRR2", "E[RR]", "RR (trec_eval order)"):
        out[column] = values[column]
    if not include_all:
        out = out[table.evaluated]
    return out.reset_index(drop=True)


NO_REFERENCES = ""
"""The TsRR page's "Reference lines for" choice that draws none."""

REFERENCE_METRICS = {"MRR (trec_eval order)": ("RR", "trec_eval"), "E[RR]": ("RR", "expected"),
                     "TsRR2": ("TsRR2", "expected")}
"""Reference lines of the alpha sweep: label -> (metric, policy)."""


def sweep_references(summary: pd.DataFrame) -> pd.DataFrame:
    """Reference lines per run from an evaluation summary of RR and TsRR2.

    ``summary`` must hold (run, metric, policy, value) rows for RR under expected and
    trec_eval and for TsRR2 (any policy). Returns columns run, reference, value.
    """
    rows = []
    for run in pd.unique(summary["run"].astype(str)):
        block = summary[summary["run"].astype(str) == run]
        for label, (metric, policy) in REFERENCE_METRICS.items():
            hit = block[(block["metric"].astype(str) == metric)
                        & ((block["policy"].astype(str) == policy) | (metric == "TsRR2"))]
            if len(hit):
                rows.append({"run": run, "reference": label, "value": float(hit["value"].iloc[0])})
    return pd.DataFrame(rows, columns=["run", "reference", "value"])


def alpha_grid(log10_low: float = -2.0, log10_high: float = 2.0, points: int = 201) -> np.ndarray:
    """``points`` alphas evenly spaced in log10 between the two exponents (inclusive)."""
    if log10_high < log10_low:
        log10_low, log10_high = log10_high, log10_low
    return np.logspace(log10_low, log10_high, max(int(points), 2))


def fully_tied_example(n_docs: int = 5, relevant_at: int = 3,
                       alphas: Sequence[float] | np.ndarray | None = None) -> pd.DataFrame:
    """Pathology 1: a list whose documents all tie, one relevant, at every alpha.

    TsRR is 0 for every alpha (F_G = F_total), whereas E[RR] = H_n / n > 0.
    Columns alpha, TsRR, E[RR], TsRR2.
    """
    n_docs = max(int(n_docs), 2)
    relevant_at = min(max(int(relevant_at), 1), n_docs)
    alphas = alpha_grid() if alphas is None else np.asarray(alphas, dtype=np.float64)
    grades = [1 if i + 1 == relevant_at else 0 for i in range(n_docs)]
    table = _toy_table([([0.5] * n_docs, grades)])
    values = _query_values(table)
    curve = tsrr_sweep({table.run_name: table}, alphas)  # the mean of the one query
    return pd.DataFrame({"alpha": alphas, "TsRR": curve["value"].to_numpy(),
                         "E[RR]": float(values["E[RR]"][0]),
                         "TsRR2": float(values["TsRR2"][0])})


APPENDED_BASE = SCENARIOS["S2"]
"""The list :func:`appended_example` starts from: Learn's scenario S2 (d2 relevant, tied with
d3)."""


def appended_example(scores: Sequence[float] = APPENDED_BASE.scores,
                     grades: Sequence[int] = APPENDED_BASE.grades, *, max_appended: int = 50,
                     alpha: float = 1.0) -> pd.DataFrame:
    """Pathology 2: append 0..max_appended irrelevant documents *below* the list.

    Nothing above or around the relevant document changes, yet TsRR rises (F_total grows);
    E[RR] and RR in trec_eval's order do not move. Columns appended, TsRR, E[RR], TsRR2,
    RR (trec_eval order).
    """
    scores = [float(s) for s in scores]
    grades = [int(g) for g in grades]
    bottom = min(scores)
    lists = []
    for m in range(int(max_appended) + 1):
        extra = [bottom - (i + 1) for i in range(m)]  # strictly below every original score
        lists.append((scores + extra, grades + [0] * m))
    values = _query_values(_toy_table(lists), alpha)
    return pd.DataFrame({"appended": np.arange(int(max_appended) + 1),
                         f"TsRR(alpha={alpha:g})": values[f"TsRR(alpha={alpha:g})"],
                         "E[RR]": values["E[RR]"], "TsRR2": values["TsRR2"],
                         "RR (trec_eval order)": values["RR (trec_eval order)"]})


SHOWN_DIGITS = range(4, 13)
"""Decimals the pathology's sentence may use: 4, or more until the two values differ."""


def distinct_digits(a: float, b: float, digits: Sequence[int] = SHOWN_DIGITS) -> int | None:
    """The fewest decimals (from ``digits``) at which ``a`` and ``b`` print differently, or
    ``None`` when they agree to the last of them.

    >>> distinct_digits(0.28466, 0.37202), distinct_digits(0.4999890, 0.4999994)
    (4, 5)
    >>> distinct_digits(0.5, 0.5) is None
    True
    """
    for d in digits:
        if f"{a:.{d}f}" != f"{b:.{d}f}":
            return d
    return None


def appended_sentence(start: float, now: float, appended: int, alpha: float) -> tuple[str, str]:
    """Pathology 2 in words, true at every alpha: (sentence in Markdown, the card's delta).

    ``start`` and ``now`` are TsRR before and after appending ``appended`` irrelevant
    documents. The values are shown with as many decimals as it takes to tell them apart
    (:func:`distinct_digits`); when they agree to 12 decimals (a small alpha: TsRR is
    1/(r_pre+1) all but exactly), the sentence says the change is below 10⁻¹² instead of
    "raises it from 0.5000 to 0.5000".

    >>> appended_sentence(0.28466, 0.37202, 10, 1.0)[0][:80]
    'Appending 10 irrelevant documents *below* the list raises TsRR from 0.2847 to **'
    >>> appended_sentence(0.5, 0.5, 10, 0.01)
    ('Appending 10 irrelevant documents *below* the list changes TsRR by less than 10⁻¹² at alpha = 0.01: it stays **0.5000**. So small an alpha barely counts the tied irrelevant document at all, before or after; a larger alpha shows the rise.', 'below 1e-12')
    """
    appended = int(appended)
    if appended == 0:
        return (f"With nothing appended TsRR is **{now:.4f}**: move the slider to append "
                "irrelevant documents below the list.", "nothing appended")
    docs = f"{appended} irrelevant document{'s' if appended != 1 else ''}"
    digits = distinct_digits(start, now)
    if digits is None:
        return (f"Appending {docs} *below* the list changes TsRR by less than 10⁻¹² at "
                f"alpha = {alpha:.3g}: it stays **{now:.4f}**. So small an alpha barely counts "
                "the tied irrelevant document at all, before or after; a larger alpha shows the "
                "rise.", "below 1e-12")
    verb = "raises" if now > start else "lowers"
    return (f"Appending {docs} *below* the list {verb} TsRR from {start:.{digits}f} to "
            f"**{now:.{digits}f}**, although the top of the ranking is untouched: F_total "
            "grows, so the tied irrelevant document weighs less.", f"{now - start:+.{digits}f}")


# ---- permutation spread ------------------------------------------------------------------------


def sweep_table(sweep: pd.DataFrame) -> pd.DataFrame:
    """The sweep wide: one row per alpha, one column ``TsRR <run>`` per run (for download)."""
    wide = sweep.pivot_table(index="alpha", columns="run", values="value", sort=False, observed=True)
    out = pd.DataFrame({"alpha": wide.index.to_numpy()})
    for run in wide.columns:
        out[f"TsRR {run}"] = wide[run].to_numpy()
    return out


# ---- alpha controls ------------------------------------------------------------------------------
def alpha_steps(log10_low: float = -3.0, log10_high: float = 3.0, per_decade: int = 10) -> list[float]:
    """The alphas the page's sliders offer: ``per_decade`` per factor of 10, rounded to three
    significant digits (0.001, 0.00126, ..., 1, 1.26, ..., 1000), so the sliders show alpha
    itself rather than its logarithm."""
    exponents = np.arange(round(log10_low * per_decade), round(log10_high * per_decade) + 1) / per_decade
    return [float(f"{10.0 ** e:.3g}") for e in exponents]


def format_alpha(alpha: float) -> str:
    """``0.01``, ``1.26``, ``100``: an alpha as the sliders show it."""
    return f"{alpha:g}"


def nearest_alpha(value: float, options: Sequence[float]) -> float:
    """The option closest to ``value`` on a log scale (a kept alpha outside a new range is
    moved to the range's nearest end)."""
    if value is None or not np.isfinite(value) or value <= 0:
        value = 1.0
    return min(options, key=lambda a: abs(np.log10(a) - np.log10(value)))
