"""How well a judge's labels agree with the human grades: confusion matrices and Cohen's kappa.

An LLM judge used as a reranker scores each document with a label (0-3, say); the qrels
grade the same documents. Over the documents that are both scored by the run and judged in
the qrels, :func:`judge_agreement` counts (query, grade, label) once per run with
``np.bincount`` and derives, from that count tensor and without a loop over queries:

* the confusion matrix of grade (rows) against label (columns), per run and per query;
* Cohen's kappa, unweighted, linear and quadratic, per run (pooled over the queries) and
  per query (:func:`cohen_kappa`, the vectorised formula).

The numbers are scikit-learn's: ``cohen_kappa_score(grades, labels, weights=w)`` and
``confusion_matrix(grades, labels)`` on the same pairs (``tests/stats`` checks both).

Examples
--------
>>> import pandas as pd
>>> qrels = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c", "d"], "relevance": [0, 1, 2, 2]})
>>> judge = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c", "d"], "score": [0.0, 2, 2, 1]})
>>> result = judge_agreement({"judge": judge}, qrels)
>>> result.kappa[["weights", "kappa"]].round(4).values.tolist()
[['unweighted', 0.2], ['linear', 0.4286], ['quadratic', 0.6364]]
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import warnings

import numpy as np
import pandas as pd

from ..core.data import Run
from ..core.errors import Finding
from ..evaluation import label_runs, read_qrels_input
from ..core.options import make_options
from ..core.validation import Interval, InvalidParameterError, Options, check, validate_params

__all__ = ["CATEGORY_RULES", "MAX_LABELS", "WEIGHTS", "Agreement", "cohen_kappa",
           "judge_agreement", "label_problem"]

WEIGHTS = ("unweighted", "linear", "quadratic")
"""The kappa weightings, as scikit-learn's ``weights=None``, ``"linear"``, ``"quadratic"``."""
MAX_LABELS = 20
"""More distinct scores than this and a run is a ranker, not a judge emitting labels."""
CATEGORY_RULES = ("present", "run")
"""Which categories a per-query kappa indexes its weights on: ``present`` (the values seen
in that query, scikit-learn's default) or ``run`` (every value of the run, sklearn's
``labels=``)."""
_LARGEST_LABEL = 2.0 ** 53  # beyond this a float64 no longer holds every integer


def label_problem(scores, max_labels: int = MAX_LABELS) -> str | None:
    """Why ``scores`` are not labels, in words, or ``None`` when they are.

    Labels are integers (stored as floats: ``2.0`` is the label 2) with at most
    ``max_labels`` distinct values.

    Examples
    --------
    >>> label_problem([0.0, 1.0, 3.0, 1.0]) is None
    True
    >>> label_problem([0.0, 0.25])
    'has the score 0.25, not an integer label'
    >>> label_problem(range(30))
    'has 30 distinct scores, more than the 20 labels a judge emits'
    """
    scores = np.asarray(scores, dtype=np.float64)
    bad = (scores != np.round(scores)) | (np.abs(scores) >= _LARGEST_LABEL) | ~np.isfinite(scores)
    if bad.any():
        return f"has the score {scores[np.argmax(bad)]:g}, not an integer label"
    distinct = len(np.unique(scores))
    if distinct > max_labels:
        return f"has {distinct:,} distinct scores, more than the {max_labels} labels a judge emits"
    return None


