"""The entries of the registry for tiedrank's own measures and trec_eval's: one declarative
:class:`~tiedrank.metrics.registry.MetricFamily` per family (aliases, cutoff rule, parameters,
kernel, and as data the names trec_eval and ranx give it), registered when
:mod:`tiedrank.metrics` is imported. The declarations and the parser are
:mod:`tiedrank.metrics.registry`; the measures of ir_measures, gdeval and TRM beyond trec_eval
are :mod:`tiedrank.metrics.entries_peers`.

Examples
--------
>>> from tiedrank.metrics import REGISTRY
>>> REGISTRY["AP"].trec_eval, REGISTRY["AP"].ranx
('map', 'map')
"""
from __future__ import annotations

import math

from . import inferred as INF
from . import interpolated
from . import kernels as K
from . import trec_gains as TG
from .registry import SET_NOTE, UNJUDGED_NOTE, Kernel, MetricFamily, Parameter, register

# ---- the entries ---------------------------------------------------------------------------
def _trec(name: str, kernel: Kernel, **fields) -> MetricFamily:
    """A family that trec_eval computes under the same name (``trec_eval=name``)."""
    return MetricFamily(name, kernel, trec_eval=name, **fields)


_ALPHA = Parameter("alpha", 1.0, lambda a: math.isfinite(a) and a > 0, "> 0",
                   "positive number", "alpha=a")

for _entry in (
    MetricFamily("RR", lambda t, m, g: K.reciprocal_rank(t, m.k), aliases=("MRR", "MTRR"),
                 trec_eval="recip_rank", trec_eval_cut="recip_rank_cut", ranx="mrr",
                 description="reciprocal rank of the first relevant document (0 beyond k)"),
    MetricFamily("Success", lambda t, m, g: K.success(t, m.k), cutoff="required",
                 aliases=("HitRate", "hit_rate", "TMHits"), trec_eval="success",
                 ranx="hit_rate",
                 description="whether a relevant document is in the top k (a rate: ranx's hit_rate)"),
    MetricFamily("Hits", lambda t, m, g: K.relevant_in_top(t, m.k), cutoff="required",
                 ranx="hits",
                 description="number of relevant documents in the top k (a count, as ranx and "
                             "TRM; = k * P@k)"),
    _trec("P", lambda t, m, g: K.precision(t, m.k), cutoff="required",
          aliases=("precision",), ranx="precision",
          description="relevant documents in the top k, over k"),
    MetricFamily("R", lambda t, m, g: K.recall(t, m.k), cutoff="required", aliases=("recall",),
                 trec_eval="recall", ranx="recall",
                 description="relevant documents in the top k, over all relevant documents"),
    MetricFamily("AP", lambda t, m, g: K.average_precision(t, m.k), aliases=("MAP",),
                 trec_eval="map", trec_eval_cut="map_cut", ranx="map",
                 description="average precision (over the top k)"),
    MetricFamily("nDCG", lambda t, m, g: K.ndcg(t, m.k, g), graded=True,
                 trec_eval="ndcg", trec_eval_cut="ndcg_cut", ranx="ndcg",
                 description="DCG over the ideal DCG of the qrels (gain= linear or exp)"),
    MetricFamily("DCG", lambda t, m, g: K.dcg(t, m.k, g), usage=("DCG@k",), graded=True,
                 description="discounted cumulative gain, 1/log2(rank+1) discount"),
    _trec("Rprec", lambda t, m, g: K.r_precision(t), cutoff="none",
          ranx="r-precision",
          description="precision in the top R, R = relevant documents of the query"),
    MetricFamily("TsRR", lambda t, m, g: K.tsrr(t, m.alpha), cutoff="none",
                 parameters=(_ALPHA,), tie_aware_by_definition=True,
                 description="tie-sensitive reciprocal rank (v1), penalising ties by alpha"),
    MetricFamily("TsRR2", lambda t, m, g: K.tsrr2(t), cutoff="none",
                 tie_aware_by_definition=True,
                 description="tie-sensitive reciprocal rank, October 2025 revision"),
    MetricFamily("MTRR_GRAG", lambda t, m, g: K.mtrr_grag(t), cutoff="none",
                 tie_aware_by_definition=True,
                 description="G-RAG's MTRR: mean of 1/middle rank of the retrieved positives"),
    MetricFamily("TMHits_GRAG", lambda t, m, g: K.tmhits_grag(t, m.k), cutoff="required",
                 tie_aware_by_definition=True,
                 description="G-RAG's TMHits@k, each tie group's share clipped to [0, 1]"),
):
    register(_entry)
del _entry

# ---- trec_eval's further measures (named as trec_eval names them) ---------------------------
_BETA = Parameter("beta", 1.0, lambda b: math.isfinite(b) and b >= 0, ">= 0",
                  "number >= 0", "beta=b")
