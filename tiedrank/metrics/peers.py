"""ir_measures measure objects as tiedrank metrics: ``ir_measures.RR(rel=2)`` -> ``RR(rel=2)``.

Duck-typed (a measure has ``NAME`` and ``params``), so tiedrank never imports ir_measures
to read one. Each parameter is carried over or refused with a message that says what to
write instead; nothing is silently dropped.

Examples
--------
>>> class FakeMeasure:  # what ir_measures.P(rel=2)@10 holds
...     NAME, params = "P", {"rel": 2, "cutoff": 10}
>>> from_ir_measures(FakeMeasure()).name
'P(rel=2)@10'
"""
from __future__ import annotations

from ..validation import InvalidParameterError
from .registry import Metric, parse_text

FAMILIES = ("RR", "P", "R", "AP", "nDCG", "Success", "Rprec")
"""ir_measures measures with a tiedrank family of the same name and definition."""


def from_ir_measures(measure) -> Metric:
    """The tiedrank metric of an ir_measures measure, parameters included.

    ``cutoff`` becomes ``@k``, ``rel``, ``judged_only`` and nDCG's ``dcg`` (``'log2'``: the
    grade as gain, ``'exp-log2'``: 2**grade - 1) are kept; nDCG's custom ``gains`` mapping and
    measures tiedrank does not compute raise ``ValueError`` naming the measure and what to
    write instead.
    """
    shown = repr(measure)
    if measure.NAME not in FAMILIES:
        raise ValueError(f"ir_measures measure {shown} has no tie-aware counterpart in tiedrank; "
                         f"use one of {', '.join(FAMILIES)} (with cutoff, rel=, judged_only=), "
                         f"or evaluate {shown} with ir_measures itself")
    params = dict(measure.params)
    cutoff = params.pop("cutoff", None)
    if params.get("gains") is not None:
        raise InvalidParameterError(
            "gains", params["gains"], "left out: tiedrank's nDCG gain is the grade "
            "(dcg='log2') or 2**grade - 1 (dcg='exp-log2'); write nDCG@10 or "
            "nDCG(dcg='exp-log2')@10, or map the grades in the qrels", subject=f"measure {shown}")
    params.pop("gains", None)
    args = ", ".join(f"{key}={value}" for key, value in params.items())
    text = measure.NAME + (f"({args})" if args else "") + ("" if cutoff is None else f"@{cutoff}")
    return parse_text(text, f"measure {shown}")
