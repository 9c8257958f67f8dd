"""The metric registry: one declarative entry per metric family, and the parser over it.

Each :class:`MetricFamily` says everything the rest of the package needs to know about a
metric: its canonical name, the aliases it answers to, whether it takes a cutoff ``@k``
(``"none"``, ``"optional"`` or ``"required"``), its parameters (TsRR's ``alpha``), the kernel
of :mod:`tiedrank.metrics.kernels` that computes it, whether it is tie-aware by definition
(the same value under every tie policy) and one line for people. :func:`parse_metric`,
:func:`metric_values` and :data:`METRIC_NAMES` are derived from the entries, so adding a
metric is one :func:`register` call plus its kernel. An entry also declares, as data, how
trec_eval and ranx name the metric (``trec_eval="map"``, ``ranx="mrr"``); reading and writing
those names is :mod:`tiedrank.interop`'s job, plugged in through :mod:`tiedrank.core.peers`.

This module holds the declarations and the parser; the entries themselves are
:mod:`tiedrank.metrics.entries` (tiedrank's and trec_eval's measures) and
:mod:`tiedrank.metrics.entries_peers` (ir_measures', gdeval's and TRM's beyond trec_eval),
registered when :mod:`tiedrank.metrics` is imported, which also derives
:data:`tiedrank.metrics.METRIC_NAMES`.

Examples
--------
>>> REGISTRY["nDCG"].cutoff, REGISTRY["nDCG"].aliases
('optional', ())
>>> family("hit_rate").name, family("hits").name
('Success', 'Hits')
"""
from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.peers import PEERS
from ..core.policies import POLICY_WRAPPERS, WRAPPER_ALIASES
from ..core.summation import SUMMARIES, Summary
from ..core.ties import TieTable
from ..core.validation import REL_LEVEL, Interval, InvalidParameterError, Options, check
from . import interpolated
from . import kernels as K
from .gain_maps import canonical_gain_map, is_gain_map

CUTOFF_RULES = ("none", "optional", "required")
VIEWS = ("scoring", "judged", "qrels", "whole")
"""The table views a kernel may read (:attr:`MetricFamily.view`)."""
SETTINGS = ("rel", "judged_only", "gain")
"""Settings a metric may fix for itself, written like ir_measures' parameters:
``RR(rel=2)``, ``P(judged_only=True)@10``, ``nDCG(gain=exp)@10`` (``dcg='exp-log2'``, as
ir_measures spells it, is read too)."""
"""Whether a family takes ``@k``: never, optionally, or always."""
TREC_GAIN_FAMILIES = ("RBP_graded", "ndcg_rel", "Rndcg", "G")
"""Families graded by trec_eval's default gains (gain = grade, whatever ``rel=`` says): they
take no ``gain=linear|exp``, and ``rel=`` does not turn them binary."""
TREC_GAIN_MAP_FAMILIES = ("RBP_graded", "ndcg_rel", "Rndcg", "G")
"""Those of :data:`TREC_GAIN_FAMILIES` that take a gain map, trec_eval's grade=gain pairs
(``ndcg_rel(gain=1:3 2:9)`` is ``-m ndcg_rel.1=3,2=9``); their best and worst orders are by
gain (:func:`~tiedrank.metrics.gain_maps.resolve_by_gain`)."""

