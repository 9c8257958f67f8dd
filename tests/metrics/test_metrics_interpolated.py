"""trec_eval's interpolated precision (iprec_at_recall, 11pt_avg) against independent oracles:
every tie ordering scored by trec_eval's own loop (m_iprec_at_recall.c, written out below),
trec_eval 10 itself (the fixtures of tests/cli/trec_eval_fixtures: its tie order, and every
arrangement of a tied run), and pytrec_eval per query where its trec_eval 9 cutoff rule
agrees with trec_eval 10's.
"""
from __future__ import annotations

import contextlib
import gzip
import io
import itertools
import math
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from oracles import all_orderings, make_inputs, pytrec_eval_values, tied_and_tie_free
from tiedrank import EvaluationOptions
from tiedrank.cli import main
from tiedrank.evaluation import evaluate
from tiedrank.interop.names import trec_eval_name
from tiedrank.interop.trec_eval import expand_metrics
from tiedrank.metrics import interpolated, metric_values, parse_metric
from tiedrank.core.ties import build_tie_table

LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
EXTRA = (0.25, 0.35)  # not trec_eval's defaults: lround's halves (R = 2: 0.5 -> 1; R = 10)
FIXTURES = Path(__file__).resolve().parents[1] / "cli" / "trec_eval_fixtures"