_PERSISTENCE = Parameter("p", 0.9, lambda p: math.isfinite(p) and 0 < p < 1, "in (0, 1)",
                         "number in (0, 1)", "p=p")
_MULT = Parameter("mult", 1.0, lambda m: math.isfinite(m) and m > 0, "> 0",
                  "positive number", "mult=m")
_SET = dict(cutoff="none", order_independent=True)

for _entry in (
    _trec("num_ret", lambda t, m, g: K.num_retrieved(t), summary="sum", **_SET,
          description="number of documents retrieved (summary: the sum, as trec_eval)"
                      + SET_NOTE),
    _trec("num_rel", lambda t, m, g: K.num_relevant(t), summary="sum", **_SET,
          description="number of relevant documents in the qrels (summary: the sum)"
                      + SET_NOTE),
    _trec("num_rel_ret", lambda t, m, g: K.num_relevant_retrieved(t), summary="sum",
          **_SET, description="number of relevant documents retrieved (summary: the "
                              "sum)" + SET_NOTE),
    _trec("num_nonrel_judged_ret", lambda t, m, g: K.num_nonrelevant_judged_retrieved(t),
          summary="sum", view="whole", **_SET,
          description="number of judged non-relevant documents retrieved (summary: the "
                      "sum)" + SET_NOTE),
    _trec("set_P", lambda t, m, g: K.set_precision(t), **_SET,
          description="set precision: num_rel_ret / num_ret" + SET_NOTE),
    _trec("set_recall", lambda t, m, g: K.set_recall(t), **_SET,
          description="set recall: num_rel_ret / num_rel" + SET_NOTE),
    _trec("set_F", lambda t, m, g: K.set_f(t, m.beta), parameters=(_BETA,), **_SET,
          description="set F: (beta+1) P R / (beta P + R), beta default 1 (trec_eval's "
                      "set_F.1)" + SET_NOTE),
    _trec("set_relative_P", lambda t, m, g: K.set_relative_precision(t), **_SET,
          description="num_rel_ret / min(num_ret, num_rel)" + SET_NOTE),
    _trec("set_map", lambda t, m, g: K.set_map(t), **_SET,
          description="unranked AP: num_rel_ret^2 / (num_ret num_rel)" + SET_NOTE),
    _trec("bpref", lambda t, m, g: K.bpref(t), cutoff="none", view="judged",
          description="binary preference: per relevant document retrieved, 1 - "
                      "min(judged non-relevant above, R) / min(N, R), over R"),
    MetricFamily("RBP", lambda t, m, g: K.rbp(t, m.p), cutoff="none",
                 parameters=(_PERSISTENCE,),
                 description="rank-biased precision (1-p) sum rel_i p^(i-1), binary relevance "
                             "(Moffat & Zobel; trec_eval 10's rbp grades the gains), p default "
                             "0.9"),
    _trec("Rprec_mult", lambda t, m, g: K.r_precision_mult(t, m.mult), cutoff="none",
          parameters=(_MULT,),
          description="precision at floor(mult * R + 0.9) documents (trec_eval's "
                      "Rprec_mult_<mult>)"),
    _trec("relative_P", lambda t, m, g: K.relative_precision(t, m.k), cutoff="required",
          description="relevant documents in the top k over min(k, R)"),
    _trec("gm_map", lambda t, m, g: K.average_precision(t), cutoff="none",
          summary="geometric", aliases=("GMAP",),
          description="AP per query; the summary is the geometric mean with trec_eval's "
                      "floor 0.00001; expected: the geometric mean of the per-query "
                      "expectations, not the expectation of the geometric mean"),
    _trec("gm_bpref", lambda t, m, g: K.bpref(t), cutoff="none", view="judged",
          summary="geometric",
          description="bpref per query; the summary is the geometric mean with "
                      "trec_eval's floor 0.00001; expected: the geometric mean of the "
                      "per-query expectations, not the expectation of the geometric mean"),
):
    register(_entry)
del _entry

# ---- trec_eval's all_trec measures of gains and unjudged documents (metrics/trec_gains.py) ---
_COEFFICIENTS = tuple(
    Parameter(name, default, math.isfinite, "a finite number", "number", f"{name}=c{i}")
    for i, (name, default) in enumerate(zip(("rel_ret", "nonrel_ret", "rel_missed",
                                             "nonrel_missed"), TG.UTILITY_DEFAULTS), start=1)) + (
    Parameter("docs", 0.0, lambda d: math.isfinite(d) and d >= 0 and d == int(d),
              "an integer >= 0", "integer >= 0 (documents in the collection, trec_eval -N)",
              "docs=N", shown_at_default=False),)