Kernel = Callable[[TieTable, "Metric", str], np.ndarray]
"""``kernel(table, metric, gain) -> one float per query of the table``."""
Extremes = Callable[[TieTable, "Metric", bool], np.ndarray]
"""``extremes(expected table, metric, best) -> the largest (best) or smallest value per query
over the tie orderings``, for families whose extremes are not the grade orders."""
EXTREME_POLICIES = {"best": True, "worst": False}
"""The policies that mean "the largest value" (best case) and "the smallest" (worst case)."""


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
    shown_at_default: bool = True  # False: left out of the name at its default (docs)
    boolean: bool = False  # True: written True or False (stored 1.0 / 0.0): Compat's normalize


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
    graded: bool = False
    """True for metrics of the grades themselves (nDCG, DCG): they take ``gain=``, not ``rel=``."""
    usage: tuple[str, ...] | None = None
    """How the family is listed in :data:`METRIC_NAMES`; derived from the cutoff rule and
    the parameters when ``None`` (e.g. ``("RR", "RR@k")``)."""
    order_independent: bool = False
    """True for counts and set measures (``num_ret``, ``set_P``, ...): the value does not
    depend on the order inside tie groups, so every policy returns the expected table's
    value, computed once."""
    order_independent_without_cutoff: bool = False
    """True for a family whose value without ``@k`` is a count over the whole ranking
    (``Judged``: the share of retrieved documents in the qrels; ``NCG``: the gain retrieved
    over the qrels' total), the same under every policy;
    with ``@k`` the order decides what the top k holds."""
    view: str = "scoring"
    """The part of the tie-group table the kernel reads, the smallest that gives its value:
    ``"scoring"`` (default), the compact :meth:`~tiedrank.core.ties.TieTable.scoring` view, only
    the groups holding a positively graded document; ``"judged"`` for measures of the order
    of the judged documents alone (bpref: unjudged documents are skipped), the ``-J`` view
    (:meth:`~tiedrank.core.ties.TieTable.view`), which drops the unjudged documents and keeps the
    order of the others under every policy; ``"qrels"`` for measures of the places of the
    qrels documents and of the counts of each kind above them (infAP), the
    :meth:`~tiedrank.core.ties.TieTable.qrels_groups` view, the groups holding a qrels document,
    ranks kept (unj and rbp_resid too: they count the unjudged documents as the retrieved
    ones less the judged ones); ``"whole"`` for a measure that must see every document."""
    levels: tuple[float, ...] = ()
    """Default recall levels of a family averaged over levels (11pt_avg); () takes none."""
    summary: str = "mean"
    """How per-query values become the run's value: one of :data:`~tiedrank.core.summation.SUMMARIES`
    (``"mean"``; ``"sum"`` for trec_eval's counts; ``"geometric"`` for gm_map, gm_bpref)."""
    extremes: Extremes | None = None
    """The best and worst case computed by the family itself on the expected table, for
    measures whose largest and smallest values are not reached by the grade orders of the
    ``best`` and ``worst`` policies (``unj``, ``rbp_resid``: they count unjudged
    documents, which share grade 0 with judged non-relevant ones). ``None``: the kernel on
    the table resolved by those orders."""
    trec_eval: str | None = None
    """trec_eval's name of the measure (``map``, ``recip_rank``), as trec_eval reads it on
    ``-m`` and prints it; ``None``: trec_eval has none. Data only: :mod:`tiedrank.interop`
    reads and writes other tools' names, the core never parses them."""
    trec_eval_cut: str | None = None
    """trec_eval's name of the measure at a cutoff, where it is not :attr:`trec_eval`
    (``map_cut``: ``map_cut.10`` on ``-m``, ``map_cut_10`` printed)."""
    ranx: str | None = None
    """ranx's name of the metric (``mrr``, ``hit_rate``, ``r-precision``)."""
    counts_without_relevance: str = ""
    """For a family that never reads a relevance level (``Judged``: documents present in the
    qrels), why: ``rel=`` is then refused with it rather than accepted and ignored."""
    fixed_gain: str = ""
    """For a graded family whose gain is part of its definition (gdeval's ERR), that gain in
    words: ``gain=`` is then refused with it. Empty: the family takes ``gain=`` if graded."""

    def __post_init__(self) -> None:
        check("cutoff", self.cutoff, [Options(*CUTOFF_RULES)], function="MetricFamily")
        check("summary", self.summary, [Options(*SUMMARIES)], function="MetricFamily")
        check("view", self.view, [Options(*VIEWS)], function="MetricFamily")

    @property
    def forms(self) -> tuple[str, ...]:
        """The ways to write this family, as listed in :data:`METRIC_NAMES`."""
        if self.usage is not None:
            return self.usage
        args = ", ".join(p.placeholder for p in self.parameters)
        base = f"{self.name}({args})" if args else self.name
        return {"none": (base,), "optional": (base, f"{base}@k"),
                "required": (f"{base}@k",)}[self.cutoff]

    @property
    def definition(self) -> str:
        """:attr:`description` without the notes every set measure or unjudged count shares
        (``tiedrank metrics``' one line)."""
        return self.description.split(SET_NOTE)[0].split(UNJUDGED_NOTE)[0].strip()


