"""How the runs made on the Simulator page ("my runs") are made from settings, and travel in
a link. Part of the dashboard's shared layer (app.py replays a link's steps): the Simulator's
logic takes :func:`simulate_set` and :func:`quantized_set` from here.

"My runs" live in one browser session. What made them is small and exact: the Simulator's
settings (presets, sizes, quality, extra ties, levels, precision, seed, relevance level),
or a quantisation of a bundled dataset's run. Each generation or quantisation added to my
runs is one **step**, written as a short text (:func:`simulation_step`,
:func:`quantisation_step`); the link carries the steps in order (``?sim=…&sim=…``) and
:func:`replay` makes the same runs again, bit for bit, in another browser or after the
session expired: the same seeded simulation, then :func:`tiedrank.dashboard.my_runs.add_runs`
in the same order.

Runs quantised from uploads or from my runs have no step (``None``): a link to them says
they cannot be made again. The steps are checked as strictly as a form (the Simulator's
own bounds) and their total size is bounded (:data:`MAX_ROWS`), so a crafted link cannot
make the server simulate without limit.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.data import Qrels, Run
from .my_runs import RunSet, add_runs, make_run_set

CUSTOM = "custom"
"""The Simulator's own reranker (levels and precision chosen by the user), beside the presets."""
SIM_PARAM = "sim"
"""The link's parameter of the steps (repeated, in order)."""
MAX_STEPS = 12
"""Most steps a link may carry."""
MAX_ROWS = 3_000_000
"""Most simulated (query, document, run) rows a link may make: one Simulator form at its
largest (500 queries x 1,000 documents x 6 rerankers)."""

_PRECISIONS = {"none": None, "float32": "float32", "float16": "float16", "bfloat16": "bfloat16"}
_SEP = "~"  # unreserved in URLs: the steps stay readable in the address bar


class RecipeError(ValueError):
    """A step that does not describe runs the Simulator can make (the reason in words)."""


def _precision_text(precision: str | None) -> str:
    return "none" if precision is None else str(precision)


def simulation_step(presets: Sequence[str], *, n_queries: int, docs_per_query: int,
                    relevant_per_query: tuple[int, int], quality: float, tie_prob: float,
                    levels: int | None, precision: str | None, seed: int, rel_level: int) -> str:
    """The step of :func:`simulate_set` with these arguments.

    Floats are written with ``repr`` so that they read back exactly (a slider's 0.1 steps
    may give 0.30000000000000004, and the noise is scaled by it).

    >>> simulation_step(["0-10", "bf16"], n_queries=20, docs_per_query=100,
    ...                 relevant_per_query=(1, 10), quality=1.0, tie_prob=0.0, levels=None,
    ...                 precision=None, seed=0, rel_level=1)
    'gen~0-10.bf16~q20~d100~r1-10~Q1.0~t0.0~Lc~Pnone~s0~l1'
    """
    fields = ["gen", ".".join(presets), f"q{int(n_queries)}", f"d{int(docs_per_query)}",
              f"r{int(relevant_per_query[0])}-{int(relevant_per_query[1])}",
              f"Q{float(quality)!r}", f"t{float(tie_prob)!r}",
              "Lc" if levels is None else f"L{int(levels)}", f"P{_precision_text(precision)}",
              f"s{int(seed)}", f"l{int(rel_level)}"]
    return _SEP.join(fields)


def quantisation_step(dataset: str, run: str, *, levels: int | None, precision: str | None,
                      method: str, rel_level: int) -> str:
    """The step of a bundled dataset's ``run`` quantised by
    :func:`quantized_set`.

    >>> quantisation_step("trec_eval", "STANDARD", levels=5, precision=None, method="query",
    ...                   rel_level=1)
    'qnt~trec_eval~STANDARD~L5~Pnone~Mquery~l1'
    """
    from urllib.parse import quote

    return _SEP.join(["qnt", dataset, quote(run, safe=""), "Loff" if levels is None else f"L{int(levels)}",
                      f"P{_precision_text(precision)}", f"M{method}", f"l{int(rel_level)}"])


