"""Seeded draws of every metric under uniform random tie-breaking, in bounded memory.

A draw breaks every tie of the run by an independent uniform permutation per group. No
permutation is ever built: each query's value is drawn from exact per-query structure.

* RR, RR@k, Success@k, P@k, R@k, Rprec: the query's exact discrete law
  (:mod:`tiedrank.sampling.laws`) by inverse CDF, one uniform per query and draw.
* AP, AP@k, DCG@k, nDCG, nDCG@k: only the slots of the marked documents (relevant ones
  for AP, positive gains for DCG) inside groups whose order can change the value
  (:mod:`tiedrank.sampling.groups`), by :mod:`tiedrank.sampling.positions`; every other
  group adds its one possible value.
* TsRR, TsRR2, MTRR_GRAG, TMHits_GRAG@k are defined on the tie groups: constant.

Random numbers come from per-query counter-based streams keyed by (seed, query id)
(:mod:`tiedrank.sampling.streams`): a query's draws do not depend on the other queries of
the table, on their order, or on ``chunk_size``. Work runs in blocks of at most
``chunk_size`` random numbers (draws x slots), so memory is bounded by ``chunk_size``
and ``n_draws``, never by draws x queries.

Examples
--------
>>> import pandas as pd
>>> from tiedrank import Run, Qrels, build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcde"), "score": 0.5}))
>>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["c"], "relevance": [1]}))
>>> table = build_tie_table(run, qrels)
>>> draws = sample_run_means(table, "AP", n_draws=20_000, seed=1)
>>> draws.shape, bool(abs(draws.mean() - 137 / 300) < 0.01)   # E[AP] = 137/300 (V6)
((20000,), True)
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ..metrics import Metric, discount, metric_values, parse_metric
from ..core.progress import step
from ..core.ties import TieTable
from ..core.validation import Interval, check
from .groups import GROUP_FAMILIES, GroupSums, group_sums
from .laws import LAW_FAMILIES, QueryLaws, metric_laws
from .positions import key_slots, sequential_slots, use_sequential
from .streams import query_keys, raw_bits, uniforms

DEFAULT_CHUNK = 1 << 20
"""Random numbers per block (about 8 MB per array of the block)."""

_LAW, _SEQUENTIAL, _KEYS = "law", "sequential", "keys"


@dataclass
class _Bucket:
    """Units (queries for laws, groups for group sums) drawn the same way, ``width``
    random numbers each per draw, starting at ``offset`` in their query's stream."""

    kind: str
    unit: np.ndarray
    query: np.ndarray
    offset: np.ndarray
    width: int


@dataclass
class _Plan:
    """Per query: ``constant`` (the part no tie-break moves) plus random units."""

    constant: np.ndarray
    slots: np.ndarray              # random numbers per draw of each query's stream
    buckets: list[_Bucket] = field(default_factory=list)
    laws: QueryLaws | None = None
    sums: GroupSums | None = None
    cdf: np.ndarray | None = None


def _law_plan(laws: QueryLaws) -> _Plan:
    random = np.flatnonzero(laws.random)
    constant = np.where(laws.random, 0.0, laws.value[laws.start[:-1]])
    cdf = np.cumsum(laws.probability)
    first = laws.start[:-1]
    cdf = cdf - np.repeat(cdf[first] - laws.probability[first], np.diff(laws.start))
    cdf[laws.start[1:] - 1] = 1.0  # the last atom closes each law exactly
    slots = laws.random.astype(np.uint64)
    bucket = _Bucket(_LAW, random, random, np.zeros(len(random), dtype=np.uint64), 1)
    return _Plan(constant, slots, [bucket] if len(random) else [], laws=laws, cdf=cdf)


