"""Sweeps: vary one field of a reranker spec and report the metric's tie range along it."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.data import Qrels
from ..core.validation import Options, check
from .rerankers import RerankerSpec, get_spec, make_queries, simulate_run

SWEEP_PARAMETERS = ("quality", "levels", "tie_prob", "precision")
"""The :class:`~tiedrank.simulate.RerankerSpec` fields :func:`sweep` can vary."""

SWEEP_COLUMNS = ("parameter", "value", "metric", "expected", "best", "worst", "trec_eval",
                 "docs_in_ties")


def sweep(parameter: str, values: Sequence[Any], *, base_spec: "RerankerSpec | str | None" = None,
          qrels: Qrels | None = None, metric: str = "RR", rel_level: int = 1,
          seed: int = 0) -> pd.DataFrame:
    """Vary one spec field and report the metric's tie range along it.

    Every value is simulated with the same ``seed`` on the same ``qrels``, so all points
    share their noise (common random numbers) and the curve shows the effect of the
    parameter itself.

    Parameters
    ----------
    parameter : {"quality", "levels", "tie_prob", "precision"}
    values : sequence
        E.g. ``range(2, 21)`` for levels (None = continuous), ``np.linspace(0, 0.9, 10)``
        for tie_prob, ``[None, "float32", "float16", "bfloat16"]`` for precision.
    base_spec : RerankerSpec or preset name, default PRESETS["fine-grained"]
    qrels : Qrels, default make_queries(seed=seed)
    metric : str, default "RR"
        Any metric :func:`tiedrank.evaluation.evaluate` accepts.
    rel_level : int, default 1
    seed : int, default 0

    Returns
    -------
    DataFrame
        Columns parameter, value, metric, expected, best, worst, trec_eval (means over the
        queries, from ``evaluate(..., ties="all").report()``) and docs_in_ties (share of
        retrieved documents in a tie group of 2+, from :func:`tiedrank.core.tie_statistics.tie_statistics`).

    Examples
    --------
    >>> table = sweep("levels", [3, 11, None], qrels=make_queries(n_queries=10))
    >>> table[["value", "docs_in_ties"]].round(2).values.tolist()
    [[3, 1.0], [11, 0.99], [None, 0.0]]
    """
    from ..evaluation import build_tables, score_tables  # local: they pull in the io readers
    from ..core.options import make_options
    from ..core.tie_statistics import tie_statistics
    from ..metrics import parse_metric

    check("parameter", parameter, [Options(*SWEEP_PARAMETERS)], function="sweep")
    # the door: the metric and the options are read once, every value is scored with them
    metric = parse_metric(metric)
    options = make_options("sweep", ties="all", rel_level=rel_level)
    base = get_spec("fine-grained" if base_spec is None else base_spec)
    if qrels is None:
        qrels = make_queries(seed=seed)
    rows = []
    for value in values:  # one simulation + evaluation per value: a handful, cheap
        if isinstance(value, np.generic):
            value = value.item()
        spec = replace(base, **{parameter: value})
        run = simulate_run(qrels, spec, seed)
        ev = score_tables(build_tables({spec.name: run}, qrels, options), [metric], options)
        report = ev.report()
        # no query with a document at rel_level: every mean is undefined, not an error
        values_at = (report.iloc[0] if len(report) else
                     pd.Series({c: np.nan for c in ("expected", "best", "worst", "trec_eval")}))
        stats = tie_statistics(ev.tables[spec.name])
        rows.append({"parameter": parameter, "value": value, "metric": metric.name,
                     "expected": values_at["expected"], "best": values_at["best"],
                     "worst": values_at["worst"], "trec_eval": values_at["trec_eval"],
                     "docs_in_ties": stats["docs_in_ties"]})
    table = pd.DataFrame(rows, columns=list(SWEEP_COLUMNS))
    if any(row["value"] is None for row in rows):
        # keep None (continuous scores / float64) as given; pandas would turn it into NaN
        table["value"] = pd.Series([row["value"] for row in rows], dtype=object)
    return table
