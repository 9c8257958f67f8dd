"""The entries of the registry for measures other tools print beyond trec_eval: ir_measures'
``Judged@k``, TRM's and McSherry & Najork's ``F1@k``, ``NCG@k``, gdeval's ``ERR@k`` with
its normalisation ``nERR@k``, and C/W/L's scaled DCG ``SDCG@k``, each tie-aware (ir_measures' ``Judged`` and ``ERR`` objects are
read as these families by :data:`tiedrank.interop.names.FAMILIES`) (kernels in :mod:`tiedrank.metrics.peer_kernels`
and :mod:`tiedrank.metrics.cascade`; closed forms in docs/metrics-reference.md).

Examples
--------
>>> from tiedrank.metrics import REGISTRY
>>> REGISTRY["F1"].ranx, REGISTRY["ERR"].cutoff, REGISTRY["Judged"].cutoff
('f1', 'required', 'optional')
"""
from __future__ import annotations

from . import cascade
from . import peer_kernels as PK
from .registry import MetricFamily, Parameter, register

_GDEVAL_GAIN = ("gdeval's stop probability (2^grade - 1) / 16, grades 0..4 (gdeval's "
                "MAX_JUDGMENT; a qrels grade above 4 is refused, as gdeval refuses it)")

_REL_BOUND = dict(accepts=lambda v: v == v and 0 <= v < 2**31 and v == int(v),
                  requirement="an integer >= 0", hint="integer >= 0")
_MIN_REL = Parameter("min_rel", 0.0, placeholder="min_rel=g0", shown_at_default=False,
                     **_REL_BOUND)
_MAX_REL = Parameter("max_rel", 1.0, lambda v: v == v and 1 <= v < 2**31 and v == int(v),
                     "an integer >= 1 (above min_rel)", "integer >= 1", "max_rel=g1")

for _entry in (
    MetricFamily("Judged", lambda t, m, g: PK.judged_at(t, m.k), view="qrels",
                 order_independent_without_cutoff=True,
                 counts_without_relevance="Judged counts the documents present in the qrels, "
                                          "whatever their grade (no relevance level)",
                 extremes=lambda t, m, best: PK.judged_extreme(t, m.k, best),
                 description="share of the top min(k, retrieved) documents that are in the "
                             "qrels, whatever their grade (ir_measures' Judged@k: how many "
                             "unjudged documents a run surfaces); its best and worst put the "
                             "qrels documents first or last in each group"),
    MetricFamily("F1", lambda t, m, g: PK.f1_at(t, m.k), cutoff="required", ranx="f1",
                 description="harmonic mean of P@k and R@k, 2 X / (k + R) with X relevant "
                             "documents in the top k (TRM's and McSherry & Najork's F1@k, "
                             "ranx's f1)"),
    MetricFamily("NCG", lambda t, m, g: PK.ncg(t, m.k, g), graded=True,
                 order_independent_without_cutoff=True,
                 description="normalised cumulative gain: the gains in the top k over the k "
                             "largest gains of the qrels (no discount; gain= linear or exp)"),
    MetricFamily("ERR", lambda t, m, g: cascade.expected_err(t, m.k, m.name), cutoff="required",
                 graded=True, fixed_gain=_GDEVAL_GAIN,
                 description="expected reciprocal rank as gdeval computes it: sum over the top "
                             "k of R_i / i times the chance of reading on to i, R = (2^grade "
                             "- 1) / 16, grades 0..4"),
    MetricFamily("nERR", lambda t, m, g: cascade.expected_nerr(t, m.k, m.name), cutoff="required",
                 graded=True, fixed_gain=_GDEVAL_GAIN,
                 description="ERR@k over ERR@k of the ideal ranking (the qrels' grades sorted "
                             "descending; ndeval's nERR-IA with one intent)"),
    MetricFamily("SDCG", lambda t, m, g: PK.sdcg(t, m.k, m.min_rel, m.max_rel),
                 cutoff="required", graded=True, parameters=(_MAX_REL, _MIN_REL),
                 usage=("SDCG(max_rel=g1)@k",),  # min_rel= (default 0) as ir_measures
                 fixed_gain="the grade clipped into [min_rel, max_rel] and scaled to [0, 1] "
                            "(cwl_eval's gains)",
                 description="C/W/L's scaled DCG (ir_measures' SDCG, cwl_eval): DCG@k of the "
                             "grades clipped into [min_rel, max_rel] and scaled to [0, 1], over "
                             "the DCG of k top-gain documents; max_rel default 1 (binary), write "
                             "SDCG(max_rel=3)@10 for grades 0..3; min_rel= (default 0) maps "
                             "the grades below it to 0"),
):
    register(_entry)
del _entry
