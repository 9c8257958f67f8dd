"""Metric names across tools: ir_measures measure objects in, trec_eval and ranx names out.

* :func:`from_ir_measures` — ``ir_measures.RR(rel=2)`` -> tiedrank's ``RR(rel=2)``;
* :func:`trec_eval_name`, :func:`ranx_name` — ``nDCG@10`` -> ``ndcg_cut_10`` / ``ndcg@10``,
  used by :meth:`tiedrank.Evaluation.to_trec_eval` and :meth:`~tiedrank.Evaluation.to_ranx`.

:func:`from_ir_measures` is duck-typed (a measure has ``NAME`` and ``params``), so tiedrank never imports ir_measures
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

from ..metrics import Metric, parse_metric
from ..metrics.registry import parse_text
from ..core.policies import POLICY_WRAPPERS
from ..core.validation import InvalidParameterError

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
    if measure.NAME in POLICY_WRAPPERS:  # Expected(nDCG@10): the wrapped measure, one policy
        inner = parse_metric(dict(measure.params).get("measure"))
        return parse_text(f"{measure.NAME}({inner.name})", f"measure {shown}")
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


# ---- tiedrank's metrics under other tools' names (output) -----------------------------------
TREC_EVAL_NAMES = {"RR": "recip_rank", "P": "P", "R": "recall", "AP": "map", "nDCG": "ndcg",
                   "Rprec": "Rprec", "Success": "success", "relative_P": "relative_P",
                   **{name: name for name in (
                       "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_P",
                       "set_recall", "set_relative_P", "set_map", "bpref", "gm_map",
                       "gm_bpref", "unj", "binG", "ndcg_rel", "Rndcg", "11pt_avg")},
                   "RBP_graded": "rbp", "rbp_resid": "rbp_resid", "utility": "utility",
                   "infAP": "infAP", "G": "G"}
"""trec_eval's measure name of each metric family it computes (cutoffs are added by
:func:`trec_eval_name`)."""
RANX_NAMES = {"RR": "mrr", "P": "precision", "R": "recall", "AP": "map", "nDCG": "ndcg",
              "Rprec": "r-precision", "Success": "hit_rate", "Hits": "hits"}
"""ranx's metric name of each metric family it computes."""


def trec_eval_name(metric: str) -> str:
    """trec_eval's name of a metric (``nDCG@10`` -> ``ndcg_cut_10``); ours where it has none.

    >>> [trec_eval_name(m) for m in ("nDCG@10", "AP", "AP@5", "P@10", "RR", "TsRR2")]
    ['ndcg_cut_10', 'map', 'map_cut_5', 'P_10', 'recip_rank', 'TsRR2']
    >>> [trec_eval_name(m) for m in ("bpref", "set_F", "Rprec_mult(0.2)", "relative_P@5")]
    ['bpref', 'set_F', 'Rprec_mult_0.20', 'relative_P_5']
    >>> [trec_eval_name(m) for m in ("unj@5", "RBP_graded(p=0.8)", "utility(2, -1, 0, 0)")]
    ['unj_5', 'rbp_p=0.8', 'utility_2,-1,0,0']
    >>> [trec_eval_name(m) for m in ("iprec_at_recall(0.1)", "11pt_avg")]
    ['iprec_at_recall_0.10', '11pt_avg']
    """
    m = parse_metric(metric)
    if m.policy is not None:  # Expected(nDCG@10) -> Expected(ndcg_cut_10)
        return m.name.replace(unwrapped(m).name, trec_eval_name(unwrapped(m)), 1)
    if m.family == "iprec_at_recall" and not m.settings:  # "%3.2f", as trec_eval appends it
        return f"iprec_at_recall_{m.recall:3.2f}"
    if m.family in ("set_F", "Rprec_mult") and not m.settings:
        # trec_eval appends a parameter it was given: Rprec_mult_0.20 ("%3.2f"); set_F
        # with its default beta prints as set_F
        if m.family == "Rprec_mult":
            return f"Rprec_mult_{m.mult:3.2f}"
        return "set_F" if m.beta == 1 else f"set_F_{m.beta:g}"
    if m.family in ("RBP_graded", "rbp_resid") and not m.settings:
        # trec_eval prints a given persistence as rbp_p=0.8
        base = TREC_EVAL_NAMES[m.family]
        return base if m.p == 0.9 else f"{base}_p={m.p:g}"
    if m.family == "utility" and not m.settings:
        given = (m.rel_ret, m.nonrel_ret, m.rel_missed, m.nonrel_missed)
        return "utility" if given == (1, -1, 0, 0) else "utility_" + ",".join(f"{c:g}" for c in given)
    base = TREC_EVAL_NAMES.get(m.family)
    if base is None or m.alpha is not None or m.settings:
        return m.name
    if m.k is None:
        return base
    cut = {"AP": "map_cut", "nDCG": "ndcg_cut", "RR": "recip_rank_cut"}.get(m.family, base)
    return f"{cut}_{m.k}"


def unwrapped(metric: Metric) -> Metric:
    """``metric`` without the tie policy a wrapper fixes (``Best(AP)`` -> ``AP``)."""
    return Metric(**{**metric.__dict__, "policy": None})


def ranx_name(metric: str) -> str:
    """ranx's name of a metric (``Success@10`` -> ``hit_rate@10``); ours where it has none."""
    m = parse_metric(metric)
    if m.policy is not None:
        return m.name.replace(unwrapped(m).name, ranx_name(unwrapped(m)), 1)
    base = RANX_NAMES.get(m.family)
    if base is None or m.settings:
        return m.name
    return base if m.k is None else f"{base}@{m.k}"
