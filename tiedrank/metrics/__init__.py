"""Metrics: the registry of names (:mod:`.registry`) and the kernels that compute them
(:mod:`.kernels`).

``parse_metric("nDCG@10")`` reads a name, ``metric_values(table, metric)`` computes one
value per query on a :class:`~tiedrank.core.ties.TieTable` (exact expectation on the expected
table, the single ordering's value on a resolved one), and :data:`METRIC_NAMES` lists every
way to write a metric.
"""
from .kernels import (GAINS, FirstRelevantPmf, average_precision, bpref, dcg, discount,
                      first_relevant_group, first_relevant_pmf, gain, ideal_dcg, judged_nonrelevant,
                      mtrr_grag, ndcg, num_nonrelevant_judged_retrieved, num_relevant, num_relevant_retrieved, num_retrieved,
                      precision, r_precision, r_precision_mult, rbp, recall, reciprocal_rank,
                      relative_precision, relevant_in_top, set_f, set_map, set_precision,
                      set_recall, set_relative_precision, success, tmhits_grag, tsrr, tsrr2)
from .interpolated import (RECALL_LEVELS, eleven_point_average, interpolated_precision,
                           recall_cutoffs)
from .dispatch import metric_values, metric_view
from .registry import (CUTOFF_RULES, REGISTRY, Metric, MetricFamily, Parameter, family,
                       parse_metric, register)

from . import entries, entries_peers  # noqa: E402,F401  (registers the families)
from . import entries_compat  # noqa: E402,F401  (Compat)
from . import entries_cwl  # noqa: E402,F401  (C/W/L's INSQ, INST, BPM)
from . import entries_intent  # noqa: E402,F401  (the intent-aware families)

METRIC_NAMES = tuple(form for entry in REGISTRY.values() for form in entry.forms)
"""Every way to write a metric, for messages and help: ``RR``, ``RR@k``, ``Success@k``, ..."""

__all__ = [
    "CUTOFF_RULES", "GAINS", "METRIC_NAMES", "REGISTRY", "FirstRelevantPmf", "Metric", "MetricFamily",
    "Parameter", "average_precision", "bpref", "dcg", "discount", "family", "first_relevant_group",
    "first_relevant_pmf", "gain", "ideal_dcg", "judged_nonrelevant", "metric_values", "mtrr_grag",
    "ndcg", "num_nonrelevant_judged_retrieved", "num_relevant", "num_relevant_retrieved", "num_retrieved", "parse_metric", "precision",
    "r_precision", "r_precision_mult", "rbp", "recall", "reciprocal_rank", "register",
    "relative_precision", "relevant_in_top", "set_f", "set_map", "set_precision", "set_recall",
    "set_relative_precision", "success", "tmhits_grag", "tsrr", "tsrr2",
]
__all__ += ["RECALL_LEVELS", "eleven_point_average", "interpolated_precision", "recall_cutoffs"]
