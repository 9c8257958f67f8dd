"""tiedrank's tie policies as ir_measures measures: ``Expected(nDCG@10)``, ``Best``, ``Worst``,
``TrecEvalOrder``.

Each wraps an ir_measures measure (``nDCG@10``, ``RR(rel=2)``, ``P(rel=2)@10``) or a tiedrank
metric name (``"TsRR2"``) and *is* an ir_measures measure, so ``ir_measures.calc_aggregate``,
``ir_measures.iter_calc`` and PyTerrier's ``pt.Experiment`` (``baseline=``, ``correction=``)
compute it. Importing this module registers a ``tiedrank`` provider first in
``ir_measures.DefaultPipeline``; it evaluates the run with :func:`tiedrank.evaluate`, so
every value is tiedrank's:

- the whole ranking is evaluated (ir_measures' runtime provider cuts each ranking at the
  cutoff first, which splits a tie group straddling ``k``; ``Expected(P@10)`` is the exact
  E[P@10] over the orderings of the whole run, never a value of the truncated list);
- per query, the values equal ``tiedrank.evaluate(run, qrels, [metric], ties=policy)``;
- the query set is trec_eval's, as everywhere in tiedrank and in ir_measures' pytrec_eval
  provider: a query the run answers counts, with trec_eval's value where it has no relevant
  document at the measure's level (0 for RR, P, AP); a qrels query the run misses has no
  value (NaN in ``iter_calc``, skipped by the aggregator). PyTerrier's ``pt.Experiment``
  averages per-query values itself, over every topic, so a run that misses a topic shows
  NaN there rather than a mean over fewer queries.

Examples
--------
>>> import ir_measures
>>> from ir_measures import nDCG, RR
>>> from tiedrank.interop.measures import Best, Expected, Worst
>>> run = {"q1": {"a": 1.0, "b": 1.0, "c": 0.5}}   # a and b tie at the top
>>> qrels = {"q1": {"b": 1}}
>>> measures = [Expected(RR), Best(RR), Worst(RR)]
>>> result = ir_measures.calc_aggregate(measures, qrels, run)
>>> [(str(m), round(result[m], 3)) for m in measures]
[('Expected(RR)', 0.75), ('Best(RR)', 1.0), ('Worst(RR)', 0.5)]
>>> Expected(nDCG@10) == Expected("nDCG@10"), str(Expected(nDCG)@5)
(True, 'Expected(nDCG@5)')
"""
from __future__ import annotations

import math
from collections.abc import Iterator

import pandas as pd

try:
    import ir_measures
    from ir_measures.measures.base import Agg, Measure, ParamInfo
    from ir_measures.providers.base import Evaluator, Provider
    from ir_measures.util import Metric as Value
    from ir_measures.util import QrelsConverter, RunConverter
except ImportError as error:  # pragma: no cover - exercised only without ir_measures
    raise ImportError("tiedrank.interop.measures needs ir_measures: pip install ir-measures") from error

from ..core.data import Qrels
from ..io import read_qrels
from ..metrics import Metric, parse_metric
from ..core.policies import POLICY_WRAPPERS, parse_policies

__all__ = ["Best", "Expected", "TiedrankProvider", "TrecEvalOrder", "Worst", "provider"]


class _NanSkippingMean(Agg):
    """The mean of the values that are not NaN (NaN: a query the measure does not define)."""

    def __init__(self) -> None:
        self.sum, self.count = 0.0, 0

    def add(self, value: float) -> None:
        if not math.isnan(value):
            self.sum, self.count = self.sum + value, self.count + 1

    def result(self) -> float:
        return self.sum / self.count if self.count else float("nan")


class _PolicyMeasure(Measure):
    """A tiedrank metric under one tie policy, as an ir_measures measure."""

    POLICY = ""
    SUPPORTED_PARAMS = {"measure": ParamInfo(required=True, desc="the wrapped measure: an "
                                             "ir_measures measure or a tiedrank metric name")}
    DEFAULT = float("nan")  # ir_measures' fill-in for a query without a value: skipped in means

    def __init__(self, measure=None, **params):
        if measure is None:
            measure = params.pop("measure", None)
        if measure is None:
            raise TypeError(f"{self.NAME}() wraps a measure: {self.NAME}(nDCG@10), "
                            f"{self.NAME}(RR(rel=2)) or {self.NAME}('TsRR2')")
        if params:
            raise TypeError(f"{self.NAME}() takes only the measure it wraps; put parameters on "
                            f"that measure, e.g. {self.NAME}(RR(rel=2)@10)")
        super().__init__(measure=measure)
        self.metric: Metric = parse_metric(measure)  # refuses what tiedrank cannot honour, now

    def __matmul__(self, cutoff: int) -> "_PolicyMeasure":
        """``Expected(nDCG)@10`` is ``Expected(nDCG@10)``."""
        inner = self.params["measure"]
        return type(self)(inner @ cutoff if isinstance(inner, Measure) else f"{inner}@{cutoff}")

    def __repr__(self) -> str:
        return f"{self.NAME}({self.metric.name})"

    def aggregator(self) -> Agg:
        return _NanSkippingMean()


