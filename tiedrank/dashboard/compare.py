"""Tables, frames and sentences of the dashboard's Compare page (no streamlit here).

The statistics come from :mod:`tiedrank.stats`; this module shapes them for display:

* :func:`run_comparison` — :func:`tiedrank.stats.compare_runs` with scipy's warnings
  silenced (as the CLI does); :func:`report_wide` (ranx-style superscripts and effect
  sizes, in a text, LaTeX or Markdown flavour), :func:`report_numbers`,
  :func:`baseline_intervals` (difference to the baseline with its bootstrap interval).
* :func:`query_differences`, :func:`outcome_counts`, :func:`difference_sentence` — the
  per-query differences run minus baseline.
* :func:`fragile_table`, :func:`fragile_heading` — the queries where the tie-break alone
  decides whether the run or the baseline wins (:func:`tiedrank.stats.fragile_queries`).
* :func:`stability` — P(run beats baseline) under random tie-breaking (the same draws and
  numbers as :func:`tiedrank.stats.verdict_stability`, plus the draws themselves), the
  verdict and the test under each fixed policy; :func:`stability_sentence` says it in words.
* :func:`ranking_table`, :func:`agreement_table` — system rankings per policy and
  Kendall's tau between them.
* :func:`group_table`, :func:`group_differences`, :func:`groups_template` — the per-group
  breakdown of :func:`tiedrank.stats.group_breakdown`.
* :func:`retarget_runs`, :func:`fragile_run`, :func:`evaluation_ties` — choices of the
  page's controls.

Conventions: differences are always ``run - baseline``; a per-query or mean difference
within ``1e-12 * max(1, |value|)`` of 0 is a tie (:func:`tiedrank.stats.outcome`, the one rule).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .. import stats as cmp
from ..core.policies import ALL_POLICIES, parse_policies
from ..evaluation import Evaluation
from ..metrics import Metric
from ..core.policies import POLICY_LABELS
from ..core.summation import MIN_GEO_MEAN
from ..report import Report, build_report, markdown_literal
from ..report.grid_render import CORRECTION_LABELS, TEST_LABELS
from .labels import BEST_CASE, WORST_CASE

TEST_POLICIES = ("expected", "trec_eval", BEST_CASE, WORST_CASE, "input", "random")
"""Tie policies whose per-query values the test can use (``random`` is seeded)."""
POLICY_PHRASES = {"expected": "under the exact expectation", "trec_eval": "under trec_eval's order",
                  BEST_CASE: "in both runs' best case", WORST_CASE: "in both runs' worst case",
                  "input": "in file order"}
"""How a verdict names the policy it was reached under. The best and worst cases are each
run's own, taken together: both runs scored with their ties broken their best (worst) way,
not one run's best against the other's worst."""
OUTCOME_VERBS = {"win": "wins", "loss": "loses", "tie": "ties"}
MAX_DRAWS = 20_000
"""Most random tie-breaks the page draws (1,000 of AP on a 1M-row run take about 2 s)."""
MAX_RESAMPLES = 20_000
"""Most bootstrap / randomization resamples the page makes per test."""
Progress = Callable[[float, str], None]
"""``progress(share_done, step_in_words)``: what the page's progress bar shows."""


def limited(value: int, maximum: int, what: str) -> tuple[int, str | None]:
    """``value`` capped at ``maximum``, with a message saying so (None when not capped).

    Examples
    --------
    >>> limited(50_000, MAX_DRAWS, "random tie-breaks")
    (20000, 'At most 20,000 random tie-breaks on this page (50,000 asked): use the CLI, tiedrank compare, for more.')
    >>> limited(1000, MAX_DRAWS, "random tie-breaks")
    (1000, None)
    """
    if value <= maximum:
        return value, None
    return maximum, (f"At most {maximum:,} {what} on this page ({value:,} asked): use the CLI, "
                     "tiedrank compare, for more.")
_SUPERSCRIPT = dict(zip("abcdefghijklmnoprstuvwxyz0123456789,",
                        "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ⁰¹²³⁴⁵⁶⁷⁸⁹˒"))


# ---- controls ---------------------------------------------------------------------------
def policy_label(policy: str, seed: int = 0) -> str:
    """The label results use for ``policy`` (``random`` -> ``random(seed=N)``)."""
    return parse_policies(policy, seed)[0].label


