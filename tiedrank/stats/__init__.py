"""Comparing runs: significance tests, corrections, and how stable the verdict is under ties.

A ranker whose scores tie has no single ranking, so "A beats B" can be an artefact of the
tie-break. This package answers the usual comparison questions and the one ties add; each
module does one job:

=========================  ==================================================================
:mod:`.paired_tests`       :func:`t_test`, :func:`wilcoxon_test`, :func:`randomization_test`
                           (seeded), :func:`bootstrap_ci` (seeded), :func:`cohens_d`,
                           :func:`paired_test`; :func:`mann_whitney` for unpaired sets
:mod:`.corrections`        :func:`holm`, :func:`bonferroni`, :func:`benjamini_hochberg`,
                           :func:`correct_pvalues`
:mod:`.pairing`            per-query values of two runs joined on the query id
                           (:func:`paired_values`); when two values count as equal
                           (:data:`REL_TOL`, :func:`outcome`); the scale a metric's
                           summary averages (:func:`summands`, :func:`summary_value`)
:mod:`.comparison`         :func:`compare_pair`; :func:`compare_runs` against a baseline or
                           all pairs, corrected, with ranx-style markers (:func:`run_keys`)
:mod:`.stability`          :func:`win_probability` (:func:`win_probabilities` for many pairs) under random tie-breaking,
                           :func:`policy_verdicts`, :func:`pair_stability`,
                           :func:`verdict_stability`
:mod:`.fragile`            :func:`fragile_queries`: the queries where the tie-break alone
                           decides which of two runs wins (best of one against worst of
                           the other)
:mod:`.exact`              exact laws for tiny cases: :func:`query_value_distribution`,
                           :func:`run_mean_distribution`, :func:`exact_win_probability`,
                           :func:`expected_geometric_mean` (E[gm_map] itself)
:mod:`.rankings`           :func:`policy_rankings`, :func:`ranking_agreement` (Kendall's tau
                           between policies), :func:`rank_correlation` of two runs' orders
:mod:`.overlap`            :func:`rank_biased_overlap` of two runs' orders per query, ties
                           treated as Corsi & Urbano's RBO^w, RBO^a, RBO^b (ext, min, max, res)
:mod:`.groups`             :func:`group_breakdown` per query group (:func:`read_groups`)
:mod:`.agreement`          :func:`judge_agreement`: label runs (LLM judges) against the
                           qrels grades, confusion matrices and Cohen's kappa (unweighted,
                           linear, quadratic; :func:`cohen_kappa`), per run and per query
=========================  ==================================================================

Conventions (all stated where they apply):

* Per-query values come from ``Evaluation.per_query`` (any policy; ``expected`` by
  default) and are paired on query ids (inner join; dropped queries are reported).
* The difference is always ``A - B`` (``run - baseline``) over the paired queries, on
  the scale the metric's summary averages (:func:`summands`: the values, or for the
  geometric mean of gm_map and gm_bpref ``log(max(x, 1e-5))``, so those tests compare
  geometric means); a run's own number is its summary (:func:`summary_value`), as in
  ``Evaluation.summary``. Rankings and group breakdowns use the same summaries.
* When every paired difference is exactly 0 there is no evidence of a difference: every
  test returns statistic 0 and p = 1, the effect size is 0 and the interval is [0, 0]
  (scipy would return NaN or warn). With fewer than two pairs everything is NaN.
* Corrections are applied per metric, over the family of tests run for that metric
  (one test per compared pair); NaN p-values are left out of the family.
* Two means count as equal when they differ by at most ``1e-12 * max(1, |mean|)``, so
  that the same sum added in another order is not called a win.
* Options are checked by :mod:`tiedrank.core.validation`: a bad ``test=``, ``correction=``,
  ``alpha``... raises :class:`~tiedrank.core.validation.InvalidParameterError` naming the
  allowed values.

Examples
--------
Three paired t-tests against one baseline, then Holm's correction over that family:

>>> baseline = [0.50, 0.40, 0.30, 0.60, 0.50]
>>> runs = {"x": [0.70, 0.60, 0.50, 0.80, 0.60], "y": [0.60, 0.40, 0.30, 0.60, 0.60],
...         "z": [0.40, 0.40, 0.30, 0.50, 0.50]}
>>> p = [t_test(values, baseline)[1] for values in runs.values()]
>>> [round(float(v), 4) for v in p]  # x clearly above; y above and z below by as much
[0.0008, 0.1778, 0.1778]
>>> holm(p).round(4).tolist()  # 3 p_(1), then max(2 p_(2), 3 p_(1)), then the running max
[0.0025, 0.3556, 0.3556]
"""
from __future__ import annotations