# Notes every set measure or unjudged count shares (entries.py appends them to the
# descriptions; ``MetricFamily.definition`` leaves them out of the one-line definition).
SET_NOTE = (" Order-independent: every policy gives the same value (-M keeps the first M "
          "documents in trec_eval's order before ties are seen, so a tie group it splits is "
          "split as trec_eval splits it).")
UNJUDGED_NOTE = (" It counts unjudged documents (absent from the qrels, or a negative grade) as "
             "the retrieved ones less the judged ones, and its best and worst put them first "
             "or last in each group.")


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
    """A parsed metric: ``family`` (canonical name), cutoff ``k``, TsRR's ``alpha``, and the
    settings a measure may fix for itself (``None``: :func:`~tiedrank.evaluate`'s argument
    applies): ``rel`` (a binary metric's relevance level, ``RR(rel=2)``), ``judged_only``
    and ``gain`` (nDCG/DCG: ``"linear"`` or ``"exp"``)."""

    family: str
    k: int | None = None
    alpha: float | None = None
    beta: float | None = None
    p: float | None = None
    mult: float | None = None
    rel_ret: float | None = None
    nonrel_ret: float | None = None
    rel_missed: float | None = None
    nonrel_missed: float | None = None
    docs: float | None = None
    recall: float | None = None
    min_rel: float | None = None
    max_rel: float | None = None
    normalize: float | None = None
    T: float | None = None
    levels: tuple[float, ...] | None = None
    rel: int | None = None
    judged_only: bool | None = None
    gain: str | None = None
    policy: str | None = None
    """The tie policy a wrapped measure fixes for itself (``Expected(nDCG@10)``: ``expected``,
    as :mod:`tiedrank.interop.measures` wraps ir_measures measures); ``None``: every policy
    of the evaluation."""

    @property
    def entry(self) -> MetricFamily:
        return REGISTRY[self.family]

    @property
    def name(self) -> str:
        """The canonical spelling, e.g. ``nDCG@10``, ``TsRR(alpha=1)``, ``Best(AP)``."""
        args = ", ".join([f"{p.name}={_shown(p, getattr(self, p.name))}"
                          for p in self.entry.parameters
                          if p.shown_at_default or getattr(self, p.name) != p.default]
                         + ([f"levels={' '.join(map(repr, self.levels))}"]
                            if self.levels not in (None, self.entry.levels) else [])
                         + [f"{name}={value}" for name, value in self.settings.items()])
        base = f"{self.family}({args})" if args else self.family
        base = base if self.k is None else f"{base}@{self.k}"
        if self.policy is None:
            return base
        wrapper = next(w for w, p in POLICY_WRAPPERS.items() if p == self.policy)
        return f"{wrapper}({base})"

    @property
    def settings(self) -> dict:
        """The settings this metric fixes for itself (``rel``, ``judged_only``, ``gain``)."""
        return {name: getattr(self, name) for name in SETTINGS if getattr(self, name) is not None}

    @property
    def tie_aware_by_definition(self) -> bool:
        """True for metrics defined on the tie groups themselves (policy-invariant)."""
        return self.entry.tie_aware_by_definition

    @property
    def policy_invariant(self) -> bool:
        """The same value under every tie policy: tie-aware by definition, or independent
        of the order inside tie groups (counts, set measures). Scored once, on the
        expected table."""
        return (self.entry.tie_aware_by_definition or self.entry.order_independent
                or (self.entry.order_independent_without_cutoff and self.k is None))

    @property
    def extremes(self) -> Extremes | None:
        """The family's :attr:`MetricFamily.extremes`; under a gain map, the orders by gain."""
        if self.entry.extremes is not None:  # computed by the family (G: under a map too)
            return self.entry.extremes
        by_gain = self.entry.graded or self.family in TREC_GAIN_MAP_FAMILIES
        return K.graded_extreme if by_gain and is_gain_map(self.gain or "") else None

    @property
    def summary(self) -> Summary:
        """How the per-query values of this metric become the run's value."""
        return SUMMARIES[self.entry.summary]

    def __post_init__(self) -> None:
        if self.k is not None:  # Metric(...) made directly: the parser's bound as well
            check_cutoff(self.k, f"metric {self.family!r}")
        if self.rel is not None:  # RR(rel=2), map-l2, Metric(rel=...): the one level check
            check("rel", self.rel, [REL_LEVEL], subject=f"metric {self.family!r}")
        if self.policy is not None:
            check("policy", self.policy, [Options(*POLICY_WRAPPERS.values())], function="Metric")

    def __str__(self) -> str:
        return self.name


