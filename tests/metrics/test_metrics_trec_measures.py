"""trec_eval's further measures (num_*, set_*, bpref, rbp, Rprec_mult, relative_P, gm_map,
gm_bpref) against independent oracles: every tie ordering enumerated with trec_eval's own
loops (tests/oracles.py), pytrec_eval (trec_eval's C code) per query on tie-free and tied
runs, and trec_eval's published ``out.test``.
"""
from __future__ import annotations

import warnings

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from oracles import (all_orderings, check_per_query_against_pytrec_eval, make_inputs,
                     metric_of_ordering, trec_measure_of_ordering)
from tiedrank import EvaluationOptions
from tiedrank.evaluation import evaluate
from tiedrank.metrics import metric_values, parse_metric
from tiedrank.core.ties import build_tie_table

ROOT = Path(__file__).resolve().parents[2]
ORDER_INDEPENDENT = ["num_ret", "num_rel", "num_rel_ret", "set_P", "set_recall", "set_F",
                     "set_relative_P", "set_map"]
CHECKED = {"cases": 0}


def metric_text(family: str, param) -> str:
    """Our spelling of (family, param): set_F(beta=b), RBP(p=p), Rprec_mult(mult=m), relative_P@k."""
    if family == "relative_P":
        return f"relative_P@{param}"
    keyword = {"set_F": "beta", "rbp": "p", "Rprec_mult": "mult"}.get(family)
    family = "RBP" if family == "rbp" else family  # trec_eval's -m rbp is its graded variant
    return f"{family}({keyword}={param})" if keyword else family


@st.composite
def judged_query(draw):
    """A small tied query: grades None (not in the qrels), -1 (pooled, unjudged) .. 3, and
    judged documents the run never retrieved."""
    n = draw(st.integers(1, 7))
    scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
    grades = draw(st.lists(st.one_of(st.none(), st.integers(-1, 3)), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(-1, 3), max_size=3))
    return scores, grades, extra


def enumerated(family, param, scores, grades, extra, rel_level) -> np.ndarray:
    judged = [g for g in grades if g is not None] + list(extra)
    return np.array([trec_measure_of_ordering(family, param, [grades[i] for i in order],
                                              judged, rel_level)
                     for order in all_orderings(scores)])


@settings(max_examples=examples(60, deep=1000), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(judged_query(), min_size=1, max_size=3), rel_level=st.integers(1, 2),
       beta=st.sampled_from([0.0, 0.5, 1.0, 3.0]), p=st.sampled_from([0.5, 0.8, 0.95]),
       mult=st.sampled_from([0.2, 0.5, 1.0, 1.4, 2.0]), k=st.integers(1, 6))
def test_policies_match_enumeration(queries, rel_level, beta, p, mult, k):
    spec = {f"q{i}": q for i, q in enumerate(queries)}
    table = build_tie_table(*make_inputs(spec), EvaluationOptions(rel_level=rel_level))
    best, worst = table.resolve("best"), table.resolve("worst")
    params = {"set_F": beta, "rbp": p, "Rprec_mult": mult, "relative_P": k}
    for family in ORDER_INDEPENDENT + ["bpref", "rbp", "Rprec_mult", "relative_P"]:
        name = metric_text(family, params.get(family))
        values = {t: metric_values(source, name) for t, source in
                  (("expected", table), ("best", best), ("worst", worst))}
        for i, qid in enumerate(table.queries):
            oracle = enumerated(family, params.get(family), *spec[qid], rel_level)
            assert values["expected"][i] == pytest.approx(oracle.mean(), abs=1e-12), (name, qid)
            assert values["best"][i] == pytest.approx(oracle.max(), abs=1e-12), (name, qid)
            assert values["worst"][i] == pytest.approx(oracle.min(), abs=1e-12), (name, qid)
            if family in ORDER_INDEPENDENT:
                assert oracle.min() == oracle.max()  # the oracle agrees it is order-independent
            CHECKED["cases"] += 1


