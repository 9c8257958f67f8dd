"""C/W/L's static BPM(T)@K (cwl_eval's ``BPMCWLMetric(T, K)``, ir_measures' ``BPM``), exact
under ties at any group size.

cwl_eval's BPM reads places 0..s, s = min(the first place whose gathered gain G_i reaches
T, K - 1, 999), each with weight 1/(s + 1), so BPM = G_s / (s + 1) (:mod:`.cwl`). Gains are
(grade - min_rel) / R after clipping into [min_rel, max_rel], R = max_rel - min_rel: whole
*units* of 1/R. tiedrank compares the gathered units with T exactly: the user stops at the
first place where units >= need = ceil(T R) (T the float the name holds, read exactly).
cwl_eval sums float gains, so where the gathered gain equals T exactly it can fall a hair
short and read one more document (six gains of 1/3 sum to 1.9999999999999998 < 2); with R
a power of two (max_rel 1, 2, 4, ...) its sums are exact and the two agree.

Exact expectation. Only one tie group's order matters in a query: the groups are read in
order, the gathered units at a group's start do not depend on the order of the groups
above, so the *stopping group* is the first group b where the units reach need
(P_b + S_b >= need, P_b the units above it, S_b its own) or whose last place is at or past
L - 1 (L = min(K, 1000), the places BPM can read). If it starts at or past L, or no group
qualifies, s = L - 1 and BPM = P / (R L), fixed. Otherwise, inside group b (a documents
above it, n in it, c_0 of 0 units and c_v of v units, tau = need - P_b units still wanted,
l = L - a places it may fill), a uniform order reads a prefix whose composition (z zeros, k
= (k_v) others, r = z + |k| documents) is multivariate hypergeometric,

    H(z, k) = C(c_0, z) prod_v C(c_v, k_v) / C(n, r),

and the reader is still going after it when its units s_k = sum_v v k_v are below tau and
r < l. The next document has v units with probability (c_v - k_v) / (n - r); the reader
stops on it when s_k + v >= tau or r + 1 = l, with BPM = (P_b + s_k + v) / (R (a + r + 1)).
Every ordering stops at exactly one such (z, k, v), so

    E[BPM] = sum over stopping (z, k, v) of H(z, k) (c_v - k_v) / (n - r) * value,

and the best and worst are the largest and smallest value of a stopping (z, k, v) that
occurs (probability > 0): each is the end of some ordering. Only compositions with
s_k < tau are states, so k_v <= (tau - 1) / v: the states number at most
prod_v (1 + min(c_v, (tau - 1) // v)) x (min(c_0, l - 1) + 1), small for the T of practice
(T = 1, grades 0..3: k is one of 0, (1), (2), (0, 1)). A group needing more than
:data:`MAX_TERMS` terms is refused with a message naming it. The hypergeometric weights come
from log-binomials (``scipy.special.gammaln``), as ERR's.

Examples
--------
>>> import pandas as pd
>>> from tiedrank.core.data import Qrels, Run
>>> from tiedrank.core.ties import build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("abc"), "score": [1.0] * 3}))
>>> table = build_tie_table(run, Qrels(pd.DataFrame({"query": "q", "doc": ["a"],
...                                                  "relevance": [1]})))
>>> [round(float(v[0]), 4) for v in bpm_summary(table, 1.0, 10)]  # (1 + 1/2 + 1/3) / 3
[0.6111, 1.0, 0.3333]
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..core.errors import Remedy, RemediedValueError
from ..core.segments import segment_sum
from ..core.ties import TieTable
from .cwl import CWL_DEPTH, check_bounds

MAX_TERMS = 2**24
"""The most (state, next gain) terms one stopping group may need: about 16 million, a few
hundred MB of float64 arrays."""
_CHUNK = 2**21
"""Terms computed at once across queries (stopping groups are batched up to this many)."""


def _log_choose(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    from scipy.special import gammaln  # scipy only when BPM is computed: tiedrank starts fast

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def units_needed(T: float, R: int) -> int:
    """The least whole number of gain units (1/R each) that reaches T: ceil(T R), exactly."""
    return max(1, math.ceil(Fraction(T) * R))


def bpm_summary(table: TieTable, T: float, K: int, min_rel: float = 0.0, max_rel: float = 1.0,
                name: str = "BPM") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(expected, best, worst) BPM(T)@K per query over the tie orderings (one ordering's
    value, three times, on a resolved table); see the module for the derivation. Cached
    on the table per measure."""
    cache = table.__dict__.setdefault("_cwl_summaries", {})
    key = ("BPM-exact", T, K, min_rel, max_rel)
    if key not in cache:
        cache[key] = _bpm_summary(table, T, K, min_rel, max_rel, name)
    return cache[key]


