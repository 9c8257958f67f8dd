"""C/W/L's INSQ, INST and BPM (tiedrank/metrics/cwl.py) against cwl_eval itself, on every
tie ordering.

Small random tied queries (grades -1..4, documents absent from the qrels, queries without a
relevant document) are drawn once from a seeded generator; every ordering of every query
becomes a query of its own with distinct scores, and cwl_eval scores all of them through
ir_measures' cwl_eval provider (which runs cwl_eval's own metric classes on rankings padded
to 1000 places): expected == mean, best == max, worst == min over the orderings, per query.
Then: tie-free runs (trec_eval order == cwl_eval), a tie group cut by cwl_eval's 1000
places (its prefixes are not equally likely), a group larger than the peer can enumerate
(BPM in exact rational arithmetic over every permutation; INST against cwl_eval's class
called on each distinct gain sequence, weighted by how many permutations give it), the
refusal past the bound, ir_measures' objects read as these families, and the CLI.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from fractions import Fraction

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
pytest.importorskip("cwl")


# ---- inputs ----------------------------------------------------------------------------------
def draw_queries(seed: int, count: int, tie_free: bool = False) -> dict:
    """{qid: (scores, grades of the retrieved (None: not in the qrels), other qrels grades)}."""
    rng = np.random.default_rng(seed)
    queries = {}
    for q in range(count):
        n = int(rng.integers(1, 7))
        scores = (rng.permutation(n).astype(float) if tie_free
                  else rng.choice([0.0, 0.5, 1.0], size=n)).tolist()
        grades = [None if u < 0.2 else int(g) for u, g in
                  zip(rng.random(n), rng.choice([-1, 0, 0, 1, 2, 3, 4], size=n))]
        if q % 5 == 0:  # no relevant document
            grades = [None if g is None else min(g, 0) for g in grades]
        queries[f"q{q}"] = (scores, grades, [0, 2])  # judged, never retrieved
    return queries


def frames(queries: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    run_rows, qrels_rows = [], []
    for q, (scores, grades, extra) in queries.items():
        run_rows += [(q, f"d{i}", float(s)) for i, s in enumerate(scores)]
        qrels_rows += [(q, f"d{i}", int(g)) for i, g in enumerate(grades) if g is not None]
        qrels_rows += [(q, f"u{j}", int(g)) for j, g in enumerate(extra)]
    return (pd.DataFrame(run_rows, columns=["query", "doc", "score"]),
            pd.DataFrame(qrels_rows, columns=["query", "doc", "relevance"]))


def peer_inputs(queries: dict) -> tuple[dict, dict, dict]:
    """Every ordering as a query of its own with distinct scores (one call of the peer)."""
    run, qrels, owner = {}, {}, {}
    for q, (scores, grades, extra) in queries.items():
        for o, order in enumerate(all_orderings(scores)):
            oid = f"{q}_{o}"
            owner[oid] = q
            run[oid] = {f"d{i}": float(len(order) - r) for r, i in enumerate(order)}
            qrels[oid] = {f"d{i}": int(g) for i, g in enumerate(grades) if g is not None}
            qrels[oid].update({f"u{j}": int(g) for j, g in enumerate(extra)})
    return run, qrels, owner


def cwl_eval(measures: list, run: dict, qrels: dict) -> dict:
    """{(str(measure), qid): value} from ir_measures' cwl_eval provider."""
    provider = ir_measures.providers.registry["cwl_eval"]
    return {(str(m.measure), m.query_id): m.value
            for m in provider.iter_calc(measures, qrels, run)}


def ours(queries: dict, names: list) -> dict:
    """{(name, qid): (expected, best, worst)}."""
    run, qrels = frames(queries)
    table = build_tie_table(Run("r", run), Qrels(qrels), EvaluationOptions())
    out = {}
    for name in names:
        values = [metric_values(table, name, extreme=e) for e in (None, "best",
                                                                  "worst")]
        for i, q in enumerate(table.queries):
            out[name, q] = tuple(float(v[i]) for v in values)
    return out


TIED = draw_queries(seed=20261128, count=50)
COMPARED = defaultdict(lambda: [0, 0.0])


@pytest.fixture(scope="module")
def peer_run():
    return peer_inputs(TIED)