def evaluation_ties(policy: str, seed: int = 0) -> tuple[str, ...]:
    """``ties=`` for the page's evaluation: the four fixed policies (for the verdicts)
    plus the test's policy when it is not one of them."""
    label = policy_label(policy, seed)
    return ("all",) if label in ALL_POLICIES else ("all", label)


def retarget_runs(selected: Sequence[str] | None, old_options: Sequence[str] | None,
                  options: Sequence[str]) -> list[str]:
    """The compared runs after the baseline changed.

    A selection that was "every run but the old baseline" (or nothing remembered yet)
    becomes every run but the new one; otherwise the selection keeps the runs still offered.
    """
    if selected is None or (old_options is not None and list(selected) == list(old_options)):
        return list(options)
    return [r for r in selected if r in options]


def fragile_run(evaluation: Evaluation, baseline: str, runs: Sequence[str], metric: str) -> str | None:
    """A good first run to inspect: the first of ``runs`` whose verdict against the
    baseline differs between the exact expectation and trec_eval's order; else the first
    whose verdict differs between any two fixed policies; else the first run."""
    runs = [r for r in runs if r != baseline]
    if not runs:
        return None
    summary = evaluation.summary
    block = summary[summary["metric"].astype(str) == str(metric)]
    means = block.assign(run=block["run"].astype(str), policy=block["policy"].astype(str)) \
        .pivot_table(index="run", columns="policy", values="value", aggfunc="first", observed=True)
    policies = [p for p in ALL_POLICIES if p in means.columns]
    if baseline not in means.index:
        return runs[0]

    def verdicts(run: str) -> dict[str, str]:
        out = {}
        for p in policies:
            a, b = float(means.loc[run, p]), float(means.loc[baseline, p])
            out[p] = str(cmp.outcome_word(a - b, max(abs(a), abs(b))))
        return out

    table = {r: verdicts(r) for r in runs if r in means.index}
    for run, v in table.items():
        if v.get("expected") != v.get("trec_eval"):
            return run
    for run, v in table.items():
        if len(set(v.values())) > 1:
            return run
    return runs[0]


# ---- the report table -------------------------------------------------------------------
def run_comparison(evaluation: Evaluation, *, baseline: str, runs: Sequence[str],
                   metrics: Sequence[str], policy: str, test: str, correction: str,
                   alpha: float, all_pairs: bool, seed: int, n_resamples: int = 9999,
                   progress: Progress | None = None) -> cmp.Comparison:
    """:func:`tiedrank.stats.compare_runs` of ``baseline`` + ``runs`` (scipy's warnings,
    e.g. the normal approximation of Wilcoxon with tied differences, are silenced);
    ``progress(share, step)`` is called before each test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        return cmp.compare_runs(
            evaluation, baseline=baseline, runs=[baseline, *[r for r in runs if r != baseline]],
            metrics=list(metrics), policy=policy_label(policy, seed), test=test,
            correction=correction, alpha=alpha, pairs="all" if all_pairs else "baseline", seed=seed,
            n_resamples=min(int(n_resamples), MAX_RESAMPLES), progress=progress)


def superscript(keys: str) -> str:
    """Unicode superscript of run keys (``"bf"`` -> ``"ᵇᶠ"``); ``^q`` for the one letter
    Unicode lacks."""
    return "".join(_SUPERSCRIPT.get(c, f"^{c}") for c in keys)


_MARKER_STYLES = {
    "unicode": superscript,
    "text": lambda s: f"^{s}",
    "latex": lambda s: f"$^{{{s}}}$",
    "markdown": lambda s: f"<sup>{s}</sup>",
}


def report_wide(comparison: cmp.Comparison, style: str = "unicode", digits: int = 4, *,
                effects_as_text: bool = False) -> pd.DataFrame:
    """ranx-style report: one row per run (baseline first), per metric the mean with the
    keys of the runs it significantly beats as a superscript, and Cohen's d against the
    baseline (column ``"<metric> d"``, empty for the baseline).

    ``style``: ``unicode`` (screen, CSV), ``text`` (``^bf``), ``latex`` (``$^{bf}$``) or
    ``markdown`` (``<sup>bf</sup>``). ``effects_as_text``: Cohen's d as text with 2
    decimals and "–" for the baseline (for display; the default keeps the numbers).
    """
    wrap = _MARKER_STYLES[style]
    table = comparison.table
    metrics = list(dict.fromkeys(table["metric"]))
    runs = list(dict.fromkeys(table["run"]))
    out = pd.DataFrame({"key": [comparison.keys[r] for r in runs], "run": runs})
    for metric in metrics:
        block = table[table["metric"] == metric].set_index("run").loc[runs]
        out[metric] = [f"{m:.{digits}f}" + (wrap(k) if k else "")
                       for m, k in zip(block["mean"], block["marker"])]
        effects = block["effect_size"].to_numpy(dtype=float)
        out[f"{metric} d"] = ([("–" if np.isnan(d) else f"{d:.2f}") for d in effects]
                              if effects_as_text else effects)
    return out


REPORT_DOWNLOAD_HELP = (
    "The report grid (tiedrank.report.Report) of this comparison: CSV and Parquet hold the "
    "numbers (every tie policy its own column, the letters, the p-values against the "
    "baseline); LaTeX (booktabs, compiles with pdflatex) and Markdown show each cell as "
    "expected [worst, best] (trec_eval), the best run per metric in bold, the letters of the "
    "runs a run significantly beats under the test chosen above and a dagger where they "
    "change under another tie policy, with a caption that says so.")
"""The help of the report's download buttons."""


