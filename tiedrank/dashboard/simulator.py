"""Simulator page: synthetic rerankers and quantised runs (kept in the session as
:mod:`~tiedrank.dashboard.my_runs`), sweeps, downloads."""
from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from ..core.data import Qrels, Run
from .my_runs import RunSet
from .overview import order_flips, overview_cells, overview_long, tie_statistics_frame
from .recipes import (  # noqa: F401 - made from settings (shared: a link makes them again); the page's names
    CUSTOM,
    quantized_set,
    simulate_set,
    simulated_spec,
    simulator_choices,
)
from .settings import ViewSettings

PRECISION_CHOICES: tuple[str | None, ...] = (None, "float32", "float16", "bfloat16")
"""Score precisions offered by the Simulator (``None``: float64, no cast)."""
SWEEP_CHOICES = {"levels": "number of label levels (2-20)",
                 "tie_prob": "extra tie probability (0-0.9)",
                 "precision": "score precision"}
"""Parameters of the Simulator's sweep chart, with their labels."""


QUANTIZE_AT_ONCE = 1_000_000
"""A loaded run of at most this many lines is quantised as the page opens; a larger one (a
7M-line run: 17 s, and two more tables of its size in the server's memory) only when asked
(:func:`quantize_at_once`)."""


def quantize_at_once(lines: int) -> bool:
    """Whether the Simulator quantises a loaded run of ``lines`` lines without being asked.

    >>> quantize_at_once(4_423), quantize_at_once(6_980_000)
    (True, False)
    """
    return lines <= QUANTIZE_AT_ONCE

def precision_label(precision: str | None) -> str:
    """``None`` -> ``"float64 (no cast)"``; otherwise the precision's name."""
    return "float64 (no cast)" if precision is None else str(precision)


def simulator_presets() -> pd.DataFrame:
    """The presets for people: preset, description, scores (``labels 0-10``,
    ``continuous``) and precision (``float64 (no cast)`` when none)."""
    from ..simulate import preset_table

    table = preset_table()
    scores = ["continuous" if pd.isna(v) else f"labels 0-{int(v) - 1}" for v in table["levels"]]
    precision = [precision_label(None if pd.isna(v) else v) for v in table["precision"]]
    return pd.DataFrame({"preset": table["preset"], "description": table["description"],
                         "scores": scores, "precision": precision})


def evaluate_set(run_set: RunSet, metrics: Sequence[str], settings: ViewSettings):
    """The core's evaluation of a :class:`RunSet` with ``ties="all"`` at ``settings``
    (:meth:`ViewSettings.options`: relevance level, gain, rounding)."""
    from ..evaluation import build_tables, score_tables

    options = settings.options("all")
    return score_tables(build_tables(run_set.runs, run_set.qrels, options), list(metrics),
                        options)


def overview_tables(report: pd.DataFrame, tables, metrics: Sequence[str],
                    top: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The Overview page's tables for a run set's evaluation (its :meth:`report` and tie
    tables): one cell per run and metric (expected [worst, best] · trec, ⚠ where the order of
    the runs flips between the expectation and trec_eval's order), the same in long form for
    the download, and the tie statistics of the first ``top`` ranks."""
    flips = order_flips(report, "expected", "trec_eval")
    return (overview_cells(report, list(metrics), flips=flips), overview_long(report),
            tie_statistics_frame(tables, top=top))


def sweep_values(parameter: str) -> list:
    """The points of the Simulator's sweep: levels 2-20, tie probability 0-0.9 by 0.1,
    precisions float64 (``None``), float32, float16, bfloat16."""
    if parameter == "levels":
        return list(range(2, 21))
    if parameter == "tie_prob":
        return [round(0.1 * i, 1) for i in range(10)]
    if parameter == "precision":
        return list(PRECISION_CHOICES)
    raise ValueError(f"unknown sweep parameter {parameter!r}; expected one of {', '.join(SWEEP_CHOICES)}")


def simulator_sweep(parameter: str, *, base: str = "fine-grained", quality: float = 1.0,
                    n_queries: int = 50, docs_per_query: int = 100,
                    relevant_per_query: tuple[int, int] = (1, 10), metric: str = "RR",
                    rel_level: int = 1, seed: int = 0) -> pd.DataFrame:
    """:func:`tiedrank.simulate.sweep` of ``parameter`` over :func:`sweep_values`, on the
    query set of :func:`simulate_set` (same arguments, same queries), starting from the
    preset ``base`` with ``quality``.

    Returns the sweep's columns plus ``label`` (the value as text: ``float64 (no cast)``
    for no cast) and ``range`` (best - worst); no rows when no query has a document of
    grade ``rel_level`` or more (no metric is defined).
    """
    from ..simulate import SWEEP_COLUMNS, get_spec, make_queries, sweep

    low, high = (min(int(v), int(docs_per_query)) for v in relevant_per_query)
    qrels = make_queries(int(n_queries), int(docs_per_query), (low, high), seed=int(seed))
    if not (qrels.frame["relevance"] >= int(rel_level)).any():
        # simulate.sweep fails on an empty report (IndexError): nothing to evaluate anyway
        return pd.DataFrame(columns=[*SWEEP_COLUMNS, "label", "range"])
    spec = get_spec(base, quality=float(quality))
    table = sweep(parameter, sweep_values(parameter), base_spec=spec, qrels=qrels,
                  metric=metric, rel_level=int(rel_level), seed=int(seed))
    table["label"] = [precision_label(v) if parameter == "precision" else f"{v:g}"
                      for v in table["value"]]
    table["range"] = table["best"] - table["worst"]
    return table


def file_stem(name: str) -> str:
    """A run name as a safe file name stem (``0-10 (2)`` -> ``0-10_2``)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("._")
    return stem or "run"


def run_bytes(run: Run) -> bytes:
    """The run as a TREC run file (:func:`tiedrank.io.write_run`)."""
    import io

    from ..io import write_run

    buffer = io.BytesIO()
    write_run(run, buffer)
    return buffer.getvalue()


def qrels_bytes(qrels: Qrels) -> bytes:
    """The qrels as a TREC qrels file (:func:`tiedrank.io.write_qrels`)."""
    import io

    from ..io import write_qrels

    buffer = io.BytesIO()
    write_qrels(qrels, buffer)
    return buffer.getvalue()


def trec_zip(run_set: RunSet) -> bytes:
    """A zip of ``qrels.txt``, ``runs/<run>.txt`` (TREC formats) and a ``README.txt``
    naming the query set and the relevance level."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.txt", (
            f"Runs made with tiedrank's dashboard.\nQuery set: {run_set.origin}.\n"
            f"Evaluate at relevance level {run_set.rel_level}, e.g.\n"
            f"  tiedrank evaluate qrels.txt runs/*.txt --rel-level {run_set.rel_level} "
            f"-m RR -m nDCG@10\n"
            f"Runs: {', '.join(run_set.runs)}.\n"))
        archive.writestr("qrels.txt", qrels_bytes(run_set.qrels))
        used: set[str] = set()
        for name, run in run_set.runs.items():
            stem, n = file_stem(name), 2
            while stem in used:
                stem, n = f"{file_stem(name)}_{n}", n + 1
            used.add(stem)
            archive.writestr(f"runs/{stem}.txt", run_bytes(run))
    return buffer.getvalue()
