"""Judged@k, F1@k, NCG@k, ERR@k and nERR@k (tiedrank/metrics/peer_kernels.py, cascade.py)
against the peers that define them, on every tie ordering.

Small random tied queries (graded 0..4, documents absent from the qrels, pooled but unjudged
(-1), judged documents never retrieved, queries without a relevant document, cutoffs inside
a tie group) are drawn once from a seeded generator; every ordering of every query becomes a
query of its own with distinct scores, and the peer scores all of them in one call:
ir_measures' ``judged`` provider (Judged@k), ``gdeval.pl`` through ir_measures' gdeval
provider (ERR@k; nERR@k is gdeval's ERR of the ordering over gdeval's ERR of the ideal
ranking, given to gdeval as a run of its own), and plain Python from the definitions where no
peer installed computes the measure (F1@k: TRM's Eq. 12, 2 X / (k + R); NCG@k). Then
expected == mean, best == max, worst == min over the orderings, per query; on tie-free runs
the trec_eval-order value equals the peer's. gdeval prints 5 decimals, so against it the
tolerance is 5e-6; against gdeval's ``err`` transcribed (below) it is 1e-12.
"""
from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

import tiedrank
from oracles import all_orderings
from tiedrank import EvaluationOptions
from tiedrank.core.data import Qrels, Run
from tiedrank.core.ties import build_tie_table
from tiedrank.metrics import metric_values

ir_measures = pytest.importorskip("ir_measures")
CUTOFFS = (1, 2, 3, 5, 8)
GDEVAL_DIGITS = 5e-6 + 1e-12


# ---- the inputs ------------------------------------------------------------------------------
def draw_queries(seed: int, count: int, tie_free: bool = False) -> dict:
    """{qid: (scores, grades of the retrieved (None: not in the qrels), grades of judged
    documents never retrieved)}; numeric query ids (gdeval reads no other)."""
    rng = np.random.default_rng(seed)
    queries = {}
    for q in range(count):
        n = int(rng.integers(1, 7))
        scores = (rng.permutation(n).astype(float) if tie_free
                  else rng.choice([0.0, 0.5, 1.0], size=n)).tolist()
        grades = [None if u < 0.2 else int(g) for u, g in
                  zip(rng.random(n), rng.choice([-1, 0, 0, 1, 2, 3, 4], size=n))]
        extra = rng.choice([-1, 0, 1, 2, 4], size=int(rng.integers(0, 3))).tolist()
        if q % 5 == 0:  # no relevant document at all, retrieved or not
            grades = [None if g is None else min(g, 0) for g in grades]
            extra = [min(g, 0) for g in extra]
        queries[str(1000 + q)] = (scores, grades, [*extra, 0])  # in the qrels: evaluated
    return queries