def comparison_report(evaluation: Evaluation, comparison: cmp.Comparison, *, seed: int,
                      n_resamples: int, letters: bool = True) -> Report:
    """The report grid of ``comparison``'s runs and metrics with its test, correction,
    alpha, policy and pairs (and the page's ``seed`` and ``n_resamples``, so a
    randomization test gives the letters on screen); ``letters`` false: no test is run."""
    table = comparison.table
    all_pairs = bool((comparison.pairs["run_b"] != comparison.baseline).any())
    tests = ({"pairs": "all" if all_pairs else "baseline", "baseline": comparison.baseline,
              "policy": comparison.policy, "test": comparison.test,
              "correction": comparison.correction, "alpha": comparison.alpha, "seed": seed,
              "n_resamples": min(int(n_resamples), MAX_RESAMPLES)} if letters else {"pairs": None})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        return build_report(evaluation, metrics=list(dict.fromkeys(table["metric"].astype(str))),
                            runs=list(comparison.keys), trec_eval=True, **tests)


def report_numbers(comparison: cmp.Comparison) -> pd.DataFrame:
    """The comparison's long table (one row per run and metric) with readable columns."""
    table = comparison.table
    return table[["metric", "key", "run", "mean", "diff", "effect_size", "p_value", "p_corrected",
                  "significant", "marker", "n_queries"]].rename(columns={
                      "diff": "diff vs baseline", "effect_size": "Cohen's d",
                      "p_value": "p", "p_corrected": "p corrected",
                      "significant": "significant vs baseline", "marker": "beats"}).reset_index(drop=True)


def baseline_intervals(comparison: cmp.Comparison, metric: str) -> pd.DataFrame:
    """Each run's mean difference to the baseline on ``metric``, with its bootstrap interval.

    Returns
    -------
    DataFrame(run, diff, ci_low, ci_high, p_value, p_corrected, significant, effect_size),
    one row per compared run in comparison order (pairs tested as (baseline, run) in the
    all-pairs mode are flipped to run - baseline).
    """
    pairs = comparison.pairs
    pairs = pairs[pairs["metric"] == metric]
    base = comparison.baseline
    rows = []
    for row in pairs.itertuples(index=False):
        if row.run_b == base:
            rows.append((row.run_a, row.mean_diff, row.ci_low, row.ci_high, row.p_value,
                         row.p_corrected, row.significant, row.effect_size))
        elif row.run_a == base:
            rows.append((row.run_b, -row.mean_diff, -row.ci_high, -row.ci_low, row.p_value,
                         row.p_corrected, row.significant, -row.effect_size))
    return pd.DataFrame(rows, columns=["run", "diff", "ci_low", "ci_high", "p_value", "p_corrected",
                                       "significant", "effect_size"])


def report_caption(comparison: cmp.Comparison) -> str:
    """What the report's markers and numbers mean, in one paragraph."""
    keys = ", ".join(f"{k} = {markdown_literal(r)}" for r, k in comparison.keys.items())
    all_pairs = bool((comparison.pairs["run_b"] != comparison.baseline).any())
    family = "every pair of runs" if all_pairs else "each run against the baseline"
    return (f"{TEST_LABELS[comparison.test].capitalize()} on the per-query values under the "
            f"**{comparison.policy}** policy, testing {family}; "
            f"{CORRECTION_LABELS[comparison.correction]} correction per metric; significant when "
            f"the corrected p ≤ {comparison.alpha:g}. A superscript lists the keys of the runs a run "
            f"significantly beats ({keys}). d = Cohen's d of run − baseline (mean / sd of the "
            "per-query differences)." + (f" {note}." if (note := cmp.scale_note(
                comparison.table["metric"])) else ""))