def _group_plan(sums: GroupSums) -> _Plan:
    fixed = ~sums.random
    constant = np.bincount(sums.query[fixed], weights=(sums.scale * sums.mean)[fixed],
                           minlength=sums.n_queries).astype(np.float64)
    unit = np.flatnonzero(sums.random)
    marks, size = sums.marks[unit], sums.size[unit]
    sequential = use_sequential(marks, size)
    width = np.where(sequential, marks, size).astype(np.uint64)
    query = sums.query[unit]
    # offsets inside each query's stream: units of a query are consecutive (rank order)
    running = np.cumsum(width) - width
    first = np.searchsorted(query, query)  # index of the query's first unit
    offset = running - running[first]
    slots = np.bincount(query, weights=width, minlength=sums.n_queries).astype(np.uint64)
    buckets = []
    for kind, mask, key in ((_SEQUENTIAL, sequential, marks), (_KEYS, ~sequential, size)):
        for value in np.unique(key[mask]):
            pick = np.flatnonzero(mask & (key == value))
            buckets.append(_Bucket(kind, unit[pick], query[pick], offset[pick], int(value)))
    return _Plan(constant, slots, buckets, sums=sums)


def samplable(metric: str | Metric) -> bool:
    """Whether :func:`sample_run_means` and :func:`iter_query_draws` can draw ``metric``:
    a family with an exact per-query law or a group-sum decomposition, or a metric whose
    value no tie-break moves (tie-aware by definition, counts and set measures).

    Examples
    --------
    >>> samplable("AP@10"), samplable("TsRR2"), samplable("num_ret"), samplable("bpref")
    (True, True, True, False)
    """
    m = parse_metric(metric)
    return m.family in LAW_FAMILIES or m.family in GROUP_FAMILIES or m.policy_invariant


def _plan(table: TieTable, metric: Metric, gain: str) -> _Plan:
    if metric.family in LAW_FAMILIES:
        return _law_plan(metric_laws(table, metric))
    if metric.family in GROUP_FAMILIES:
        return _group_plan(group_sums(table, metric, gain))
    if not samplable(metric):  # a constant would be a silently wrong spread
        sampled = ", ".join(LAW_FAMILIES + GROUP_FAMILIES)
        raise ValueError(f"metric {metric.name!r} has no random tie-break sampler; sample one "
                         f"of {sampled} or a policy-invariant metric, or evaluate "
                         f"{metric.name} with ties='random(seed=N)' for one draw")
    # tie-aware by definition or order-independent: the same value under every ordering
    values = metric_values(table, metric, gain=gain)
    return _Plan(values, np.zeros(table.n_queries, dtype=np.uint64))


def _stream_base(plan: _Plan, bucket: _Bucket, sel: slice, first_draw: int,
                 rows: int) -> np.ndarray:
    """Stream position (rows, units) of each unit's first random number in each draw:
    draw * slots_q + offset_unit (the unit's j-th number is at base + j)."""
    draw = np.arange(first_draw, first_draw + rows, dtype=np.uint64)[:, None]
    return plan.slots[bucket.query[sel]][None, :] * draw + bucket.offset[sel][None, :]


