"""Learn page, step by step: the closed forms of E[RR], E[AP] and E[nDCG@k] over the tie
groups of a toy ranking, with exact fractions where the metric is rational, and a hint
written from the ranking itself (which documents tie, the exact E[RR]).

Everything here is Streamlit-free. The totals are checked against the library
(:func:`tiedrank.metrics.metric_values` on the expected table) and, on the page, against the
mean over :func:`tiedrank.sampling.enumerate_orderings`.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"doc": ["d1", "d2", "d3"], "score": [.9, .8, .8], "grade": [0, 1, 0]})
>>> exact_rr(frame)
Fraction(5, 12)
>>> str(exact_ap(frame).total)
'5/12'
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from ..report import markdown_literal
from .learn import SCENARIOS, Scenario, clean_toy_frame


# ---- the edited table ----------------------------------------------------------------------
def apply_editor_state(frame: pd.DataFrame, state: Mapping | None) -> pd.DataFrame:
    """The table ``st.data_editor`` shows for ``frame`` after the edits in its widget state
    (``edited_rows`` {row: {column: value}}, ``added_rows`` [{column: value}],
    ``deleted_rows`` [row]), so that the page knows before drawing the selector whether the
    scenario was edited."""
    out = frame.copy().astype(object)
    if not state:
        return frame.copy()
    for row, changes in (state.get("edited_rows") or {}).items():
        for column, value in (changes or {}).items():
            if column in out.columns and int(row) < len(out):
                out.iat[int(row), out.columns.get_loc(column)] = value
    added = [dict(r) for r in (state.get("added_rows") or [])]
    if added:
        out = pd.concat([out, pd.DataFrame(added, columns=out.columns).astype(object)],
                        ignore_index=True)
    deleted = {int(r) for r in (state.get("deleted_rows") or [])}
    if deleted:
        out = out.drop(index=[r for r in deleted if r < len(out)]).reset_index(drop=True)
    return out


def _comparable(frame: pd.DataFrame) -> list[tuple]:
    try:
        clean = clean_toy_frame(frame)
    except ValueError:
        return [("invalid",)]
    rows = []
    for doc, score, grade in clean.itertuples(index=False):
        try:
            rows.append((str(doc).strip(), float(score), float(grade)))
        except (TypeError, ValueError):
            rows.append((str(doc), str(score), str(grade)))
    return rows


def is_edited(scenario: Scenario, frame: pd.DataFrame) -> bool:
    """Whether ``frame`` differs from the scenario's table (blank added rows do not count)."""
    return _comparable(frame) != _comparable(scenario.frame())


def scenario_label(key: str, edited: bool = False) -> str:
    """The selector's label of a scenario; an edited one says so instead of naming it."""
    scenario = SCENARIOS[key]
    if edited:
        return f"Custom: your edit of {scenario.key}"
    return scenario.label


# ---- tie groups ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Group:
    """One tie group of the toy ranking: its documents (file order), score, first rank
    (a + 1), size n, relevant count k, relevant documents above (K_above), grades."""

    docs: tuple[str, ...]
    score: float
    above: int
    size: int
    relevant: int
    relevant_above: int
    grades: tuple[int, ...]

    @property
    def ranks(self) -> str:
        first, last = self.above + 1, self.above + self.size
        return str(first) if first == last else f"{first}-{last}"


def tie_groups(frame: pd.DataFrame, rel_level: int = 1) -> list[Group]:
    """The groups of an edited ``doc, score, grade`` table, in rank order."""
    clean = clean_toy_frame(frame)
    docs = clean["doc"].astype(str).str.strip().tolist()
    scores = pd.to_numeric(clean["score"]).to_numpy(dtype=np.float64)
    grades = pd.to_numeric(clean["grade"]).to_numpy(dtype=np.int64)
    groups: list[Group] = []
    above = relevant_above = 0
    for score in sorted(set(scores.tolist()), reverse=True):
        members = [i for i in range(len(docs)) if scores[i] == score]
        rel = sum(int(grades[i] >= rel_level) for i in members)
        groups.append(Group(tuple(docs[i] for i in members), float(score), above, len(members),
                            rel, relevant_above, tuple(int(grades[i]) for i in members)))
        above += len(members)
        relevant_above += rel
    return groups


def _first_relevant(groups: list[Group]) -> Group | None:
    return next((g for g in groups if g.relevant > 0), None)


def first_rank_pmf(groups: list[Group]) -> list[tuple[int, Fraction]]:
    """(rank, probability) of the first relevant document: C(t-j, r-1)/C(t, r) at a + j."""
    g = _first_relevant(groups)
    if g is None:
        return []
    t, r, a = g.size, g.relevant, g.above
    return [(a + j, Fraction(math.comb(t - j, r - 1), math.comb(t, r))) for j in range(1, t - r + 2)]


