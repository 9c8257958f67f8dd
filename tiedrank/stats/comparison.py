"""Comparing runs on their per-query values: one pair, or many runs with a correction.

* :func:`compare_pair` -- A versus B on one metric under one tie policy: the means, the
  paired test (:data:`~tiedrank.stats.paired_tests.TESTS`), the seeded bootstrap interval
  of the mean difference and Cohen's d.
* :func:`compare_runs` -- many runs against a baseline, or every pair, with a correction
  (:data:`~tiedrank.stats.corrections.CORRECTIONS`) applied per metric over the family of
  tests run for it, and ranx-style significance markers: each run has a letter
  (:func:`run_keys`) and a run's marker lists the letters of the runs it significantly beats.

The difference is always ``A - B`` (``run - baseline``) over the paired queries, on the
scale the metric's summary averages (:func:`~tiedrank.stats.pairing.summands`): the
values for a mean or a sum; for trec_eval's geometric mean (``gm_map``, ``gm_bpref``) the
floored logarithms ``log(max(x, 1e-5))``, so the test asks whether the geometric means are
equal and the mean difference is ``log(GM_A / GM_B)``. A run's own number (``mean``) is
always its summary, as ``Evaluation.summary`` reports it.

Examples
--------
>>> import pandas as pd
>>> pq = pd.DataFrame({"run": ["A"] * 4 + ["B"] * 4, "query": ["q1", "q2", "q3", "q4"] * 2,
...                    "metric": "RR", "policy": "expected",
...                    "value": [1.0, 0.5, 1.0, 0.5, 0.5, 0.5, 0.25, 0.2]})
>>> result = compare_pair(pq, "A", "B", "RR", test="t")
>>> round(result.mean_diff, 4), result.n_queries
(0.3875, 4)
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.errors import Finding
from ..evaluation import Evaluation
from ..metrics import Metric
from ..core.validation import Options, validate_params
from .corrections import CORRECTIONS, correct_pvalues
from .paired_tests import (
    ALPHA,
    CONFIDENCE,
    RESAMPLES,
    SEED,
    TESTS,
    bootstrap_ci,
    cohens_d,
    paired_test,
    tukey_hsd,
)
from .pairing import (
    MAX_LISTED,
    PairedValues,
    check_runs,
    pair_columns,
    per_query_frame,
    resolve_metric,
    resolve_metrics,
    resolve_policy,
    summands,
    summary_value,
    value_matrix,
)

__all__ = ["PAIRINGS", "Comparison", "PairComparison", "compare_pair", "compare_runs", "run_keys",
           "scale_note"]

PAIRINGS = ("baseline", "all")
"""Which pairs :func:`compare_runs` tests: each run against the baseline, or every pair."""


@dataclass(frozen=True)
class PairComparison:
    """Everything :func:`compare_pair` computes for A versus B (difference = A - B)."""

    run_a: str
    run_b: str
    metric: str
    policy: str
    test: str
    n_queries: int
    mean_a: float
    mean_b: float
    mean_diff: float
    statistic: float
    p_value: float
    ci_low: float
    ci_high: float
    effect_size: float
    only_a: tuple[str, ...] = ()
    only_b: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k not in ("only_a", "only_b")}
        out["n_dropped"] = len(self.only_a) + len(self.only_b)
        return out


def compare_values(pairs: PairedValues, run_a: str, run_b: str, metric: Metric, policy: str,
                    test: str, seed: int, n_resamples: int, confidence: float,
                    with_ci: bool = True) -> PairComparison:
    """The paired test (and bootstrap CI unless ``with_ci`` is false) of one pair of runs on
    their aligned per-query values, on the metric's summary scale (:func:`summands`; the
    means are the metric's summaries, :func:`summary_value`)."""
    a, b = summands(pairs.a, metric), summands(pairs.b, metric)
    statistic, p = paired_test(a, b, test, seed=seed, n_resamples=n_resamples)
    low, high = (bootstrap_ci(a, b, seed=seed, confidence=confidence, n_resamples=n_resamples)
                 if with_ci else (math.nan, math.nan))
    diff = float(np.mean(a - b)) if len(a) else math.nan
    return PairComparison(run_a, run_b, metric.name, policy, test, len(a),
                          summary_value(pairs.a, metric), summary_value(pairs.b, metric),
                          diff, statistic, p, low, high, cohens_d(a, b),
                          pairs.only_a, pairs.only_b)


@validate_params({"test": [Options(*TESTS)], "n_resamples": [RESAMPLES],
                  "confidence": [CONFIDENCE], "seed": [SEED]})
