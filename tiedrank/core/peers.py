"""The socket through which other IR tools reach the core.

The core (:mod:`tiedrank.core`, ``io``, ``metrics``, ``sampling``, ``stats``, ``simulate``)
speaks tiedrank only: metric names as the registry spells them, runs and qrels as files,
bytes and DataFrames, results as tidy frames. Other tools' vocabularies (trec_eval's and
ranx's metric names, trec_eval's ``-m`` lists and its text output, ir_measures' measure
objects, ranx's ``Run``/``Qrels``, pytrec_eval's dicts, ir_measures' and ir_datasets' tuples)
are translated by :mod:`tiedrank.interop`, the outer layer, which plugs its translators in
here when it is imported, as ir_measures' providers register themselves.
:mod:`tiedrank.plugins` has it imported at the first read of a slot
(:class:`~tiedrank.core.sockets.Socket`); the core reads a slot only for another tool's
object or name, never for its own (a path, a DataFrame, ``nDCG@10``).

The core imports nothing from ``interop`` (``tests/test_layering.py`` checks it): it calls a
slot without knowing which tool answers. Each slot's default is the core alone: no other
tool's names or objects recognised.

Adding a peer spelling of a metric needs no change here: a registry entry declares its
peers' names as data (:class:`~tiedrank.metrics.registry.MetricFamily` ``trec_eval``,
``ranx``) and :mod:`tiedrank.interop.names` reads and writes them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .sockets import Socket


@dataclass(frozen=True)
class MetricRequest:
    """What a list of metrics asks for: tiedrank's ``metrics`` (each once, in order), and what
    another tool's list form adds: the output ``counts`` lines it names (trec_eval's ``runid``,
    ``num_q``, ...), the measures it names that are ``not_yet`` tie-aware in tiedrank (left
    out, and said so in :attr:`note`), the ``names`` it prints for measures given real or
    paired parameters (metric name -> printed name: ``utility_2,-1,0,0`` as typed) and the
    ``relstring`` length with its printed name. What :attr:`Peers.expand_metrics` returns."""

    metrics: tuple  # of Metric
    counts: tuple[str, ...] = ()
    not_yet: tuple[str, ...] = ()
    names: tuple[tuple[str, str], ...] = ()
    relstring: tuple[int, str] = (10, "relstring")  # trec_eval's default length

    @property
    def note(self) -> str | None:
        """One line naming the measures left out, or ``None``."""
        if not self.not_yet:
            return None
        return (f"not yet tie-aware in tiedrank: {', '.join(self.not_yet)} (left out of the "
                "evaluation)")


def _no_metric(item: Any, subject: str) -> None:
    return None


def _no_format(evaluation: Any, *args: Any, **kwargs: Any) -> str:
    raise RuntimeError("no peer output format is plugged in: import tiedrank (its "
                       "tiedrank.interop writes trec_eval's and ranx's formats)")


def _own_name(metric: Any) -> str:
    return str(metric)


@dataclass
class Peers(Socket):
    """The slots :mod:`tiedrank.interop` fills (see the module docstring)."""

    read_metric: Callable[[Any, str], Any] = _no_metric
    """``(item, subject) -> Metric or None``: a metric in another tool's spelling or object
    (trec_eval's ``ndcg_cut.10``, ``recip_rank``; ranx's ``r-precision``, ``map-l2``; an
    ir_measures measure), or None for anything else, which tiedrank's own grammar then reads.
    ``subject`` starts the messages (``"metric 'map-l9'"``). Tried after a policy wrapper
    (``Best(...)``) is taken off, so ``Best(recip_rank)`` is read too."""
    expand_metrics: Callable[[list], MetricRequest] | None = None
    """``items -> MetricRequest``: a list of metrics with other tools' list forms expanded
    (trec_eval's ``P.5,10``, ``official``, ``all_trec``); None: each item is one metric."""
    is_peer_object: Callable[[Any], bool] = lambda source: False
    """True for another tool's run or qrels object (ranx ``Run``, ``{query: {doc: value}}``,
    rows of ``(query_id, doc_id, value)``), which :attr:`as_table` converts."""
    peer_role: Callable[[Any], str | None] = lambda source: None
    """``"run"`` or ``"qrels"`` for another tool's object that says which it is (ranx's
    ``Run`` and ``Qrels``), None otherwise (to tell a swapped ``evaluate(qrels, run)``).
    Asked only of objects that are neither tiedrank's own sources nor plain dicts, lists or
    tuples."""
    as_table: Callable[[Any, str], Any] | None = None
    """``(source, "score" | "relevance") -> (DataFrame query, doc, value; name or None)``."""
    is_nested_runs: Callable[[Any], bool] = lambda source: False
    """True for several named runs in one object (``{name: {query: {doc: score}}}``)."""
    accepted: str = "a path, bytes, a binary file object or a pandas DataFrame"
    """What the readers accept, in words (for the message of a source they cannot read)."""
    format_trec_eval: Callable[..., str] = _no_format
    """``(evaluation, policy, *, run, per_query, counts) -> str``: trec_eval's text output
    (:meth:`tiedrank.evaluation.Evaluation.to_trec_eval`)."""
    ranx_name: Callable[[Any], str] = _own_name
    """``metric -> ranx's name of it`` (:meth:`~tiedrank.evaluation.Evaluation.to_ranx`)."""


PEERS = Peers()
"""The one socket; :func:`tiedrank.interop.plug` fills it (:mod:`tiedrank.plugins`
registers that import to run at the first read of a slot: :class:`~tiedrank.core.sockets.Socket`)."""
fill_on_first_use = Peers.fill_on_first_use


def plug(**slots: Any) -> None:
    """Fill the named slots of :data:`PEERS` (``tiedrank.interop`` calls it once, at import).

    Raises
    ------
    TypeError
        For a name that is not a slot (a typo would otherwise leave the default in place).
    """
    unknown = sorted(set(slots) - set(Peers.__dataclass_fields__))
    if unknown:
        raise TypeError(f"no such peer slot: {', '.join(unknown)}")
    for name, value in slots.items():
        setattr(PEERS, name, value)