def exact_rr(frame: pd.DataFrame, rel_level: int = 1) -> Fraction:
    """E[RR] as an exact fraction (0 when nothing is relevant)."""
    return sum((p / rank for rank, p in first_rank_pmf(tie_groups(frame, rel_level))), Fraction(0))


# ---- E[AP] ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Walkthrough:
    """A closed form evaluated group by group: ``steps`` (one row per group that
    contributes), the exact ``total`` (Fraction for AP, float for nDCG) and its parts."""

    steps: pd.DataFrame
    total: Fraction | float
    parts: dict


def _frac(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def exact_ap(frame: pd.DataFrame, rel_level: int = 1) -> Walkthrough:
    """E[AP] (McSherry & Najork) group by group, in exact fractions:

    E[AP] = (1/R) sum_g (k_g/n_g) sum_{j=1}^{n_g} [K_{g-1} + 1 + (j-1)(k_g-1)/(n_g-1)] / (a_g + j)
    """
    groups = tie_groups(frame, rel_level)
    total_relevant = sum(g.relevant for g in groups)
    rows, total = [], Fraction(0)
    for g in groups:
        if g.relevant == 0:
            continue
        slope = Fraction(g.relevant - 1, g.size - 1) if g.size > 1 else Fraction(0)
        inner = sum((Fraction(g.relevant_above + 1) + (j - 1) * slope) / (g.above + j)
                    for j in range(1, g.size + 1))
        contribution = Fraction(g.relevant, g.size) * inner
        total += contribution
        rows.append({"group": ", ".join(g.docs), "score": g.score, "ranks": g.ranks,
                     "n_g": g.size, "k_g": g.relevant, "a_g": g.above, "K_above": g.relevant_above,
                     "k_g/n_g": _frac(Fraction(g.relevant, g.size)),
                     "sum over positions": _frac(inner), "contribution": _frac(contribution),
                     "value": float(contribution)})
    ap = total / total_relevant if total_relevant else Fraction(0)
    steps = pd.DataFrame(rows, columns=["group", "score", "ranks", "n_g", "k_g", "a_g", "K_above",
                                        "k_g/n_g", "sum over positions", "contribution", "value"])
    return Walkthrough(steps, ap, {"R": total_relevant, "sum": total})


# ---- E[nDCG@k] ----------------------------------------------------------------------------
def _gain(grade: int, kind: str) -> Fraction:
    grade = max(int(grade), 0)
    return Fraction(grade) if kind == "linear" else Fraction(2 ** grade - 1)


def _discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def exact_ndcg(frame: pd.DataFrame, k: int = 3, gain: str = "linear", rel_level: int = 1) -> Walkthrough:
    """E[nDCG@k] group by group: each group's mean gain (exact) times the discounts of its
    ranks inside the top k; E[DCG@k] / IDCG@k (IDCG from the grades sorted descending)."""
    groups = tie_groups(frame, rel_level)
    rows, dcg = [], 0.0
    for g in groups:
        inside = [p for p in range(g.above + 1, g.above + g.size + 1) if p <= k]
        if not inside:
            break
        mean_gain = sum((_gain(x, gain) for x in g.grades), Fraction(0)) / g.size
        discounts = sum(_discount(p) for p in inside)
        contribution = float(mean_gain) * discounts
        dcg += contribution
        rows.append({"group": ", ".join(g.docs), "score": g.score, "ranks": g.ranks,
                     "ranks inside k": f"{inside[0]}-{inside[-1]}" if len(inside) > 1 else str(inside[0]),
                     "mean gain": _frac(mean_gain),
                     "sum of 1/log2(rank+1)": discounts, "contribution": contribution})
    all_grades = sorted((x for g in groups for x in g.grades), reverse=True)
    ideal = sum(float(_gain(x, gain)) * _discount(p) for p, x in enumerate(all_grades[:k], start=1))
    steps = pd.DataFrame(rows, columns=["group", "score", "ranks", "ranks inside k", "mean gain",
                                        "sum of 1/log2(rank+1)", "contribution"])
    return Walkthrough(steps, dcg / ideal if ideal > 0 else 0.0, {"DCG": dcg, "IDCG": ideal, "k": k})


# ---- the hint --------------------------------------------------------------------------------
def _names(docs) -> str:
    """Document ids in a sentence, each as text (never markup: the hint is Markdown)."""
    docs = [markdown_literal(d) for d in docs]
    return docs[0] if len(docs) == 1 else ", ".join(docs[:-1]) + " and " + docs[-1]


def ranking_hint(frame: pd.DataFrame, rel_level: int = 1) -> str:
    """A description of an edited toy ranking, written from the ranking itself: which
    documents tie, which are relevant, where the first relevant one can land, and E[RR]
    as an exact fraction."""
    groups = tie_groups(frame, rel_level)
    tied = [g for g in groups if g.size > 1]
    if tied:
        ties = "; ".join(f"{_names(g.docs)} share score {g.score:g} (ranks {g.ranks})" for g in tied)
        parts = [f"Your ranking: {ties}."]
    else:
        parts = ["Your ranking has no ties: every document has its own score, so every policy agrees."]
    relevant = [d for g in groups for d, x in zip(g.docs, g.grades) if x >= rel_level]
    if not relevant:
        parts.append(f"No document has a grade >= {rel_level}: RR is 0 in every ordering.")
        return " ".join(parts)
    parts.append(f"Relevant (grade >= {rel_level}): {_names(relevant)}.")
    pmf = first_rank_pmf(groups)
    err = sum((p / rank for rank, p in pmf), Fraction(0))
    if len(pmf) == 1:
        parts.append(f"The first relevant document is always at rank {pmf[0][0]}: "
                     f"E[RR] = {_frac(err)}.")
    else:
        g = _first_relevant(groups)
        probs = ", ".join(f"rank {rank} with probability {_frac(p)}" for rank, p in pmf)
        parts.append(f"The first relevant document lies in the tie of {g.size} "
                     f"({g.relevant} relevant), so it lands at {probs}: E[RR] = {_frac(err)}.")
    return " ".join(parts)


# ---- the page's section: steps, sentences and the three-way check ---------------------------
AP_LATEX = (r"\begin{gathered}\mathbb{E}[\mathrm{AP}] = \frac{1}{R}\sum_g \frac{k_g}{n_g}"
            r"\sum_{j=1}^{n_g} T_{g,j}\\[4pt]"
            r"T_{g,j} = \frac{K_{g-1} + 1 + (j-1)\frac{k_g-1}{n_g-1}}{a_g + j}\end{gathered}")
"""E[AP] by tie groups, in two short lines: on one line (430 px) it ran past its column of
a 1280-px window."""
NDCG_LATEX = (r"\begin{gathered}\mathbb{E}[\mathrm{nDCG@}k] = \frac{1}{\mathrm{IDCG@}k}"
              r"\sum_g \bar{G}_g\, D_g\\[4pt]"
              r"D_g = \sum_{p=a_g+1}^{\min(a_g+n_g,\,k)} \frac{1}{\log_2(p+1)}\end{gathered}")
"""E[nDCG@k] by tie groups, in two short lines (``D_g``: the table's "sum of
1/log2(rank+1)")."""


@dataclass(frozen=True)
class Steps:
    """Both walkthroughs of one toy ranking and the check table (closed form by groups,
    the library, the mean over every ordering)."""

    ap: Walkthrough
    ndcg: Walkthrough
    check: pd.DataFrame
    orderings: int | None


def walkthrough_check(frame: pd.DataFrame, result, *, k: int = 3, gain: str = "linear",
                      rel_level: int = 1, limit: int = 720) -> Steps:
    """E[AP] and E[nDCG@k] step by step, beside the library's value
    (``result``: :class:`tiedrank.dashboard.learn.ToyResult`) and the mean over all
    orderings (:func:`tiedrank.dashboard.learn.enumerate_toy`; left empty above ``limit``)."""
    from .learn import enumerate_toy, ordering_count

    ap = exact_ap(frame, rel_level)
    ndcg = exact_ndcg(frame, k=k, gain=gain, rel_level=rel_level)
    metrics = ["AP", f"nDCG@{k}"]
    count = ordering_count(result)
    means = {m: float("nan") for m in metrics}
    if count <= limit:
        orderings = enumerate_toy(result, metrics, max_orderings=limit)
        means = {m: float(orderings[m].mean()) for m in metrics}
    check = pd.DataFrame({
        "metric": [f"E[{m}]" for m in metrics],
        "step by step (groups)": [float(ap.total), float(ndcg.total)],
        "library (expected)": [result.value("AP"), result.value(f"nDCG@{k}")],
        "mean over all orderings": [means["AP"], means[f"nDCG@{k}"]]})
    return Steps(ap, ndcg, check, count if count <= limit else None)


def ap_sentence(steps: Steps) -> str:
    """The sum of the AP contributions in words, as exact fractions."""
    ap = steps.ap
    terms = " + ".join(ap.steps["contribution"])
    return (f"E[AP] = ({terms}) / R with R = {ap.parts['R']} relevant documents "
            f"= **{_frac(ap.total)}** = {float(ap.total):.6f}"
            + (f"; the mean over all {steps.orderings} orderings is the same."
               if steps.orderings else "."))


def ndcg_sentence(steps: Steps) -> str:
    """E[DCG@k], IDCG@k and their ratio in words."""
    parts = steps.ndcg.parts
    return (f"E[DCG@{parts['k']}] = {parts['DCG']:.6f}, IDCG@{parts['k']} (grades sorted) = "
            f"{parts['IDCG']:.6f}, so E[nDCG@{parts['k']}] = **{float(steps.ndcg.total):.6f}**"
            + (f"; the mean over all {steps.orderings} orderings is the same."
               if steps.orderings else "."))
