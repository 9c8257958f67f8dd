"""ERR@k and nERR@k, the cascade measures of gdeval (the TREC Web track's ``gdeval.pl``), exact
under ties.

gdeval's ERR (Chapelle et al. 2009): a user reads down the ranking and stops at rank i with
probability R_i = (2^g_i - 1) / 2^MAX_JUDGMENT, g_i the grade (0 for an unjudged document
or a grade <= 0), MAX_JUDGMENT = 4, so R_i <= 15/16;

    ERR@k = sum_{i <= k} (R_i / i) prod_{j < i} (1 - R_j).

gdeval refuses a qrels file holding a grade above MAX_JUDGMENT ("format error"), and so does
tiedrank (:func:`check_grades`), rather than scoring a stop probability above 1. nERR@k
divides by ERR@k of the ideal ranking, the qrels' grades sorted descending (gdeval prints no
nERR; this is ndeval's nERR-IA with one intent and Chapelle's normalisation).

Exact expectation (docs/metrics-reference.md, ERR). With S_i = prod_{j <= i} (1 - R_j),
R_i prod_{j<i} (1 - R_j) = S_{i-1} - S_i, so ERR@k = sum_{i <= k} (S_{i-1} - S_i) / i and
E[ERR@k] needs E[S_i] alone. For i = a_g + m inside group g (a_g documents above it, n_g in
it), S_i = P_g * (the product of 1 - R over the first m documents of the group), P_g the
product over the groups above, the same under every ordering. The first m documents of a
uniformly ordered group are a uniform m-subset, so with the group's r positively graded
documents (x_d = 1 - R_d < 1) and c = n - r others (x = 1):

    h(m) = E[prod over the first m] = sum_j Hyp(j; n, r, m) f(j),
    f(j) = E[prod over a uniform j-subset of the r positives]
         = e_j(x) / C(r, j), by f_t(j) = ((t-j)/t) f_{t-1}(j) + (j/t) x_t f_{t-1}(j-1),

the hypergeometric law of the positives among the first m documents, and the normalised
elementary symmetric polynomials of the positives' x (a convex recurrence: every f is an
expectation in [0, 1], computed over the positives one place at a time for every group at
once). Then E[ERR@k] = sum_g P_g sum_{m=1}^{u_g} (h(m-1) - h(m)) / (a_g + m), u_g the
group's places in the top k (f is needed for j <= min(r_g, u_g) only). The work is
sum_g (u_g + 1)(w_g + 1) + r_g (w_g + 1) terms, w_g = min(r_g, u_g), and one pass per positive
of the largest group; a group needing more than :data:`MAX_TERMS` terms or
:data:`MAX_POSITIVES` passes is refused with a message naming it (never approximated).

Best and worst: swapping neighbours i, i+1 with stop probabilities A, B changes ERR by
S_{i-1} (A - B)(1/i - 1/(i+1)) and leaves every later term alone, and ERR@k rises with each
R_i (i <= k), so the order by grade descending (ascending) is the largest (smallest): the
grade orders of the ``best`` and ``worst`` policies.

Examples
--------
>>> import pandas as pd
>>> from tiedrank.core.data import Qrels, Run
>>> from tiedrank.core.ties import build_tie_table
>>> run = Run("r", pd.DataFrame({"query": "q", "doc": list("ab"), "score": [1.0, 1.0]}))
>>> qrels = Qrels(pd.DataFrame({"query": "q", "doc": ["a"], "relevance": [4]}))
>>> float(expected_err(build_tie_table(run, qrels), 10)[0])   # (15/16) (1 + 1/2) / 2
0.703125
"""
from __future__ import annotations

import numpy as np

from ..core.errors import InputError, Remedy, RemediedValueError
from ..core.segments import segment_cumsum, segment_sum
from ..core.ties import TieTable
from .blocks import divide

MAX_JUDGMENT = 4
"""gdeval's ``$MAX_JUDGMENT``: the largest grade its qrels may hold; the stop probability
of grade g is (2^g - 1) / 2^MAX_JUDGMENT."""
MAX_TERMS = 2**24
"""The most terms one tie group may need, (u + 1)(w + 1) and r (w + 1) with r positively
graded documents, u places in the top k and w = min(r, u): about 16 million, a few hundred
MB of float64 arrays."""
MAX_POSITIVES = 2**14
"""The most positively graded documents of one tie group inside the top k: the recurrence
takes one vectorised pass per such document of the largest group (16,384 passes: about a
second)."""
_CHUNK = 2**21
"""Terms computed at once across groups (groups are batched up to this many)."""


