"""The metrics an evaluation is asked for: a name, a measure or a list, read once into :class:`~tiedrank.metrics.Metric` objects."""
from __future__ import annotations

import warnings
from collections.abc import Iterable

from ..core.peers import PEERS, MetricRequest
from ..core.validation import InvalidParameterError
from ..metrics import Metric, parse_metric
from ..metrics.registry import own_metric, peer_spelled

DEFAULT_METRICS = ("RR", "P@10", "AP", "nDCG@10")
"""The metrics the CLI evaluates when none is given."""


def parse_metrics(metrics: "str | Metric | Iterable[str | Metric]") -> list[Metric]:
    """The metrics of ``metrics`` (a name, a measure, or a list), each once, in order.

    trec_eval's ``-m`` forms are read too (:func:`tiedrank.interop.trec_eval.expand_metrics`):
    ``P.5,10`` is P@5 and P@10, ``P`` alone trec_eval's default cutoffs, ``official`` and
    ``all_trec`` the measures of those groups tiedrank has (a ``UserWarning`` names the ones
    it has not yet; the count lines ``runid``, ``num_q``, ... are printed by
    :meth:`Evaluation.to_trec_eval`).

    Examples
    --------
    >>> [m.name for m in parse_metrics(["P.10,5", "map-l2", "Best(nDCG@10)"])]
    ['P@5', 'P@10', 'AP(rel=2)', 'Best(nDCG@10)']
    """
    request = metric_request(metrics)
    if request.note:
        warnings.warn(request.note, UserWarning, stacklevel=3)
    return list(request.metrics)


def metric_request(metrics: "str | Metric | Iterable[str | Metric]") -> MetricRequest:
    """:func:`parse_metrics` with what a trec_eval group adds: the count lines it asks for
    and the measures not yet tie-aware in tiedrank (:class:`~tiedrank.core.peers.
    MetricRequest`, from :func:`tiedrank.interop.trec_eval.expand_metrics` through
    :data:`~tiedrank.core.peers.PEERS`); the CLI prints its note itself."""
    if metrics is None or not (_is_one_metric(metrics) or isinstance(metrics, Iterable)):
        raise InvalidParameterError("metrics", metrics, "a metric name such as 'RR' or "
                                    "'nDCG@10', a measure, or a list of those",
                                    function="evaluate")
    items = [metrics] if _is_one_metric(metrics) else list(metrics)
    own = _own_metrics(items)
    if own is not None:  # tiedrank's own names only: no other tool's list form to expand
        request = MetricRequest(tuple(dict.fromkeys(own)))
    elif PEERS.expand_metrics is not None:
        request = PEERS.expand_metrics(items)
    else:
        request = MetricRequest(tuple(dict.fromkeys(parse_metric(item) for item in items)))
    if not request.metrics:
        raise ValueError("no metrics given" if not request.counts and not request.not_yet else
                         "no metric tiedrank computes was asked for"
                         + (f" ({request.note})" if request.note else ""))
    return request  # RR, mrr, RR: one metric, counted once


def as_metrics(metrics: "str | Metric | Iterable[str | Metric]") -> list[Metric]:
    """``metrics`` as :class:`~tiedrank.metrics.Metric` objects, each once, in order: taken
    as they are when a door parsed them already (the CLI, :func:`evaluate`, the dashboard's
    settings, the scaled paths' plan), parsed here (:func:`parse_metrics`) otherwise."""
    if isinstance(metrics, Metric):
        return [metrics]
    if not isinstance(metrics, (str, bytes)) and isinstance(metrics, Iterable):
        items = list(metrics)
        if items and all(isinstance(m, Metric) for m in items):
            return list(dict.fromkeys(items))
        metrics = items
    return parse_metrics(metrics)


def _own_metrics(items: list) -> list[Metric] | None:
    """``items`` as metrics when each is a :class:`Metric` or tiedrank's own canonical name
    that no other tool spells the same way (:func:`~tiedrank.metrics.registry.own_metric`,
    :func:`~tiedrank.metrics.registry.peer_spelled`); None when some item needs the peers'
    list reader (trec_eval's ``P.5,10``, ``all_trec``, ``num_ret``, ranx's ``map-l2``)."""
    metrics = []
    for item in items:
        metric = item if isinstance(item, Metric) else (
            own_metric(item) if isinstance(item, str) and not peer_spelled(item) else None)
        if metric is None:
            return None
        metrics.append(metric)
    return metrics


def _is_one_metric(metrics) -> bool:
    """A single metric (a name, a Metric or another tool's measure object, which
    :mod:`tiedrank.interop` reads) rather than a list."""
    return isinstance(metrics, (str, Metric)) or (
        metrics is not None and not isinstance(metrics, Iterable)
        and PEERS.read_metric(metrics, f"metric {metrics!r}") is not None)
