"""My runs: the runs made in this session (simulated or quantised on the Simulator page),
kept on one query set and shared by every page through the sidebar. Part of the dashboard's
shared layer (``ui`` reads it), so it imports no page's logic. Streamlit-free."""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ..report import markdown_literal
from ..core.data import Qrels, Run
from .datasets import SESSION_LABEL, dataset_key


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
        return (f"Same query set as your {kept} in **my runs** ({markdown_literal(current.origin)}): "
                f"{fresh} new run{'s are' if fresh != 1 else ' is'} added beside them"
                + (f" ({', '.join(map(markdown_literal, there))} already there)." if there else "."))
    return (f"**A different query set** from your {kept} in **my runs** "
            f"({markdown_literal(current.origin)}): "
            f"adding **replaces** them with {'this run' if n == 1 else f'these {runs}'}.")
