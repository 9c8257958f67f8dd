"""``evaluate`` past one process: bucket by bucket on one machine, or on a Dask cluster."""
from __future__ import annotations

import math
import os
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.data import Qrels, Run
from ..core.errors import InputError, Remedy
from ..core.progress import step
from ..evaluation.argument_order import check_argument_order
from ..evaluation import (Evaluation, as_metrics, read_qrels_input,
                               unique_labels)
from ..core.options import EvaluationOptions, make_options
from .buckets import (
    BLOCK_BYTES,
    RunPart,
    bucket_set,
    check_buckets,
    run_items,
    run_names,
    split_qrels,
    split_run,
    temporary_directory,
)
from .cluster import CONNECT_TIMEOUT, EVALUATION_MODULES, check_timeout, connect, run_all, share
from .evaluation import (
    Plan,
    combine,
    evaluate_bucket,
    evaluate_source,
    write_result,
)
from .output import transaction

AUTO_THRESHOLD_BYTES = 256 << 20
"""Below this much input (text bytes, gzip counted x4), ``buckets=None`` means one pass
(one pass holds one run at a time: a 7M-line run of 273 MB peaks at 575 MiB)."""
BUCKET_BYTES = 128 << 20
"""Input text per bucket when ``buckets=None`` splits: a bucket then takes under 1 GB."""
WHOLE_RUN_BYTES = 320 << 20
"""The largest run (with the qrels) that ``buckets=None`` reads whole, in one task, rather
than split: the core takes the run's columns over as it builds the table, so a task holds
about 2.5x the text (a 7M-line run of 273 MB: 666 MB with its per-query rows), under 1 GB."""
_GZIP_RATIO = 4
_BYTES_PER_ROW = 48  # a TREC run line, for in-memory inputs


def input_bytes(runs: Any, qrels: Any) -> int:
    """Estimated text size of the inputs (files by their size, gzip x4; frames by rows)."""
    return sum(_source_bytes(source) for _, source in run_items(runs)) + _source_bytes(qrels)


def _source_bytes(source: Any) -> int:
    if isinstance(source, (str, os.PathLike)) and os.path.exists(source):
        with open(source, "rb") as handle:
            gzipped = handle.read(2) == b"\x1f\x8b"
        return os.path.getsize(source) * (_GZIP_RATIO if gzipped else 1)
    if isinstance(source, (bytes, bytearray)):
        return len(source)
    if isinstance(source, (Run, Qrels)):
        return len(source.frame) * _BYTES_PER_ROW
    if hasattr(source, "__len__"):
        return len(source) * _BYTES_PER_ROW
    return 0


def choose_buckets(runs: Any, qrels: Any) -> int:
    """Buckets for ``buckets=None``: 0 (one pass) below :data:`AUTO_THRESHOLD_BYTES`; else
    1 (each run read whole, in a task of its own: no split) when the largest run is at most
    :data:`WHOLE_RUN_BYTES`, and one bucket per :data:`BUCKET_BYTES` of it beyond (runs are
    done one by one, so the largest decides).

    Splitting runs that a task can hold whole only reads and writes every row once more:
    12 runs x 1M rows (35 MB each) split into 2 buckets made the split tasks 4.8 s of the
    6.8 s on ``local:2``; 12 runs x 4M rows (160 MB each) split into 2 took 12.5 s on
    ``local:2`` (1.24x one core, 22.6 CPU s), whole 8.6 s (1.93x, 15.4 CPU s; the largest
    process 637 MB; benchmarks/RESULTS.md, 2026-11-29).

    Examples
    --------
    >>> choose_buckets([b"q Q0 d 1 1.0 r\\n"], b"q 0 d 1\\n")
    0
    """
    sources = [source for _, source in run_items(runs)]
    total = sum(_source_bytes(s) for s in sources) + _source_bytes(qrels)
    if total < AUTO_THRESHOLD_BYTES:
        return 0
    largest = max(_source_bytes(s) for s in sources) + _source_bytes(qrels)
    return 1 if largest <= WHOLE_RUN_BYTES else math.ceil(largest / BUCKET_BYTES)