def cohen_kappa(counts, weights: str = "unweighted", *, categories: str = "present") -> np.ndarray:
    """Cohen's kappa of each confusion matrix in ``counts`` (shape ``(..., K, K)``).

    With ``O`` the counts (rows: the first rater, the qrels grade; columns: the second,
    the label), ``n = sum O``, ``E_ij = (sum_j O_ij)(sum_i O_ij) / n`` the counts expected
    by chance and ``w_ij`` the disagreement weight of categories ``i`` and ``j``::

        kappa = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij

    ``w_ij = [i != j]`` (unweighted), ``|i - j|`` (linear) or ``(i - j)**2`` (quadratic),
    with ``i``, ``j`` the *index* of each category in the sorted categories, not its value,
    as ``sklearn.metrics.cohen_kappa_score`` weighs them. The categories are the rows and
    columns that hold a count (``categories="present"``, sklearn's default: each matrix
    gets the categories of its own data, so a grade never used does not stretch the linear
    and quadratic distances) or every row and column (``"all"``, sklearn's ``labels=``).
    Unweighted kappa is the same under both.

    Kappa is undefined (NaN, where sklearn warns and returns NaN) when the denominator is
    0: an empty matrix, or one where both raters used the same single category.

    Examples
    --------
    >>> counts = np.array([[[5, 1, 0], [1, 2, 1], [0, 1, 4]],   # one matrix per query
    ...                    [[3, 0, 0], [0, 0, 0], [0, 0, 0]]])  # one category only: NaN
    >>> cohen_kappa(counts).round(4).tolist()
    [0.5946, nan]
    >>> cohen_kappa(counts, "quadratic").round(4).tolist()
    [0.8171, nan]
    """
    check("weights", weights, [Options(*WEIGHTS)], function="cohen_kappa")
    check("categories", categories, [Options("present", "all")], function="cohen_kappa")
    counts = np.asarray(counts, dtype=np.float64)
    rows, columns = counts.sum(axis=-1), counts.sum(axis=-2)  # grades, labels
    n = rows.sum(axis=-1)
    size = counts.shape[-1]
    if categories == "present":  # sklearn's index of each category among those seen
        index = np.cumsum((rows + columns) > 0, axis=-1) - 1.0
    else:
        index = np.broadcast_to(np.arange(size, dtype=np.float64), rows.shape)
    if weights == "unweighted":
        w = np.broadcast_to(1.0 - np.eye(size), counts.shape)
    else:
        distance = np.abs(index[..., :, None] - index[..., None, :])
        w = distance if weights == "linear" else distance ** 2
    observed = (w * counts).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = (w * rows[..., :, None] * columns[..., None, :]).sum(axis=(-2, -1)) / n
        kappa = 1.0 - observed / expected
    return np.where((n > 0) & (expected > 0), kappa, np.nan)


@dataclass(frozen=True, eq=False)
class Agreement:
    """The result of :func:`judge_agreement`: long (tidy) frames, one row per value.

    Attributes
    ----------
    kappa : DataFrame
        Per run, pooled over its queries: run, weights (``unweighted``, ``linear``,
        ``quadratic``), kappa, n_docs (documents both scored and judged), n_queries.
    per_query : DataFrame
        Per run and query with at least one such document: run, query, weights, kappa, n_docs.
    confusion : DataFrame
        Per run, every cell of the run's categories: run, grade, label, count.
    query_confusion : DataFrame
        Per run and query, the cells that count something: run, query, grade, label, count.
    categories : dict of str to ndarray
        Each run's categories: the sorted union of the grades and labels of its pairs.
    findings : list of Finding
        Runs with no document both scored and judged, documents the qrels do not judge.
    """

    kappa: pd.DataFrame
    per_query: pd.DataFrame
    confusion: pd.DataFrame
    query_confusion: pd.DataFrame
    categories: dict[str, np.ndarray]
    findings: list[Finding] = field(default_factory=list)

    def confusion_matrix(self, run: str, query: str | None = None, *,
                         labels: Sequence[int] | None = None) -> pd.DataFrame:
        """The confusion matrix of ``run`` (of one ``query`` if given), wide: one row per
        grade, one column per label, as ``sklearn.metrics.confusion_matrix(grades, labels)``.

        ``labels`` are the categories (rows and columns) in order; by default the sorted
        union of the grades and labels present (the run's for the pooled matrix, the
        query's for one query), as sklearn's.
        """
        if run not in self.categories:
            raise InvalidParameterError("run", run, f"one of {', '.join(map(repr, self.categories))}",
                                        function="confusion_matrix")
        cells = self.confusion[self.confusion["run"] == run] if query is None else \
            self.query_confusion[(self.query_confusion["run"] == run)
                                 & (self.query_confusion["query"] == query)]
        cells = cells[cells["count"] > 0]
        if labels is None:
            labels = np.union1d(cells["grade"].to_numpy(), cells["label"].to_numpy()).tolist()
        wide = cells.pivot_table(index="grade", columns="label", values="count", aggfunc="sum",
                                 fill_value=0)
        wide = wide.reindex(index=labels, columns=labels, fill_value=0).astype(np.int64)
        wide.index.name, wide.columns.name = "grade", "label"
        return wide


