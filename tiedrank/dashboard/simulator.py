"""Simulator page: synthetic rerankers and quantised runs kept in the session ("my runs"), sweeps, downloads."""
from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ..core.data import Qrels, Run
from .datasets import SESSION_LABEL, dataset_key
from .settings import Settings

CUSTOM = "custom"
"""The Simulator's own reranker (levels and precision chosen by the user), beside the presets."""
PRECISION_CHOICES: tuple[str | None, ...] = (None, "float32", "float16", "bfloat16")
"""Score precisions offered by the Simulator (``None``: float64, no cast)."""
SWEEP_CHOICES = {"levels": "number of label levels (2-20)",
                 "tie_prob": "extra tie probability (0-0.9)",
                 "precision": "score precision"}
"""Parameters of the Simulator's sweep chart, with their labels."""


def precision_label(precision: str | None) -> str:
    """``None`` -> ``"float64 (no cast)"``; otherwise the precision's name."""
    return "float64 (no cast)" if precision is None else str(precision)


def simulator_choices() -> list[str]:
    """The rerankers the Simulator can generate: the presets, then :data:`CUSTOM`."""
    from ..simulate import PRESETS

    return [*PRESETS, CUSTOM]


def simulator_presets() -> pd.DataFrame:
    """The presets for people: preset, description, scores (``labels 0-10``,
    ``continuous``) and precision (``float64 (no cast)`` when none)."""
    from ..simulate import preset_table

    table = preset_table()
    scores = ["continuous" if pd.isna(v) else f"labels 0-{int(v) - 1}" for v in table["levels"]]
    precision = [precision_label(None if pd.isna(v) else v) for v in table["precision"]]
    return pd.DataFrame({"preset": table["preset"], "description": table["description"],
                         "scores": scores, "precision": precision})


def simulated_spec(preset: str, *, quality: float = 1.0, tie_prob: float = 0.0,
                   levels: int | None = None, precision: str | None = None):
    """The :class:`~tiedrank.simulate.RerankerSpec` of one Simulator choice.

    A preset keeps its own levels and precision and takes the shared ``quality`` and
    ``tie_prob``; :data:`CUSTOM` also takes ``levels`` (``None``: continuous) and
    ``precision``. The run name is the preset's, with ``_q<quality>`` when the quality is
    not 1 and ``_tie<p>`` when extra ties are drawn, so two settings never share a name
    (e.g. ``0-10_q0.5_tie0.2``; ``custom-L7-bfloat16``).
    """
    from ..simulate import PRESETS, RerankerSpec, get_spec, normalize_precision

    quality, tie_prob = float(quality), float(tie_prob)
    suffix = (f"_q{quality:g}" if quality != 1.0 else "") + (f"_tie{tie_prob:g}" if tie_prob > 0 else "")
    if preset == CUSTOM:
        precision = normalize_precision(precision)
        name = "custom-" + (f"L{int(levels)}" if levels is not None else "continuous") \
            + (f"-{precision}" if precision else "")
        description = (f"{int(levels)} labels" if levels is not None else "continuous scores") \
            + (f" in {precision}" if precision else "")
        return RerankerSpec(name=name + suffix, quality=quality, tie_prob=tie_prob, levels=levels,
                            precision=precision, description=description)
    if preset not in PRESETS:
        raise ValueError(f"unknown reranker {preset!r}; expected one of {', '.join(simulator_choices())}")
    return get_spec(preset, name=PRESETS[preset].name + suffix, quality=quality, tie_prob=tie_prob)


def frame_hash(frame: pd.DataFrame) -> str:
    """sha256 over a frame's values and column names (index ignored): a content key."""
    digest = hashlib.sha256(repr(list(frame.columns)).encode())
    digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return digest.hexdigest()


