"""Brute-force reference evaluation of a :class:`~conformance_cases.Case`, in plain Python.

Written from the definitions (trec_eval's documentation, docs/metrics-reference.md and the
papers' formulas for the tie-aware metrics), sharing no code with tiedrank: no TieTable, no
kernel, no reader. Per query:

1. the run's documents in file order; ``depth`` keeps the first ``depth`` in trec_eval's
   order (score descending, then docno descending by UTF-8 bytes); ``judged_only`` then
   drops the documents absent from the qrels of the query, and, as trec_eval does, those
   judged with a negative grade;
2. every ordering consistent with the scores is enumerated (permutations of documents
   inside each tie group) and the metric computed on each explicit ranked list;
3. ``expected`` = mean over orderings, ``best`` = max, ``worst`` = min,
   ``trec_eval`` = the one ordering by docno descending, ``input`` = the file order.

The query set: queries with results and judgements; ``complete`` adds the qrels queries
the run misses, with value 0; ``query_set="relevant"`` keeps queries with a document of
grade >= the relevance level in the qrels.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

import numpy as np

PLAIN = ("RR", "Success", "Hits", "P", "R", "AP", "nDCG", "DCG", "Rprec")
TIE_AWARE = ("TsRR", "TsRR2", "MTRR_GRAG", "TMHits_GRAG")


@dataclass(frozen=True)
class Spec:
    family: str
    k: int | None
    alpha: float | None

    @classmethod
    def of(cls, name: str) -> "Spec":
        m = re.fullmatch(r"([A-Za-z_0-9]+?)(?:\((?:alpha|max_rel)=([0-9.]+)\))?(?:@(\d+))?",
                         name)
        assert m, name
        family, alpha, k = m.groups()
        if family == "TsRR" and alpha is None:
            alpha = "1"
        return cls(family, None if k is None else int(k), None if alpha is None else float(alpha))


# ---- one query --------------------------------------------------------------------------------
@dataclass
class Query:
    docs: list[str]            # retrieved, file order (after -M and -J)
    scores: list[float]
    grades: list[int | None]   # None: unjudged
    judged: list[int]          # every qrels grade of the query (retrieved or not)


def trec_order(docs, scores):
    """Indices in trec_eval's order: score descending, then docno descending (strcmp)."""
    return sorted(range(len(docs)), key=lambda i: (-scores[i], _neg_bytes(docs[i])))


def _neg_bytes(doc: str):
    return tuple(-b for b in doc.encode("utf-8")) + (1,)  # shorter prefix sorts after


def build_query(run_rows, qrels_grades: dict, *, depth=None, judged_only=False,
                round_=None) -> Query:
    docs = [d for d, _ in run_rows]
    scores = [float(s) for _, s in run_rows]
    if round_ is not None:
        scores = [float(np.round(s, round_)) for s in scores]
    if depth is not None:
        keep = set(trec_order(docs, scores)[:depth])
        docs = [d for i, d in enumerate(docs) if i in keep]
        scores = [s for i, s in enumerate(scores) if i in keep]
    if judged_only:
        # trec_eval -J: judged = in the qrels with a grade >= 0 (a negative grade is "in the
        # pool, not judged", form_res_rels.c)
        kept = [i for i, d in enumerate(docs) if qrels_grades.get(d, -1) >= 0]
        docs, scores = [docs[i] for i in kept], [scores[i] for i in kept]
    return Query(docs, scores, [qrels_grades.get(d) for d in docs], list(qrels_grades.values()))


def orderings(scores):
    """Every ordering (tuple of indices) consistent with the scores (descending)."""
    levels = sorted(set(scores), reverse=True)
    groups = [[i for i, s in enumerate(scores) if s == v] for v in levels]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield tuple(i for part in parts for i in part)


def count_orderings(scores) -> int:
    counts = {}
    for s in scores:
        counts[s] = counts.get(s, 0) + 1
    return math.prod(math.factorial(c) for c in counts.values())


def _gain(g, kind):
    g = max(g or 0, 0)
    return float(g) if kind == "linear" else float(2 ** g - 1)