from .agreement import (
                           MAX_LABELS,
                           WEIGHTS,
                           Agreement,
                           cohen_kappa,
                           judge_agreement,
                           label_problem,
)
from .checkpoints import CHECKPOINT_COLUMNS, checkpoint_curve, checkpoint_steps
from .comparison import (
                           PAIRINGS,
                           Comparison,
                           PairComparison,
                           compare_pair,
                           compare_runs,
                           run_keys,
                           scale_note,
)
from .corrections import (
                           CORRECTIONS,
                           benjamini_hochberg,
                           bonferroni,
                           correct_pvalues,
                           holm,
)
from .exact import (
                           exact_win_probability,
                           expected_geometric_mean,
                           query_value_distribution,
                           run_mean_distribution,
)
from .fragile import FRAGILE_COLUMNS, fragile_queries
from .groups import GroupBreakdown, group_breakdown, read_groups
from .paired_tests import (
                           TESTS,
                           bootstrap_ci,
                           cohens_d,
                           mann_whitney,
                           paired_test,
                           randomization_test,
                           t_test,
                           wilcoxon_test,
)
from .overlap import RankOverlap, rank_biased_overlap
from .pairing import (
                           OUTCOMES,
                           REL_TOL,
                           PairedValues,
                           outcome,
                           outcome_word,
                           paired_values,
                           summands,
                           summary_value,
)
from .rankings import (
                           RankCorrelation,
                           policy_rankings,
                           rank_correlation,
                           ranking_agreement,
)
from .stability import (
                           PairStability,
                           WinProbability,
                           pair_stability,
                           policy_verdicts,
                           verdict_stability,
                           win_probabilities,
                           win_probability,
)

__all__ = [  # noqa: RUF022 (grouped by module, as the table above)
    # paired tests
    "TESTS", "bootstrap_ci", "cohens_d", "mann_whitney", "paired_test", "randomization_test",
    "t_test", "wilcoxon_test",
    # corrections
    "CORRECTIONS", "benjamini_hochberg", "bonferroni", "correct_pvalues", "holm",
    # pairing and outcomes
    "OUTCOMES", "REL_TOL", "PairedValues", "outcome", "outcome_word", "paired_values",
    "summands", "summary_value",
    # comparisons
    "PAIRINGS", "Comparison", "PairComparison", "compare_pair", "compare_runs", "run_keys",
    "scale_note",
    # checkpoints of a training run
    "CHECKPOINT_COLUMNS", "checkpoint_curve", "checkpoint_steps",
    # verdict stability and exact laws
    "PairStability", "WinProbability", "pair_stability", "policy_verdicts",
    "verdict_stability", "win_probabilities", "win_probability",
    "exact_win_probability", "expected_geometric_mean", "query_value_distribution",
    "run_mean_distribution",
    # queries whose winner the tie-break alone decides
    "FRAGILE_COLUMNS", "fragile_queries",
    # rankings and rank correlation
    "RankCorrelation", "policy_rankings", "rank_correlation", "ranking_agreement",
    "RankOverlap", "rank_biased_overlap",
    # groups
    "GroupBreakdown", "group_breakdown", "read_groups",
    # judge agreement
    "MAX_LABELS", "WEIGHTS", "Agreement", "cohen_kappa", "judge_agreement", "label_problem",
]
