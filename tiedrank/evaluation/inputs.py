"""The runs and qrels an evaluation is given, whatever shape holds them: run sources, labels, reading on demand."""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping

import pandas as pd

from ..core.data import Qrels, Run, exports_arrow
from ..core.machine import release_unused_memory
from ..core.options import EvaluationOptions
from ..core.peers import PEERS


def unique_label(name: str, taken: "Iterable[str]") -> str:
    """``name``, or ``"name (2)"``, ``"name (3)"``, ... if ``taken`` already holds it.

    Two files with the same TREC tag stay apart under the same rule everywhere.

    Examples
    --------
    >>> unique_label("bm25", ["bm25", "bm25 (2)"])
    'bm25 (3)'
    """
    taken = set(taken)
    label, n = name, 2
    while label in taken:
        label, n = f"{name} ({n})", n + 1
    return label


def unique_labels(names: "Iterable[str]") -> list[str]:
    """``names`` told apart by :func:`unique_label`, in order: the names one pass gives the
    runs, which the scaled paths give them before reading them.

    >>> unique_labels(["bm25", "dense", "bm25"])
    ['bm25', 'dense', 'bm25 (2)']
    """
    labels: list[str] = []
    for name in names:
        labels.append(unique_label(name, labels))
    return labels


def run_sources(runs) -> list[tuple[str | None, object]]:
    """(name or None, source) of every run in ``runs``, whatever shape holds them.

    A dict gives names (``{name: run}``, also ``{name: {query: {doc: score}}}``); one
    pytrec_eval run ``{query: {doc: score}}``, one ranx ``Run``, one frame, path or bytes,
    or an iterable of ``(query, doc, score)`` rows is one run; a list is several. Nothing is
    read here, so every door (one pass, buckets, Dask) sees the runs the same way; an Arrow
    exporter (a polars DataFrame, a pyarrow Table, a DuckDB relation) is one run. Other
    tools' objects are told apart by :mod:`tiedrank.interop` (:data:`~tiedrank.core.peers.PEERS`).
    """
    if isinstance(runs, Mapping) and runs and isinstance(next(iter(runs.values())), Mapping) \
            and not PEERS.is_nested_runs(runs):
        return [(None, runs)]  # one pytrec_eval run {query: {doc: score}}
    if isinstance(runs, Mapping):
        return list(runs.items())  # {name: run}, also {name: {query: {doc: score}}}
    if isinstance(runs, (Run, pd.DataFrame, str, os.PathLike, bytes)) or exports_arrow(runs) or (
            not isinstance(runs, (list, tuple)) and not hasattr(runs, "__next__") and
            PEERS.is_peer_object(runs)):
        return [(None, runs)]  # one run (a ranx Run, ...)
    if not isinstance(runs, Iterable):
        raise TypeError(f"cannot read runs from {type(runs).__name__}; pass a run or a list "
                        f"or dict of runs, each {PEERS.accepted}")
    runs = list(runs)
    one = bool(runs) and isinstance(runs[0], tuple) and not isinstance(runs[0], Run) \
        and len(runs[0]) >= 3 and not isinstance(runs[0][0], (Run, pd.DataFrame))
    return [(None, runs)] if one else [(None, r) for r in runs]  # rows, or a list of runs


def label_runs(runs, options: EvaluationOptions | None = None) -> dict[str, Run]:
    """Runs by name: a dict keeps its names, otherwise the TREC tag or file name; a
    repeated name becomes ``"name (2)"`` (:func:`unique_label`). Paths are read with the
    reading options of ``options`` (duplicates, columns)."""
    out = {label: run for label, run, _ in labelled_runs(runs, options)}
    if not out:
        raise ValueError("no runs to evaluate")
    return out


def labelled_runs(runs, options: EvaluationOptions | None = None
                  ) -> Iterator[tuple[str, Run, bool]]:
    """(label, run, read from a file here) of each run of ``runs`` in turn, each read only
    when asked for, with the labels of :func:`label_runs` (a label depends on the labels
    before it alone).

    A caller that builds each run's table and lets the run go before asking for the next
    holds one run's rows at a time, not every run's (:func:`build_tables`)."""
    from ..io import read_run  # local: io imports pyarrow.csv, not needed for table use

    reading = (options or EvaluationOptions()).reading()
    taken: list[str] = []
    for name, item in run_sources(runs):
        run = item if isinstance(item, Run) else read_run(item, name=name, **reading)
        label = unique_label(run.name if name is None else name, taken)
        if label != run.name:
            run = Run(label, run.frame, run.source, run.findings)
        taken.append(label)
        yield label, run, isinstance(item, (str, os.PathLike, bytes))
        # before the next run is read: a caller done with this one (build_tables) has let
        # it go, and the allocators would keep its columns and the build's temporaries
        del run, item
        release_unused_memory()


def read_qrels_input(qrels, options: EvaluationOptions | None = None) -> Qrels:
    """``qrels`` as a :class:`Qrels` (read with ``options.qrels_columns`` if not one)."""
    if isinstance(qrels, Qrels):
        return qrels
    from ..io import read_qrels

    return read_qrels(qrels, columns=dict((options or EvaluationOptions()).qrels_columns) or None)


RunInput = Run | pd.DataFrame | str | os.PathLike | bytes
