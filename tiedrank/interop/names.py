"""Metric names across tools: other tools' names and measure objects in, theirs out.

* :func:`read_peer_metric` — trec_eval's names (``ndcg_cut.10``, ``ndcg_cut_10``, ``P_5``,
  ``recip_rank``), ranx's (``r-precision``, its ``-lN`` suffix: ``map-l2``) and ir_measures
  measure objects (:func:`from_ir_measures`: ``ir_measures.RR(rel=2)``) as tiedrank metrics.
  Plugged into the core (:data:`tiedrank.core.peers.PEERS`), so
  :func:`tiedrank.parse_metric` and every door read them;
* :func:`trec_eval_name`, :func:`ranx_name` — ``nDCG@10`` -> ``ndcg_cut_10`` / ``ndcg@10``,
  used by :meth:`tiedrank.Evaluation.to_trec_eval` and :meth:`~tiedrank.Evaluation.to_ranx`.

Which tool calls a metric what is declared by the registry entries
(:class:`~tiedrank.metrics.registry.MetricFamily` ``trec_eval``, ``trec_eval_cut``,
``ranx``); this module only reads and writes those declarations, so a measure that gains a
trec_eval name changes its entry, not this module. tiedrank's own spelling wins where the two
meet: ``rbp`` is tiedrank's binary RBP, trec_eval's ``rbp`` is ``RBP_graded``
(:data:`tiedrank.interop.trec_eval.MEASURES` reads trec_eval's ``-m rbp`` as trec_eval does).

:func:`from_ir_measures` is duck-typed (a measure has ``NAME`` and ``params``), so tiedrank
never imports ir_measures to read one. Each parameter is carried over or refused with a
message that says what to write instead; nothing is silently dropped.

Examples
--------
>>> class FakeMeasure:  # what ir_measures.P(rel=2)@10 holds
...     NAME, params = "P", {"rel": 2, "cutoff": 10}
>>> from_ir_measures(FakeMeasure()).name
'P(rel=2)@10'
>>> [parse_metric(m).name for m in ("ndcg_cut.10", "P_5", "recip_rank", "r-precision", "map-l2")]
['nDCG@10', 'P@5', 'RR', 'Rprec', 'AP(rel=2)']
"""
from __future__ import annotations

import functools
import re

from ..core.policies import POLICY_WRAPPERS
from ..core.validation import InvalidParameterError
from ..metrics import REGISTRY, Metric, family, parse_metric
from ..metrics.gain_maps import is_gain_map
from ..metrics.registry import MetricFamily, parse_text
from .trec_eval_params import GAIN_PAIRS

FAMILIES = ("RR", "P", "R", "AP", "nDCG", "Success", "Rprec", "Judged", "ERR", "SDCG",
            "Compat", "INSQ", "INST", "BPM", "alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA",
            "NRBP", "nNRBP", "P_IA", "AP_IA", "StRecall")
"""ir_measures measures with a tiedrank family of the same name and definition (``Judged``:
its judged provider's; ``ERR``: its gdeval provider's, which needs a cutoff; ``SDCG``: its
cwl_eval provider's, ``min_rel`` and ``max_rel`` carried over; ``INSQ``, ``INST``, ``BPM``:
its cwl_eval provider's too, ``T`` carried over and BPM's cutoff its K; the intent-aware
ones: its pyndeval provider's, ``alpha`` and ``beta`` carried over, a cutoff needed where
pyndeval needs one)."""


# ---- in ---------------------------------------------------------------------------------------
def read_peer_metric(item: object, subject: str) -> Metric | None:
    """The metric of another tool's name or measure object, None for anything else (which
    tiedrank's own grammar then reads): the core's :attr:`~tiedrank.core.peers.Peers.read_metric`.

    Read in this order, as the core asks after taking off a tie-policy wrapper: an
    ir_measures measure object; ranx's relevance-level suffix (``map-l2``: grade >= 2 is
    relevant, ``rel=2``); trec_eval's name with a cutoff (``ndcg_cut.10``, ``ndcg_cut_10``,
    ``P_5``); a name of trec_eval or ranx that tiedrank does not know (``recip_rank``,
    ``r-precision``), with an ``@k`` if given.
    """
    if not isinstance(item, str):
        return from_ir_measures(item) if _is_ir_measure(item) else None
    level = _RANX_LEVEL.match(item)
    if level:
        return _with_level(parse_text(level.group(1), subject), int(level.group(2)), subject)
    spelled = _as_tiedrank(item)
    return None if spelled is None else parse_text(spelled, subject)


def _is_ir_measure(item: object) -> bool:
    return hasattr(item, "NAME") and hasattr(item, "params")


_RANX_LEVEL = re.compile(r"^(.*\S)-l(\d+)\s*$", re.ASCII)


