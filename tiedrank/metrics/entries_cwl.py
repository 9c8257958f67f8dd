"""The entries of the registry for C/W/L's adaptive and static user models as cwl_eval
computes them (ir_measures' ``INSQ``, ``INST`` and ``BPM`` objects, its cwl_eval provider):
``INSQ(T=t, max_rel=g)``, ``INST(T=t, max_rel=g)`` and ``BPM(T=t, max_rel=g)@K``, each
tie-aware (kernels in :mod:`tiedrank.metrics.cwl`; definitions and the exact method in
docs/metrics-reference.md, 3i). ``T`` is the gain the user wants (on the scaled gains,
default 1); the gains are SDCG's: the grade clipped into [min_rel, max_rel], scaled to
[0, 1].

Examples
--------
>>> from tiedrank.metrics import REGISTRY, parse_metric
>>> REGISTRY["BPM"].cutoff, REGISTRY["INST"].cutoff
('required', 'none')
>>> parse_metric("INST(T=2, max_rel=3)").name, parse_metric("BPM(max_rel=3)@10").name
('INST(T=2, max_rel=3)', 'BPM(max_rel=3)@10')
"""
from __future__ import annotations

from . import cwl, cwl_bpm
from .registry import MetricFamily, Parameter, register

# ir_measures' min_rel and max_rel, as SDCG takes them (entries_peers.py): integers, max_rel
# above min_rel (checked by the kernels, which name the measure)
MIN_REL = Parameter("min_rel", 0.0, lambda v: v == v and 0 <= v < 2**31 and v == int(v),
                    "an integer >= 0", "integer >= 0", "min_rel=g0", shown_at_default=False)
MAX_REL = Parameter("max_rel", 1.0, lambda v: v == v and 1 <= v < 2**31 and v == int(v),
                    "an integer >= 1 (above min_rel)", "integer >= 1", "max_rel=g1")

GAIN_WANTED = Parameter("T", 1.0, lambda v: v == v and 0 < v <= 1e6,
                        "a number > 0 (the gain the user wants, on the gains scaled to [0, 1])",
                        "number > 0", "T=t", shown_at_default=False)
_CWL_GAIN = ("the grade clipped into [min_rel, max_rel] and scaled to [0, 1] (cwl_eval's "
             "gains, as ir_measures feeds them)")


def _insq(t, m, g):
    return cwl.insq(t, m.T, m.min_rel, m.max_rel, m.name)


def _inst(t, m, g, extreme=None):
    return cwl.inst(t, m.T, m.min_rel, m.max_rel, m.name, extreme)


def _bpm(t, m, g, extreme=None):
    summary = cwl_bpm.bpm_summary(t, m.T, m.k, m.min_rel, m.max_rel, m.name)
    return summary[0 if extreme is None else (1 if extreme else 2)]


for _entry in (
    MetricFamily("INSQ", _insq, cutoff="none", graded=True,
                 parameters=(GAIN_WANTED, MAX_REL, MIN_REL),
                 usage=("INSQ(max_rel=g1)",), fixed_gain=_CWL_GAIN,
                 description="C/W/L's INSQ (Moffat et al. 2012; cwl_eval, ir_measures' "
                             "INSQ): the rate of gain under continuation ((i + 2T) / (i + 1 + "
                             "2T))^2 over cwl_eval's 1000 places; linear in the gains (exact "
                             "at any size); T= the gain wanted (default 1), max_rel= the top "
                             "grade (default 1)"),
    MetricFamily("INST", _inst, cutoff="none", graded=True,
                 parameters=(GAIN_WANTED, MAX_REL, MIN_REL),
                 usage=("INST(max_rel=g1)",), fixed_gain=_CWL_GAIN,
                 extremes=lambda t, m, best: _inst(t, m, None, best),
                 description="C/W/L's INST (Moffat et al. 2015; cwl_eval, ir_measures' "
                             "INST): INSQ whose continuation adapts to the gain still wanted, "
                             "T_i = T minus the gain gathered; exact by enumerating each tie "
                             "group's distinct gain sequences (a query needing more than "
                             "65,536 is refused)"),
    MetricFamily("BPM", _bpm, cutoff="required", graded=True,
                 parameters=(GAIN_WANTED, MAX_REL, MIN_REL), usage=("BPM(max_rel=g1)@k",),
                 fixed_gain=_CWL_GAIN, extremes=lambda t, m, best: _bpm(t, m, None, best),
                 description="C/W/L's static Bejeweled Player Model (Zhang et al. 2017; "
                             "cwl_eval, ir_measures' BPM@K): the user reads until the gain "
                             "gathered reaches T or K documents are read, and the value is "
                             "that gain over the documents read; exact at any size (one tie "
                             "group per query decides it: its hypergeometric compositions "
                             "below T)"),
):
    register(_entry)
del _entry