def assert_every_ordering(peer_run, measures: list, queries: dict = TIED) -> None:
    run, qrels, owner = peer_run
    printed = cwl_eval(measures, run, qrels)
    names = [tiedrank.parse_metric(m).name for m in measures]
    got = ours(queries, names)
    for measure, name in zip(measures, names):
        per_query = defaultdict(list)
        for oid, q in owner.items():
            per_query[q].append(printed[str(measure), oid])
        for q, values in per_query.items():
            want = (np.mean(values), max(values), min(values))
            diff = max(abs(a - b) for a, b in zip(got[name, q], want))
            COMPARED[name][0] += 1
            COMPARED[name][1] = max(COMPARED[name][1], diff)
            assert diff <= 1e-12, (name, q, queries[q], got[name, q], want)


# ---- every ordering, against cwl_eval ---------------------------------------------------------
def test_every_ordering_equals_cwl_eval(peer_run):
    """One of each family (cwl_eval takes about 1 s a measure on these orderings). BPM with
    max_rel a power of two: cwl_eval's float sums of gains are then exact (see below)."""
    assert_every_ordering(peer_run, [
        ir_measures.INSQ(T=1, max_rel=4), ir_measures.INST(T=2.5, max_rel=3, min_rel=1),
        ir_measures.BPM(T=2, max_rel=4) @ 5])


@pytest.mark.slow
def test_every_ordering_equals_cwl_eval_more_parameters(peer_run):
    assert_every_ordering(peer_run, [
        ir_measures.INST(T=1, max_rel=4), ir_measures.BPM(T=1, max_rel=4) @ 3,
        ir_measures.INSQ(T=0.3, max_rel=1), ir_measures.INSQ(T=3, max_rel=3, min_rel=1),
        ir_measures.INST(T=0.3, max_rel=1), ir_measures.INST(T=4, max_rel=2),
        ir_measures.BPM(T=0.5, max_rel=4) @ 1, ir_measures.BPM(T=1, max_rel=1) @ 2,
        ir_measures.BPM(T=3, max_rel=4, min_rel=2) @ 8, ir_measures.BPM(T=1, max_rel=4) @ 2000])


def test_tie_free_trec_eval_order_equals_cwl_eval():
    queries = draw_queries(seed=7, count=40, tie_free=True)
    run, qrels, owner = peer_inputs(queries)
    measures = [ir_measures.INSQ(T=2, max_rel=4), ir_measures.INST(T=1, max_rel=2),
                ir_measures.BPM(T=1, max_rel=3) @ 4]
    printed = cwl_eval(measures, run, qrels)
    frame_run, frame_qrels = frames(queries)
    ev = tiedrank.evaluate({"r": frame_run}, frame_qrels, measures, ties=["trec_eval", "input"])
    for row in ev.per_query.itertuples():
        measure = measures[[tiedrank.parse_metric(m).name for m in measures].index(row.metric)]
        assert row.value == pytest.approx(printed[str(measure), f"{row.query}_0"], abs=1e-12)


# ---- cwl_eval's 1000 places: a tie group across place 1000 -----------------------------------
def test_a_group_cut_by_cwl_evals_depth():
    """998 untied documents (every tenth relevant) then 4 tied (grades 3, 0, 1, unjudged) at
    ranks 999..1002: cwl_eval reads 2 of them, whose sequences are not equally likely."""
    scores = [float(2000 - i) for i in range(998)] + [1.0] * 4
    grades = [1 if i % 10 == 0 else 0 for i in range(998)] + [3, 0, 1, None]
    queries = {"long": (scores, grades, [0])}
    assert_every_ordering(peer_inputs(queries), [
        ir_measures.INSQ(T=1, max_rel=3), ir_measures.INST(T=3, max_rel=3),
        ir_measures.BPM(T=200, max_rel=3) @ 1000], queries)


# ---- larger than the peer enumerates: exact rationals, distinct sequences ---------------------
def one_group(grades: list, above: list) -> dict:
    scores = [float(100 - i) for i in range(len(above))] + [1.0] * len(grades)
    return {"1": (scores, above + grades, [0])}


@pytest.mark.parametrize("group", [[3, 0, 1, 0, 2, 1, 0],
                                   pytest.param([3, 0, 1, 0, 2, 1, 0, 0, 2],
                                                marks=pytest.mark.slow)])