def _with_level(metric: Metric, level: int, subject: str) -> Metric:
    """ranx's ``-lN`` suffix: grade >= N is relevant, tiedrank's ``rel=N``."""
    if metric.entry.graded:
        raise InvalidParameterError(
            "-l", f"-l{level}", f"left out: ranx's -l{level} on {metric.family} drops the grades "
            f"below {level} from the gains, while tiedrank's {metric.family} uses every grade; "
            f"write {metric.name}, and set the grades below {level} to 0 in the qrels for "
            "ranx's number", subject=subject)
    if level < 1:
        raise InvalidParameterError("-l", f"-l{level}", "a level >= 1 (grade >= level is "
                                    "relevant), e.g. -l2", subject=subject)
    if metric.rel is not None and metric.rel != level:
        raise ValueError(f"{subject} sets the relevance level twice (rel={metric.rel} and "
                         f"-l{level}); write one")
    return Metric(**{**metric.__dict__, "rel": level})


def _as_tiedrank(text: str) -> str | None:
    """A peer's name in tiedrank's spelling (``ndcg_cut_10`` -> ``nDCG@10``, ``recip_rank``
    -> ``RR``), or None when ``text`` is no such name."""
    cut_pattern, cut_families, names = _peer_names(len(REGISTRY))
    cut = cut_pattern.match(text)
    if cut:
        return f"{cut_families[cut.group(1).lower()]}@{cut.group(2)}"
    base, at, k = text.strip().partition("@")
    if _known(base):  # tiedrank's own name wins: rbp is RBP (trec_eval's rbp is RBP_graded)
        return None
    found = names.get(base.lower())
    return None if found is None else found + at + k


@functools.lru_cache(maxsize=4)
def _peer_names(registered: int) -> tuple[re.Pattern, dict[str, str], dict[str, str]]:
    """From the registry's declarations (``registered`` entries; entries are only ever
    added): trec_eval's cutoff names as a pattern (``ndcg_cut.10``, ``P_5``), the family of
    each (lower case), and every trec_eval and ranx name, lower case -> family."""
    cuts = {(entry.trec_eval_cut or entry.trec_eval).lower(): entry.name
            for entry in REGISTRY.values() if entry.trec_eval and entry.cutoff != "none"}
    alternatives = "|".join(re.escape(name) for name in sorted(cuts, key=len, reverse=True))
    pattern = re.compile(rf"^\s*({alternatives})[._](\d+)\s*$", re.IGNORECASE | re.ASCII)
    names = {name.lower(): entry.name for entry in REGISTRY.values()
             for name in (entry.trec_eval, entry.ranx) if name}
    return pattern, cuts, names


def _known(name: str) -> bool:
    try:
        family(name)
    except KeyError:
        return False
    return True


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
    if measure.NAME == "SDCG" and params.get("dcg") == "log2":  # SDCG's only discount
        params.pop("dcg")
    args = ", ".join(f"{key}={value}" for key, value in params.items())
    text = measure.NAME + (f"({args})" if args else "") + ("" if cutoff is None else f"@{cutoff}")
    return parse_text(text, f"measure {shown}")


# ---- tiedrank's metrics under other tools' names (out) ------------------------------------------
def trec_eval_names() -> dict[str, str]:
    """trec_eval's measure name of each family it computes (``{"AP": "map", ...}``), as the
    registry entries declare them; cutoffs and parameters are added by :func:`trec_eval_name`."""
    return {entry.name: entry.trec_eval for entry in REGISTRY.values() if entry.trec_eval}


def ranx_names() -> dict[str, str]:
    """ranx's metric name of each family it computes (``{"RR": "mrr", ...}``)."""
    return {entry.name: entry.ranx for entry in REGISTRY.values() if entry.ranx}


TREC_EVAL_NAMES = trec_eval_names()
"""trec_eval's measure name of each metric family it computes (the registry's declarations
when this module was imported)."""
RANX_NAMES = ranx_names()
"""ranx's metric name of each metric family it computes."""

PRINTED_PARAMETERS: dict[str, tuple[str, bool]] = {
    "iprec_at_recall": ("_{:3.2f}", True), "Rprec_mult": ("_{:3.2f}", True),
    "set_F": ("_{:g}", False), "rbp": ("_p={:g}", False), "rbp_resid": ("_p={:g}", False),
    "utility": ("_{:g},{:g},{:g},{:g}", False),
}
"""How trec_eval appends a measure's parameters to its name (its printf formats): the format
of the values, and whether it appends them always (``Rprec_mult_0.20``) or only when they are
not the defaults (``set_F`` but ``set_F_0.5``; ``rbp`` but ``rbp_p=0.8``)."""


