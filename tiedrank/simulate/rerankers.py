"""The reranker specification, the five presets, synthetic queries and simulated runs.

See :mod:`tiedrank.simulate` for the model (latent score, levels, extra ties, precision)
and its seeds.

Examples
--------
>>> run, qrels = simulate("3-point", n_queries=5, seed=1)
>>> sorted(run.frame["score"].unique().tolist())
[0.0, 1.0, 2.0]
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.data import Qrels, Run
from ..core.validation import Interval, InvalidParameterError, check
from .quantize import LEVELS, bin_scores, cast_scores, normalize_precision

_NOISE_MARGIN = 2.0  # noise standard deviations added on each side of the default bin range
_STREAM_QUERIES, _STREAM_SCORES = 0, 1  # independent random streams per stage
_SEED = [Interval(int, 0, None)]
_COUNT = [Interval(int, 1, None)]


def _rng(stage: int, seed: int) -> np.random.Generator:
    # default_rng([stage, seed]) hashes both through SeedSequence: distinct stages give
    # independent streams for the same user seed.
    check("seed", seed, _SEED)
    return np.random.default_rng([stage, int(seed)])


# ---- the reranker specification ------------------------------------------------------

MAX_QUALITY = 1e6
"""Largest |quality| (signal to noise): far beyond any perfect ranker, and finite scores."""


@dataclass(frozen=True, kw_only=True)
class RerankerSpec:
    """How a simulated reranker scores documents (see the module docstring for the model).

    Parameters
    ----------
    name : str, default "simulated"
        Run name, written as the TREC tag (no whitespace).
    quality : float, default 1.0
        Signal to noise: ``score = quality * grade + N(0, 1)``; 0 is a random ranker,
        negative values rank relevant documents low.
    levels : int, optional
        None for continuous scores; otherwise the number of discrete labels ``0..levels-1``
        (11 for a 0-10 scale), by equal-width bins over a fixed range.
    tie_prob : float, default 0.0
        Probability, per document below the top of its query, of snapping its score to the
        score of the document ranked directly above it (extra ties; never reorders).
    precision : {None, "float16", "bfloat16", "float32"}, default None
        Cast applied last (``"bf16"``, ``"fp16"``, ``"fp32"`` are accepted spellings).
    score_range : (float, float), optional
        Fixed binning range for ``levels``; default ``[min(0, q*G) - 2, max(0, q*G) + 2]``
        with ``G`` the qrels' highest grade.
    description : str
        One line for people (shown by the CLI and the dashboard).

    Examples
    --------
    >>> spec = RerankerSpec(name="llm-0-10", quality=0.8, levels=11)
    >>> spec.levels, spec.precision
    (11, None)
    >>> RerankerSpec(precision="bf16").precision
    'bfloat16'
    """

    name: str = "simulated"
    quality: float = 1.0
    levels: int | None = None
    tie_prob: float = 0.0
    precision: str | None = None
    score_range: tuple[float, float] | None = None
    description: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or any(c.isspace() for c in self.name):
            raise InvalidParameterError("name", self.name, "a non-empty string without "
                                        "whitespace (it is the TREC run tag)")
        # beyond 1e6 times the unit noise a ranker is already perfect; the bound keeps
        # quality * grade finite (1e308 gave inf scores the readers then refused)
        check("quality", self.quality, [Interval(float, -MAX_QUALITY, MAX_QUALITY)])
        check("levels", self.levels, LEVELS)
        check("tie_prob", self.tie_prob, [Interval(float, 0, 1)])
        if self.score_range is not None:
            low, high = (float(v) for v in self.score_range)
            if not (math.isfinite(low) and math.isfinite(high) and low < high):
                raise InvalidParameterError("score_range", self.score_range,
                                            "two finite numbers low < high")
            object.__setattr__(self, "score_range", (low, high))
        # frozen: normalise the stored values once, here
        object.__setattr__(self, "quality", float(self.quality))
        object.__setattr__(self, "tie_prob", float(self.tie_prob))
        if self.levels is not None:
            object.__setattr__(self, "levels", int(self.levels))
        object.__setattr__(self, "precision", normalize_precision(self.precision))

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (for tables and JSON)."""
        return asdict(self)