def _shown(parameter: Parameter, value: float) -> str:
    """A parameter's value as written in a name, exactly: ``True``/``False``; an integral
    value as an integer (``2147483647``, ``1``); otherwise the shortest text that reads
    back as the same float (``0.8``, ``0.1234567``, ``1e-05``). So two metrics with
    different parameters never share a name (``%g`` kept 6 digits: ``RBP(p=0.1234567)``
    and ``RBP(p=0.1234568)`` were one row), and the ordinary names are as before."""
    if parameter.boolean:
        return str(bool(value))
    number = float(value)
    if number.is_integer() and abs(number) < 1e16:
        return str(int(number))
    return repr(number)


# a family name may begin with a digit: trec_eval's 11pt_avg
_PATTERN = re.compile(r"^\s*([A-Za-z0-9_][A-Za-z0-9_]*?)\s*(?:\(\s*([^)]*)\))?\s*(?:@\s*(\d+))?\s*$",
                      re.ASCII)
_NUMBER = r"[-+0-9.eE]+"


# ---- parsing -------------------------------------------------------------------------------
def parse_metric(text: "str | Metric | object") -> Metric:
    """Parse a metric name, or another tool's measure object.

    Parameters
    ----------
    text : str, Metric or another tool's measure
        ``"RR"``, ``"RR@10"``, ``"nDCG@10"``, ``"P@5"``, ``"TsRR(alpha=2)"``, ... (case of
        the name is ignored; ``MRR`` is ``RR``, ``MAP`` is ``AP``, ``hit_rate@k`` is
        ``Success@k``, a rate, while ``Hits@k`` is the count of relevant documents in the top
        k, as in ranx). A metric may fix its own settings as ir_measures writes them:
        ``RR(rel=2)``, ``P(rel=2)@10``, ``nDCG(judged_only=True)@10``, ``nDCG(gain=exp)@10``
        (or ``dcg='exp-log2'``), and one tie policy: ``Best(AP)``, ``Expected(nDCG@10)``.
        Other tools' names and objects are read through :mod:`tiedrank.interop`
        (:data:`tiedrank.core.peers.PEERS`): trec_eval's names, as on its ``-m``
        (``ndcg_cut.10``) and in its output (``ndcg_cut_10``, ``P_10``, ``recip_rank``,
        ``success_10``), ranx's (``r-precision``, ``map-l2``), and ir_measures objects
        (``ir_measures.RR(rel=2)``, ``nDCG@10``, ``AP@100``), with their parameters.

    Raises
    ------
    ValueError
        With the list of valid names, and a suggestion for a near miss; for a parameter
        tiedrank cannot honour, an :class:`~tiedrank.core.validation.InvalidParameterError`
        naming the measure and what to write instead.

    Examples
    --------
    >>> parse_metric("ndcg@10").name
    'nDCG@10'
    >>> parse_metric("TsRR(alpha=0.5)").alpha
    0.5
    >>> [parse_metric(m).name for m in ("ndcg_cut.10", "P_5", "recip_rank", "hits@10", "r-precision")]
    ['nDCG@10', 'P@5', 'RR', 'Hits@10', 'Rprec']
    >>> [parse_metric(m).name for m in ("RR(rel=2)", "P(rel=2)@10", "nDCG(dcg='exp-log2')@10")]
    ['RR(rel=2)', 'P(rel=2)@10', 'nDCG(gain=exp)@10']
    """
    if isinstance(text, Metric):
        return text
    if not isinstance(text, str):
        peer = PEERS.read_metric(text, f"metric {text!r}")  # an ir_measures measure, ...
        if peer is not None:
            return peer
    return parse_text(str(text), f"metric {str(text)!r}")


