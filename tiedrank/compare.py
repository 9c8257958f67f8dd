"""Comparing runs: significance tests, corrections, and how stable the verdict is under ties.

A ranker whose scores tie has no single ranking, so "A beats B" can be an artefact of the
tie-break: on the LLMJudge sample data, trec_eval's docno order and the exact expectation
crown different judges. This module answers the usual comparison questions and the one
ties add:

* **Paired tests** on per-query values (``Evaluation.per_query``, any policy; ``expected``
  by default), paired on query ids (inner join; dropped queries are reported):
  :func:`t_test`, :func:`wilcoxon_test`, :func:`randomization_test` (Fisher, seeded),
  :func:`bootstrap_ci` (seeded), :func:`cohens_d`; :func:`mann_whitney` for unpaired sets.
  All statistics come from :mod:`scipy.stats`; :func:`compare_pair` bundles them.
* **Many runs** against a baseline or all pairs, :func:`compare_runs`, with
  :func:`holm`, :func:`bonferroni` or :func:`benjamini_hochberg` correction and ranx-style
  significance markers (each run has a letter; a run's marker lists the letters of the runs
  it significantly beats).
* **Verdict stability**: :func:`win_probability` estimates P(A beats B) under independent
  random tie-breaking of both runs (seeded sampling, binomial standard error);
  :func:`exact_win_probability` enumerates every joint ordering for tiny cases;
  :func:`policy_verdicts` and :func:`verdict_stability` give the verdict and the test's
  significance under each fixed policy; :func:`policy_rankings` and
  :func:`ranking_agreement` rank many systems under each policy and compare the rankings
  with Kendall's tau.
* **Rank correlation** of two runs' orderings per query (tie-aware Kendall tau-b and
  Spearman on the documents both retrieved): :func:`rank_correlation`.
* **Per-group breakdown** from a query -> group CSV: :func:`read_groups`,
  :func:`group_breakdown`.

Conventions (all stated where they apply):

* The difference is always ``A - B`` (``run - baseline``) over the paired queries.
* When every paired difference is exactly 0 there is no evidence of a difference: every
  test returns statistic 0 and p = 1, the effect size is 0 and the interval is [0, 0]
  (scipy would return NaN or warn). With fewer than two pairs everything is NaN.
* Corrections are applied per metric, over the family of tests run for that metric
  (one test per compared pair); NaN p-values are left out of the family.
* Two means count as equal when they differ by at most ``1e-12 * max(1, |mean|)``, so
  that the same sum added in another order is not called a win.

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

import io as _io
import itertools
import math
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy import stats

from .data import Run
from .errors import Finding, InputError
from .evaluate import ALL_POLICIES, Evaluation, parse_policies
from .metrics import Metric, metric_values, parse_metric
from .spread import MAX_ORDERINGS, sample_run_means
from .ties import TieTable

TESTS = ("t", "wilcoxon", "randomization")
"""Paired tests: Student's paired t-test, Wilcoxon signed-rank, Fisher randomization."""
CORRECTIONS = ("holm", "bonferroni", "bh", "none")
"""Multiple-comparison corrections: Holm step-down, Bonferroni, Benjamini-Hochberg, none."""
_PER_QUERY_COLUMNS = ("run", "query", "metric", "policy", "value")
_REL_TOL = 1e-12
_MAX_LISTED = 20


# ==== 1. paired tests on per-query values ===================================================
def _pair_arrays(a, b) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"paired values need two 1-d arrays of equal length, got shapes "
                         f"{a.shape} and {b.shape}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("paired values must be finite")
    return a, b


def _degenerate(a: np.ndarray, b: np.ndarray) -> tuple[float, float] | None:
    """(statistic, p) for the cases scipy does not answer usefully, else None."""
    if len(a) < 2:
        return math.nan, math.nan
    if np.array_equal(a, b):  # no difference at all: no evidence against H0
        return 0.0, 1.0
    return None


def t_test(a, b) -> tuple[float, float]:
    """Paired Student t-test of H0: E[A - B] = 0 (two-sided).

    t = mean(d) / (sd(d) / sqrt(n)) with d = a - b and sd the sample standard deviation
    (ddof = 1), n - 1 degrees of freedom; computed by ``scipy.stats.ttest_rel(a, b)``.

    Returns
    -------
    (statistic, p_value)

    Examples
    --------
    >>> [round(v, 4) for v in t_test([0.9, 0.8, 0.7, 0.6], [0.5, 0.6, 0.6, 0.5])]
    [2.8284, 0.0663]
    """
    a, b = _pair_arrays(a, b)
    special = _degenerate(a, b)
    if special is not None:
        return special
    result = stats.ttest_rel(a, b, alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


def wilcoxon_test(a, b) -> tuple[float, float]:
    """Wilcoxon signed-rank test of H0: the differences a - b are symmetric about 0.

    W = min(W+, W-), the smaller sum of the ranks of |d| over positive or negative
    differences; zero differences are dropped (``zero_method="wilcox"``, as in most IR
    toolkits); exact p-value for small n without ties, normal approximation otherwise
    (``scipy.stats.wilcoxon(a, b)``, ``method="auto"``).

    Returns
    -------
    (statistic, p_value)

    Examples
    --------
    >>> wilcoxon_test([0.9, 0.8, 0.7, 0.6, 0.5], [0.1, 0.2, 0.3, 0.4, 0.45])
    (0.0, 0.0625)
    """
    a, b = _pair_arrays(a, b)
    special = _degenerate(a, b)
    if special is not None:
        return special
    result = stats.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


def _mean_difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x - y, axis=axis)


def randomization_test(a, b, *, seed: int = 0, n_resamples: int = 9999) -> tuple[float, float]:
    """Fisher's paired randomization (permutation) test of the mean difference.

    Under H0 the labels A/B of each query are exchangeable, so each difference d_i keeps or
    flips its sign with probability 1/2. p = share of sign assignments whose
    |mean(d)| is at least the observed one. With 2^n <= ``n_resamples`` every assignment
    is enumerated (exact); otherwise ``n_resamples`` random ones are drawn from
    ``numpy.random.default_rng(seed)`` and p = (count + 1) / (n_resamples + 1), so the same
    seed always gives the same p-value (unlike ranx, whose p-values change on every call).
    Computed by ``scipy.stats.permutation_test((a, b), mean(x - y),
    permutation_type="samples", rng=default_rng(seed))``.

    Returns
    -------
    (statistic, p_value) where the statistic is mean(a - b).

    Examples
    --------
    >>> randomization_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3])  # 2^3 assignments: exact
    (0.6, 0.25)
    """
    a, b = _pair_arrays(a, b)
    special = _degenerate(a, b)
    if special is not None:
        return (float(np.mean(a - b)) if len(a) else math.nan), special[1]
    result = stats.permutation_test(
        (a, b), _mean_difference, permutation_type="samples", vectorized=True,
        n_resamples=n_resamples, alternative="two-sided", rng=np.random.default_rng(seed))
    return float(result.statistic), float(result.pvalue)