def significance_summary(comparison: cmp.Comparison) -> list[str]:
    """Two lines: the runs significantly better, then worse, than the baseline, per metric
    (e.g. "Significantly worse than B: RR: x, y; AP: x.")."""
    table = comparison.table
    lines = []
    for word, sign in (("better", 1), ("worse", -1)):
        parts = []
        for metric, block in table.groupby("metric", sort=False):
            hits = block.loc[block["significant"] & (np.sign(block["diff"]) == sign), "run"].tolist()
            if hits:
                parts.append(f"{metric}: {', '.join(map(markdown_literal, hits))}")
        lines.append(f"Significantly {word} than {markdown_literal(comparison.baseline)}: "
                     + ("; ".join(parts) if parts
                     else "no run on any metric") + ".")
    return lines


# ---- per-query differences --------------------------------------------------------------
def query_differences(evaluation: Evaluation, run: str, baseline: str, metric: str,
                      policy: str = "expected", query_text: dict[str, str] | None = None) -> pd.DataFrame:
    """Per-query ``run - baseline`` on one metric under one policy, largest first.

    Returns
    -------
    DataFrame(query, text, run, baseline, diff, outcome) with outcome ``win`` / ``tie`` /
    ``loss`` from the run's side; queries only one run has are left out (as in the tests).
    """
    pairs = cmp.paired_values(evaluation, run, baseline, metric, policy)
    diff = pairs.a - pairs.b
    outcome = cmp.outcome_word(diff, np.maximum(np.abs(pairs.a), np.abs(pairs.b)))
    text = query_text or {}
    out = pd.DataFrame({"query": pairs.queries.astype(str),
                        "text": [text.get(str(q), "") for q in pairs.queries],
                        "run": pairs.a, "baseline": pairs.b, "diff": diff, "outcome": outcome})
    return out.sort_values(["diff", "query"], ascending=[False, True], kind="stable").reset_index(drop=True)


def outcome_counts(differences: pd.DataFrame) -> dict[str, int]:
    """Number of queries the run wins, ties and loses: {"win": .., "tie": .., "loss": ..}."""
    counts = differences["outcome"].value_counts()
    return {k: int(counts.get(k, 0)) for k in ("win", "tie", "loss")}


def mean_difference(differences: pd.DataFrame, metric: str = "RR") -> float:
    """Mean of run - baseline over the paired queries on the metric's summary scale
    (:func:`tiedrank.stats.summands`: for gm_map and gm_bpref the mean difference of the
    floored logs, log(GM run / GM baseline)), as the report's diff; NaN without any.

    Examples
    --------
    >>> frame = pd.DataFrame({"run": [0.5, 0.2], "baseline": [0.25, 0.2], "diff": [0.25, 0.0]})
    >>> mean_difference(frame, "AP"), round(mean_difference(frame, "gm_map"), 4)  # log(2) / 2
    (0.125, 0.3466)
    """
    if not len(differences):
        return math.nan
    return float(np.mean(cmp.summands(differences["run"], metric)
                         - cmp.summands(differences["baseline"], metric)))


def mean_difference_help(metric: Metric, n_queries: int) -> str:
    """What the "Mean difference" card shows, in words, for the evaluated ``metric``
    (``Evaluation.metric(name)``: the object, whose summary it reads).

    >>> from tiedrank.metrics import Metric
    >>> mean_difference_help(Metric("gm_map"), 25)
    'log(GM run / GM baseline): the mean of log(max(run, 1e-05)) − log(max(baseline, 1e-05)) over the 25 paired queries (gm_map is summarised by its geometric mean).'
    """
    if metric.entry.summary == "geometric":
        return (f"log(GM run / GM baseline): the mean of log(max(run, {MIN_GEO_MEAN:g})) − "
                f"log(max(baseline, {MIN_GEO_MEAN:g})) over the {n_queries} paired queries "
                f"({metric} is summarised by its geometric mean).")
    return f"Mean of run − baseline over the {n_queries} paired queries."