def compare_pair(source: Evaluation | pd.DataFrame, run_a: str, run_b: str,
                 metric: str | Metric, *, policy: str = "expected", test: str = "t",
                 seed: int = 0, n_resamples: int = 9999,
                 confidence: float = 0.95) -> PairComparison:
    """Paired comparison of two runs on one metric under one tie policy.

    Values are paired on the query id (inner join); queries only one run has are listed in
    ``only_a`` / ``only_b``. Reports mean(A), mean(B) (each run's summary of the paired
    queries: the mean; the sum for ``num_*``; the geometric mean for ``gm_map``,
    ``gm_bpref``), mean(d), the chosen test's statistic and p-value (``test`` in
    :data:`TESTS`), the seeded bootstrap interval of mean(d) and Cohen's d = mean(d) / sd(d),
    where d = s(A) - s(B) per query and s the metric's :func:`summands`: the values, or for
    a geometric summary ``s(x) = log(max(x, 1e-5))``. So a paired test of gm_map is the
    paired test on the floored logs of AP: H0 is GM(A) = GM(B), and mean(d) is
    ``log(GM(A) / GM(B))``, not GM(A) - GM(B).

    Examples
    --------
    >>> import pandas as pd
    >>> pq = pd.DataFrame({"run": ["A"] * 3 + ["B"] * 3, "query": ["1", "2", "3"] * 2,
    ...                    "metric": "gm_map", "policy": "expected",
    ...                    "value": [0.5, 0.4, 0.0, 0.25, 0.2, 0.1]})
    >>> r = compare_pair(pq, "A", "B", "gm_map")
    >>> round(r.mean_a, 6), round(r.mean_b, 6)        # trec_eval's geometric means
    (0.012599, 0.170998)
    >>> round(r.mean_diff, 4)                         # log(GM_A / GM_B): B is ahead
    -2.608
    """
    frame = per_query_frame(source)
    metric = resolve_metric(frame, metric)
    policy_label = resolve_policy(frame, policy, seed)
    pairs = pair_columns(value_matrix(frame, metric, policy_label), run_a, run_b)
    return compare_values(pairs, run_a, run_b, metric, policy_label, test, seed,
                           n_resamples, confidence)



def scale_note(metrics: Iterable[str | Metric]) -> str | None:
    """One sentence on the metrics whose comparisons are not on their plain values (a
    geometric summary), for the captions of the CLI and the dashboard; ``None`` otherwise.

    Examples
    --------
    >>> scale_note(["AP", "gm_map"])
    'gm_map: mean = the geometric mean (each value floored at 1e-05), and the test, the interval, d and diff are on log(max(x, 1e-05)): diff = log(GM run / GM baseline)'
    >>> scale_note(["AP", "num_ret"]) is None
    True
    """
    from ..metrics import parse_metric
    from ..core.summation import MIN_GEO_MEAN

    parsed = dict.fromkeys(parse_metric(m) for m in dict.fromkeys(metrics))  # parsed once
    geometric = list(dict.fromkeys(m.name for m in parsed if m.entry.summary == "geometric"))
    if not geometric:
        return None
    return (f"{', '.join(geometric)}: mean = the geometric mean (each value floored at "
            f"{MIN_GEO_MEAN:g}), and the test, the interval, d and diff are on "
            f"log(max(x, {MIN_GEO_MEAN:g})): diff = log(GM run / GM baseline)")


def run_keys(n: int) -> list[str]:
    """Letters for ``n`` runs: a, b, ..., z, then aa, ab, ... (ranx-style run keys).

    Examples
    --------
    >>> run_keys(3), run_keys(28)[-3:]
    (['a', 'b', 'c'], ['z', 'aa', 'ab'])
    """
    letters = "abcdefghijklmnopqrstuvwxyz"
    keys: list[str] = []
    width = 1
    while len(keys) < n:
        keys += ["".join(t) for t in itertools.product(letters, repeat=width)][: n - len(keys)]
        width += 1
    return keys


@dataclass(frozen=True, eq=False)
class Comparison:
    """Result of :func:`compare_runs`.

    Attributes
    ----------
    table : DataFrame
        One row per (run, metric): run, key, metric, mean, diff (run - baseline),
        p_value, p_corrected, significant (vs the baseline), effect_size, n_queries,
        marker (keys of the runs this run significantly beats, e.g. ``"ac"``).
        The baseline row has diff 0 and no p-value. Render it with
        :func:`tiedrank.report.render`.
    pairs : DataFrame
        One row per tested (metric, run_a, run_b): means, mean_diff, statistic, p_value,
        p_corrected, significant, ci_low, ci_high, effect_size, n_queries, n_dropped.
    baseline : str
    keys : dict of str to str
        Run -> letter.
    findings : list of Finding
        Queries dropped by the pairing.
    """

    table: pd.DataFrame
    pairs: pd.DataFrame
    baseline: str
    keys: dict[str, str]
    test: str
    correction: str
    alpha: float
    policy: str
    findings: list[Finding] = field(default_factory=list)