for _entry in (
    _trec("utility", lambda t, m, g: TG.utility(t, (m.rel_ret, m.nonrel_ret, m.rel_missed,
                                                    m.nonrel_missed), m.docs),
          parameters=_COEFFICIENTS, **_SET,
          description="trec_eval's set utility: rel_ret * rel retrieved + nonrel_ret * "
                      "non-relevant retrieved + rel_missed * relevant missed + "
                      "nonrel_missed * (docs - the retrieved and relevant documents; docs: "
                      "the collection's size, trec_eval's -N, default 0); default 1, -1, "
                      "0, 0" + SET_NOTE),
    _trec("unj", lambda t, m, g: TG.unjudged_at(t, m.k), cutoff="required",
          view="qrels", extremes=lambda t, m, best: TG.unjudged_extreme(t, m.k, best),
          description="trec_eval's unj_k: unjudged documents in the top k, over k" + UNJUDGED_NOTE),
    MetricFamily("RBP_graded", lambda t, m, g: TG.rbp_graded(t, m.p, m.gain), cutoff="none",
                 trec_eval="rbp",
                 parameters=(_PERSISTENCE,), aliases=("rbp_graded",),
                 description="trec_eval 10's rbp: (1-p) sum gain_i p^(i-1), gain = grade / top "
                             "grade of the query (graded; RBP is binary), p default 0.9"),
    _trec("rbp_resid", lambda t, m, g: TG.rbp_residual(t, m.p), cutoff="none",
          parameters=(_PERSISTENCE,), view="qrels",
          extremes=lambda t, m, best: TG.rbp_residual_extreme(t, m.p, best),
          description="trec_eval's rbp residual: p^N + (1-p) sum over unjudged "
                      "documents of p^(i-1), what rbp could gain were they relevant"
                      + UNJUDGED_NOTE),
    _trec("binG", lambda t, m, g: TG.binary_g(t), cutoff="none",
          description="trec_eval's binG: per relevant document retrieved, 1 / log2(2 + "
                      "non-relevant documents above), over R"),
    _trec("ndcg_rel", lambda t, m, g: TG.ndcg_rel(t, m.gain), cutoff="none",
          description="trec_eval's ndcg_rel: nDCG (gain = grade) read at each positively "
                      "graded document, the missed ones at the end, averaged (gain= a map: "
                      "trec_eval's ndcg_rel.1=3,2=9)"),
    _trec("Rndcg", lambda t, m, g: TG.r_level_ndcg(t, m.gain), cutoff="none",
          description="trec_eval's Rndcg: nDCG (gain = grade) averaged at the R levels, "
                      "where the ideal gain changes, and at num_ret (gain= a map: trec_eval's "
                      "Rndcg.1=3,2=9)"),
):
    register(_entry)
del _entry

# ---- trec_eval's infAP and G: counts above a document, lattice programmes (metrics/inferred.py)
for _entry in (
    _trec("infAP", lambda t, m, g: INF.inferred_ap(t), cutoff="none", view="qrels",
          extremes=lambda t, m, best: INF.inferred_ap_extreme(t, best),
          description="trec_eval's inferred AP (Yilmaz & Aslam): per relevant document "
                      "retrieved, precision above it estimated from the judged and pooled "
                      "documents there, over R. Needs the whole table; its best and worst "
                      "are computed, not the grade orders"),
    _trec("G", lambda t, m, g: INF.normalized_gain(t, m.gain), cutoff="none",
          extremes=lambda t, m, best: INF.normalized_gain_extreme(t, best, m.gain),
          description="trec_eval's normalized gain G: per document, gain / log2(2 + ideal "
                      "cost - gains so far), over the ideal total (gain = grade, or a gain "
                      "map: G(gain=1:3 2:9) is trec_eval's G.1=3,2=9); its best and worst "
                      "are computed, not the grade orders"),
):
    register(_entry)
del _entry
# ---- trec_eval's interpolated precision (tiedrank/metrics/interpolated.py) -------------------
_RECALL = Parameter("recall", 0.0, lambda r: math.isfinite(r) and 0 <= r <= 1, "in [0, 1]",
                    "number in [0, 1]", "recall=r")
for _entry in (
    _trec("iprec_at_recall", lambda t, m, g: interpolated.interpolated_precision(
              t, m.recall), cutoff="none", parameters=(_RECALL,),
          description="interpolated precision at a recall level: max of j/rank_j over "
                      "the j-th relevant documents, j >= lround(recall * R) (trec_eval's "
                      "iprec_at_recall_<recall>; -m iprec_at_recall: the 11 levels)"),
    _trec("11pt_avg", lambda t, m, g: interpolated.eleven_point_average(
              t, m.levels or interpolated.RECALL_LEVELS),
          cutoff="none", levels=interpolated.RECALL_LEVELS,
          usage=("11pt_avg", "11pt_avg(levels=r1 r2 ...)"),
          description="mean of iprec_at_recall at the recall levels 0.0, 0.1, ..., 1.0 "
                      "or those given (trec_eval's 11pt_avg, 11pt_avg..25,.5,.75)"),
):
    register(_entry)
del _entry
# ---- end of trec_eval's interpolated precision -------------------------------------------------