def evaluate(runs: Any, qrels: Any, metrics: Any, *,
             options: EvaluationOptions | None = None,
             buckets: int | None = None, client: Any = None,
             out: str | os.PathLike | None = None, spill_dir: str | os.PathLike | None = None,
             block_bytes: int = BLOCK_BYTES, timeout: float = CONNECT_TIMEOUT,
             **option_values: Any) -> Evaluation:
    """:func:`tiedrank.evaluate` for inputs larger than memory or on a Dask cluster.

    Runs and qrels are read once, in blocks, and split by a stable hash of the query id
    into ``buckets`` buckets of Arrow IPC files in a temporary directory (removed at the end,
    also on error); then each (run, bucket) is evaluated on its own, here one after the
    other or as Dask tasks, by the core's ``build_tables`` and ``score_tables`` with the
    same options. The result equals the one-pass ``evaluate`` bit for bit: per-query frame,
    summary (exact means) and ``report()``; ``tables`` is empty.

    Parameters
    ----------
    runs, qrels, metrics
        As :func:`tiedrank.evaluate` (paths are streamed: TREC text, gzip, Parquet; the
        in-memory shapes it takes are read here, in this process).
    options : EvaluationOptions, optional
        The evaluation options as one value; keyword arguments (``ties=``, ``rel_level=``,
        ``depth=``, ``complete=``, ``duplicates=``, ``columns=``... every option of
        :func:`tiedrank.evaluate`) set or override them.
    buckets : int, optional
        Number of buckets. 1 splits nothing: one task per run reads it whole and
        evaluates it (memory: one run at a time). None chooses (:func:`choose_buckets`):
        one pass below 256 MB of input, else one bucket per 128 MB of the largest run (1
        when it fits in one);
        with a small input and a ``client``: 1 (one task per run; splitting a small input
        to give more workers something to do costs more than it saves: the split reads
        and writes every row once more, in one task per run).
    client : distributed.Client or str, optional
        ``"local:N"`` (N worker processes here), ``"tcp://host:port"`` (a running
        scheduler) or a Client. Tasks are (run, bucket), after one split task per run.
    out : path, optional
        Write the per-query rows as Parquet under ``out/per_query/`` where each task runs
        (read them back with :func:`tiedrank.distributed.read_per_query`) and gather only
        the summaries; ``per_query`` of the result is then empty. ``out`` also gets
        ``report.csv``, ``summary.csv`` and ``manifest.json`` (which lists every file). A
        transaction: all is written into a temporary sibling directory and renamed into
        place when complete; a previous tiedrank result in ``out`` is replaced whole, a
        non-empty directory that is not one is refused, and so is a second writer of the
        same ``out`` while the first runs (:mod:`tiedrank.distributed.output`).
    spill_dir : path, optional
        Parent of the temporary bucket directory (default: the system's temporary
        directory). Workers on other machines must see it (a shared file system).
    block_bytes : int
        Text read per block.
    timeout : float
        Seconds to wait for a remote scheduler to answer, and for a worker when the cluster
        has none (every worker died mid-run, or none joined: :class:`WorkersLost`) (CLI:
        ``--dask-timeout``).

    Examples
    --------
    >>> import pandas as pd
    >>> run = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["a", "b", "c"],
    ...                     "score": [1.0, 1.0, 0.5]})
    >>> qrels = pd.DataFrame({"query": ["q1", "q2"], "doc": ["b", "c"], "relevance": [1, 1]})
    >>> ev = evaluate({"r": run}, qrels, ["RR"], ties="all", buckets=2)
    >>> ev.report()[["expected", "best", "worst"]].values.tolist()
    [[0.875, 1.0, 0.75]]
    """
    plan = Plan(tuple(as_metrics(metrics)), make_options("evaluate", options, **option_values))
    check_argument_order(runs, qrels, options=plan.options, files=True)  # ranx's order
    check_timeout(timeout)
    if buckets is None:
        buckets = choose_buckets(runs, qrels)
        if client is not None and buckets == 0:
            # small input: one task per run. Splitting it into buckets so that more workers
            # get a share made the evaluation 1.3-5.6x slower on two workers, even for a
            # single run (benchmarks/RESULTS.md, 2026-11-25): the split task reads the run
            # and writes it again before any bucket task starts.
            buckets = 1
    if buckets != 0:
        check_buckets(buckets)
        _refuse_standard_input(runs, qrels)
    if out is None:
        return _evaluate(runs, qrels, plan, buckets, client, None, spill_dir, block_bytes,
                         timeout)[0]
    # a transaction: written beside ``out``, renamed into place when complete
    with transaction(out) as directory:
        evaluation, labels = _evaluate(runs, qrels, plan, buckets, client, directory,
                                       spill_dir, block_bytes, timeout)
        write_result(directory, evaluation, labels, plan)
    return evaluation