def difference_sentence(differences: pd.DataFrame, run: str, baseline: str, metric: str,
                        policy: str = "expected") -> str:
    """"Under the expected policy, A is better than B on 5 of 25 queries, equal on 17, worse on 3." """
    c = outcome_counts(differences)
    n = sum(c.values())
    run, baseline = markdown_literal(run), markdown_literal(baseline)
    if n == 0:
        return f"{run} and {baseline} have no query in common for {metric}."
    plural = lambda k: "query" if k == 1 else "queries"
    return (f"{metric} under the {policy} policy: {run} is better than {baseline} on "
            f"{c['win']} of {n} {plural(n)}, equal on {c['tie']} and worse on {c['loss']}.")


# ---- fragile queries ----------------------------------------------------------------------
def fragile_table(evaluation: Evaluation, run: str, baseline: str, metric: str,
                  query_text: dict[str, str] | None = None) -> tuple[pd.DataFrame, int]:
    """The queries where the tie-break alone decides who wins, and the number of paired queries.

    :func:`tiedrank.stats.fragile_queries` of ``run`` (A) against ``baseline`` (B), only
    its fragile rows (``best_A - worst_B > 0`` and ``worst_A - best_B < 0``), with the
    query's text after its id, the widest range of ``run - baseline`` first.

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank import evaluate
    >>> qrels = pd.DataFrame({"query": ["1", "2"], "doc": ["x", "x"], "relevance": 1})
    >>> tied = pd.DataFrame({"query": ["1", "1", "2"], "doc": ["x", "y", "x"],
    ...                      "score": [1.0, 1.0, 1.0]})
    >>> ev = evaluate({"A": tied, "B": tied}, qrels, ["P@1"], ties="all")
    >>> table, n = fragile_table(ev, "A", "B", "P@1", {"1": "tied query"})
    >>> table[["query", "text", "max_diff", "min_diff"]].values.tolist(), n
    ([['1', 'tied query', 1.0, -1.0]], 2)
    """
    rows = cmp.fragile_queries(evaluation, run, baseline, metric)
    fragile = rows[rows["fragile"]].drop(columns="fragile")
    text = query_text or {}
    fragile.insert(1, "text", fragile["query"].map(lambda q: text.get(str(q), "")))
    order = np.lexsort((fragile["query"].to_numpy(), -(fragile["max_diff"] - fragile["min_diff"]).to_numpy()))
    return fragile.iloc[order].reset_index(drop=True), len(rows)


def fragile_heading(n_fragile: int, n_queries: int) -> str:
    """E.g. "4 of 50 queries can flip on the tie-break alone".

    Examples
    --------
    >>> fragile_heading(4, 50), fragile_heading(0, 1)
    ('4 of 50 queries can flip on the tie-break alone', '0 of 1 query can flip on the tie-break alone')
    """
    return (f"{n_fragile:,} of {n_queries:,} {'query' if n_queries == 1 else 'queries'} can flip "
            "on the tie-break alone")


# ---- verdict stability ------------------------------------------------------------------
Stability = cmp.PairStability
"""What :func:`stability` returns: :class:`tiedrank.stats.PairStability`."""


def stability(evaluation: Evaluation, run: str, baseline: str, metric: str, *, test: str = "t",
              alpha: float = 0.05, n_draws: int = 1000, seed: int = 0, gain: str = "linear",
              policies: Sequence[str] = ALL_POLICIES,
              progress: Progress | None = None) -> Stability:
    """P(run beats baseline) under independent random tie-breaking of both runs, and the
    verdict and paired test under each fixed policy (expected first):
    :func:`tiedrank.stats.pair_stability` with scipy's warnings silenced.

    The draws use the seeds of :func:`tiedrank.stats.verdict_stability`, so ``p_win`` and
    ``se`` equal its columns (exact, se 0, on Success@k, P@k, R@k, Rprec). ``n_draws`` is
    capped at :data:`MAX_DRAWS`; ``progress(share, step)`` is called before each step.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        return cmp.pair_stability(evaluation, run, baseline, metric, policies=policies,
                                  test=test, alpha=alpha, n_draws=min(int(n_draws), MAX_DRAWS),
                                  seed=seed, gain=gain, progress=progress)


def _percent(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def _join(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _name(text: str, bold: bool) -> str:
    if not bold:
        return text
    return "**" + markdown_literal(text) + "**"


def _order_clauses(verdict: Mapping[str, str], run: str, base: str, metric: str) -> list[str]:
    """The clauses of trec_eval's order and the exact expectation: one when they agree."""
    te, ex = verdict.get("trec_eval"), verdict.get("expected")
    if te is not None and ex is not None and te == ex:
        return [f"Under trec_eval's order and under the exact expectation {run} "
                f"{OUTCOME_VERBS[te]} against {base} on {metric}"]
    parts: list[str] = []
    for policy in ("trec_eval", "expected"):
        if policy in verdict:
            first = not parts
            phrase = POLICY_PHRASES[policy]
            phrase = phrase[0].upper() + phrase[1:] if first else phrase
            parts.append(f"{phrase} {run if first else 'it'} {OUTCOME_VERBS[verdict[policy]]}"
                         + (f" against {base} on {metric}" if first else ""))
    return parts


