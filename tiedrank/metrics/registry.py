"""The metric registry: one declarative entry per metric family, and the parser over it.

Each :class:`MetricFamily` says everything the rest of the package needs to know about a
metric: its canonical name, the aliases it answers to, whether it takes a cutoff ``@k``
(``"none"``, ``"optional"`` or ``"required"``), its parameters (TsRR's ``alpha``), the kernel
of :mod:`tiedrank.metrics.kernels` that computes it, whether it is tie-aware by definition
(the same value under every tie policy) and one line for people. :func:`parse_metric`,
:func:`metric_values` and :data:`METRIC_NAMES` are derived from the entries, so adding a
metric is one :func:`register` call plus its kernel.

Examples
--------
>>> REGISTRY["nDCG"].cutoff, REGISTRY["nDCG"].aliases
('optional', ())
>>> family("hit_rate").name, family("hits").name
('Success', 'Hits')
"""
from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..ties import TieTable
from ..validation import Options, check
from . import kernels as K

CUTOFF_RULES = ("none", "optional", "required")
"""Whether a family takes ``@k``: never, optionally, or always."""

Kernel = Callable[[TieTable, "Metric", str], np.ndarray]
"""``kernel(table, metric, gain) -> one float per query of the table``."""


@dataclass(frozen=True)
class Parameter:
    """A numeric parameter written in parentheses: ``TsRR(alpha=2)`` or ``TsRR(2)``.

    ``requirement`` is the rule in words (``"> 0"``), ``accepts`` the rule itself, and
    ``placeholder`` what the usage shows (``alpha=a`` in :data:`METRIC_NAMES`).
    """

    name: str
    default: float
    accepts: Callable[[float], bool]
    requirement: str
    hint: str
    placeholder: str


@dataclass(frozen=True)
class MetricFamily:
    """One metric family: everything the parser, the dispatcher and the docs need."""

    name: str
    kernel: Kernel
    description: str
    cutoff: str = "optional"
    aliases: tuple[str, ...] = ()
    parameters: tuple[Parameter, ...] = ()
    tie_aware_by_definition: bool = False
    usage: tuple[str, ...] | None = None
    """How the family is listed in :data:`METRIC_NAMES`; derived from the cutoff rule and
    the parameters when ``None`` (e.g. ``("RR", "RR@k")``)."""

    def __post_init__(self) -> None:
        check("cutoff", self.cutoff, [Options(*CUTOFF_RULES)], function="MetricFamily")

    @property
    def forms(self) -> tuple[str, ...]:
        """The ways to write this family, as listed in :data:`METRIC_NAMES`."""
        if self.usage is not None:
            return self.usage
        args = ", ".join(p.placeholder for p in self.parameters)
        base = f"{self.name}({args})" if args else self.name
        return {"none": (base,), "optional": (base, f"{base}@k"),
                "required": (f"{base}@k",)}[self.cutoff]


REGISTRY: dict[str, MetricFamily] = {}
"""Canonical family name -> its entry, in the order registered (the order of the docs)."""
_BY_LOWER: dict[str, str] = {}  # every accepted spelling, lower-cased -> canonical name


def register(entry: MetricFamily) -> MetricFamily:
    """Add ``entry`` to the registry; a name or alias already taken is a programming error."""
    spellings = [entry.name, *entry.aliases]
    taken = [s for s in spellings if s.lower() in _BY_LOWER]
    if taken:
        raise ValueError(f"metric name(s) {taken} already registered")
    REGISTRY[entry.name] = entry
    _BY_LOWER.update({s.lower(): entry.name for s in spellings})
    return entry


def family(name: str) -> MetricFamily:
    """The entry of a family name or alias, case ignored (``KeyError`` when unknown)."""
    return REGISTRY[_BY_LOWER[name.lower()]]


@dataclass(frozen=True)
class Metric:
    """A parsed metric: ``family`` (canonical name), cutoff ``k`` and TsRR's ``alpha``."""

    family: str
    k: int | None = None
    alpha: float | None = None

    @property
    def entry(self) -> MetricFamily:
        return REGISTRY[self.family]

    @property
    def name(self) -> str:
        """The canonical spelling, e.g. ``nDCG@10`` or ``TsRR(alpha=1)``."""
        args = ", ".join(f"{p.name}={getattr(self, p.name):g}" for p in self.entry.parameters)
        base = f"{self.family}({args})" if args else self.family
        return base if self.k is None else f"{base}@{self.k}"

    @property
    def tie_aware_by_definition(self) -> bool:
        """True for metrics defined on the tie groups themselves (policy-invariant)."""
        return self.entry.tie_aware_by_definition

    def __str__(self) -> str:
        return self.name


