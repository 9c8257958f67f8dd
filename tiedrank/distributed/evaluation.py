"""Evaluate bucket by bucket, then put the pieces together as one pass would have.

One task is (run, bucket): load the bucket's qrels and the run's rows in it, call
:func:`tiedrank.evaluation.evaluate`, and send back the per-query rows (or write them as
Parquet where the task runs) plus the *exact* partial sums of every (run, metric, policy)
(:class:`tiedrank.core.summation.ExactSum`). Per-query values depend on (run, query, seed)
alone and exact sums add in any order, so :func:`combine` rebuilds the one-pass
:class:`~tiedrank.evaluation.Evaluation` bit for bit: per-query frame, summary and report.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.data import Qrels, Run
from ..core.errors import Finding
from ..evaluation import Evaluation, build_tables, score_tables, scored_pairs
from ..interop.trec_eval import trec_eval_counts
from ..io.outputs import writing
from ..metrics import Metric
from ..core.options import EvaluationOptions
from ..evaluation.summaries import partial_summary, summary_of
from ..core.summation import SUMMARY_KEYS, ExactSum
from .buckets import MARKER, BucketSet, RunPart, check_visible, load_qrels, load_run
from .output import PER_QUERY_DIR, OutputError, read_manifest, write_manifest

_PER_QUERY_DIR = PER_QUERY_DIR
_MAX_LISTED = 20
# findings of the tie table whose message begins with their count: merged across buckets
_COUNTED = ("queries_not_in_qrels", "unjudged_documents", "queries_missing_from_run",
            "queries_without_relevant")


@dataclass(frozen=True)
class Plan:
    """What every task evaluates: the metrics and the one options value (plain, picklable).

    Each task calls the core's :func:`~tiedrank.evaluation.build_tables` and
    :func:`~tiedrank.evaluation.score_tables` with ``options``, as one pass does.
    """

    metrics: tuple[Metric, ...]
    options: EvaluationOptions

    def metric_names(self) -> list[str]:
        """The metrics' names in the order one pass lists them (first seen in :meth:`pairs`:
        a wrapped ``Best(AP)`` after the metrics of the evaluation's own policies)."""
        return list(dict.fromkeys(metric for _, metric in self.pairs()))

    def pairs(self) -> list[tuple[str, str]]:
        """(policy label, metric name) of each result, in one-pass order (the core's
        :func:`~tiedrank.evaluation.scored_pairs`: a wrapped ``Best(AP)`` under its policy only)."""
        return [(policy.label, metric.name)
                for policy, metric in scored_pairs(self.metrics, self.options)]

    def policy_labels(self) -> list[str]:
        return list(dict.fromkeys(policy for policy, _ in self.pairs()))

    def read_run(self, source: Any, name: str | None = None) -> Run:
        """``source`` read with the options' reading rules (a Run is taken as it is)."""
        from ..io import read_run

        if isinstance(source, Run):
            return source
        return read_run(source, name=name, **self.options.reading())

    def evaluate(self, runs, qrels) -> Evaluation:
        return score_tables(build_tables(runs, qrels, self.options), self.metrics, self.options)


@dataclass(frozen=True)
class BucketResult:
    """What one (run, bucket) task sends back: small unless ``per_query`` is kept."""

    run_index: int
    bucket: int
    run_name: str
    per_query: pd.DataFrame | None
    groups: pd.DataFrame
    sums: list[ExactSum]
    findings: tuple[Finding, ...]
    rule: str
    counts: pd.DataFrame | None = None
    """trec_eval's counts of the bucket's queries (:func:`trec_eval_counts` of its table)."""


def evaluate_bucket(buckets: BucketSet, run_index: int, bucket: int, options: Plan,
                    out: str | None = None) -> BucketResult:
    """Evaluate one run on one bucket (the unit of work, locally or on a Dask worker).

    With ``out``, the per-query rows are written to ``out/per_query/`` as Parquet (write to
    a temporary name, then an atomic rename: a task retried after a crash leaves no
    half-written file) and not sent back.
    """
    if not Path(buckets.directory, MARKER).exists():
        raise FileNotFoundError(
            f"bucket directory {buckets.directory!r} is not visible here (host "
            f"{os.uname().nodename}); workers on other machines need a directory on a file "
            "system they all share: pass spill_dir= (CLI: TMPDIR) on it")
    qrels = load_qrels(buckets, bucket)
    run = load_run(buckets, run_index, bucket, options.options.duplicates)
    if len(qrels.frame) == 0:
        return BucketResult(run_index, bucket, run.name, None, _empty_groups(), [],
                            run.findings + _not_in_qrels(run), "")
    return _result(run_index, bucket, {run.name: run}, qrels, options, out)