def _random_clause(result: Stability) -> str:
    """How often the run beats the baseline under random tie-breaks (exactly, or sampled)."""
    if result.method == "exact":
        equal = (f" (equal means with probability {_percent(result.p_equal)}, counted as half "
                 "a win)" if result.p_equal > 0 else "")
        return (f"it beats the baseline with probability {_percent(result.p_win)} under "
                f"random tie-breaks, exactly over every tie order{equal}")
    equal = (f" (equal means in {_percent(result.p_equal)}, counted as half a win)"
             if result.p_equal > 0 else "")
    return (f"it beats the baseline in {_percent(result.p_win)} ± {_percent(result.se)} "
            f"of {result.n_draws:,} random tie-breaks{equal}")


def _cases_sentence(verdict: Mapping[str, str]) -> str:
    """Each run's own best (worst) case, together: "" without both verdicts."""
    best, worst = verdict.get(BEST_CASE), verdict.get(WORST_CASE)
    if best is None or worst is None:
        return ""
    if best != worst:
        return (f" With each run's ties broken its best way it {OUTCOME_VERBS[best]}; with "
                f"each broken its worst way it {OUTCOME_VERBS[worst]}.")
    if best == "tie":
        return (" It ties both when each run's ties are broken its best way and when "
                "they are broken its worst way.")
    case = "worst" if best == "win" else "best"
    return (f" It {OUTCOME_VERBS[best]} even in both runs' {case} case (each run's ties broken "
            f"its {case} way).")


def _significance_sentence(result: Stability, run: str, base: str) -> str:
    """Whether the test's significance survives a change of tie policy."""
    v = result.verdicts
    significant = v[v["significant"]]
    test = TEST_LABELS.get(result.test, result.test)
    if significant.empty:
        return (f" The {test} finds no significant difference (p ≤ {result.alpha:g}) "
                "under any tie policy.")
    if result.significance_survives:
        return (f" The {test} finds the difference significant under every tie policy "
                f"(p ≤ {result.alpha:g}): significance survives the tie-break.")
    where = [f"{POLICY_PHRASES.get(r.policy, 'under ' + r.policy)} (p = {r.p_value:.2g}, "
             f"{run if r.verdict == 'win' else base} ahead)" for r in significant.itertuples(index=False)]
    return (f" The {test} is significant (p ≤ {result.alpha:g}) only {_join(where)}, "
            "so significance does not survive a change of tie policy.")


def stability_sentence(result: Stability, *, bold: bool = False) -> str:
    """The verdict in words, e.g. "Under trec_eval's order h2oloo-fewself wins; under the
    exact expectation it loses; it beats the baseline in 30.6% ± 1.5% of 1,000 random
    tie-breaks. ..." (``bold``: Markdown bold run names)."""
    run, base = _name(result.run, bold), _name(result.baseline, bold)
    verdict = {row.policy: row.verdict for row in result.verdicts.itertuples(index=False)}
    parts = _order_clauses(verdict, run, base, result.metric) + [_random_clause(result)]
    return ("; ".join(parts) + "." + _cases_sentence(verdict)
            + _significance_sentence(result, run, base))


