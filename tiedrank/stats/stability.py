"""Is "A beats B" an artefact of the tie-break?

A ranker whose scores tie has no single ranking, so a verdict can flip with the tie-break:
on the LLMJudge sample data, trec_eval's docno order and the exact expectation crown
different judges. This module measures that:

* :func:`win_probability` -- P(A beats B) on the mean metric when both runs' ties are
  broken at random, independently: exact on lattice metrics (Success@k, P@k, R@k and
  Rprec with a small common denominator, :func:`tiedrank.sampling.lattice_win_probability`),
  else from seeded draws (:func:`tiedrank.sampling.sample_run_means`, binomial standard
  error); ``method`` says which ("exact" / "sampled");
* :func:`policy_verdicts` -- the verdict and the paired test under each fixed tie policy;
* :func:`pair_stability` -- both for one run against a baseline, with the draws
  (the Compare page shows this); :func:`verdict_stability` -- one row per run and metric
  (the CLI prints this). Both use the same seeds, so their numbers agree.

Two means count as equal within :data:`~tiedrank.stats.pairing.REL_TOL` (relative), and
an equal pair of means counts as half a win. The exact laws for tiny cases, which check
these estimates, are in :mod:`tiedrank.stats.exact`.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from ..core.policies import ALL_POLICIES
from ..evaluation import Evaluation
from ..metrics import GAINS, Metric, parse_metric
from ..sampling import lattice_win_probability, run_moments, samplable, sample_run_means
from ..sampling.laws import LAW_FAMILIES
from ..core.ties import TieTable
from ..core.validation import Interval, Options, validate_params
from .comparison import compare_values
from .paired_tests import ALPHA, RESAMPLES, SEED, TESTS
from .pairing import (
    check_runs,
    outcome,
    outcome_word,
    pair_columns,
    per_query_frame,
    resolve_metric,
    resolve_metrics,
    resolve_policy,
    value_matrix,
)

__all__ = ["METHODS", "PairStability", "WinProbability", "pair_stability", "policy_verdicts",
           "verdict_stability", "win_probabilities", "win_probability"]

METHODS = ("auto", "exact", "sampled")
"""How P(A beats B) is computed: ``auto`` (exact where the metric lives on a small lattice,
else sampled), ``exact`` (refuse when impossible) or ``sampled`` (always draw)."""

DRAWS = Interval(int, 1, None)
"""Allowed numbers of random tie-breaks ``n_draws``."""
_STABILITY_OPTIONS = {"test": [Options(*TESTS)], "alpha": [ALPHA], "n_draws": [DRAWS],
                      "gain": [Options(*GAINS)], "n_resamples": [RESAMPLES],
                      "method": [Options("auto", "exact", "sampled")], "seed": [SEED]}


# ---- P(A beats B) under random tie-breaking -------------------------------------------------
def _derived_seed(seed: int, index: int) -> int:
    """An independent seed for stream ``index`` (distinct runs must not share draws)."""
    return int(np.random.SeedSequence([int(seed) % 2**63, index]).generate_state(1, np.uint64)[0])


def _draw_means(table: TieTable, metric: str | Metric, stream: int, *, n_draws: int,
                seed: int, gain: str, included: np.ndarray) -> np.ndarray:
    """The run's mean under ``n_draws`` random tie-breaks; stream 0 for the run (A), 1 for
    the baseline (B), so that the two never share random numbers."""
    return sample_run_means(table, metric, n_draws=n_draws, seed=_derived_seed(seed, stream),
                            gain=gain, included=included)


def _exact_outcome(table_a: TieTable, table_b: TieTable, metric: Metric,
                   included: np.ndarray, method: str):
    """The exact :class:`~tiedrank.sampling.WinOutcome` when ``method`` allows it and the
    metric's run means live on a lattice; None when it must be sampled."""
    if method == "sampled":
        return None
    try:
        if metric.family not in LAW_FAMILIES:
            raise ValueError(f"{metric.name} has no exact lattice law (sample it)")
        return lattice_win_probability(table_a, table_b, metric, included=included)
    except ValueError as err:
        if method == "exact":
            raise ValueError(f"P(A beats B) on {metric.name} cannot be computed exactly ({err}); "
                             "use method='sampled' or 'auto'") from err
        return None  # RR, a large common denominator or a too large lattice: sample