def _policy_measure(name: str, policy: str, doc: str) -> type:
    return type(name, (_PolicyMeasure,), {"NAME": name, "__name__": name, "POLICY": policy,
                                          "__doc__": doc, "__module__": __name__})


Expected = _policy_measure("Expected", "expected", "The exact expectation over every ordering "
                           "of the tied documents (tiedrank's ``expected`` policy).")
Best = _policy_measure("Best", POLICY_WRAPPERS["Best"], "The best case over the tie orderings "
                       "(relevant documents first inside each tie group).")
Worst = _policy_measure("Worst", POLICY_WRAPPERS["Worst"], "The worst case over the tie orderings "
                        "(relevant documents last inside each tie group).")
TrecEvalOrder = _policy_measure("TrecEvalOrder", "trec_eval", "The value in trec_eval's "
                                "order: score descending, then docno descending.")


class TiedrankProvider(Provider):
    """The ir_measures provider of :class:`Expected`, :class:`Best`, :class:`Worst` and
    :class:`TrecEvalOrder`: one :func:`tiedrank.evaluate` call per run."""

    NAME = "tiedrank"

    def supports(self, measure) -> bool:
        return isinstance(measure, _PolicyMeasure)

    def _evaluator(self, measures, qrels) -> "TiedrankEvaluator":
        return TiedrankEvaluator(measures, qrels)


class TiedrankEvaluator(Evaluator):
    """Evaluates runs against one set of qrels for a list of tiedrank policy measures."""

    def __init__(self, measures, qrels):
        frame = QrelsConverter(qrels, strict=False).as_pd_dataframe()
        frame = pd.DataFrame({"query": frame["query_id"].astype(str),
                              "doc": frame["doc_id"].astype(str),
                              "relevance": frame["relevance"].astype("int64"),
                              # diversity qrels' subtopic: read_qrels takes it as one when a
                              # document is judged under two (plain qrels: all '0')
                              **({"iteration": frame["iteration"].astype(str)}
                                 if "iteration" in frame else {})})
        self.qrels: Qrels = read_qrels(frame)  # the checks of a qrels file (duplicates, ...)
        measures = list(measures)
        super().__init__(measures, set(frame["query"]))

    def iter_calc(self, run) -> Iterator[Value]:
        """Per-query values of every measure for every qrels query: NaN where tiedrank gives
        the measure no value (a query the run misses; see the module notes).

        Every query gets every measure because PyTerrier's ``pt.Experiment`` averages the
        per-query values itself, over all queries, and took the list of measures from its
        first query: a measure missing there vanished from the table, or failed with a
        KeyError, depending on the query order. With NaN the mean it shows is NaN, visibly
        undefined, and ir_measures' own aggregates still skip those queries."""
        return self._iter_calc(run)

    def _iter_calc(self, run) -> Iterator[Value]:
        from ..evaluation import evaluate  # local: keeps `import tiedrank.interop.measures` light

        frame = RunConverter(run, strict=False).as_pd_dataframe()
        if len(frame) == 0:
            yield from self._empty_run()
            return
        frame = pd.DataFrame({"query": frame["query_id"].astype(str),
                              "doc": frame["doc_id"].astype(str),
                              "score": frame["score"].astype("float64")})
        policies = list(dict.fromkeys(m.POLICY for m in self.measures))
        metrics = list(dict.fromkeys(m.metric for m in self.measures))
        per_query = evaluate({"run": frame}, self.qrels, metrics, ties=policies).per_query
        queries = sorted(set(self.qrels.frame["query"].astype(str)))
        for measure in self.measures:
            label = parse_policies(measure.POLICY)[0].label
            rows = per_query[(per_query["metric"] == measure.metric.name)
                             & (per_query["policy"] == label)]
            values = dict(zip(rows["query"].astype(str), rows["value"].astype(float)))
            for query in queries:
                yield Value(query, measure, values.get(query, math.nan))

    def _empty_run(self) -> Iterator[Value]:
        """No documents at all: the run answers no query, so none has a value (NaN, as in
        :meth:`iter_calc`)."""
        for measure in self.measures:
            for query in sorted(set(self.qrels.frame["query"].astype(str))):
                yield Value(query, measure, math.nan)


provider = TiedrankProvider()
"""The registered provider (``ir_measures.providers.registry["tiedrank"]``)."""


def _register() -> None:
    """Register the provider and put it first in ir_measures' default pipeline (once)."""
    ir_measures.providers.registry.setdefault(provider.NAME, provider)
    chain = ir_measures.DefaultPipeline.providers
    if not any(isinstance(p, TiedrankProvider) for p in chain):
        chain.insert(0, provider)


_register()