def trec_eval_among_tie_breaks(evaluation: Evaluation, result: Stability) -> dict | None:
    """Where trec_eval's difference (run - baseline) falls among the differences of random
    tie-breaks: P(D < d), P(D = d), P(D > d) with D the random difference.

    Exact (the law of the difference of the two runs' lattice laws, ``method="exact"``)
    when ``result.method`` is exact; otherwise shares of ``result.draws`` (equal within
    1e-12 relative, ``method="sampled"``). None without a trec_eval verdict or draws.
    """
    from ..sampling import difference_law, run_mean_law

    rows = result.verdicts[result.verdicts["policy"] == "trec_eval"]
    if rows.empty:
        return None
    value = float(rows["diff"].iloc[0])
    if result.method == "exact":
        included = (evaluation.tables[result.baseline].evaluated
                    & evaluation.tables[result.run].evaluated)
        laws = [run_mean_law(evaluation.tables[name], result.metric, included=included)
                for name in (result.run, result.baseline)]
        below, equal, above = difference_law(*laws).split(value)
    elif len(result.draws):
        diffs = result.draws["diff"].to_numpy()
        tolerance = 1e-12 * max(1.0, abs(value))
        below = float(np.mean(diffs < value - tolerance))
        equal = float(np.mean(np.abs(diffs - value) <= tolerance))
        above = 1.0 - below - equal
    else:
        return None
    return {"value": value, "below": below, "equal": equal, "above": above,
            "method": result.method}


def trec_eval_among_tie_breaks_sentence(position: dict | None, run: str, baseline: str) -> str:
    """E.g. "trec_eval's difference, -0.0123, is above 12.3% of the random tie-breaks'
    differences and equal to 0.5% (exact)." ('' when there is no position)."""
    if position is None:
        return ""
    how = "exact" if position["method"] == "exact" else "share of the draws"
    equal = f" and equal to {_percent(position['equal'])}" if position["equal"] > 0 else ""
    run, baseline = markdown_literal(run), markdown_literal(baseline)
    return (f"trec_eval's difference {run} − {baseline}, {position['value']:+.4f}, is above "
            f"{_percent(position['below'])} of the random tie-breaks' differences{equal} ({how}).")


def stability_headline(result: Stability) -> str:
    """One short line: does the verdict depend on the tie-break?"""
    if result.same_verdict:
        word = OUTCOME_VERBS[result.verdicts["verdict"].iloc[0]]
        return f"Stable verdict: {markdown_literal(result.run)} {word} under every fixed tie policy."
    return (f"The verdict depends on the tie-break: {markdown_literal(result.run)} wins under "
            "some tie policies and not under others.")


def verdict_table(result: Stability) -> pd.DataFrame:
    """The per-policy verdicts for display (policy, means, difference, verdict, p, significant);
    policies by their display labels ("best case" for :data:`~tiedrank.dashboard.labels.BEST_CASE`, ...)."""
    v = result.verdicts
    return pd.DataFrame({
        "policy": v["policy"].map(lambda p: POLICY_LABELS.get(p, p)), f"{result.run}": v["run"], f"{result.baseline} (baseline)": v["baseline"],
        "diff": v["diff"], "verdict": v["verdict"], "p": v["p_value"],
        "significant": v["significant"], "same verdict as expected": v["agrees"]})


# ---- system rankings across policies ----------------------------------------------------
def _subset(evaluation: Evaluation, runs: Sequence[str]) -> pd.DataFrame:
    frame = evaluation.per_query
    return frame[frame["run"].astype(str).isin(list(runs))]


def ranking_table(evaluation: Evaluation, metric: str, runs: Sequence[str],
                  policies: Sequence[str] = ALL_POLICIES, *, with_means: bool = False) -> pd.DataFrame:
    """Rank of each run (1 = best, equal means share the average rank) under each policy;
    sorted by the first policy's rank. Columns: run, ``rank <policy>``..., ``rank spread``
    (max - min rank), and with ``with_means`` ``<policy>``... (the means)."""
    ranking = cmp.policy_rankings(_subset(evaluation, runs), metric, policies=list(policies))
    out = pd.DataFrame({"run": ranking["run"]})
    for p in policies:
        out[f"rank {p}"] = ranking[f"rank_{p}"]
    ranks = out[[f"rank {p}" for p in policies]]
    out["rank spread"] = ranks.max(axis=1) - ranks.min(axis=1)
    if with_means:
        for p in policies:
            out[p] = ranking[p]
    return out.sort_values([f"rank {policies[0]}", "run"], kind="stable").reset_index(drop=True)


