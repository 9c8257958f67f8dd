"""A judge's labels beside the human qrels: read, checked, aligned and counted (for
:func:`~tiedrank.simulate.judge.fit_judge` and :meth:`~tiedrank.simulate.judge.JudgeModel.simulate`).

Examples
--------
>>> import pandas as pd
>>> labels = pd.DataFrame({"query": ["q"] * 4, "doc": list("abcd"), "score": [0, 1, 1, 0]})
>>> qrels = pd.DataFrame({"query": ["q"] * 4, "doc": list("abcd"), "relevance": [0, 1, 1, 0]})
>>> pairs = judge_pairs(labels, qrels, min_per_grade=2)
>>> pairs.counts.tolist(), pairs.labels, pairs.grades
([[[2.0, 0.0], [0.0, 2.0]]], (0.0, 1.0), (0, 1))
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.data import Qrels, Run
from ..core.errors import InputError, Remedy, RemediedValueError
from ..evaluation.argument_order import check_argument_order
from ..evaluation.inputs import label_runs, read_qrels_input

_SHOWN = 5  # pairs or values named in a message


@dataclass(frozen=True)
class JudgePairs:
    """The labelled judged documents as counts ``(queries, grades, labels)``."""

    name: str
    counts: np.ndarray
    queries: tuple[str, ...]
    grades: tuple[int, ...]
    labels: tuple[float, ...]
    notes: tuple[str, ...]


def _swap_hint(labels: Any, qrels: Any, function: str) -> None:
    try:
        check_argument_order(labels, qrels, function=function, files=True)
    except TypeError as error:
        text = str(error).replace("runs=", "labels=").replace(f"{function}(run, qrels)",
                                                               f"{function}(labels, qrels)")
        raise TypeError(text + "; the judge's labels come first, as a run whose score is "
                        "the label, then the human qrels") from None


def _read(labels: Any, qrels: Any, function: str) -> tuple[Run, Qrels]:
    _swap_hint(labels, qrels, function)
    try:
        human = read_qrels_input(qrels)
    except InputError as error:
        raise InputError(f"{error.problem}; {function}() takes the judge's labels first and "
                         "the human qrels second", source=error.source, line=error.line,
                         text=error.text, expected=error.expected) from None
    runs = label_runs(labels) if not isinstance(labels, Run) else {labels.name: labels}
    if len(runs) != 1:
        raise ValueError(f"{function}(): labels= holds {len(runs)} runs "
                         f"({', '.join(list(runs)[:_SHOWN])}); pass one judge's labels")
    return next(iter(runs.values())), human


def _pairs_named(frame: pd.DataFrame) -> str:
    shown = ", ".join(f"({q}, {d})" for q, d in frame[["query", "doc"]].head(_SHOWN).itertuples(index=False))
    return shown + (", ..." if len(frame) > _SHOWN else "")


def judge_pairs(labels: Any, qrels: Any, *, min_per_grade: int = 5,
                function: str = "fit_judge") -> JudgePairs:
    """Read ``labels`` (a run whose score is the label) and ``qrels``, keep the labelled
    judged pairs and count them per (query, grade, label); refuse what cannot be fitted
    with a message naming it; note (and warn about) what is left out."""
    run, human = _read(labels, qrels, function)
    notes: list[str] = []
    merged = run.frame.merge(human.frame, on=["query", "doc"], how="left", indicator=True)
    unjudged = merged[merged["_merge"] == "left_only"]
    if len(unjudged):
        message = (f"{len(unjudged)} labelled document(s) have no human grade in the qrels "
                   f"and are left out: {_pairs_named(unjudged)}")
        warnings.warn(message, UserWarning, stacklevel=3)
        notes.append(message)
    merged = merged[merged["_merge"] == "both"]
    unlabelled = len(human.frame) - len(merged)
    if unlabelled > 0:
        notes.append(f"{unlabelled} judged document(s) of the qrels have no label and are not fitted")
    if merged.empty:
        raise ValueError(f"{function}(): no labelled document has a human grade: the labels "
                         f"({run.source}) and the qrels ({human.source}) share no (query, doc) "
                         "pair; pass the qrels of the queries the judge labelled")
    values = np.sort(merged["score"].unique())
    if len(values) < 2:
        raise ValueError(f"{function}(): the judge gave one label ({values[0]:g}) to all "
                         f"{len(merged)} labelled judged documents; an ordinal model needs at "
                         "least two distinct labels")
    notes += _label_notes(values, merged["score"].to_numpy())
    grades, per_grade = np.unique(merged["relevance"].to_numpy(), return_counts=True)
    for grade, count in zip(grades, per_grade):
        if count < min_per_grade:
            raise RemediedValueError(
                f"{function}(): human grade {grade} has {count} labelled document(s), fewer "
                f"than min_per_grade={min_per_grade}, too few to fit its location mu[{grade}]; "
                f"merge it into a neighbouring grade in the qrels, or ",
                Remedy("min_per_grade", int(count), "to fit it anyway"))
    queries = np.sort(merged["query"].unique())
    q = np.searchsorted(queries, merged["query"].to_numpy())
    g = np.searchsorted(grades, merged["relevance"].to_numpy())
    k = np.searchsorted(values, merged["score"].to_numpy())
    counts = np.zeros((len(queries), len(grades), len(values)))
    np.add.at(counts, (q, g, k), 1.0)
    return JudgePairs(run.name, counts, tuple(str(x) for x in queries),
                      tuple(int(x) for x in grades), tuple(float(x) for x in values), tuple(notes))


def _label_notes(values: np.ndarray, scores: np.ndarray) -> list[str]:
    integral = np.all(values == np.round(values))
    if integral and np.array_equal(values, np.arange(values[0], values[-1] + 1)):
        return []
    gaps = np.diff(values)
    typical = np.median(gaps) if len(gaps) else 1.0
    stray = [v for i, v in enumerate(values)
             if (i > 0 and values[i] - values[i - 1] > 2 * typical)
             or (i + 1 < len(values) and values[i + 1] - values[i] > 2 * typical)]
    shown = ", ".join(f"{v:g}" for v in values)
    note = (f"labels present: {shown}; fitted as {len(values)} ordered categories (the values "
            "present, in order; their spacing is not used)")
    if stray:
        note += "; " + ", ".join(f"{v:g} ({int((scores == v).sum())} document(s))" for v in stray[-2:]) \
            + " lie off the scale of the others: a stray value is fitted as its own category"
    return [note]


def pool_covariate(query: np.ndarray, grade: np.ndarray, n_grades: int,
                   weights: np.ndarray | None = None) -> np.ndarray:
    """Each query's pool make-up ``h_q = logit((sum_d g_d / (G - 1) + 1/2) / (n_q + 1))``:
    the mean of its judged documents' grade indices ``g_d`` (0 .. G-1) scaled to [0, 1],
    smoothed and on the logit scale (``weights``: documents per row, default 1).

    >>> pool_covariate(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]), 2).round(3).tolist()
    [0.0, 1.609]
    """
    weights = np.ones(len(query)) if weights is None else np.asarray(weights, dtype=float)
    if n_grades < 2 or not len(query):
        return np.zeros(int(query.max()) + 1 if len(query) else 0)
    n = np.bincount(query, weights=weights)
    graded = np.bincount(query, weights=weights * grade / (n_grades - 1), minlength=len(n))
    share = (graded + 0.5) / (n + 1.0)
    return np.log(share / (1.0 - share))


def target_pairs(qrels: Any, model: Any, new_queries: bool
                 ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """The qrels to simulate on: their frame, each pair's query index and grade index,
    and for each query its index among the model's fitted queries (-1: new)."""
    if isinstance(qrels, Run):
        raise TypeError("simulate(): qrels= got a run (a tiedrank Run); pass the human "
                        "qrels whose judged pairs the judge should label")
    frame = read_qrels_input(qrels).frame
    grades = frame["relevance"].to_numpy()
    known_grades = np.asarray(model.grades)
    unknown = np.setdiff1d(np.unique(grades), known_grades)
    if len(unknown):
        raise ValueError(f"simulate(): the qrels hold grade(s) {', '.join(map(str, unknown))} "
                         f"the judge was not fitted on (its grades: {model.grades}); map them "
                         "to fitted grades, or fit the judge on qrels that hold them")
    codes, uniques = pd.factorize(frame["query"])
    fitted = {q: i for i, q in enumerate(model.queries)}
    known = np.array([-1 if new_queries else fitted.get(str(q), -1) for q in uniques], dtype=int)
    return frame, codes.astype(np.int64), np.searchsorted(known_grades, grades), known