def frames(queries: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    run_rows, qrels_rows = [], []
    for q, (scores, grades, extra) in queries.items():
        for i, (s, g) in enumerate(zip(scores, grades)):
            run_rows.append((q, f"d{i}", float(s)))
            if g is not None:
                qrels_rows.append((q, f"d{i}", int(g)))
        qrels_rows += [(q, f"u{j}", int(g)) for j, g in enumerate(extra)]
    run = pd.DataFrame(run_rows, columns=["query", "doc", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["query", "doc", "relevance"])
    return run, qrels


def each_ordering(queries: dict):
    """(qid, ordering id, ranked grades, ranked doc ids) for every ordering of every query."""
    for q, (scores, grades, _) in queries.items():
        for o, order in enumerate(all_orderings(scores)):
            yield q, f"{q}{o:04d}", [grades[i] for i in order], [f"d{i}" for i in order]


def peer_inputs(queries: dict):
    """Every ordering as a query of its own (distinct scores), for one call of the peer."""
    run, qrels, owner = {}, {}, {}
    for q, oid, _, docs in each_ordering(queries):
        scores, grades, extra = queries[q]
        owner[oid] = q
        run[oid] = {d: float(len(docs) - i) for i, d in enumerate(docs)}
        qrels[oid] = {f"d{i}": int(g) for i, g in enumerate(grades) if g is not None}
        qrels[oid].update({f"u{j}": int(g) for j, g in enumerate(extra)})
    return run, qrels, owner


def by_query(values: dict, owner: dict) -> dict:
    grouped = defaultdict(list)
    for oid, value in values.items():
        grouped[owner[oid]].append(value)
    return {q: np.array(v) for q, v in grouped.items()}


# ---- the peers ------------------------------------------------------------------------------
def ir_measures_values(measure, run: dict, qrels: dict) -> dict:
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}


def gdeval_err(k: int, run: dict, qrels: dict) -> dict:
    """gdeval's ERR@k (ir_measures' gdeval provider runs gdeval.pl); a query without a
    positive grade is not printed by gdeval: its ERR is 0."""
    printed = ir_measures_values(ir_measures.ERR @ k, run, qrels)
    return {q: printed.get(q, 0.0) for q in run}


def gdeval_err_transcribed(k: int, gains: list) -> float:
    """gdeval.pl's ``sub err`` line by line (MAX_JUDGMENT = 4; a gain <= 0 is 0)."""
    score, decay = 0.0, 1.0
    for i in range(min(k, len(gains))):
        r = (2 ** max(gains[i] or 0, 0) - 1) / 2 ** 4  # None: not in the qrels, gain 0
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


def ideal_gains(queries: dict, q: str) -> list:
    scores, grades, extra = queries[q]
    return sorted([g for g in grades if g is not None] + list(extra), reverse=True)


def f1_definition(k: int, ranked: list, judged: list) -> float:
    """TRM's Eq. 12 (McSherry & Najork): 2 X / (k + R)."""
    relevant = sum(g >= 1 for g in judged)
    hits = sum(g is not None and g >= 1 for g in ranked[:k])
    return 2.0 * hits / (k + relevant) if relevant else 0.0


def ncg_definition(k: int, ranked: list, judged: list) -> float:
    ideal = sum(sorted((max(g, 0) for g in judged), reverse=True)[:k])
    return sum(max(g or 0, 0) for g in ranked[:k]) / ideal if ideal else 0.0


# ---- the comparison ---------------------------------------------------------------------------
def ours(queries: dict, name: str) -> dict:
    run, qrels = frames(queries)
    table = build_tie_table(Run("r", run), Qrels(qrels), EvaluationOptions())
    values = {policy: metric_values(table, name, extreme=extreme) for policy, extreme in
              (("expected", None), ("best", "best"),
               ("worst", "worst"))}
    return {q: {p: float(v[i]) for p, v in values.items()} for i, q in enumerate(table.queries)}


COMPARED: dict = defaultdict(lambda: [0, 0.0])
"""Per peer: (query, policy) values compared and the largest difference (for the report)."""


def assert_matches(queries: dict, name: str, orderings: dict, tolerance: float,
                   peer: str) -> None:
    got = ours(queries, name)
    for q in queries:
        want = {"expected": orderings[q].mean(), "best": orderings[q].max(),
                "worst": orderings[q].min()}
        for policy, value in want.items():
            diff = abs(got[q][policy] - value)
            COMPARED[peer][0] += 1
            COMPARED[peer][1] = max(COMPARED[peer][1], diff)
            assert diff <= tolerance, (name, q, queries[q], policy, got[q][policy], value)


TIED = draw_queries(seed=20261127, count=90)


@pytest.fixture(scope="module")
def peer_run():
    return peer_inputs(TIED)


@pytest.mark.parametrize("k", [*CUTOFFS, None])
def test_judged_equals_ir_measures_on_every_ordering(peer_run, k):
    run, qrels, owner = peer_run
    measure = ir_measures.Judged if k is None else ir_measures.Judged @ k
    orderings = by_query(ir_measures_values(measure, run, qrels), owner)
    assert_matches(TIED, "Judged" if k is None else f"Judged@{k}", orderings, 1e-12,
                   "ir_measures judged")


@pytest.mark.parametrize("k", CUTOFFS)
def test_err_and_nerr_equal_gdeval_on_every_ordering(peer_run, k):
    run, qrels, owner = peer_run
    printed = gdeval_err(k, run, qrels)
    assert_matches(TIED, f"ERR@{k}", by_query(printed, owner), GDEVAL_DIGITS, "gdeval ERR")
    # the ideal ranking of each query as a run of its own, scored by gdeval too
    ideal_run = {q: {f"i{j}": float(-j) for j in range(len(ideal_gains(TIED, q)))} for q in TIED}
    ideal_qrels = {q: {f"i{j}": g for j, g in enumerate(ideal_gains(TIED, q))} for q in TIED}
    ideal = gdeval_err(k, ideal_run, ideal_qrels)
    nerr = {oid: value / ideal[owner[oid]] if ideal[owner[oid]] else 0.0
            for oid, value in printed.items()}
    # a 5-decimal ERR over a 5-decimal ideal: relative error up to 5e-6 / ideal
    smallest = min(v for v in ideal.values() if v > 0)
    assert_matches(TIED, f"nERR@{k}", by_query(nerr, owner), 2 * GDEVAL_DIGITS / smallest,
                   "gdeval ERR / gdeval ideal ERR")
    # and to 1e-12 against gdeval's err transcribed, on the same orderings
    exact = {oid: gdeval_err_transcribed(k, grades) for _, oid, grades, _ in each_ordering(TIED)}
    assert_matches(TIED, f"ERR@{k}", by_query(exact, owner), 1e-12, "gdeval err transcribed")
    exact_n = {oid: v / gdeval_err_transcribed(k, ideal_gains(TIED, owner[oid]))
               if gdeval_err_transcribed(k, ideal_gains(TIED, owner[oid])) else 0.0
               for oid, v in exact.items()}
    assert_matches(TIED, f"nERR@{k}", by_query(exact_n, owner), 1e-12,
                   "gdeval err transcribed (nERR)")


@pytest.mark.parametrize("k", CUTOFFS)
def test_f1_and_ncg_equal_their_definitions_on_every_ordering(k):
    f1, ncg, owner = {}, {}, {}
    for q, oid, ranked, _ in each_ordering(TIED):
        judged = [g for g in TIED[q][1] if g is not None] + list(TIED[q][2])
        f1[oid], ncg[oid], owner[oid] = (f1_definition(k, ranked, judged),
                                         ncg_definition(k, ranked, judged), q)
    assert_matches(TIED, f"F1@{k}", by_query(f1, owner), 1e-12, "F1 definition")
    assert_matches(TIED, f"NCG@{k}", by_query(ncg, owner), 1e-12, "NCG definition")


def test_tie_free_trec_eval_order_equals_the_peers():
    queries = draw_queries(seed=7, count=30, tie_free=True)
    run, qrels = frames(queries)
    ev = tiedrank.evaluate({"r": run}, qrels,
                           ["Judged@3", "Judged", "ERR@5", "F1@3", "NCG@3",
                            "SDCG(max_rel=4)@5"], ties="trec_eval")
    got = ev.per_query.set_index(["query", "metric"])["value"]
    peer_run, peer_qrels, _ = peer_inputs(queries)  # one ordering each: ids q0000
    judged3 = ir_measures_values(ir_measures.Judged @ 3, peer_run, peer_qrels)
    judged = ir_measures_values(ir_measures.Judged, peer_run, peer_qrels)
    err5 = gdeval_err(5, peer_run, peer_qrels)
    for q in queries:
        assert got[q, "Judged@3"] == pytest.approx(judged3[f"{q}0000"], abs=1e-12)
        assert got[q, "Judged"] == pytest.approx(judged[f"{q}0000"], abs=1e-12)
        assert got[q, "ERR@5"] == pytest.approx(err5[f"{q}0000"], abs=GDEVAL_DIGITS)
        scores, grades, extra = queries[q]
        ranked = [grades[i] for i in sorted(range(len(scores)), key=lambda i: -scores[i])]
        grades_q = [g for g in grades if g is not None] + list(extra)
        assert got[q, "F1@3"] == pytest.approx(f1_definition(3, ranked, grades_q), abs=1e-15)
        assert got[q, "NCG@3"] == pytest.approx(ncg_definition(3, ranked, grades_q), abs=1e-15)
        assert got[q, "SDCG(max_rel=4)@5"] == pytest.approx(cwl_sdcg(5, ranked, 0, 4), abs=1e-15)


def test_trm_published_table_and_f1():
    """TRM's README example (scores .99 .97 .97 .97 .95, the 2nd and 4th relevant): its
    published table in full (E[M], M_obl = the input order, M_max, M_min, range, bias of
    nDCG, MRR and recall at 3 and 5), and F1@3 = 0.5333, F1@5 = 0.5714 (8/15 and 4/7, what
    TRM's evaluate gives on that example with metrics=["f1"])."""
    scores, relevant = [0.99, 0.97, 0.97, 0.97, 0.95], [0, 1, 0, 1, 0]
    run = pd.DataFrame({"query": "q", "doc": list("abcde"), "score": scores})
    qrels = pd.DataFrame({"query": "q", "doc": list("abcde"), "relevance": relevant})
    policies = ["expected", "input", "best", "worst"]
    summary = tiedrank.evaluate({"r": run}, qrels, ["nDCG@3", "nDCG@5", "RR@3", "RR@5", "R@3",
                                                  "R@5", "F1@3", "F1@5"],
                                ties=policies).summary
    value = summary.set_index(["metric", "policy"])["value"]
    published = {  # metric: (E[M], M_obl, M_max, M_min, range, bias), TRM's README
        "nDCG@3": (0.4623, 0.3869, 0.6934, 0.3066, 0.3869, -0.0754),
        "nDCG@5": (0.6383, 0.6509, 0.6934, 0.5706, 0.1228, 0.0126),
        "RR@3": (0.4444, 0.5000, 0.5000, 0.3333, 0.1667, 0.0556),
        "RR@5": (0.4444, 0.5000, 0.5000, 0.3333, 0.1667, 0.0556),
        "R@3": (0.6667, 0.5000, 1.0000, 0.5000, 0.5000, -0.1667),
        "R@5": (1.0000, 1.0000, 1.0000, 1.0000, 0.0000, 0.0000),
        "F1@3": (0.5333, 0.4000, 0.8000, 0.4000, 0.4000, -0.1333),  # TRM's code on it
        "F1@5": (0.5714, 0.5714, 0.5714, 0.5714, 0.0000, 0.0000)}
    for metric, figures in published.items():
        e, obl, best, worst = (float(value[metric, p]) for p in policies)
        got = (e, obl, best, worst, best - worst, obl - e)
        assert [round(v, 4) for v in got] == [pytest.approx(f, abs=1e-12) for f in figures], \
            metric
    assert float(value["F1@3", "expected"]) == pytest.approx(8 / 15, abs=1e-15)
    assert float(value["F1@5", "expected"]) == pytest.approx(4 / 7, abs=1e-15)


def test_err_refuses_a_grade_above_gdevals_max_judgment():
    run, qrels = frames({"1": ([1.0, 1.0], [5, 0], [0])})
    table = build_tie_table(Run("r", run), Qrels(qrels))
    with pytest.raises(ValueError, match=r"ERR@3: query '1' has grade 5 .* MAX_JUDGMENT = 4"):
        metric_values(table, "ERR@3")
    with pytest.raises(ValueError, match="gain="):
        tiedrank.parse_metric("ERR(gain=exp)@3")


def test_judged_refuses_a_relevance_level():
    with pytest.raises(ValueError, match="rel= must be left out: Judged counts the documents "
                                         "present in the qrels"):
        tiedrank.parse_metric("Judged(rel=2)@10")


def test_err_refuses_a_group_too_large_to_score_exactly():
    n = 6000  # 6000 tied documents, 4500 graded: (4500 + 1)(6000 + 1) terms
    run, qrels = frames({"1": ([1.0] * n, [2] * 4500 + [0] * 1500, [0])})
    with pytest.raises(ValueError, match=r"tie group of 6000 documents, 4500 of them"):
        metric_values(build_tie_table(Run("r", run), Qrels(qrels)), "ERR@6000")


@pytest.mark.parametrize("k", [3, 8])
def test_err_of_one_large_group_equals_every_permutation(k):
    """Eight tied documents, five graded (the recurrences over more positives and places
    than the random draw reaches): the mean of gdeval's err over all 40,320 orderings."""
    grades = [4, 3, 0, 1, None, 2, 1, -1]
    queries = {"1": ([1.0] * 8, grades, [3])}
    values = np.array([gdeval_err_transcribed(k, list(p)) for p in itertools.permutations(grades)])
    ideal = gdeval_err_transcribed(k, ideal_gains(queries, "1"))
    got = ours(queries, f"ERR@{k}")["1"]
    assert got["expected"] == pytest.approx(values.mean(), abs=1e-13)
    assert (got["best"], got["worst"]) == pytest.approx((values.max(), values.min()),
                                                                    abs=1e-15)
    assert ours(queries, f"nERR@{k}")["1"]["expected"] == pytest.approx(values.mean() / ideal,
                                                                       abs=1e-13)


# ---- SDCG: C/W/L's scaled DCG (cwl_eval, through ir_measures when cwl is installed) ------------
def cwl_sdcg(k: int, ranked: list, min_rel: int, max_rel: int) -> float:
    """cwl_eval's NDCGCWLMetric(k) transcribed: continuation c_i = log(i+1)/log(i+2) for
    i < k, 0 after; W from the running products of c, normalised; expected utility sum W_i
    g_i over the ranking padded to 1000 with gain 0; gains as ir_measures' cwl provider
    makes them (negative grades 0, clipped into [min_rel, max_rel], scaled to [0, 1])."""
    gains = [(min(max(max(g or 0, 0), min_rel), max_rel) - min_rel) / (max_rel - min_rel)
             for g in ranked] + [0.0] * (1000 - len(ranked))
    c = [math.log(i + 1) / math.log(i + 2) if i < k else 0.0 for i in range(1, 1001)]
    running = np.concatenate(([1.0], np.cumprod(c[:-1])))
    return float(np.dot(running / running.sum(), gains))


@pytest.mark.parametrize("k", CUTOFFS)
@pytest.mark.parametrize("bounds", [(0, 1), (0, 4), (1, 3)])
def test_sdcg_equals_cwl_on_every_ordering(k, bounds):
    min_rel, max_rel = bounds
    name = f"SDCG(max_rel={max_rel}, min_rel={min_rel})@{k}" if min_rel else \
        f"SDCG(max_rel={max_rel})@{k}"
    values, owner = {}, {}
    for q, oid, ranked, _ in each_ordering(TIED):
        values[oid], owner[oid] = cwl_sdcg(k, ranked, min_rel, max_rel), q
    assert_matches(TIED, name, by_query(values, owner), 1e-12, "cwl_eval's SDCG transcribed")


def test_sdcg_equals_cwl_eval_itself_when_installed(peer_run):
    """ir_measures' cwl_eval provider on every ordering (skipped without cwl-eval)."""
    pytest.importorskip("cwl")
    run, qrels, owner = peer_run
    for k in (2, 5):
        measure = ir_measures.SDCG(max_rel=4) @ k
        printed = ir_measures_values(measure, run, qrels)
        assert_matches(TIED, f"SDCG(max_rel=4)@{k}", by_query(printed, owner), 1e-12,
                       "cwl_eval (ir_measures)")


def test_ir_measures_objects_read_as_these_families():
    read = [tiedrank.parse_metric(m).name for m in (
        ir_measures.Judged @ 10, ir_measures.Judged, ir_measures.ERR @ 5,
        ir_measures.SDCG(max_rel=3) @ 5, ir_measures.SDCG(max_rel=3, min_rel=1, dcg="log2") @ 5)]
    assert read == ["Judged@10", "Judged", "ERR@5", "SDCG(max_rel=3)@5",
                    "SDCG(max_rel=3, min_rel=1)@5"]
    with pytest.raises(ValueError, match="ERR needs a cutoff"):
        tiedrank.parse_metric(ir_measures.ERR)


def test_err_of_large_groups_keeps_its_digits():
    """Groups of 150 and 90 documents, half of them graded (past any enumeration): the
    kernel's floating-point sums (log-binomials, the convex recurrence) against the same
    decomposition in exact rational arithmetic, whose algebra the enumerations above check.
    Relative error below 1e-12 (about 3e-13 on groups of 600 documents, measured)."""
    from fractions import Fraction
    rng = np.random.default_rng(11)
    groups = [[int(g) for g in rng.choice([0, 0, 1, 2, 3, 4], size=n)] for n in (1, 150, 2, 90)]
    k = 120

    def exact() -> Fraction:
        total, above, survival = Fraction(0), 0, Fraction(1)
        for grades in groups:
            xs = [1 - Fraction(2 ** max(g, 0) - 1, 16) for g in grades]
            positives = [x for x in xs if x != 1]
            n, r = len(xs), len(positives)
            e = [Fraction(1)] + [Fraction(0)] * r  # elementary symmetric polynomials
            for x in positives:
                for j in range(r, 0, -1):
                    e[j] += e[j - 1] * x
            u = max(0, min(n, k - above))
            h = [sum(Fraction(math.comb(n - r, m - j), math.comb(n, m)) * e[j]
                     for j in range(min(r, m) + 1) if m - j <= n - r) for m in range(u + 1)]
            total += survival * sum((h[m - 1] - h[m]) / (above + m) for m in range(1, u + 1))
            survival *= math.prod(xs)
            above += n
        return total

    queries = {"1": ([float(-i) for i, grades in enumerate(groups) for _ in grades],
                     [g for grades in groups for g in grades], [0])}
    got = ours(queries, f"ERR@{k}")["1"]["expected"]
    assert got == pytest.approx(float(exact()), rel=1e-12)


def test_oracle_figures_reported(capsys):
    """Not a check: prints how many (query, policy) values were compared, and the largest
    difference, for the report (run with -s)."""
    orderings = sum(1 for _ in each_ordering(TIED))
    print(f"\n{len(TIED)} tied queries, {orderings} orderings")
    for peer, (cases, diff) in COMPARED.items():
        print(f"{peer}: {cases} (query, policy) values, max abs diff {diff:.3g}")