def agreement_table(evaluation: Evaluation, metric: str, runs: Sequence[str],
                    policies: Sequence[str] = ALL_POLICIES) -> pd.DataFrame:
    """Kendall's tau-b between every two policies' system rankings (policy_a, policy_b,
    kendall_tau, p_value); NaN when fewer than two runs or a constant ranking."""
    if len(runs) < 2:
        return pd.DataFrame(columns=["policy_a", "policy_b", "kendall_tau", "p_value"])
    return cmp.ranking_agreement(_subset(evaluation, runs), metric, policies=list(policies))


def agreement_sentence(agreement: pd.DataFrame) -> str:
    """Kendall's tau between the exact expectation and trec_eval's order, and the lowest tau,
    in words."""
    finite = agreement.dropna(subset=["kendall_tau"])
    if finite.empty:
        return "Kendall's tau is undefined here (fewer than two runs, or a constant ranking)."
    if (finite["kendall_tau"] >= 1 - 1e-12).all():
        return "Every tie policy ranks these runs in the same order (Kendall's tau = 1)."
    label = lambda p: POLICY_LABELS.get(p, p)
    parts = []
    pair = [{a, b} == {"expected", "trec_eval"} for a, b in zip(finite["policy_a"], finite["policy_b"])]
    main = finite[pair]
    if len(main):
        parts.append(f"The exact expectation and trec_eval's order rank these runs with Kendall's "
                     f"tau = {main['kendall_tau'].iloc[0]:.3f} (1 = the same order)")
    low = finite.loc[finite["kendall_tau"].idxmin()]
    parts.append(f"the rankings disagree most between the {label(low['policy_a'])} and the "
                 f"{label(low['policy_b'])} (tau = {low['kendall_tau']:.3f})")
    text = "; ".join(parts) + "."
    return text[0].upper() + text[1:]


# ---- per-group breakdown ----------------------------------------------------------------
def group_table(breakdown: cmp.GroupBreakdown, policy: str, runs: Sequence[str],
                metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Wide per-group table under one policy: group, n_queries, run, then one column per
    metric (mean over the group's queries). Runs in ``runs`` order within each group."""
    table = breakdown.table
    table = table[(table["policy"] == policy) & table["run"].isin(list(runs))]
    metric_order = list(metrics) if metrics is not None else list(dict.fromkeys(table["metric"]))
    if table.empty:
        return pd.DataFrame(columns=["group", "n_queries", "run", *metric_order])
    wide = table.pivot_table(index=["group", "run"], columns="metric", values="value",
                             aggfunc="first", sort=False)
    counts = table.groupby("group", sort=False)["n_queries"].max()
    groups = list(dict.fromkeys(table["group"]))
    rows = [(g, r) for g in groups for r in runs if (g, r) in wide.index]
    wide = wide.loc[rows, [m for m in metric_order if m in wide.columns]].reset_index()
    wide.columns.name = None
    wide.insert(1, "n_queries", wide["group"].map(counts).astype(np.int64))
    return wide


def group_differences(breakdown: cmp.GroupBreakdown, policy: str, baseline: str,
                      runs: Sequence[str], metric: str) -> pd.DataFrame:
    """run - baseline of one metric's group means: DataFrame(run, group, diff, run_value,
    baseline_value, n_queries), runs in ``runs`` order (the baseline left out)."""
    table = breakdown.table
    table = table[(table["policy"] == policy) & (table["metric"] == metric)]
    base = table[table["run"] == baseline].set_index("group")
    rows = []
    for run in runs:
        if run == baseline:
            continue
        block = table[table["run"] == run]
        for row in block.itertuples(index=False):
            if row.group in base.index:
                b = float(base.loc[row.group, "value"])
                rows.append((run, row.group, row.value - b, row.value, b, int(row.n_queries)))
    return pd.DataFrame(rows, columns=["run", "group", "diff", "run_value", "baseline_value", "n_queries"])


def groups_template(evaluation: Evaluation) -> pd.DataFrame:
    """An example query -> group file: the evaluated queries split at the median number of
    relevant documents ("few relevant" / "many relevant"). Edit and upload it."""
    table = next(iter(evaluation.tables.values()))
    included = table.evaluated
    queries = np.asarray(table.queries)[included].astype(str)
    n_rel = np.asarray(table.n_relevant)[included]
    if len(n_rel) == 0:
        return pd.DataFrame(columns=["query", "group"])
    median = float(np.median(n_rel))
    label_few = f"at most {math.floor(median)} relevant"
    label_many = f"more than {math.floor(median)} relevant"
    return pd.DataFrame({"query": queries,
                         "group": np.where(n_rel <= median, label_few, label_many)})