def stop_probability(grades: np.ndarray) -> np.ndarray:
    """gdeval's R = (2^g - 1) / 2^MAX_JUDGMENT, g clipped at 0 (unjudged and negative: 0)."""
    clipped = np.maximum(grades, 0).astype(np.float64)
    return (np.exp2(clipped) - 1.0) / 2.0**MAX_JUDGMENT


def check_grades(table: TieTable, name: str) -> None:
    """Refuse a grade above :data:`MAX_JUDGMENT` in the qrels, as gdeval does, naming the query
    (an :class:`~tiedrank.core.errors.InputError`, a ``ValueError``)."""
    too_high = table.ideal_grade > MAX_JUDGMENT
    if too_high.any():
        position = int(np.flatnonzero(too_high)[0])
        query = table.queries[int(np.searchsorted(table.ideal_start, position, side="right")) - 1]
        # bad data for this measure (an InputError: the dashboard shows it as it is)
        raise InputError(
            f"{name}: query {query!r} has grade {int(table.ideal_grade[position])} in the qrels; "
            f"gdeval's ERR takes grades up to MAX_JUDGMENT = {MAX_JUDGMENT} (stop probability "
            f"(2^grade - 1) / 16) and refuses the file otherwise; map the grades into "
            f"0..{MAX_JUDGMENT} in the qrels", source="qrels")