def _inverse_cdf(cdf: np.ndarray, first: np.ndarray, last: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Index of the first atom of each law with cdf > u (binary search, vectorised)."""
    lo = np.broadcast_to(first, u.shape).copy()
    hi = np.broadcast_to(last, u.shape).copy()
    for _ in range(int(np.max(last - first, initial=0)).bit_length()):
        mid = (lo + hi) >> 1
        right = cdf[mid] <= u
        lo = np.where(right, mid + 1, lo)
        hi = np.where(right, hi, mid)
    return lo


def _block_values(plan: _Plan, bucket: _Bucket, sel: slice, keys: np.ndarray,
                  first_draw: int, rows: int) -> np.ndarray:
    """Sampled contributions (rows, units) of one block of a bucket."""
    base = _stream_base(plan, bucket, sel, first_draw, rows)
    unit_keys = keys[bucket.query[sel]][None, :]
    unit = bucket.unit[sel]
    if bucket.kind == _LAW:
        laws = plan.laws
        atom = _inverse_cdf(plan.cdf, laws.start[unit], laws.start[unit + 1] - 1,
                            uniforms(unit_keys, base))
        return laws.value[atom]
    sums = plan.sums
    if bucket.kind == _SEQUENTIAL:
        slots, ordered = sequential_slots(lambda j: uniforms(unit_keys, base + np.uint64(j)),
                                          sums.size[unit], bucket.width)
        contribution = _sequential_contribution(sums, unit, slots, ordered)
    else:
        bits = raw_bits(unit_keys[..., None],
                        base[..., None] + np.arange(bucket.width, dtype=np.uint64))
        contribution = _key_contribution(sums, unit, key_slots(bits, int(sums.marks[unit].max())))
    return contribution * sums.scale[unit][None, :]


def _rank_weight(sums: GroupSums, unit: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """w(rank) of the family (1/rank for AP, the discount for DCG), zero beyond the cutoff;
    ``rank`` is (rows, units[, width]) for groups ``unit``."""
    weight = 1.0 / rank if sums.family == "AP" else discount(rank.ravel()).reshape(rank.shape)
    if np.isfinite(sums.cutoff[0]):  # one cutoff for the whole metric
        weight *= rank <= sums.cutoff[0]
    return weight


def _sequential_contribution(sums: GroupSums, unit: np.ndarray, slots: list[np.ndarray],
                             ordered: list[np.ndarray]) -> np.ndarray:
    """Y_g (rows, units) from the 0-based slots of the m marked documents of each group."""
    above = sums.above[unit] + 1
    total = np.zeros(slots[0].shape)
    if sums.family == "AP":  # the i-th relevant from the top has C + i + 1 relevant at or above it
        for i, slot in enumerate(ordered):
            total += _rank_weight(sums, unit, above + slot) * (sums.relevant_above[unit] + i + 1)
    else:  # DCG: each marked document keeps its own gain
        for i, slot in enumerate(slots):
            total += _rank_weight(sums, unit, above + slot) * sums.mark_weight[sums.mark_start[unit] + i]
    return total


def _key_contribution(sums: GroupSums, unit: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """Y_g (rows, units) from the 1-based slots (rows, units, width) of documents
    0..width-1 of each group, of which the first ``marks`` are the marked ones."""
    marks = sums.marks[unit]
    width = slots.shape[-1]
    mine = np.arange(width)[None, :] < marks[:, None]  # (units, width)
    above = sums.above[unit][None, :, None]
    if sums.family == "AP":  # sorted slots of the relevant ones (the others pushed last)
        size = sums.size[unit][None, :, None]
        ordered = np.sort(np.where(mine[None], slots, size + 1), axis=-1)
        rank = above + np.minimum(ordered, size)
        factor = (sums.relevant_above[unit][:, None] + np.arange(1, width + 1)[None, :]) * mine
    else:
        rank = above + slots
        factor = _mark_gains(sums, unit, width, mine)
    return np.einsum("rgw,gw->rg", _rank_weight(sums, unit, rank), factor)


def _mark_gains(sums: GroupSums, unit: np.ndarray, width: int, mine: np.ndarray) -> np.ndarray:
    """(units, width) gains of each group's marked documents, zero-padded."""
    position = sums.mark_start[unit][:, None] + np.arange(width)[None, :]
    return np.where(mine, sums.mark_weight[np.minimum(position, len(sums.mark_weight) - 1)], 0.0)


def _blocks(plan: _Plan, n_draws: int, seed: int, chunk_size: int, queries: np.ndarray,
            row_floor: int = 1) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
    """(first draw, rows, query of each unit, values (rows, units)) in bounded blocks.

    Draws are taken ``rows`` at a time (all blocks of one draw range come together);
    each block holds at most ``chunk_size`` random numbers unless a single unit is wider.
    """
    keys = query_keys(queries, seed)
    total = sum(len(b.unit) * b.width for b in plan.buckets)
    rows = int(min(n_draws, max(1, chunk_size // max(total, row_floor, 1))))
    for first in range(0, n_draws, rows):
        count = min(rows, n_draws - first)
        for bucket in plan.buckets:
            per_block = max(1, chunk_size // (count * bucket.width))
            for start in range(0, len(bucket.unit), per_block):
                sel = slice(start, start + per_block)
                yield first, count, bucket.query[sel], _block_values(plan, bucket, sel, keys,
                                                                     first, count)
        step("tie-break draws", first + count, n_draws)


def _check_draws(n_draws: int, chunk_size: int) -> None:
    check("n_draws", n_draws, [Interval(int, 1, None)], function="sample_run_means")
    check("chunk_size", chunk_size, [Interval(int, 1, None)], function="sample_run_means")


def sample_run_means(table: TieTable, metric: str | Metric, n_draws: int = 1000,
                     seed: int = 0, *, gain: str = "linear", included: np.ndarray | None = None,
                     chunk_size: int = DEFAULT_CHUNK) -> np.ndarray:
    """Mean of ``metric`` over the run's queries under ``n_draws`` random tie-breaks.

    Parameters
    ----------
    table : TieTable
        The expected (unresolved) table of the run.
    metric : str or Metric
        Any metric of :data:`tiedrank.metrics.METRIC_NAMES`.
    n_draws : int
        Independent tie-breaks.
    seed : int
        Any integer; with the query ids it determines every draw.
    included : bool array, optional
        Queries in the mean (default: those with a relevant document, as ``evaluate``).
    chunk_size : int
        Most random numbers held at once (memory ~ 10 x 8 bytes x ``chunk_size``).

    Returns
    -------
    ndarray of shape (n_draws,)
        NaN when no query is included.
    """
    _check_draws(n_draws, chunk_size)
    m = parse_metric(metric)
    included = table.evaluated if included is None else np.asarray(included, dtype=bool)
    n_included = int(included.sum())
    if n_included == 0:
        return np.full(n_draws, np.nan)
    plan = _plan(table, m, gain)
    weight = included / n_included
    means = np.full(n_draws, float(plan.constant @ weight))
    for first, rows, query, values in _blocks(plan, n_draws, seed, chunk_size, table.queries):
        means[first:first + rows] += values @ weight[query]
    return means


def iter_query_draws(table: TieTable, metric: str | Metric, n_draws: int = 1000,
                     seed: int = 0, *, gain: str = "linear",
                     chunk_size: int = DEFAULT_CHUNK) -> Iterator[tuple[int, np.ndarray]]:
    """Per-query values of ``metric`` under random tie-breaks, a range of draws at a time.

    Yields
    ------
    first_draw : int
    values : ndarray of shape (rows, n_queries)
        Draws ``first_draw .. first_draw + rows - 1``, one column per query of ``table``
        (rows x queries never exceeds ``chunk_size`` unless one draw alone does).

    Examples
    --------
    >>> import pandas as pd
    >>> from tiedrank import Run, Qrels, build_tie_table
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": ["a", "b"], "score": 1.0}))
    >>> qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]}))
    >>> first, values = next(iter_query_draws(build_tie_table(run, qrels), "RR", 4, seed=0))
    >>> first, values.shape, set(values.ravel()) <= {0.5, 1.0}
    (0, (4, 1), True)
    """
    _check_draws(n_draws, chunk_size)
    plan = _plan(table, parse_metric(metric), gain)
    n = table.n_queries
    current, block = -1, None
    for first, rows, query, values in _blocks(plan, n_draws, seed, chunk_size, table.queries,
                                              row_floor=n):
        if first != current:
            if block is not None:
                yield current, block
            current, block = first, np.tile(plan.constant, (rows, 1))
        flat = (np.arange(rows)[:, None] * n + query[None, :]).ravel()
        block += np.bincount(flat, weights=values.ravel(), minlength=rows * n).reshape(rows, n)
    if block is None:  # nothing random: every draw is the constant
        rows = int(min(n_draws, max(1, chunk_size // max(n, 1))))
        for first in range(0, n_draws, rows):
            yield first, np.tile(plan.constant, (min(rows, n_draws - first), 1))
    else:
        yield current, block


def sample_query_values(table: TieTable, metric: str | Metric, n_draws: int = 1000,
                        seed: int = 0, *, gain: str = "linear",
                        chunk_size: int = DEFAULT_CHUNK) -> np.ndarray:
    """All per-query draws as one (n_draws, n_queries) array (for small tables and tests)."""
    out = np.empty((n_draws, table.n_queries))
    for first, values in iter_query_draws(table, metric, n_draws, seed, gain=gain,
                                          chunk_size=chunk_size):
        out[first:first + len(values)] = values
    return out