def evaluate_source(run_index: int, name: str | None, source: Any, qrels: Qrels,
                    options: Plan, out: str | None = None) -> BucketResult:
    """Evaluate one whole run, read here (the task when one bucket suffices: no split).

    The core reads it (``build_tables`` given the source, not a :class:`Run`), so the
    table's build takes the run's columns over as it goes, as in one pass: a 7M-line run
    (273 MB) peaked at 868 MB read here first, at 666 MB so (`--buckets 1 -q`)."""
    check_visible(source)
    return _result(run_index, 0, [source] if name is None else {name: source}, qrels,
                   options, out)


def _result(run_index: int, bucket: int, runs: Any, qrels: Qrels, options: Plan,
            out: str | None) -> BucketResult:
    """The result of one run, ``runs`` holding it alone (a Run or its source)."""
    ev = options.evaluate(runs, qrels)
    (label, table), = ev.tables.items()
    groups, sums = partial_summary(ev.per_query, metrics=options.metrics)
    per_query = ev.per_query
    counts = trec_eval_counts(table)
    table.drop_views()  # no base <-> view cycle: the bucket's table is freed on return
    if out is not None:
        write_atomic(per_query, Path(out, _PER_QUERY_DIR,
                                      f"run{run_index:05d}-b{bucket:05d}.parquet"))
        per_query = None
    return BucketResult(run_index, bucket, label, per_query, groups, sums,
                        tuple(ev.findings), ev.rule, counts)


def _empty_groups() -> pd.DataFrame:
    return pd.DataFrame({"run": [], "metric": [], "policy": [], "n_queries": []})


def _not_in_qrels(run: Run) -> tuple[Finding, ...]:
    """The finding one pass makes for run queries absent from the qrels (whole bucket)."""
    unknown = pd.unique(run.frame["query"])
    if not len(unknown):
        return ()
    n = len(unknown)
    return (Finding("queries_not_in_qrels",
                    f"{n} quer{'y' if n == 1 else 'ies'} of run {run.name!r} not in the "
                    "qrels; not evaluated", run.source, n,
                    tuple(map(str, unknown[:_MAX_LISTED]))),)