# ---- the entries ---------------------------------------------------------------------------
_ALPHA = Parameter("alpha", 1.0, lambda a: math.isfinite(a) and a > 0, "> 0",
                   "positive number", "alpha=a")

for _entry in (
    MetricFamily("RR", lambda t, m, g: K.reciprocal_rank(t, m.k), aliases=("MRR", "MTRR"),
                 description="reciprocal rank of the first relevant document (0 beyond k)"),
    MetricFamily("Success", lambda t, m, g: K.success(t, m.k), cutoff="required",
                 aliases=("HitRate", "hit_rate", "TMHits"),
                 description="whether a relevant document is in the top k (a rate: ranx's hit_rate)"),
    MetricFamily("Hits", lambda t, m, g: K.relevant_in_top(t, m.k), cutoff="required",
                 description="number of relevant documents in the top k (a count, as ranx and "
                             "TRM; = k * P@k)"),
    MetricFamily("P", lambda t, m, g: K.precision(t, m.k), cutoff="required",
                 aliases=("precision",), description="relevant documents in the top k, over k"),
    MetricFamily("R", lambda t, m, g: K.recall(t, m.k), cutoff="required", aliases=("recall",),
                 description="relevant documents in the top k, over all relevant documents"),
    MetricFamily("AP", lambda t, m, g: K.average_precision(t, m.k), aliases=("MAP",),
                 description="average precision (over the top k)"),
    MetricFamily("nDCG", lambda t, m, g: K.ndcg(t, m.k, g),
                 description="DCG over the ideal DCG of the qrels (gain= linear or exp)"),
    MetricFamily("DCG", lambda t, m, g: K.dcg(t, m.k, g), usage=("DCG@k",),
                 description="discounted cumulative gain, 1/log2(rank+1) discount"),
    MetricFamily("Rprec", lambda t, m, g: K.r_precision(t), cutoff="none",
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

METRIC_NAMES = tuple(form for entry in REGISTRY.values() for form in entry.forms)
"""Every way to write a metric, for messages and help: ``RR``, ``RR@k``, ``Success@k``, ..."""

_PATTERN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*?)\s*(?:\(\s*([^)]*)\))?\s*(?:@\s*(\d+))?\s*$")
_NUMBER = r"[-+0-9.eE]+"


# ---- parsing -------------------------------------------------------------------------------
def parse_metric(text: "str | Metric") -> Metric:
    """Parse an ir_measures-style metric string.

    Parameters
    ----------
    text : str
        ``"RR"``, ``"RR@10"``, ``"nDCG@10"``, ``"P@5"``, ``"TsRR(alpha=2)"``, ... (case of
        the name is ignored; ``MRR`` is ``RR``, ``MAP`` is ``AP``, ``hit_rate@k`` is
        ``Success@k``, a rate, while ``Hits@k`` is the count of relevant documents in the top
        k, as in ranx). trec_eval's names are read too, as on its ``-m`` (``ndcg_cut.10``) and
        in its output (``ndcg_cut_10``, ``P_10``, ``recip_rank``, ``map``, ``success_10``).

    Raises
    ------
    ValueError
        With the list of valid names, and a suggestion for a near miss.

    Examples
    --------
    >>> parse_metric("ndcg@10").name
    'nDCG@10'
    >>> parse_metric("TsRR(alpha=0.5)").alpha
    0.5
    >>> [parse_metric(m).name for m in ("ndcg_cut.10", "P_5", "recip_rank", "hits@10", "r-precision")]
    ['nDCG@10', 'P@5', 'RR', 'Hits@10', 'Rprec']
    """
    if isinstance(text, Metric):
        return text
    match = _PATTERN.match(_translate(str(text)))
    entry = REGISTRY.get(_BY_LOWER.get(match.group(1).lower(), "")) if match else None
    if entry is None:
        raise ValueError(_unknown_message(str(text)))
    args, k = match.group(2), match.group(3)
    if k is None and entry.cutoff == "required":
        raise ValueError(f"metric {text!r} needs a cutoff, e.g. {entry.name}@10")
    if k is not None and entry.cutoff == "none":
        raise ValueError(f"metric {text!r} takes no cutoff")
    if k is not None and int(k) < 1:
        raise ValueError(f"metric {text!r}: the cutoff must be >= 1")
    values = _parse_parameters(text, entry, args)
    return Metric(entry.name, None if k is None else int(k), **values)