def _log_choose(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    from scipy.special import gammaln  # scipy only when ERR is computed: tiedrank starts fast

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _subset_products(x: np.ndarray, starts: np.ndarray, r: np.ndarray,
                     width: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """f(j) = e_j(x) / C(r, j), j = 0..width, for every group's positives at once.

    ``x``: the positives' 1 - R, group after group (``starts``: each group's first, ``r``:
    its count); ``width``: the largest j a group needs (min(r, u): no more positives than
    places fit in the top k), so f_t(j) is kept for j <= width only (f_t(j) reads f_{t-1}(j)
    and f_{t-1}(j - 1) alone). Returns the flat f and each group's offset in it. One pass per
    place t of the group with the most positives, every group with r >= t updated together.
    """
    offset = np.zeros(len(r) + 1, dtype=np.int64)
    np.cumsum(width + 1, out=offset[1:])
    f = np.zeros(int(offset[-1]))
    f[offset[:-1]] = 1.0
    by_size = np.argsort(-r, kind="stable")
    sizes = r[by_size]
    for t in range(1, int(r.max(initial=0)) + 1):
        active = by_size[:int(np.searchsorted(-sizes, -t, side="right"))]
        count = np.minimum(t, width[active]) + 1
        group = np.repeat(active, count)
        j = np.arange(len(group)) - np.repeat(np.cumsum(count) - count, count)
        where = offset[group] + j
        x_t = x[starts[group] + t - 1]
        previous = np.where(j > 0, f[np.maximum(where - 1, 0)], 0.0)
        f[where] = ((t - j) / t) * f[where] + (j / t) * x_t * previous
    return f, offset


def _group_sums(n: np.ndarray, r: np.ndarray, a: np.ndarray, u: np.ndarray, f: np.ndarray,
                f_offset: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """sum_{m=1}^{u} (h(m-1) - h(m)) / (a + m) for the given groups (see the module)."""
    n, r, a, u = n[groups], r[groups], a[groups], u[groups]
    width = np.minimum(r, u)
    terms = (u + 1) * (width + 1)
    group = np.repeat(np.arange(len(groups)), terms)
    inner = np.arange(len(group)) - np.repeat(np.cumsum(terms) - terms, terms)
    m, j = inner // (width + 1)[group], inner % (width + 1)[group]
    n_, r_ = n[group].astype(np.float64), r[group].astype(np.float64)
    others = n_ - r_
    valid = (j <= m) & (m - j <= others)
    log_law = np.where(valid, _log_choose(r_, j) + _log_choose(others, np.where(valid, m - j, 0))
                       - _log_choose(n_, m), -np.inf)
    mixed = np.exp(log_law) * f[f_offset[groups][group] + j]
    h_offset = np.cumsum(u + 1) - (u + 1)
    h = np.bincount(h_offset[group] + m, weights=mixed, minlength=int((u + 1).sum()))
    # the h of each group's place m: step (h(m-1) - h(m)) / (a + m), m >= 1
    place = np.arange(len(h)) - np.repeat(h_offset, u + 1)
    owner = np.repeat(np.arange(len(groups)), u + 1)
    later = place >= 1
    step = np.zeros(len(h))
    step[later] = (h[np.flatnonzero(later) - 1] - h[later]) / (a[owner[later]] + place[later])
    return np.bincount(owner, weights=step, minlength=len(groups))


def expected_err(table: TieTable, k: int | None, name: str = "ERR") -> np.ndarray:
    """E[ERR@k] over the tie orderings, per query (the module gives the derivation)."""
    check_grades(table, name)
    table = table.scoring()
    if table.n_groups == 0:
        return np.zeros(table.n_queries)
    stop = stop_probability(table.doc_grade)
    positive = stop > 0
    log_x = np.log1p(-stop)
    # P_g: the survival product of the groups above (order-free), in logs
    survival = np.exp(table.sum_above(segment_sum(log_x, table.group_start)))
    n = table.group_size.astype(np.int64)
    r = segment_sum(positive.astype(np.int64), table.group_start)
    a = table.group_above.astype(np.float64)
    u = n if k is None else np.clip(k - table.group_above, 0, n).astype(np.int64)
    needed = np.where(u > 0, r, 0)  # a group past the cutoff needs no recurrence
    width = np.minimum(needed, u)
    terms = np.maximum((u + 1) * (width + 1), needed * (width + 1))
    refused = (terms > MAX_TERMS) | (needed > MAX_POSITIVES)
    if refused.any():
        g = int(np.flatnonzero(refused)[0])
        raise RemediedValueError(
            f"{name}: query {table.queries[table.group_query[g]]!r} has a tie group of {n[g]} "
            f"documents, {r[g]} of them graded above 0, at ranks {int(a[g]) + 1}.."
            f"{int(a[g] + n[g])}: its exact ERR needs {int(terms[g]):,} terms over "
            f"{int(needed[g]):,} passes, more than {MAX_TERMS:,} terms or {MAX_POSITIVES:,} "
            "passes; ask for a smaller cutoff (ERR@k with fewer places in the group), or ",
            Remedy("ties", "trec_eval", "to score it on one ordering (trec_eval's)"))
    # the positives of each group, in the group's order, with their 1 - R
    order = np.flatnonzero(positive)
    x = 1.0 - stop[order]
    starts = np.cumsum(r) - r
    f, f_offset = _subset_products(x, starts, needed, width)
    live = np.flatnonzero((u > 0) & (r > 0))
    sums = np.zeros(table.n_groups)
    batch = np.cumsum(terms[live]) // _CHUNK
    for part in np.split(live, np.flatnonzero(np.diff(batch)) + 1):  # bounded memory
        if len(part):
            sums[part] = _group_sums(n, r, a, u, f, f_offset, part)
    return np.bincount(table.group_query, weights=survival * sums, minlength=table.n_queries)


def ideal_err(table: TieTable, k: int | None) -> np.ndarray:
    """ERR@k of the ideal ranking: the query's qrels grades sorted descending."""
    counts = np.diff(table.ideal_start)
    query = np.repeat(np.arange(table.n_queries), counts)
    rank = np.arange(len(table.ideal_grade)) - np.repeat(table.ideal_start[:-1], counts) + 1
    stop = stop_probability(table.ideal_grade)
    if len(stop) == 0:
        return np.zeros(table.n_queries)
    first = np.flatnonzero(np.diff(np.concatenate(([-1], query))) != 0)
    above = np.exp(segment_cumsum(np.log1p(-stop), first, exclusive=True))
    value = stop * above / rank
    if k is not None:
        value = value * (rank <= k)
    return np.bincount(query, weights=value, minlength=table.n_queries)


def expected_nerr(table: TieTable, k: int | None, name: str = "nERR") -> np.ndarray:
    """E[nERR@k] = E[ERR@k] / ideal ERR@k (the ideal does not depend on the ordering); 0
    for a query without a positive grade."""
    return divide(expected_err(table, k, name), ideal_err(table, k))