PRESETS: dict[str, RerankerSpec] = {
    "fine-grained": RerankerSpec(
        name="fine-grained", description="continuous float64 scores, ties practically never occur"),
    "0-10": RerankerSpec(
        name="0-10", levels=11, description="an LLM asked for a 0-10 relevance score, 11 labels"),
    "5-point": RerankerSpec(
        name="5-point", levels=5, description="a 5-point label scale, labels 0-4"),
    "3-point": RerankerSpec(
        name="3-point", levels=3, description="a 3-point label scale, labels 0-2, massive ties"),
    "bf16": RerankerSpec(
        name="bf16", precision="bfloat16",
        description="continuous scores served in bfloat16, 8 significant bits"),
}
"""The five reference rerankers. All share ``quality=1.0`` and differ only in how their
scores tie, so their differences under a tie policy are due to ties alone."""


def preset_table() -> pd.DataFrame:
    """The presets as a table: preset, description, quality, levels, tie_prob, precision.

    Examples
    --------
    >>> preset_table()["preset"].tolist()
    ['fine-grained', '0-10', '5-point', '3-point', 'bf16']
    """
    rows = [{"preset": key, "description": spec.description, "quality": spec.quality,
             "levels": spec.levels, "tie_prob": spec.tie_prob, "precision": spec.precision}
            for key, spec in PRESETS.items()]
    return pd.DataFrame(rows)


def get_spec(preset_or_spec: "str | RerankerSpec", **overrides: Any) -> RerankerSpec:
    """A preset by name (or a spec as given), with fields replaced by ``overrides``.

    Examples
    --------
    >>> get_spec("0-10", tie_prob=0.1).tie_prob
    0.1
    """
    if isinstance(preset_or_spec, RerankerSpec):
        spec = preset_or_spec
    elif isinstance(preset_or_spec, str) and preset_or_spec in PRESETS:
        spec = PRESETS[preset_or_spec]
    else:
        raise InvalidParameterError("preset", preset_or_spec, f"one of "
                                    f"{', '.join(map(repr, PRESETS))} or a RerankerSpec")
    unknown = set(overrides) - {f for f in RerankerSpec.__dataclass_fields__}
    if unknown:
        raise ValueError(f"unknown RerankerSpec field(s): {', '.join(sorted(unknown))}")
    return replace(spec, **overrides) if overrides else spec


# ---- extra ties ---------------------------------------------------------------------------

def _snap_to_neighbour(query_code: np.ndarray, score: np.ndarray, draw: np.ndarray,
                       tie_prob: float) -> np.ndarray:
    """Extra ties: snap each non-top document to the score above it with prob tie_prob."""
    if tie_prob <= 0 or len(score) == 0:
        return score
    order = np.lexsort((-score, query_code))  # query ascending, score descending
    sorted_score = score[order]
    position = np.arange(len(order))
    first = np.ones(len(order), dtype=bool)
    first[1:] = query_code[order][1:] != query_code[order][:-1]
    snap = (draw[order] < tie_prob) & ~first
    # each snapped document takes the score of the nearest unsnapped one above it; the top
    # of a query is never snapped, so the running maximum never crosses a query boundary
    head = np.maximum.accumulate(np.where(snap, 0, position))
    out = np.empty_like(score)
    out[order] = sorted_score[head]
    return out


# ---- queries and runs ------------------------------------------------------------------

def _id_width(count: int) -> int:
    return max(3, len(str(max(count, 1))))