def test_bpm_of_a_large_group_in_exact_rationals(group):
    """BPM(T=1)@6 of a group of 7 (9 under --slow; grades 0..3, max_rel=3) below two untied
    documents, over all its permutations in rational arithmetic: G_s / (s + 1), s the first
    place whose gathered gain reaches T, or K - 1."""
    above = [0, 1]
    total, values = Fraction(0), set()
    for order in itertools.permutations(group):
        gains = [Fraction(g, 3) for g in above + list(order)]
        gathered = Fraction(0)
        for s, g in enumerate(gains[:6]):
            gathered += g
            if gathered >= 1:
                break
        value = gathered / (s + 1)
        total += value
        values.add(value)
    got = ours(one_group(group, above), ["BPM(max_rel=3)@6"])["BPM(max_rel=3)@6", "1"]
    assert got == pytest.approx((float(total / math.factorial(len(group))), float(max(values)),
                                 float(min(values))), abs=1e-13)


@pytest.mark.slow
def test_inst_of_a_large_group_against_cwl_evals_class():
    """INST(T=2) of a group of 10 (2520 distinct gain sequences, 10! permutations) after
    three untied documents: cwl_eval's INSTCWLMetric on each distinct sequence, weighted by
    the permutations giving it (45 s: cwl_eval loops over 1000 places in Python)."""
    from cwl.ruler.measures.cwl_inst import INSTCWLMetric
    from cwl.ruler.ranking import Ranking

    group, above = [0, 0, 0, 0, 0, 0, 1, 2, 3, 3], [2, 0, 1]
    scale = [Fraction(g, 3) for g in group]
    sequences = Counter(itertools.permutations(scale))  # distinct sequences, multiplicity
    assert len(sequences) == 2520 and sum(sequences.values()) == math.factorial(10)
    metric = INSTCWLMetric(2.0)
    values = {seq: metric.measure(Ranking("1", [g / 3 for g in above] + [float(x) for x in seq],
                                          [1.0] * 13)) for seq in sequences}
    mean = sum(values[s] * n for s, n in sequences.items()) / math.factorial(10)
    got = ours(one_group(group, above), ["INST(T=2, max_rel=3)"])["INST(T=2, max_rel=3)", "1"]
    assert got == pytest.approx((mean, max(values.values()), min(values.values())), abs=1e-12)


@pytest.mark.parametrize("T, K, bounds", [(1, 3, (0, 4)), (2, 5, (0, 2)), (0.5, 1, (0, 4)),
                                           (1.5, 4, (1, 3)), (3, 10, (0, 1)), (1, 2000, (0, 4))])
def test_bpm_dynamic_programme_equals_the_enumeration(T, K, bounds):
    """BPM's two exact methods: the stopping group's hypergeometric compositions (what the
    registry uses) and every distinct gain sequence of every group (cwl.py's enumeration),
    on 200 random tied queries."""
    from tiedrank.metrics.cwl import BPM_SHAPE, orderings_summary
    from tiedrank.metrics.cwl_bpm import bpm_summary
    run, qrels = frames(draw_queries(seed=5, count=200))
    table = build_tie_table(Run("r", run), Qrels(qrels)).scoring()
    enumerated = orderings_summary(table, BPM_SHAPE(T, K), "BPM", *bounds)
    for mine, theirs in zip(bpm_summary(table, T, K, *bounds), enumerated):
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-13)


@pytest.mark.parametrize("k", [1, 10, 100, 1000])
def test_binary_bpm_at_t_1_is_rr_on_large_groups(k):
    """With gains 0/1 and T = 1 the reader stops on the first relevant document, or at K
    with nothing: BPM(T=1)@K = RR@K. RR's kernel (the first relevant's law) is the oracle on
    tie groups of 400 and 700 documents, far past any enumeration."""
    rng = np.random.default_rng(3)
    scores = [9.0] * 3 + [5.0] * 400 + [4.0] * 2 + [1.0] * 700
    grades = [0, 0, 0] + list(rng.permutation([1] * 25 + [0] * 375)) + [1, 0] + \
        list(rng.permutation([2] * 9 + [0] * 691))
    run, qrels = frames({"1": (scores, grades, [0])})
    table = build_tie_table(Run("r", run), Qrels(qrels))
    for extreme in (None, "best", "worst"):
        np.testing.assert_allclose(metric_values(table, f"BPM@{k}", extreme=extreme),
                                   metric_values(table, f"RR@{k}", extreme=extreme),
                                   rtol=1e-12, atol=0)


def test_sequences_of_a_cut_group_have_the_exact_probabilities():
    """The enumeration's probabilities against counts of permutations (Fractions): 7 documents
    of gains 0 0 0 1 1 2 2 (as levels) read on 3 places."""
    from tiedrank.metrics.cwl import group_sequences
    seq, logp = group_sequences(np.array([3, 2, 2]), 3)
    counted = Counter(p[:3] for p in itertools.permutations([0, 0, 0, 1, 1, 2, 2]))
    total = sum(counted.values())
    assert len(seq) == len(counted)
    for row, lp in zip(seq, logp):
        assert math.exp(lp) == pytest.approx(float(Fraction(counted[tuple(row)], total)),
                                             rel=1e-13)