# ---- the oracle: trec_eval 10's loop, line by line ------------------------------------------
def lround(x: float) -> int:
    """C's lround of a non-negative double: the exact binary value, halves away from 0."""
    return int(Decimal(x).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def trec_eval_iprec(relevant: list[bool], num_rel: int, levels, cut=lround) -> list[float]:
    """m_iprec_at_recall.c's te_calc_iprec_at_recall on one ranked list (``relevant`` in rank
    order); ``cut`` turns level * num_rel into a cutoff (trec_eval 9: (long)(x + 0.9)).
    An empty list gives 0 where trec_eval divides 0 by 0."""
    num_ret, num_rel_ret = len(relevant), sum(relevant)
    order = sorted(range(len(levels)), key=lambda k: levels[k])  # trec_eval sorts its levels
    cutoffs = [cut(levels[k] * num_rel) for k in order]
    values = [0.0] * len(levels)
    current = len(levels) - 1
    while current >= 0 and cutoffs[current] > num_rel_ret:
        current -= 1
    int_precis = num_rel_ret / num_ret if num_ret else 0.0
    rel_so_far = num_rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        int_precis = max(int_precis, rel_so_far / i)
        if relevant[i - 1]:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[order[current]] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[order[current]] = int_precis
        current -= 1
    return values


def eleven_point(relevant: list[bool], num_rel: int) -> float:
    """m_11pt_avg.c: the same loop, the levels summed from 1.0 down, over 11."""
    total = 0.0
    for value in reversed(trec_eval_iprec(relevant, num_rel, LEVELS)):
        total += value
    return total / len(LEVELS)


def every_ordering(scores, grades, extra, rel_level) -> np.ndarray:
    """Per ordering of the documents inside the tie groups: iprec at LEVELS + EXTRA, then
    11pt_avg."""
    num_rel = sum(g is not None and g >= rel_level for g in list(grades) + list(extra))
    rows = []
    for order in all_orderings(scores):
        relevant = [grades[i] is not None and grades[i] >= rel_level for i in order]
        rows.append(trec_eval_iprec(relevant, num_rel, LEVELS + EXTRA)
                    + [eleven_point(relevant, num_rel)])
    return np.array(rows)


NAMES = [f"iprec_at_recall({level})" for level in LEVELS + EXTRA] + ["11pt_avg"]


@st.composite
def tied_query(draw):
    """A small tied query: grades None (not in the qrels), -1 (pooled, unjudged) .. 2, and
    judged documents the run never retrieves (so R is not the relevant retrieved)."""
    n = draw(st.integers(1, 6))
    scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
    grades = draw(st.lists(st.one_of(st.none(), st.integers(-1, 2)), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(-1, 2), max_size=3))
    return scores, grades, extra


@settings(max_examples=examples(60, deep=400), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(tied_query(), min_size=1, max_size=3), rel_level=st.integers(1, 2))
def test_policies_match_enumeration(queries, rel_level):
    spec = {f"q{i}": q for i, q in enumerate(queries)}
    table = build_tie_table(*make_inputs(spec), EvaluationOptions(rel_level=rel_level))
    tables = {"expected": table, "best": table.resolve("best"),
              "worst": table.resolve("worst")}
    values = {policy: np.stack([metric_values(source, name) for name in NAMES], axis=1)
              for policy, source in tables.items()}
    for i, qid in enumerate(table.queries):
        oracle = every_ordering(*spec[qid], rel_level)
        np.testing.assert_allclose(values["expected"][i], oracle.mean(axis=0), rtol=0,
                                   atol=1e-12, err_msg=qid)
        np.testing.assert_allclose(values["best"][i], oracle.max(axis=0), rtol=0, atol=1e-12)
        np.testing.assert_allclose(values["worst"][i], oracle.min(axis=0), rtol=0, atol=1e-12)


@settings(max_examples=examples(20, deep=150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(tied_query(), min_size=1, max_size=3), rel_level=st.integers(1, 2))
def test_evaluate_under_every_policy(queries, rel_level):
    """Through evaluate(): the registry's dispatch, the compact scoring view (groups without
    a positive grade dropped, ranks kept), and trec_eval's order (docno descending)."""
    spec = {f"q{i}": (s, g, x + [0]) for i, (s, g, x) in enumerate(queries)}  # all judged
    run, qrels = make_inputs(spec)
    ev = evaluate({"r": run}, qrels, ["iprec_at_recall", "11pt_avg"], ties="all",
                  rel_level=rel_level)
    got = ev.per_query.set_index(["query", "metric", "policy"])["value"]
    for qid, (scores, grades, extra) in spec.items():
        oracle = every_ordering(scores, grades, extra, rel_level)
        docs = [f"{qid}-d{i:03d}" for i in range(len(scores))]  # make_inputs' ids
        trec_order = sorted(range(len(scores)), key=lambda i: docs[i], reverse=True)
        trec_order.sort(key=lambda i: -scores[i])  # stable: ties stay docno descending
        num_rel = sum(g is not None and g >= rel_level for g in grades + extra)
        relevant = [grades[i] is not None and grades[i] >= rel_level for i in trec_order]
        trec = trec_eval_iprec(relevant, num_rel, LEVELS) + [eleven_point(relevant, num_rel)]
        for column, name in enumerate([f"iprec_at_recall({v})" for v in LEVELS] + ["11pt_avg"]):
            metric = parse_metric(name).name
            column = column if column < len(LEVELS) else -1
            assert got[(qid, metric, "expected")] == pytest.approx(oracle[:, column].mean(),
                                                                   abs=1e-12)
            assert got[(qid, metric, "best")] == pytest.approx(oracle[:, column].max(),
                                                                     abs=1e-12)
            assert got[(qid, metric, "worst")] == pytest.approx(oracle[:, column].min(),
                                                                      abs=1e-12)
            assert got[(qid, metric, "trec_eval")] == pytest.approx(trec[column], abs=1e-12)


def _subsets_oracle(groups: list[tuple[int, int]], num_rel: int, levels) -> np.ndarray:
    """The mean over every placement of each group's relevant documents (m-subsets of its
    n positions, all equally likely) of trec_eval's iprec: the expectation, for groups too
    large to permute."""
    placements = [list(itertools.combinations(range(n), m)) for n, m in groups]
    total = np.zeros(len(levels))
    count = 0
    for choice in itertools.product(*placements):
        relevant = [p in chosen for (n, _), chosen in zip(groups, choice) for p in range(n)]
        total += trec_eval_iprec(relevant, num_rel, levels)
        count += 1
    return total / count


@pytest.mark.parametrize("groups, unretrieved", [
    ([(12, 4)], 0),  # one group: every level's i0 inside it
    ([(10, 3), (1, 1), (9, 5)], 2),  # the c-th relevant in the second random group
    ([(2, 2), (11, 6), (3, 1), (6, 6)], 1),  # fixed groups (all relevant) around random ones
    ([(1, 0), (13, 2), (1, 1), (8, 3)], 3),  # a lone relevant between groups, R > retrieved
])
def test_larger_groups_match_every_placement(groups, unretrieved):
    scores, grades = [], []
    for g, (n, m) in enumerate(groups):
        scores += [float(len(groups) - g)] * n
        grades += [1] * m + [0] * (n - m)
    spec = {"q": (scores, grades, [1] * unretrieved + [0])}
    table = build_tie_table(*make_inputs(spec))
    num_rel = sum(m for _, m in groups) + unretrieved
    got = [metric_values(table, f"iprec_at_recall({v})")[0] for v in LEVELS + EXTRA]
    np.testing.assert_allclose(got, _subsets_oracle(groups, num_rel, LEVELS + EXTRA), rtol=0,
                               atol=1e-12)


def test_chunks_and_long_double_give_the_same_numbers(monkeypatch):
    """Many small chunks (widths split, one m per chunk) and the 80-bit counts that wide
    groups take give the numbers of the default pass."""
    spec = {"a": ([1.0] * 9 + [0.5] * 7, [1, 0, 0, 1, 0, 1, 0, 0, 2, 0, 1, 0, 0, 1, 0, 0], [1]),
            "b": ([2.0] * 5 + [1.0] * 12, [0, 1, 0, 0, 1] + [1, 0] * 6, [])}
    def levels():
        table = build_tie_table(*make_inputs(spec)).scoring()
        return np.stack([metric_values(table, f"iprec_at_recall({v})") for v in LEVELS])
    default = levels()
    monkeypatch.setattr(interpolated, "_CHUNK_CELLS", 40)
    np.testing.assert_allclose(levels(), default, rtol=0, atol=1e-15)
    if np.finfo(np.longdouble).maxexp > 1024:
        monkeypatch.setattr(interpolated, "_FLOAT64_LOG_COUNT", -1.0)  # every group "wide"
        np.testing.assert_allclose(levels(), default, rtol=0, atol=1e-15)


def test_a_querys_bits_do_not_depend_on_the_other_queries():
    """Lanes of different queries share chunks (and chunk heights); a query's values must
    still be the same bits alone as with 24 others (buckets and Dask rely on it)."""
    rng = np.random.default_rng(11)
    spec = {}
    for q in range(25):
        n = int(rng.integers(5, 60))
        spec[f"q{q:02d}"] = (list(rng.integers(0, 4, size=n) / 2.0),
                             [int(g) for g in rng.integers(0, 3, size=n)],
                             [1] * int(rng.integers(0, 3)))
    together = build_tie_table(*make_inputs(spec))
    names = [f"iprec_at_recall({v})" for v in LEVELS] + ["11pt_avg"]
    every = np.stack([metric_values(together, name) for name in names], axis=1)
    for q in list(spec)[8:]:
        alone = build_tie_table(*make_inputs({q: spec[q]}))
        mine = np.stack([metric_values(alone, name) for name in names], axis=1)[0]
        assert mine.tobytes() == every[list(together.queries).index(q)].tobytes(), q


def test_levels_alone_equal_levels_together():
    """A level asked alone (a non-default one is computed on its own) equals its value
    computed with all eleven; the cache keeps each level's values."""
    spec = {"q": ([1.0] * 6 + [0.5] * 3, [1, 0, 1, 0, 0, 1, 1, 0, 1], [1, 0])}
    together = build_tie_table(*make_inputs(spec))
    joint = [metric_values(together, f"iprec_at_recall({v})")[0] for v in LEVELS + EXTRA]
    for column, level in enumerate(LEVELS + EXTRA):
        alone = build_tie_table(*make_inputs(spec))
        assert metric_values(alone, f"iprec_at_recall({level})")[0] == joint[column]


# ---- trec_eval 10 itself ---------------------------------------------------------------------
def _cli(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["evaluate", *args])
    assert status == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("level", ["", "l2."])
def test_trec_eval_policy_prints_trec_evals_lines_on_a_tied_run(level):
    flags = ["-l2"] if level else []
    ours = _cli("--format", "trec_eval", "-q", *flags, "-m", "iprec_at_recall", "-m",
                "11pt_avg", str(FIXTURES / "qrels.ties.txt"), str(FIXTURES / "run.ties.txt"))
    assert ours == (FIXTURES / f"out.ties.q.{level}iprec.txt").read_text()


@pytest.mark.parametrize("flags, fixture", [
    ([], "out.q.all_trec.txt"), (["-l2"], "out.q.l2.all_trec.txt"),
    (["-J"], "out.q.J.all_trec.txt")])
def test_all_trec_lines_equal_trec_evals(flags, fixture):
    """``tiedrank evaluate -q -m all_trec --ties trec_eval --format trec_eval``: the
    iprec_at_recall and 11pt_avg lines of every query and of 'all' are trec_eval's."""
    ours = _cli("--format", "trec_eval", "--ties", "trec_eval", "-q", "-m", "all_trec", *flags,
                str(FIXTURES / "qrels.txt"), str(FIXTURES / "run.txt"))
    def lines(text):
        return [line for line in text.splitlines() if line.startswith(("iprec_at_recall_",
                                                                      "11pt_avg"))]
    theirs = lines((FIXTURES / fixture).read_text())
    assert len(theirs) == 7 * 12 and lines(ours) == theirs


@pytest.mark.parametrize("level", [1, 2])
def test_expected_best_worst_are_those_of_trec_evals_every_arrangement(level):
    """trec_eval's values on every arrangement of the grades inside the tie groups (4
    decimals): our expectation is their mean to rounding, our best and worst their largest
    and smallest, digit for digit."""
    name = f"out.orderings.q.{'l2.' if level == 2 else ''}iprec.txt.gz"
    per_query = defaultdict(lambda: defaultdict(list))
    with gzip.open(FIXTURES / name, "rt") as lines:
        for line in lines:
            measure, pseudo, value = (part.strip() for part in line.split("\t"))
            if pseudo != "all":
                per_query[pseudo.split(".o")[0]][measure].append(float(value))
    ev = evaluate(FIXTURES / "run.ties.txt", FIXTURES / "qrels.ties.txt",
                  ["iprec_at_recall", "11pt_avg"], ties="all", rel_level=level)
    got = ev.per_query.set_index(["query", "metric", "policy"])["value"]
    checked = 0
    for query, measures in per_query.items():
        for measure, values in measures.items():
            metric = next(m for m in ev.per_query["metric"].unique()
                          if trec_eval_name(m) == measure)
            assert got[(query, metric, "expected")] == pytest.approx(np.mean(values), abs=5e-5)
            assert f"{got[(query, metric, 'best')]:6.4f}" == f"{max(values):6.4f}"
            assert f"{got[(query, metric, 'worst')]:6.4f}" == f"{min(values):6.4f}"
            checked += 1
    assert checked == 5 * 12 and sum(len(v["11pt_avg"]) for v in per_query.values()) == 143


# ---- pytrec_eval (trec_eval 9: cutoffs (long)(level R + 0.9)) ------------------------------------
pytrec_eval = pytest.importorskip("pytrec_eval")
_EVALUATORS: list = []  # kept alive: trec_eval's global state


def trec_eval_9_cut(x: float) -> int:
    return int(x + 0.9)


def test_pytrec_eval_rounds_the_cutoff_as_trec_eval_9():
    """R = 3, level 0.4: trec_eval 10 cuts at lround(1.2) = 1 relevant document, trec_eval
    9 (and pytrec_eval) at (long)(1.2 + 0.9) = 2. Ranks 1, 3, 6: 1 against 2/3."""
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": {"a": 5.0, "x": 4.0, "b": 3.0, "y": 2.5, "z": 2.4, "c": 2.0}}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"})
    _EVALUATORS.append(evaluator)
    theirs = evaluator.evaluate(run)["q"]["iprec_at_recall_0.40"]
    relevant = [True, False, True, False, False, True]
    assert theirs == pytest.approx(trec_eval_iprec(relevant, 3, [0.4], trec_eval_9_cut)[0])
    frame = pd.DataFrame([("q", d, s) for d, s in run["q"].items()],
                         columns=["query", "doc", "score"])
    qframe = pd.DataFrame([("q", d, g) for d, g in qrels["q"].items()],
                          columns=["query", "doc", "relevance"])
    ours = evaluate(frame, qframe, ["iprec_at_recall(0.4)"]).summary["value"].iloc[0]
    assert ours == 1.0 and theirs == pytest.approx(2 / 3)