def make_queries(n_queries: int = 50, docs_per_query: int = 100,
                 relevant_per_query: "int | tuple[int, int] | None" = None,
                 grade_probs: Sequence[float] = (0.5, 0.3, 0.2), seed: int = 0) -> Qrels:
    """Synthetic judged candidate sets: ``n_queries`` x ``docs_per_query``, grades 0-3.

    Parameters
    ----------
    n_queries : int, default 50
        Query ids ``q001``, ``q002``, ...
    docs_per_query : int, default 100
        Candidates per query, ids ``<qid>-d000``, ... (a typical reranking depth).
    relevant_per_query : int or (int, int), optional
        Relevant documents per query: a fixed count, or uniform on the inclusive range.
        Default: 1 to 10 (1 to ``docs_per_query`` when fewer), the range of TREC-style
        pools after a first stage.
    grade_probs : three floats, default (0.5, 0.3, 0.2)
        Probabilities of grades 1, 2, 3 among the relevant documents (grade 1 the most
        common, as in TREC Deep Learning judgements). The other documents are judged 0,
        so every candidate is judged.
    seed : int, default 0

    Returns
    -------
    Qrels
        One row per (query, document), grouped by query, documents in id order.

    Examples
    --------
    >>> qrels = make_queries(n_queries=2, docs_per_query=4, relevant_per_query=1, seed=3)
    >>> qrels.frame.groupby("query")["relevance"].apply(lambda g: int((g > 0).sum())).tolist()
    [1, 1]
    """
    check("n_queries", n_queries, _COUNT)
    check("docs_per_query", docs_per_query, _COUNT)
    if relevant_per_query is None:  # the default fits any number of candidates
        relevant_per_query = (1, min(10, docs_per_query))
    if isinstance(relevant_per_query, (int, np.integer)) and not isinstance(relevant_per_query, bool):
        low = high = int(relevant_per_query)
    else:
        try:
            low, high = (int(v) for v in relevant_per_query)  # type: ignore[union-attr]
        except (TypeError, ValueError):
            low, high = -1, -1  # not a count nor a pair: refused just below
    if not 0 <= low <= high <= docs_per_query:
        raise InvalidParameterError("relevant_per_query", relevant_per_query, "an integer or a "
                                    f"(low, high) pair with 0 <= low <= high <= {docs_per_query} "
                                    "(docs_per_query)")
    probs = np.asarray(grade_probs, dtype=np.float64)
    if probs.shape != (3,) or np.any(probs < 0) or not np.isclose(probs.sum(), 1.0):
        raise InvalidParameterError("grade_probs", tuple(grade_probs), "three non-negative "
                                    "probabilities of grades 1, 2, 3 summing to 1")
    rng = _rng(_STREAM_QUERIES, seed)
    n_rel = rng.integers(low, high, size=n_queries, endpoint=True)
    # a random rank per candidate; the n_rel lowest are the relevant ones, so relevance is
    # unrelated to the document id (and to any tie-break by id)
    keys = rng.random((n_queries, docs_per_query))
    position = np.argsort(np.argsort(keys, axis=1), axis=1)
    grades = rng.choice(np.array([1, 2, 3]), size=(n_queries, docs_per_query), p=probs / probs.sum())
    relevance = np.where(position < n_rel[:, None], grades, 0).astype(np.int64).ravel()

    qw, dw = _id_width(n_queries), _id_width(docs_per_query - 1)
    qids = np.array([f"q{i + 1:0{qw}d}" for i in range(n_queries)])  # one per query: cheap
    suffix = np.array([f"-d{j:0{dw}d}" for j in range(docs_per_query)])  # one per position
    docs = np.char.add(qids[:, None], suffix[None, :]).ravel()
    frame = pd.DataFrame({"query": np.repeat(qids, docs_per_query).astype(object),
                          "doc": docs.astype(object), "relevance": relevance})
    return Qrels(frame, source=f"<simulated: make_queries(seed={seed})>")