_WRAPPED = re.compile(r"^\s*([A-Za-z]+)\s*\((.*)\)\s*(?:@\s*(\d+))?\s*$", re.DOTALL | re.ASCII)


def split_wrapper(text: str) -> tuple[str, str] | None:
    """``(policy, inner text)`` of a metric wrapped in a tie policy (``Best(AP)`` ->
    ``("best", "AP")``; ``Expected(nDCG)@10`` -> ``("expected", "nDCG@10")``), or None.

    The wrappers are :data:`~tiedrank.core.policies.POLICY_WRAPPERS` (``Expected``,
    ``Best``, ``Worst``, ``TrecEval``, as :mod:`tiedrank.interop.measures` also offers them
    to ir_measures), the way :attr:`Metric.name` writes a metric scored under one policy.

    >>> split_wrapper("Best(AP)"), split_wrapper("TsRR(alpha=2)")
    (('best', 'AP'), None)
    """
    wrapped = _WRAPPED.match(text)
    if not wrapped:
        return None
    wrapper = WRAPPER_ALIASES.get(wrapped.group(1), wrapped.group(1))
    if wrapper not in POLICY_WRAPPERS:
        return None
    inner = wrapped.group(2) + (f"@{wrapped.group(3)}" if wrapped.group(3) else "")
    return POLICY_WRAPPERS[wrapper], inner


def parse_text(text: str, subject: str) -> Metric:
    """:func:`parse_metric` of a string; messages start with ``subject``.

    A tie-policy wrapper (:func:`split_wrapper`) is taken off first, so the metric inside
    may be in any spelling :func:`parse_metric` reads; then other tools' spellings are
    offered to :data:`~tiedrank.core.peers.PEERS`; then tiedrank's own grammar reads it.
    """
    check_ascii_digits(text, subject)
    wrapped = split_wrapper(text)
    if wrapped is not None:
        policy, inner = wrapped
        return with_policy(parse_text(inner, subject), policy, subject)
    if "," in text and "(" not in text:
        raise ValueError(f"{subject} names several metrics (trec_eval's cutoff list); pass it "
                         "where a list of metrics is read (evaluate(..., metrics=), -m), or "
                         f"one at a time: {text.split(',')[0]}")
    own = own_metric(text)
    if own is not None:  # tiedrank's own spelling, which no peer reads otherwise
        return own
    peer = PEERS.read_metric(text, subject)  # trec_eval's ndcg_cut_10, ranx's map-l2, ...
    if peer is not None:
        return peer
    return _parse_own(text, subject)