def simulator_choices() -> list[str]:
    """The rerankers the Simulator can generate: the presets, then :data:`CUSTOM`."""
    from ..simulate import PRESETS

    return [*PRESETS, CUSTOM]


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


def simulate_set(presets: Sequence[str], *, n_queries: int = 50, docs_per_query: int = 100,
                 relevant_per_query: tuple[int, int] = (1, 10), quality: float = 1.0,
                 tie_prob: float = 0.0, levels: int | None = None, precision: str | None = None,
                 seed: int = 0, rel_level: int = 1) -> RunSet:
    """Simulate ``presets`` (see :func:`simulated_spec`) on one query set, one seed.

    The query set is :func:`tiedrank.simulate.make_queries` (``relevant_per_query`` is
    clipped to ``docs_per_query``); every run shares the seed, hence the noise, so the
    runs differ only by their settings. The set's recipe is these arguments
    (:func:`simulation_step`).
    """
    from ..simulate import make_queries, simulate_run

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
    again (:func:`quantisation_step`); ``None`` (an upload, my
    runs): no recipe."""
    from ..simulate import quantize_run

    quantized = quantize_run(run, levels=levels, precision=precision, method=method)
    recipe = None if dataset is None else (quantisation_step(
        dataset, run.name, levels=levels, precision=precision, method=method,
        rel_level=rel_level),)
    return make_run_set(qrels, {run.name: run, quantized.name: quantized}, origin,
                        rel_level=rel_level, query_text=query_text, recipe=recipe)


def _int(text: str, low: int, high: int, what: str) -> int:
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
        raise RecipeError(f"{what} must be a whole number from {low} to {high}, not {text!r}")
    return int(text)


def _float(text: str, low: float, high: float, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise RecipeError(f"{what} must be a number, not {text!r}") from None
    if not low <= value <= high:
        raise RecipeError(f"{what} must be from {low:g} to {high:g}, not {text!r}")
    return value


def _fields(parts: Sequence[str], keys: str, step: str) -> dict[str, str]:
    """``{key: value}`` of parts written ``<key letter><value>``, in the order of ``keys``."""
    if len(parts) != len(keys) or any(not p or p[0] != k for p, k in zip(parts, keys)):
        raise RecipeError(f"the step {step!r} does not have the fields {', '.join(keys)}")
    return {k: p[1:] for p, k in zip(parts, keys)}


def parse_step(step: str) -> dict[str, Any]:
    """The arguments a step stands for: ``{"kind": "gen", ...simulate_set's arguments}`` or
    ``{"kind": "qnt", "dataset", "run", "levels", "precision", "method", "rel_level"}``.
    Raises :class:`RecipeError` for anything the Simulator's form would not accept.

    >>> parse_step("gen~0-10~q20~d100~r1-10~Q1.0~t0.0~Lc~Pnone~s0~l1")["n_queries"]
    20
    >>> parse_step("gen~0-10~q99999~d100~r1-10~Q1.0~t0.0~Lc~Pnone~s0~l1")
    Traceback (most recent call last):
    ...
    tiedrank.dashboard.recipes.RecipeError: queries must be a whole number from 1 to 500, not '99999'
    """
    from urllib.parse import unquote

    from ..simulate import QUANTIZE_METHODS

    parts = str(step).split(_SEP)
    if parts[0] == "gen" and len(parts) == 11:
        presets = parts[1].split(".")
        unknown = [p for p in presets if p not in simulator_choices()]
        if not parts[1] or unknown or len(set(presets)) != len(presets):
            raise RecipeError(f"unknown or repeated rerankers {parts[1]!r}; expected some of "
                              + ", ".join(simulator_choices()))
        f = _fields(parts[2:], "qdrQtLPsl", step)
        low, _, high = f["r"].partition("-")
        relevant = (_int(low, 0, 50, "relevant per query"), _int(high, 0, 50, "relevant per query"))
        if relevant[0] > relevant[1]:
            raise RecipeError(f"relevant per query {f['r']!r} runs backwards")
        if f["P"] not in _PRECISIONS:
            raise RecipeError(f"unknown precision {f['P']!r}; expected one of {', '.join(_PRECISIONS)}")
        return {"kind": "gen", "presets": presets, "n_queries": _int(f["q"], 1, 500, "queries"),
                "docs_per_query": _int(f["d"], 1, 1000, "docs per query"),
                "relevant_per_query": relevant, "quality": _float(f["Q"], 0.0, 3.0, "quality"),
                "tie_prob": _float(f["t"], 0.0, 0.9, "extra tie probability"),
                "levels": None if f["L"] == "c" else _int(f["L"], 2, 20, "levels"),
                "precision": _PRECISIONS[f["P"]], "seed": _int(f["s"], 0, 2**31 - 1, "seed"),
                "rel_level": _int(f["l"], 1, 3, "relevance level")}
    if parts[0] == "qnt" and len(parts) == 7:
        from .datasets import BUNDLED

        if parts[1] not in BUNDLED:
            raise RecipeError(f"unknown dataset {parts[1]!r}; expected one of {', '.join(BUNDLED)}")
        f = _fields(parts[3:], "LPMl", step)
        if f["P"] not in _PRECISIONS or f["M"] not in QUANTIZE_METHODS:
            raise RecipeError(f"unknown precision or bins in {step!r}")
        levels = None if f["L"] == "off" else _int(f["L"], 2, 20, "levels")
        if levels is None and _PRECISIONS[f["P"]] is None:
            raise RecipeError(f"the step {step!r} quantises nothing (no levels, no precision)")
        return {"kind": "qnt", "dataset": parts[1], "run": unquote(parts[2]), "levels": levels,
                "precision": _PRECISIONS[f["P"]], "method": f["M"],
                "rel_level": _int(f["l"], 1, 100, "relevance level")}
    raise RecipeError(f"{str(step)[:60]!r} is not a step of the Simulator (gen~… or qnt~…)")


def parse_recipe(steps: Sequence[str]) -> list[dict[str, Any]]:
    """Every step parsed (:func:`parse_step`), their number and total size checked."""
    if not steps or len(steps) > MAX_STEPS:
        raise RecipeError(f"a link carries 1 to {MAX_STEPS} steps, not {len(steps)}")
    parsed = [parse_step(step) for step in steps]
    rows = sum(p["n_queries"] * p["docs_per_query"] * len(p["presets"])
               for p in parsed if p["kind"] == "gen")
    if rows > MAX_ROWS:
        raise RecipeError(f"the steps would simulate {rows:,} rows, more than the "
                          f"{MAX_ROWS:,} a link may ask for")
    return parsed


BundledRuns = Callable[[str], "tuple[Any, dict, dict, str]"]
"""``load(dataset_key) -> (qrels, runs by name, query_text, label)`` of a bundled dataset."""


def replay(steps: Sequence[str], load_bundled: BundledRuns):
    """The :class:`~tiedrank.dashboard.my_runs.RunSet` the steps make, in order: each
    generated or quantised set added to the ones before, as **Add to my runs** did.

    Raises :class:`RecipeError` for a step that cannot be made (a run the dataset does not
    have, scores that do not fit the precision)."""

    current = None
    for args in parse_recipe(steps):
        kind = args.pop("kind")
        if kind == "gen":
            made = simulate_set(args.pop("presets"), **args)
        else:
            qrels, runs, query_text, label = load_bundled(args["dataset"])
            if args["run"] not in runs:
                raise RecipeError(f"the dataset {args['dataset']!r} has no run {args['run']!r}")
            try:
                made = quantized_set(runs[args["run"]], qrels, levels=args["levels"],
                                     precision=args["precision"], method=args["method"],
                                     origin=f"the queries of {label}", rel_level=args["rel_level"],
                                     query_text=query_text, dataset=args["dataset"])
            except ValueError as err:  # e.g. scores that overflow float16
                raise RecipeError(f"cannot quantise {args['run']}: {err}") from None
        current, _ = add_runs(current, made)
    return current
