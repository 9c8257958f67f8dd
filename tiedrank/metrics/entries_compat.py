"""The registry entry of Compat (Clarke, Vtyurina & Smucker 2020, "Assessing top-k
preferences"; ir_measures' ``Compat(p=0.95, normalize=True)``): rank-biased overlap between
the run and the ideal ranking, exact under ties (kernel in :mod:`tiedrank.metrics.compat`;
closed forms and proofs in docs/metrics-reference.md, section 3h). ir_measures' ``Compat``
object is read as this family, ``p`` and ``normalize`` carried over
(:data:`tiedrank.interop.names.FAMILIES`).

Examples
--------
>>> from tiedrank.metrics import parse_metric
>>> parse_metric("Compat").name, parse_metric("compat(p=0.8, normalize=False)").name
('Compat(p=0.95)', 'Compat(p=0.8, normalize=False)')
"""
from __future__ import annotations

import math

from . import compat
from .registry import MetricFamily, Parameter, register

_PERSISTENCE = Parameter("p", 0.95, lambda p: math.isfinite(p) and 0 < p < 1, "in (0, 1)",
                         "number in (0, 1)", "p=p")
_NORMALIZE = Parameter("normalize", 1.0, lambda v: v in (0.0, 1.0), "True or False",
                       "True|False", "normalize=True", shown_at_default=False, boolean=True)

register(MetricFamily(
    "Compat", lambda t, m, g: compat.compat(t, m.p, bool(m.normalize), m.name),
    cutoff="none", graded=True, parameters=(_PERSISTENCE, _NORMALIZE),
    usage=("Compat(p=p)", "Compat(p=p, normalize=False)"),
    fixed_gain="the grades' order alone (the ideal ranking sorts the positive grades "
               "descending)",
    description="compatibility (Clarke, Vtyurina & Smucker 2020; ir_measures' Compat): "
                "rank-biased overlap, persistence p (default 0.95), between the run and the "
                "ideal ranking (the positively graded documents by grade descending, one "
                "grade's documents in the run's order), to depth max(retrieved, R), over that "
                "of the ideal ranking with itself (normalize=False: over the weights' sum)"))