def own_metric(text: str) -> Metric | None:
    """The metric of ``text`` when it is tiedrank's own canonical spelling (as
    :attr:`Metric.name` writes it: ``nDCG@10``, ``RR``, ``P(rel=2)@10``, ``Best(AP)``), else
    None.

    A peer's reader (:attr:`~tiedrank.core.peers.Peers.read_metric`) never reads such a name
    (it reads trec_eval's ``P_5``, ranx's ``map-l2`` and names tiedrank does not know), so
    the core answers it alone and the translators of :mod:`tiedrank.interop` are not loaded
    (``tests/interop/test_own_names.py`` checks both readings agree on every family).

    >>> own_metric("nDCG@10").name, own_metric("ndcg_cut_10"), own_metric("ndcg@10")
    ('nDCG@10', None, None)
    """
    wrapped = split_wrapper(text)
    try:
        if wrapped is not None:
            inner = own_metric(wrapped[1])
            metric = None if inner is None else with_policy(inner, wrapped[0], text)
        else:
            metric = _parse_own(text, f"metric {text!r}")
    except ValueError:
        return None
    return metric if metric is not None and metric.name == text else None


def peer_spelled(text: str) -> bool:
    """True when a peer tool names a measure exactly ``text`` (trec_eval's ``bpref``,
    ``num_ret``, ``Rprec``: a family's ``trec_eval``, ``trec_eval_cut`` or ``ranx``
    declaration): in a list of metrics, such a name is read by the peers' list reader
    (:attr:`~tiedrank.core.peers.Peers.expand_metrics`: ``num_ret`` is also trec_eval's
    count line), the others by tiedrank alone.

    >>> peer_spelled("bpref"), peer_spelled("nDCG@10")
    (True, False)
    """
    return text in _peer_spellings(len(REGISTRY))


@functools.lru_cache(maxsize=4)
def _peer_spellings(registered: int) -> frozenset[str]:
    """Every name a family's declarations give it in another tool (``registered`` entries;
    entries are only ever added)."""
    return frozenset(name for entry in REGISTRY.values()
                     for name in (entry.trec_eval, entry.trec_eval_cut, entry.ranx) if name)


def _parse_own(text: str, subject: str) -> Metric:
    """tiedrank's own grammar: a family's name or alias, its parameters and cutoff."""
    match = _PATTERN.match(text)
    entry = REGISTRY.get(_BY_LOWER.get(match.group(1).lower(), "")) if match else None
    if entry is None:
        raise ValueError(_unknown_message(text))
    args, k = match.group(2), match.group(3)
    if k is None and entry.cutoff == "required":
        raise ValueError(f"{subject} needs a cutoff, e.g. {entry.name}@10")
    if k is not None and entry.cutoff == "none":
        raise ValueError(f"{subject} takes no cutoff")
    if k is not None:
        check_cutoff(int(k), subject)
    values = _parse_parameters(subject, entry, args)
    return Metric(entry.name, None if k is None else int(k), **values)


def check_ascii_digits(text: str, subject: str) -> None:
    """Raise ``ValueError`` if ``text`` holds a digit of another script (``P@１０``,
    ``P@١٠``): Python's ``\\d``, ``int`` and ``float`` read them as 0-9, so without this
    one check at the door a name that is not what the user meant to type would pass as
    ``P@10``. The message names the character and the name in ASCII digits to type instead.

    >>> check_ascii_digits("P@10", "metric 'P@10'")
    >>> check_ascii_digits("P@１0", "metric 'P@１0'")
    Traceback (most recent call last):
    ...
    ValueError: metric 'P@１0': '１' (FULLWIDTH DIGIT ONE) is not an ASCII digit; type P@10
    """
    foreign = [c for c in text if c.isdecimal() and not c.isascii()]
    if foreign:
        ascii_text = "".join(str(unicodedata.decimal(c)) if c in foreign else c for c in text)
        raise ValueError(f"{subject}: {foreign[0]!r} ({unicodedata.name(foreign[0], 'a digit')}) "
                         f"is not an ASCII digit; type {ascii_text.strip()}")