def write_atomic(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` as Parquet at ``path`` all at once: a partial file, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    with writing(path):
        frame.to_parquet(partial, index=False)
        os.replace(partial, path)


# ---- putting the buckets together --------------------------------------------------------
def combine(results: Sequence[BucketResult], parts: Sequence[RunPart], options: Plan,
            qrels_findings: Sequence[Finding] = ()) -> Evaluation:
    """The one-pass :class:`Evaluation` from every (run, bucket) result.

    ``parts`` name the runs (labelled: a repeated name is "name (2)"). ``tables`` is empty
    (no whole tie table ever exists); with per-query rows written to disk the per-query
    frame is empty too (:func:`read_per_query`).
    """
    runs = [part.name for part in parts]
    results = [_relabelled(r, runs[r.run_index]) for r in results]
    metrics, policies = options.metric_names(), options.policy_labels()
    pairs = options.pairs()
    frames = [r.per_query for r in results if r.per_query is not None]
    per_query = canonical_order(frames, runs, metrics, policies)
    summary = _summary(results, runs, options, policies, pairs)
    findings = _findings(results, parts, qrels_findings)
    rule = next((r.rule for r in results if r.rule), "")
    return Evaluation(per_query, summary, {}, findings, rule, options.options,
                      _counts(results, runs), metrics=options.metrics,
                      policies=tuple(dict.fromkeys(policy for policy, _ in
                                                   scored_pairs(options.metrics, options.options))))


def _relabelled(result: BucketResult, label: str) -> BucketResult:
    """The result under the run's display name (tasks only know the run's own name)."""
    if result.run_name == label:
        return result
    groups = result.groups.assign(run=label)
    per_query = None if result.per_query is None else result.per_query.assign(run=label)
    return replace(result, run_name=label, per_query=per_query, groups=groups)


def _counts(results: Sequence[BucketResult], runs: list[str]) -> pd.DataFrame:
    """trec_eval's per-query counts of every run, gathered from the buckets, in the one-pass
    order (run as given, then query id sorted as strings, as the tie table sorts them)."""
    frames = [(r.run_index, r.counts) for r in results if r.counts is not None and len(r.counts)]
    run = np.concatenate([np.full(len(c), i, dtype=np.int64) for i, c in frames] or
                         [np.zeros(0, dtype=np.int64)])
    query = np.concatenate([c.index.to_numpy(dtype=object) for _, c in frames] or
                           [np.zeros(0, dtype=object)]).astype(str)
    order = np.lexsort((query, run))
    columns = {name: np.concatenate([c[name].to_numpy(dtype=np.int64) for _, c in frames] or
                                    [np.zeros(0, dtype=np.int64)])[order]
               for name in ("num_ret", "num_rel", "num_rel_ret", "qrels_positive")}
    return pd.DataFrame({"run": pd.Categorical.from_codes(run[order], categories=runs),
                         "query": pd.array(query[order], dtype="str"), **columns})


def _categorical(values, categories: list[str]) -> pd.Categorical:
    return pd.Categorical(values, categories=categories)


def _codes(column: pd.Series, categories: list[str]) -> np.ndarray:
    """Positions of ``column``'s values in ``categories`` (-1 if absent), from the
    categorical codes when it has them: a lookup over the few categories, not the rows."""
    index = pd.Index(categories)
    if isinstance(column.dtype, pd.CategoricalDtype):
        lookup = np.append(index.get_indexer(column.cat.categories.astype(str)), -1)
        return lookup[column.cat.codes.to_numpy()]  # code -1 (missing) picks the -1 appended
    return index.get_indexer(column.astype(str))


def canonical_order(frames: Sequence[pd.DataFrame], runs: list[str], metrics: list[str],
                    policies: list[str]) -> pd.DataFrame:
    """Per-query rows in one-pass order: run, then policy, then metric (as evaluated), then
    query id (sorted as strings, as the tie table sorts the qrels' queries).

    Sorted on integer keys: category codes, and each row's query as its rank among the
    distinct query ids (a few thousand strings sorted, not a string sort of every row).
    """
    frames = [f for f in frames if len(f)]
    if not frames:
        empty = pd.DataFrame({"run": [], "query": pd.array([], dtype="str"), "metric": [],
                              "policy": [], "value": np.zeros(0)})
        frames = [empty]
    run, metric, policy = (np.concatenate([_codes(f[column], names) for f in frames])
                           for column, names in (("run", runs), ("metric", metrics),
                                                 ("policy", policies)))
    query = pd.concat([f["query"] for f in frames], ignore_index=True)
    query_codes, distinct = pd.factorize(query)
    rank = np.empty(len(distinct), dtype=np.int64)
    rank[np.argsort(np.asarray(distinct, dtype=object).astype(str), kind="stable")] = \
        np.arange(len(distinct))
    order = np.lexsort((rank[query_codes], metric, policy, run))
    value = np.concatenate([f["value"].to_numpy(dtype=np.float64) for f in frames])
    return pd.DataFrame({
        "run": pd.Categorical.from_codes(run[order], categories=runs),
        "query": query.take(order).array,
        "metric": pd.Categorical.from_codes(metric[order], categories=metrics),
        "policy": pd.Categorical.from_codes(policy[order], categories=policies),
        "value": value[order]})


def _summary(results: Sequence[BucketResult], runs: list[str], plan: Plan,
             policies: list[str], pairs: list[tuple[str, str]]) -> pd.DataFrame:
    metrics = plan.metric_names()
    kinds = {m.name: m.summary for m in plan.metrics}  # the plan's objects: no name parsed
    totals: dict[tuple[str, str, str], tuple[ExactSum, int]] = {}
    for result in results:
        for key, n, s in zip(result.groups[SUMMARY_KEYS].astype(str).itertuples(index=False),
                             result.groups["n_queries"].tolist(), result.sums):
            key = tuple(key)
            before, count = totals.get(key, (ExactSum(), 0))
            totals[key] = (before + s, count + int(n))
    # one pass lists every (run, policy, metric), also one no query counts in (NaN, 0)
    keys = [(run, metric, policy) for run in runs for policy, metric in pairs]
    return pd.DataFrame({
        "run": _categorical([k[0] for k in keys], runs),
        "metric": _categorical([k[1] for k in keys], metrics),
        "policy": _categorical([k[2] for k in keys], policies),
        "value": np.array([kinds[k[1]].finish(totals.get(k, (ExactSum(), 0))[0])
                           for k in keys], dtype=np.float64),
        "n_queries": np.array([totals.get(k, (ExactSum(), 0))[1] for k in keys],
                              dtype=np.int64)})


def _findings(results: Sequence[BucketResult], parts: Sequence[RunPart],
              qrels_findings: Sequence[Finding]) -> list[Finding]:
    """Reading findings, then per run the bucket findings merged by kind (counts summed,
    listed queries the first ones in id order), in the order one pass reports them."""
    out: list[Finding] = []
    for part in parts:
        merged: dict[tuple[str, str | None, str], list[Finding]] = {}
        for result in sorted(results, key=lambda r: r.bucket):
            if result.run_index != part.index:
                continue
            for f in result.findings:
                key = (f.kind, f.source, _without_count(f.message) if f.kind in _COUNTED
                       else f.message)
                merged.setdefault(key, []).append(f)
        reading = list(part.findings) + list(qrels_findings)
        for finding in reading + [_merge(group) for group in merged.values()]:
            if finding not in out:
                out.append(finding)
    return out


def _without_count(message: str) -> str:
    return re.sub(r"^\d+ ", "", re.sub(r"quer(y|ies)|(has|have) |^(\d+ retrieved )documents?",
                                       "", message))


def _merge(group: list[Finding]) -> Finding:
    if len(group) == 1 or group[0].kind not in _COUNTED:
        return group[0]
    count = sum(f.count for f in group)
    queries = tuple(sorted({q for f in group for q in f.queries}))[:_MAX_LISTED]
    message = re.sub(r"^\d+", str(count), group[0].message)
    plural = count != 1
    message = re.sub(r"\bquer(y|ies)\b", "queries" if plural else "query", message)
    message = re.sub(r"\b(has|have)\b", "have" if plural else "has", message)
    message = re.sub(r"^(\d+ retrieved )documents?\b",
                     r"\1documents" if plural else r"\1document", message)
    return Finding(group[0].kind, message, group[0].source, count, queries)


def write_result(out: str, evaluation: Evaluation, runs: list[str], options: Plan) -> None:
    """Complete the result in ``out``: ``report.csv``, ``summary.csv`` (full precision,
    string cells made safe for spreadsheets) and, last, the manifest listing the files."""
    from ..report import csv_safe

    report = evaluation.report()
    report.insert(2, "queries", evaluation.summary.groupby(
        ["run", "metric"], observed=True, sort=False)["n_queries"].first().to_numpy())
    with writing(Path(out, "report.csv")):
        csv_safe(report).to_csv(Path(out, "report.csv"), index=False, float_format="%.17g")
    with writing(Path(out, "summary.csv")):
        csv_safe(evaluation.summary).to_csv(Path(out, "summary.csv"), index=False,
                                            float_format="%.17g")
    Path(out, _PER_QUERY_DIR).mkdir(parents=True, exist_ok=True)
    write_manifest(out, runs, options.metric_names(), options.policy_labels())


def read_per_query(out: str | os.PathLike) -> pd.DataFrame:
    """The per-query frame written under ``out`` by ``evaluate(..., out=...)``, in the
    one-pass order (the same frame ``Evaluation.per_query`` would have been).

    Raises :class:`~tiedrank.distributed.output.OutputError` when ``out`` is not a complete
    result: no manifest, or per-query files missing from it or not listed in it.
    """
    manifest = read_manifest(out)
    files = [Path(out, _PER_QUERY_DIR, name) for name in manifest["files"]]
    runs = manifest["runs"]
    frames = []
    for f in files:
        index = int(f.name[3:8]) if re.fullmatch(r"run\d{5}-b\d{5}\.parquet", f.name) else -1
        if not 0 <= index < len(runs):
            raise OutputError(f"{f} names no run of {out}'s manifest ({len(runs)} runs)")
        # the run's display name from the manifest (a task knows only the run's own name)
        frames.append(pd.read_parquet(f).assign(run=runs[index]))
    return canonical_order(frames, runs, manifest["metrics"], manifest["policies"])