@validate_params({"test": [Options(*TESTS)], "correction": [Options(*CORRECTIONS)],
                  "alpha": [ALPHA], "pairs": [Options(*PAIRINGS)],
                  "n_resamples": [RESAMPLES], "confidence": [CONFIDENCE], "seed": [SEED]})
def compare_runs(source: Evaluation | pd.DataFrame, *, baseline: str | None = None,
                 runs: Sequence[str] | None = None,
                 metrics: Iterable[str | Metric] | None = None, policy: str = "expected",
                 test: str = "t", correction: str = "holm", alpha: float = 0.05,
                 pairs: str = "baseline", seed: int = 0, n_resamples: int = 9999,
                 confidence: float = 0.95,
                 progress: Callable[[float, str], None] | None = None,
                 intervals: bool = True) -> Comparison:
    """Compare many runs against a baseline (or all pairs) with a corrected paired test.

    Each metric is compared on the scale of its summary (:func:`compare_pair`): a run's
    ``mean`` is its summary (the geometric mean for gm_map and gm_bpref, the sum for the
    ``num_*`` counts), and for a geometric summary the tests, intervals, effect sizes and
    ``diff`` are those of the floored logs ``log(max(x, 1e-5))``: ``diff`` is
    ``log(GM_run / GM_baseline)`` and a significant test says the geometric means differ.

    Parameters
    ----------
    source : Evaluation or per-query DataFrame
        Columns run, query, metric, policy, value (``Evaluation.per_query``).
    baseline : str, optional
        Default: the first run.
    runs, metrics : optional
        Subsets (default: all, in evaluation order).
    policy : str, default "expected"
        Tie policy whose per-query values are tested.
    test : {"t", "wilcoxon", "randomization", "tukey"}
        The paired tests of two runs, or Tukey's HSD of all the compared runs at once (each
        run a group, on the queries every run has; ranx's ``stat_test="tukey"``).
    correction : {"holm", "bonferroni", "bh", "none"}
        Applied per metric over the family of tests run for it (NaN p-values left out); not
        to Tukey's HSD, whose p-values are adjusted over every pair of the runs already.
    pairs : {"baseline", "all"}
        Test each run against the baseline only, or every pair of runs (ranx's default).
    alpha : float
        A pair is significant when its corrected p <= alpha.
    seed : int
        Seeds the randomization test and the bootstrap (same seed, same numbers).
    progress : callable, optional
        Called as ``progress(share_done, step_in_words)`` before each test (a progress bar).
    intervals : bool, default True
        Compute each pair's bootstrap interval (``ci_low``, ``ci_high``); false leaves them
        NaN and skips the resampling (the report grid needs only the tests).

    Returns
    -------
    Comparison
        ``table`` (report, ranx-style markers), ``pairs`` (every test).

    Examples
    --------
    >>> import pandas as pd
    >>> pq = pd.DataFrame({"run": ["A"] * 3 + ["B"] * 3, "query": ["1", "2", "3"] * 2,
    ...                    "metric": "RR", "policy": "expected",
    ...                    "value": [0.5, 0.5, 1.0, 0.4, 0.3, 0.3]})
    >>> compare_runs(pq, test="t").table[["run", "key", "diff", "marker"]].values.tolist()
    [['A', 'a', 0.0, ''], ['B', 'b', -0.3333333333333333, '']]
    """
    frame = per_query_frame(source)
    policy_label = resolve_policy(frame, policy, seed)
    run_list = _baseline_first(list(dict.fromkeys(frame["run"])), runs, baseline)
    baseline = run_list[0]
    keys = dict(zip(run_list, run_keys(len(run_list))))
    tested = ([(r, baseline) for r in run_list[1:]] if pairs == "baseline"
              else list(itertools.combinations(run_list, 2)))
    pair_blocks, table_rows, findings = [], [], []
    metric_list = resolve_metrics(frame, metrics)
    steps, done = max(1, len(metric_list) * len(tested)), 0
    for metric in metric_list:
        matrix = value_matrix(frame, metric, policy_label)
        missing_runs = [r for r in run_list if r not in matrix.columns]
        if missing_runs:
            raise ValueError(f"no values of {metric} under {policy_label} for "
                             f"{', '.join(missing_runs)}")
        tukey = _tukey_pvalues(matrix, run_list, metric) if test == "tukey" else None
        results = []
        for run_a, run_b in tested:
            if progress is not None:
                progress(done / steps, f"Testing {run_a} against {run_b} on {metric} "
                         f"(test {done + 1} of {steps})")
            done += 1
            paired = pair_columns(matrix, run_a, run_b)
            findings += _dropped_findings(paired, metric, run_a, run_b)
            result = compare_values(paired, run_a, run_b, metric, policy_label, test, seed,
                                    n_resamples, confidence, with_ci=intervals)
            if tukey is not None:  # Tukey's test is of all the runs at once
                result = dataclasses.replace(result, p_value=tukey[run_a, run_b])
            results.append(result)
        block = pd.DataFrame([r.as_dict() for r in results])
        # Tukey's p-values are adjusted over every pair already: no second correction
        block["p_corrected"] = (block["p_value"].to_numpy() if tukey is not None else
                                correct_pvalues([r.p_value for r in results], correction))
        block["significant"] = np.nan_to_num(block["p_corrected"].to_numpy(), nan=np.inf) <= alpha
        pair_blocks.append(block)
        table_rows += _table_rows(block, matrix, run_list, keys, metric)
    return Comparison(pd.DataFrame(table_rows), pd.concat(pair_blocks, ignore_index=True),
                      baseline, keys, test, correction, alpha, policy_label, findings)