@settings(max_examples=examples(15, deep=100), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rel_level=st.integers(1, 2), judged_only=st.booleans())
def test_pytrec_eval_per_query(seed, rel_level, judged_only):
    """Where trec_eval 9's cutoff equals trec_eval 10's (every level of 11pt_avg for it),
    pytrec_eval's value per query is ours: under every policy on a tie-free run, under
    trec_eval's order on a tied one."""
    qrels, runs = tied_and_tie_free(np.random.default_rng(seed), max_docs=25, extra=5,
                                    top_grade=2, forced_grade=None)
    their_values = pytrec_eval_values(qrels, runs, {"iprec_at_recall", "11pt_avg"}, rel_level,
                                      judged_only)
    num_rel = {q: int((g["relevance"] >= rel_level).sum()) for q, g in qrels.groupby("query")}
    for label, run in runs.items():
        theirs = their_values[label]
        ev = evaluate({label: run}, qrels, ["iprec_at_recall", "11pt_avg"], ties="all",
                      rel_level=rel_level, judged_only=judged_only)
        ours = ev.per_query.set_index(["query", "policy", "metric"])["value"]
        policies = ["trec_eval"] if label == "tied" else ["expected", "best",
                                                          "worst", "trec_eval"]
        for q, values in theirs.items():
            same = [lround(v * num_rel[q]) == trec_eval_9_cut(v * num_rel[q]) for v in LEVELS]
            pairs = [(f"iprec_at_recall_{v:3.2f}", f"iprec_at_recall(recall={v:g})")
                     for v, agree in zip(LEVELS, same) if agree]
            pairs += [("11pt_avg", "11pt_avg")] if all(same) else []
            for measure, name in pairs:
                if math.isnan(values[measure]):  # -J emptied the list: trec_eval's 0 / 0
                    continue
                for policy in policies:
                    assert ours[(q, policy, name)] == pytest.approx(values[measure], abs=1e-12), \
                        (label, q, measure, policy)


