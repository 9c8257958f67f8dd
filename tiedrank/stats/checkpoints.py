"""The checkpoint curve: the runs of one training run ordered by step, each measure's
expectation with its [worst, best] band per step, and for each pair of consecutive steps
whether the bands overlap (the tie-break alone can make them swap: indistinguishable under
ties) and the paired test between them.

Steps come from the run names (the last number in each: ``epoch-3``, ``ckpt_12000``,
``splade.step2500.run``) or are given.

Examples
--------
>>> checkpoint_steps(["splade-epoch10", "splade-epoch2", "splade-epoch1.5"])
{'splade-epoch10': 10.0, 'splade-epoch2': 2.0, 'splade-epoch1.5': 1.5}
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..evaluation import Evaluation
from ..core.validation import Options, validate_params
from .paired_tests import ALPHA, RESAMPLES, SEED, TESTS, paired_test
from .pairing import pair_columns, per_query_frame, resolve_metrics, resolve_policy, summands, value_matrix

_LAST_NUMBER = re.compile(r"([0-9]+(?:\.[0-9]+)?)(?=[^0-9]*$)")
CHECKPOINT_COLUMNS = ("metric", "step", "run", "expected", "worst", "best", "trec_eval",
                      "previous", "diff_previous", "p_value_previous",
                      "significant_previous", "overlaps_previous")
"""The columns of :func:`checkpoint_curve`."""


def checkpoint_steps(runs: Iterable[str]) -> dict[str, float]:
    """Each run's step: the last number in its name (ASCII digits, a decimal point allowed;
    a file extension after it is fine). Raises ValueError naming the runs without a number
    or sharing a step, and saying to pass ``steps=`` instead."""
    steps, missing = {}, []
    for run in runs:
        found = _LAST_NUMBER.search(str(run))
        if found is None:
            missing.append(str(run))
        else:
            steps[str(run)] = float(found.group(1))
    if missing:
        raise ValueError(f"no step number in the run name(s) {', '.join(map(repr, missing))}; "
                         "name the runs with their step (e.g. 'model-epoch3') or pass steps="
                         "{run: step}")
    _check_distinct(steps)
    return steps


def _check_distinct(steps: Mapping[str, float]) -> None:
    seen: dict[float, str] = {}
    for run, step in steps.items():
        if step in seen:
            raise ValueError(f"runs {seen[step]!r} and {run!r} have the same step {step:g}; "
                             "pass steps={run: step} with one step per run")
        seen[step] = run


@validate_params({"test": [Options(*TESTS)], "alpha": [ALPHA], "seed": [SEED],
                  "n_resamples": [RESAMPLES]})
def checkpoint_curve(evaluation: Evaluation, metrics: Iterable[str] | None = None, *,
                     steps: Mapping[str, float] | None = None,
                     runs: Sequence[str] | None = None, policy: str = "expected",
                     test: str = "t", alpha: float = 0.05, seed: int = 0,
                     n_resamples: int = 9999) -> pd.DataFrame:
    """Per metric and step: the run's expectation, worst and best case and trec_eval's
    value (those evaluated: ``ties="all"`` for all), and against the previous step the
    difference of expectations, the paired ``test`` on the per-query values under
    ``policy`` (uncorrected: one test per consecutive pair), whether it is significant
    (p <= ``alpha``) and whether the two [worst, best] bands overlap (``overlaps_previous``:
    some tie-break puts the earlier step at or above the later one, and another the reverse
    or level: the checkpoints are indistinguishable under ties).

    Parameters
    ----------
    steps : mapping of run to step, optional
        Default: :func:`checkpoint_steps` of the runs' names.
    runs : optional
        The runs of the curve (default: every evaluated run).

    Returns
    -------
    DataFrame with :data:`CHECKPOINT_COLUMNS`, metrics in the evaluation's order, steps
    ascending; the first step's ``previous`` columns are empty (missing, NaN, False).

    Examples
    --------
    >>> from tiedrank import evaluate
    >>> qrels = pd.DataFrame({"query": ["1", "2"], "doc": ["x", "x"], "relevance": 1})
    >>> def run(tied):  # q1: the relevant document tied with `tied` others at the top
    ...     return pd.DataFrame({"query": ["1"] * 4 + ["2"] * 4, "doc": list("xabc") * 2,
    ...                          "score": [1.0] * (tied + 1) + [0.5] * (3 - tied) + [1.0, 0.5, 0.5, 0.5]})
    >>> ev = evaluate({"ep1": run(3), "ep2": run(1), "ep3": run(0)}, qrels, ["RR"], ties="all")
    >>> curve = checkpoint_curve(ev)
    >>> curve[["step", "expected", "worst", "best", "overlaps_previous"]].values.tolist()
    [[1.0, 0.7604166666666666, 0.625, 1.0, False], [2.0, 0.875, 0.75, 1.0, True], [3.0, 1.0, 1.0, 1.0, True]]
    """
    frame = per_query_frame(evaluation)
    names = list(dict.fromkeys(frame["run"])) if runs is None else [str(r) for r in runs]
    step_of = checkpoint_steps(names) if steps is None else {str(r): float(s) for r, s in steps.items()}
    unknown = [r for r in names if r not in step_of]
    if unknown:
        raise ValueError(f"steps= has no step for run(s) {', '.join(map(repr, unknown))}")
    step_of = {r: step_of[r] for r in names}
    _check_distinct(step_of)
    ordered = sorted(names, key=step_of.__getitem__)
    label = resolve_policy(frame, policy, seed)
    wide = evaluation.report().astype({"run": str, "metric": str}).set_index(["run", "metric"])
    out = []
    for metric in resolve_metrics(frame, metrics):
        matrix = value_matrix(frame, metric, label)
        block = wide.reindex(pd.MultiIndex.from_product([ordered, [metric.name]]))
        for i, run in enumerate(ordered):
            row = {"metric": metric.name, "step": step_of[run], "run": run,
                   **{c: float(block.loc[(run, metric.name)].get(c, math.nan))
                      for c in ("expected", "worst", "best", "trec_eval")},
                   "previous": None, "diff_previous": math.nan, "p_value_previous": math.nan,
                   "significant_previous": False, "overlaps_previous": False}
            if i:
                prev = out[-1]
                pairs = pair_columns(matrix, run, ordered[i - 1])
                _, p = paired_test(summands(pairs.a, metric), summands(pairs.b, metric), test,
                                   seed=seed, n_resamples=n_resamples)
                row.update(previous=ordered[i - 1], diff_previous=row["expected"] - prev["expected"],
                           p_value_previous=float(p),
                           significant_previous=bool(np.isfinite(p) and p <= alpha),
                           overlaps_previous=bool(max(row["worst"], prev["worst"])
                                                  <= min(row["best"], prev["best"])))
            out.append(row)
    return pd.DataFrame(out, columns=list(CHECKPOINT_COLUMNS))