def trec_eval_name(metric: "str | Metric") -> str:
    """trec_eval's name of a metric (``nDCG@10`` -> ``ndcg_cut_10``); ours where it has none.

    >>> [trec_eval_name(m) for m in ("nDCG@10", "AP", "AP@5", "P@10", "RR", "TsRR2")]
    ['ndcg_cut_10', 'map', 'map_cut_5', 'P_10', 'recip_rank', 'TsRR2']
    >>> [trec_eval_name(m) for m in ("bpref", "set_F", "Rprec_mult(0.2)", "relative_P@5")]
    ['bpref', 'set_F', 'Rprec_mult_0.20', 'relative_P_5']
    >>> [trec_eval_name(m) for m in ("unj@5", "RBP_graded(p=0.8)", "utility(2, -1, 0, 0)")]
    ['unj_5', 'rbp_p=0.8', 'utility_2,-1,0,0']
    >>> [trec_eval_name(m) for m in ("iprec_at_recall(0.1)", "11pt_avg")]
    ['iprec_at_recall_0.10', '11pt_avg']
    >>> [trec_eval_name(m) for m in ("ndcg_rel(gain=1:3 2:9)", "RBP_graded(p=0.8, gain=1:3)")]
    ['ndcg_rel_1=3,2=9', 'rbp_p=0.8,1=3']
    """
    m = parse_metric(metric)
    if m.policy is not None:  # Expected(nDCG@10) -> Expected(ndcg_cut_10)
        return m.name.replace(unwrapped(m).name, trec_eval_name(unwrapped(m)), 1)
    entry: MetricFamily = m.entry
    base = entry.trec_eval
    if base is not None and m.k is None and set(m.settings) == {"gain"} \
            and is_gain_map(m.gain) and base in GAIN_PAIRS:  # ndcg_rel_1=3,2=9
        pairs = m.gain.replace(":", "=").replace(" ", ",")
        if base == "rbp":
            return f"rbp_p={m.p:g},{pairs}" if m.p != 0.9 else f"rbp_{pairs}"
        return f"{base}_{pairs}"
    if base is None or m.settings:
        return m.name
    if entry.parameters:
        printed = PRINTED_PARAMETERS.get(base)
        if printed is None:
            return m.name
        form, always = printed
        values = tuple(getattr(m, p.name) for p in entry.parameters)
        if always or values != tuple(p.default for p in entry.parameters):
            return base + form.format(*values)
        return base
    if m.k is None:
        return base
    return f"{entry.trec_eval_cut or base}_{m.k}"


def unwrapped(metric: Metric) -> Metric:
    """``metric`` without the tie policy a wrapper fixes (``Best(AP)`` -> ``AP``)."""
    return Metric(**{**metric.__dict__, "policy": None})


def ranx_name(metric: "str | Metric") -> str:
    """ranx's name of a metric (``Success@10`` -> ``hit_rate@10``); ours where it has none."""
    m = parse_metric(metric)
    if m.policy is not None:
        return m.name.replace(unwrapped(m).name, ranx_name(unwrapped(m)), 1)
    base = m.entry.ranx
    if base is None or m.settings:
        return m.name
    return base if m.k is None else f"{base}@{m.k}"


# ---- the list of every measure (``tiedrank metrics``) ------------------------------------------
CATALOGUE_COLUMNS = ("metric", "forms", "aliases", "trec_eval", "ranx", "ir_measures",
                     "definition")


def metric_catalogue() -> "pd.DataFrame":
    """One row per metric family, in the registry's order: how to write it in tiedrank
    (``forms``, ``aliases``), what trec_eval (its ``-m`` forms), ranx and ir_measures call it
    (empty where the tool has no such measure) and its one-line definition; all read from the
    registry's declarations (what ``tiedrank metrics`` prints).

    >>> table = metric_catalogue().set_index("metric")
    >>> table.loc["AP", ["forms", "aliases", "trec_eval", "ranx", "ir_measures"]].tolist()
    ['AP, AP@k', 'MAP', 'map, map_cut.k', 'map, map@k', 'AP, AP@k']
    >>> table.loc["Success", ["trec_eval", "ranx"]].tolist()
    ['success.k', 'hit_rate@k']
    """
    import pandas as pd  # local: pandas is not needed to read a metric's name

    rows = []
    for entry in REGISTRY.values():
        rows.append({
            "metric": entry.name, "forms": ", ".join(entry.forms),
            "aliases": ", ".join(entry.aliases),
            "trec_eval": _with_cutoff(entry, entry.trec_eval, entry.trec_eval_cut, "."),
            "ranx": _with_cutoff(entry, entry.ranx, None, "@"),
            "ir_measures": ", ".join(entry.forms) if entry.name in FAMILIES else "",
            "definition": entry.definition})
    return pd.DataFrame(rows, columns=list(CATALOGUE_COLUMNS))


def _with_cutoff(entry: MetricFamily, base: str | None, cut: str | None, joint: str) -> str:
    """A peer's forms of a family: ``map, map_cut.k`` (trec_eval), ``precision@k`` (ranx)."""
    if not base:
        return ""
    at_k = f"{cut or base}{joint}k"
    return {"none": base, "optional": f"{base}, {at_k}", "required": at_k}[entry.cutoff]