def test_a_query_past_the_bound_is_refused_by_name():
    group = [1, 0] * 20  # C(40, 20) sequences
    queries = one_group(group, [0])
    with pytest.raises(ValueError, match=r"INST\(max_rel=1\): query '1' has a tie group of 40 "
                                         r"documents at ranks 2\.\.41.*pass ties='trec_eval'"
                                         r".*or use INSQ") as refused:
        ours(queries, ["INST(max_rel=1)"])
    from tiedrank.cli._common import cli_message
    assert "--ties trec_eval" in cli_message(refused.value)  # each door words the remedy
    assert ours(queries, ["INSQ(max_rel=1)"])  # linear: exact at any size
    # BPM reads the top K only (2^4 sequences); at best 1 1 1 after the 0: 3 / 4
    assert ours(queries, ["BPM(T=3)@5"])["BPM(T=3)@5", "1"][1] == pytest.approx(3 / 4)


def test_bpm_compares_the_gathered_gain_with_t_exactly():
    """Six gains of 1/3 (max_rel=3) reach T = 2 at the sixth document: BPM = 2 / 6. cwl_eval
    sums floats, gets 1.9999999999999998 < 2 and reads on to K: 2 / 10 (documented)."""
    queries = {"1": ([float(9 - i) for i in range(9)], [1] * 6 + [0] * 3, [0])}
    got = ours(queries, ["BPM(T=2, max_rel=3)@10"])["BPM(T=2, max_rel=3)@10", "1"]
    assert got == pytest.approx((1 / 3,) * 3, abs=1e-15)
    run, qrels, _ = peer_inputs(queries)
    (printed,) = cwl_eval([ir_measures.BPM(T=2, max_rel=3) @ 10], run, qrels).values()
    assert printed == pytest.approx(0.2)


# ---- names and doors -------------------------------------------------------------------------
def test_ir_measures_objects_read_as_these_families():
    read = [tiedrank.parse_metric(m).name for m in (
        ir_measures.INST(max_rel=3), ir_measures.INST(T=2, max_rel=3, min_rel=1),
        ir_measures.INSQ(T=0.5, max_rel=4), ir_measures.BPM(T=1, max_rel=3) @ 10,
        ir_measures.BPM(T=3, max_rel=1) @ 5)]
    assert read == ["INST(max_rel=3)", "INST(T=2, max_rel=3, min_rel=1)",
                    "INSQ(T=0.5, max_rel=4)", "BPM(max_rel=3)@10", "BPM(T=3, max_rel=1)@5"]
    for name in read:
        assert tiedrank.parse_metric(ir_measures.parse_measure(name)).name == name
    with pytest.raises(ValueError, match="BPM.* needs a cutoff"):
        tiedrank.parse_metric("BPM(max_rel=3)")
    with pytest.raises(ValueError, match="T must be a number > 0"):
        tiedrank.parse_metric("INST(T=0)")
    with pytest.raises(ValueError, match="gain=.*left out"):
        tiedrank.parse_metric("INSQ(gain=exp)")


def test_the_cli_scores_them(tmp_path, capsys):
    from tiedrank.cli import main
    run, qrels = frames(draw_queries(seed=3, count=6))
    run.assign(q0="Q0", rank=1, tag="r")[["query", "q0", "doc", "rank", "score", "tag"]].to_csv(
        tmp_path / "run.txt", sep=" ", header=False, index=False)
    qrels.assign(it=0)[["query", "it", "doc", "relevance"]].to_csv(
        tmp_path / "qrels.txt", sep=" ", header=False, index=False)
    code = main(["evaluate", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"),
                 "-m", "INST(max_rel=4)", "-m", "BPM(T=2, max_rel=4)@3", "-m", "INSQ(max_rel=4)",
                 "--ties", "expected,best,worst,trec_eval"])
    out = capsys.readouterr().out
    assert code == 0 and all(m in out for m in ("INST(max_rel=4)", "BPM(T=2, max_rel=4)@3"))


def test_oracle_figures_reported(capsys):
    """Not a check: how many (measure, query) triples were compared (run with -s)."""
    for name, (cases, diff) in COMPARED.items():
        print(f"{name}: {cases} queries x (expected, best, worst), max abs diff {diff:.3g}")