def ranked_value(spec: Spec, ranked_grades, judged, rel_level, gain="linear") -> float:
    """A plain metric of one explicit ranked list (grades, None = unjudged)."""
    rel = [(g is not None and g >= rel_level) for g in ranked_grades]
    R = sum(g >= rel_level for g in judged)
    n = len(rel)
    k = spec.k
    top = n if k is None else min(k, n)
    f = spec.family
    if f == "RR":
        return next((1.0 / (i + 1) for i in range(top) if rel[i]), 0.0)
    if f == "Success":
        return float(any(rel[:top]))
    if f == "Hits":
        return float(sum(rel[:top]))
    if f == "P":
        return sum(rel[:top]) / k
    if f == "R":
        return sum(rel[:top]) / R if R else 0.0
    if f == "Rprec":
        return sum(rel[:min(R, n)]) / R if R else 0.0
    if f == "AP":
        hits, total = 0, 0.0
        for i in range(top):
            if rel[i]:
                hits += 1
                total += hits / (i + 1)
        return total / R if R else 0.0
    if f in ("DCG", "nDCG"):
        dcg = sum(_gain(ranked_grades[i], gain) / math.log2(i + 2) for i in range(top))
        if f == "DCG":
            return dcg
        ideal = sorted(judged, reverse=True)
        itop = len(ideal) if k is None else min(k, len(ideal))
        idcg = sum(_gain(ideal[i], gain) / math.log2(i + 2) for i in range(itop))
        return dcg / idcg if idcg > 0 else 0.0
    if f == "Judged":  # ir_measures' judged provider: in the qrels (any grade), over min(k, n)
        return sum(g is not None for g in ranked_grades[:top]) / top if top else 0.0
    if f == "F1":  # TRM's Eq. 12: 2 X / (k + R)
        return 2.0 * sum(rel[:top]) / (k + R) if R else 0.0
    if f == "NCG":
        ideal = sorted((_gain(g, gain) for g in judged), reverse=True)
        icg = sum(ideal if k is None else ideal[:k])
        return sum(_gain(g, gain) for g in ranked_grades[:top]) / icg if icg > 0 else 0.0
    if f == "SDCG":  # cwl_eval's scaled DCG, max_rel=3: DCG@k of grade/3 over k top gains
        norm = sum(1 / math.log2(i + 2) for i in range(k))
        return sum(min(max(g or 0, 0), 3) / 3 / math.log2(i + 2)
                   for i, g in enumerate(ranked_grades[:top])) / norm
    if f in ("INSQ", "INST", "BPM"):  # cwl_eval's C/W/L rate of gain, T = 1
        return cwl_rate(f, ranked_grades, int(spec.alpha), k)
    if f in ("ERR", "nERR"):  # gdeval.pl's sub err (MAX_JUDGMENT = 4)
        def err(grades):
            score, decay = 0.0, 1.0
            for i, g in enumerate(grades[:k]):
                stop = (2 ** max(g or 0, 0) - 1) / 16
                score, decay = score + stop * decay / (i + 1), decay * (1 - stop)
            return score
        if f == "ERR":
            return err(ranked_grades)
        ideal = err(sorted(judged, reverse=True))
        return err(ranked_grades) / ideal if ideal > 0 else 0.0
    raise ValueError(f)


def cwl_rate(family: str, ranked_grades, max_rel: int, k) -> float:
    """cwl_eval's expected rate of gain with T = 1 over 1000 places (zero-padded), gains
    grade / max_rel clipped into [0, 1]: INSQ's C_i = ((i + 2T) / (i + 1 + 2T))^2, INST's
    with 2T less the gain gathered, BPM@k's 1 while the gathered gain (whole units of
    1 / max_rel, compared exactly) is below T and i + 1 < k; W = running products of C,
    normalised."""
    units = [min(max(g or 0, 0), max_rel) for g in ranked_grades[:1000]]
    gains = np.zeros(1000)
    gains[:len(units)] = np.array(units, dtype=float) / max_rel
    place = np.arange(1, 1001, dtype=float)  # cwl_eval's i + 1
    if family == "INSQ":
        c = ((place + 1.0) / (place + 2.0)) ** 2
    elif family == "INST":
        wanted = 1.0 - np.cumsum(gains)
        c = ((place + wanted) / (place + 1.0 + wanted)) ** 2
    else:
        gathered = np.cumsum(units + [0] * (1000 - len(units)))
        c = ((gathered < max_rel) & (place < k)).astype(float)
    running = np.concatenate(([1.0], np.cumprod(c[:-1])))
    return float(np.dot(running / running.sum(), gains))