def _normal_and_sds(table_a: TieTable, table_b: TieTable, metric: Metric, gain: str,
                    included: np.ndarray) -> tuple[float, float, float]:
    """(P(A beats B) by the normal approximation, exact SD of A's mean, of B's mean)."""
    a = run_moments(table_a, metric, gain=gain, included=included)
    b = run_moments(table_b, metric, gain=gain, included=included)
    spread = math.sqrt(max(a.variance, 0.0) + max(b.variance, 0.0))
    if not spread > 0:
        p = 0.5 if not (a.mean > b.mean or a.mean < b.mean) else float(a.mean > b.mean)
    else:
        p = 0.5 * math.erfc(-(a.mean - b.mean) / spread / math.sqrt(2.0))
    return p, a.standard_deviation, b.standard_deviation


def win_score(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """1 where x > y, 0.5 where equal (relative tolerance), 0 where x < y."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return (outcome(x - y, np.maximum(np.abs(x), np.abs(y))) + 1) / 2


def check_same_queries(table_a: TieTable, table_b: TieTable) -> None:
    """Raise unless the two tables were built against the same query set."""
    if table_a.n_queries != table_b.n_queries or not np.array_equal(table_a.queries, table_b.queries):
        raise ValueError("the two tables were built against different qrels (query sets differ)")


def _win_from_means(means_a: np.ndarray, means_b: np.ndarray) -> tuple[float, float, float]:
    """(P(A beats B), its binomial standard error, share of draws with equal means)."""
    score = win_score(means_a, means_b)
    p = float(score.mean())
    return p, math.sqrt(p * (1 - p) / len(score)), float((score == 0.5).mean())


@dataclass(frozen=True)
class WinProbability:
    """P(A beats B) on the mean metric under independent random tie-breaking.

    ``probability`` = P(mean_A > mean_B) + 0.5 P(mean_A = mean_B), estimated from
    ``n_draws`` paired independent draws; ``standard_error`` = sqrt(p (1 - p) / n_draws)
    (the binomial standard error; conservative, since a half-counted tie has a smaller
    variance than a win or a loss); ``p_equal`` is the share of draws with equal means.
    With ``method == "exact"`` the three numbers are exact (lattice law), the standard
    error is 0 and ``p_equal`` is P(equal means).
    """

    run_a: str
    run_b: str
    metric: str
    probability: float
    standard_error: float
    p_equal: float
    n_draws: int
    seed: int
    method: str = "sampled"


@validate_params({"n_draws": [DRAWS], "gain": [Options(*GAINS)], "method": [Options(*METHODS)]})
def win_probability(table_a: TieTable, table_b: TieTable, metric: str | Metric, *,
                    n_draws: int = 1000, seed: int = 0, gain: str = "linear",
                    included: np.ndarray | None = None,
                    method: str = "auto") -> WinProbability:
    """Estimate P(A beats B) on the mean metric when both runs' ties are broken at random.

    Each draw breaks every tie of A and, independently, every tie of B by uniform
    permutations (:func:`tiedrank.sampling.sample_run_means`, with seeds derived from
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
    method : {"auto", "exact", "sampled"}
        ``auto``: exact on Success@k, P@k, R@k, Rprec (lattice laws), sampled otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank import Run, Qrels, build_tie_table
    >>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]}))
    >>> a = build_tie_table(Run("A", pd.DataFrame({"query": "q", "doc": ["a", "b"],
    ...                                            "score": [1.0, 1.0]})), qrels)
    >>> b = build_tie_table(Run("B", pd.DataFrame({"query": "q", "doc": ["a", "b"],
    ...                                            "score": [1.0, 0.5]})), qrels)
    >>> from tiedrank.stats import exact_win_probability
    >>> exact_win_probability(a, b, "RR")  # RR_A = 1 or 1/2 (p = 1/2 each), RR_B = 1/2
    0.75
    >>> est = win_probability(a, b, "RR", n_draws=2000, seed=1)
    >>> abs(est.probability - 0.75) < 3 * est.standard_error, est.method
    (True, 'sampled')
    >>> r = win_probability(a, b, "Success@1")    # exact: no standard error
    >>> round(r.probability, 12), r.standard_error, round(r.p_equal, 12), r.method
    (0.75, 0.0, 0.5, 'exact')
    """
    check_same_queries(table_a, table_b)
    m = parse_metric(metric)
    if included is None:
        included = (table_a.evaluated & table_b.evaluated)
    exact = _exact_outcome(table_a, table_b, m, included, method)
    if exact is not None:
        return WinProbability(table_a.run_name, table_b.run_name, m.name,
                              exact.win_probability, 0.0, exact.tie, int(n_draws), int(seed),
                              "exact")
    draws = {"n_draws": n_draws, "seed": seed, "gain": gain, "included": included}
    p, se, equal = _win_from_means(_draw_means(table_a, m, 0, **draws),
                                   _draw_means(table_b, m, 1, **draws))
    return WinProbability(table_a.run_name, table_b.run_name, m.name, p, se, equal,
                          int(n_draws), int(seed))


@validate_params({"n_draws": [DRAWS], "gain": [Options(*GAINS)], "method": [Options(*METHODS)]})
def win_probabilities(tables: Mapping[str, TieTable], metrics: Iterable[str | Metric], *,
                      pairs: Iterable[tuple[str, str]] | None = None, n_draws: int = 1000,
                      seed: int = 0, gain: str = "linear",
                      method: str = "auto") -> list[WinProbability]:
    """:func:`win_probability` of many pairs of runs, each run's draws made once.

    P(A beats B) depends on A's means under ``n_draws`` random tie-breaks (stream 0) and
    B's (stream 1), over the queries both runs evaluate. A run that is A of several pairs
    (or B of several) with the same queries is drawn once and its means reused, so k runs
    cost at most 2k sets of draws per metric instead of k(k - 1); every number is the one
    :func:`win_probability` gives for that pair, bit for bit.

    Parameters
    ----------
    tables : mapping of str to TieTable
        Each run's expected table (``evaluate(...).tables``), all against the same qrels.
    metrics : iterable of str or Metric
    pairs : iterable of (run_a, run_b), optional
        Default: every two runs, in the order of ``tables`` (A before B).
    n_draws, seed, gain, method
        As :func:`win_probability`.

    Returns
    -------
    list of WinProbability
        One per (pair, metric), pairs outer, metrics inner.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank import Run, Qrels, build_tie_table
    >>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]}))
    >>> runs = {"A": [1.0, 1.0], "B": [1.0, 0.5], "C": [0.5, 1.0]}
    >>> tables = {name: build_tie_table(Run(name, pd.DataFrame({"query": "q", "doc": ["a", "b"],
    ...                                                          "score": s})), qrels)
    ...           for name, s in runs.items()}
    >>> found = win_probabilities(tables, ["RR"], n_draws=500, seed=1)
    >>> [(w.run_a, w.run_b) for w in found]
    [('A', 'B'), ('A', 'C'), ('B', 'C')]
    >>> found[1] == win_probability(tables["A"], tables["C"], "RR", n_draws=500, seed=1)
    True
    """
    names = list(tables)
    pair_list = list(combinations(names, 2) if pairs is None else pairs)
    metric_list = [parse_metric(m) for m in metrics]
    for run_a, run_b in pair_list:
        check_same_queries(tables[run_a], tables[run_b])
    drawn: dict[tuple, np.ndarray] = {}

    def means(run: str, metric: Metric, stream: int, included: np.ndarray) -> np.ndarray:
        key = (run, metric.name, stream, included.tobytes())
        if key not in drawn:
            drawn[key] = _draw_means(tables[run], metric, stream, n_draws=n_draws, seed=seed,
                                     gain=gain, included=included)
        return drawn[key]

    out = []
    for run_a, run_b in pair_list:
        table_a, table_b = tables[run_a], tables[run_b]
        included = table_a.evaluated & table_b.evaluated
        for m in metric_list:
            exact = _exact_outcome(table_a, table_b, m, included, method)
            if exact is not None:
                out.append(WinProbability(table_a.run_name, table_b.run_name, m.name,
                                          exact.win_probability, 0.0, exact.tie, int(n_draws),
                                          int(seed), "exact"))
                continue
            p, se, equal = _win_from_means(means(run_a, m, 0, included),
                                           means(run_b, m, 1, included))
            out.append(WinProbability(table_a.run_name, table_b.run_name, m.name, p, se, equal,
                                      int(n_draws), int(seed)))
    return out


# ---- the verdict under each fixed tie policy ------------------------------------------------
@validate_params({"test": [Options(*TESTS)], "alpha": [ALPHA], "n_resamples": [RESAMPLES],
                  "seed": [SEED]})
def policy_verdicts(source: Evaluation | pd.DataFrame, run_a: str, run_b: str,
                    metric: str | Metric, *, policies: Sequence[str] = ALL_POLICIES,
                    test: str = "t", alpha: float = 0.05, seed: int = 0,
                    n_resamples: int = 9999) -> pd.DataFrame:
    """The verdict A vs B under each fixed tie policy, with the paired test under each.

    Returns
    -------
    DataFrame
        One row per policy: policy, mean_a, mean_b, diff, winner (run name or ``"tie"``),
        p_value, significant (p <= alpha, uncorrected), agrees (same winner as under the
        first policy, ``expected`` by default).

    Examples
    --------
    >>> import pandas as pd
    >>> pq = pd.DataFrame({"run": ["A", "A", "B", "B"] * 2, "query": ["1", "2"] * 4,
    ...                    "metric": "RR", "policy": ["expected"] * 4 + ["trec_eval"] * 4,
    ...                    "value": [0.75, 0.75, 0.5, 1.0, 0.5, 0.5, 0.5, 1.0]})
    >>> policy_verdicts(pq, "A", "B", "RR", policies=["expected", "trec_eval"])[
    ...     ["policy", "winner", "agrees"]].values.tolist()
    [['expected', 'tie', True], ['trec_eval', 'B', False]]
    """
    frame = per_query_frame(source)
    metric = resolve_metric(frame, metric)
    rows = []
    for policy in policies:
        label = resolve_policy(frame, policy, seed)
        pairs = pair_columns(value_matrix(frame, metric, label), run_a, run_b)
        r = compare_values(pairs, run_a, run_b, metric, label, test, seed, n_resamples,
                            0.95, with_ci=False)  # the interval is not part of a verdict
        ahead = int(outcome(r.mean_diff, max(abs(r.mean_a), abs(r.mean_b))))
        rows.append({"policy": label, "mean_a": r.mean_a, "mean_b": r.mean_b,
                     "diff": r.mean_diff, "winner": {1: run_a, -1: run_b, 0: "tie"}[ahead],
                     "p_value": r.p_value, "significant": bool(r.p_value <= alpha)})
    out = pd.DataFrame(rows)
    out["agrees"] = out["winner"] == out["winner"].iloc[0]
    return out


# ---- one run against a baseline, and every run against it -----------------------------------
@dataclass(frozen=True, eq=False)
class PairStability:
    """Whether "run beats baseline" survives the tie-break (:func:`pair_stability`).

    ``p_win`` / ``se`` / ``p_equal``: P(run beats baseline) under independent random
    tie-breaking, its binomial standard error and the share of draws with equal means
    (``method == "exact"``: the exact lattice numbers, se 0; ``method == "none"``: NaN, for
    a metric with neither an exact law nor a sampler, e.g. bpref, gm_map); ``p_normal``: the same
    probability by the normal approximation with the exact moments (a cross-check);
    ``sd_run`` / ``sd_baseline``: the exact standard deviation of each run's mean;
    ``draws``: one row per draw (draw, run, baseline, diff: the two runs' means under that
    random tie-break and their difference); ``verdicts``: one row per fixed policy
    (policy, run, baseline: the runs' summaries, diff, verdict: win/loss/tie from the
    run's side, p_value, significant: uncorrected, agrees: same verdict as under the first
    policy). The verdicts and tests are those of :func:`~tiedrank.stats.compare_pair`: for a
    geometric summary (gm_map, gm_bpref) the tests of the floored logs, diff = log of the
    ratio of the geometric means.
    """

    run: str
    baseline: str
    metric: str
    test: str
    alpha: float
    n_draws: int
    seed: int
    p_win: float
    se: float
    p_equal: float
    draws: pd.DataFrame
    verdicts: pd.DataFrame
    method: str = "sampled"
    p_normal: float = math.nan
    sd_run: float = math.nan
    sd_baseline: float = math.nan

    @property
    def same_verdict(self) -> bool:
        """One verdict under every fixed policy."""
        return bool(self.verdicts["agrees"].all())

    @property
    def significance_survives(self) -> bool:
        """Significant under the first policy and, with the same winner, under every other."""
        v = self.verdicts
        return bool(v["significant"].iloc[0] and v["significant"].all() and v["agrees"].all())

    def verdict(self, policy: str) -> str | None:
        """The verdict under ``policy`` (None when it was not evaluated)."""
        row = self.verdicts[self.verdicts["policy"] == policy]
        return None if row.empty else str(row["verdict"].iloc[0])


@validate_params(_STABILITY_OPTIONS)
def pair_stability(evaluation: Evaluation, run: str, baseline: str, metric: str | Metric, *,
                   policies: Sequence[str] = ALL_POLICIES, test: str = "t",
                   alpha: float = 0.05, n_draws: int = 1000, seed: int = 0,
                   gain: str = "linear", n_resamples: int = 9999,
                   method: str = "auto",
                   progress: Callable[[float, str], None] | None = None) -> PairStability:
    """P(run beats baseline) under independent random tie-breaking of both runs, with the
    draws, and the verdict and paired test under each fixed policy (the first one is the
    reference of ``agrees``).

    Needs an :class:`~tiedrank.evaluation.Evaluation` with the ``policies`` evaluated (e.g.
    ``ties="all"``) and its expected tables (for sampling); ``gain`` must match the one
    the evaluation used. The draws are those of :func:`win_probability` with ``run`` as A
    and ``baseline`` as B, so ``p_win`` and ``se`` equal its numbers and the columns of
    :func:`verdict_stability`. The draws are always made (they show the spread), even
    when ``p_win`` is exact. ``progress(share_done, step_in_words)``, when given, is
    called before each step (for a progress bar).
    """
    if run == baseline:
        raise ValueError("the run and the baseline must differ")
    check_runs((run, baseline), evaluation.tables)
    frame = per_query_frame(evaluation)
    metric = resolve_metric(frame, metric)
    report = progress or (lambda share, step: None)
    report(0.0, f"Drawing {n_draws:,} random tie-breaks of {baseline} on {metric}")
    base_means = lambda: _baseline_draws(evaluation, baseline, metric, n_draws, seed, gain)
    return _pair_stability(frame, evaluation, run, baseline, metric, base_means,
                           policies=policies, test=test, alpha=alpha, seed=seed,
                           gain=gain, n_resamples=n_resamples, method=method,
                           progress=report)


def _baseline_draws(evaluation: Evaluation, baseline: str, metric: Metric, n_draws: int,
                    seed: int, gain: str) -> np.ndarray:
    table = evaluation.tables[baseline]
    return _draw_means(table, metric, 1, n_draws=n_draws, seed=seed, gain=gain,
                       included=table.evaluated)


def _pair_stability(frame: pd.DataFrame, evaluation: Evaluation, run: str, baseline: str,
                    metric: Metric, base_means: np.ndarray | Callable[[], np.ndarray], *,
                    policies: Sequence[str], test: str, alpha: float, seed: int, gain: str,
                    n_resamples: int, method: str = "auto", with_draws: bool = True,
                    progress: Callable[[float, str], None] | None = None) -> PairStability:
    """:func:`pair_stability` given the baseline's draws (shared by every run compared; a
    callable is called only when they are needed). ``with_draws=False`` skips sampling
    when the probability is exact (then ``draws`` is empty)."""
    base_table, table = evaluation.tables[baseline], evaluation.tables[run]
    check_same_queries(table, base_table)
    m = metric  # resolved once by the public function (resolve_metric)
    included = base_table.evaluated & table.evaluated
    report = progress or (lambda share, step: None)
    report(0.3, f"Computing the exact law of {metric} where it has one")
    exact = _exact_outcome(table, base_table, m, included, method)
    if exact is None and not samplable(m):  # no law, no sampler (bpref, gm_map, ...): say so
        report(0.85, f"Testing {run} against {baseline} under each fixed tie policy")
        return _fixed_policies_only(frame, run, baseline, metric, policies=policies, test=test,
                                    alpha=alpha, seed=seed, n_resamples=n_resamples)
    if exact is None or with_draws:
        base_means = base_means() if callable(base_means) else base_means
        n_draws = len(base_means)
        report(0.4, f"Drawing {n_draws:,} random tie-breaks of {run} on {metric}")
        run_means = _draw_means(table, metric, 0, n_draws=n_draws, seed=seed, gain=gain,
                                included=included)
        p, se, equal = _win_from_means(run_means, base_means)
    else:
        n_draws, run_means, base_means = 0, np.empty(0), np.empty(0)
    if exact is not None:
        p, se, equal = exact.win_probability, 0.0, exact.tie
    report(0.75, f"Exact means and standard deviations of {run} and {baseline}")
    p_normal, sd_run, sd_base = _normal_and_sds(table, base_table, m, gain, included)
    report(0.85, f"Testing {run} against {baseline} under each fixed tie policy")
    raw = policy_verdicts(frame, run, baseline, metric, policies=policies, test=test,
                          alpha=alpha, seed=seed, n_resamples=n_resamples)
    verdicts = _verdict_frame(raw)
    draws = pd.DataFrame({"draw": np.arange(n_draws), "run": run_means, "baseline": base_means,
                          "diff": run_means - base_means})
    report(1.0, "Done")
    return PairStability(run, baseline, metric.name, test, float(alpha), int(n_draws), int(seed),
                         p, se, equal, draws, verdicts, "sampled" if exact is None else "exact",
                         p_normal, sd_run, sd_base)


def _verdict_frame(raw: pd.DataFrame) -> pd.DataFrame:
    """:func:`policy_verdicts`' rows as :class:`PairStability` shows them (from the run's side)."""
    scale = np.maximum(raw["mean_a"].abs(), raw["mean_b"].abs())
    return pd.DataFrame({
        "policy": raw["policy"], "run": raw["mean_a"], "baseline": raw["mean_b"],
        "diff": raw["diff"], "verdict": outcome_word(raw["diff"], scale),
        "p_value": raw["p_value"], "significant": raw["significant"].astype(bool),
        "agrees": raw["agrees"].astype(bool)})


def _fixed_policies_only(frame: pd.DataFrame, run: str, baseline: str, metric: Metric, *,
                         policies: Sequence[str], test: str, alpha: float, seed: int,
                         n_resamples: int) -> PairStability:
    """A metric random tie-breaks cannot be drawn for (no exact law, no sampler): the
    verdicts under the fixed policies, and NaN (``method="none"``) for P(run beats baseline),
    its normal approximation and the standard deviations, never a made-up number."""
    raw = policy_verdicts(frame, run, baseline, metric, policies=policies, test=test,
                          alpha=alpha, seed=seed, n_resamples=n_resamples)
    draws = pd.DataFrame({"draw": np.arange(0), "run": np.empty(0), "baseline": np.empty(0),
                          "diff": np.empty(0)})
    return PairStability(run, baseline, metric.name, test, float(alpha), 0, int(seed), math.nan,
                         math.nan, math.nan, draws, _verdict_frame(raw), "none")


@validate_params(_STABILITY_OPTIONS)
def verdict_stability(evaluation: Evaluation, baseline: str | None = None, *,
                      runs: Sequence[str] | None = None,
                      metrics: Iterable[str | Metric] | None = None,
                      policies: Sequence[str] = ALL_POLICIES, test: str = "t",
                      alpha: float = 0.05, n_draws: int = 1000, seed: int = 0,
                      gain: str = "linear", n_resamples: int = 9999,
                      method: str = "auto") -> pd.DataFrame:
    """For each run and metric: is "run beats baseline" an artefact of the tie-break?

    :func:`pair_stability` of every run against ``baseline`` (default: the first run),
    in one table.

    Returns
    -------
    DataFrame
        One row per (run, metric): run, baseline, metric, p_win = P(run beats baseline)
        under independent random tie-breaking (:func:`win_probability`, seeded), se (its
        binomial standard error, 0 when exact), method (``"exact"`` or ``"sampled"``),
        p_normal (the normal approximation from the exact moments, a cross-check),
        sd_run / sd_baseline (exact SD of each mean over tie-breaks), then per policy the verdict from the run's side,
        ``"win"`` / ``"loss"`` / ``"tie"``, suffixed ``*`` when the paired test is
        significant at ``alpha`` (uncorrected); ``same_verdict`` (one verdict under every
        policy) and ``significance_survives`` (significant under the first policy and,
        with the same winner, under every other; False if not significant under the first).
    """
    frame = per_query_frame(evaluation)
    all_runs = list(evaluation.tables)
    baseline = all_runs[0] if baseline is None else baseline
    check_runs([baseline], all_runs, "baseline")
    run_list = [r for r in (runs if runs is not None else all_runs) if r != baseline]
    check_runs(run_list, all_runs)
    rows = []
    for metric in resolve_metrics(frame, metrics):
        # the baseline is "B" of every pair: one set of draws (made when first needed)
        # serves every run
        cache: list[np.ndarray] = []

        def base_means(metric=metric, cache=cache) -> np.ndarray:
            if not cache:
                cache.append(_baseline_draws(evaluation, baseline, metric, n_draws, seed, gain))
            return cache[0]

        for run in run_list:
            result = _pair_stability(frame, evaluation, run, baseline, metric, base_means,
                                     policies=policies, test=test, alpha=alpha, seed=seed,
                                     gain=gain, n_resamples=n_resamples, method=method,
                                     with_draws=False)
            row = {"run": run, "baseline": baseline, "metric": metric.name, "p_win": result.p_win,
                   "se": result.se, "method": result.method, "p_normal": result.p_normal,
                   "sd_run": result.sd_run, "sd_baseline": result.sd_baseline}
            for v in result.verdicts.itertuples(index=False):
                row[v.policy] = v.verdict + ("*" if v.significant else "")
            row["same_verdict"] = result.same_verdict
            row["significance_survives"] = result.significance_survives
            rows.append(row)
    return pd.DataFrame(rows)