# ---- the edges, the names, the other doors ---------------------------------------------------
def test_edges():
    """No relevant document retrieved, none in the qrels, a level past num_rel_ret, and a
    -J list emptied of its documents (trec_eval prints -nan there, its 0 / 0): all 0."""
    spec = {"none_ret": ([1.0, 1.0], [0, None], [1]), "no_rel": ([1.0, 0.5], [0, 0], []),
            "past": ([1.0, 1.0, 0.5], [1, 0, 1], [1, 1]), "emptied": ([1.0], [None], [1])}
    run, qrels = make_inputs(spec)
    ev = evaluate({"r": run}, qrels, ["iprec_at_recall", "11pt_avg"], ties="all",
                  judged_only=True)
    rows = ev.per_query.set_index(["query", "metric", "policy"])["value"]
    for query in ("none_ret", "no_rel", "emptied"):
        assert (rows.xs(query, level="query") == 0).all(), query
    # past: R = 4, two relevant retrieved: levels 0.7 and up (c >= 3) are 0, 0.0 is not
    assert (rows.xs(("past", "iprec_at_recall(recall=0.7)"), level=("query", "metric"))
            == 0).all()
    # the tied pair's relevant document first (1/1, then 2/3) or second (1/2, then 2/3)
    assert rows[("past", "iprec_at_recall(recall=0)", "expected")] == pytest.approx(
        (1 + 2 / 3) / 2)