def _default_range(quality: float, max_grade: int) -> tuple[float, float]:
    top = quality * max_grade
    return min(0.0, top) - _NOISE_MARGIN, max(0.0, top) + _NOISE_MARGIN


def simulate_run(qrels: Qrels, spec: "RerankerSpec | str", seed: int = 0) -> Run:
    """Score every judged document of ``qrels`` with the reranker ``spec``.

    Parameters
    ----------
    qrels : Qrels
        Usually from :func:`make_queries`; any qrels work (negative grades count as 0).
        Every (query, document) of the qrels is scored.
    spec : RerankerSpec or preset name
    seed : int, default 0
        Seeds the noise and the tie draws (a stream independent of :func:`make_queries`).

    Returns
    -------
    Run
        Named ``spec.name``; rows grouped by query in ranked order (score descending,
        ties in document id order).

    Examples
    --------
    >>> qrels = make_queries(n_queries=3, seed=0)
    >>> run = simulate_run(qrels, PRESETS["0-10"], seed=0)
    >>> run.name, float(run.frame["score"].min()) >= 0, float(run.frame["score"].max()) <= 10
    ('0-10', True, True)
    """
    spec = get_spec(spec)
    frame = qrels.frame
    query_code = pd.factorize(frame["query"])[0].astype(np.int64)
    grade = np.maximum(frame["relevance"].to_numpy(dtype=np.int64), 0)
    rng = _rng(_STREAM_SCORES, seed)
    # both draws happen for every spec, in this order, so one seed gives every spec the
    # same noise and the same per-document tie draws (common random numbers)
    noise = rng.standard_normal(len(frame))
    tie_draw = rng.random(len(frame))

    score = spec.quality * grade + noise
    if not np.all(np.isfinite(score)):  # huge grades: refuse rather than write inf
        raise InvalidParameterError("quality", spec.quality, "a number for which quality x "
                                    "grade stays finite (the qrels hold very large grades)")
    if spec.levels is not None:
        low, high = spec.score_range or _default_range(
            spec.quality, int(grade.max()) if len(grade) else 0)
        score = bin_scores(score, low, high, spec.levels)
    score = _snap_to_neighbour(query_code, score, tie_draw, spec.tie_prob)
    score = cast_scores(score, spec.precision)

    out = pd.DataFrame({"query": frame["query"].to_numpy(dtype=object),
                        "doc": frame["doc"].to_numpy(dtype=object), "score": score})
    out = out.sort_values(["query", "score", "doc"], ascending=[True, False, True],
                          kind="stable", ignore_index=True)
    return Run(spec.name, out, source=f"<simulated: {spec.name}, seed={seed}>")


def simulate(preset_or_spec: "str | RerankerSpec" = "fine-grained", n_queries: int = 50,
             seed: int = 0, *, docs_per_query: int = 100,
             relevant_per_query: "int | tuple[int, int] | None" = None,
             grade_probs: Sequence[float] = (0.5, 0.3, 0.2), **overrides: Any) -> tuple[Run, Qrels]:
    """Make queries and score them: ``(run, qrels)`` in one call.

    Parameters
    ----------
    preset_or_spec : str or RerankerSpec, default "fine-grained"
        A key of :data:`PRESETS` or a spec.
    n_queries, docs_per_query, relevant_per_query, grade_probs
        Passed to :func:`make_queries`.
    seed : int, default 0
        Seeds both stages (on independent streams).
    **overrides
        Spec fields to replace, e.g. ``quality=0.5`` or ``tie_prob=0.2``.

    Examples
    --------
    >>> run, qrels = simulate("bf16", n_queries=2, seed=7, docs_per_query=10, quality=2.0)
    >>> run.name, len(run), len(qrels)
    ('bf16', 20, 20)
    """
    spec = get_spec(preset_or_spec, **overrides)
    qrels = make_queries(n_queries, docs_per_query, relevant_per_query, grade_probs, seed)
    return simulate_run(qrels, spec, seed), qrels