def _tukey_pvalues(matrix: pd.DataFrame, run_list: list[str],
                   metric: Metric) -> dict[tuple[str, str], float]:
    """Tukey's HSD p-value of every pair of ``run_list``, from one test of all of them on the
    queries every run has (each run a group, on the metric's summary scale), as ranx's
    ``stat_test="tukey"`` and statsmodels' ``pairwise_tukeyhsd`` compute it."""
    complete = matrix[run_list].dropna()
    _, p = tukey_hsd([summands(complete[run].to_numpy(), metric) for run in run_list])
    return {(a, b): float(p[i, j]) for i, a in enumerate(run_list)
            for j, b in enumerate(run_list) if i != j}


def _baseline_first(all_runs: list[str], runs: Sequence[str] | None,
                    baseline: str | None) -> list[str]:
    """The compared runs, baseline first (default baseline: the first compared run)."""
    run_list = list(runs) if runs is not None else list(all_runs)
    unknown = [r for r in run_list if r not in all_runs]
    if unknown:
        raise ValueError(f"unknown run(s) {', '.join(map(repr, unknown))}; runs: {', '.join(all_runs)}")
    baseline = run_list[0] if baseline is None else baseline
    check_runs([baseline], all_runs, "baseline")
    if baseline in run_list:
        run_list.remove(baseline)
    run_list.insert(0, baseline)
    if len(run_list) < 2:
        raise ValueError("need at least two runs to compare")
    return run_list


def _dropped_findings(paired: PairedValues, metric: Metric, run_a: str, run_b: str) -> list[Finding]:
    if not paired.n_dropped:
        return []
    n = paired.n_dropped
    return [Finding("queries_dropped_by_pairing",
                    f"{metric}: {n} quer{'y' if n == 1 else 'ies'} dropped when pairing "
                    f"{run_a!r} with {run_b!r} (only one run has them)",
                    None, n, (paired.only_a + paired.only_b)[:MAX_LISTED])]


def _table_rows(block: pd.DataFrame, matrix: pd.DataFrame, run_list: list[str],
                keys: dict[str, str], metric: Metric) -> list[dict]:
    """One report row per run for one metric: its mean, the test against the baseline
    (sign flipped for pairs tested as (baseline, run)) and its significance marker."""
    baseline = run_list[0]
    beats: dict[str, list[str]] = {r: [] for r in run_list}
    vs_baseline = {}
    for row in block.itertuples(index=False):
        if row.significant and row.mean_diff != 0:
            winner, loser = ((row.run_a, row.run_b) if row.mean_diff > 0
                             else (row.run_b, row.run_a))
            beats[winner].append(keys[loser])
        if row.run_b == baseline:
            vs_baseline[row.run_a] = row
        elif row.run_a == baseline:  # all-pairs order (baseline, run): flip the sign
            vs_baseline[row.run_b] = row._replace(mean_diff=-row.mean_diff,
                                                  effect_size=-row.effect_size)
    joiner = "," if any(len(k) > 1 for k in keys.values()) else ""
    key_order = list(keys.values())
    means = {run: summary_value(matrix[run].dropna().to_numpy(), metric) for run in run_list}
    counts = matrix[run_list].notna().sum()
    rows = []
    for run in run_list:
        row = vs_baseline.get(run)
        rows.append({
            "run": run, "key": keys[run], "metric": metric.name, "mean": float(means[run]),
            "diff": 0.0 if row is None else float(row.mean_diff),
            "p_value": math.nan if row is None else float(row.p_value),
            "p_corrected": math.nan if row is None else float(row.p_corrected),
            "significant": False if row is None else bool(row.significant),
            "effect_size": math.nan if row is None else float(row.effect_size),
            "n_queries": int(counts[run]) if row is None else int(row.n_queries),
            "marker": joiner.join(sorted(beats[run], key=key_order.index)),
        })
    return rows
