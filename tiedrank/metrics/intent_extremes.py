"""Best and worst orders of the intent-aware measures (:mod:`tiedrank.metrics.intent`).

The order inside a tie group changes only that group's own terms: the groups below see how
many documents of the group are relevant to each subtopic, whatever their order. So the
largest (smallest) value over the tie orderings is the sum over groups of each group's
largest (smallest) contribution, each group optimised on its own.

Inside a group, every discount is non-increasing in the rank, and a document relevant to no
subtopic adds nothing, so the best order puts those documents last and the worst first
(moving one past a relevant document moves that one up, or down, without changing any
count). What is left is the order of the relevant documents, which matters only through
their *profiles* (the set of subtopics each is relevant to): documents of one profile are
interchangeable. A group whose relevant documents share one profile has a single order of
profiles (vectorised over all such groups); otherwise the exact optimum comes from a
dynamic programme over the multisets of profiles placed so far (the state fixes every
subtopic's count, hence the gain of the next document), one layer per rank. Finding the
optimum is NP-hard in general (ideal alpha-nDCG is), so the programme is bounded: a group
whose programme would hold more than :data:`MAX_STATES` states, or an evaluation whose
programmes would take more than :data:`MAX_SEARCH_WORK` units of work together (about 4 s),
is refused, with a message naming the query and the group's ranks, never approximated. P-IA needs no programme: its
top k holds the documents relevant to the most (fewest) subtopics.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import Remedy, RemediedValueError
from ..core.ties import TieTable
from .intent import Shape, group_pairs, scaled, shape, table_intents

MAX_STATES = 250_000
"""Largest number of states (multisets of profiles up to the group's last counted rank)
the best or worst order of one tie group may need; beyond it the measure's best and worst
are refused for that query, naming it."""
MAX_SEARCH_WORK = 150_000_000
"""Most work the programmes of one evaluation's best (or worst) orders may take together, in
units of (state x profile x subtopic): a layer of the programme moves each state by each
profile and counts each subtopic, about 25 ns a unit, and costs about 50 us whatever its
size (counted as :data:`_LAYER` units), so about 4 s of one core. Beyond it
the best and worst are refused, naming the group that needs the most (100 queries of 17
tied documents with distinct profiles needed 3.8e9 units, 273 s, before this bound)."""


_LAYER = 2_000


def _work(states: int, counts: np.ndarray, rows: np.ndarray, places: int) -> int:
    """A programme's work: states x profiles x (subtopics + 1), and its layers' own cost."""
    subtopics = len(np.unique(rows[rows >= 0]))
    return states * len(counts) * (subtopics + 1) + places * _LAYER


def _profiles(table: TieTable, name: str, form: Shape
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The profiles of the relevant documents of the groups the measure reads.

    Returns ``(doc_group, rows, counts_above)``: for each such document, its group, its
    profile as a row of subtopic numbers (ascending, padded with -1) and, aligned with it,
    each subtopic's count in the groups above. Subtopics that can add nothing more in the
    group (weight 0 at the count above it and at the next) are left out, and a document
    left with none is no longer relevant here.
    """
    intents = table_intents(table, name)
    position, subtopic = intents.entries(table.doc_row, table.rel_level)
    group = table.doc_group[position]
    pairs = group_pairs(table, name)
    # the count above each (group, subtopic) entry
    groups = max(table.n_groups, 1)
    pair_key = pairs.subtopic * groups + pairs.group
    entry_key = subtopic.astype(np.int64) * groups + group
    above = pairs.above[np.searchsorted(pair_key, entry_key)]
    alive = (form.weight(subtopic, above) != 0) | (form.weight(subtopic, above + 1) != 0)
    position, subtopic, group, above = position[alive], subtopic[alive], group[alive], above[alive]
    if form.depth is not None:
        reads = table.group_above[group] < form.depth
        position, subtopic, group, above = (position[reads], subtopic[reads], group[reads],
                                            above[reads])
    order = np.lexsort((subtopic, position))
    position, subtopic, group, above = position[order], subtopic[order], group[order], above[order]
    docs, first, length = np.unique(position, return_index=True, return_counts=True)
    width = int(length.max()) if len(length) else 0
    rows = np.full((len(docs), width), -1, dtype=np.int64)
    slot = np.arange(len(position)) - np.repeat(first, length)
    rows[np.repeat(np.arange(len(docs)), length), slot] = subtopic
    counts_above = np.zeros((len(docs), width), dtype=np.int64)
    counts_above[np.repeat(np.arange(len(docs)), length), slot] = above
    return table.doc_group[docs], rows, counts_above


def extreme_values(table: TieTable, family: str, k: int | None, alpha: float | None,
                   beta: float | None, best: bool) -> np.ndarray:
    """Per query: the largest (``best``) or smallest value of ``family`` over the tie
    orderings of the expected ``table`` (see the module docstring)."""
    form = shape(family, table, k, alpha, beta)
    if family == "P_IA":
        return scaled(table, form, _precision_extreme(table, family, k, best))
    doc_group, rows, counts_above = _profiles(table, family, form)
    total = np.zeros(table.n_queries)
    if len(rows) == 0:
        return scaled(table, form, total)
    profile_key = np.concatenate([doc_group[:, None], rows], axis=1)
    distinct, profile_of, count = np.unique(profile_key, axis=0, return_inverse=True,
                                            return_counts=True)
    profile_of = profile_of.ravel()
    profile_group = distinct[:, 0]
    group_ids, per_group = np.unique(profile_group, return_counts=True)
    relevant = np.bincount(doc_group, minlength=table.n_groups)
    size, above_group = table.group_size, table.group_above
    last = (size - 1 if form.depth is None
            else np.minimum(size - 1, form.depth - 1 - above_group))  # last offset read
    offset = np.zeros(table.n_groups, dtype=np.int64) if best else size - relevant
    places = np.clip(last + 1 - offset, 0, relevant)  # relevant documents inside the depth
    # the count above of each profile's subtopics (one per group and subtopic)
    first_doc = np.zeros(len(distinct), dtype=np.int64)
    first_doc[profile_of[::-1]] = np.arange(len(profile_of))[::-1]
    single = np.isin(profile_group, group_ids[per_group == 1])
    # ---- groups with one profile: its documents in a row, vectorised -------------------------
    p = np.flatnonzero(single)
    g = profile_group[p]
    t_owner = np.repeat(np.arange(len(p)), places[g])
    t = np.arange(len(t_owner)) - np.repeat(np.cumsum(places[g]) - places[g], places[g])
    sub_rows, sub_above = rows[first_doc[p]][t_owner], counts_above[first_doc[p]][t_owner]
    ok = sub_rows >= 0
    weights = np.zeros(sub_rows.shape)
    weights[ok] = form.weight(sub_rows[ok], (sub_above + t[:, None])[ok])
    gains = weights.sum(axis=1) * form.discount(above_group[g][t_owner] + 1
                                                + offset[g][t_owner] + t)
    total += np.bincount(table.group_query[g][t_owner], weights=gains, minlength=table.n_queries)
    # ---- groups with several profiles: the bounded dynamic programme, group by group ---------
    first_profile = np.searchsorted(profile_group, group_ids)  # profiles sorted by group
    searched = list(zip(group_ids[per_group > 1], first_profile[per_group > 1],
                        per_group[per_group > 1]))
    states = [_state_count(count[first:first + n], int(places[group]))
              for group, first, n in searched]
    work = [_work(n_states, count[first:first + n],
                  rows[first_doc[np.arange(first, first + n)]], int(places[group]))
            for n_states, (group, first, n) in zip(states, searched)]
    if sum(work) > MAX_SEARCH_WORK:  # every group within its bound, too much work together
        group = int(searched[int(np.argmax(work))][0])
        first = int(table.group_above[group]) + 1
        raise RemediedValueError(
            f"{family}: the {'best' if best else 'worst'} orders of {len(states):,} tie groups "
            f"need {sum(states):,} states, {sum(work):,} units of work together, more than "
            f"the {MAX_SEARCH_WORK:,} (about 4 s) tiedrank searches in one evaluation (the "
            f"largest: query {table.queries[table.group_query[group]]!r}, ranks {first}-"
            f"{first + int(table.group_size[group]) - 1}, {max(states):,} states); ",
            Remedy("ties", "expected,trec_eval", "to score the expectation and trec_eval's "
                   "order, which need no search"), ", or a smaller cutoff")
    for group, first, n_profiles in searched:
        mine = np.arange(first, first + n_profiles)
        total[table.group_query[group]] += _programme(
            table, family, int(group), rows[first_doc[mine]], counts_above[first_doc[mine]],
            count[mine], int(places[group]), int(above_group[group] + offset[group]), form, best)
    return scaled(table, form, total)


def _state_count(counts: np.ndarray, places: int) -> int:
    """Multisets of the profiles (``counts`` of each) holding at most ``places`` documents:
    the coefficients of prod_p (1 + x + ... + x^c_p) up to x^places, summed."""
    polynomial = np.zeros(places + 1)
    polynomial[0] = 1.0
    for c in counts:  # one product per profile (a few)
        running = np.cumsum(polynomial)
        polynomial = running - np.concatenate((np.zeros(int(c) + 1), running))[:places + 1]
    return int(min(polynomial.sum(), 2.0 ** 62))


def _programme(table: TieTable, name: str, group: int, rows: np.ndarray, above: np.ndarray,
               counts: np.ndarray, places: int, start: int, form: Shape, best: bool) -> float:
    """The best (worst) sum of one group's terms over the orders of its profiles."""
    if places <= 0:
        return 0.0
    states = _state_count(counts, places)
    if states > MAX_STATES:
        query = table.queries[table.group_query[group]]
        first = int(table.group_above[group]) + 1
        raise RemediedValueError(
            f"{name}: the {'best' if best else 'worst'} order of a tie group of query {query!r} "
            f"(ranks {first}-{first + int(table.group_size[group]) - 1}) needs {states:,} "
            f"states ({len(counts)} distinct subtopic profiles among {int(counts.sum())} "
            f"relevant documents); tiedrank finds it exactly up to {MAX_STATES:,} and never "
            "approximates it; ", Remedy("ties", "expected,trec_eval", "to score the "
                                        "expectation and trec_eval's order, which need no "
                                        "search"), ", or a smaller cutoff")
    subtopics, local = np.unique(rows[rows >= 0], return_inverse=True)
    incidence = np.zeros((len(counts), len(subtopics)))
    r, c = np.nonzero(rows >= 0)
    incidence[r, local] = 1.0
    base = np.zeros(len(subtopics), dtype=np.int64)
    base[local] = above[r, c]
    radix = np.cumprod(np.concatenate(([1], counts[:-1] + 1))).astype(np.int64)
    state = np.zeros(1, dtype=np.int64)
    value = np.zeros(1)
    digits = np.zeros((1, len(counts)), dtype=np.int64)
    pick = np.maximum if best else np.minimum
    for t in range(places):
        seen = digits @ incidence  # states x subtopics: documents placed relevant to each
        counted = base[None, :] + seen.astype(np.int64)
        weight = form.weight(np.broadcast_to(subtopics, counted.shape).ravel(),
                             counted.ravel()).reshape(counted.shape)
        gain = (weight @ incidence.T) * form.discount(np.array([start + t + 1.0]))[0]
        room = digits < counts[None, :]
        source, move = np.nonzero(room)
        new_state = state[source] + radix[move]
        new_value = value[source] + gain[source, move]
        state, inverse = np.unique(new_state, return_inverse=True)
        value = np.full(len(state), -np.inf if best else np.inf)
        pick.at(value, inverse.ravel(), new_value)
        digits = (state[:, None] // radix[None, :]) % (counts[None, :] + 1)
    return float(value.max() if best else value.min())


def _precision_extreme(table: TieTable, name: str, k: int, best: bool) -> np.ndarray:
    """P-IA's best (worst) sum: in each group read by the top k, the documents relevant to
    the most (fewest) subtopics first."""
    intents = table_intents(table, name)
    position, _ = intents.entries(table.doc_row, table.rel_level)
    breadth = np.bincount(position, minlength=len(table.doc_row))
    group = table.doc_group
    order = np.lexsort((-breadth if best else breadth, group))
    offset = np.arange(len(order)) - table.group_start[group[order]]
    counted = table.group_above[group[order]] + offset < k
    return np.bincount(table.group_query[group[order]][counted],
                       weights=breadth[order][counted].astype(np.float64),
                       minlength=table.n_queries)