def bootstrap_ci(a, b, *, seed: int = 0, confidence: float = 0.95,
                 n_resamples: int = 9999, method: str = "BCa") -> tuple[float, float]:
    """Bootstrap confidence interval of the mean paired difference mean(a - b).

    Queries are resampled with replacement (resampling the differences d_i = a_i - b_i is
    the same as resampling the pairs); the interval is scipy's BCa interval by default,
    ``scipy.stats.bootstrap((d,), np.mean, rng=default_rng(seed))``, so the same seed gives
    the same interval. When all differences are equal the interval is [d, d].

    Returns
    -------
    (low, high)
    """
    a, b = _pair_arrays(a, b)
    d = a - b
    if len(d) < 2:
        return math.nan, math.nan
    if np.ptp(d) == 0:  # degenerate: every resample has the same mean (BCa would be NaN)
        return float(d[0]), float(d[0])
    result = stats.bootstrap((d,), np.mean, n_resamples=n_resamples,
                             confidence_level=confidence, method=method,
                             rng=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def cohens_d(a, b) -> float:
    """Cohen's d for paired samples (often written d_z): mean(d) / sd(d), d = a - b.

    sd uses ddof = 1. Convention when sd(d) = 0: 0 if mean(d) = 0, else +-inf.

    Examples
    --------
    >>> round(cohens_d([0.9, 0.8, 0.7, 0.6], [0.5, 0.6, 0.6, 0.5]), 4)
    1.4142
    """
    a, b = _pair_arrays(a, b)
    d = a - b
    if len(d) < 2:
        return math.nan
    mean, sd = float(np.mean(d)), float(np.std(d, ddof=1))
    if sd == 0:
        return 0.0 if mean == 0 else math.copysign(math.inf, mean)
    return mean / sd


def mann_whitney(x, y) -> tuple[float, float]:
    """Mann-Whitney U test for two *unpaired* sets of values (two-sided).

    U = number of pairs (x_i, y_j) with x_i > y_j, plus half the ties;
    ``scipy.stats.mannwhitneyu(x, y)`` (continuity correction, exact p for small samples).
    Use it when the two runs were evaluated on different query sets.

    Examples
    --------
    >>> mann_whitney([3.0, 4.0, 5.0], [0.0, 1.0, 2.0])
    (9.0, 0.1)
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if len(x) == 0 or len(y) == 0:
        return math.nan, math.nan
    result = stats.mannwhitneyu(x, y, alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


def paired_test(a, b, test: str = "t", *, seed: int = 0,
                n_resamples: int = 9999) -> tuple[float, float]:
    """Dispatch to :func:`t_test`, :func:`wilcoxon_test` or :func:`randomization_test`."""
    if test == "t":
        return t_test(a, b)
    if test == "wilcoxon":
        return wilcoxon_test(a, b)
    if test == "randomization":
        return randomization_test(a, b, seed=seed, n_resamples=n_resamples)
    raise ValueError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")


# ---- pairing per-query values ---------------------------------------------------------------
def _per_query_frame(source: "Evaluation | pd.DataFrame") -> pd.DataFrame:
    """The tidy per-query frame with plain str run/metric/policy columns."""
    frame = source.per_query if isinstance(source, Evaluation) else source
    if not isinstance(frame, pd.DataFrame):
        raise TypeError("expected an Evaluation or its per_query DataFrame")
    missing = [c for c in _PER_QUERY_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"per-query values need columns {', '.join(_PER_QUERY_COLUMNS)}; "
                         f"missing {', '.join(missing)}")
    out = frame[list(_PER_QUERY_COLUMNS)].copy()
    for column in ("run", "query", "metric", "policy"):  # categorical -> str: plain pivots
        if not pd.api.types.is_object_dtype(out[column]):
            out[column] = out[column].astype(str)
    return out


def _resolve_metric(frame: pd.DataFrame, metric: "str | Metric") -> str:
    names = list(dict.fromkeys(frame["metric"]))
    if str(metric) in names:
        return str(metric)
    name = parse_metric(metric).name  # "ndcg@10" -> "nDCG@10"
    if name not in names:
        raise ValueError(f"metric {name!r} was not evaluated; available: {', '.join(names)}")
    return name


def _resolve_policy(frame: pd.DataFrame, policy: str, seed: int = 0) -> str:
    names = list(dict.fromkeys(frame["policy"]))
    if policy in names:
        return policy
    label = parse_policies(policy, seed)[0].label
    if label not in names:
        raise ValueError(f"tie policy {label!r} was not evaluated; available: {', '.join(names)}")
    return label


def _value_matrix(frame: pd.DataFrame, metric: str, policy: str) -> pd.DataFrame:
    """query x run matrix of one metric under one policy (NaN where a run lacks a query)."""
    block = frame[(frame["metric"] == metric) & (frame["policy"] == policy)]
    if block.duplicated(["run", "query"]).any():
        raise ValueError(f"duplicate (run, query) values for {metric} under {policy}")
    matrix = block.pivot(index="query", columns="run", values="value")
    runs = list(dict.fromkeys(block["run"]))  # keep the evaluation's run order
    return matrix[runs]


@dataclass(frozen=True)
class PairedValues:
    """Two runs' values on the queries both have (inner join on the query id).

    ``only_a`` / ``only_b`` are the queries dropped because only that run has them.
    """

    queries: np.ndarray
    a: np.ndarray
    b: np.ndarray
    only_a: tuple[str, ...] = ()
    only_b: tuple[str, ...] = ()

    @property
    def n_dropped(self) -> int:
        return len(self.only_a) + len(self.only_b)


def _pair_columns(matrix: pd.DataFrame, run_a: str, run_b: str) -> PairedValues:
    for run in (run_a, run_b):
        if run not in matrix.columns:
            raise ValueError(f"run {run!r} not found; runs: {', '.join(map(str, matrix.columns))}")
    x, y = matrix[run_a], matrix[run_b]
    has_a, has_b = x.notna().to_numpy(), y.notna().to_numpy()
    both = has_a & has_b
    index = matrix.index.to_numpy(dtype=object)
    return PairedValues(index[both], x.to_numpy()[both], y.to_numpy()[both],
                        tuple(map(str, index[has_a & ~has_b])),
                        tuple(map(str, index[has_b & ~has_a])))


def paired_values(source: "Evaluation | pd.DataFrame", run_a: str, run_b: str,
                  metric: "str | Metric", policy: str = "expected") -> PairedValues:
    """Per-query values of two runs for one metric and policy, joined on the query id."""
    frame = _per_query_frame(source)
    matrix = _value_matrix(frame, _resolve_metric(frame, metric), _resolve_policy(frame, policy))
    return _pair_columns(matrix, run_a, run_b)


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


def _compare_values(pairs: PairedValues, run_a: str, run_b: str, metric: str, policy: str,
                    test: str, seed: int, n_resamples: int, confidence: float,
                    with_ci: bool = True) -> PairComparison:
    a, b = pairs.a, pairs.b
    statistic, p = paired_test(a, b, test, seed=seed, n_resamples=n_resamples)
    low, high = (bootstrap_ci(a, b, seed=seed, confidence=confidence, n_resamples=n_resamples)
                 if with_ci else (math.nan, math.nan))
    mean = lambda v: float(np.mean(v)) if len(v) else math.nan
    return PairComparison(run_a, run_b, metric, policy, test, len(a), mean(a), mean(b),
                          mean(a - b), statistic, p, low, high, cohens_d(a, b),
                          pairs.only_a, pairs.only_b)


def compare_pair(source: "Evaluation | pd.DataFrame", run_a: str, run_b: str,
                 metric: "str | Metric", *, policy: str = "expected", test: str = "t",
                 seed: int = 0, n_resamples: int = 9999,
                 confidence: float = 0.95) -> PairComparison:
    """Paired comparison of two runs on one metric under one tie policy.

    Values are paired on the query id (inner join); queries only one run has are listed in
    ``only_a`` / ``only_b``. Reports mean(A), mean(B), mean(A - B), the chosen test's
    statistic and p-value (``test`` in :data:`TESTS`), the seeded bootstrap interval of the
    mean difference and Cohen's d = mean(d) / sd(d).
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")
    frame = _per_query_frame(source)
    metric_name = _resolve_metric(frame, metric)
    policy_label = _resolve_policy(frame, policy, seed)
    pairs = _pair_columns(_value_matrix(frame, metric_name, policy_label), run_a, run_b)
    return _compare_values(pairs, run_a, run_b, metric_name, policy_label, test, seed,
                           n_resamples, confidence)


# ==== 2. multiple comparisons ===============================================================
def _finite_part(p) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("p-values must be a 1-d array")
    mask = np.isfinite(p)
    if ((p[mask] < 0) | (p[mask] > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    return p, mask, np.full(p.shape, np.nan)


def bonferroni(p) -> np.ndarray:
    """Bonferroni-adjusted p-values: min(1, m p_i), m = number of (finite) p-values.

    Examples
    --------
    >>> bonferroni([0.01, 0.04, 0.03, 0.005]).tolist()
    [0.04, 0.16, 0.12, 0.02]
    """
    p, mask, out = _finite_part(p)
    out[mask] = np.minimum(p[mask] * mask.sum(), 1.0)
    return out


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p-values (controls the family-wise error rate).

    With p_(1) <= ... <= p_(m) sorted ascending:
    p~_(i) = min(1, max_{j <= i} (m - j + 1) p_(j)). The running maximum enforces
    monotonicity (a smaller raw p never gets a larger adjusted p), which is what makes
    "reject while p~ <= alpha" identical to Holm's sequential procedure.

    Examples
    --------
    Sorted: .005, .01, .03, .04 -> 4(.005) = .02, 3(.01) = .03, 2(.03) = .06,
    1(.04) = .04 raised to .06 by the running maximum:

    >>> np.round(holm([0.01, 0.04, 0.03, 0.005]), 10).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p, mask, out = _finite_part(p)
    values = p[mask]
    m = len(values)
    if m:
        order = np.argsort(values, kind="stable")
        scaled = (m - np.arange(m)) * values[order]
        adjusted = np.minimum(np.maximum.accumulate(scaled), 1.0)
        result = np.empty(m)
        result[order] = adjusted
        out[mask] = result
    return out


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (controls the false discovery rate).

    p~_(i) = min_{j >= i} min(1, m p_(j) / j); computed by
    ``scipy.stats.false_discovery_control(p, method="bh")``.

    Examples
    --------
    >>> np.round(benjamini_hochberg([0.01, 0.04, 0.03, 0.005]), 10).tolist()
    [0.02, 0.04, 0.04, 0.02]
    """
    p, mask, out = _finite_part(p)
    if mask.any():
        out[mask] = stats.false_discovery_control(p[mask], method="bh")
    return out


def correct_pvalues(p, method: str = "holm") -> np.ndarray:
    """Adjust p-values by ``method`` in :data:`CORRECTIONS` (NaNs stay NaN, outside m)."""
    if method == "holm":
        return holm(p)
    if method == "bonferroni":
        return bonferroni(p)
    if method == "bh":
        return benjamini_hochberg(p)
    if method == "none":
        p, mask, out = _finite_part(p)
        out[mask] = p[mask]
        return out
    raise ValueError(f"unknown correction {method!r}; expected one of {', '.join(CORRECTIONS)}")


def run_keys(n: int) -> list[str]:
    """Letters for ``n`` runs: a, b, ..., z, then aa, ab, ... (ranx-style run keys)."""
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

    def superscript_table(self, fmt: str = "table", digits: int = 4) -> pd.DataFrame:
        """ranx-style wide table: one row per run, one column per metric, ``mean^{keys}``.

        The superscript is written ``$^{ab}$`` for LaTeX, ``<sup>ab</sup>`` for Markdown
        and ``^ab`` otherwise (pass the same ``fmt`` to :func:`tiedrank.report.render`).
        """
        wrap = {"latex": lambda s: f"$^{{{s}}}$", "markdown": lambda s: f"<sup>{s}</sup>"}
        sup = wrap.get(fmt, lambda s: f"^{s}")
        cells = self.table.assign(cell=[
            f"{m:.{digits}f}" + (sup(k) if k else "")
            for m, k in zip(self.table["mean"], self.table["marker"])])
        wide = cells.pivot(index=["key", "run"], columns="metric", values="cell")
        wide = wide[list(dict.fromkeys(self.table["metric"]))].reset_index()
        wide.columns.name = None
        return wide


def compare_runs(source: "Evaluation | pd.DataFrame", *, baseline: str | None = None,
                 runs: Sequence[str] | None = None,
                 metrics: "Iterable[str | Metric] | None" = None, policy: str = "expected",
                 test: str = "t", correction: str = "holm", alpha: float = 0.05,
                 pairs: str = "baseline", seed: int = 0, n_resamples: int = 9999,
                 confidence: float = 0.95) -> Comparison:
    """Compare many runs against a baseline (or all pairs) with a corrected paired test.

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
    test : {"t", "wilcoxon", "randomization"}
    correction : {"holm", "bonferroni", "bh", "none"}
        Applied per metric over the family of tests run for it.
    pairs : {"baseline", "all"}
        Test each run against the baseline only, or every pair of runs (ranx's default).
    alpha : float
        A pair is significant when its corrected p <= alpha.
    seed : int
        Seeds the randomization test and the bootstrap (same seed, same numbers).

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
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; expected one of {', '.join(CORRECTIONS)}")
    if pairs not in ("baseline", "all"):
        raise ValueError("pairs must be 'baseline' or 'all'")
    frame = _per_query_frame(source)
    policy_label = _resolve_policy(frame, policy, seed)
    all_runs = list(dict.fromkeys(frame["run"]))
    run_list = list(runs) if runs is not None else all_runs
    unknown = [r for r in run_list if r not in all_runs]
    if unknown:
        raise ValueError(f"unknown run(s) {', '.join(map(repr, unknown))}; runs: {', '.join(all_runs)}")
    baseline = run_list[0] if baseline is None else baseline
    if baseline not in all_runs:
        raise ValueError(f"baseline {baseline!r} not found; runs: {', '.join(all_runs)}")
    if baseline in run_list:
        run_list.remove(baseline)
    run_list.insert(0, baseline)
    if len(run_list) < 2:
        raise ValueError("need at least two runs to compare")
    metric_names = ([_resolve_metric(frame, m) for m in metrics] if metrics is not None
                    else list(dict.fromkeys(frame["metric"])))
    keys = dict(zip(run_list, run_keys(len(run_list))))
    tested = ([(r, baseline) for r in run_list[1:]] if pairs == "baseline"
              else list(itertools.combinations(run_list, 2)))

    pair_rows, table_rows, findings = [], [], []
    for metric in metric_names:
        matrix = _value_matrix(frame, metric, policy_label)
        missing_runs = [r for r in run_list if r not in matrix.columns]
        if missing_runs:
            raise ValueError(f"no values of {metric} under {policy_label} for "
                             f"{', '.join(missing_runs)}")
        results = []
        for run_a, run_b in tested:
            paired = _pair_columns(matrix, run_a, run_b)
            if paired.n_dropped:
                dropped = paired.only_a + paired.only_b
                findings.append(Finding(
                    "queries_dropped_by_pairing",
                    f"{metric}: {paired.n_dropped} quer{'y' if paired.n_dropped == 1 else 'ies'} "
                    f"dropped when pairing {run_a!r} with {run_b!r} (only one run has them)",
                    None, paired.n_dropped, dropped[:_MAX_LISTED]))
            results.append(_compare_values(paired, run_a, run_b, metric, policy_label, test,
                                           seed, n_resamples, confidence))
        corrected = correct_pvalues([r.p_value for r in results], correction)
        block = pd.DataFrame([r.as_dict() for r in results])
        block["p_corrected"] = corrected
        block["significant"] = np.nan_to_num(corrected, nan=np.inf) <= alpha
        pair_rows.append(block)

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
        means = matrix[run_list].mean()
        counts = matrix[run_list].notna().sum()
        for run in run_list:
            row = vs_baseline.get(run)
            table_rows.append({
                "run": run, "key": keys[run], "metric": metric, "mean": float(means[run]),
                "diff": 0.0 if row is None else float(row.mean_diff),
                "p_value": math.nan if row is None else float(row.p_value),
                "p_corrected": math.nan if row is None else float(row.p_corrected),
                "significant": False if row is None else bool(row.significant),
                "effect_size": math.nan if row is None else float(row.effect_size),
                "n_queries": int(counts[run]) if row is None else int(row.n_queries),
                "marker": joiner.join(sorted(beats[run], key=list(keys.values()).index)),
            })
    table = pd.DataFrame(table_rows)
    pairs_frame = pd.concat(pair_rows, ignore_index=True)
    return Comparison(table, pairs_frame, baseline, keys, test, correction, alpha,
                      policy_label, findings)


# ==== 3. verdict stability under tie-breaking ================================================
def _derived_seed(seed: int, index: int) -> int:
    """An independent seed for stream ``index`` (distinct runs must not share draws)."""
    return int(np.random.SeedSequence([int(seed) % 2**63, index]).generate_state(1, np.uint64)[0])


def _compare_means(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """1 where x > y, 0.5 where equal (relative tolerance), 0 where x < y."""
    tolerance = _REL_TOL * np.maximum(1.0, np.maximum(np.abs(x), np.abs(y)))
    diff = x - y
    return np.where(diff > tolerance, 1.0, np.where(diff < -tolerance, 0.0, 0.5))


@dataclass(frozen=True)
class WinProbability:
    """P(A beats B) on the mean metric under independent random tie-breaking.

    ``probability`` = P(mean_A > mean_B) + 0.5 P(mean_A = mean_B), estimated from
    ``n_draws`` paired independent draws; ``standard_error`` = sqrt(p (1 - p) / n_draws)
    (the binomial standard error; conservative, since a half-counted tie has a smaller
    variance than a win or a loss); ``p_equal`` is the share of draws with equal means.
    """

    run_a: str
    run_b: str
    metric: str
    probability: float
    standard_error: float
    p_equal: float
    n_draws: int
    seed: int


def _check_same_queries(table_a: TieTable, table_b: TieTable) -> None:
    if table_a.n_queries != table_b.n_queries or not np.array_equal(table_a.queries, table_b.queries):
        raise ValueError("the two tables were built against different qrels (query sets differ)")


def _win_from_means(means_a: np.ndarray, means_b: np.ndarray) -> tuple[float, float, float]:
    outcome = _compare_means(means_a, means_b)
    p = float(outcome.mean())
    return p, math.sqrt(p * (1 - p) / len(outcome)), float((outcome == 0.5).mean())


def win_probability(table_a: TieTable, table_b: TieTable, metric: "str | Metric", *,
                    n_draws: int = 1000, seed: int = 0, gain: str = "linear",
                    included: np.ndarray | None = None) -> WinProbability:
    """Estimate P(A beats B) on the mean metric when both runs' ties are broken at random.

    Each draw breaks every tie of A and, independently, every tie of B by uniform
    permutations (:func:`tiedrank.spread.sample_run_means`, with seeds derived from
    ``seed`` by ``numpy.random.SeedSequence([seed, 0])`` for A and ``[seed, 1]`` for B so
    the two runs never share random numbers), and compares the two means:

        P = P(mean_A > mean_B) + 0.5 P(mean_A = mean_B),  SE = sqrt(P (1 - P) / n_draws)

    Parameters
    ----------
    table_a, table_b : TieTable
        Expected tables (``evaluate(...).tables`` or :func:`tiedrank.build_tie_table`)
        against the same qrels.
    included : bool array, optional
        Queries in the mean (default: those with a relevant document, as ``evaluate``).

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank import Run, Qrels, build_tie_table
    >>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]}))
    >>> a = build_tie_table(Run("A", pd.DataFrame({"query": "q", "doc": ["a", "b"],
    ...                                            "score": [1.0, 1.0]})), qrels)
    >>> b = build_tie_table(Run("B", pd.DataFrame({"query": "q", "doc": ["a", "b"],
    ...                                            "score": [1.0, 0.5]})), qrels)
    >>> exact_win_probability(a, b, "RR")  # RR_A = 1 or 1/2 (p = 1/2 each), RR_B = 1/2
    0.75
    >>> est = win_probability(a, b, "RR", n_draws=2000, seed=1)
    >>> abs(est.probability - 0.75) < 3 * est.standard_error
    True
    """
    _check_same_queries(table_a, table_b)
    m = parse_metric(metric)
    if included is None:
        included = table_a.n_relevant > 0
    means_a = sample_run_means(table_a, m, n_draws=n_draws, seed=_derived_seed(seed, 0),
                               gain=gain, included=included)
    means_b = sample_run_means(table_b, m, n_draws=n_draws, seed=_derived_seed(seed, 1),
                               gain=gain, included=included)
    p, se, equal = _win_from_means(means_a, means_b)
    return WinProbability(table_a.run_name, table_b.run_name, m.name, p, se, equal,
                          int(n_draws), int(seed))


def _query_orderings(table: TieTable, q: int, max_orderings: int) -> np.ndarray:
    """Every ordering of query ``q``'s document positions consistent with its groups."""
    start, stop = int(table.query_start[q]), int(table.query_start[q + 1])
    groups = np.flatnonzero(table.group_query == q)
    total = math.prod(math.factorial(int(s)) for s in table.group_size[groups])
    if total > max_orderings:
        raise ValueError(f"query {table.queries[q]!r} of run {table.run_name!r} has "
                         f"{total:,} orderings, above the limit of {max_orderings:,}; "
                         "exact enumeration is for tiny cases (use win_probability)")
    per_group = [itertools.permutations(range(int(table.group_start[g]),
                                              int(table.group_start[g] + table.group_size[g])))
                 for g in groups]
    orderings = [np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
                 for parts in itertools.product(*per_group)]
    return np.array(orderings, dtype=np.int64).reshape(total, stop - start)


def _ordering_table(table: TieTable, q: int, orderings: np.ndarray) -> TieTable:
    """A resolved table with one query per ordering of query ``q`` (true R and IDCG kept)."""
    m, n = orderings.shape
    ideal = table.ideal_grade[table.ideal_start[q]:table.ideal_start[q + 1]]
    flat = orderings.ravel()
    return replace(
        table, policy="input", queries=np.arange(m),
        n_relevant=np.full(m, table.n_relevant[q], dtype=np.int64),
        n_retrieved=np.full(m, n, dtype=np.int64),
        query_start=np.arange(m + 1, dtype=np.int64) * n,
        ideal_start=np.arange(m + 1, dtype=np.int64) * len(ideal), ideal_grade=np.tile(ideal, m),
        group_query=np.repeat(np.arange(m, dtype=np.int64), n),
        group_start=np.arange(m * n, dtype=np.int64), group_size=np.ones(m * n, dtype=np.int64),
        group_above=np.tile(np.arange(n, dtype=np.int64), m), doc_score=table.doc_score[flat], doc_grade=table.doc_grade[flat],
        doc_judged=table.doc_judged[flat], doc_row=table.doc_row[flat], findings=())


def query_value_distribution(table: TieTable, metric: "str | Metric", query: int | str, *,
                             gain: str = "linear",
                             max_orderings: int = MAX_ORDERINGS) -> pd.DataFrame:
    """Exact distribution of one query's metric over every ordering of its ties.

    Enumerates the product of the permutations inside each tie group (itertools), scores
    each ordering with the engine's kernels against the query's true R and ideal grades,
    and merges equal values. Returns DataFrame(value, probability).
    """
    m = parse_metric(metric)
    q = int(np.searchsorted(table.queries, query)) if isinstance(query, str) else int(query)
    if m.tie_aware_by_definition or table.n_retrieved[q] == 0:
        return pd.DataFrame({"value": [float(metric_values(table, m, gain=gain)[q])],
                             "probability": [1.0]})
    values = metric_values(_ordering_table(table, q, _query_orderings(table, q, max_orderings)),
                           m, gain=gain)
    keys, counts = np.unique(np.round(values, 12), return_counts=True)
    return pd.DataFrame({"value": keys, "probability": counts / counts.sum()})


def run_mean_distribution(table: TieTable, metric: "str | Metric", *, gain: str = "linear",
                          included: np.ndarray | None = None,
                          max_orderings: int = MAX_ORDERINGS,
                          max_support: int = 1_000_000) -> pd.DataFrame:
    """Exact distribution of a run's mean metric under uniform random tie-breaking.

    Tie groups are permuted independently, so the mean over the included queries is
    (1/|Q|) sum_q X_q with independent X_q; its law is the convolution of the per-query
    laws of :func:`query_value_distribution` -- the same as enumerating every joint
    ordering, without materialising their product. For tiny cases and tests.

    Returns
    -------
    DataFrame(value, probability), sorted by value.
    """
    if included is None:
        included = table.n_relevant > 0
    support = {0.0: 1.0}
    for q in np.flatnonzero(included):
        law = query_value_distribution(table, metric, int(q), gain=gain, max_orderings=max_orderings)
        nxt: dict[float, float] = {}
        for (s, ps), (v, pv) in itertools.product(support.items(), zip(law["value"], law["probability"])):
            key = round(s + v, 12)  # merge sums that differ only by rounding
            nxt[key] = nxt.get(key, 0.0) + ps * pv
        if len(nxt) > max_support:
            raise ValueError(f"the exact distribution has more than {max_support:,} values; "
                             "use win_probability")
        support = nxt
    n = int(np.count_nonzero(included))
    values = np.array(sorted(support))
    return pd.DataFrame({"value": values / max(n, 1) if n else np.full(1, np.nan),
                         "probability": [support[v] for v in values]})


def exact_win_probability(table_a: TieTable, table_b: TieTable, metric: "str | Metric", *,
                          gain: str = "linear", included: np.ndarray | None = None,
                          max_orderings: int = MAX_ORDERINGS) -> float:
    """Exact P(mean_A > mean_B) + 0.5 P(mean_A = mean_B) over every joint ordering.

    Uses :func:`run_mean_distribution` of each run (independent tie-breaks), so it checks
    :func:`win_probability` on tiny cases. Equality uses the module's relative tolerance.
    """
    _check_same_queries(table_a, table_b)
    if included is None:
        included = table_a.n_relevant > 0
    law_a = run_mean_distribution(table_a, metric, gain=gain, included=included,
                                  max_orderings=max_orderings)
    law_b = run_mean_distribution(table_b, metric, gain=gain, included=included,
                                  max_orderings=max_orderings)
    outcome = _compare_means(law_a["value"].to_numpy()[:, None], law_b["value"].to_numpy()[None, :])
    weight = law_a["probability"].to_numpy()[:, None] * law_b["probability"].to_numpy()[None, :]
    return float((outcome * weight).sum())


def _winner(diff: float, scale: float, run_a: str, run_b: str) -> str:
    tolerance = _REL_TOL * max(1.0, scale)
    return run_a if diff > tolerance else run_b if diff < -tolerance else "tie"


def policy_verdicts(source: "Evaluation | pd.DataFrame", run_a: str, run_b: str,
                    metric: "str | Metric", *, policies: Sequence[str] = ALL_POLICIES,
                    test: str = "t", alpha: float = 0.05, seed: int = 0,
                    n_resamples: int = 9999) -> pd.DataFrame:
    """The verdict A vs B under each fixed tie policy, with the paired test under each.

    Returns
    -------
    DataFrame
        One row per policy: policy, mean_a, mean_b, diff, winner (run name or ``"tie"``),
        p_value, significant (p <= alpha, uncorrected), agrees (same winner as under the
        first policy, ``expected`` by default).
    """
    frame = _per_query_frame(source)
    metric_name = _resolve_metric(frame, metric)
    rows = []
    for policy in policies:
        label = _resolve_policy(frame, policy, seed)
        pairs = _pair_columns(_value_matrix(frame, metric_name, label), run_a, run_b)
        r = _compare_values(pairs, run_a, run_b, metric_name, label, test, seed, n_resamples,
                            0.95, with_ci=False)  # the interval is not part of a verdict
        winner = _winner(r.mean_diff, max(abs(r.mean_a), abs(r.mean_b)), run_a, run_b)
        rows.append({"policy": label, "mean_a": r.mean_a, "mean_b": r.mean_b,
                     "diff": r.mean_diff, "winner": winner, "p_value": r.p_value,
                     "significant": bool(r.p_value <= alpha)})
    out = pd.DataFrame(rows)
    out["agrees"] = out["winner"] == out["winner"].iloc[0]
    return out


def verdict_stability(evaluation: Evaluation, baseline: str | None = None, *,
                      runs: Sequence[str] | None = None,
                      metrics: "Iterable[str | Metric] | None" = None,
                      policies: Sequence[str] = ALL_POLICIES, test: str = "t",
                      alpha: float = 0.05, n_draws: int = 1000, seed: int = 0,
                      gain: str = "linear", n_resamples: int = 9999) -> pd.DataFrame:
    """For each run and metric: is "run beats baseline" an artefact of the tie-break?

    Needs an :class:`~tiedrank.evaluate.Evaluation` with the ``policies`` evaluated (e.g.
    ``ties="all"``) and its expected tables (for sampling). ``gain`` must match the one
    the evaluation used.

    Returns
    -------
    DataFrame
        One row per (run, metric): run, baseline, metric, p_win = P(run beats baseline)
        under independent random tie-breaking (:func:`win_probability`, seeded), se (its
        binomial standard error), then per policy the verdict from the run's side,
        ``"win"`` / ``"loss"`` / ``"tie"``, suffixed ``*`` when the paired test is
        significant at ``alpha`` (uncorrected); ``same_verdict`` (one verdict under every
        policy) and ``significance_survives`` (significant under the first policy and,
        with the same winner, under every other; False if not significant under the first).
    """
    frame = _per_query_frame(evaluation)
    all_runs = list(evaluation.tables)
    baseline = all_runs[0] if baseline is None else baseline
    if baseline not in evaluation.tables:
        raise ValueError(f"baseline {baseline!r} not found; runs: {', '.join(all_runs)}")
    run_list = [r for r in (runs if runs is not None else all_runs) if r != baseline]
    for r in run_list:
        if r not in evaluation.tables:
            raise ValueError(f"run {r!r} not found; runs: {', '.join(all_runs)}")
    metric_names = ([_resolve_metric(frame, m) for m in metrics] if metrics is not None
                    else list(dict.fromkeys(frame["metric"])))
    base_table = evaluation.tables[baseline]
    rows = []
    for metric in metric_names:
        included = base_table.n_relevant > 0
        # the baseline is "B" of every pair: one set of draws serves every run, and each
        # row equals win_probability(tables[run], tables[baseline], seed=seed)
        base_means = sample_run_means(base_table, metric, n_draws=n_draws,
                                      seed=_derived_seed(seed, 1), gain=gain, included=included)
        for run in run_list:
            table = evaluation.tables[run]
            _check_same_queries(table, base_table)
            means = sample_run_means(table, metric, n_draws=n_draws, seed=_derived_seed(seed, 0),
                                     gain=gain, included=included)
            p, se, _ = _win_from_means(means, base_means)
            verdicts = policy_verdicts(frame, run, baseline, metric, policies=policies,
                                       test=test, alpha=alpha, seed=seed, n_resamples=n_resamples)
            row = {"run": run, "baseline": baseline, "metric": metric, "p_win": p, "se": se}
            outcome = {run: "win", baseline: "loss", "tie": "tie"}
            for v in verdicts.itertuples(index=False):
                row[v.policy] = outcome[v.winner] + ("*" if v.significant else "")
            first = verdicts.iloc[0]
            row["same_verdict"] = bool(verdicts["agrees"].all())
            row["significance_survives"] = bool(first["significant"] and verdicts["significant"].all()
                                                and verdicts["agrees"].all())
            rows.append(row)
    return pd.DataFrame(rows)


def policy_rankings(source: "Evaluation | pd.DataFrame", metric: "str | Metric", *,
                    policies: Sequence[str] | None = None) -> pd.DataFrame:
    """The system ranking under each tie policy.

    Returns
    -------
    DataFrame
        One row per run: run, then for each policy ``<policy>`` (mean) and
        ``rank_<policy>`` (1 = best; equal means share the average rank).
    """
    frame = _per_query_frame(source)
    metric_name = _resolve_metric(frame, metric)
    labels = ([_resolve_policy(frame, p) for p in policies] if policies is not None
              else list(dict.fromkeys(frame["policy"])))
    block = frame[frame["metric"] == metric_name]
    means = block.groupby(["run", "policy"], sort=False)["value"].mean().unstack("policy")
    means = means.loc[list(dict.fromkeys(block["run"])), labels]
    out = pd.DataFrame({"run": means.index.astype(str)})
    for label in labels:
        out[label] = means[label].to_numpy()
    for label in labels:
        out[f"rank_{label}"] = means[label].rank(ascending=False, method="average").to_numpy()
    return out


def ranking_agreement(source: "Evaluation | pd.DataFrame", metric: "str | Metric", *,
                      policies: Sequence[str] | None = None) -> pd.DataFrame:
    """Kendall's tau-b between the system rankings of every pair of tie policies.

    tau_b = (C - D) / sqrt((C + D + T_x)(C + D + T_y)) over the runs' mean values
    (``scipy.stats.kendalltau``, tie-aware); tau = 1 means the policies rank the systems
    identically, and anything lower means the tie-break reorders systems.

    Returns
    -------
    DataFrame(policy_a, policy_b, kendall_tau, p_value)
    """
    ranking = policy_rankings(source, metric, policies=policies)
    labels = [c for c in ranking.columns if c != "run" and not c.startswith("rank_")]
    rows = []
    for a, b in itertools.combinations(labels, 2):
        with warnings.catch_warnings():  # constant input -> NaN, reported as such
            warnings.simplefilter("ignore")
            result = stats.kendalltau(ranking[a], ranking[b], variant="b")
        rows.append({"policy_a": a, "policy_b": b, "kendall_tau": float(result.statistic),
                     "p_value": float(result.pvalue)})
    return pd.DataFrame(rows, columns=["policy_a", "policy_b", "kendall_tau", "p_value"])


# ==== 4. rank correlation between two runs' orderings ========================================
def _score_frame(run) -> tuple[str, pd.DataFrame]:
    """(name, DataFrame[query, doc, score]) from a Run, TieTable or DataFrame."""
    if isinstance(run, Run):
        return run.name, run.frame[["query", "doc", "score"]]
    if isinstance(run, TieTable):
        return run.run_name, pd.DataFrame({"query": run.queries[run.doc_query],
                                           "doc": run.doc_ids(), "score": run.doc_score})
    if isinstance(run, pd.DataFrame):
        missing = [c for c in ("query", "doc", "score") if c not in run.columns]
        if missing:
            raise ValueError(f"run frame lacks column(s) {', '.join(missing)}")
        return "run", run[["query", "doc", "score"]]
    raise TypeError("expected a Run, a TieTable or a DataFrame with query, doc, score")


@dataclass(frozen=True, eq=False)
class RankCorrelation:
    """Per-query rank correlations of two runs and their summary.

    ``per_query``: query, n_common, kendall_tau_b, spearman (NaN with fewer than two
    common documents or when one run gives them all the same score).
    ``summary``: statistic, mean, median, n_queries (with a value), n_undefined.
    """

    per_query: pd.DataFrame
    summary: pd.DataFrame


def rank_correlation(run_a, run_b) -> RankCorrelation:
    """Kendall tau-b and Spearman correlation of two runs' scores, per query.

    Computed on the documents both runs retrieved for the query (inner join on
    (query, doc)). Tau-b is tie-aware: tau_b = (C - D) / sqrt((C + D + T_a)(C + D + T_b)),
    T_a, T_b the pairs tied only in one run; Spearman is Pearson's r on average ranks.
    One merge and one pass over the query groups (scipy per query): linear in the input.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"query": "q", "doc": list("abcd"), "score": [3., 2., 2., 1.]})
    >>> b = pd.DataFrame({"query": "q", "doc": list("abcd"), "score": [3., 3., 2., 1.]})
    >>> float(round(rank_correlation(a, b).per_query["kendall_tau_b"][0], 4))
    0.8
    """
    _, fa = _score_frame(run_a)
    _, fb = _score_frame(run_b)
    merged = fa.merge(fb, on=["query", "doc"], suffixes=("_a", "_b"), how="inner")
    rows = []
    with warnings.catch_warnings():  # constant input warns and returns NaN: reported below
        warnings.simplefilter("ignore")
        for query, block in merged.groupby("query", sort=True):
            x, y = block["score_a"].to_numpy(), block["score_b"].to_numpy()
            tau = rho = math.nan
            if len(x) >= 2:
                tau = float(stats.kendalltau(x, y, variant="b").statistic)
                rho = float(stats.spearmanr(x, y).statistic)
            rows.append((str(query), len(x), tau, rho))
    per_query = pd.DataFrame(rows, columns=["query", "n_common", "kendall_tau_b", "spearman"])
    summary = pd.DataFrame([
        {"statistic": name, "mean": float(per_query[name].mean()),
         "median": float(per_query[name].median()),
         "n_queries": int(per_query[name].notna().sum()),
         "n_undefined": int(per_query[name].isna().sum())}
        for name in ("kendall_tau_b", "spearman")])
    return RankCorrelation(per_query, summary)


# ==== 5. per-group breakdown ==================================================================
def read_groups(source, *, source_name: str | None = None) -> pd.DataFrame:
    """Read a query -> group mapping: a CSV with a header holding ``query`` and ``group``.

    ``source`` is a path, bytes, a file-like, a DataFrame or a dict {query: group}. Query
    and group ids are read as strings ("NA" stays "NA"); blank lines are ignored; extra
    columns are ignored.

    Raises
    ------
    InputError
        Missing columns, an empty query or group id, or a query listed twice (names the
        line of the repeat and the line it first appeared on).

    Examples
    --------
    >>> read_groups(b"query,group\\nq1,short\\nq2,long\\n").values.tolist()
    [['q1', 'short'], ['q2', 'long']]
    """
    if isinstance(source, Mapping):
        frame = pd.DataFrame({"query": list(map(str, source)),
                              "group": list(map(str, source.values()))})
        name, offset = source_name or "<dict>", 1
    elif isinstance(source, pd.DataFrame):
        frame, name, offset = source.astype(str), source_name or "<DataFrame>", 1
    else:
        if isinstance(source, (bytes, bytearray)):
            name, handle = source_name or "<bytes>", _io.BytesIO(bytes(source))
        elif isinstance(source, (str, os.PathLike)):
            name, handle = source_name or os.fspath(source), source
        else:
            name, handle = source_name or getattr(source, "name", "<file>"), source
        try:
            # skip_blank_lines=False keeps row i on line i + 2, so errors name the true line
            frame = pd.read_csv(handle, dtype=str, keep_default_na=False,
                                skip_blank_lines=False)
        except pd.errors.EmptyDataError:
            raise InputError("empty file", source=name, expected="a header 'query,group'") from None
        except pd.errors.ParserError as error:
            raise InputError(f"unreadable CSV ({error})", source=name,
                             expected="two columns: query,group") from None
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", source=name) from None
        offset = 2
    frame = frame.rename(columns=lambda c: str(c).strip().lower())
    missing = [c for c in ("query", "group") if c not in frame.columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", source=name, line=1,
                         text=",".join(map(str, frame.columns)), expected="a header with query,group")
    frame = frame[["query", "group"]].astype(str).apply(lambda s: s.str.strip())
    frame["line"] = np.arange(len(frame)) + offset
    frame = frame[(frame["query"] != "") | (frame["group"] != "")]  # blank lines
    for column in ("query", "group"):
        empty = frame[frame[column] == ""]
        if len(empty):
            row = empty.iloc[0]
            raise InputError(f"empty {column} id", source=name, line=int(row["line"]),
                             text=f"{row['query']},{row['group']}", expected="query,group")
    repeated = frame[frame.duplicated("query", keep="first")]
    if len(repeated):
        row = repeated.iloc[0]
        first = int(frame.loc[frame["query"] == row["query"], "line"].iloc[0])
        raise InputError(f"query {row['query']!r} listed twice (first on line {first})",
                         source=name, line=int(row["line"]), text=f"{row['query']},{row['group']}",
                         expected="one group per query")
    return frame[["query", "group"]].reset_index(drop=True)


@dataclass(frozen=True, eq=False)
class GroupBreakdown:
    """``table``: run, metric, policy, group, value (mean over the group's queries),
    n_queries. ``findings``: group-file queries that were not evaluated, and evaluated
    queries without a group (both left out of the table)."""

    table: pd.DataFrame
    findings: list[Finding]


def group_breakdown(source: "Evaluation | pd.DataFrame", groups) -> GroupBreakdown:
    """Every evaluated metric's mean per query group.

    Parameters
    ----------
    source : Evaluation or per-query DataFrame
    groups : anything :func:`read_groups` accepts, or its result

    Examples
    --------
    >>> import pandas as pd
    >>> pq = pd.DataFrame({"run": "A", "query": ["1", "2", "3"], "metric": "RR",
    ...                    "policy": "expected", "value": [1.0, 0.5, 0.0]})
    >>> group_breakdown(pq, {"1": "x", "2": "x", "3": "y"}).table[["group", "value", "n_queries"]].values.tolist()
    [['x', 0.75, 2], ['y', 0.0, 1]]
    """
    frame = _per_query_frame(source)
    mapping = read_groups(groups)  # always validated: duplicates must never pass silently
    evaluated = pd.Index(frame["query"].unique())
    known = mapping["query"].isin(evaluated)
    findings: list[Finding] = []
    unknown = mapping.loc[~known, "query"].tolist()
    if unknown:
        findings.append(Finding(
            "group_queries_not_evaluated",
            f"{len(unknown)} quer{'y' if len(unknown) == 1 else 'ies'} of the group file "
            "not among the evaluated queries; ignored", None, len(unknown),
            tuple(unknown[:_MAX_LISTED])))
    ungrouped = evaluated[~evaluated.isin(mapping["query"])].tolist()
    if ungrouped:
        findings.append(Finding(
            "queries_without_group",
            f"{len(ungrouped)} evaluated quer{'y' if len(ungrouped) == 1 else 'ies'} have no "
            "group; left out of the breakdown", None, len(ungrouped),
            tuple(map(str, ungrouped[:_MAX_LISTED]))))
    joined = frame.merge(mapping, on="query", how="inner")
    order = {c: list(dict.fromkeys(frame[c])) for c in ("run", "metric", "policy")}
    order["group"] = list(dict.fromkeys(mapping["group"]))
    for column, categories in order.items():  # keep input order, not alphabetical
        joined[column] = pd.Categorical(joined[column], categories=categories)
    table = (joined.groupby(["run", "metric", "policy", "group"], observed=True, sort=True)["value"]
             .agg(value="mean", n_queries="size").reset_index())
    for column in ("run", "metric", "policy", "group"):
        table[column] = table[column].astype(str)
    table["n_queries"] = table["n_queries"].astype(np.int64)
    return GroupBreakdown(table, findings)
