"""Scores as a model would serve them: precision casts, equal-width bins, degraded real runs.

* :func:`cast_scores` — float16 / bfloat16 / float32 and back to float64
  (:func:`bfloat16_round` rounds to nearest even, as hardware and ``torch`` do);
* :func:`bin_scores` — the index of equal-width bins over a fixed range;
* :func:`quantize_run` — a real run with discrete labels and/or a low-precision cast.

Examples
--------
>>> normalize_precision("fp16"), cast_scores(np.array([1.00390625]), "bfloat16").tolist()
('float16', [1.0])
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.data import Run
from ..core.validation import Interval, InvalidParameterError, Options, check

PRECISIONS = ("float16", "bfloat16", "float32")
"""Supported score precisions (``None`` keeps float64)."""

PRECISION_ALIASES = {"bf16": "bfloat16", "bfloat16": "bfloat16", "fp16": "float16",
                     "f16": "float16", "half": "float16", "float16": "float16",
                     "fp32": "float32", "f32": "float32", "float32": "float32"}
"""Accepted spellings of a precision, mapped to its canonical name."""

QUANTIZE_METHODS = ("query", "global")
"""Binning ranges of :func:`quantize_run`: each query's own score range, or the run's."""

LEVELS = [None, Interval(int, 1, None)]
"""The check of a ``levels=`` argument: None (continuous) or an integer >= 1."""

_FLOAT64_SPELLINGS = ("", "none", "float64", "fp64", "f64")  # precision=None, said otherwise


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


def bin_scores(values: np.ndarray, low: np.ndarray | float, high: np.ndarray | float,
         levels: int) -> np.ndarray:
    """Index 0..levels-1 of equal-width bins over [low, high]; outside values clip.

    Finite in, finite out: a range wider than float64 holds (scores near +-1.7e308) is
    binned on halved values, the same bins without the overflow to inf and NaN.

    >>> bin_scores(np.array([-1.7e308, 0.0, 1.7e308]), -1.7e308, 1.7e308, 3).tolist()
    [0.0, 1.0, 2.0]
    """
    high = np.asarray(high, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        width = (high - low) / levels
        offset = values - low
        wide = ~np.isfinite(width) | ~np.isfinite(offset)
        if np.any(wide):  # halve the scale where the plain differences overflow
            half_width = (high / 2 - np.asarray(low) / 2) / levels
            width = np.where(wide, half_width, width)
            offset = np.where(wide, values / 2 - np.asarray(low) / 2, offset)
    # a degenerate range (all scores equal) puts everything into bin 0
    safe = np.where(width > 0, width, 1.0)
    index = np.floor(offset / safe)
    return np.clip(index, 0, levels - 1).astype(np.float64)


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
    check("levels", levels, LEVELS)
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
        # the top score sits exactly on the upper edge: bin_scores clips it into the last bin
        score = bin_scores(score, low, high, int(levels))
    score = cast_scores(score, precision)
    if name is None:
        name = run.name + (f"-L{levels}" if levels is not None else "") \
            + (f"-{precision}" if precision is not None else "")
    frame = run.frame.copy()
    frame["score"] = score
    return Run(name, frame, source=run.source, findings=run.findings)