@validate_params({"max_labels": [Interval(int, 1, None)], "categories": [Options(*CATEGORY_RULES)]})
def judge_agreement(runs, qrels, *, max_labels: int = MAX_LABELS, categories: str = "present",
                    duplicates: str = "error", columns: Mapping[str, str] | None = None,
                    qrels_columns: Mapping[str, str] | None = None) -> Agreement:
    """Agreement of label runs (LLM judges) with the qrels grades: confusion matrices and
    Cohen's kappa, unweighted, linear and quadratic, per run and per query.

    Only documents both scored by the run and judged in the qrels count. Per run, the pairs
    of all its queries are pooled; per query, each query's pairs alone. Each value equals
    ``sklearn.metrics.cohen_kappa_score(grades, labels, weights=w)`` on those pairs
    (``w`` None, ``"linear"`` or ``"quadratic"``)::

        kappa = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij

    with ``O`` the confusion matrix of grade ``i`` against label ``j``, ``E_ij = r_i c_j / n``
    its counts expected by chance (row and column totals, ``n`` pairs) and ``w_ij`` the
    disagreement weight: ``[i != j]``, ``|i - j|`` or ``(i - j)**2`` on the *index* of the
    category in the sorted union of the values (grades and labels) present, as sklearn does
    (:func:`cohen_kappa`). Kappa is NaN where it is undefined: a query whose grades and
    labels are all one value (sklearn warns and returns NaN), a run with no pair. A run with
    no pair (no document it labels is judged in ``qrels``) is also said aloud: a
    ``UserWarning`` naming the run, ``runs=`` and ``qrels=``, besides its finding.

    Parameters
    ----------
    runs : Run, DataFrame, path, peer object, or a list / dict of those
        As :func:`tiedrank.evaluate`; each run's scores must be labels (integers, at most
        ``max_labels`` distinct values).
    qrels : Qrels, DataFrame, path or peer object
    max_labels : int, default 20
        The most distinct scores a label run has.
    categories : {"present", "run"}, default "present"
        The categories that index the weights of a per-query kappa: those present in the
        query (sklearn on that query's pairs), or every category of the run (sklearn with
        ``labels=`` the run's categories), so that grade 0 against label 3 weighs the same
        in every query. The pooled kappa uses the run's categories either way.
    duplicates, columns, qrels_columns
        Reading options, as :func:`tiedrank.evaluate`.

    Returns
    -------
    Agreement
        ``kappa``, ``per_query``, ``confusion``, ``query_confusion`` (long frames),
        ``confusion_matrix(run, query)`` (wide).

    Raises
    ------
    InvalidParameterError
        A run whose scores are not labels, named with what is wrong.

    Warns
    -----
    UserWarning
        A run that labels no document judged in ``qrels`` (agreement over zero documents:
        its kappa is NaN), named with what to pass instead.

    Examples
    --------
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query": ["q1"] * 3 + ["q2"] * 3, "doc": list("abcdef"),
    ...                       "relevance": [0, 1, 3, 0, 0, 1]})
    >>> judge = pd.DataFrame({"query": ["q1"] * 3 + ["q2"] * 3, "doc": list("abcdef"),
    ...                       "score": [0.0, 1, 2, 0, 1, 1]})
    >>> result = judge_agreement({"judge": judge}, qrels)
    >>> result.per_query.query("weights == 'linear'")[["query", "kappa"]].round(3).values.tolist()
    [['q1', 0.727], ['q2', 0.4]]
    >>> result.kappa[["weights", "kappa"]].round(3).values.tolist()  # pooled over q1 and q2
    [['unweighted', 0.5], ['linear', 0.647], ['quadratic', 0.793]]
    >>> result.confusion_matrix("judge").values.tolist()  # grades 0..3 down, labels across
    [[2, 1, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]]
    >>> judge_agreement({"bm25": judge.assign(score=[0.5, 1, 2, 0, 1, 1])}, qrels)
    Traceback (most recent call last):
    ...
    tiedrank.core.validation.InvalidParameterError: judge_agreement(): runs= must be label runs: integer scores, at most 20 distinct values (run 'bm25' has the score 0.5, not an integer label; leave it out, or pass its labels); got 'bm25'
    """
    options = make_options("judge_agreement", duplicates=duplicates, columns=columns,
                           qrels_columns=qrels_columns)
    run_map = label_runs(runs, options)
    grades = read_qrels_input(qrels, options).frame
    for name, run in run_map.items():
        problem = label_problem(run.frame["score"].to_numpy(), max_labels)
        if problem is not None:
            hint = ("pass max_labels= to take them as labels" if "distinct" in problem
                    else "pass its labels")
            raise InvalidParameterError(
                "runs", name, f"label runs: integer scores, at most {max_labels} distinct values "
                f"(run {name!r} {problem}; leave it out, or {hint})", function="judge_agreement")
    parts = [_run_agreement(name, run, grades, categories) for name, run in run_map.items()]
    unmatched = [name for name, part in zip(run_map, parts) if int(part[0]["n_docs"].iloc[0]) == 0]
    if unmatched:
        warnings.warn(_no_pairs_message(unmatched, len(run_map)), UserWarning, stacklevel=3)
    return Agreement(*(_concat([p[i] for p in parts]) for i in range(4)),
                     categories={name: p[4] for name, p in zip(run_map, parts)},
                     findings=[f for p in parts for f in p[5]])