def test_names_forms_and_refusals():
    assert [m.name for m in expand_metrics("iprec_at_recall.0.5,0.1").metrics] == \
        ["iprec_at_recall(recall=0.1)", "iprec_at_recall(recall=0.5)"]  # sorted, as trec_eval
    assert [trec_eval_name(m.name) for m in expand_metrics("iprec_at_recall").metrics] == \
        [f"iprec_at_recall_{v:3.2f}" for v in LEVELS]
    assert [m.name for m in expand_metrics("11pt_avg").metrics] == ["11pt_avg"]
    assert "11pt_avg" in {m.name for m in expand_metrics("all_trec").metrics}
    request = expand_metrics(["all_trec", "11pt_avg..25,.5,.75"])  # trec_eval's own test form
    assert "11pt_avg" not in {m.name for m in request.metrics}  # the levels replace the 11
    assert dict(request.names) == {"11pt_avg(levels=0.25 0.5 0.75)": "11pt_avg_.25,.5,.75"}
    for text, words in (("iprec_at_recall(1.5)", "recall must be in"),
                        ("iprec_at_recall.0.1,0.1", "repeated"),
                        ("11pt_avg.0.5,0.2", "ascending"),
                        ("11pt_avg@5", "takes no cutoff")):
        with pytest.raises(ValueError, match=words):
            expand_metrics(text)


def test_buckets_give_the_one_pass_bits():
    from tiedrank.distributed import evaluate as scaled_evaluate

    args = (FIXTURES / "run.ties.txt", FIXTURES / "qrels.ties.txt", ["iprec_at_recall",
                                                                     "11pt_avg"])
    one = evaluate(*args, ties="all")
    split = scaled_evaluate(*args, ties="all", buckets=3)
    assert split.summary["value"].tolist() == one.summary["value"].tolist()


def test_exact_law_and_the_sampler():
    """The exact law of stats.exact (every ordering scored by the kernel on resolved
    tables) has our expectation; the random tie-break sampler has no plan for iprec and
    says so."""
    from tiedrank.sampling import sample_run_means
    from tiedrank.stats.exact import query_value_distribution

    spec = {"q": ([1.0, 1.0, 1.0, 1.0, 0.5], [1, 0, None, 2, 1], [1])}
    table = build_tie_table(*make_inputs(spec))
    law = query_value_distribution(table, "iprec_at_recall(0.3)", 0)
    expected = metric_values(table, "iprec_at_recall(0.3)")[0]
    assert float((law["value"] * law["probability"]).sum()) == pytest.approx(expected)
    with pytest.raises(ValueError, match="has no random tie-break sampler"):
        sample_run_means(table, "11pt_avg", 10)