def tie_aware_value(spec: Spec, query: Query, rel_level: int) -> float:
    """TsRR, TsRR2, MTRR_GRAG, TMHits_GRAG@k from the tie groups (their definitions)."""
    levels = sorted(set(query.scores), reverse=True)
    groups = []  # (above, size, relevant)
    above = 0
    for v in levels:
        members = [i for i, s in enumerate(query.scores) if s == v]
        relevant = sum(1 for i in members if query.grades[i] is not None
                       and query.grades[i] >= rel_level)
        groups.append((above, len(members), relevant))
        above += len(members)
    retrieved_relevant = sum(g[2] for g in groups)
    f_total = len(query.docs) - retrieved_relevant
    f = spec.family
    if f in ("MTRR_GRAG", "TMHits_GRAG"):
        if retrieved_relevant == 0:
            return 0.0
        if f == "MTRR_GRAG":
            return sum(r * 2.0 / (2 * a + n + 1) for a, n, r in groups) / retrieved_relevant
        return sum(r * min(max((spec.k - a) / n, 0.0), 1.0) for a, n, r in groups) \
            / retrieved_relevant
    first = next((g for g in groups if g[2] > 0), None)
    if first is None:
        return 0.0
    a, t, r = first
    if f == "TsRR":
        if f_total == 0:
            return 1.0 / (a + 1)
        ratio = math.log(1 + t - r) / math.log(1 + f_total)
        return (1.0 - ratio ** (1.0 / spec.alpha)) / (a + 1)
    if f == "TsRR2":
        tau = (t - r) / f_total if f_total else 0.0
        return 1.0 / (a + (1 - tau) * (t + 1) / (r + 1) + tau * (t - r + 1))
    raise ValueError(f)


def all_values(spec: Spec, query: Query, rel_level: int, gain="linear") -> np.ndarray:
    """The metric under every ordering of the query (brute force)."""
    if not query.docs:
        return np.array([ranked_value(spec, [], query.judged, rel_level, gain)])
    return np.array([ranked_value(spec, [query.grades[i] for i in o], query.judged,
                                  rel_level, gain) for o in orderings(query.scores)])


def policy_value(spec: Spec, query: Query, policy: str, rel_level: int, gain="linear") -> float:
    if spec.family in TIE_AWARE:
        return tie_aware_value(spec, query, rel_level)
    if policy in ("expected", "best", "worst"):
        values = all_values(spec, query, rel_level, gain)
        return float({"expected": np.mean, "best": np.max,
                      "worst": np.min}[policy](values))
    if policy == "trec_eval":
        order = trec_order(query.docs, query.scores)
    elif policy == "input":
        order = sorted(range(len(query.docs)), key=lambda i: -query.scores[i])  # stable
    else:
        raise ValueError(policy)
    return ranked_value(spec, [query.grades[i] for i in order], query.judged, rel_level, gain)


# ---- a whole case -----------------------------------------------------------------------------
def query_set(case, *, rel_level=1, complete=False, which="trec_eval") -> list[str]:
    judged = {}
    for q, d, g in case.qrels:
        judged.setdefault(q, {})[d] = g
    ran = {q for q, _, _ in case.run}
    queries = {q for q in judged if q in ran or complete}
    if which == "relevant":
        queries = {q for q in queries if any(g >= rel_level for g in judged[q].values())}
    return sorted(queries)


def reference(case, metrics, policies, *, rel_level=1, gain="linear", judged_only=False,
              depth=None, complete=False, which="trec_eval", round_=None) -> dict:
    """{(query, metric, policy): value} over the query set of the options."""
    judged = {}
    for q, d, g in case.qrels:
        judged.setdefault(q, {})[d] = g
    out = {}
    for q in query_set(case, rel_level=rel_level, complete=complete, which=which):
        rows = [(d, s) for qq, d, s in case.run if qq == q]
        query = build_query(rows, judged[q], depth=depth, judged_only=judged_only,
                            round_=round_)
        for name in metrics:
            spec = Spec.of(name)
            for policy in policies:
                out[q, name, policy] = (policy_value(spec, query, policy, rel_level, gain)
                                        if rows else 0.0)
    return out