def _no_pairs_message(unmatched: Sequence[str], n_runs: int) -> str:
    """The warning of :func:`judge_agreement` when runs label no judged document.

    >>> _no_pairs_message(["bm25"], 2)
    "judge_agreement(): run 'bm25' of runs= labels no document judged in qrels= (no query and document in common), so its kappa is undefined (NaN), over zero documents; pass the qrels its labels were made against, or leave it out of runs="
    """
    which = ", ".join(map(repr, unmatched))
    one = len(unmatched) == 1
    subject = (f"run {which} of runs= labels" if one else
               f"{'all ' if len(unmatched) == n_runs else ''}runs {which} of runs= label")
    return (f"judge_agreement(): {subject} no document judged in qrels= (no query and document "
            f"in common), so {'its' if one else 'their'} kappa is undefined (NaN), over zero "
            f"documents; pass the qrels {'its' if one else 'their'} labels were made against, or "
            f"leave {'it' if one else 'them'} out of runs=")


def _run_agreement(name: str, run: Run, grades: pd.DataFrame, categories: str) -> tuple:
    """One run's frames: one join, one ``np.bincount`` over (query, grade, label), then
    kappa for every query at once from the count tensor."""
    pairs = run.frame[["query", "doc", "score"]].merge(grades[["query", "doc", "relevance"]],
                                                       on=["query", "doc"], how="inner")
    findings = []
    if len(pairs) < len(run.frame):
        missing = len(run.frame) - len(pairs)
        findings.append(Finding(
            "unjudged_documents", f"{missing:,} document{'s' if missing != 1 else ''} of run "
            f"{name!r} not judged in the qrels; left out of the agreement", run.source, missing))
    if pairs.empty:
        findings.append(Finding("no_judged_documents", f"run {name!r} scores no judged document: "
                                "its agreement is undefined (NaN)", run.source))
    query_codes, queries = pd.factorize(pairs["query"], sort=False)
    label = pairs["score"].to_numpy(dtype=np.float64).astype(np.int64)
    grade = pairs["relevance"].to_numpy(dtype=np.int64)
    values = np.union1d(grade, label)
    k, n_queries = len(values), len(queries)
    cell = (query_codes * k + np.searchsorted(values, grade)) * k + np.searchsorted(values, label)
    counts = np.bincount(cell, minlength=n_queries * k * k).reshape(n_queries, k, k)
    pooled = counts.sum(axis=0)
    scale = "present" if categories == "present" else "all"
    n_docs = counts.sum(axis=(1, 2))
    kappa = pd.DataFrame({"run": name, "weights": list(WEIGHTS),
                          "kappa": [float(cohen_kappa(pooled, w)) for w in WEIGHTS],
                          "n_docs": int(pooled.sum()), "n_queries": n_queries})
    per_query = pd.DataFrame({
        "run": name, "query": np.tile(np.asarray(queries, dtype=object), len(WEIGHTS)),
        "weights": np.repeat(WEIGHTS, n_queries),
        "kappa": np.concatenate([cohen_kappa(counts, w, categories=scale) for w in WEIGHTS]),
        "n_docs": np.tile(n_docs, len(WEIGHTS))})
    grid_grade, grid_label = np.meshgrid(values, values, indexing="ij")
    confusion = pd.DataFrame({"run": name, "grade": grid_grade.ravel(), "label": grid_label.ravel(),
                              "count": pooled.ravel()})
    q, g, lab = np.nonzero(counts)
    query_confusion = pd.DataFrame({"run": name, "query": np.asarray(queries, dtype=object)[q],
                                    "grade": values[g], "label": values[lab],
                                    "count": counts[q, g, lab]})
    return kappa, per_query, confusion, query_confusion, values, findings


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Stack the runs' frames; run and weights become categoricals in the order given."""
    out = pd.concat(frames, ignore_index=True)
    out["run"] = pd.Categorical(out["run"], categories=list(dict.fromkeys(out["run"])))
    if "weights" in out:
        out["weights"] = pd.Categorical(out["weights"], categories=list(WEIGHTS))
    if "query" in out:
        out["query"] = out["query"].astype("str")
    for column in ("grade", "label", "count", "n_docs", "n_queries"):
        if column in out:
            out[column] = out[column].astype(np.int64)
    return out