@dataclass(frozen=True, eq=False)
class RunSet:
    """Runs on one query set, made in the dashboard (simulated or quantised): "my runs".

    Attributes
    ----------
    qrels : Qrels
    runs : dict of str to Run
    origin : str
        Where the query set comes from, in words (shown in the sidebar).
    rel_level : int
        The relevance level the set is meant to be evaluated at.
    query_text : dict of str to str
    qrels_key, run_keys
        Content hashes (:func:`frame_hash`): two sets with the same ``qrels_key`` are on
        the same query set.
    recipe : tuple of str, or None
        The steps that make the set again (:mod:`tiedrank.dashboard.recipes`: what the link
        carries); ``None`` when some of its runs cannot be made from settings alone (a
        quantised upload).
    """

    qrels: Qrels
    runs: dict[str, Run]
    origin: str
    rel_level: int = 1
    query_text: dict[str, str] = field(default_factory=dict)
    qrels_key: str = ""
    run_keys: dict[str, str] = field(default_factory=dict)
    recipe: tuple[str, ...] | None = None

    @property
    def key(self) -> str:
        """Cache key of the whole set (query set, run names and contents, in order)."""
        return dataset_key(["runset", self.qrels_key, *self.run_keys.items()])

    @property
    def label(self) -> str:
        """``Simulated in this session: 2 runs (0-10, 3-point)``."""
        n = len(self.runs)
        return f"{SESSION_LABEL}: {n} run{'s' if n != 1 else ''} ({', '.join(self.runs)})"


def make_run_set(qrels: Qrels, runs: Mapping[str, Run], origin: str, *, rel_level: int = 1,
                 query_text: Mapping[str, str] | None = None,
                 recipe: Sequence[str] | None = None) -> RunSet:
    """A :class:`RunSet` with its content hashes; runs are renamed to their keys;
    ``recipe``: the steps that make it again (``None``: none can)."""
    named = {name: run if run.name == name else Run(name, run.frame, run.source, run.findings)
             for name, run in runs.items()}
    return RunSet(qrels=qrels, runs=named, origin=origin, rel_level=int(rel_level),
                  query_text=dict(query_text or {}), qrels_key=frame_hash(qrels.frame),
                  run_keys={name: frame_hash(run.frame) for name, run in named.items()},
                  recipe=None if recipe is None else tuple(recipe))


def add_outcome(current: RunSet | None, new: RunSet) -> str:
    """What :func:`add_runs` will do: ``"new"`` (nothing kept yet), ``"added"`` (same
    query set: the runs go beside the kept ones) or ``"replaced"`` (another query set)."""
    if current is None or not current.runs:
        return "new"
    return "added" if current.qrels_key == new.qrels_key else "replaced"


def add_runs(current: RunSet | None, new: RunSet) -> tuple[RunSet, str]:
    """Add ``new``'s runs to the kept set ``current``; returns (set, :func:`add_outcome`).

    On the same query set the runs are added beside the kept ones: a run identical to a
    kept run of the same name is not duplicated, a different run with a taken name gets
    `` (2)``, `` (3)``, ... On another query set ``new`` replaces ``current``. The recipe
    of the result is the kept one followed by ``new``'s (``None`` if either has none).
    """
    outcome = add_outcome(current, new)
    if outcome != "added":
        return new, outcome
    runs, keys = dict(current.runs), dict(current.run_keys)
    for name, run in new.runs.items():
        key = new.run_keys[name]
        target, n = name, 2
        while target in runs and keys[target] != key:
            target, n = f"{name} ({n})", n + 1
        runs[target] = run if run.name == target else Run(target, run.frame, run.source, run.findings)
        keys[target] = key
    recipe = None if current.recipe is None or new.recipe is None else current.recipe + new.recipe
    merged = RunSet(qrels=current.qrels, runs=runs, origin=current.origin,
                    rel_level=current.rel_level, query_text=current.query_text,
                    qrels_key=current.qrels_key, run_keys=keys, recipe=recipe)
    return merged, outcome


def already_kept(current: RunSet | None, new: RunSet) -> list[str]:
    """Names of ``new``'s runs that ``current`` already holds (same query set, same name,
    same content): adding them changes nothing."""
    if current is None or current.qrels_key != new.qrels_key:
        return []
    return [name for name, key in new.run_keys.items() if current.run_keys.get(name) == key]


NO_LINK = ("A link cannot make these runs again (quantised from uploads or from my runs): "
           "download them to keep them.")
"""What the Simulator says of runs without a recipe (:attr:`RunSet.recipe`)."""


def add_message(current: RunSet | None, new: RunSet) -> str:
    """One sentence telling the user what adding ``new`` to "my runs" will do (and, for runs
    a link cannot make again, :data:`NO_LINK`)."""
    text = _add_message(current, new)
    return text if new.recipe is not None else f"{text} {NO_LINK}"