def _refuse_standard_input(runs: Any, qrels: Any) -> None:
    """Standard input can be read once, by this process: it cannot be split in blocks (which
    reads a file twice: a head for the run's name, then the blocks) nor read by a worker."""
    sources = [source for _, source in run_items(runs)] + [qrels]
    if any(isinstance(s, (str, os.PathLike)) and os.fspath(s) == "-" for s in sources):
        raise InputError(
            "standard input cannot be split into buckets or read by Dask workers: it can be "
            "read only once, by this process", source="-",
            expected="a file: save the input to a file and give its path",
            remedy=Remedy("buckets", "0 and no client=", "(one pass)", placeholder=True,
                          lead="or"))


def _evaluate(runs: Any, qrels: Any, plan: Plan, buckets: int, client: Any,
              out_text: str | None, spill_dir: Any, block_bytes: int, timeout: float
              ) -> tuple[Evaluation, list[str]]:
    """The evaluation and its run labels; per-query rows go to ``out_text`` if given."""
    if buckets == 0:
        return _one_pass(runs, qrels, plan, out_text)
    columns = dict(plan.options.columns) or None
    qrels_columns = dict(plan.options.qrels_columns) or None
    duplicates = plan.options.duplicates
    items = [(name, _absolute(source)) for name, source in run_names(runs, columns)]
    # connect first: an unreachable scheduler fails in seconds, before any file is read
    with nullcontext() if client is None else connect(
            client, timeout=timeout, modules=EVALUATION_MODULES) as dask_client:
        def each(function, arguments, name):
            if dask_client is None:
                results = []
                for done, args in enumerate(arguments, 1):
                    results.append(function(*args))
                    step(f"{name} tasks", done, len(arguments))
                return results
            return run_all(dask_client, function, arguments, name=name, timeout=timeout)

        if buckets == 1:  # no split: one task per run reads and evaluates it whole
            qrels_obj = read_qrels_input(qrels, plan.options)
            shared = qrels_obj if dask_client is None else share(dask_client, qrels_obj,
                                                                 timeout=timeout)
            results = each(evaluate_source, [(i, name, source, shared, plan, out_text)
                                             for i, (name, source) in enumerate(items)], "run")
            labels = unique_labels([r.run_name for r in results])
            parts = [RunPart(i, label, "", 0, 1) for i, label in enumerate(labels)]
            return combine(results, parts, plan), labels
        with temporary_directory(spill_dir) as directory:
            qrels_part = split_qrels(qrels, buckets, directory, columns=qrels_columns)
            split_parts = each(split_run, [(directory, i, name, source, buckets, duplicates,
                                            block_bytes, None, columns)
                                           for i, (name, source) in enumerate(items)], "split")
            bucket_set_ = bucket_set(directory, buckets, split_parts, qrels_part)
            # a bucket with neither qrels nor run rows adds nothing: no task for it
            tasks = [(bucket_set_, part.index, b, plan, out_text)
                     for b in range(buckets) for part in bucket_set_.runs
                     if bucket_set_.run_path(part.index, b).exists()
                     or bucket_set_.qrels_path(b).exists()]
            results = each(evaluate_bucket, tasks, "bucket")
            labels = [p.name for p in bucket_set_.runs]
            return combine(results, bucket_set_.runs, plan, bucket_set_.qrels_findings), labels


def _absolute(source: Any) -> Any:
    """Paths made absolute, so that worker processes find them whatever their directory."""
    if isinstance(source, (str, os.PathLike)) and os.path.exists(source):
        return os.path.abspath(source)
    return source


def _one_pass(runs: Any, qrels: Any, plan: Plan, out: str | None
              ) -> tuple[Evaluation, list[str]]:
    """Small input: the core in this process (with its tie tables), per-query rows written
    to ``out`` like the bucketed path when asked."""
    from .evaluation import write_atomic

    ev = plan.evaluate(runs, qrels)
    if out is None:
        return ev, list(ev.tables)
    write_atomic(ev.per_query, Path(out, "per_query", "run00000-b00000.parquet"))
    return replace(ev, per_query=ev.per_query.iloc[0:0]), list(ev.tables)  # rows on disk