def _bpm_summary(table: TieTable, T: float, K: int, min_rel: float, max_rel: float,
                 name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    check_bounds(min_rel, max_rel, name)
    R = int(max_rel - min_rel)
    need, L = units_needed(T, R), min(int(K), CWL_DEPTH)
    units = (np.clip(np.maximum(table.doc_grade, 0), min_rel, max_rel) - min_rel).astype(np.int64)
    group_units = segment_sum(units, table.group_start)
    above = table.sum_above(group_units)
    end = table.group_above + table.group_size  # places read once the group is done
    qualifies = np.flatnonzero((above + group_units >= need) | (end >= L))
    # the first qualifying group of each query: where its reader stops
    first = qualifies[np.concatenate(([True], np.diff(table.group_query[qualifies]) != 0))] \
        if len(qualifies) else qualifies
    inside = first[table.group_above[first] < L]
    # fixed value: all units gathered before the stop, over L places (no group inside)
    gathered = np.bincount(table.group_query, weights=group_units, minlength=table.n_queries)
    gathered[table.group_query[first]] = above[first]
    fixed = gathered / (R * L)
    expected, best, worst = fixed.copy(), fixed.copy(), fixed.copy()
    if len(inside) == 0:
        return expected, best, worst
    query = table.group_query[inside]
    expected[query], best[query], worst[query] = 0.0, -np.inf, np.inf
    levels = _levels(table, units, inside)
    tau = need - above[inside]
    places = (L - table.group_above[inside]).astype(np.int64)
    n = table.group_size[inside].astype(np.int64)
    # per group: the compositions k of positive gains below tau (a box, filtered later)
    value, count = levels
    last = np.minimum(places, n) - 1  # the most documents read before the one it stops on
    reach = np.minimum(np.minimum(count, (tau[:, None] - 1) // value), last[:, None])
    box = np.prod(reach + 1, axis=1, dtype=np.float64)
    zeros = n - count.sum(axis=1)
    terms = box * (np.minimum(zeros, last) + 1) * (value.shape[1] + 1)
    refused = terms > MAX_TERMS
    if refused.any():
        g = int(np.flatnonzero(refused)[0])
        grp = int(inside[g])
        raise RemediedValueError(
            f"{name}: query {table.queries[query[g]]!r} has a tie group of {n[g]} documents at "
            f"ranks {int(table.group_above[grp]) + 1}..{int(end[grp])} where the reader stops; "
            f"its exact BPM needs {terms[g]:,.0f} terms, more than {MAX_TERMS:,}; ",
            Remedy("ties", "trec_eval", "to score one ordering (trec_eval's)"),
            ", or ask for a smaller T (fewer gatherings below it)")
    batch = np.cumsum(terms) // _CHUNK
    for part in np.split(np.arange(len(inside)), np.flatnonzero(np.diff(batch)) + 1):
        if len(part):
            e, b, w = _stopping_terms(value[part], count[part], reach[part], box[part],
                                      zeros[part], n[part], places[part], tau[part],
                                      above[inside[part]], table.group_above[inside[part]], R)
            expected[query[part]], best[query[part]], worst[query[part]] = e, b, w
    return expected, best, worst


def _levels(table: TieTable, units: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray,
                                                                           np.ndarray]:
    """Per group of ``groups``: its positive unit values and their counts, padded with
    (1, 0) to the widest group."""
    member = np.repeat(np.isin(np.arange(table.n_groups), groups), table.group_size)
    owner = np.searchsorted(groups, table.doc_group[member])
    unit = units[member]
    positive = unit > 0
    owner, unit = owner[positive], unit[positive]
    order = np.lexsort((unit, owner))
    owner, unit = owner[order], unit[order]
    first = np.flatnonzero(np.concatenate(([True], (owner[1:] != owner[:-1])
                                           | (unit[1:] != unit[:-1]))))
    lev_owner, lev_unit = owner[first], unit[first]
    lev_count = np.diff(np.append(first, len(owner)))
    width = max(1, int(np.bincount(lev_owner, minlength=len(groups)).max(initial=0)))
    slot = np.arange(len(first)) - np.searchsorted(lev_owner, lev_owner)
    value = np.ones((len(groups), width), dtype=np.int64)
    count = np.zeros((len(groups), width), dtype=np.int64)
    value[lev_owner, slot], count[lev_owner, slot] = lev_unit, lev_count
    return value, count


def _stopping_terms(value, count, reach, box, zeros, n, places, tau, before, a, R):
    """(expected, best, worst) of a batch of stopping groups: every state (z, k) still
    reading, times every next gain, kept where the reader stops (the module's sum)."""
    m, width = value.shape
    # the compositions k of each group's box (mixed radix), kept below tau
    box = box.astype(np.int64)
    group = np.repeat(np.arange(m), box)
    index = np.arange(len(group)) - np.repeat(np.cumsum(box) - box, box)
    k = np.zeros((len(group), width), dtype=np.int64)
    for d in range(width):  # one pass per gain level (at most max_rel - min_rel)
        radix = reach[group, d] + 1
        k[:, d], index = index % radix, index // radix
    units = (k * value[group]).sum(axis=1)
    size = k.sum(axis=1)
    last = np.minimum(places, n) - 1  # per group: the most documents read before the stop
    keep = (units < tau[group]) & (size <= last[group])
    group, k, units, size = group[keep], k[keep], units[keep], size[keep]
    # the zeros z of each state
    span = np.minimum(zeros[group], last[group] - size) + 1
    state = np.repeat(np.arange(len(group)), span)
    z = np.arange(len(state)) - np.repeat(np.cumsum(span) - span, span)
    group, k, units = group[state], k[state], units[state]
    r = z + size[state]
    nf, zf = n[group].astype(np.float64), zeros[group].astype(np.float64)
    log_h = (_log_choose(zf, z.astype(np.float64))
             + _log_choose(count[group].astype(np.float64), k.astype(np.float64)).sum(axis=1)
             - _log_choose(nf, r.astype(np.float64)))
    h = np.exp(log_h)
    # the next document: each positive level, then a zero
    left = np.column_stack([count[group] - k, zeros[group] - z])
    gain = np.column_stack([value[group], np.zeros(len(group), dtype=np.int64)])
    stops = ((units[:, None] + gain) >= tau[group][:, None]) | (r + 1 == places[group])[:, None]
    live = stops & (left > 0)
    prob = h[:, None] * left / (n[group] - r)[:, None]
    worth = (before[group][:, None] + units[:, None] + gain) / \
        (R * (a[group] + r + 1))[:, None].astype(np.float64)
    owner = np.broadcast_to(group[:, None], live.shape)[live]
    expected = np.bincount(owner, weights=(prob * worth)[live], minlength=m)
    best, worst = np.full(m, -np.inf), np.full(m, np.inf)
    np.maximum.at(best, owner, worth[live])
    np.minimum.at(worst, owner, worth[live])
    return expected, best, worst