def _add_message(current: RunSet | None, new: RunSet) -> str:
    n = len(new.runs)
    runs = f"{n} run{'s' if n != 1 else ''}"
    outcome = add_outcome(current, new)
    if outcome == "new":
        return (f"Adds the {runs} to **my runs** and switches the sidebar to "
                f"**{SESSION_LABEL}**, so every page analyses them.")
    kept = f"{len(current.runs)} run{'s' if len(current.runs) != 1 else ''}"
    if outcome == "added":
        there = already_kept(current, new)
        if len(there) == n:
            return f"{'This run is' if n == 1 else f'These {runs} are'} already in **my runs**."
        fresh = n - len(there)
        return (f"Same query set as your {kept} in **my runs** ({current.origin}): "
                f"{fresh} new run{'s are' if fresh != 1 else ' is'} added beside them"
                + (f" ({', '.join(there)} already there)." if there else "."))
    return (f"**A different query set** from your {kept} in **my runs** ({current.origin}): "
            f"adding **replaces** them with {'this run' if n == 1 else f'these {runs}'}.")


def simulate_set(presets: Sequence[str], *, n_queries: int = 50, docs_per_query: int = 100,
                 relevant_per_query: tuple[int, int] = (1, 10), quality: float = 1.0,
                 tie_prob: float = 0.0, levels: int | None = None, precision: str | None = None,
                 seed: int = 0, rel_level: int = 1) -> RunSet:
    """Simulate ``presets`` (see :func:`simulated_spec`) on one query set, one seed.

    The query set is :func:`tiedrank.simulate.make_queries` (``relevant_per_query`` is
    clipped to ``docs_per_query``); every run shares the seed, hence the noise, so the
    runs differ only by their settings. The set's recipe is these arguments
    (:func:`tiedrank.dashboard.recipes.simulation_step`).
    """
    from ..simulate import make_queries, simulate_run
    from .recipes import simulation_step

    if not presets:
        raise ValueError("choose at least one reranker to simulate")
    low, high = (min(int(v), int(docs_per_query)) for v in relevant_per_query)
    qrels = make_queries(int(n_queries), int(docs_per_query), (low, high), seed=int(seed))
    runs: dict[str, Run] = {}
    for preset in dict.fromkeys(presets):
        spec = simulated_spec(preset, quality=quality, tie_prob=tie_prob, levels=levels,
                              precision=precision)
        runs[spec.name] = simulate_run(qrels, spec, seed=int(seed))
    relevant = f"{low} relevant" if low == high else f"{low}-{high} relevant"
    origin = (f"{n_queries} simulated queries x {docs_per_query} candidates, {relevant} per "
              f"query, seed {seed}")
    step = simulation_step(list(dict.fromkeys(presets)), n_queries=n_queries,
                           docs_per_query=docs_per_query, relevant_per_query=relevant_per_query,
                           quality=quality, tie_prob=tie_prob, levels=levels, precision=precision,
                           seed=seed, rel_level=rel_level)
    return make_run_set(qrels, runs, origin, rel_level=rel_level, recipe=(step,))


def quantized_set(run: Run, qrels: Qrels, *, levels: int | None = None,
                  precision: str | None = None, method: str = "query", origin: str = "",
                  rel_level: int = 1, query_text: Mapping[str, str] | None = None,
                  dataset: str | None = None) -> RunSet:
    """A loaded run and its quantised copy (:func:`tiedrank.simulate.quantize_run`), in
    that order, on the loaded qrels. The copy is named ``<run>-L<levels>[-<precision>]``.
    ``dataset``: the bundled dataset the run comes from, which lets a link make the set
    again (:func:`tiedrank.dashboard.recipes.quantisation_step`); ``None`` (an upload, my
    runs): no recipe."""
    from ..simulate import quantize_run
    from .recipes import quantisation_step

    quantized = quantize_run(run, levels=levels, precision=precision, method=method)
    recipe = None if dataset is None else (quantisation_step(
        dataset, run.name, levels=levels, precision=precision, method=method,
        rel_level=rel_level),)
    return make_run_set(qrels, {run.name: run, quantized.name: quantized}, origin,
                        rel_level=rel_level, query_text=query_text, recipe=recipe)


def evaluate_set(run_set: RunSet, metrics: Sequence[str], settings: Settings):
    """The core's evaluation of a :class:`RunSet` with ``ties="all"`` at ``settings``
    (:meth:`Settings.options`: relevance level, gain, rounding)."""
    from ..core.evaluation import build_tables, score_tables

    options = settings.options("all")
    return score_tables(build_tables(run_set.runs, run_set.qrels, options), list(metrics),
                        options)


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
