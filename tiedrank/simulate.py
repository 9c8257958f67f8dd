"""Simulated rerankers with a tie structure you can dial, and degradation of real runs.

LLM rerankers emit discrete labels (0-10, 0-3, ...), so many candidates of a query share a
score; production systems add more ties by serving scores in bfloat16 or float16. This
module produces such runs, seeded and fully reproducible, to review evaluation under ties
and to teach it.

The model (every step vectorised over all documents of all queries)
--------------------------------------------------------------------
1. **Queries** (:func:`make_queries`): every query has ``docs_per_query`` candidates, all
   judged; ``R`` of them (uniform in ``relevant_per_query``) are relevant with a grade
   1-3 drawn from ``grade_probs``, the rest are judged 0. Which document ids are
   relevant is random, so any fixed tie-break by id (trec_eval's docno order, the file
   order) is unrelated to relevance.
2. **Latent score** (:func:`simulate_run`): ``score = quality * grade + N(0, 1)``.
   ``quality`` is a signal-to-noise ratio: 0 is a random ranker, 1 separates grade 0 from
   grade 3 by three noise standard deviations.
3. **Levels** (``RerankerSpec.levels``): the latent score is cut into ``levels``
   equal-width bins over a *fixed* range and replaced by the bin index ``0..levels-1``
   (so ``levels=11`` emits labels 0-10, as an LLM asked for a 0-10 score). The range is
   ``[min(0, q*G) - 2, max(0, q*G) + 2]`` with ``q`` the quality and ``G`` the qrels'
   highest grade: the span of the noiseless scores widened by two noise standard
   deviations (``score_range`` overrides it); scores outside fall into the end bins.
   *Why a fixed range and not quantiles*: an LLM reranker labels each document on its
   own, so its label cannot depend on the other candidates. Per-query quantiles would
   give every query the same number of top labels whether or not it has relevant
   documents, and would make the tie structure independent of the reranker's quality;
   fixed bins are pointwise (rank-free), and a weak reranker then crowds its labels in
   the middle of the scale, as hedging LLMs do.
4. **Extra ties** (``RerankerSpec.tie_prob = p``): inside each query, documents are
   sorted by score (descending); every document except the top one is, independently
   with probability ``p``, *snapped* to the score of the document directly above it.
   Snaps chain, so a run of consecutive snapped documents joins the group of the first
   unsnapped document above them. Snapping merges neighbours only: it never reorders
   documents, every snap of a not-yet-tied neighbour adds a tie, ``p = 0`` changes
   nothing and ``p = 1`` ties the whole query. The uniform draw deciding each snap
   belongs to the document, so with one seed the snapped sets are nested as ``p`` grows.
5. **Precision** (``RerankerSpec.precision``): the scores are cast as a model serving
   them would; see :func:`cast_scores`. ``"float16"`` uses numpy's IEEE half cast;
   ``"bfloat16"`` rounds the float32 bit pattern to its upper 16 bits with
   round-to-nearest-even (what hardware and ``torch`` do); ``"float32"`` is a plain cast.

Seeds: each stage draws from its own stream ``numpy.random.default_rng([stage, seed])``,
so the qrels and the scores are independent even with the same ``seed``, and two specs
simulated with one seed share their noise (common random numbers): differences along a
:func:`sweep` come from the swept parameter, not from new noise.

Examples
--------
>>> run, qrels = simulate("3-point", n_queries=5, seed=1)
>>> sorted(run.frame["score"].unique().tolist())
[0.0, 1.0, 2.0]
>>> len(run), len(qrels)
(500, 500)
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from .data import Qrels, Run
from .validation import Interval, InvalidParameterError, Options, check

PRECISIONS = ("float16", "bfloat16", "float32")
"""Supported score precisions (``None`` keeps float64)."""

PRECISION_ALIASES = {"bf16": "bfloat16", "bfloat16": "bfloat16", "fp16": "float16",
                     "f16": "float16", "half": "float16", "float16": "float16",
                     "fp32": "float32", "f32": "float32", "float32": "float32"}
"""Accepted spellings of a precision, mapped to its canonical name."""

SWEEP_PARAMETERS = ("quality", "levels", "tie_prob", "precision")
"""The :class:`RerankerSpec` fields :func:`sweep` can vary."""

QUANTIZE_METHODS = ("query", "global")
"""Binning ranges of :func:`quantize_run`: each query's own score range, or the run's."""

SWEEP_COLUMNS = ("parameter", "value", "metric", "expected", "best", "worst", "trec_eval",
                 "docs_in_ties")

_NOISE_MARGIN = 2.0  # noise standard deviations added on each side of the default bin range
_STREAM_QUERIES, _STREAM_SCORES = 0, 1  # independent random streams per stage
_SEED = [Interval(int, 0, None)]
_COUNT = [Interval(int, 1, None)]
_LEVELS = [None, Interval(int, 1, None)]
_FLOAT64_SPELLINGS = ("", "none", "float64", "fp64", "f64")  # precision=None, said otherwise


def _rng(stage: int, seed: int) -> np.random.Generator:
    # default_rng([stage, seed]) hashes both through SeedSequence: distinct stages give
    # independent streams for the same user seed.
    check("seed", seed, _SEED)
    return np.random.default_rng([stage, int(seed)])


def normalize_precision(precision: str | None) -> str | None:
    """Canonical precision name (``"bf16"`` -> ``"bfloat16"``); ``None`` stays ``None``.

    Examples
    --------
    >>> normalize_precision("bf16"), normalize_precision(None)
    ('bfloat16', None)
    """
    if precision is None:
        return None
    key = str(precision).strip().lower()
    if key in _FLOAT64_SPELLINGS:
        return None
    if key not in PRECISION_ALIASES:
        raise InvalidParameterError("precision", precision, f"one of {', '.join(map(repr, PRECISIONS))}"
                                    " (or 'bf16', 'fp16', 'fp32') or None")
    return PRECISION_ALIASES[key]


# ---- the reranker specification ------------------------------------------------------

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
        check("quality", self.quality, [Interval(float, None, None)])
        check("levels", self.levels, _LEVELS)
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


# ---- casts and binning (pure array functions) ----------------------------------------

def bfloat16_round(values: np.ndarray) -> np.ndarray:
    """Round to the nearest bfloat16 (round-to-nearest-even), returned as float64.

    The value is first cast to float32 (as a model's float32 output is), then the float32
    bit pattern keeps its upper 16 bits: adding ``0x7FFF`` plus the lowest kept bit before
    truncating rounds halfway cases to the even neighbour, which is what hardware
    converters and ``torch.Tensor.bfloat16`` do. Plain truncation would instead round
    every value toward zero and so bias scores downward in magnitude.

    Raises
    ------
    ValueError
        If a value is not finite or overflows bfloat16 (|x| >= ~3.39e38).

    Examples
    --------
    >>> bfloat16_round(np.array([1.0, 1.00390625, 1.01171875, -3.14159])).tolist()
    [1.0, 1.0, 1.015625, -3.140625]
    """
    values = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise ValueError("scores must be finite to cast to bfloat16")
    with np.errstate(over="ignore"):
        single = values.astype(np.float32)
    bits = single.view(np.uint32)
    # for finite float32 patterns the addition cannot wrap: the largest is 0xFF7FFFFF
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) \
        & np.uint32(0xFFFF0000)
    out = rounded.view(np.float32).astype(np.float64)
    if not np.all(np.isfinite(out)):
        raise ValueError("scores overflow bfloat16 (|score| above about 3.39e38)")
    return out


def cast_scores(values: np.ndarray, precision: str | None) -> np.ndarray:
    """Cast scores to ``precision`` and back to float64 (the engine's score dtype).

    ``None`` returns float64 unchanged; ``"float16"``/``"float32"`` use numpy's IEEE
    round-to-nearest-even casts; ``"bfloat16"`` uses :func:`bfloat16_round`.

    Raises
    ------
    ValueError
        On an unknown precision, or a score outside the target's finite range (the
        engine treats infinite scores as input errors, so overflow is not silent).

    Examples
    --------
    >>> cast_scores(np.array([0.1, 2049.0]), "float16").tolist()
    [0.0999755859375, 2048.0]
    """
    precision = normalize_precision(precision)
    values = np.asarray(values, dtype=np.float64)
    if precision is None:
        return values.copy()
    if precision == "bfloat16":
        return bfloat16_round(values)
    dtype = np.float16 if precision == "float16" else np.float32
    with np.errstate(over="ignore"):
        out = values.astype(dtype).astype(np.float64)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"scores overflow {precision} (largest finite value "
                         f"{float(np.finfo(dtype).max):g})")
    return out


def _bin(values: np.ndarray, low: np.ndarray | float, high: np.ndarray | float,
         levels: int) -> np.ndarray:
    """Index 0..levels-1 of equal-width bins over [low, high]; outside values clip."""
    width = (np.asarray(high, dtype=np.float64) - low) / levels
    # a degenerate range (all scores equal) puts everything into bin 0
    safe = np.where(width > 0, width, 1.0)
    index = np.floor((values - low) / safe)
    return np.clip(index, 0, levels - 1).astype(np.float64)


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
                 relevant_per_query: "int | tuple[int, int]" = (1, 10),
                 grade_probs: Sequence[float] = (0.5, 0.3, 0.2), seed: int = 0) -> Qrels:
    """Synthetic judged candidate sets: ``n_queries`` x ``docs_per_query``, grades 0-3.

    Parameters
    ----------
    n_queries : int, default 50
        Query ids ``q001``, ``q002``, ...
    docs_per_query : int, default 100
        Candidates per query, ids ``<qid>-d000``, ... (a typical reranking depth).
    relevant_per_query : int or (int, int), default (1, 10)
        Relevant documents per query: a fixed count, or uniform on the inclusive range.
        Default: 1 to 10 of 100, the range of TREC-style pools after a first stage.
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
    if spec.levels is not None:
        low, high = spec.score_range or _default_range(
            spec.quality, int(grade.max()) if len(grade) else 0)
        score = _bin(score, low, high, spec.levels)
    score = _snap_to_neighbour(query_code, score, tie_draw, spec.tie_prob)
    score = cast_scores(score, spec.precision)

    out = pd.DataFrame({"query": frame["query"].to_numpy(dtype=object),
                        "doc": frame["doc"].to_numpy(dtype=object), "score": score})
    out = out.sort_values(["query", "score", "doc"], ascending=[True, False, True],
                          kind="stable", ignore_index=True)
    return Run(spec.name, out, source=f"<simulated: {spec.name}, seed={seed}>")


def simulate(preset_or_spec: "str | RerankerSpec" = "fine-grained", n_queries: int = 50,
             seed: int = 0, *, docs_per_query: int = 100,
             relevant_per_query: "int | tuple[int, int]" = (1, 10),
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


def quantize_run(run: Run, *, levels: int | None = None, precision: str | None = None,
                 method: str = "query", name: str | None = None) -> Run:
    """Degrade a real run: discrete labels and/or a low-precision cast.

    Parameters
    ----------
    run : Run
    levels : int, optional
        Replace each score by its bin index ``0..levels-1`` of ``levels`` equal-width bins.
    precision : {None, "float16", "bfloat16", "float32"}, optional
        Cast the scores (after binning, if both are given).
    method : {"query", "global"}, default "query"
        Bin range: each query's own ``[min, max]`` score, or the whole run's. The default
        is per query because real scores (BM25, dot products) live on a scale that moves
        from query to query: global bins would often put a whole query into one or two
        bins. ``"global"`` suits scores on a fixed scale (probabilities, calibrated
        cross-encoders). Either way binning is rank-free: a document's label depends only
        on its score and the range, never on how many documents score above it.
    name : str, optional
        Run name; default ``"<name>-L<levels>"`` and/or ``"-<precision>"`` appended.

    Returns
    -------
    Run
        Same rows in the same order; only scores (and the name) change.

    Examples
    --------
    >>> import pandas as pd
    >>> run = Run("bm25", pd.DataFrame({"query": "q", "doc": list("abcd"),
    ...                                 "score": [10.0, 7.4, 5.0, 0.0]}))
    >>> quantize_run(run, levels=3).frame["score"].tolist()
    [2.0, 2.0, 1.0, 0.0]
    """
    if levels is None and precision is None:
        raise ValueError("quantize_run needs levels and/or precision")
    check("levels", levels, _LEVELS)
    check("method", method, [Options(*QUANTIZE_METHODS)])
    precision = normalize_precision(precision)
    score = run.frame["score"].to_numpy(dtype=np.float64)
    if levels is not None:
        if method == "query":
            by_query = pd.Series(score).groupby(pd.factorize(run.frame["query"])[0], sort=False)
            low = by_query.transform("min").to_numpy()
            high = by_query.transform("max").to_numpy()
        else:
            low, high = (float(score.min()), float(score.max())) if len(score) else (0.0, 1.0)
        # the top score sits exactly on the upper edge: _bin clips it into the last bin
        score = _bin(score, low, high, int(levels))
    score = cast_scores(score, precision)
    if name is None:
        name = run.name + (f"-L{levels}" if levels is not None else "") \
            + (f"-{precision}" if precision is not None else "")
    frame = run.frame.copy()
    frame["score"] = score
    return Run(name, frame, source=run.source, findings=run.findings)


# ---- sweeps ----------------------------------------------------------------------------

def sweep(parameter: str, values: Sequence[Any], *, base_spec: "RerankerSpec | str | None" = None,
          qrels: Qrels | None = None, metric: str = "RR", rel_level: int = 1,
          seed: int = 0) -> pd.DataFrame:
    """Vary one spec field and report the metric's tie range along it.

    Every value is simulated with the same ``seed`` on the same ``qrels``, so all points
    share their noise (common random numbers) and the curve shows the effect of the
    parameter itself.

    Parameters
    ----------
    parameter : {"quality", "levels", "tie_prob", "precision"}
    values : sequence
        E.g. ``range(2, 21)`` for levels (None = continuous), ``np.linspace(0, 0.9, 10)``
        for tie_prob, ``[None, "float32", "float16", "bfloat16"]`` for precision.
    base_spec : RerankerSpec or preset name, default PRESETS["fine-grained"]
    qrels : Qrels, default make_queries(seed=seed)
    metric : str, default "RR"
        Any metric :func:`tiedrank.evaluate.evaluate` accepts.
    rel_level : int, default 1
    seed : int, default 0

    Returns
    -------
    DataFrame
        Columns parameter, value, metric, expected, best, worst, trec_eval (means over the
        queries, from ``evaluate(..., ties="all").report()``) and docs_in_ties (share of
        retrieved documents in a tie group of 2+, from :func:`tiedrank.ties.tie_statistics`).

    Examples
    --------
    >>> table = sweep("levels", [3, 11, None], qrels=make_queries(n_queries=10))
    >>> table[["value", "docs_in_ties"]].round(2).values.tolist()
    [[3, 1.0], [11, 0.99], [None, 0.0]]
    """
    from .evaluate import evaluate  # local: evaluate pulls in the io readers
    from .metrics import parse_metric
    from .ties import tie_statistics

    check("parameter", parameter, [Options(*SWEEP_PARAMETERS)], function="sweep")
    base = get_spec("fine-grained" if base_spec is None else base_spec)
    if qrels is None:
        qrels = make_queries(seed=seed)
    rows = []
    for value in values:  # one simulation + evaluation per value: a handful, cheap
        if isinstance(value, np.generic):
            value = value.item()
        spec = replace(base, **{parameter: value})
        run = simulate_run(qrels, spec, seed)
        ev = evaluate({spec.name: run}, qrels, [metric], ties="all", rel_level=rel_level)
        report = ev.report()
        # no query with a document at rel_level: every mean is undefined, not an error
        values_at = (report.iloc[0] if len(report) else
                     pd.Series({c: np.nan for c in ("expected", "best", "worst", "trec_eval")}))
        stats = tie_statistics(ev.tables[spec.name])
        rows.append({"parameter": parameter, "value": value, "metric": parse_metric(metric).name,
                     "expected": values_at["expected"], "best": values_at["best"],
                     "worst": values_at["worst"], "trec_eval": values_at["trec_eval"],
                     "docs_in_ties": stats["docs_in_ties"]})
    table = pd.DataFrame(rows, columns=list(SWEEP_COLUMNS))
    if any(row["value"] is None for row in rows):
        # keep None (continuous scores / float64) as given; pandas would turn it into NaN
        table["value"] = pd.Series([row["value"] for row in rows], dtype=object)
    return table