@settings(max_examples=examples(30, deep=150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(judged_query(), min_size=1, max_size=3), rel_level=st.integers(1, 2))
def test_evaluate_scores_bpref_on_the_whole_table(queries, rel_level):
    """Through evaluate(): bpref's judged non-relevant documents sit in groups without a
    relevant one, which the compact scoring view drops; every policy must still see them."""
    # one judged document per query at least: a query absent from the qrels is not evaluated
    spec = {f"q{i}": (s, g, x + [0]) for i, (s, g, x) in enumerate(queries)}
    run, qrels = make_inputs(spec)
    ev = evaluate({"r": run}, qrels, ["bpref", "gm_bpref", "set_P", "RBP"],
                  ties="all", rel_level=rel_level)
    got = ev.per_query.set_index(["query", "metric", "policy"])["value"]
    for qid, query in spec.items():
        for family, name in (("bpref", "bpref"), ("bpref", "gm_bpref"), ("set_P", "set_P"),
                             ("rbp", "RBP(p=0.9)")):
            oracle = enumerated(family, 0.9, *query, rel_level)
            assert got[(qid, name, "expected")] == pytest.approx(oracle.mean(), abs=1e-12)
            assert got[(qid, name, "best")] == pytest.approx(oracle.max(), abs=1e-12)
            assert got[(qid, name, "worst")] == pytest.approx(oracle.min(), abs=1e-12)


def test_bpref_counts_every_judged_nonrelevant_above_capped_at_r():
    """R = 1, N = 3: the cap min(n_r, R) saturates after one non-relevant document above.
    Ranked: n n r | r tied with n: each term 1 - min(n_r, 1)/1; R counts the qrels' relevant
    documents, so with the second relevant unretrieved the value is divided by 2."""
    spec = {"q": ([3.0, 2.0, 1.0], [0, 0, 1], [0, 1])}  # R = 2, N = 3
    table = build_tie_table(*make_inputs(spec))
    assert metric_values(table, "bpref")[0] == pytest.approx(0.0, abs=1e-15)  # 1 - 2/2
    spec = {"q": ([1.0, 1.0, 0.5], [1, 0, None], [0, -1])}  # R = 1, N = 2, a pooled -1
    table = build_tie_table(*make_inputs(spec))
    assert metric_values(table, "bpref")[0] == pytest.approx(0.5, abs=1e-15)  # Y ~ U{0, 1}


# ---- pytrec_eval (trec_eval's C code): tie-free runs under every policy, tied runs under
# trec_eval's order. One evaluator per example (kept alive: trec_eval's global state).
pytrec_eval = pytest.importorskip("pytrec_eval")
TREC_MEASURES = {"num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
                 "set_P": "set_P", "set_recall": "set_recall", "set_F": "set_F",
                 "set_relative_P": "set_relative_P", "set_map": "set_map", "bpref": "bpref",
                 "gm_map": "gm_map", "gm_bpref": "gm_bpref",
                 "Rprec_mult_0.20": "Rprec_mult(0.2)", "Rprec_mult_1.00": "Rprec_mult(1)",
                 "Rprec_mult_1.40": "Rprec_mult(1.4)", "Rprec_mult_2.00": "Rprec_mult(2)",
                 "relative_P_5": "relative_P@5", "relative_P_10": "relative_P@10",
                 "relative_P_15": "relative_P@15"}
GEOMETRIC = {"gm_map", "gm_bpref"}  # pytrec_eval gives log(max(value, 0.00001)) per query
# pytrec_eval per query (tests/oracles.py): tie-free runs under every policy, tied runs under
# trec_eval's order


@settings(max_examples=examples(25, deep=100), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rel_level=st.integers(1, 2), judged_only=st.booleans())
def test_pytrec_eval_per_query(seed, rel_level, judged_only):
    assert check_per_query_against_pytrec_eval(seed, rel_level, judged_only, TREC_MEASURES,
                                               geometric=frozenset(GEOMETRIC))


# ---- summaries: sums and geometric means ------------------------------------------------------
def test_reproduces_trec_eval_out_test():
    base = ROOT / "sample_data" / "trec_eval"
    expected = dict(line.split()[::2] for line in (base / "out.test").read_text().splitlines())
    ev = evaluate(base / "results.test", base / "qrels.test",
                  ["num_ret", "num_rel", "num_rel_ret", "gm_map", "bpref"], ties="trec_eval")
    got = ev.summary.set_index("metric")["value"]
    for name in ("num_ret", "num_rel", "num_rel_ret"):
        assert got[name] == float(expected[name]), name  # trec_eval sums these
    for name in ("gm_map", "bpref"):
        assert f"{got[name]:.4f}" == expected[name], name


def test_geometric_mean_of_the_per_query_expectations():
    """gm_map's expected summary is exp(mean(log(max(E[AP_q], 1e-5)))) over the queries, the
    floor catching a query whose AP is 0; computed here from the enumerated E[AP_q]. The
    expectation of the geometric mean differs (Jensen: it is smaller)."""
    spec = {"a": ([1.0, 1.0, 1.0, 0.5], [0, 1, 0, 1], [1]),
            "b": ([2.0, 1.0, 1.0], [1, 0, 2], []),
            "c": ([1.0, 1.0], [0, 0], [1])}  # AP 0 in every ordering: the floor
    run, qrels = make_inputs(spec)
    ev = evaluate({"r": run}, qrels, ["gm_map", "AP"], ties="all")
    summary = ev.summary.set_index(["metric", "policy"])["value"]
    orderings = {q: np.array([metric_of_ordering("AP", None, [g[i] for i in order], g + x, 1)
                              for order in all_orderings(s)]) for q, (s, g, x) in spec.items()}
    for policy, pick in (("expected", np.mean), ("best", np.max), ("worst", np.min)):
        per_query = [pick(v) for v in orderings.values()]
        want = math.exp(sum(math.log(max(v, 1e-5)) for v in per_query) / len(per_query))
        assert summary[("gm_map", policy)] == pytest.approx(want, rel=1e-12), policy
    # per query the rows are the AP values themselves (trec_eval prints none for gm_map)
    rows = ev.per_query[ev.per_query["policy"] == "expected"].pivot(
        index="query", columns="metric", values="value")
    assert np.array_equal(rows["gm_map"].to_numpy(), rows["AP"].to_numpy())
    # the expectation of the geometric mean over independent orderings is not it
    expectation_of_gm = math.prod(np.mean(np.maximum(v, 1e-5) ** (1 / 3))
                                  for v in orderings.values())
    assert expectation_of_gm < summary[("gm_map", "expected")] - 1e-6


def test_summaries_combine_across_buckets():
    """The sum and the geometric mean are exact sums of summands, so the bucketed evaluation
    gives the one-pass bits."""
    from tiedrank.distributed import evaluate as scaled_evaluate

    base = ROOT / "sample_data" / "trec_eval"
    metrics = ["num_ret", "gm_map", "gm_bpref", "set_F"]
    one = evaluate(base / "results.test", base / "qrels.test", metrics, ties="all")
    split = scaled_evaluate(base / "results.test", base / "qrels.test", metrics, ties="all",
                            buckets=3)
    assert split.summary["value"].tolist() == one.summary["value"].tolist()


def test_parameters_are_checked():
    assert parse_metric("set_F").name == "set_F(beta=1)"
    assert parse_metric("rbp").name == "RBP(p=0.9)"
    assert parse_metric("Rprec_mult(0.2)").name == "Rprec_mult(mult=0.2)"
    for text, words in (("rbp(p=1)", "p must be in"), ("set_F(beta=-1)", "beta must be >= 0"),
                        ("Rprec_mult(mult=0)", "mult must be > 0"), ("bpref@10", "no cutoff"),
                        ("relative_P", "needs a cutoff")):
        with pytest.raises(ValueError, match=words):
            parse_metric(text)
    assert parse_metric("set_map").policy_invariant and not parse_metric("bpref").policy_invariant


def test_exact_laws_and_the_sampler():
    """The exact enumeration (stats.exact) scores bpref on every ordering with its judged
    non-relevant documents; the random tie-break sampler, which has no plan for the new
    families, refuses them instead of returning a constant."""
    from tiedrank.sampling import sample_run_means
    from tiedrank.stats.exact import query_value_distribution

    spec = {"q": ([1.0, 1.0, 1.0, 0.5], [1, 0, None, 1], [0, 2])}
    table = build_tie_table(*make_inputs(spec))
    for family, name in (("bpref", "bpref"), ("rbp", "RBP(p=0.5)")):
        law = query_value_distribution(table, name, 0)
        oracle = enumerated(family, 0.5, *spec["q"], 1)
        assert float((law["value"] * law["probability"]).sum()) == pytest.approx(oracle.mean())
        assert law["value"].min() == pytest.approx(oracle.min())
        with pytest.raises(ValueError, match="has no random tie-break sampler"):
            sample_run_means(table, name, 10)
    assert np.all(sample_run_means(table, "set_P", 10) == 0.5)


NEW_LINES = ("bpref", "gm_map", "gm_bpref", "set_P", "set_recall", "set_F", "set_relative_P",
             "set_map", "num_nonrel_judged_ret", "Rprec_mult_", "relative_P_")


@pytest.mark.parametrize("flags", [{}, {"rel_level": 2}, {"judged_only": True}],
                         ids=["default", "l2", "J"])
def test_trec_eval_10_output_line_for_line(flags):
    """trec_eval 10.0's own -q -m all_trec output on a tie-free run (the fixtures of
    tests/cli/trec_eval_fixtures): every line of the new measures, per query and 'all',
    is ours byte for byte (gm_* on the 'all' line only, num_nonrel_judged_ret an integer)."""
    fixtures = ROOT / "tests" / "cli" / "trec_eval_fixtures"
    name = {"rel_level": "l2.", "judged_only": "J."}.get(next(iter(flags), ""), "")
    theirs = [line for line in (fixtures / f"out.q.{name}all_trec.txt").read_text().splitlines()
              if line.split("\t")[0].rstrip().startswith(NEW_LINES)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every measure of all_trec is tie-aware: no note
        ev = evaluate(fixtures / "run.txt", fixtures / "qrels.txt", ["all_trec"],
                      ties="trec_eval", **flags)
    ours = [line for line in ev.to_trec_eval(per_query=True).splitlines()
            if line.split("\t")[0].rstrip().startswith(NEW_LINES)]
    assert len(theirs) > 100 and sorted(ours) == sorted(theirs)


def test_cli_table_says_which_values_are_not_means():
    import contextlib
    import io

    from tiedrank.cli import main

    base = ROOT / "sample_data" / "trec_eval"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["evaluate", str(base / "qrels.test"), str(base / "results.test"),
                       "-m", "num_ret", "-m", "gm_map", "-m", "AP"])
    assert status == 0
    rows = {line.split()[1]: line.split()[3] for line in out.getvalue().splitlines()[1:]}
    assert rows["num_ret"] == "1500.0000" and rows["gm_map"] == "0.1051"
    notes = [line for line in err.getvalue().splitlines() if "the sum over" in line]
    assert notes == ["# note: num_ret: the sum over the queries; gm_map: the geometric mean "
                     "(trec_eval's, each value floored at 0.00001; expected: the geometric "
                     "mean of the per-query expectations, not the expectation of the "
                     "geometric mean)"]
