"""The entries of the registry for the intent-aware (diversity) measures, as ndeval computes
them and ir_measures names them (its pyndeval provider): ``alpha_nDCG@k``, ``alpha_DCG@k``,
``ERR_IA@k``, ``nERR_IA@k``, ``NRBP``, ``nNRBP``, ``P_IA@k``, ``AP_IA`` and ``StRecall@k``,
each tie-aware (kernels in :mod:`tiedrank.metrics.intent`, best and worst in
:mod:`tiedrank.metrics.intent_extremes`; closed forms in docs/metrics-reference.md). They
read diversity qrels (ndeval's ``query subtopic docno grade``; :mod:`tiedrank.io.subtopics`),
a subtopic's judgement binary at the relevance level, as ndeval's.

Examples
--------
>>> from tiedrank.metrics import REGISTRY, parse_metric
>>> REGISTRY["alpha_nDCG"].cutoff, parse_metric("alpha_nDCG(alpha=0.3)@10").alpha
('required', 0.3)
>>> parse_metric("NRBP").name, parse_metric("nNRBP(beta=0.8)").name
('NRBP', 'nNRBP(beta=0.8)')
"""
from __future__ import annotations

import math

from .intent import intent_values
from .intent_extremes import extreme_values
from .registry import MetricFamily, Parameter, register

NDEVAL = {"alpha_nDCG": "alpha-nDCG", "alpha_DCG": "alpha-DCG", "ERR_IA": "ERR-IA",
          "nERR_IA": "nERR-IA", "NRBP": "NRBP", "nNRBP": "nNRBP", "P_IA": "P-IA",
          "AP_IA": "MAP-IA", "StRecall": "strec"}
"""ndeval's (and pyndeval's) name of each family, as data (``alpha-nDCG@10``)."""


def needs_subtopics(family: str) -> bool:
    """Whether the family ``family`` reads diversity qrels (subtopic judgements): a picker
    offers it only where the qrels carry them.

    >>> needs_subtopics("alpha_nDCG"), needs_subtopics("nDCG")
    (True, False)
    """
    return family in NDEVAL

_ALPHA = Parameter("alpha", 0.5, lambda a: math.isfinite(a) and 0 <= a <= 1, "in [0, 1]",
                   "number in [0, 1]", "alpha=a", shown_at_default=False)
_BETA = Parameter("beta", 0.5, lambda b: math.isfinite(b) and 0 <= b <= 1, "in [0, 1]",
                  "number in [0, 1]", "beta=b", shown_at_default=False)


def _family(name: str, description: str, *, parameters: tuple = (), cutoff: str = "required",
            usage: tuple[str, ...] | None = None) -> MetricFamily:
    def kernel(table, metric, gain):
        return intent_values(table, name, metric.k, metric.alpha, metric.beta)

    def extremes(table, metric, best):
        return extreme_values(table, name, metric.k, metric.alpha, metric.beta, best)

    return MetricFamily(name, kernel, description, cutoff=cutoff, parameters=parameters,
                        extremes=extremes, usage=usage)


_IDEAL_IDEAL = ("over S sum_{r<=k} (1-alpha)^(r-1) d(r), a ranking whose every document "
                "covers every subtopic (ndeval's collection-independent normalisation; "
                "unscaled at k=1, as ndeval)")

for _entry in (
    _family("alpha_nDCG", "alpha-nDCG (Clarke et al.): alpha-DCG@k over that of ndeval's "
            "greedy ideal ranking; a document's gain sum_s (1-alpha)^(documents above "
            "relevant to s), discount 1/log2(r+1); alpha default 0.5 (alpha_nDCG(alpha=0.3)@10; "
            "alpha= also on alpha_DCG, ERR_IA, nERR_IA, NRBP and nNRBP, beta= on the last two)",
            parameters=(_ALPHA,), usage=("alpha_nDCG@k",)),
    _family("alpha_DCG", "ndeval's alpha-DCG: the alpha-discounted gain sum, "
            + _IDEAL_IDEAL, parameters=(_ALPHA,), usage=("alpha_DCG@k",)),
    _family("ERR_IA", "ndeval's ERR-IA: the mean over subtopics of ERR with stop probability "
            "alpha for a relevant document (sum_s (1-alpha)^(c_s) / r), " + _IDEAL_IDEAL,
            parameters=(_ALPHA,), usage=("ERR_IA@k",)),
    _family("nERR_IA", "ndeval's nERR-IA: ERR-IA@k over that of ndeval's greedy ideal "
            "ranking", parameters=(_ALPHA,), usage=("nERR_IA@k",)),
    _family("NRBP", "novelty- and rank-biased precision (Clarke et al.), ndeval's: (1 - "
            "(1-alpha) beta) / S sum_r beta^(r-1) sum_s (1-alpha)^(c_s), every rank; alpha, "
            "beta default 0.5", parameters=(_ALPHA, _BETA), cutoff="none",
            usage=("NRBP",)),
    _family("nNRBP", "NRBP over that of ndeval's greedy ideal ranking (0 without a relevant "
            "subtopic, where ndeval prints nan)", parameters=(_ALPHA, _BETA), cutoff="none",
            usage=("nNRBP",)),
    _family("P_IA", "intent-aware precision: the (document, subtopic) relevant pairs in the "
            "top k, over k S (S: subtopics with a relevant document)"),
    _family("AP_IA", "intent-aware average precision (ndeval's MAP-IA): the mean over "
            "subtopics of AP with the subtopic's judgements, every rank", cutoff="none"),
    _family("StRecall", "subtopic recall: the share of the S subtopics with a relevant "
            "document covered by the top k (ndeval's strec)"),
):
    register(_entry)
del _entry