def with_policy(metric: Metric, policy: str, subject: str) -> Metric:
    """``metric`` under one tie policy (a wrapper around a wrapper is refused)."""
    if metric.policy is not None and metric.policy != policy:
        raise ValueError(f"{subject} wraps one tie policy in another; write one wrapper, "
                         f"e.g. {metric.name}")
    return Metric(**{**metric.__dict__, "policy": policy})


MAX_CUTOFF = 2**31 - 1
"""Largest cutoff ``@k``: deeper than any ranking (the kernels count ranks in int64; a
cutoff past it, ``@9223372036854775808``, would not fit)."""


def check_cutoff(k: object, subject: str) -> None:
    """Raise the one error form unless ``k`` is an integer in [1, :data:`MAX_CUTOFF`]."""
    allowed = Interval(int, 1, MAX_CUTOFF)
    if not allowed.accepts(k):
        raise InvalidParameterError("k", k, f"{allowed.describe()} (the cutoff @k)",
                                    subject=subject)


def _unknown_message(text: str) -> str:
    # suggest among the listed spellings (canonical names and shown aliases such as Hits)
    forms = [form for entry in REGISTRY.values() for form in entry.forms]  # live: see register
    candidates = list(dict.fromkeys(re.split(r"[@(]", form)[0] for form in forms))
    guess = difflib.get_close_matches(text.split("@")[0].split("(")[0], candidates,
                                      n=1, cutoff=0.5)
    hint = f" Did you mean {guess[0]!r}?" if guess else ""
    return f"unknown metric {text!r}.{hint} Valid metrics: {', '.join(forms)}"


def usage(entry: MetricFamily) -> str:
    """How ``entry`` takes parameters: ``TsRR(alpha=<positive number>); it also takes rel=...``."""
    settings = ([] if entry.graded or entry.counts_without_relevance
                else ["rel=<integer >= 1>"]) + ["judged_only=<True|False>"] \
        + (["gain=<linear|exp>"] if entry.graded and not entry.fixed_gain else [])
    if not entry.parameters:
        return f"{entry.name}({', '.join(settings)})"
    args = ", ".join(f"{p.name}=<{p.hint}>" for p in entry.parameters)
    return f"{entry.name}({args}); it also takes {', '.join(settings)}"


_ITEM = re.compile(r"\s*(?:([A-Za-z_]\w*)\s*=\s*)?(.*?)\s*", re.ASCII)


def _parse_parameters(subject: str, entry: MetricFamily, args: str | None) -> dict:
    """The values of ``entry``'s parameters (``name=value`` or by position) and settings."""
    given = args.split(",") if args and args.strip() else []
    values: dict = {p.name: p.default for p in entry.parameters}
    names = [p.name for p in entry.parameters]
    bad = ValueError(f"{subject}: expected {usage(entry)}")
    position = 0
    for item in given:
        key, raw = _ITEM.fullmatch(item).groups()
        raw = raw.strip().strip("'\"")
        if key == "levels" and entry.levels:
            values["levels"] = _checked(interpolated.parse_levels, raw, subject)
            continue
        if key in ("rel", "judged_only", "gain", "dcg"):
            name, value = _setting(subject, entry, key, raw)
            values[name] = value
            continue
        if key is None:
            key, position = (names[position] if position < len(names) else None), position + 1
        if key not in names and not names:
            raise ValueError(f"{subject} takes no parameters other than settings: expected "
                             f"{usage(entry)}")
        if key in names and entry.parameters[names.index(key)].boolean:
            raw = {"true": "1", "false": "0"}.get(raw.lower(), raw)  # normalize=True
        if key not in names or not re.fullmatch(_NUMBER, raw):
            raise bad
        try:
            values[key] = float(raw)
        except ValueError:  # e.g. "1e": matched the character class, is not a number
            raise bad from None
    for parameter in entry.parameters:
        if not parameter.accepts(values[parameter.name]):
            raise ValueError(f"{subject}: {parameter.name} must be {parameter.requirement}")
    return values