_TREC_EVAL_CUTOFF = re.compile(r"^\s*(P|recall|map_cut|ndcg_cut|success|recip_rank_cut)[._](\d+)\s*$",
                               re.IGNORECASE)
_TREC_EVAL_FAMILY = {"p": "P", "recall": "R", "map_cut": "AP", "ndcg_cut": "nDCG",
                     "success": "Success", "recip_rank_cut": "RR"}
_SPELLINGS = {"recip_rank": "RR", "r-precision": "Rprec", "rprec": "Rprec"}


def _translate(text: str) -> str:
    """trec_eval's and ranx's spellings as ours: ``ndcg_cut.10``/``ndcg_cut_10`` -> nDCG@10,
    ``recip_rank`` -> RR, ``r-precision`` -> Rprec (other names pass through)."""
    cut = _TREC_EVAL_CUTOFF.match(text)
    if cut:
        return f"{_TREC_EVAL_FAMILY[cut.group(1).lower()]}@{cut.group(2)}"
    base, at, k = text.strip().partition("@")
    return _SPELLINGS.get(base.lower(), base) + at + k


def _unknown_message(text: str) -> str:
    # suggest among the listed spellings (canonical names and shown aliases such as Hits)
    forms = [form for entry in REGISTRY.values() for form in entry.forms]  # live: see register
    candidates = list(dict.fromkeys(re.split(r"[@(]", form)[0] for form in forms))
    guess = difflib.get_close_matches(text.split("@")[0].split("(")[0], candidates,
                                      n=1, cutoff=0.5)
    hint = f" Did you mean {guess[0]!r}?" if guess else ""
    return f"unknown metric {text!r}.{hint} Valid metrics: {', '.join(forms)}"


def _parse_parameters(text: "str | Metric", entry: MetricFamily, args: str | None) -> dict:
    """The values of ``entry``'s parameters written as ``name=value`` or by position."""
    given = args.split(",") if args and args.strip() else []
    if given and not entry.parameters:
        raise ValueError(f"metric {text!r} takes no parameters")
    usage = ", ".join(f"{p.name}=<{p.hint}>" for p in entry.parameters)
    values = {p.name: p.default for p in entry.parameters}
    if len(given) > len(entry.parameters):
        raise ValueError(f"metric {text!r}: expected {entry.name}({usage})")
    for position, item in enumerate(given):
        named = re.fullmatch(rf"\s*(?:([A-Za-z_]\w*)\s*=\s*)?({_NUMBER})\s*", item)
        names = [p.name for p in entry.parameters]
        key = named.group(1) if named and named.group(1) else names[position]
        if not named or key not in names:
            raise ValueError(f"metric {text!r}: expected {entry.name}({usage})")
        try:
            values[key] = float(named.group(2))
        except ValueError:  # e.g. "1e": matched the character class, is not a number
            raise ValueError(f"metric {text!r}: expected {entry.name}({usage})") from None
    for parameter in entry.parameters:
        if not parameter.accepts(values[parameter.name]):
            raise ValueError(f"metric {text!r}: {parameter.name} must be {parameter.requirement}")
    return values


# ---- dispatch ------------------------------------------------------------------------------
def metric_values(table: TieTable, metric: "str | Metric", *, gain: str = "linear") -> np.ndarray:
    """Per-query values of ``metric`` on ``table`` (one float per ``table.queries``).

    Metrics defined on tie groups (TsRR, TsRR2, MTRR_GRAG, TMHits_GRAG) need the expected
    (unresolved) table; pass that one for them under every policy.
    """
    m = parse_metric(metric)
    check("gain", gain, [Options(*K.GAINS)], function="metric_values")
    return m.entry.kernel(table.scoring(), m, gain)
