"""Rank-biased overlap of two runs' document orders, per query, with ties treated as Corsi &
Urbano define it ("The Treatment of Ties in Rank-Biased Overlap", SIGIR 2024).

RBO (Webber, Moffat & Zobel 2010) compares two rankings by the agreement A_d of their top d,
weighted p^(d-1) (1 - p): a reader who goes on from depth d to d + 1 with probability p. Two
runs are *prefixes* (their top 1000, say) of longer rankings, so RBO is known only within
bounds: ``min`` (no more overlap below the prefixes), ``max`` (all the overlap that can still
come), ``res = max - min`` and ``ext``, the extrapolation of the agreement seen. A run's tied
documents are a tie group; Corsi & Urbano's three treatments of it:

* ``w`` — ties as equality (sports rankings): a tie group is seen whole as soon as its
  first place is reached, and the agreement is 2 X_d / (|S_d| + |L_d|) over the items seen
  (Webber's Eq. 28);
* ``a`` — ties as uncertainty, averaged: an item of a group of n with t items above it is in
  the top d with probability clip(d - t, 0, n) / n, X_d = sum_i c_S,i(d) c_L,i(d) the expected
  overlap under uniform independent tie orders of both runs, A_d = X_d / d; so
  ``min`` is exactly the mean over the runs' tie orderings of the tie-free RBO_min;
* ``b`` — ties as uncertainty, corrected for the information ties lose (like Kendall's
  tau-b): A_d = X_d / sqrt(sum_i c_S,i(d)^2) / sqrt(sum_i c_L,i(d)^2).

Without ties the three coincide and equal Webber's RBO. Formulas (the paper's Eqs., as its
reference code computes them) in docs/metrics-reference.md section 3h; checked against the
authors' published test values, the ``rbo`` package (tie-free extrapolation) and every tie
ordering of small runs (tests/stats/test_rbo.py).

One pass over the queries, as :func:`tiedrank.stats.rank_correlation` (a Python loop per
query, each query in O(documents) numpy work and memory, whatever its tie groups: no
depth-by-item matrix, no ramp per item; one query of 20,000 tied documents in well under a
second and a few MB, benchmarks/hostile_budgets.py).

Examples
--------
>>> import pandas as pd
>>> a = pd.DataFrame({"query": "q", "doc": list("abcd"), "score": [4., 3., 3., 1.]})
>>> b = pd.DataFrame({"query": "q", "doc": list("acbd"), "score": [4., 3., 2., 1.]})
>>> table = rank_biased_overlap(a, b, p=0.9).per_query.set_index("variant")
>>> [round(float(table.loc[v, "min"]), 4) for v in VARIANTS]
[0.5884, 0.5839, 0.5943]
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.validation import InvalidParameterError
from .rankings import score_frame

__all__ = ["BOUNDS", "VARIANTS", "RankOverlap", "rank_biased_overlap", "rbo_of_rankings"]

VARIANTS = ("w", "a", "b")
"""Corsi & Urbano's treatments of ties: ``w`` equality, ``a`` uncertainty averaged, ``b``
uncertainty corrected (see the module)."""
BOUNDS = ("ext", "min", "max", "res")
"""RBO of two prefixes: extrapolated, lower bound, upper bound, residual (max - min)."""


@dataclass(frozen=True)
class _Flat:
    """A ranking with ties, flattened: ids in ranked order, per position the 0-based rank of
    its group's first place ``top`` and the group's size ``size``."""

    ids: np.ndarray
    top: np.ndarray
    size: np.ndarray

    @classmethod
    def from_scores(cls, ids: np.ndarray, scores: np.ndarray) -> "_Flat":
        order = np.argsort(-scores, kind="stable")
        ids, scores = ids[order], scores[order]
        new = np.ones(len(scores), dtype=bool)
        new[1:] = scores[1:] != scores[:-1]
        starts = np.flatnonzero(new)
        sizes = np.diff(np.append(starts, len(scores)))
        return cls(ids, np.repeat(starts, sizes), np.repeat(sizes, sizes))

    @classmethod
    def from_groups(cls, groups: Sequence) -> "_Flat":
        """``["a", {"b", "c"}, "d"]``: an item, or a set of tied items, per place."""
        ids, top, sizes = [], [], []
        for group in groups:
            members = sorted(group) if isinstance(group, (set, frozenset, list, tuple)) else [group]
            top += [len(ids)] * len(members)
            sizes += [len(members)] * len(members)
            ids += members
        top, sizes = np.array(top, dtype=np.int64), np.array(sizes, dtype=np.int64)
        return cls(np.array(ids, dtype=object), top, sizes)

    def __len__(self) -> int:
        return len(self.ids)

    def share_in_top(self, depth: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """c_i(d) = clip(d - t_i, 0, n_i) / n_i for the items at ``positions``."""
        top, size = self.top[positions], self.size[positions]
        return np.clip(depth - top, 0, size) / size

    def seen(self, depth: np.ndarray) -> np.ndarray:
        """Items of groups whose first place is within the top d (``w``: |S_d|)."""
        inside = np.minimum(depth, len(self)) - 1
        return np.where(depth <= len(self), self.top[inside] + self.size[inside], len(self))

    def squares(self, depth: np.ndarray) -> np.ndarray:
        """sum_i c_i(d)^2: the groups above in full, the group at d by (d - t)^2 / n."""
        inside = np.minimum(depth, len(self)) - 1
        top, size = self.top[inside], self.size[inside]
        return np.where(depth <= len(self), top + (depth - top) ** 2 / size, len(self))


def _overlaps(short: _Flat, long: _Flat) -> tuple[np.ndarray, np.ndarray]:
    """X_d for d = 1..l: ``w`` (both seen) and ``a`` (expected overlap)."""
    _, in_s, in_l = np.intersect1d(short.ids, long.ids, assume_unique=True, return_indices=True)
    l = len(long)
    enter_w = np.maximum(short.top[in_s], long.top[in_l]) + 1
    x_w = np.cumsum(np.bincount(np.minimum(enter_w, l + 1), minlength=l + 2))[1:l + 1]
    # a: an item counts 1 from E = max(t_S + n_S, t_L + n_L) on, 0 up to max(t_S, t_L), and
    # c_S,i(d) c_L,i(d) in between, where at least one of the two is a fraction. Every item
    # with a fraction at d sits in the group at place d of its ranking, so the fraction is
    # that group's, f(d) = (d - t(d)) / n(d): X_d = full + A f_S + B f_L + C f_S f_L with
    # A, B, C counts of items (S fraction and L whole, the reverse, both fractions), each a
    # sum of intervals. O(l) memory whatever the groups (a place-by-item ramp was O(n^2)
    # for one group of n: 3.3 GB at n = 10,000).
    full = np.maximum(short.top[in_s] + short.size[in_s], long.top[in_l] + long.size[in_l])
    x_a = np.cumsum(np.bincount(np.minimum(full, l + 1), minlength=l + 2))[1:l + 1].astype(float)
    t_s, e_s = short.top[in_s], short.top[in_s] + short.size[in_s]
    t_l, e_l = long.top[in_l], long.top[in_l] + long.size[in_l]
    s_part = _intervals(np.maximum(t_s + 1, e_l), e_s, l)
    l_part = _intervals(np.maximum(t_l + 1, e_s), e_l, l)
    both = _intervals(np.maximum(t_s, t_l) + 1, np.minimum(e_s, e_l), l)
    depth = np.arange(1, l + 1)
    f_s, f_l = _fraction(short, depth), _fraction(long, depth)
    x_a += s_part * f_s + l_part * f_l + both * (f_s * f_l)
    return x_w.astype(float), x_a


def _intervals(first: np.ndarray, end: np.ndarray, l: int) -> np.ndarray:
    """For d = 1..l, how many of the intervals [first, end) hold d (empty ones count 0)."""
    keep = first < end
    first, end = np.clip(first[keep], 1, l + 1), np.clip(end[keep], 1, l + 1)
    steps = np.bincount(first, minlength=l + 2) - np.bincount(end, minlength=l + 2)
    return np.cumsum(steps)[1:l + 1].astype(float)


def _fraction(ranking: _Flat, depth: np.ndarray) -> np.ndarray:
    """(d - t) / n of the group at place d (1 past the ranking's end: no fraction left)."""
    inside = np.minimum(depth, len(ranking)) - 1
    top, size = ranking.top[inside], ranking.size[inside]
    return np.where(depth <= len(ranking), (depth - top) / size, 1.0)


def _long_only(short: _Flat, long: _Flat, depth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the depths d of ``depth`` (s < d <= l), about the long ranking's items absent from
    the short one: the deficit of the first d - s of them from full presence in the top d
    (``a``: only those of the group at place d can be short of it), and the mean presence
    of those already met (``ext``)."""
    only = ~np.isin(long.ids, short.ids)
    running = np.concatenate(([0], np.cumsum(only)))  # long-only items before each place
    place = depth - 1
    top, size = long.top[place], long.size[place]
    above = running[top]  # long-only items in the groups above the group at place d
    in_group = running[top + size] - above  # long-only items of that group
    fraction = (depth - top) / size
    counted = np.clip(depth - len(short) - above, 0, in_group)
    deficit = counted * (1.0 - fraction)
    mean = (above + in_group * fraction) / (above + in_group)
    return deficit, mean


def rbo_of_rankings(first: _Flat, second: _Flat, p: float) -> dict[str, dict[str, float]]:
    """{variant: {bound: value}} for two flattened rankings (neither empty)."""
    short, long = (second, first) if len(first) >= len(second) else (first, second)
    s, l = len(short), len(long)
    depth = np.arange(1, l + 1)
    x = dict(zip(("w", "a"), _overlaps(short, long)))
    x["b"] = x["a"]
    head, tail = depth[:s], depth[s:]
    agreement = {
        "w": 2 * x["w"][:s] / (short.seen(head) + long.seen(head)),
        "a": x["a"][:s] / head,
        "b": x["a"][:s] / np.sqrt(short.squares(head)) / np.sqrt(long.squares(head))}
    if len(tail):
        deficit, mean_seen = _long_only(short, long, tail)
    else:
        deficit = mean_seen = np.zeros(0)
    weights = np.power(p, depth.astype(float))
    log_part = -math.log1p(-p) - float(np.sum(weights / depth))
    out = {}
    for variant in VARIANTS:
        head_sum = float(np.sum(agreement[variant] * weights[:s]))
        seen = x[variant][s:]
        unseen_max = (tail - s) - (0.0 if variant == "w" else deficit)
        unseen_ext = (tail - s) * agreement[variant][s - 1] * (1.0 if variant == "w" else mean_seen)

        def of_tail(overlap: np.ndarray) -> float:
            if variant == "w":
                scaled = 2 * overlap / (tail + long.seen(tail))
            elif variant == "a":
                scaled = overlap / tail
            else:
                scaled = overlap / np.sqrt(tail) / np.sqrt(long.squares(tail))
            return float(np.sum(scaled * weights[s:]))

        x_l = float(x[variant][l - 1])
        nearest = round(x_l)
        x_l = float(nearest) if abs(x_l - nearest) < 1e-9 else x_l  # the count, not its rounding
        below_min = x_l * log_part
        f = l + s - x_l
        d_max = np.arange(l + 1, f + 1)
        below_max = float(np.sum((2 * d_max - l - s + x_l) / d_max * np.power(p, d_max))) \
            + p ** (f + 1) / (1 - p)
        below_ext = (x_l + (l - s) * agreement[variant][s - 1]) / l * p ** (l + 1) / (1 - p)
        scale = (1 - p) / p
        lower = scale * (head_sum + of_tail(seen) + below_min)
        upper = scale * (head_sum + of_tail(seen + unseen_max) + below_max)
        out[variant] = {"ext": scale * (head_sum + of_tail(seen + unseen_ext) + below_ext),
                        "min": lower, "max": upper, "res": upper - lower}
    return out


@dataclass(frozen=True, eq=False)
class RankOverlap:
    """Per-query rank-biased overlap of two runs and its summary.

    ``per_query``: query, n_a, n_b (documents of each run), variant (``w``, ``a``, ``b``),
    ext, min, max, res (NaN when a run has no document for the query).
    ``summary``: variant, bound, mean, median, n_queries (with a value), n_undefined.
    """

    per_query: pd.DataFrame
    summary: pd.DataFrame
    p: float
    depth: int | None


def _checked(frame: pd.DataFrame, argument: str) -> pd.DataFrame:
    """``frame`` when every score is a number and no query lists a document twice; else one
    ``ValueError`` naming the argument, the query and the document."""
    scores = pd.to_numeric(frame["score"], errors="coerce")
    bad = scores.isna() | ~np.isfinite(scores.to_numpy(dtype=float, na_value=np.nan))
    if bad.any():
        row = frame[bad.to_numpy()].iloc[0]
        raise ValueError(f"{argument}: query {row['query']!r}, document {row['doc']!r} has score "
                         f"{str(row['score'])!r}; rank-biased overlap needs a finite number for "
                         "every document (drop the row or give it a score)")
    twice = frame.duplicated(["query", "doc"])
    if twice.any():
        row = frame[twice.to_numpy()].iloc[0]
        raise ValueError(f"{argument}: query {row['query']!r} lists document {row['doc']!r} "
                         "more than once; a ranking holds each document once (keep its highest "
                         "score, as reading with duplicates='max' does)")
    return frame.assign(score=scores)


def _cut(frame: pd.DataFrame, depth: int | None) -> pd.DataFrame:
    """The first ``depth`` documents of each query in trec_eval's order (``-M``)."""
    if depth is None:
        return frame
    order = frame.assign(_doc=frame["doc"].astype(str).str.encode("utf-8")) \
        .sort_values(["query", "score", "_doc"], ascending=[True, False, False], kind="stable")
    return order[order.groupby("query", sort=False).cumcount() < depth].drop(columns="_doc")


def rank_biased_overlap(run_a, run_b, *, p: float = 0.9, depth: int | None = None
                        ) -> RankOverlap:
    """Rank-biased overlap of two runs' document orders per query, in Corsi & Urbano's three
    treatments of ties, with its bounds on the runs' prefixes.

    Parameters
    ----------
    run_a, run_b : Run, TieTable or DataFrame(query, doc, score)
        Documents with equal scores in a query are tied.
    p : float
        Persistence in (0, 1): the weight of depth d is (1 - p) p^(d-1) (default 0.9).
    depth : int, optional
        Compare each run's first ``depth`` documents only, cut in trec_eval's order (score
        descending, docno descending; trec_eval's ``-M``: a tie group the cut splits is split
        as trec_eval splits it). Default: the whole runs.

    Returns
    -------
    RankOverlap
        ``per_query`` (query, n_a, n_b, variant, ext, min, max, res: every query of either
        run, NaN where one run lacks it) and ``summary`` (the mean and median per variant and
        bound over the queries with a value).

    Examples
    --------
    Ties as uncertainty (``a``): the mean over both tie orders of the tie-free lower bound.

    >>> import pandas as pd
    >>> a = pd.DataFrame({"query": "q", "doc": ["x", "y"], "score": [1.0, 1.0]})
    >>> b = pd.DataFrame({"query": "q", "doc": ["x", "y"], "score": [2.0, 1.0]})
    >>> result = rank_biased_overlap(a, b, p=0.5).per_query.set_index("variant")
    >>> round(float(result.loc["a", "min"]), 4)  # x, y against x, y: 0.8863; y, x: 0.3863
    0.6363
    """
    if not (isinstance(p, (int, float)) and 0 < p < 1):
        raise InvalidParameterError("p", p, "a number in (0, 1), e.g. 0.9",
                                    function="rank_biased_overlap")
    if depth is not None and not (isinstance(depth, (int, np.integer)) and depth >= 1):
        raise InvalidParameterError("depth", depth, "an integer >= 1, or None for the whole runs",
                                    function="rank_biased_overlap")
    _, fa = score_frame(run_a)
    _, fb = score_frame(run_b)
    fa, fb = _cut(_checked(fa, "run_a"), depth), _cut(_checked(fb, "run_b"), depth)
    groups_a = dict(tuple(fa.groupby("query", sort=False)))
    groups_b = dict(tuple(fb.groupby("query", sort=False)))
    rows = []
    for query in sorted(set(groups_a) | set(groups_b), key=str):
        block_a, block_b = groups_a.get(query), groups_b.get(query)
        n_a = 0 if block_a is None else len(block_a)
        n_b = 0 if block_b is None else len(block_b)
        if n_a and n_b:
            values = rbo_of_rankings(
                _Flat.from_scores(block_a["doc"].astype(str).to_numpy(dtype=object),
                                  block_a["score"].to_numpy(dtype=float)),
                _Flat.from_scores(block_b["doc"].astype(str).to_numpy(dtype=object),
                                  block_b["score"].to_numpy(dtype=float)), float(p))
        else:
            values = {v: dict.fromkeys(BOUNDS, math.nan) for v in VARIANTS}
        rows += [(str(query), n_a, n_b, v, *(values[v][b] for b in BOUNDS)) for v in VARIANTS]
    per_query = pd.DataFrame(rows, columns=["query", "n_a", "n_b", "variant", *BOUNDS])
    summary = pd.DataFrame([
        {"variant": v, "bound": b, "mean": float(block[b].mean()),
         "median": float(block[b].median()), "n_queries": int(block[b].notna().sum()),
         "n_undefined": int(block[b].isna().sum())}
        for v in VARIANTS for block in [per_query[per_query["variant"] == v]] for b in BOUNDS],
        columns=["variant", "bound", "mean", "median", "n_queries", "n_undefined"])
    return RankOverlap(per_query, summary, float(p), depth)