def _checked(parse: Callable[[str], object], raw: str, subject: str) -> object:
    try:
        return parse(raw)
    except ValueError as error:
        raise ValueError(f"{subject}: {error}") from None


def _setting(subject: str, entry: MetricFamily, key: str, raw: str) -> tuple[str, object]:
    """One of :data:`SETTINGS` written in parentheses, checked against ``entry``: refused
    when ``entry`` takes no such setting (:func:`_left_out`), else read by its reader."""
    name = "gain" if key == "dcg" else key
    left_out = _left_out(entry, name, key, raw)
    if left_out is not None:
        raise InvalidParameterError(key, raw, left_out, subject=subject)
    return name, _SETTING_READERS[name](subject, key, raw)


def _left_out(entry: MetricFamily, name: str, key: str, raw: str) -> str | None:
    """Why ``entry`` takes no setting ``name`` (the requirement its message states), or
    None when it takes it."""
    if name == "rel":
        return _rel_left_out(entry)
    if name == "gain" and not (key == "gain" and entry.name in TREC_GAIN_MAP_FAMILIES
                               and is_gain_map(raw)):  # trec_eval's ndcg_rel.1=3,2=9
        return _gain_left_out(entry)
    return None


def _rel_left_out(entry: MetricFamily) -> str | None:
    if entry.counts_without_relevance:
        return f"left out: {entry.counts_without_relevance}"
    if entry.graded:
        return (f"left out: {entry.name} uses the grades themselves (write {entry.name}, and "
                "evaluate(..., rel_level=) to choose which queries count)")
    return None


def _gain_left_out(entry: MetricFamily) -> str | None:
    if entry.name in TREC_GAIN_FAMILIES:
        maps = (f", or a gain map, e.g. {entry.name}(gain=1:3 2:9)"
                if entry.name in TREC_GAIN_MAP_FAMILIES else "")
        return (f"left out: {entry.name} uses trec_eval's gains, gain = grade{maps} (map the "
                "grades in the qrels for other gains)")
    if entry.fixed_gain:
        return (f"left out: {entry.name} uses {entry.fixed_gain} (map the grades in the qrels "
                "for other gains)")
    if not entry.graded:
        return (f"left out: {entry.name} is a binary metric (write {entry.name}(rel=2) to "
                "count grade >= 2 as relevant)")
    return None


# The readers of the settings a family takes: (subject, key as written, raw text) -> value.

def _rel_setting(subject: str, key: str, raw: str) -> object:
    level = int(raw) if re.fullmatch(r"[+-]?\d+", raw, re.ASCII) else raw
    return check("rel", level, [REL_LEVEL], subject=subject)  # the one level check


def _judged_only_setting(subject: str, key: str, raw: str) -> bool:
    if raw.lower() not in ("true", "false"):
        raise InvalidParameterError("judged_only", raw, "True or False", subject=subject)
    return raw.lower() == "true"


def _gain_setting(subject: str, key: str, raw: str) -> object:
    """``gain=`` (a gain name, or a gain map as trec_eval's ndcg.1=3,2=9) or ``dcg=``
    (ir_measures' spellings of the same gains)."""
    if key == "gain" and is_gain_map(raw):
        return _checked(canonical_gain_map, raw, subject)
    spellings = {"log2": "linear", "exp-log2": "exp"} if key == "dcg" else \
        {g: g for g in K.GAINS}
    if raw.lower() not in spellings:
        allowed = " or ".join(repr(s) for s in spellings)
        raise InvalidParameterError(key, raw, allowed, subject=subject)
    return spellings[raw.lower()]


_SETTING_READERS: dict[str, Callable[[str, str, str], object]] = {
    "rel": _rel_setting, "judged_only": _judged_only_setting, "gain": _gain_setting}
